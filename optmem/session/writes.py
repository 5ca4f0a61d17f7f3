"""The writes and the hand-over after them: ``note``, ``sleep`` (and
``pay_targets`` for ``sleep --with``), the next compression of the stores
read (``handover``, global first), which store a summary goes to
(``sleep_store``), the receipt's scope line, and the refusal of a write
where git could not be asked which project this is (``write_scope``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterable

from optmem import blocks, protocol
from optmem.engine import view
from optmem.errors import BadInput, MemoError
from optmem.scope import GLOBAL_FLAG
from optmem.session.errors import failure_lines
from optmem.session.stores import Result, Stores, global_flag, global_named, lazy_projects

if TYPE_CHECKING:  # for the annotations alone (a command opens stores through its front end)
    from optmem.store.memory import Store


def handover(scope: Any, gstore: Store, pstore: Store | None,
             form: str | None = None) -> protocol.Handover:
    """The next compression of the two stores, global first, with its scope
    flag in the order, as a ``protocol.Handover``; of kind ``NOTHING`` only
    when both are done. The store that hands a block over notes in its own
    hand-over record that it did so with both stores read
    (``engine.handover.mark_both``), which ``sleep_store`` reads for a
    seed-form ``memo sleep LO-HI`` without a flag."""
    from optmem.engine.handover import next_handover
    after = 0  # the project's, counted in the global prompt's "N remain" line
    if pstore is not None:
        cp = pstore.count()
        after = view.pending_in(cp, pstore.built(cp))
    from optmem.engine.handover import mark_both
    prompt = next_handover(gstore, form=form, flag=global_flag(scope), after=after)
    store = gstore
    if prompt.kind == protocol.NOTHING and pstore is not None:
        prompt = next_handover(pstore, form=form, flag=scope.flag)
        store = pstore
    if pstore is not None and prompt.kind != protocol.NOTHING:
        T = store.count()
        built = store.built(T)
        firsts = {view.next_pending(store, T, built),          # one block a prompt
                  next(iter(blocks.pending_by_end(T, built)), None)}  # a batch's first
        mark_both(store, sorted(b for b in firsts if b is not None))
    return prompt


def sleep_store(scope: Any, gstore: Store, pstore: Store | None, block_arg: str,
                explicit: bool) -> Store:
    """Which store ``memo sleep LO-HI`` writes to: the named one with a flag;
    without one, the store that handed LO-HI over last with both stores
    read (``engine.handover.handed_over_at``), else the one whose next
    pending block is LO-HI, global first, else the global."""
    from optmem.engine.handover import handed_over_at
    if pstore is None or explicit:
        return pstore if (explicit and pstore is not None) else gstore
    lo, hi = view.parse_block(block_arg)
    name = blocks.block_name(lo, hi)
    handed = [(at, k) for k, at in enumerate(handed_over_at(s, name) for s in (gstore, pstore))
              if at is not None]
    if handed:
        return (gstore, pstore)[max(handed)[1]]
    for store in (gstore, pstore):
        if view.next_pending(store, store.count()) == (lo, hi):
            return store
    return gstore


def scope_line(sc: Any, explicit: bool, instead: protocol.Order | None = None) -> str | None:
    """The receipt's second line: where a note went, once projects exist
    (None without an active project or an explicit global scope);
    ``instead``, the ``protocol.Order`` its hint names (an import's)."""
    if sc.project:
        return protocol.scope_receipt(sc.project, instead)
    if explicit and sc.how == GLOBAL_FLAG and sc.forced_global:
        return protocol.scope_receipt(None)
    return None


def follow(sc: Any, gstore: Store, pstore: Store | None, prompt: str | None) -> str | None:
    """The hand-over after a write: with a project active the next
    compression of both stores (global first); with an explicit global
    scope while projects exist, or where the project is unknown
    (``Scope.problem``), the global store's with its ``--global`` flag;
    else the one store's ``prompt``. A ``memo: ...`` line (saved, but the
    store needs care) passes as is. None when nothing is left."""
    from optmem.engine.handover import compression
    if prompt and prompt.startswith("memo: "):
        return prompt
    if pstore is not None:
        due = handover(sc, gstore, pstore)
        return None if due.kind == protocol.NOTHING else due.text
    if prompt and global_named(sc):
        text = compression(gstore, flag=GLOBAL_FLAG)
        return None if text == view.NOTHING_LEFT else text
    return prompt


def _follow_global(sc: Any, gstore: Store, due: protocol.Handover) -> protocol.Handover:
    """``follow`` for one store's hand-over ``due`` (a ``protocol.Handover``)
    after a summary: the global store's again with its ``--global`` flag
    where ``follow`` gives it, else ``due``."""
    from optmem.engine.handover import next_handover
    if global_named(sc):
        return next_handover(gstore, flag=GLOBAL_FLAG)
    return due


def write_scope(sc: Any, explicit: bool, what: str, order: protocol.Order,
                form: str | None = None) -> None:
    """Refuse (``BadInput``) a write (``what``: "this note", ...) without a
    scope where git could not be asked which project this repository uses
    (``Scope.problem``): it could land in the wrong memory. ``order``
    (``protocol.Order`` without a scope: the write with placeholders) makes
    the two forms named, one with a project's name and one global: shell
    commands (``memo note --project NAME <text>``), or in the ``mcp`` form
    (``form``, default the form in force) tool calls with the ``scope``
    argument."""
    if not sc.problem or explicit:
        return
    if (form or protocol.orders_form()) != protocol.MCP_FORM:
        rest = " ".join([*order.words, *([order.text] if order.text is not None else [])])
        raise sc.refusal(what, order.verb, rest)
    have = lazy_projects().names(sc.root)
    listing = f" (the projects are: {', '.join(have)})" if have else ""
    named, everywhere = (protocol.Order(order.verb, order.words, where, order.text)
                         for where in ("NAME", "global"))
    raise BadInput(f"{sc.problem}, so memo cannot tell which project the repository at "
                   f"{sc.repository} uses, and {what} could land in the wrong memory; nothing "
                   f"was written. Name the memory: {named.inline(form)}{listing}, or "
                   f"{everywhere.inline(form)}; {lazy_projects().git_step(sc.problem, sc.repository)}")


def refuse_read_only(gstore: Store, pstore: Store | None, pending_only: bool) -> None:
    """Refuse (``MemoError``) a ``sleep`` that could save nothing: a store
    it may write to is read-only for this user, so no compression is handed
    out (``pending_only``: a bare ``sleep`` with nothing pending passes)."""
    from optmem.engine import core
    for each in (gstore, pstore):
        if each is not None:
            core.refuse_read_only(each, pending_only=pending_only)


#: Seconds within which a ``note`` of the same text (as the duplicate check
#: folds it) into the same store is a retry, when the front end asks for it
#: (``note``'s ``remember``: the MCP server, whose client may retry a call
#: whose answer it lost): it is answered with the first call's receipt,
#: ``Saved as #i.``, and nothing is stored again. A client retries well
#: inside two minutes; later, the duplicate check refuses it as usual.
RETRY_SECONDS = 120.0


#: (store root, folded text) -> (id, time.monotonic() when saved), for the
#: notes saved with ``remember`` within ``RETRY_SECONDS`` in this process;
#: its callers serialise their calls (the MCP server's lock).
_recent: dict = {}


def _note_key(store: Store, text: str) -> tuple:
    return (store.root, view.fold(view.clean_text(text, store.config().ENTRY_CHARS)))


def _retried(store: Store, text: str) -> int | None:
    """The id of the memory saved with ``remember`` with ``text`` (folded)
    in ``store`` within ``RETRY_SECONDS``, when that memory still reads so;
    else None. Forgets older entries."""
    import time
    now = time.monotonic()
    for key in [k for k, (_, when) in _recent.items() if now - when > RETRY_SECONDS]:
        del _recent[key]
    try:
        key = _note_key(store, text)
    except Exception:  # the call itself refuses it, as memo note does
        return None
    seen = _recent.get(key)
    if seen is None:
        return None
    try:
        if view.fold(store.memory(seen[0]).text) == key[1]:
            return seen[0]
    except Exception:  # damaged or gone: note it as any other text
        pass
    del _recent[key]
    return None


def _saved(store: Store, text: str, i: int) -> None:
    """Remember that memory ``i`` of ``store`` was saved with ``text``."""
    import time
    try:
        key = _note_key(store, text)
    except Exception:  # pragma: no cover - it was just saved, so it is clean
        return
    _recent[key] = (i, time.monotonic())


def note(st: Stores, text: str | Callable[[int], str], kept: Callable[[str], Any] | None = None,
         remember: bool = False) -> Result:
    """``memo note TEXT``: save one memory in the project's store (with a
    project active) or the global one, and answer ``Saved as #i.``, the
    scope line (``scope_line``), then a blank line and the hand-over
    (``follow``) when a compression is due.

    ``text``: the memory, or a function of the store's ``ENTRY_CHARS``
    (bytes) returning it (the CLI reads ``-`` from standard input within
    that limit). ``kept(what)``: told what is saved so far, before and
    after the write (the CLI's words for an interrupt). ``remember``: a
    note repeated within ``RETRY_SECONDS`` gets the first receipt
    (``_retried``). Refused (``MemoError``) before anything is written;
    once saved, a failure of the hand-over, or a store that needs care,
    comes as notes after the receipt (exit 1, an error): the receipt is
    never lost."""
    from optmem.engine import core
    from optmem.engine.handover import compression
    write_scope(st.sc, st.explicit, "this note", protocol.Order("note", text="<text>"))
    gstore, pstore = st.g, st.p
    store = pstore or gstore
    if kept is not None:
        kept("nothing was saved")
    if callable(text):
        text = text(store.config().ENTRY_CHARS)
    prompt: str | None
    i = _retried(store, text) if remember else None
    if i is not None:  # a retry: the first call's receipt, nothing stored twice
        try:
            prompt = compression(store)
            prompt = None if prompt == view.NOTHING_LEFT else prompt
        except Exception as err:  # noqa: BLE001 - saved already: said after the receipt
            prompt = failure_lines(err)[0]
    else:
        i, prompt = core.note(store, text)
        if remember:
            _saved(store, text, i)
    if kept is not None:
        kept(f"memory #{i} was saved")
    lines = [protocol.saved_as(i)]
    line = scope_line(st.sc, st.explicit)
    if line:
        lines.append(line)
    try:
        prompt = follow(st.sc, gstore, pstore, prompt)
    except Exception as err:  # noqa: BLE001 - saved already: said after the receipt
        return Result(lines, failure_lines(err), exit_code=1, error=True)
    if prompt and prompt.startswith("memo: "):  # saved, but the store needs care
        return Result(lines, [prompt], exit_code=1, error=True)
    if prompt:
        lines += ["", prompt]
    return Result(lines)


def pay_targets(st: Stores, block: str | None = None, text: Iterable[str] = ()) -> list:
    """The stores ``memo sleep --with CMD`` pays, in order: the named
    project's alone, else the global store then the active project's.
    Refused (``BadInput``, ``MemoError``) without a scope where git could
    not be asked which project this is (``write_scope``), where a store is
    read-only (``refuse_read_only``), and with a ``block`` or ``text``
    (``--with`` answers every pending compression itself)."""
    write_scope(st.sc, st.explicit, "this summary",
                protocol.Order("sleep", ("LO-HI",), text="<line>"))
    refuse_read_only(st.g, st.p, pending_only=block is None)
    if block is not None or text:
        raise BadInput("--with answers every pending compression itself; give no "
                       "block or text with it")
    if st.explicit and st.p is not None:
        return [st.p]
    return [st.g] + ([st.p] if st.p is not None else [])


def _after_summary(st: Stores, ambient: tuple | None,
                   prompt: protocol.Handover) -> protocol.Handover:
    """The hand-over after a saved summary (``prompt``: the one store's,
    a ``protocol.Handover``): both stores' with a project active (global
    first); where the global memory was named while this folder has a
    project (``Stores.ambient``), both stores' too, so the project's work
    is never hidden behind ``Nothing left to compress.`` nor handed over
    without its flag; else ``follow``'s."""
    if st.p is not None:
        return handover(st.sc, st.g, st.p)
    if ambient is not None:
        return handover(ambient[0], st.g, ambient[1])
    return _follow_global(st.sc, st.g, prompt)


def sleep(st: Stores, block: str | None = None, summary: Any = None, batch: Any = None,
          kept: Callable[[str], Any] | None = None,
          strict: bool = False) -> Result:
    """``memo sleep``: the next compression (no ``block``, no ``batch``), the
    summary of ``block``, or a batched answer (``batch``).

    ``summary``: the line, or a function of the store's ``ENTRY_CHARS``
    (bytes) returning it (it may raise a front end's refusal of a missing
    summary). ``batch``: the answer's lines, or a function returning them
    (the CLI reads standard input). A summary is stored in the store
    ``sleep_store`` picks; the answer is ``LO-HI saved.`` (or the batch's
    reply, ``handover.reply_lines``: exit 1 and an error when a line was
    refused), a blank line and the next hand-over (``_after_summary``), or
    ``Nothing left to compress.`` right after it. ``kept(what)`` is told
    what is saved so far (the CLI's words for an interrupt). ``strict``
    (the CLI): a hand-over that waits for a damaged summary raises
    ``Damaged`` (after a saved summary: as notes after its receipt, exit
    1). Refusals (``MemoError``) come before anything is written."""
    from optmem.engine import core
    from optmem.engine.handover import next_handover
    if block is not None or batch is not None:  # a summary is written
        write_scope(st.sc, st.explicit, "this summary",
                    protocol.Order("sleep", ("LO-HI",), text="<line>"))
    gstore, pstore = st.g, st.p
    if block is None:  # one store's: core.sleep checks
        refuse_read_only(gstore, pstore, pending_only=batch is None)
    if block is None and batch is None:
        if pstore is not None:
            due = handover(st.sc, gstore, pstore)
        else:
            due = _follow_global(st.sc, gstore, next_handover(gstore))
        if strict:
            view.strict_damage(due)  # the next compression needs a damaged summary
        return Result([due.text])
    ambient = st.ambient()
    if batch is not None:
        from optmem.engine import handover as handing
        items = handing.parse_items(batch() if callable(batch) else batch)
        store = gstore
        if pstore is not None:
            first = next((arg for arg, _ in items if arg), None)
            if first is None:
                raise BadInput("the answer holds no 'LO-HI <line>' line; write one per block, "
                               "as the order shows.", then=protocol.Order("sleep"))
            store = sleep_store(st.sc, gstore, pstore, first, st.explicit)
        result = handing.store_batch(store, items)
        result.prompt = _after_summary(st, ambient, result.prompt)
        refused = result.refused is not None
        return Result(handing.reply_lines(result), exit_code=int(refused), error=refused)
    assert block is not None  # the batch and the bare sleep returned above
    view.parse_block(block)
    store = gstore
    if pstore is not None:
        store = sleep_store(st.sc, gstore, pstore, block, st.explicit)
    if kept is not None:
        kept("nothing was saved")
    if callable(summary):
        summary = summary(store.config().ENTRY_CHARS)
    said, prompt = core.sleep(store, block, summary)
    if kept is not None:
        kept(f"the summary of {block} was saved")
    due = _after_summary(st, ambient, prompt)
    if strict:
        try:
            view.strict_damage(due)  # saved; the next compression needs a damaged summary
        except MemoError as err:
            return Result([said], failure_lines(err), exit_code=1, error=True)
    return Result([said, *([""] if due.kind != protocol.NOTHING else []), due.text])

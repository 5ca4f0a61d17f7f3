"""The session layer: what every command does, for both front ends.

The CLI (``optmem.cli``) and the MCP server (``optmem.mcp``) parse their
input, call one function here per command and render the ``Result`` it
returns (the CLI: its lines on stdout, its notes on stderr, its exit code;
the MCP server: one text and ``isError``). This module decides, once for both, which
stores a command touches (global or project, the scope flag, a project
binding git could not be asked about), the receipt's scope line, the
hand-over that follows a write, and how a refusal or a filesystem error
reads. With a project active (``optmem.projects.resolve``) a command reads
both stores as one memory: ``wake`` prints one document in two headed
sections sharing the global store's ``WAKE_LINES`` budget, compressions are
handed over global first, ``recall`` searches both. Without a project the
one store's engine answers exactly as before, so every byte stays the same.
No click, no MCP SDK, no git of its own (``optmem.scope`` asks git).
"""

from __future__ import annotations

import errno
import os

from optmem import blocks, protocol
from optmem.engine import pager, view
from optmem.engine import wake as waking
from optmem.errors import BadInput, MemoError, NotBuilt

GLOBAL_FLAG = "--global"


class Result:
    """What one command answers, built once here and rendered by each front end.

    ``lines``: what it prints on standard output, in order (an item may hold
    several lines: a hand-over prompt is one item); ``notes``: ``memo: ...``
    lines after them, which the CLI prints on standard error (a write that
    was saved but whose store needs care, a notice such as "showing the
    newest N"); ``exit_code``: the CLI's exit status; ``error``: whether a
    client sees an error result (MCP ``isError``). The two differ for a
    wake blocked on a compression: exit 1 on the command line, where a
    script checks it, and no error over MCP, where it is a step to take.
    (A plain class: ``dataclass`` would cost every command's start-up.)
    """

    __slots__ = ("lines", "notes", "exit_code", "error")

    def __init__(self, lines=None, notes=None, exit_code: int = 0, error: bool = False):
        self.lines = list(lines or [])
        self.notes = list(notes or [])
        self.exit_code, self.error = exit_code, error

    def __repr__(self) -> str:
        return (f"Result(lines={self.lines!r}, notes={self.notes!r}, "
                f"exit_code={self.exit_code!r}, error={self.error!r})")

    def __eq__(self, other) -> bool:
        return isinstance(other, Result) and all(
            getattr(self, k) == getattr(other, k) for k in self.__slots__)

    @property
    def text(self) -> str:
        """The whole answer as one text (the MCP tool result): the lines,
        then the notes, joined by newlines."""
        return "\n".join([*self.lines, *self.notes])


class Stores:
    """The stores one command uses, each opened on first use.

    ``sc``: the scope (``optmem.scope.resolve``); ``g``: the global store;
    ``p``: the active project's store, or None without one; ``explicit``:
    True when the command named a scope (``--global``, ``--project NAME``,
    the ``scope`` argument); ``cwd``: the folder whose repository picks the
    project (None: the working directory). ``opener(path)`` opens the store
    at ``path`` (a front end's: the CLI closes it when the command ends);
    ``Store.open`` raises ``NoStore`` for a missing store, so a command
    that reads only the project's store never opens the global one."""

    def __init__(self, sc, opener, explicit: bool = False, cwd: str | None = None):
        self.sc, self.explicit, self.cwd = sc, explicit, cwd
        self._opener = opener
        self._open: dict = {}

    def _at(self, path):
        if path not in self._open:
            self._open[path] = self._opener(path)
        return self._open[path]

    @property
    def g(self):
        """The global store."""
        return self._at(self.sc.root)

    @property
    def p(self):
        """The active project's store, or None (its orders name it:
        ``Store.scope_flag``)."""
        if not self.sc.project:
            return None
        store = self._at(self.sc.project_root)
        store.scope_flag = self.sc.flag
        return store

    def ambient(self):
        """Where the global memory was named while projects exist
        (``forced_global``) and no project is active: ``(scope, store)`` of
        the project this folder uses without a flag (``scope.resolve`` at
        ``cwd``), whose work the hand-over after a saved summary still
        names; None when there is none."""
        if self.sc.project or not self.sc.forced_global:
            return None
        from optmem.scope import resolve
        ambient = resolve(None, cwd=self.cwd)
        if not ambient.project:
            return None
        return ambient, self._at(ambient.project_root)

    def opened(self) -> list:
        """The stores opened so far, in the order they were opened."""
        return list(self._open.values())


def _projects():
    """``optmem.projects``, imported on first use: a store without a
    ``projects/`` folder never needs it (5.9 ms of start-up, measured with
    ``benchmarks/startup.py --importtime wake``)."""
    from optmem import projects
    return projects


def _json():
    """``json``, imported on first use (``recall --json`` alone; 1.2 ms of
    start-up every other command would pay)."""
    import json
    return json



def shares(B: int, Tg: int, Tp: int) -> tuple:
    """The wake lines ``(g, p)`` of the global and project sections.

    ``B`` is the global store's ``WAKE_LINES``; ``Tg``/``Tp`` the memories
    each section is shown at. With pc = popcount (the fewest lines a store
    of T memories can be shown in):
    ``p = max(pc(Tp), min(Tp, B - max(pc(Tg), min(Tg, B // 4))))`` and
    ``g = max(pc(Tg), min(Tg, B - p))``: the global memory keeps at least a
    quarter of B (or all of it when smaller), the project takes what is left
    and the global memory what the project leaves. ``g + p`` is at most
    ``max(B, pc(Tg) + pc(Tp))`` (tested as a property).
    """
    pc = blocks.popcount
    p = max(pc(Tp), min(Tp, B - max(pc(Tg), min(Tg, B // 4))))
    g = max(pc(Tg), min(Tg, B - p))
    return g, p


def global_flag(scope) -> str:
    """The flag an order for the global store carries: ``--global`` while a
    project is active, else nothing (the seed's orders)."""
    return GLOBAL_FLAG if scope.project else ""


def handover(scope, gstore, pstore, form=None) -> protocol.Handover:
    """The next compression of the two stores, global first, with its scope
    flag in the order, as a ``protocol.Handover``; of kind ``NOTHING`` only
    when both are done. Records, under the project store's lock, which store
    handed the block over (for a seed-form ``memo sleep LO-HI`` without a
    flag)."""
    from optmem.engine.handover import next_handover
    after = 0  # the project's, counted in the global prompt's "N remain" line
    if pstore is not None:
        cp = pstore.count()
        after = view.pending_in(cp, pstore.built(cp))
    prompt = next_handover(gstore, form=form, flag=global_flag(scope), after=after)
    which = "global"
    if prompt.kind == protocol.NOTHING and pstore is not None:
        prompt = next_handover(pstore, form=form, flag=scope.flag)
        which = "project"
    if pstore is not None and prompt.kind != protocol.NOTHING:
        store = gstore if which == "global" else pstore
        T = store.count()
        built = store.built(T)
        firsts = {view.next_pending(store, T, built),          # one block a prompt
                  next(iter(blocks.pending_by_end(T, built)), None)}  # a batch's first
        with pstore.locked(repair=False):
            for block in sorted(b for b in firsts if b is not None):
                _projects().record_handover(scope.project_root, blocks.block_name(*block), which)
    return prompt


def sleep_store(scope, gstore, pstore, block_arg: str, explicit: bool):
    """Which store ``memo sleep LO-HI`` writes to: the named one with a flag;
    without one, the store that last handed LO-HI over (recorded), else the
    one whose next pending block is LO-HI, global first, else the global."""
    if pstore is None or explicit:
        return pstore if (explicit and pstore is not None) else gstore
    lo, hi = view.parse_block(block_arg)
    name = blocks.block_name(lo, hi)
    with pstore.locked(repair=False):
        said = _projects().recorded_handover(scope.project_root, name)
    if said == "project":
        return pstore
    if said == "global":
        return gstore
    for store in (gstore, pstore):
        if view.next_pending(store, store.count()) == (lo, hi):
            return store
    return gstore


def forget_handover(scope, block_arg: str) -> None:
    """Drop the record of LO-HI once its summary is saved."""
    if scope.project_root:
        lo, hi = view.parse_block(block_arg)
        _projects().record_handover(scope.project_root, blocks.block_name(lo, hi), None)


# -- wake --------------------------------------------------------------------

def heading_global(scope) -> str:
    """The global section's heading (never starts with ``#`` or ``Run:``)."""
    return f"Global memory ({scope.root}): facts true in any repository."


def heading_project(scope) -> str:
    """The project section's heading."""
    return (f"Project memory: {scope.project} ({scope.project_root}): facts of this "
            f"repository only.")


def _at(store, T, what: str, flag: str) -> int:
    count = store.count()
    if T is None:
        return count
    if T > count:
        raise BadInput(f"the {what} holds {count} memories, so there is no view at T={T}.",
                       then=protocol.Order("wake", scope=protocol.Order.scoped(flag)))
    return T


def wake_both(scope, gstore, pstore, part: int, Tg, Tp, form=None, strict: bool = False,
              closed: bool = True) -> tuple:
    """Part ``part`` of the two-store document at ``(Tg, Tp)`` (None: the
    current counts; a seed-form ``memo wake K TG`` gives no ``Tp``, so the
    project is read at its current count).

    Returns ``(ok, text)`` as ``waking.wake`` does: ``ok`` False (``Cannot
    wake: N compressions pending.``, a blank line, the hand-over) only when
    the document needs a summary not built in either store; otherwise the
    part, the last one ending ``You are awake.`` and then, after a blank
    line, the next compression of the two stores (global first). Raises
    ``BadInput`` for a ``T`` past a log or a part that does not exist. With
    ``strict`` (the CLI) a damaged summary the document shows, or one the
    next compression needs, raises ``Damaged`` as ``waking.wake`` does, its
    ``memo forget`` order carrying the store's flag. ``closed`` as for
    ``waking.wake``."""
    flag = scope.flag
    Tg = _at(gstore, Tg, "global memory", flag)
    Tp = _at(pstore, Tp, f"project {scope.project}", flag)
    g, p = shares(gstore.config().WAKE_LINES, Tg, Tp)
    cfg = gstore.config()
    tg = blocks.cover(Tg, g) if Tg else []
    tp = blocks.cover(Tp, p) if Tp else []
    if view.missing_in(Tg, tg, gstore.built(Tg)) or view.missing_in(Tp, tp, pstore.built(Tp)):
        due = handover(scope, gstore, pstore, form)
        if due.kind == protocol.NOTHING:  # another session just built it
            return wake_both(scope, gstore, pstore, part, Tg, Tp, form, strict, closed)
        if strict:
            view.strict_damage(due)
        if due.waiting:  # a repair first: show what is built
            from optmem.engine.wake import split_awake
            doc, _ = split_awake(wake_max_bytes(scope, gstore, pstore, cfg.PART_CHARS))
            return True, "\n".join([*doc, view.AWAKE, "", due.text])
        cg, cp = gstore.count(), pstore.count()
        pending = view.pending_in(cg, gstore.built(cg)) + view.pending_in(cp, pstore.built(cp))
        return False, protocol.cannot_wake(pending) + "\n\n" + due.text
    gdamaged, pdamaged = [], []
    try:
        body = [waking.wake_intro(gstore, Tg)]
        body += waking.wake_lines(gstore, Tg, g, gdamaged) if Tg else []
        body += [heading_project(scope), waking.wake_intro(pstore, Tp)]
        body += waking.wake_lines(pstore, Tp, p, pdamaged) if Tp else []
    except NotBuilt:  # another session forgot a summary while we read
        return wake_both(scope, gstore, pstore, part, Tg, Tp, form, strict, closed)
    if strict and gdamaged:
        raise view.damaged_error(gstore, gdamaged, global_flag(scope))
    if strict and pdamaged:
        raise view.damaged_error(pstore, pdamaged, scope.flag)
    name = scope.project
    parts = pager.paginate(body, heading_global(scope), Tg, cfg.PART_LINES, cfg.PART_CHARS,
                           head=protocol.part_header,
                           foot=lambda k, n: protocol.part_footer_scoped(k, n, Tg, Tp, name),
                           closed=closed)
    if not 1 <= part <= len(parts):
        raise BadInput(f"part {part} does not exist: the document at T={Tg}, project T={Tp} "
                       f"has {len(parts)} part{'s' if len(parts) > 1 else ''}.",
                       then=protocol.Order("wake", ("1", str(Tg), str(Tp)), name))
    text = parts[part - 1]
    if part == len(parts):
        due = handover(scope, gstore, pstore, form)
        if strict:
            view.strict_damage(due)
        if due.kind != protocol.NOTHING:  # the hand-over, after ``You are awake.``
            text += "\n\n" + due.text
    return True, text


def wake_max_bytes(scope, gstore, pstore, max_bytes: int) -> str:
    """One part of at most ``max_bytes`` bytes holding both sections. The
    bytes after the two headings are first split as ``shares`` splits
    lines, each section being ``waking.wake_max_bytes`` of its share; when a
    share is below what its section needs, that section gets its smallest
    document (``waking.smallest_bytes``) and the other one the rest. Raises
    ``BadInput`` when the two smallest documents together do not fit,
    naming that total, a ``max_bytes`` that fits."""
    heads = [heading_global(scope), heading_project(scope)]
    room = max_bytes - sum(len(h.encode("utf-8")) + 1 for h in heads)
    awake = len(view.AWAKE.encode("utf-8")) + 1  # in both sections' documents, printed once

    def both(pbytes):
        gdoc, gtail = waking.split_awake(waking.wake_max_bytes(gstore, room - pbytes + awake,
                                                               intro=True))
        pdoc, ptail = waking.split_awake(waking.wake_max_bytes(pstore, pbytes, intro=True))
        # One ``You are awake.`` ends both sections; the hand-over after it is
        # the global memory's when it has work (global first), else the project's.
        return "\n".join([heads[0], *gdoc, heads[1], *pdoc, view.AWAKE, *(gtail or ptail)])

    g, p = shares(gstore.config().WAKE_LINES, gstore.count(), pstore.count())
    share = room * p // max(1, g + p)
    try:
        return both(share)
    except BadInput:
        pass
    least_g, least_p = (waking.smallest_bytes(gstore, intro=True),
                        waking.smallest_bytes(pstore, intro=True))
    for pbytes in (max(share, least_p), room + awake - least_g, least_p):
        if least_p <= pbytes <= room + awake - least_g:
            try:
                return both(pbytes)
            except BadInput:
                continue
    need = max_bytes - room + least_g + least_p - awake
    err = BadInput(f"--max-bytes {max_bytes} is too small for the global and the project "
                   f"memory together: the shortest document is {need} bytes.",
                   then=protocol.Order("wake", options=(("--max-bytes", need),)))
    err.smallest = need  # as ``waking.wake_max_bytes`` marks its own
    raise err


# -- recall ------------------------------------------------------------------

def recall_sections(scope, gstore, pstore, pattern: str, budget: int,
                    fixed: bool = False) -> list:
    """``[(heading, RecallResult), ...]`` for the global and project stores,
    each searched within half of ``budget`` bytes; with ``fixed`` the
    pattern is a text found literally (``core.recall``)."""
    from optmem.engine import core
    half = max(1, budget // 2)
    return [(heading_global(scope), core.recall(gstore, pattern, half, fixed)),
            (heading_project(scope), core.recall(pstore, pattern, half, fixed))]


def refuse_guess(command: str, arg: str, scope, person: bool = False,
                 rest: tuple = (), where: tuple = ("global", None)) -> BadInput:
    """The refusal of ``zoom``/``forget``/``redact`` without a flag while a
    project is active: ids restart at #0 in every store, so both runnable
    forms are given, as ``orders`` (one per line, after the one-line
    message). ``arg`` is printed as given: callers pass a normalised block
    name or id, never raw input, so each order runs as printed; ``rest``
    (words, e.g. ``("--yes",)``) ends each order. ``person``: the orders are a
    person's steps (``redact``). ``where``: the memories an order is given
    for (``"global"``, and None for the project), those where it can
    succeed (``one_store``'s ``holds``)."""
    scopes = [scope.project if w is None else w for w in where]
    if len(scopes) == 1:
        which = ("the global memory" if scopes[0] == "global"
                 else f"project {scope.project}'s memory")
        head = (f"ids restart at #0 in the global and the project memory, so memo does not "
                f"guess; {arg} is only in {which}. Name it:")
    else:
        head = (f"ids restart at #0 in the global and the project memory, so memo does "
                f"not guess which one {arg} is in; name the memory with one of:")
    return BadInput(head, orders=protocol.one_of(
        [protocol.Order(command, (arg, *rest), each, person=person, flag_first=True)
         for each in scopes]))


# -- what every write decides ------------------------------------------------

def scope_line(sc, explicit: bool, instead=None) -> str | None:
    """The receipt's second line: where a note went, once projects exist
    (None without an active project or an explicit global scope);
    ``instead``, the ``protocol.Order`` its hint names (an import's)."""
    if sc.project:
        return protocol.scope_receipt(sc.project, instead)
    if explicit and sc.how == GLOBAL_FLAG and sc.forced_global:
        return protocol.scope_receipt(None)
    return None


def follow(sc, gstore, pstore, prompt):
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
    if prompt and _global_named(sc):
        text = compression(gstore, flag=GLOBAL_FLAG)
        return None if text == view.NOTHING_LEFT else text
    return prompt


def _global_named(sc) -> bool:
    """Does a hand-over of the global store carry ``--global`` (``follow``)?"""
    return bool((sc.how == GLOBAL_FLAG and sc.forced_global) or sc.problem)


def _follow_global(sc, gstore, due: protocol.Handover) -> protocol.Handover:
    """``follow`` for one store's hand-over ``due`` (a ``protocol.Handover``)
    after a summary: the global store's again with its ``--global`` flag
    where ``follow`` gives it, else ``due``."""
    from optmem.engine.handover import next_handover
    if _global_named(sc):
        return next_handover(gstore, flag=GLOBAL_FLAG)
    return due


def write_scope(sc, explicit: bool, what: str, order, form: str | None = None) -> None:
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
    have = _projects().names(sc.root)
    listing = f" (the projects are: {', '.join(have)})" if have else ""
    named, everywhere = (protocol.Order(order.verb, order.words, where, order.text)
                         for where in ("NAME", "global"))
    raise BadInput(f"{sc.problem}, so memo cannot tell which project the repository at "
                   f"{sc.repository} uses, and {what} could land in the wrong memory; nothing "
                   f"was written. Name the memory: {named.inline(form)}{listing}, or "
                   f"{everywhere.inline(form)}; {_projects().git_step(sc.problem, sc.repository)}")


def refuse_read_only(gstore, pstore, pending_only: bool) -> None:
    """Refuse (``MemoError``) a ``sleep`` that could save nothing: a store
    it may write to is read-only for this user, so no compression is handed
    out (``pending_only``: a bare ``sleep`` with nothing pending passes)."""
    from optmem.engine import core
    for each in (gstore, pstore):
        if each is not None:
            core.refuse_read_only(each, pending_only=pending_only)


# -- recall as JSON ----------------------------------------------------------

def _rows(result) -> list:
    """Recall's lines as ``{id, date, text}`` objects. A line whose head is
    not ``#<id> <date> `` (a damaged record, matched as its raw bytes) is
    ``{"id": null, "date": null, "text": <the whole line>}``: nothing of it
    is dropped or read as a date it is not."""
    from optmem.store.memory import is_date
    out = []
    for line in result.lines:
        head, date, text = (line.split(" ", 2) + ["", ""])[:3]
        if head[:1] == "#" and head[1:].isdigit() and head[1:].isascii() and is_date(date):
            out.append({"id": int(head[1:]), "date": date, "text": text})
        else:
            out.append({"id": None, "date": None, "text": line})
    return out


def _size(rows) -> int:
    return 2 + sum(len(_json().dumps(o, ensure_ascii=False).encode()) + 2 for o in rows)


def _newest(rows: list, budget: int) -> list:
    """``rows`` without its oldest entries until their JSON is at most
    ``budget`` bytes (escaping may grow a line: the newest are kept)."""
    size = _size(rows)
    while rows and size > budget:
        size -= len(_json().dumps(rows.pop(0), ensure_ascii=False).encode()) + 2
    return rows


def recall_json(store, pattern: str, fixed: bool = False) -> tuple:
    """``memo recall --json`` over one store: ``(json text, notice or
    None)``, the list of ``{id, date, text}`` within ``PART_CHARS`` bytes,
    the newest kept, and the notice when fewer than all matches are shown.
    With ``fixed`` the pattern is a text found literally."""
    from optmem.engine import core
    budget = store.config().PART_CHARS
    result = core.recall(store, pattern, max(budget - 200, budget // 2), fixed)
    rows = _newest(_rows(result), budget)
    return _json().dumps(rows, ensure_ascii=False), _notice(len(rows), result.total)


def recall_json_both(sc, gstore, pstore, pattern: str, fixed: bool = False) -> tuple:
    """``recall --json`` over both stores: ``({"global": [...], "project":
    [...]} as text, notice or None)``, each list within half of
    ``PART_CHARS`` bytes as ``recall_json`` keeps it, with the same notice
    when either shows fewer than all its matches."""
    budget = gstore.config().PART_CHARS
    out, shown, total = {}, 0, 0
    for key, (_, result) in zip(("global", "project"),
                                recall_sections(sc, gstore, pstore, pattern, budget - 400,
                                                fixed)):
        out[key] = _newest(_rows(result), max(1, (budget - 64) // 2))  # 64: the object
        shown, total = shown + len(out[key]), total + result.total
    return _json().dumps(out, ensure_ascii=False), _notice(shown, total)


def _notice(shown: int, total: int):
    if shown < total:
        return f"showing the newest {shown} of {total} matches; narrow the regex"
    return None


# -- errors --------------------------------------------------------------------

def cwd_gone() -> bool:
    """True when the working directory was deleted (or moved out of reach)."""
    try:
        os.getcwd()
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return False


def oserror_line(err: OSError) -> str:
    """The one line for a filesystem error, naming the path, in both front
    ends: a deleted working directory, a full disk, a permission, a link in
    the store each get their own advice. A path outside ``MEMORY_DIR`` (an
    export's FILE, an import's) is the user's to check: no store advice,
    and no ``memo check`` order that could not help."""
    if isinstance(getattr(err, "line", None), str):  # atomic.NotRegular: the whole line
        return err.line
    if err.errno == errno.EISDIR and isinstance(err.filename, str):
        import shlex
        move = f"mv -- {shlex.quote(err.filename)} {shlex.quote(err.filename + '.moved')}"
        return (f"{err.filename} is a directory where memo keeps a file; nothing was "
                f"half-written. Once it is moved away memo makes a new file. "
                f"{protocol.person_can_run(move)}")
    if (err.errno == errno.ENOENT and cwd_gone()
            and not (isinstance(err.filename, str) and os.path.isabs(err.filename))):
        return ("the working directory no longer exists (it was deleted or moved), so "
                "memo cannot tell which folder it runs in; nothing was written. Change to "
                "a folder that exists and run the command again")
    store = os.environ.get("MEMORY_DIR", "")
    where = err.filename or store
    what = err.strerror or str(err)
    outside = bool(err.filename and store and isinstance(err.filename, str)
                   and not os.path.abspath(err.filename).startswith(
                       os.path.abspath(os.path.expanduser(store)).rstrip(os.sep) + os.sep))
    if outside and err.errno not in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT):
        return f"{where}: {what}; nothing was written there. Check the path and run the command again"
    if err.errno == errno.ELOOP and err.filename:  # a link in the store: never written through
        import shlex
        move = f"mv -- {shlex.quote(str(where))} {shlex.quote(str(where) + '.link-moved')}"
        return (f"{where} is a link, and memo never writes through a link in its store; "
                f"nothing was half-written. Once it is moved away memo makes a new file. "
                f"{protocol.person_can_run(move)}")
    if err.errno in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT):
        hint = "Free some space (or raise the file size limit) and run the command again"
    elif err.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        hint = "memo needs to read and write MEMORY_DIR: check its owner and mode"
    else:
        hint = protocol.run(protocol.Order("check"))
    return f"{where}: {what}; nothing was half-written. {hint}"


def error_line(err: BaseException) -> str:
    """The one line (without ``memo: ``) of a failure that is no
    ``MemoError``, as both front ends say it."""
    if isinstance(err, OSError):
        return oserror_line(err)
    if isinstance(err, RecursionError):
        return "the input is too deeply nested to handle; simplify it"
    if isinstance(err, MemoryError):
        return "out of memory; the input is too large"
    from optmem import deps
    if deps.is_bytecode_damage(err):  # a cache file cut short by a full disk: removed
        return deps.bytecode_line(deps.remove_damaged_bytecode())
    return (f"internal error ({type(err).__name__}: {err}); nothing was half-written. "
            f"{protocol.run(protocol.Order('check'))}, and please report this")



# -- commands: one function each, one Result ---------------------------------

def one_store(st: Stores, command: str, arg: str, person: bool = False, rest: tuple = (),
              holds=None, nowhere=None):
    """The store ``zoom``/``forget``/``redact`` act on: the named one; with a
    project active and no scope named, refused (``refuse_guess``: ids
    restart at #0 in every store), the refusal naming the forms. ``arg``
    is the normalised block name or id. ``holds(store)`` (optional) says
    whether the command can succeed in a store: only those are named, and
    where neither can, ``nowhere()`` is raised instead (a ``MemoError``
    saying so), so no order that fails is printed."""
    if st.sc.project and not st.explicit:
        where = ("global", None)
        if holds is not None:
            where = tuple(w for w, store in zip(where, (st.g, st.p)) if holds(store))
            if not where and nowhere is not None:
                raise nowhere()
        raise refuse_guess(command, arg, st.sc, person, rest, where or ("global", None))
    return st.p or st.g


def stats(st: Stores, as_json: bool = False) -> Result:
    """``memo stats``: with a project active and no scope named, the global
    memory then the project's, each under its heading (JSON: ``{"global":
    ..., "project": ...}``); else the one store's figures."""
    from optmem.engine import core
    if st.sc.project and not st.explicit:
        ginfo, pinfo = core.stats(st.g), core.stats(st.p)
        if as_json:
            return Result([_json().dumps({"global": ginfo,
                                          "project": dict(pinfo, name=st.sc.project)})])
        return Result([heading_global(st.sc), core.stats_text(ginfo, st.g),
                       heading_project(st.sc), core.stats_text(pinfo, st.p)])
    info = core.stats(st.p or st.g)
    return Result([_json().dumps(info) if as_json else core.stats_text(info, st.p or st.g)])


def zoom(st: Stores, block: str, strict: bool = False) -> Result:
    """``memo zoom LO-HI`` (or one memory's id): the block's two halves, in
    the store ``one_store`` picks. ``strict`` (the CLI): a damaged half
    raises ``Damaged`` as ``core.zoom`` does."""
    from optmem.engine import core
    name = view.block_arg(block, allow_memory=True)
    lo = view.parse_block(block, allow_memory=True)[0]

    def nowhere():
        counts = (st.g.count(), st.p.count())
        return BadInput(f"#{name} is beyond both memories: the global memory holds "
                        f"{counts[0]} and project {st.sc.project}'s {counts[1]} "
                        f"memor{'y' if counts[1] == 1 else 'ies'}; zoom into a line of "
                        f"memo wake.", then=protocol.Order("wake"))
    store = one_store(st, "zoom", name, holds=lambda s: lo < s.count(), nowhere=nowhere)
    lines, notes = core.zoom(store, block, strict=strict)
    return Result(lines, notes)


def forget(st: Stores, block: str, dry_run: bool = False) -> Result:
    """``memo forget LO-HI``: drop the summary and every one built on it
    (``dry_run``: only say how many would go). A write: refused where git
    could not be asked which project this is (``write_scope``)."""
    from optmem.engine import core
    name = view.block_arg(block)
    write_scope(st.sc, st.explicit, "this forget", protocol.Order("forget", (name,)))
    lo, hi = view.parse_block(block)

    def built(s) -> bool:
        try:
            return lo // (hi - lo) < s.level_len(hi - lo)
        except MemoError:
            return False

    def nowhere():
        return BadInput(f"there is no summary {name} to forget: it is built in neither the "
                        f"global memory nor project {st.sc.project}'s.")
    store = one_store(st, "forget", name, rest=("--dry-run",) if dry_run else (),
                      holds=built, nowhere=nowhere)
    whole = blocks.block_name(lo, hi)
    if dry_run:
        return Result([protocol.forget_cost(core.forget_count(store, block), whole)])
    gone = core.forget(store, block)
    return Result([protocol.forgot(gone, whole, view.sleep_step(store, store.count())[0])])


def given_flag(st: Stores) -> str:
    """The scope flag this command was given, as a printed step repeats it
    so it names the same store: ``--project NAME`` (quoted for a shell),
    ``--global``, or ``""`` when none was given."""
    if not st.explicit:
        return ""
    if st.sc.project:
        import shlex
        return f"--project {shlex.quote(st.sc.project)}"
    return GLOBAL_FLAG


def redact(st: Stores, memory_id: str, yes: bool = False) -> Result:
    """``memo redact ID`` (a person's command): blank memory ``ID`` (``#`` allowed)
    in place for good, in the store ``one_store`` picks; refused
    (``BadInput``) without a scope where git could not be asked which
    project this is (``write_scope``), and without ``yes`` (naming the
    person's step). The answer says what went and, in a git work tree, that
    its history keeps the text; when other files beside the store still hold
    the text, an error result (exit 1) naming them, after those lines."""
    from optmem.engine import core
    i = view.parse_count(memory_id.lstrip("#"), "ID")
    write_scope(st.sc, st.explicit, "this redaction", protocol.Order("redact", (str(i), "--yes")))
    store = one_store(st, "redact", str(i), person=True, rest=("--yes",))
    if not yes:
        step = " ".join(["memo redact", *filter(None, [given_flag(st)]), f"{i} --yes"])
        raise BadInput(f"redact blanks memory #{i} for good, so it is a person's step (an "
                       f"agent never runs it), confirmed with --yes. "
                       f"{protocol.person_can_run(step)}")
    was = []
    gone = core.redact(store, i, was)
    from optmem import merging
    from optmem.engine import replicas
    copies = replicas.files_holding(store, was[0]) if was and not merging.is_redacted(was[0]) else []
    lines = [f"Memory #{i} is now [redacted] in {store.log_path}; {gone} "
             f"{'summary' if gone == 1 else 'summaries'} went (those over it, and the "
             f"later ones on their levels). Run: memo sleep"]
    repo = _projects().find_repository(store.root)
    if repo is not None and repo[0] == "repo":
        lines.append(f"The store is in the git work tree {repo[1]}: its commits, a sync hub's "
                     f"history and every clone keep the text until a person rewrites the "
                     f"history of each; memo never rewrites git history. A merge with another "
                     f"replica blanks it there too (the redaction travels in the log).")
    if not copies:
        return Result(lines)
    from optmem.textform import shown
    listed = ", ".join(shown(c) for c in copies[:20]) + (
        f" and {len(copies) - 20} more" if len(copies) > 20 else "")
    return Result(lines, [
        f"memo: the redaction is not complete: {len(copies)} other "
        f"{'file' if len(copies) == 1 else 'files'} in or beside the store still "
        f"{'holds' if len(copies) == 1 else 'hold'} its text: {listed}. memo never edits "
        f"them; a person removes the text from each (or the file, once nothing else in "
        f"it is needed). Copies elsewhere (git history, exports, backups) keep it too"],
        exit_code=1, error=True)


def import_store(st: Stores):
    """The store ``memo import`` writes to: the active project's, else the
    global one. Refused (``BadInput``) without a scope where git could not be
    asked which project this is (``write_scope``), before any line is read."""
    write_scope(st.sc, st.explicit, "this import", protocol.Order("import", ("FILE",)))
    return st._at(st.sc.project_root or st.sc.root)


def import_(st: Stores, store, path: str, named: str, yes: bool = False,
            before_write=None, progress=None, kept=None) -> Result:
    """``memo import``: the lines ``YYYY-MM-DD text`` of the file at ``path``
    into ``store`` (``import_store``'s), all or nothing. ``named`` is what
    the user gave (``-`` for standard input), which a refusal names; above
    ``backlog.IMPORT_ASK_ABOVE`` memories it is refused (``BadInput``)
    without ``yes``. ``before_write(count, created)`` and ``progress`` are
    ``core.import_lines``'s; ``kept(what)`` is told what is saved. The
    answer: ``Imported N memories as #A-B.``, where they went once projects
    exist (``scope_line``), and how many compressions are pending."""
    from optmem.engine import backlog, core
    backlog.check_import_size(path, named, yes)
    first, count, pending = core.import_lines(store, path, before_write=before_write,
                                              progress=progress)
    if kept is not None:
        kept(f"the import was saved as {f'#{first}' if count == 1 else f'#{first}-{first + count - 1}'}")
    lines = [protocol.imported(count, first)]
    line = scope_line(st.sc, st.explicit, protocol.Order("import", ("FILE",), "global",
                                                         flag_first=True))
    if line:
        lines.append(line)
    if pending:
        lines.append(protocol.pending_after_import(pending))
    return Result(lines)


def config(st: Stores, settings=(), repair: bool = False) -> Result:
    """``memo config``: the settings table of the global store, or of the
    project's when ``--project NAME`` named it; with ``settings``
    (``NAME=VALUE`` strings, ``NAME=`` restoring the default) or ``repair``
    the store's config is changed first (a write: refused where git could
    not be asked which project this is, ``write_scope``). A setting without
    ``=`` is refused (``ConfigError``) before any change. The answer is the
    table, then what changed; the store's idle-knob lines go to its
    ``notices`` (standard error, after the lines programs read)."""
    from optmem.engine import core
    if settings or repair:
        write_scope(st.sc, st.explicit, "this setting", protocol.Order("config", ("NAME=VALUE",)))
    store = st._at(st.sc.project_root if (st.explicit and st.sc.project) else st.sc.root)
    from optmem.store.config import KNOBS
    bare = [s for s in settings if "=" not in s]
    if bare:  # refused before any change, exit 1 as the later OptMem's usage line
        from optmem.errors import ConfigError
        raise ConfigError(f"usage: memo config [NAME=VALUE ...], NAME one of "
                          f"{', '.join(KNOBS)} (NAME= restores the default); {bare[0]!r} has "
                          f"no '='. The table shows every value. Run: memo config")
    said = core.config_set(store, list(settings), repair=repair) if settings or repair else ""
    lines = [core.config_show(store)]  # the table first, as the later OptMem prints it
    if said:
        lines.append(said)
    store.notices.extend(store.config_idle_lines())
    return Result(lines)


def scope(st: Stores) -> Result:
    """``memo scope`` (reads only): the global store (which must exist), the
    active project and how it was found, the projects, the remotes seen,
    the scope's notices, and a person's ``memo init --project NAME`` where
    this repository could have a project and has none."""
    projects = _projects()
    sc = st.sc
    st.g  # noqa: B018 - the global store must exist
    lines = [f"Global memory: {sc.root}"]
    if sc.project:
        lines.append(f"Project: {sc.project} at {sc.project_root} (found by {sc.how})")
    elif sc.problem:
        lines.append(f"Project: unknown ({sc.unresolved_line()})")
    else:
        lines.append(f"Project: none ({sc.how})")
    have = projects.names(sc.root)
    lines.append(f"Projects: {', '.join(have) if have else 'none'}")
    if sc.problem:
        lines.append("Remotes seen: not read (git could not be asked)")
    elif sc.remotes is None:
        lines.append("Remotes seen: not read (git is asked only once a project exists)")
    else:
        lines.append(f"Remotes seen: {', '.join(sc.remotes) if sc.remotes else 'none'}")
    lines += sc.notices
    if not sc.project and sc.remotes is not None and not sc.forced_global and not sc.bare:
        lines.append(f"{projects.PERSON} memo init --project NAME")
    return Result(lines)


def check_targets(st: Stores, every: bool = False) -> list:
    """The stores ``memo check`` verifies, as ``[(heading or None, path)]``:
    the named project's alone with ``--project NAME``; else the global
    store, then with ``every`` every project's, or the active project's;
    each under a heading when there are several."""
    sc = st.sc
    if sc.project and st.explicit:
        return [(None, sc.project_root)]
    targets = [(None, sc.root)]
    if every:
        projects = _projects()
        targets += [(f"Project {n} ({p}):", p) for n in projects.names(sc.root)
                    for p in [projects.project_root(sc.root, n)]]
    elif sc.project:
        targets.append((f"Project {sc.project} ({sc.project_root}):", sc.project_root))
    if len(targets) > 1:
        targets[0] = (f"Global memory ({sc.root}):", sc.root)
    return targets


def check(st: Stores, every: bool = False, repair: bool = False) -> Result:
    """``memo check``: every record of each store ``check_targets`` names,
    each problem with its recovery; ``repair`` first restores what a
    record's place in the log implies (a write: refused where git could not
    be asked which project this is, ``write_scope``). Exit 1 with ``N
    problems found.`` when any; else ``The store is whole.``. A store that
    fails to open or read ends the answer there as an error result, after
    the lines of the stores before it."""
    if repair:
        write_scope(st.sc, st.explicit, "this repair", protocol.Order("check", ("--repair",)))
    from optmem.engine.check import check as run_check
    lines, problems = [], []
    try:
        for heading, path in check_targets(st, every):
            if heading:
                lines.append(heading)
            if repair:
                from optmem.engine.check import repair as run_repair
                lines += run_repair(st._at(path))
            found, notes = run_check(st._at(path))
            lines += found
            lines += notes
            problems += found
    except Exception as err:  # noqa: BLE001 - the stores before it are reported
        if not lines:
            raise
        return Result(lines, failure_lines(err), exit_code=1, error=True)
    if problems:
        lines.append(f"{len(problems)} problem{'s' if len(problems) > 1 else ''} found.")
        return Result(lines, exit_code=1, error=True)
    return Result([*lines, "The store is whole."])


def export(st: Stores, file: str | None = None, write=None) -> Result:
    """``memo export``: every memory of the global store as ``YYYY-MM-DD
    text`` lines (the import format). With ``file`` None or ``-`` they go to
    ``write`` (a function taking bytes) and the answer is empty; else into
    ``file``, a new file (never replaced), and the answer names it and the
    ``memo import`` that reads it into another memory, a person's step
    (``A person can run: ...``; ``--yes`` above ``backlog.IMPORT_ASK_ABOVE``
    memories)."""
    from optmem.engine import export as exporting
    store = st.g
    if file is None or file == "-":
        exporting.export(store, write)
        return Result()
    import shlex

    from optmem.engine.backlog import IMPORT_ASK_ABOVE
    count = exporting.export_to_file(store, file)
    yes = " --yes" if count > IMPORT_ASK_ABOVE else ""
    return Result([f"Exported {count} {'memory' if count == 1 else 'memories'} to {file}."
                   + (" To read them into another memory, with MEMORY_DIR naming it: "
                      + protocol.person_can_run(f"memo import{yes} {shlex.quote(file)}")
                      if count else "")])


def init(project: str | None = None) -> Result:
    """``memo init``: create the store at ``MEMORY_DIR`` (safe to run again:
    it then changes nothing and says how many memories it holds). With
    ``project`` (a name, or ``""`` for the repository's) a person's project
    store beside the global one, bound to this git repository
    (``projects.init_project``), and the ``memo scope`` that shows it."""
    from optmem.store.paths import memory_dir
    root = memory_dir(creating=True)
    if project is not None:
        _, _, lines = _projects().init_project(root, project)
        return Result([*lines, protocol.run(protocol.Order("scope"))])
    from optmem.store.memory import Store
    store, created = Store.init(root)
    try:
        if created:
            return Result([f"Created an empty memory at {root}. Run: memo wake"])
        count = store.count()
    finally:
        store.close()
    return Result([f"Found {root}: {count} memor{'y' if count == 1 else 'ies'}. It is "
                   f"already a memory store; nothing was changed. Run: memo wake"])


def _counted(result) -> list:
    """A recall result's lines, then its count line."""
    return [*result.lines, protocol.recall_count(len(result.lines), result.total, result.cut)]


def recall(st: Stores, pattern: str, fixed: bool = False, as_json: bool = False) -> Result:
    """``memo recall PATTERN``: the matching lines, then the count line, each
    store's within ``PART_CHARS`` bytes (200 of them kept for the count
    line). With a project active and no scope named, both stores, each
    under its heading with its own count line, within half the budget
    each (``recall_sections``). ``as_json``: ``recall_json`` (or
    ``recall_json_both``), its notice as a note. ``fixed``: the pattern is
    a text found literally."""
    from optmem.engine import core
    st.g  # noqa: B018 - the global store is read first, whichever store answers
    both = bool(st.sc.project) and not st.explicit
    if pattern and not fixed:
        refused = _bad_regex(st, [st.g, st.p] if both else [st.p or st.g], pattern)
        if refused is not None:
            raise refused
    if as_json:
        text, notice = (recall_json_both(st.sc, st.g, st.p, pattern, fixed) if both
                        else recall_json(st.p or st.g, pattern, fixed))
        return Result([text], [f"memo: {notice}"] if notice else [])
    if both:
        lines, total = [], 0
        for heading, result in recall_sections(st.sc, st.g, st.p, pattern,
                                               st.g.config().PART_CHARS - 400, fixed):
            lines += [heading, *_counted(result)]
            total += result.total
        return Result(lines, _as_written(st, [st.g, st.p], pattern) if not (total or fixed)
                      else [])
    store = st.p or st.g
    budget = store.config().PART_CHARS
    result = core.recall(store, pattern, max(budget - 200, budget // 2), fixed)
    return Result(_counted(result), _as_written(st, [store], pattern)
                  if not (result.total or fixed) else [])


#: Characters that make a regex read a text other than as written.
_REGEX_SYNTAX = frozenset("$^()[]{}.*+?|\\")


def _fixed_order(st: Stores, pattern: str) -> str:
    """``Run: memo recall -F PATTERN`` (the scope flag as given, the pattern
    quoted for a shell), or in the ``mcp`` form the tool call with
    ``fixed``."""
    if protocol.orders_form() == protocol.MCP_FORM:
        args = {"pattern": pattern, "fixed": True}
        if st.explicit:
            args["scope"] = "global" if not st.sc.project else st.sc.project
        return f"Run: recall {_json().dumps(args, ensure_ascii=False)}"
    import shlex
    return " ".join(["Run: memo recall", *filter(None, [given_flag(st)]), "-F",
                     shlex.quote(pattern)])


def _held_as_written(st: Stores, stores: list, pattern: str) -> str | None:
    """``N lines hold it as written. Run: memo recall -F PATTERN`` when
    lines of ``stores`` hold ``pattern`` as written (a fixed recall, which
    counts them), else None."""
    from optmem.engine import core
    found = sum(core.recall(store, pattern, 1, True).total for store in stores)
    if not found:
        return None
    return (f"{found} line{'s hold' if found > 1 else ' holds'} it as written. "
            f"{_fixed_order(st, pattern)}")


def _bad_regex(st: Stores, stores: list, pattern: str):
    """For a pattern Python's ``re`` refuses (``f(``, ``[x``) that some line
    holds as written: the refusal (``BadInput``) naming how many lines hold
    it and ending with the ``-F`` order that finds them; else None (the
    search's own refusal stands)."""
    import re
    try:
        re.compile(pattern, re.IGNORECASE)
        return None
    except (re.error, RecursionError, OverflowError, ValueError) as err:
        reason = err
    held = _held_as_written(st, stores, pattern)
    if held is None:
        return None
    import shlex
    return BadInput(f"bad regex {shlex.quote(pattern)}: {reason}; {held}")


def _as_written(st: Stores, stores: list, pattern: str) -> list:
    """After a regex recall that matched nothing: when ``pattern`` holds
    regex syntax and some line holds it as written (``$HOME/.config``,
    ``f(x)``), the note (stderr) that says so, ending with the order that
    finds it (``Run: memo recall -F PATTERN``, the scope flag as given;
    the tool call in the ``mcp`` form); else no note."""
    if not _REGEX_SYNTAX.intersection(pattern):
        return []
    held = _held_as_written(st, stores, pattern)
    if held is None:
        return []
    import shlex
    return [f"memo: {shlex.quote(pattern)} is read as a regex ($ ( ) . [ ] * + ? \\ | are regex "
            f"syntax), and {held}"]


def failure_lines(err: BaseException) -> list:
    """The lines of a failed command, as both front ends say them: ``memo:
    `` and the one line (``str(err)`` of a ``MemoError``, ``error_line``
    of any other failure), then the error's ``orders``, one per line."""
    from optmem.errors import MemoError
    if isinstance(err, MemoError):
        return ["memo: " + str(err), *err.orders]
    return ["memo: " + error_line(err)]


# -- note ----------------------------------------------------------------------

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


def _note_key(store, text: str):
    return (store.root, view.fold(view.clean_text(text, store.config().ENTRY_CHARS)))


def _retried(store, text: str):
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


def _saved(store, text: str, i: int) -> None:
    """Remember that memory ``i`` of ``store`` was saved with ``text``."""
    import time
    try:
        key = _note_key(store, text)
    except Exception:  # pragma: no cover - it was just saved, so it is clean
        return
    _recent[key] = (i, time.monotonic())


def note(st: Stores, text, kept=None, remember: bool = False) -> Result:
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



# -- sleep ---------------------------------------------------------------------

def pay_targets(st: Stores, block: str | None = None, text=()) -> list:
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


def _after_summary(st: Stores, ambient, prompt: protocol.Handover) -> protocol.Handover:
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


def sleep(st: Stores, block: str | None = None, summary=None, batch=None, kept=None,
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
    if pstore is not None and said == protocol.saved_block(
            blocks.block_name(*view.parse_block(block))):
        with pstore.locked(repair=False):
            forget_handover(st.sc, block)
    due = _after_summary(st, ambient, prompt)
    if strict:
        try:
            view.strict_damage(due)  # saved; the next compression needs a damaged summary
        except MemoError as err:
            return Result([said], failure_lines(err), exit_code=1, error=True)
    return Result([said, *([""] if due.kind != protocol.NOTHING else []), due.text])



# -- wake ----------------------------------------------------------------------

def wake(st: Stores, part: int = 1, T: int | None = None, TP: int | None = None,
         max_bytes: int | None = None, strict: bool = False, closed: bool = True,
         intro: bool = False) -> Result:
    """``memo wake``: part ``part`` of the document at ``T`` memories (None:
    the current count; ``TP`` the project's, with a project active:
    ``wake_both``), or with ``max_bytes`` the whole memory as one part of
    at most that many bytes (``wake_max_bytes``). A wake that needs a
    compression first answers the hand-over with exit 1 and no error: it
    is a step to take. Where git could not be asked which project this is,
    the hand-over's order names the global memory, as it does (and the next
    part's) for ``--global`` named while projects exist. ``strict`` (the CLI): a
    damaged summary the document or the hand-over needs raises
    ``Damaged``. ``closed`` False: a part that is not the last ends without
    the order for the next one (``waking.wake``). ``intro`` (MCP): the
    one-store document begins with memo's ``wake_intro`` line, one line more
    than ``WAKE_LINES`` (a two-store document always has one per section).
    Raises ``BadInput`` for a ``T`` past a log or a part that does not
    exist."""
    st.g  # noqa: B018 - the global store is opened first
    if max_bytes is not None:
        if st.p is not None:
            return Result([wake_max_bytes(st.sc, st.g, st.p, max_bytes)])
        return Result([waking.wake_max_bytes(st.g, max_bytes, intro=intro)])
    if st.p is not None:
        ok, text = wake_both(st.sc, st.g, st.p, part, T, TP, strict=strict, closed=closed)
    else:
        # ``--global`` named while projects exist (or git could not be asked):
        # the next part's order and the hand-over's name the global memory.
        ok, text = waking.wake(st.g, part, T, flag=GLOBAL_FLAG if _global_named(st.sc) else "",
                               strict=strict, closed=closed, intro=intro)
    return Result([text], exit_code=0 if ok else 1)

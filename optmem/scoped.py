"""Commands over two stores: the global memory and the active project's.

docs/scopes.md. With a project active (``optmem.projects.resolve``) a command
reads both stores as one memory: ``wake`` prints one document in two headed
sections sharing the global store's ``WAKE_LINES`` budget, compressions are
handed over global first, ``recall`` searches both. Without a project none
of this runs: the CLI calls ``core`` exactly as before, so every byte stays
the same. Pure protocol over ``Store`` and ``core``; no click, no git.
"""

from __future__ import annotations

from optmem import blocks, projects, protocol
from optmem.engine import core, pager, view
from optmem.engine import wake as waking
from optmem.engine.handover import compression
from optmem.errors import BadInput, NotBuilt

GLOBAL_FLAG = "--global"


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


def handover(scope, gstore, pstore, form=None) -> str:
    """The next compression of the two stores, global first, with its scope
    flag in the order; ``NOTHING_LEFT`` only when both are done. Records,
    under the project store's lock, which store handed the block over (for a
    seed-form ``memo sleep LO-HI`` without a flag)."""
    prompt = compression(gstore, form=form, flag=global_flag(scope))
    which = "global"
    if prompt == view.NOTHING_LEFT and pstore is not None:
        prompt = compression(pstore, form=form, flag=scope.flag)
        which = "project"
    if pstore is not None and prompt != view.NOTHING_LEFT:
        store = gstore if which == "global" else pstore
        T = store.count()
        built = store.built(T)
        firsts = {view.next_pending(store, T, built),          # one block a prompt
                  next(iter(blocks.pending_by_end(T, built)), None)}  # a batch's first
        with pstore.locked(repair=False):
            for block in sorted(b for b in firsts if b is not None):
                projects.record_handover(scope.project_root, blocks.block_name(*block), which)
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
        said = projects.recorded_handover(scope.project_root, name)
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
        projects.record_handover(scope.project_root, blocks.block_name(lo, hi), None)


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
        raise BadInput(f"the {what} holds {count} memories, so there is no view at T={T}. "
                       f"Run: memo wake {flag}".rstrip())
    return T


def wake(scope, gstore, pstore, part: int, Tg, Tp, form=None, strict: bool = False) -> tuple:
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
    ``memo forget`` order carrying the store's flag."""
    flag = scope.flag
    Tg = _at(gstore, Tg, "global memory", flag)
    Tp = _at(pstore, Tp, f"project {scope.project}", flag)
    g, p = shares(gstore.config().WAKE_LINES, Tg, Tp)
    cfg = gstore.config()
    tg = blocks.cover(Tg, g) if Tg else []
    tp = blocks.cover(Tp, p) if Tp else []
    if view.missing_in(Tg, tg, gstore.built(Tg)) or view.missing_in(Tp, tp, pstore.built(Tp)):
        prompt = handover(scope, gstore, pstore, form)
        if prompt == view.NOTHING_LEFT:  # another session just built it
            return wake(scope, gstore, pstore, part, Tg, Tp, form, strict)
        if strict:
            view.strict_damage(prompt)
        if protocol.is_waiting(prompt):  # a repair first: show what is built
            from optmem.engine.wake import split_awake
            doc, _ = split_awake(wake_max_bytes(scope, gstore, pstore, cfg.PART_CHARS))
            return True, "\n".join([*doc, view.AWAKE, "", prompt])
        cg, cp = gstore.count(), pstore.count()
        pending = view.pending_in(cg, gstore.built(cg)) + view.pending_in(cp, pstore.built(cp))
        return False, protocol.cannot_wake(pending) + "\n\n" + prompt
    gdamaged, pdamaged = [], []
    try:
        body = [waking.wake_intro(gstore, Tg)]
        body += waking.wake_lines(gstore, Tg, g, gdamaged) if Tg else []
        body += [heading_project(scope), waking.wake_intro(pstore, Tp)]
        body += waking.wake_lines(pstore, Tp, p, pdamaged) if Tp else []
    except NotBuilt:  # another session forgot a summary while we read
        return wake(scope, gstore, pstore, part, Tg, Tp, form, strict)
    if strict and gdamaged:
        raise view.damaged_error(gstore, gdamaged, global_flag(scope))
    if strict and pdamaged:
        raise view.damaged_error(pstore, pdamaged, scope.flag)
    name = scope.project
    parts = pager.paginate(body, heading_global(scope), Tg, cfg.PART_LINES, cfg.PART_CHARS,
                           head=protocol.part_header,
                           foot=lambda k, n: protocol.part_footer_scoped(k, n, Tg, Tp, name))
    if not 1 <= part <= len(parts):
        raise BadInput(f"part {part} does not exist: the document at T={Tg}, project T={Tp} "
                       f"has {len(parts)} part{'s' if len(parts) > 1 else ''}. "
                       f"Run: memo wake 1 {Tg} {Tp} --project {name}")
    text = parts[part - 1]
    if part == len(parts):
        prompt = handover(scope, gstore, pstore, form)
        if strict:
            view.strict_damage(prompt)
        if prompt != view.NOTHING_LEFT:  # the hand-over, after ``You are awake.``
            text += "\n\n" + prompt
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
        gdoc, gtail = waking.split_awake(waking.wake_max_bytes(gstore, room - pbytes + awake))
        pdoc, ptail = waking.split_awake(waking.wake_max_bytes(pstore, pbytes))
        # One ``You are awake.`` ends both sections; the hand-over after it is
        # the global memory's when it has work (global first), else the project's.
        return "\n".join([heads[0], *gdoc, heads[1], *pdoc, view.AWAKE, *(gtail or ptail)])

    g, p = shares(gstore.config().WAKE_LINES, gstore.count(), pstore.count())
    share = room * p // max(1, g + p)
    try:
        return both(share)
    except BadInput:
        pass
    least_g, least_p = waking.smallest_bytes(gstore), waking.smallest_bytes(pstore)
    for pbytes in (max(share, least_p), room + awake - least_g, least_p):
        if least_p <= pbytes <= room + awake - least_g:
            try:
                return both(pbytes)
            except BadInput:
                continue
    need = max_bytes - room + least_g + least_p - awake
    raise BadInput(f"--max-bytes {max_bytes} is too small for the global and the project "
                   f"memory together: the shortest document is {need} bytes. "
                   f"Run: memo wake --max-bytes {need}")


# -- recall ------------------------------------------------------------------

def recall_sections(scope, gstore, pstore, pattern: str, budget: int,
                    fixed: bool = False) -> list:
    """``[(heading, RecallResult), ...]`` for the global and project stores,
    each searched within half of ``budget`` bytes; with ``fixed`` the
    pattern is a text found literally (``core.recall``)."""
    half = max(1, budget // 2)
    return [(heading_global(scope), core.recall(gstore, pattern, half, fixed)),
            (heading_project(scope), core.recall(pstore, pattern, half, fixed))]


def refuse_guess(command: str, arg: str, scope, person: bool = False,
                 rest: str = "") -> BadInput:
    """The refusal of ``zoom``/``forget``/``redact`` without a flag while a
    project is active: ids restart at #0 in every store, so both runnable
    forms are given, as ``orders`` (one per line, after the one-line
    message). ``arg`` is printed as given: callers pass a normalised block
    name or id, never raw input, so each order runs as printed; ``rest``
    (e.g. ``" --yes"``) ends each order. ``person``: the orders are a
    person's steps (``redact``)."""
    return BadInput(f"ids restart at #0 in the global and the project memory, so memo does "
                    f"not guess which one {arg} is in; name the memory with one of:",
                    orders=protocol.one_of(
                        [f"memo {command} --global {arg}{rest}",
                         f"memo {command} --project {scope.project} {arg}{rest}"], person))

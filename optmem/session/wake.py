"""``memo wake``: one store's document (``engine.wake``), or the global and
the project memory in one document of two headed sections sharing the
global store's ``WAKE_LINES`` (``shares``, ``wake_both``,
``wake_max_bytes``; docs/scopes.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from optmem import blocks, protocol
from optmem.engine import pager, view
from optmem.engine import wake as waking
from optmem.errors import BadInput, NotBuilt
from optmem.scope import GLOBAL_FLAG
from optmem.session.stores import (
    Result,
    Stores,
    global_flag,
    global_named,
    heading_global,
    heading_project,
)
from optmem.session.writes import handover

if TYPE_CHECKING:  # for the annotations alone (a command opens stores through its front end)
    from optmem.store.memory import Store


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


def _at(store: Store, T: int | None, what: str, flag: str) -> int:
    count = store.count()
    if T is None:
        return count
    if T > count:
        raise BadInput(f"the {what} holds {count} memories, so there is no view at T={T}.",
                       then=protocol.Order("wake", scope=protocol.Order.scoped(flag)))
    return T


def wake_both(scope: Any, gstore: Store, pstore: Store, part: int, Tg: int | None,
              Tp: int | None, form: str | None = None, strict: bool = False,
              closed: bool = True) -> tuple:
    """Part ``part`` of the two-store document at ``(Tg, Tp)`` (None: the
    current counts; a seed-form ``memo wake K TG`` gives no ``Tp``, so the
    project is read at its current count).

    Returns ``(ok, text)`` as ``waking.wake`` does: ``ok`` False (``Cannot
    wake: N compressions pending.``, a blank line, the hand-over) only when
    the document needs a summary not built in either store; otherwise the
    part, the last one ending ``You are awake.`` and then, after a blank
    line, the next compression of the two stores (global first). Each
    store's section is read as the one-store wake reads it: what a sync
    tool or a merge left beside a store is its warning line, after the
    section's first line; a level file that is no file memo writes
    (``view.built_or_broken``) is left out with its person's step at the
    end, in place of the hand-over, unless the document needs it (then
    ``Damaged``). Raises ``BadInput`` for a ``T`` past a log or a part that
    does not exist. With ``strict`` (the CLI) a damaged summary the
    document shows, or one the next compression needs, raises ``Damaged``
    as ``waking.wake`` does, its ``memo forget`` order carrying the store's
    flag. ``closed`` as for ``waking.wake``."""
    from optmem.errors import Damaged
    flag = scope.flag
    Tg = _at(gstore, Tg, "global memory", flag)
    Tp = _at(pstore, Tp, f"project {scope.project}", flag)
    g, p = shares(gstore.config().WAKE_LINES, Tg, Tp)
    cfg = gstore.config()
    tg = blocks.cover(Tg, g) if Tg else []
    tp = blocks.cover(Tp, p) if Tp else []
    gbuilt, gbroken = view.built_or_broken(gstore, Tg)
    pbuilt, pbroken = view.built_or_broken(pstore, Tp)
    for broken, T, tiling, built in ((gbroken, Tg, tg, gbuilt), (pbroken, Tp, tp, pbuilt)):
        if broken is not None and view.missing_in(T, tiling, built):
            raise Damaged(broken)  # the document needs that level: the person's step first
    broken = [b for b in (gbroken, pbroken) if b is not None]
    if not broken and (view.missing_in(Tg, tg, gbuilt) or view.missing_in(Tp, tp, pbuilt)):
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
    warnings = [waking.sync_warning(gstore, global_flag(scope)),
                waking.sync_warning(pstore, scope.flag)]
    gdamaged: list = []
    pdamaged: list = []
    try:
        body = [waking.wake_intro(gstore, Tg), *filter(None, warnings[:1])]
        body += waking.wake_lines(gstore, Tg, g, gdamaged, tg) if Tg else []
        body += [heading_project(scope), waking.wake_intro(pstore, Tp),
                 *filter(None, warnings[1:])]
        body += waking.wake_lines(pstore, Tp, p, pdamaged, tp) if Tp else []
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
    if part == len(parts) and broken:  # no sleep can be ordered: the person's step
        return True, "\n\n".join([text, *broken])
    if part == len(parts):
        due = handover(scope, gstore, pstore, form)
        if strict:
            view.strict_damage(due)
        if due.kind != protocol.NOTHING:  # the hand-over, after ``You are awake.``
            text += "\n\n" + due.text
    return True, text


def wake_max_bytes(scope: Any, gstore: Store, pstore: Store, max_bytes: int) -> str:
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

    def both(pbytes: int) -> str:
        gdoc, gtail = waking.split_awake(waking.wake_max_bytes(gstore, room - pbytes + awake,
                                                               intro=True, flag=global_flag(scope)))
        pdoc, ptail = waking.split_awake(waking.wake_max_bytes(pstore, pbytes, intro=True,
                                                               flag=scope.flag))
        # One ``You are awake.`` ends both sections; the hand-over after it is
        # the global memory's when it has work (global first), else the project's.
        return "\n".join([heads[0], *gdoc, heads[1], *pdoc, view.AWAKE, *(gtail or ptail)])

    g, p = shares(gstore.config().WAKE_LINES, gstore.count(), pstore.count())
    share = room * p // max(1, g + p)
    try:
        return both(share)
    except BadInput:
        pass
    least_g = waking.smallest_bytes(gstore, intro=True, flag=global_flag(scope))
    least_p = waking.smallest_bytes(pstore, intro=True, flag=scope.flag)
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
    err.smallest = need  # type: ignore[attr-defined]  # as ``waking.wake_max_bytes`` marks its own
    raise err


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
        ok, text = waking.wake(st.g, part, T, flag=GLOBAL_FLAG if global_named(st.sc) else "",
                               strict=strict, closed=closed, intro=intro)
    return Result([text], exit_code=0 if ok else 1)

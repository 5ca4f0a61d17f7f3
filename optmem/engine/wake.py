"""``memo wake``: the document of one store, in parts or in one part.

The document is one line per block of ``cover(T, WAKE_LINES)``
(docs/blocks.md), in the reference OptMem's lines: no line of
memo's own in it, so a client that counts its ``#`` lines counts
``WAKE_LINES`` (docs/protocol.md). memo's own facts (the counts, the id
range, the dates, what a ``#lo-hi`` line is: ``wake_intro``) stand first
only where memo's own formats are read: the session-start hook and MCP
(``intro``).

``memo wake --max-bytes N``: one part for startup hooks that cannot page,
at most N bytes in all, never refused for pending work. The most detailed
document that fits is chosen: the largest line budget, from ``WAKE_LINES``
down, whose document fits. Sizes are not monotone in the budget (one long
summary can outweigh its two short halves), so up to ``SCAN_ALL`` budgets
every one is tried, each block's lines computed once; a larger
``WAKE_LINES`` is bisected first. A block whose summary is not built yet is
shown as its built halves (down to raw memories) when that takes a few
lines, else as one line that says it is not summarised yet; the document
then orders the pending compressions. It still ends with ``You are
awake.``.
"""

from __future__ import annotations

from optmem import blocks, protocol
from optmem.engine import marks, pager, view
from optmem.engine.view import (
    NOTHING_LEFT,
    damaged_error,
    memory_line,
    missing_in,
    pending_in,
    shown,
    shown_summaries,
    strict_damage,
    summary_repair,
)
from optmem.errors import BadInput, Damaged, NotBuilt
from optmem.store.memory import Store

#: An unbuilt block is shown as its built halves (down to raw memories)
#: while that takes at most this many lines; beyond, as one placeholder line.
EXPAND_LINES = 8
#: Up to this many line budgets every one is tried; above, a bisection and
#: then the ``SCAN_ABOVE`` budgets above its answer.
SCAN_ALL = 512
SCAN_ABOVE = 64


def _size(lines) -> int:
    return sum(len(line.encode("utf-8")) + 1 for line in lines)


def stamped_read(store, read, *args, **kwargs):
    """``read(store, *args, **kwargs)``, read again once when ``LOG.txt``
    changed under it (``Store.log_stamp``: another file by its name, or
    another size; ``memo merge`` replaces the log by a rename and readers
    take no lock), so a document never pairs one log's memories with the
    summaries written for another. Any reader of the log and its levels
    together may wrap itself in it; returns what ``read`` returns."""
    stamp = store.log_stamp()
    out = read(store, *args, **kwargs)
    if store.log_stamp() != stamp:
        out = read(store, *args, **kwargs)
    return out


def stamped(read):
    """``read`` (a function of a store first) made a ``stamped_read``."""
    import functools

    @functools.wraps(read)
    def again_if_swapped(store, *args, **kwargs):
        return stamped_read(store, read, *args, **kwargs)
    return again_if_swapped


def sync_warning(store, flag: str = "") -> str | None:
    """The line a wake shows for what a sync tool or a merge left
    (``replicas.quick_warning``), or None: ``marks.quick_look`` sees
    nothing in the usual case, and then ``replicas`` is not imported.
    ``flag``: the scope flag that names the store, which its step carries."""
    look = marks.quick_look(store)
    if look is None:
        return None
    from optmem.engine import replicas
    return replicas.quick_warning(store, look, flag)


@stamped
def wake_max_bytes(store, max_bytes: int, read_only: bool = False,
                   waiting: str | None = None, intro: bool = False, flag: str = "") -> str:
    """The one-part document of at most ``max_bytes`` bytes (UTF-8, every
    newline included, the last one too). Raises ``BadInput`` when not even
    the smallest document fits, naming the smallest ``max_bytes`` that does.
    With ``intro`` memo's ``wake_intro`` line stands first (the hook's and
    MCP's document), else an empty store's document is plain wake's.

    The document ends ``You are awake.``; pending work is handed over after
    it, as plain wake does: a blank line, then how many compressions are
    pending and ``Run: memo sleep``, or, when the next one waits for a
    damaged record to be repaired, that hand-over (``waiting``, else found
    here; ``protocol.compression_waits``). With ``read_only`` (a store this
    user cannot write) pending work is reported as waiting for a writable
    store instead of ordered, before ``You are awake.``."""
    T = store.count()
    built, broken = view.built_or_broken(store, T)  # a broken level: shown without it
    damaged = []  # damaged summaries the document shows (view.shown_summary)
    cache = {}

    def expand(lo, hi, room):
        size = hi - lo
        if size == 1:
            return [view.memory_line(view.shown(store, lo, lo + 1)[0])]
        if lo // size < built.get(size, 0):
            return [view.shown_summary(store, lo, hi, damaged)]
        if room < 2:
            return None
        out = []
        for a, b in blocks.halves(lo, hi):
            part = expand(a, b, room - len(out) - 1)
            if part is None:
                return None
            out += part
        return out

    def block_lines(block):
        if block not in cache:
            lines = expand(*block, EXPAND_LINES)
            if lines is None:
                lines = [f"#{blocks.block_name(*block)} {view.dates_of(store, *block)} "
                         f"(not summarised yet)"]
            cache[block] = (lines, _size(lines))
        return cache[block]

    warning = sync_warning(store, flag)
    budget = store.config().WAKE_LINES
    if intro:
        head = [wake_intro(store, T)]
    else:  # the reference's lines; an empty store's as plain wake prints them
        head = [] if T else protocol.empty_store()[:-1]
    head += [warning] if warning else []
    pending = view.pending_in(T, built)
    tail = []
    read_only = read_only or bool(pending and not store.writable())  # no sleep could save
    if broken is not None:  # a level no sleep can write: its person's step, no order
        pending = 0
    elif pending and read_only:
        import os
        tail = [protocol.read_only_pending(pending, os.getuid())]
    tail.append(view.AWAKE)
    if broken is not None:
        tail += ["", broken]
    if pending and not read_only and broken is None:
        if waiting is None:
            waiting = view.next_waits(store, T, built)
        tail += [""] + (waiting.split("\n") if waiting is not None else [
            f"{pending} compression{'s are' if pending > 1 else ' is'} pending; "
            f"do {'them' if pending > 1 else 'it'} before your next action.",
            protocol.run(protocol.Order("sleep"))])
    fixed = _size(head) + _size(tail)

    def fits(budget):
        """The tiling at ``budget`` if its document fits, else None."""
        tiling = blocks.cover(T, budget) if T else []
        used = fixed
        for block in tiling:
            used += block_lines(block)[1]
            if used > max_bytes:
                return None
        return tiling

    # Every budget >= T gives the same document, so the top is min(budget, T).
    top = max(1, min(budget, T))
    if top <= SCAN_ALL:
        candidates = range(top, 0, -1)
    else:
        # Bisect as if size grew with the budget, then look a little above
        # the answer for the bumps where it does not.
        lo, hi = 0, top
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if fits(mid) is not None:
                lo = mid
            else:
                hi = mid - 1
        candidates = range(min(top, lo + SCAN_ABOVE), max(lo, 1) - 1, -1)
    for budget in candidates:
        tiling = fits(budget)
        if tiling is not None:
            body = [line for block in tiling for line in block_lines(block)[0]]
            text = "\n".join(head + body + tail)
            shown = [d for d in damaged if any(lo <= d[0][0] and d[0][1] <= hi
                                               for lo, hi in tiling)]
            if shown and tail[-1] == view.AWAKE and not read_only:
                # Nothing else handed over: the damaged summary's repair, if it fits.
                more = "\n\n" + view.summary_repair(store, shown)
                if _size([text + more]) <= max_bytes:
                    text += more
            return text
    smallest = min(fixed + sum(block_lines(b)[1] for b in (blocks.cover(T, n) if T else []))
                   for n in candidates)
    # The document's lines are joined with newlines and echo adds the last one.
    err = BadInput(f"--max-bytes {max_bytes} is too small: the shortest document is "
                   f"{smallest} bytes.",
                   then=protocol.Order("wake", options=(("--max-bytes", smallest),)))
    err.smallest = smallest  # for callers that share bytes out (``scoped.wake_max_bytes``)
    raise err


def smallest_bytes(store, intro: bool = False, flag: str = "") -> int:
    """The smallest ``max_bytes`` for which ``wake_max_bytes(store, ...,
    intro=intro, flag=flag)`` gives a document (bytes of UTF-8, every
    newline included)."""
    try:
        wake_max_bytes(store, 0, intro=intro, flag=flag)
    except BadInput as err:
        return err.smallest
    return 0  # pragma: no cover - no document is 0 bytes


def split_awake(text: str) -> tuple:
    """``(document, hand_over)``: the lines of a ``wake_max_bytes`` text up
    to ``You are awake.`` (excluded) and those after it (the blank line
    and the hand-over, or nothing)."""
    lines = text.split("\n")
    at = len(lines) - 1 - lines[::-1].index(view.AWAKE)
    return lines[:at], lines[at + 1:]


def wake_lines(store: Store, T: int, budget: int, damaged: list | None = None,
               tiling: list | None = None) -> list:
    """The document body at ``T``: one line per block of ``cover(T, budget)``
    (``tiling``, when the caller has it already).

    Every block must be built (see ``missing_in``); raises ``NotBuilt``. A
    damaged summary is shown as ``shown_summary`` shows it (and named in
    ``damaged`` when given).
    """
    if tiling is None:
        tiling = blocks.cover(T, budget)
    # The tiling's blocks shrink toward T, so its raw memories are its tail.
    raw_from = next((k for k, (lo, hi) in enumerate(tiling) if hi - lo == 1), len(tiling))
    out = shown_summaries(store, tiling[:raw_from], damaged)
    if raw_from < len(tiling):
        out += [memory_line(m) for m in shown(store, tiling[raw_from][0], T)]
    return out


def wake_intro(store: Store, T: int) -> str:
    """memo's own line about the document at ``T``: how many memories, their
    ids and dates, and what a ``#lo-hi`` and a ``#id`` line are. It stands
    first where memo's own formats are read (the session-start hook, MCP,
    each section of a two-store wake: docs/scopes.md), never in the one-store
    ``memo wake`` a reference client counts."""
    if T == 0:
        if store.count():
            return "Your memory as of T=0 holds nothing (wake without T shows all of it)."
        return "Your memory is empty: nothing has been noted yet."
    from optmem.dates import span
    first, last = span(shown(store, 0, 1)[0].date, shown(store, T - 1, T)[0].date)
    what = f"1 memory (#{0})" if T == 1 else f"{T} memories (#0-{T - 1})"
    return (f"Your memory: {what}, {first} to {last}, oldest first. "
            f"#lo-hi lines summarise memories lo..hi; #id lines are memories verbatim.")


@stamped
def wake(store: Store, part: int, T: int | None, form: str | None = None,
         flag: str = "", strict: bool = False, closed: bool = True,
         intro: bool = False) -> tuple:
    """Render part ``part`` (1-based) of the document at ``T``.

    One line per block of ``cover(T, WAKE_LINES)``: ``min(T, WAKE_LINES)``
    lines (``popcount(T)`` where that is more), cut into parts of ``PART_LINES``
    of those lines (``optmem.engine.pager``; a part header when paged, and
    the closing line, are extra). With ``intro`` (MCP) memo's ``wake_intro``
    line stands first in part 1, one line more, not counted.

    Returns ``(ok, text)``. Wake refuses (``ok`` False; the CLI exits 1)
    only when the document itself needs a summary that is not built: then
    ``text`` is ``Cannot wake: N compressions pending. ...``, a blank line
    and the next compression (the seed's strings, the later OptMem's rule).
    Otherwise ``text`` is the part; the last part ends ``You are awake.``
    and, when compressions are pending, a blank line and the next one (the
    hand-over). An empty log gives ``protocol.empty_store``.

    On a store this user cannot write (``Store.writable``), pending work
    does not stop wake: the document is the ``--max-bytes`` one in
    ``PART_CHARS`` bytes (unbuilt blocks as their built halves) and says the
    store is read-only. Raises ``BadInput`` for a ``T`` past the log or a
    part that does not exist. ``flag`` is the scope flag its hand-over
    orders carry (``compression``), empty by default.

    A damaged summary is shown as ``shown_summary`` shows it and its repair
    handed over, so an agent is never left without its memory (the
    session-start hook, MCP). With ``strict`` (the CLI's ``memo wake``) a
    damaged summary the document shows, or one the hand-over's next
    compression needs, raises ``Damaged`` instead (exit 1, ``Run: memo
    forget LO-HI``), as the later OptMem refuses. With ``closed`` False a
    part that is not the last ends without the order for the next one
    (``pager.paginate``; the ``memo://wake`` resource holds every part).
    """
    cfg = store.config()  # a bad config stops every command (as in the reference)
    count = store.count()
    if T is None:
        T = count
    elif T > count:
        raise BadInput(f"the log holds {count} memories, so there is no view at T={T}.",
                       then=protocol.Order("wake", scope=protocol.Order.scoped(flag)))
    warning = sync_warning(store)
    if count == 0:
        if part != 1:
            raise BadInput(f"part {part} does not exist: the memory is empty.",
                           then=protocol.Order("wake", scope=protocol.Order.scoped(flag)))
        *seed, awake = protocol.empty_store(form)  # the seed's order stays whole
        return True, "\n".join([*seed, *([warning] if warning else []), awake])
    budget = cfg.WAKE_LINES
    tiling = blocks.cover(T, budget)
    built, broken = view.built_or_broken(store, T)
    if broken is not None and missing_in(T, tiling, built):
        raise Damaged(broken)  # the document needs that level: the person's step first
    if T == count and pending_in(T, built) and not store.writable() and broken is None:
        # A sleep could not be saved: show what is built instead of ordering it.
        return True, wake_max_bytes(store, cfg.PART_CHARS, read_only=True, intro=intro)
    if missing_in(T, tiling, built):
        from optmem.engine.handover import next_handover  # only where work is handed over
        handover = next_handover(store, form=form, flag=flag, force=True)  # the document needs it
        if handover.kind == protocol.NOTHING:  # another session just built it
            return wake(store, part, T, form, flag, strict, closed, intro)
        if strict:
            strict_damage(handover)
        if handover.waiting:
            # The work waits for a repair: refusing would lock the agent out
            # of its memory, so show what is built, then why nothing is due.
            return True, wake_max_bytes(store, cfg.PART_CHARS, waiting=handover.text,
                                        intro=intro)
        pending = pending_in(count, store.built(count))
        return False, marks.insert_after_first_line(
            protocol.cannot_wake(pending) + "\n\n" + handover.text, warning)
    damaged = []
    try:
        body = wake_lines(store, T, budget, damaged, tiling)
    except NotBuilt:  # another session forgot a summary while we read
        return wake(store, part, T, form, flag, strict, closed, intro)
    if damaged and strict:
        raise damaged_error(store, damaged)
    # The warning stands after the header of every part (first in a one-part
    # wake): room for it is kept in each, so the parts stay within
    # PART_LINES and PART_CHARS.
    room = len(warning.encode("utf-8")) + 1 if warning else 0
    parts = pager.paginate(body, wake_intro(store, T) if intro else None, T,
                           cfg.PART_LINES - bool(warning), cfg.PART_CHARS - room,
                           intro_counts=False,  # memo's line, beside the reference's
                           foot=lambda k, n: protocol.part_footer(k, n, T, flag),
                           closed=closed)
    if len(parts) > 1 or intro:  # after the header (or intro) a reader finds first
        parts = [marks.insert_after_first_line(p, warning) for p in parts]
    elif warning:  # a one-part wake is the reference's lines: the warning before them
        parts = [warning + "\n" + parts[0]]
    if not 1 <= part <= len(parts):
        raise BadInput(f"part {part} does not exist: the document at T={T} has "
                       f"{len(parts)} part{'s' if len(parts) > 1 else ''}.",
                       then=protocol.Order("wake", ("1", str(T)), protocol.Order.scoped(flag)))
    text = parts[part - 1]
    if part == len(parts) and broken is not None:  # no sleep can be ordered: the person's step
        return True, text + "\n\n" + broken
    if part == len(parts):
        from optmem.engine.handover import next_handover  # the last part alone hands over
        handover = next_handover(store, form=form, flag=flag)
        prompt = handover.text
        if damaged and store.writable():  # the document's own damage comes first
            prompt = summary_repair(store, damaged, flag=flag, form=form)
        elif strict:
            strict_damage(handover)
        if prompt != NOTHING_LEFT and store.writable():  # the hand-over, after ``You are awake.``
            text += "\n\n" + prompt
    return True, text

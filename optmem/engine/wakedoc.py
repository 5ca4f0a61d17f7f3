"""``memo wake --max-bytes N``: one part for startup hooks that cannot page.

DESIGN.md "Beyond the seed": at most N bytes in all, never refused for
pending work. The most detailed document that fits is chosen: the largest
line budget, from ``WAKE_LINES`` down, whose document fits. Sizes are not
monotone in the budget (one long summary can outweigh its two short
halves), so up to ``SCAN_ALL`` budgets every one is tried, each block's
lines computed once; a larger ``WAKE_LINES`` is bisected first. A block whose summary is not built yet is shown as its built halves
(down to raw memories) when that takes a few lines, else as one line that
says it is not summarised yet; the document then orders the pending
compressions. It still ends with ``You are awake.``.
"""

from __future__ import annotations

from optmem import blocks, protocol
from optmem.engine import core
from optmem.errors import BadInput

#: An unbuilt block is shown as its built halves (down to raw memories)
#: while that takes at most this many lines; beyond, as one placeholder line.
EXPAND_LINES = 8
#: Up to this many line budgets every one is tried; above, a bisection and
#: then the ``SCAN_ABOVE`` budgets above its answer.
SCAN_ALL = 512
SCAN_ABOVE = 64


def _size(lines) -> int:
    return sum(len(line.encode("utf-8")) + 1 for line in lines)


def wake_max_bytes(store, max_bytes: int, read_only: bool = False,
                   waiting: str | None = None) -> str:
    """The one-part document of at most ``max_bytes`` bytes (UTF-8, every
    newline included, the last one too). Raises ``BadInput`` when not even
    the smallest document fits, naming the smallest ``max_bytes`` that does.

    The document ends ``You are awake.``; pending work is handed over after
    it, as plain wake does: a blank line, then how many compressions are
    pending and ``Run: memo sleep``, or, when the next one waits for a
    damaged record to be repaired, that hand-over (``waiting``, else found
    here; ``protocol.compression_waits``). With ``read_only`` (a store this
    user cannot write) pending work is reported as waiting for a writable
    store instead of ordered, before ``You are awake.``."""
    T = store.count()
    built = store.built(T)
    damaged = []  # damaged summaries the document shows (core.shown_summary)
    cache = {}

    def expand(lo, hi, room):
        size = hi - lo
        if size == 1:
            return [core.memory_line(core.shown(store, lo, lo + 1)[0])]
        if lo // size < built.get(size, 0):
            return [core.shown_summary(store, lo, hi, damaged)]
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
                lines = [f"#{blocks.block_name(*block)} {core.dates_of(store, *block)} "
                         f"(not summarised yet)"]
            cache[block] = (lines, _size(lines))
        return cache[block]

    from optmem.engine import replicas
    warning = replicas.quick_warning(store)  # a sync tool's or a merge's marks
    budget, with_intro = core.wake_budget(T, store.config().WAKE_LINES)
    # The intro is left out where plain wake leaves it out (WAKE_LINES below
    # popcount(T) + 1), so this document is never longer than wake's.
    head = ([core.wake_intro(store, T)] if with_intro or not T else []) + \
        ([warning] if warning else [])
    pending = core.pending_in(T, built)
    tail = []
    if pending and read_only:
        import os
        tail = [f"{pending} compression{'s are' if pending > 1 else ' is'} pending, but this "
                f"store is read-only for this user (uid {os.getuid()}), so none can be saved "
                f"now; unsummarised blocks are shown as their parts. Do not run memo sleep "
                f"or memo note here until a person makes the store writable."]
    tail.append(core.AWAKE)
    if pending and not read_only:
        if waiting is None:
            waiting = core.next_waits(store, T, built)
        tail += [""] + (waiting.split("\n") if waiting is not None else [
            f"{pending} compression{'s are' if pending > 1 else ' is'} pending; "
            f"do {'them' if pending > 1 else 'it'} before your next action.",
            protocol.run("memo sleep")])
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

    # Every budget >= T gives the same document, so the top is min(budget, T),
    # the budget being plain wake's (its intro line is one of WAKE_LINES).
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
            if shown and tail[-1] == core.AWAKE and not read_only:
                # Nothing else handed over: the damaged summary's repair, if it fits.
                more = "\n\n" + core.summary_repair(store, shown)
                if _size([text + more]) <= max_bytes:
                    text += more
            return text
    smallest = min(fixed + sum(block_lines(b)[1] for b in (blocks.cover(T, n) if T else []))
                   for n in candidates)
    # The document's lines are joined with newlines and echo adds the last one.
    err = BadInput(f"--max-bytes {max_bytes} is too small: the shortest document is "
                   f"{smallest} bytes. Run: memo wake --max-bytes {smallest}")
    err.smallest = smallest  # for callers that share bytes out (``scoped.wake_max_bytes``)
    raise err


def smallest_bytes(store) -> int:
    """The smallest ``max_bytes`` for which ``wake_max_bytes(store, ...)``
    gives a document (bytes of UTF-8, every newline included)."""
    try:
        wake_max_bytes(store, 0)
    except BadInput as err:
        return err.smallest
    return 0  # pragma: no cover - no document is 0 bytes


def split_awake(text: str) -> tuple:
    """``(document, hand_over)``: the lines of a ``wake_max_bytes`` text up
    to ``You are awake.`` (excluded) and those after it (the blank line
    and the hand-over, or nothing)."""
    lines = text.split("\n")
    at = len(lines) - 1 - lines[::-1].index(core.AWAKE)
    return lines[:at], lines[at + 1:]

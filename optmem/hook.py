"""``memo wake --max-bytes N``: one part for startup hooks that cannot page.

DESIGN.md "Beyond the seed": at most N bytes in all, never refused for
pending work. The most detailed document that fits is chosen (the largest
line budget up to ``WAKE_LINES``); a block whose summary is not built yet is
shown as its built halves (down to raw memories) when that takes a few
lines, else as one line that says it is not summarised yet; the document
then orders the pending compressions. It still ends with ``You are awake.``.
"""

from __future__ import annotations

from . import blocks, core
from .errors import BadInput


#: An unbuilt block is shown as its built halves (down to raw memories)
#: while that takes at most this many lines; beyond, as one placeholder line.
EXPAND_LINES = 8


class _TooBig(Exception):
    pass


def _render(store, T: int, budget: int, built: dict, max_bytes: int):
    """The document at ``budget`` lines as text, or raise ``_TooBig``."""
    lines = [core.wake_intro(store, T)]
    used = len(lines[0].encode()) + 1

    def add(line):
        nonlocal used
        used += len(line.encode("utf-8")) + 1
        if used > max_bytes:
            raise _TooBig()
        lines.append(line)

    def expand(lo, hi, room):
        """Lines that show ``[lo, hi)`` from built summaries and raw memories,
        or None when that takes more than ``room`` lines."""
        size = hi - lo
        if size == 1:
            return [core.memory_line(store.memory(lo))]
        if lo // size < built.get(size, 0):
            return [core.summary_line(store, lo, hi)]
        if room < 2:
            return None
        out = []
        for a, b in blocks.halves(lo, hi):
            part = expand(a, b, room - len(out) - 1)
            if part is None:
                return None
            out += part
        return out

    def show(lo, hi):
        lines_ = expand(lo, hi, EXPAND_LINES)
        if lines_ is None:  # too much to show raw: one line that says so
            lines_ = [f"#{blocks.block_name(lo, hi)} {core.dates_of(store, lo, hi)} "
                      f"(not summarised yet)"]
        for line in lines_:
            add(line)

    for lo, hi in (blocks.cover(T, budget) if T else []):
        show(lo, hi)
    pending = core.pending_in(T, built)
    if pending:
        add(f"{pending} compression{'s are' if pending > 1 else ' is'} pending; "
            f"do them before your next action.")
        add("Run: memo sleep")
    add(core.AWAKE)
    return "\n".join(lines)


def wake_max_bytes(store, max_bytes: int) -> str:
    """The one-part document of at most ``max_bytes`` bytes (UTF-8, newlines
    included, the final newline too). Raises ``BadInput`` if even one line
    per block does not fit."""
    T = store.count()
    budget_cap = store.config().WAKE_LINES
    built = store.built(T)
    limit = max_bytes - 1  # click.echo adds the last newline
    best = None
    lo, hi = 1, budget_cap
    while lo <= hi:
        mid = (lo + hi) // 2
        try:
            best = _render(store, T, mid, built, limit)
            lo = mid + 1
        except _TooBig:
            hi = mid - 1
    if best is None:
        raise BadInput(f"--max-bytes {max_bytes} is too small for even the shortest "
                       f"document; try --max-bytes 4000, or page with: memo wake")
    return best

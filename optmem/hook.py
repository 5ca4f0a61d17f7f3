"""``memo wake --max-bytes N``: one part for startup hooks that cannot page.

DESIGN.md "Beyond the seed": at most N bytes in all, never refused for
pending work. The most detailed document that fits is chosen (the largest
line budget up to ``WAKE_LINES``); a block whose summary is not built yet is
shown as its halves (down to raw memories), and the document then orders
the pending compressions. It still ends with ``You are awake.``.
"""

from __future__ import annotations

from . import blocks, core
from .errors import BadInput


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

    def show(lo, hi):
        size = hi - lo
        if size == 1:
            add(core.memory_line(store.memory(lo)))
        elif lo // size < built.get(size, 0):
            add(core.summary_line(store, lo, hi))
        else:
            for a, b in blocks.halves(lo, hi):
                show(a, b)

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

"""Block math: pure functions of integers, no I/O (docs/blocks.md).

The log holds memories ``0 .. T-1``. A *block* is an aligned power-of-two
range ``[lo, hi)``: its size ``s = hi - lo`` is a power of two and
``lo % s == 0``. Size-1 blocks are raw memories; a block of size ``s >= 2``
is one summary line, built from its two halves ``[lo, lo+s/2)`` and
``[lo+s/2, hi)``. So the summaries form a binary merge tree over the log::

    #0  #1  #2  #3        raw memories (size 1)
     0-1     2-3          size 2, one summary each
        0-3               size 4

A block is *complete* once ``hi <= T``; every complete block of size >= 2
must be built (the invariant), smallest size first, lowest ``lo`` first.
``cover(T, budget)`` chooses the blocks ``memo wake`` prints: a tiling of
``[0, T)`` whose block sizes shrink toward the present.

In code ``lo``/``hi`` are half-open; people see the inclusive form
``lo-(hi-1)`` (``block_name``/``parse_block``).
"""

from __future__ import annotations

from collections.abc import Iterator  # noqa: F401  (cheap: loaded at start-up)

#: A block: half-open ``(lo, hi)``. (No ``typing`` import: it costs start-up time.)
Block = tuple[int, int]


def is_power_of_two(n: int) -> bool:
    """True when ``n`` is 1, 2, 4, 8, ... (0 and negatives are not)."""
    return n > 0 and n & (n - 1) == 0


def is_block(lo: int, hi: int) -> bool:
    """True when half-open ``[lo, hi)`` is an aligned power-of-two block."""
    size = hi - lo
    return lo >= 0 and is_power_of_two(size) and lo % size == 0


def trailing_zeros(n: int) -> int:
    """Number of trailing zero bits of ``n >= 1`` (``trailing_zeros(8) == 3``)."""
    if n <= 0:
        raise ValueError("trailing_zeros needs n >= 1")
    return (n & -n).bit_length() - 1


def popcount(n: int) -> int:
    """Number of set bits of ``n >= 0``: the fewest blocks that tile ``[0, n)``."""
    return bin(n).count("1")


def block_name(lo: int, hi: int) -> str:
    """The inclusive name people see: ``(16, 32) -> "16-31"``; a memory is ``"7"``."""
    return str(lo) if hi - lo == 1 else f"{lo}-{hi - 1}"


def complete_count(T: int) -> int:
    """How many blocks of size >= 2 lie inside ``[0, T)``: ``T - popcount(T)``."""
    return T - popcount(T)


def complete(T: int) -> Iterator[Block]:
    """Every block of size >= 2 inside ``[0, T)``, in build order.

    Build order (docs/blocks.md): smallest size first, lowest ``lo`` first, so the
    two halves of a block always come before it. Yields ``T - popcount(T)``
    blocks; meant for tests and small ``T``.
    """
    size = 2
    while size <= T:
        for lo in range(0, T - T % size, size):
            yield (lo, lo + size)
        size *= 2


def new_blocks(T: int) -> list[Block]:
    """Blocks that become complete when memory ``T`` (0-based) is added.

    These are the blocks that end at ``T + 1``: exactly
    ``trailing_zeros(T + 1)`` of them, smallest first.
    """
    n = T + 1
    out = []
    size = 2
    while n % size == 0:
        out.append((n - size, n))
        size *= 2
    return out


def level_sizes(T: int) -> list[int]:
    """The summary sizes ``2, 4, ...`` that have at least one block in ``[0, T)``."""
    out = []
    size = 2
    while size <= T:
        out.append(size)
        size *= 2
    return out


def pending(T: int, built: dict) -> Iterator[Block]:
    """Blocks still to build, in build order, given how far each level got.

    ``built`` maps a size ``s`` to the number of records in level ``s`` (a
    dense prefix: blocks ``[k*s, (k+1)*s)`` for ``k < built[s]``); a missing
    size counts as 0. A level longer than ``T // s`` is not pending work (the
    caller reports it as damage).
    """
    for size in level_sizes(T):
        for k in range(built.get(size, 0), T // size):
            yield (k * size, (k + 1) * size)


def pending_count(T: int, built: dict) -> int:
    """``len(list(pending(T, built)))`` without the list: O(log T)."""
    return sum(max(0, T // s - built.get(s, 0)) for s in level_sizes(T))


def pending_by_end(T: int, built: dict) -> Iterator[Block]:
    """Pending blocks in *completion order*: by end ``hi``, then by size.

    This is the order in which blocks become complete as memories are added
    one at a time. Like build order it puts a block after both of its halves
    and keeps each level in ``lo`` order, so storing any prefix of it leaves
    every level a dense prefix (docs/format.md); unlike build order it
    keeps the blocks over the same memories together, which is what lets
    one batched hand-over show those memories once (``optmem.engine.handover``).
    Lazy: a merge of one sequence per level, so taking the first ``n``
    blocks costs ``O(n log log T)`` whatever the backlog.
    """
    import heapq

    def level(size):
        for k in range(built.get(size, 0), T // size):
            yield ((k + 1) * size, size)

    for end, size in heapq.merge(*(level(s) for s in level_sizes(T))):
        yield (end - size, end)


def halves(lo: int, hi: int) -> tuple[Block, Block]:
    """The two halves of a block of size >= 2."""
    mid = (lo + hi) // 2
    return (lo, mid), (mid, hi)


def parent(lo: int, hi: int) -> Block:
    """The block of twice the size that holds ``[lo, hi)``."""
    size = 2 * (hi - lo)
    plo = lo - lo % size
    return (plo, plo + size)


def ancestors(lo: int, hi: int, T: int) -> Iterator[Block]:
    """Every block strictly above ``[lo, hi)`` that is complete at ``T``."""
    while True:
        lo, hi = parent(lo, hi)
        if hi > T:
            return
        yield (lo, hi)


# --- cover --------------------------------------------------------------

def _prefix_ends(T: int, num: int, den: int) -> list[tuple[int, int]]:
    """For ``beta = num/den >= 1``, the end of the kept prefix at each level.

    With ``alpha = 1/beta`` a complete block ``[lo, lo+s)`` may be kept whole
    when ``s <= alpha * (T - lo)``, i.e. ``lo <= T - s*beta``. At each size
    the blocks that qualify form a prefix ``[0, R_s)``; these prefixes nest
    (``R_2s <= R_s``, because ``beta >= 1``), so the top-down tiling uses
    blocks of size ``s`` exactly on ``[R_2s, R_s)`` and raw memories on
    ``[R_2, T)``. Returns ``[(s, R_s), ...]`` for ``s = 2, 4, ...``.
    """
    out = []
    size = 2
    while size <= T:
        last = T // size - 1  # index of the last complete block
        # largest j with j*size <= T - size*num/den
        j = (T * den - size * num) // (size * den)
        n = min(last, j) + 1
        out.append((size, size * n if n > 0 else 0))
        size *= 2
    return out


def _count(T: int, num: int, den: int) -> int:
    """How many blocks the tiling at ``beta = num/den`` has."""
    ends = _prefix_ends(T, num, den)
    total = T - (ends[0][1] if ends else 0)
    for i, (size, end) in enumerate(ends):
        above = ends[i + 1][1] if i + 1 < len(ends) else 0
        total += (end - above) // size
    return total


def _runs(T: int, num: int, den: int) -> list[list[int]]:
    """The tiling at ``beta = num/den`` as ``[[size, count], ...]``, oldest first."""
    ends = _prefix_ends(T, num, den)
    runs = []
    for i in range(len(ends) - 1, -1, -1):
        size, end = ends[i]
        above = ends[i + 1][1] if i + 1 < len(ends) else 0
        if end > above:
            runs.append([size, (end - above) // size])
    raw = T - (ends[0][1] if ends else 0)
    if raw:
        runs.append([1, raw])
    return runs


def cover_runs(T: int, budget: int) -> list[list[int]]:
    """The wake tiling of ``[0, T)`` as runs ``[[size, count], ...]``, oldest first.

    The rule is docs/blocks.md (``cover``): with ``T <= budget``
    every memory; otherwise the tiling for the smallest ``alpha`` in
    ``[0, 1]`` that gives at most ``budget`` blocks, then the newest block
    larger than one memory is split in halves until there are ``budget``
    blocks. When ``budget < popcount(T)`` no tiling is small enough and the
    binary decomposition of ``T`` (``alpha = 1``) is returned: ``popcount(T)``
    blocks, more than ``budget``. This matches every line of
    ``spec/cover_vectors.jsonl``.

    Exact integer arithmetic: ``alpha = 1/beta`` and the search runs over
    the finitely many ``beta`` where the tiling changes (``T/s - j``), so no
    float bisection. Cost is O(log(T)^2) integer operations plus the final
    splits. Raises ``ValueError`` for ``T < 0`` or ``budget < 1``.
    """
    if T < 0 or budget < 1:
        raise ValueError("cover needs T >= 0 and budget >= 1")
    if T == 0:
        return []
    if T <= budget:
        return [[1, T]]
    # beta = 1 (alpha = 1) is the binary decomposition, the fewest blocks.
    if _count(T, 1, 1) > budget:
        return _runs(T, 1, 1)
    # Largest integer m >= 1 with count(m) <= budget (count grows with beta).
    lo_m, hi_m = 1, 1
    while _count(T, hi_m, 1) <= budget:
        lo_m, hi_m = hi_m, hi_m * 2
        if hi_m > T:
            hi_m = T + 1
            break
    while hi_m - lo_m > 1:
        mid = (lo_m + hi_m) // 2
        if _count(T, mid, 1) <= budget:
            lo_m = mid
        else:
            hi_m = mid
    m = lo_m
    # The tiling only changes at beta = T/s - j. In [m, m+1) each level has
    # one such point: m + frac(T/s) = (m*s + T % s) / s. Take the largest one
    # that still fits the budget.
    top = 1 << T.bit_length()  # every denominator divides it
    cands = sorted({(m * s + T % s, s) for s in level_sizes(T)},
                   key=lambda c: c[0] * (top // c[1]))
    # count(beta) never falls as beta grows, so bisect the sorted points.
    best = (m, 1)
    a, b = 0, len(cands)
    while a < b:
        mid = (a + b) // 2
        if _count(T, *cands[mid]) <= budget:
            best = cands[mid]
            a = mid + 1
        else:
            b = mid
    runs = _runs(T, *best)
    # Spend what is left of the budget: split the newest block larger than
    # one memory, again and again.
    have = sum(c for _, c in runs)
    while have < budget:
        i = len(runs) - 1
        while runs[i][0] == 1:
            i -= 1
        size = runs[i][0]
        runs[i][1] -= 1
        half = size // 2
        if i + 1 < len(runs) and runs[i + 1][0] == half:
            runs[i + 1][1] += 2
        else:
            runs.insert(i + 1, [half, 2])
        if runs[i][1] == 0:
            del runs[i]
        have += 1
    return runs


def cover(T: int, budget: int) -> list[Block]:
    """The wake tiling of ``[0, T)`` as half-open blocks, oldest first.

    Same rule as ``cover_runs``; the result has ``min(T, budget)`` blocks
    whenever ``popcount(T) <= budget`` and ``popcount(T)`` otherwise.
    """
    out = []
    lo = 0
    for size, count in cover_runs(T, budget):
        for _ in range(count):
            out.append((lo, lo + size))
            lo += size
    return out

"""Properties of the block math (docs/blocks.md), checked against
independent definitions written here, not against the module's helpers."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import data_file
from helpers import bits
from optmem import blocks

SMALL_T = st.integers(min_value=0, max_value=2000)
BUDGET = st.integers(min_value=1, max_value=600)
HUGE_T = st.integers(min_value=0, max_value=2 ** 62)


def pow2(n: int) -> bool:
    return n >= 1 and (n & (n - 1)) == 0


def tz(n: int) -> int:
    """Trailing zeros, by counting: how many times 2 divides n."""
    k = 0
    while n % 2 == 0:
        n //= 2
        k += 1
    return k


def all_complete_blocks(T: int) -> set:
    """Brute force: every aligned power-of-two [lo, hi) of size >= 2 inside [0, T)."""
    out = set()
    size = 2
    while size <= T:
        for lo in range(0, T, size):
            if lo + size <= T:
                out.add((lo, lo + size))
        size *= 2
    return out


def check_tiling(T: int, tiling: list) -> None:
    """The common shape of any wake tiling of [0, T)."""
    pos = 0
    prev = None
    for lo, hi in tiling:
        assert lo == pos, f"gap or overlap at {pos}: next block is {(lo, hi)}"
        size = hi - lo
        assert pow2(size) and lo % size == 0, f"{(lo, hi)} is not an aligned power of two"
        if prev is not None:
            assert size <= prev, f"sizes grow toward the present at {(lo, hi)}"
        prev = size
        pos = hi
    assert pos == T


def check_runs(T: int, runs: list) -> int:
    """The same checks on ``[[size, count], ...]`` without materialising; returns the count."""
    pos = 0
    prev = None
    total = 0
    for size, count in runs:
        assert count >= 1
        assert pow2(size)
        assert pos % size == 0, f"run of size {size} starts at {pos}, not aligned"
        if prev is not None:
            assert size < prev, "runs must shrink toward the present (and not repeat a size)"
        prev = size
        pos += size * count
        total += count
    assert pos == T
    return total


# -- cover -----------------------------------------------------------------

@settings(max_examples=300, deadline=None)
@given(SMALL_T, BUDGET)
def test_cover_tiles_aligned_and_shrinking(T, budget):
    tiling = blocks.cover(T, budget)
    check_tiling(T, tiling)
    expected = min(T, budget) if bits(T) <= budget else bits(T)
    assert len(tiling) == expected


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0, max_value=300), BUDGET)
def test_cover_blocks_are_complete_blocks(T, budget):
    built = all_complete_blocks(T)
    for lo, hi in blocks.cover(T, budget):
        if hi - lo >= 2:
            assert (lo, hi) in built
            assert (lo, hi) in set(blocks.complete(T))


@settings(max_examples=200, deadline=None)
@given(SMALL_T, BUDGET)
def test_cover_runs_and_cover_agree(T, budget):
    runs = blocks.cover_runs(T, budget)
    expanded = []
    lo = 0
    for size, count in runs:
        for _ in range(count):
            expanded.append((lo, lo + size))
            lo += size
    assert expanded == blocks.cover(T, budget)


@settings(max_examples=300, deadline=None)
@given(HUGE_T, st.integers(min_value=1, max_value=5000))
def test_cover_huge_T(T, budget):
    runs = blocks.cover_runs(T, budget)
    total = check_runs(T, runs)
    expected = min(T, budget) if bits(T) <= budget else bits(T)
    assert total == expected
    # Every summarised block is complete (ends at or before T).
    pos = 0
    for size, count in runs:
        pos += size * count
        assert pos <= T


def test_cover_all_verbatim_when_it_fits():
    assert blocks.cover(5, 5) == [(i, i + 1) for i in range(5)]
    assert blocks.cover(5, 256) == [(i, i + 1) for i in range(5)]
    assert blocks.cover(0, 3) == []


def test_cover_design_example_10000_256():
    # Stated in docs/blocks.md: 12x256, 27x128, 27x64, 27x32, 28x16, 27x8, 27x4,
    # 27x2 and 54 memories verbatim (sum 10000, count 256).
    assert blocks.cover_runs(10000, 256) == [
        [256, 12], [128, 27], [64, 27], [32, 27], [16, 28], [8, 27], [4, 27], [2, 27], [1, 54]]


def test_cover_at_budget_popcount_is_binary_decomposition():
    # 1000 = 512 + 256 + 128 + 64 + 32 + 8: six blocks, oldest (largest) first.
    assert blocks.cover(1000, 6) == [(0, 512), (512, 768), (768, 896), (896, 960),
                                     (960, 992), (992, 1000)]


def test_cover_rejects_bad_arguments():
    with pytest.raises(ValueError):
        blocks.cover_runs(-1, 4)
    with pytest.raises(ValueError):
        blocks.cover_runs(10, 0)


# -- alpha-minimality against a slow reference of the rule of docs/blocks.md ---------

def reference_tiling(T: int, alpha: Fraction) -> list:
    """Top-down from the smallest power of two >= T, as docs/blocks.md states it."""
    top = 1
    while top < T:
        top *= 2
    p, q = alpha.numerator, alpha.denominator  # size <= alpha*age  <=>  size*q <= p*age
    out = []

    def visit(lo, size):
        if lo >= T:
            return  # starts at or after T: dropped
        hi = lo + size
        if size == 1 or (hi <= T and size * q <= p * (T - lo)):
            out.append((lo, hi))
            return
        half = size // 2
        visit(lo, half)
        visit(lo + half, half)

    visit(0, top)
    return out


class ReferenceCover:
    """The rule of docs/blocks.md for one ``T``, by scanning every candidate alpha.

    The tiling only changes where ``size == alpha * age`` for some complete
    block, so the candidates are those ratios in ``[0, 1]`` plus 0 and 1.
    Tilings are computed lazily and cached, so several budgets share them.
    """

    def __init__(self, T: int) -> None:
        self.T = T
        candidates = {Fraction(0), Fraction(1)}
        for lo, hi in all_complete_blocks(T):
            a = Fraction(hi - lo, T - lo)
            if a <= 1:
                candidates.add(a)
        self.alphas = sorted(candidates)
        self.tilings = {}

    def tiling(self, alpha: Fraction) -> list:
        if alpha not in self.tilings:
            self.tilings[alpha] = reference_tiling(self.T, alpha)
        return self.tilings[alpha]

    def cover(self, budget: int) -> list:
        T = self.T
        if T <= budget:
            return [(i, i + 1) for i in range(T)]
        for alpha in self.alphas:  # smallest alpha first
            if len(self.tiling(alpha)) <= budget:
                tiling = list(self.tiling(alpha))
                break
        else:
            # No alpha in [0, 1] fits: alpha = 1 (popcount(T) blocks, the fewest).
            return list(self.tiling(Fraction(1)))
        while len(tiling) < budget:
            i = max(k for k, (lo, hi) in enumerate(tiling) if hi - lo > 1)
            lo, hi = tiling[i]
            mid = (lo + hi) // 2
            tiling[i:i + 1] = [(lo, mid), (mid, hi)]
        return tiling


def test_reference_alpha_one_is_binary_decomposition():
    # Sanity of the reference itself: alpha = 1 gives popcount(T) blocks,
    # alpha = 0 every memory.
    for T in range(1, 200):
        assert len(reference_tiling(T, Fraction(1))) == bits(T)
        assert len(reference_tiling(T, Fraction(0))) == T


ALPHA_BUDGETS = [1, 2, 3, 5, 8, 13, 32, 100]


@pytest.mark.parametrize("chunk", range(4))
def test_cover_is_alpha_minimal_small_T(chunk):
    # Every T <= 300 (split in four interleaved chunks), several budgets.
    for T in range(chunk, 301, 4):
        ref = ReferenceCover(T)
        for budget in ALPHA_BUDGETS:
            assert blocks.cover(T, budget) == ref.cover(budget), (T, budget)


# -- complete, new_blocks, build order -------------------------------------

@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0, max_value=3000))
def test_complete_count_and_content(T):
    got = list(blocks.complete(T))
    assert len(got) == T - bits(T)
    assert len(set(got)) == len(got)
    assert set(got) == all_complete_blocks(T)
    assert blocks.complete_count(T) == T - bits(T)


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0, max_value=3000))
def test_build_order_halves_first_smallest_first(T):
    order = list(blocks.complete(T))
    index = {b: k for k, b in enumerate(order)}
    for k, (lo, hi) in enumerate(order):
        if hi - lo >= 4:
            mid = (lo + hi) // 2
            assert index[(lo, mid)] < k and index[(mid, hi)] < k
        if k:
            plo, phi = order[k - 1]
            # smallest size first, then lowest lo
            assert (phi - plo, plo) < (hi - lo, lo)
    # With nothing built, the pending work is exactly the build order.
    assert list(blocks.pending(T, {})) == order
    assert blocks.pending_count(T, {}) == len(order)


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=0, max_value=5000))
def test_new_blocks_when_memory_T_is_added(T):
    # Convention in code: memory T is 0-based, so the log grows from T to T+1
    # memories and the new blocks are those ending at T+1.
    expected = all_complete_blocks(T + 1) - all_complete_blocks(T)
    got = blocks.new_blocks(T)
    assert set(got) == expected
    assert len(got) == tz(T + 1)
    assert [hi - lo for lo, hi in got] == sorted(hi - lo for lo, hi in got)


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0, max_value=2 ** 62))
def test_new_blocks_huge(T):
    got = blocks.new_blocks(T)
    assert len(got) == tz(T + 1)
    for lo, hi in got:
        assert hi == T + 1 and pow2(hi - lo) and lo % (hi - lo) == 0


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0, max_value=600), st.data())
def test_pending_from_dense_prefixes(T, data):
    # Any dense prefix per level: pending is the rest, in build order.
    built = {}
    size = 2
    while size <= T:
        built[size] = data.draw(st.integers(min_value=0, max_value=T // size), label=f"built[{size}]")
        size *= 2
    have = {(k * s, (k + 1) * s) for s, n in built.items() for k in range(n)}
    expected = [b for b in blocks.complete(T) if b not in have]
    assert list(blocks.pending(T, built)) == expected
    assert blocks.pending_count(T, built) == len(expected)


def test_small_helpers():
    assert [blocks.is_block(lo, hi) for lo, hi in [(0, 1), (4, 8), (4, 12), (6, 8), (2, 6), (0, 0)]] == [
        True, True, False, True, False, False]
    assert blocks.block_name(16, 32) == "16-31"
    assert blocks.block_name(7, 8) == "7"
    assert blocks.halves(8, 16) == ((8, 12), (12, 16))
    assert blocks.parent(12, 16) == (8, 16)
    assert list(blocks.ancestors(2, 4, 16)) == [(0, 4), (0, 8), (0, 16)]
    assert list(blocks.ancestors(2, 4, 7)) == [(0, 4)]
    assert blocks.trailing_zeros(8) == 3 and blocks.trailing_zeros(7) == 0
    assert blocks.popcount(1000) == 6


def load_vectors():
    path = data_file("cover_vectors.jsonl")
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def test_every_vector_matches():
    vectors = load_vectors()
    assert len(vectors) == 5452
    wrong = []
    for v in vectors:
        got = blocks.cover_runs(v["T"], v["budget"])
        if got != v["runs"]:
            wrong.append((v["T"], v["budget"], v["runs"], got))
    assert not wrong, f"{len(wrong)} vectors differ, first: {wrong[:3]}"


def test_vectors_are_tilings():
    # The file itself: each answer tiles [0, T) (guards against a bad copy).
    for v in load_vectors():
        assert sum(size * count for size, count in v["runs"]) == v["T"]

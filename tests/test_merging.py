"""Merging two replicas of one log (``optmem.merging``): the merged log
holds every memory of both sides, keeps their order where they agree, and
is the same whichever side merges; redactions travel as tombstones."""

from __future__ import annotations

from optmem import merging
from optmem.merging import apply_tombstones, is_redacted, merge_key, parse_tombstone, plan_merge

D = "2026-01-05"


def recs(texts, date=D):
    return [(date, t) for t in texts]


def test_a_repeated_text_is_matched_where_the_orders_agree():
    """[a, b] against [b, a, b]: matching the b's by occurrence number would
    make a cycle; the merge is [b, a, b] from either side."""
    a, b = recs("ab"), recs("bab")
    assert plan_merge(a, b).records == b
    assert plan_merge(b, a).records == b
    assert plan_merge(b, a).fast_forward == "ours"
    assert plan_merge(a, b).added == [0]


def test_opposite_orders_are_emitted_in_key_order_on_both_sides():
    a = recs(["x", "b", "a"])
    b = recs(["x", "a", "b"])
    assert plan_merge(a, b).records == plan_merge(b, a).records == recs(["x", "a", "b"])


def test_a_conflict_among_repeated_texts_merges_the_same_way_again():
    """[a, c] against [c, b, a, b]: the orders conflict; merging the result
    with either side again changes nothing."""
    a, b = recs("ac"), recs("cbab")
    m = plan_merge(a, b).records
    assert sorted(m) == sorted(recs("abcb"))
    assert plan_merge(m, a).records == m == plan_merge(m, b).records == plan_merge(b, a).records


def test_an_nfd_record_is_written_in_nfc_once_merged():
    nfd = "Mu\u0308ller"
    a = recs(["x", nfd])
    b = recs(["x", "y"])
    m = plan_merge(a, b).records
    assert m == recs(["x", "M\u00fcller", "y"]) == plan_merge(m, a).records


def test_a_fast_forward_is_the_longer_side_exactly():
    a = recs(["one", "two"])
    b = a + [("2026-01-06", "three")]
    plan = plan_merge(a, b)
    assert plan.records == b and plan.fast_forward == "theirs" and plan.added == [2]
    assert plan.prefix == 2 and plan.renumbered == 0
    assert plan_merge(b, a).fast_forward == "ours"
    assert plan_merge(a, list(a)).fast_forward == "same"


def test_both_appended_gives_the_union_in_date_order_and_counts_renumbered():
    base = recs(["base"], "2026-01-01")
    a = base + [("2026-01-02", "laptop"), ("2026-01-04", "laptop later")]
    b = base + [("2026-01-03", "workstation")]
    plan = plan_merge(a, b)
    assert plan.records == base + [("2026-01-02", "laptop"), ("2026-01-03", "workstation"),
                                   ("2026-01-04", "laptop later")]
    assert plan.prefix == 1 and plan.added == [2] and plan.renumbered == 1
    assert plan.missing_ours == 1 and plan.fast_forward is None
    assert plan_merge(b, a).records == plan.records


def test_nfc_and_nfd_of_one_memory_are_one_record_in_nfc():
    nfd, nfc_ = "Mu\u0308ller", "M\u00fcller"
    a = recs(["x", nfd, "y"])
    b = recs(["x", nfc_, "z"])
    assert plan_merge(a, b).records == plan_merge(b, a).records == recs(["x", nfc_, "y", "z"])


def test_related():
    assert merging.related([], recs("a"))
    assert merging.related(recs("ab"), recs("cb"))
    assert not merging.related(recs("ab"), recs("cd"))


def test_summaries_are_reused_where_the_records_are_the_same():
    a = recs("abcd")
    b = recs("abce")
    merged = plan_merge(a, b).records  # a b c d e
    built_a = {(0, 2): "ab-a", (2, 4): "cd", (0, 4): "abcd"}
    built_b = {(0, 2): "ab-b", (2, 4): "ce", (0, 4): "abce"}
    got = merging.reusable_summaries(merged, [(a, built_a), (b, built_b)])
    assert got == {(0, 2): "ab-a", (2, 4): "cd", (0, 4): "abcd"}
    assert merging.pick_summary("bb", "a") == "a" == merging.pick_summary("a", "bb")
    assert merging.pick_summary("b", "a") == "a"


def test_a_tombstone_blanks_the_other_sides_copy_without_revealing_it():
    salt = bytes(range(16))
    secret = (D, "the password is hunter2")
    stone = merging.tombstone(secret, salt)
    assert "hunter2" not in stone and is_redacted(stone) and len(stone.encode()) == 56
    assert parse_tombstone(stone)[0] == salt
    assert parse_tombstone("[redacted]") is None and is_redacted("[redacted]")
    ours = [(D, "x"), (D, stone)]
    theirs = [(D, "x"), secret, (D, "y")]
    o2, t2, killed = apply_tombstones(ours, theirs)
    assert o2 == ours and t2 == [(D, "x"), (D, stone), (D, "y")]
    assert killed == [("theirs", 1)]
    assert plan_merge(o2, t2).records == [(D, "x"), (D, stone), (D, "y")]
    assert merge_key((D, stone)) != merge_key(secret)


# --- properties over random histories ----------------------------------------

import hashlib  # noqa: E402
from collections import Counter  # noqa: E402

import pytest  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

#: A small pool, so texts repeat, and one memory in two spellings (NFC, NFD).
POOL = ["a", "b", "c", "d", "e", "M\u00fcller", "Mu\u0308ller"]
DATES = ["2026-01-01", "2026-01-02", "2026-01-03"]


def quick_hash(record, salt):
    """The tombstone hash made fast for the random histories (the slow
    one is exercised by the examples above)."""
    date, text = merge_key(record)
    return hashlib.sha256(salt + date.encode() + b" " + text).digest()[:merging.HASH_BYTES]


def union(a, b) -> Counter:
    """The multiset union by merge key: each key ``max`` times."""
    ca, cb = Counter(map(merge_key, a)), Counter(map(merge_key, b))
    return Counter({k: max(ca[k], cb[k]) for k in ca.keys() | cb.keys()})


def sorted_dates(log) -> bool:
    return all(x[0] <= y[0] for x, y in zip(log, log[1:]))


def is_subsequence(part, whole) -> bool:
    it = iter(whole)
    return all(any(merge_key(x) == merge_key(y) for y in it) for x in part)


def checked_merge(a, b):
    """Tombstones, then ``plan_merge``, asserting promises 1-5 on the way."""
    a, b, _ = apply_tombstones(a, b)
    plan = plan_merge(a, b)
    m = plan.records
    assert Counter(map(merge_key, m)) == union(a, b), "lost or invented a record"
    assert plan_merge(b, a).records == m, "asymmetric"
    if sorted_dates(a) and sorted_dates(b):
        assert sorted_dates(m)
    assert plan_merge(m, a).records == m and plan_merge(m, b).records == m, "not idempotent"
    assert plan_merge(m, a).fast_forward in ("ours", "same")
    P = plan.prefix
    assert m[:P] == a[:P] == b[:P]
    sa, sb = [merge_key(r) for r in a[P:]], [merge_key(r) for r in b[P:]]
    if len(set(sa)) == len(sa) and len(set(sb)) == len(sb):
        common = set(sa) & set(sb)
        if [k for k in sa if k in common] == [k for k in sb if k in common]:
            assert is_subsequence(a[P:], m[P:]) and is_subsequence(b[P:], m[P:])
    assert plan.added == sorted(plan.added) and all(i >= P for i in plan.added)
    assert len(m) == len(a) + plan.missing_ours
    return m


class Replicas:
    """A pure simulation of replicas of one identity: each appends records
    to its own log, redacts, and exchanges through a mesh (pairwise merges),
    a hub, or folders each machine publishes to."""

    def __init__(self, n):
        self.logs = [[] for _ in range(n)]
        self.hub = []
        self.folders = [[] for _ in range(n)]
        self.salts = [bytes([r]) * merging.SALT_BYTES for r in range(n)]
        self.noted = set()
        self.redacted = set()

    def note(self, r, text, date):
        log = self.logs[r]
        date = max([date] + [log[-1][0]] if log else [date])
        log.append((date, text))
        self.noted.add(merge_key((date, text)))

    def redact(self, r, pos):
        log = self.logs[r]
        if log and not is_redacted(log[pos % len(log)][1]):
            i = pos % len(log)
            self.redacted.add(merge_key(log[i]))
            log[i] = (log[i][0], merging.tombstone(log[i], self.salts[r]))

    def mesh(self, r, s):
        if r != s:
            self.logs[r] = self.logs[s] = checked_merge(self.logs[r], self.logs[s])

    def via_hub(self, r):
        self.logs[r] = self.hub = checked_merge(self.logs[r], self.hub)

    def publish(self, r):
        self.folders[r] = list(self.logs[r])

    def pull(self, r, s):
        if r != s:
            self.logs[r] = checked_merge(self.logs[r], self.folders[s])

    def run(self, ops):
        for op in ops:
            getattr(self, op[0])(*op[1:])

    def settle(self, how):
        """Exchange until quiet; return every replica's final log."""
        n = len(self.logs)
        for _ in range(3):
            if how == "mesh":
                for r in range(n):
                    for s in range(n):
                        self.mesh(r, s)
            elif how == "hub":
                for r in range(n):
                    self.via_hub(r)
            else:
                for r in range(n):
                    self.publish(r)
                for r in range(n):
                    for s in range(n):
                        self.pull(r, s)
        return self.logs


def ops(n):
    r = st.integers(0, n - 1)
    text = st.one_of(st.sampled_from(POOL), st.integers(0, 10**6).map(lambda i: f"note {i}"))
    return st.lists(st.one_of(
        st.tuples(st.just("note"), r, text, st.sampled_from(DATES)),
        st.tuples(st.just("note"), r, text, st.sampled_from(DATES)),
        st.tuples(st.just("redact"), r, st.integers(0, 50)),
        st.tuples(st.just("mesh"), r, r),
        st.tuples(st.just("via_hub"), r),
        st.tuples(st.just("publish"), r),
        st.tuples(st.just("pull"), r, r),
    ), max_size=40)


@pytest.mark.parametrize("how", ["mesh", "hub", "folders"])
@pytest.mark.parametrize("n", [2, 3])
@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_replicas_lose_nothing_and_converge(n, how, data):
    """Promises 1-6 over random histories of two and three replicas: every
    merge on the way holds the multiset union, keeps sorted dates sorted,
    is symmetric and idempotent; once the replicas stop writing and
    exchange, all hold the same log, and every memory noted and never
    redacted is in it."""
    sim = Replicas(n)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(merging, "slow_hash", quick_hash)
        sim.run(data.draw(ops(n)))
        final = sim.settle(how)
    assert all(log == final[0] for log in final), "diverged"
    have = {merge_key(r) for r in final[0]}
    assert {k for k in sim.noted if k not in sim.redacted} <= have
    assert sorted_dates(final[0])

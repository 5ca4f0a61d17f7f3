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

"""Merging two replicas of one log (``optmem.merging``): the merged log
holds every memory of both sides, keeps their order where they agree, and
is the same whichever side merges; redactions travel as tombstones."""

from __future__ import annotations

from optmem import blocks, merging
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


def test_a_tombstone_hashes_only_what_the_other_side_holds_more_often(monkeypatch):
    """The slow hash runs once per candidate: a record of the tombstone's
    date the other side holds more often than the tombstone's side."""
    salt = bytes(16)
    stone = (D, merging.tombstone((D, "s3cret"), salt))
    hashed = []
    real = merging.slow_hash
    monkeypatch.setattr(merging, "slow_hash", lambda r, *how: hashed.append(r) or real(r, *how))
    shared = recs([f"shared {k}" for k in range(50)])
    ours = shared + [stone]
    theirs = shared + [(D, "s3cret"), ("2026-01-06", "s3cret")]
    o2, t2, killed = apply_tombstones(ours, theirs)
    assert hashed == [(D, "s3cret")]
    assert killed == [("theirs", 50)] and t2[50] == stone and t2[51] == ("2026-01-06", "s3cret")
    # once both hold the tombstone nothing is hashed again, and a copy
    # noted again later on the other side stays
    hashed.clear()
    again = apply_tombstones(o2, t2 + [(D, "s3cret")])
    assert hashed == [] and again[2] == []


def test_tombstones_of_one_memory_under_two_salts_apply_the_same_from_both_sides():
    """Two machines redacted copies of one memory with their own salts:
    which side merges which does not change what is blanked."""
    e = (D, "e")
    t0, t1 = (D, merging.tombstone(e, bytes(16))), (D, merging.tombstone(e, bytes([1]) * 16))
    a, b = [t1, e, e], [e, t0]
    a1, b1, killed = apply_tombstones(a, b)
    b2, a2, _ = apply_tombstones(b, a)
    assert (a1, b1) == (a2, b2)
    assert a1 == [t1, t0, t0] and killed == [("ours", 1), ("ours", 2)]
    assert plan_merge(a1, b1).records == plan_merge(b2, a2).records


def test_a_python_without_scrypt_writes_a_marked_pbkdf2_tombstone_every_machine_matches(monkeypatch):
    """The scheme is in the text, so a tombstone is matched with the hash
    it was made with; a scrypt tombstone where scrypt is missing stops the
    merge with one line instead of being passed over."""
    from optmem.errors import MemoError
    secret = (D, "the door code is 1234")
    salt = bytes(range(16))
    scrypt_stone = merging.tombstone(secret, salt)
    monkeypatch.delattr(merging.hashlib, "scrypt")
    stone = merging.tombstone(secret, salt)
    assert stone.startswith("[redacted pbkdf2 ") and is_redacted(stone)
    assert parse_tombstone(stone)[0] == salt
    assert apply_tombstones([(D, stone)], [secret])[1] == [(D, stone)]
    with pytest.raises(MemoError) as err:
        apply_tombstones([(D, scrypt_stone)], [secret])
    assert "scrypt" in str(err.value) and "\n" not in str(err.value)
    monkeypatch.undo()
    assert apply_tombstones([(D, stone)], [secret])[1] == [(D, stone)]  # on a machine with scrypt too


def test_a_plain_redaction_blanks_the_same_position_where_the_neighbours_agree():
    plain = (D, "[redacted]")
    x = recs(["a"]) + [plain] + recs(["c"])
    o2, t2, killed = apply_tombstones(x, recs("abc"))
    assert t2 == x and killed == [("theirs", 1)]
    assert plan_merge(o2, t2).records == x
    # neighbours that differ, or another date: nothing is blanked
    assert apply_tombstones(x, recs("zbc"))[2] == []
    assert apply_tombstones(x, [(D, "a"), ("2026-01-06", "b"), ("2026-01-06", "c")])[2] == []
    # the other way round too
    o3, t3, killed = apply_tombstones(recs("abc"), x)
    assert o3 == x and killed == [("ours", 1)]


# --- properties over random histories ----------------------------------------

import hashlib  # noqa: E402
from collections import Counter  # noqa: E402

import pytest  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

#: A small pool, so texts repeat, and one memory in two spellings (NFC, NFD).
POOL = ["a", "b", "c", "d", "e", "M\u00fcller", "Mu\u0308ller"]
DATES = ["2026-01-01", "2026-01-02", "2026-01-03"]


def quick_hash(record, salt, scheme="scrypt"):
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
    b2, a2, _ = apply_tombstones(b, a)
    a, b, _ = apply_tombstones(a, b)
    assert (a2, b2) == (a, b), "tombstones applied differ by direction"
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


def words(r, records):
    """A summary of ``records`` as machine ``r`` writes it: machines use
    different words (and lengths); the digest names the records it covers."""
    digest = hashlib.sha256(repr(records).encode()).hexdigest()[:12]
    return "~" * ((r * 5 + len(records)) % 3) + f"m{r} {digest}"


def covers(text, records) -> bool:
    return text.endswith(hashlib.sha256(repr(records).encode()).hexdigest()[:12])


class Replicas:
    """A pure simulation of replicas of one identity: each appends records
    to its own log, redacts, builds summaries in its own words, and
    exchanges through a mesh (pairwise merges), a hub, or folders each
    machine publishes to. A replica is ``(log, built)``."""

    def __init__(self, n):
        self.reps = [([], {}) for _ in range(n)]
        self.hub = ([], {})
        self.folders = [([], {}) for _ in range(n)]
        self.salts = [bytes([r]) * merging.SALT_BYTES for r in range(n)]
        self.noted = set()
        self.redacted = set()

    def note(self, r, text, date):
        log = self.reps[r][0]
        date = max([date] + ([log[-1][0]] if log else []))
        log.append((date, text))
        self.noted.add(merge_key((date, text)))

    def redact(self, r, pos):
        log, built = self.reps[r]
        if log and not is_redacted(log[pos % len(log)][1]):
            i = pos % len(log)
            self.redacted.add(merge_key(log[i]))
            log[i] = (log[i][0], merging.tombstone(log[i], self.salts[r]))
            # the summaries over it go, and the later ones on their levels
            keep = {b: t for b, t in built.items() if b[1] <= i - i % (b[1] - b[0])}
            built.clear()
            built.update(keep)

    def sleep(self, r):
        log, built = self.reps[r]
        for lo, hi in blocks.complete(len(log)):
            if (lo, hi) not in built:
                built[(lo, hi)] = words(r, log[lo:hi])

    def merged(self, one, other):
        m = checked_merge(one[0], other[0])
        built = merging.reusable_summaries(m, [one, other])
        for (lo, hi), text in built.items():
            assert covers(text, m[lo:hi]), "a summary kept over other records"
        return (m, built)

    def mesh(self, r, s):
        if r != s:
            self.reps[r] = self.reps[s] = self.merged(self.reps[r], self.reps[s])

    def via_hub(self, r):
        self.reps[r] = self.hub = self.merged(self.reps[r], self.hub)

    def publish(self, r):
        self.folders[r] = (list(self.reps[r][0]), dict(self.reps[r][1]))

    def pull(self, r, s):
        if r != s:
            self.reps[r] = self.merged(self.reps[r], self.folders[s])

    def run(self, ops):
        for op in ops:
            getattr(self, op[0])(*op[1:])

    def exchange(self, how):
        n = len(self.reps)
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

    def settle(self, how):
        """Exchange until quiet, every machine builds its summaries, and
        exchange again; return every replica's final ``(log, built)``."""
        self.exchange(how)
        for r in range(len(self.reps)):
            self.sleep(r)
        self.exchange(how)
        return self.reps


def ops(n):
    r = st.integers(0, n - 1)
    pool = st.sampled_from(POOL)
    text = st.one_of(pool, pool, pool, st.integers(0, 10**6).map(lambda i: f"note {i}"))
    note = st.tuples(st.just("note"), r, text, st.sampled_from(DATES))
    return st.lists(st.one_of(
        note, note, note, note, note,
        st.tuples(st.just("redact"), r, st.integers(0, 50)),
        st.tuples(st.just("sleep"), r),
        st.tuples(st.just("mesh"), r, r),
        st.tuples(st.just("via_hub"), r),
        st.tuples(st.just("publish"), r),
        st.tuples(st.just("pull"), r, r),
    ), max_size=40)


def small_logs():
    record = st.tuples(st.sampled_from(DATES[:2]), st.sampled_from(["a", "b", "c", "d"] + POOL[-2:]))
    return st.lists(record, max_size=8)


@settings(max_examples=300, deadline=None)
@given(prefix=small_logs(), a=small_logs(), b=small_logs(), in_order=st.booleans())
def test_two_logs_merge_by_the_promises(prefix, a, b, in_order):
    """Two logs with a common start and few texts (so they repeat and
    conflict): the merge holds the multiset union, is symmetric and
    idempotent, keeps sorted dates sorted and each side's order where
    texts do not repeat (``checked_merge``)."""
    if in_order:
        prefix, a, b = sorted(prefix), sorted(a), sorted(b)
        a = prefix + [r for r in a if not prefix or r[0] >= prefix[-1][0]]
        b = prefix + [r for r in b if not prefix or r[0] >= prefix[-1][0]]
    else:
        a, b = prefix + a, prefix + b
    checked_merge(a, b)


@pytest.mark.parametrize("how", ["mesh", "hub", "folders"])
@pytest.mark.parametrize("n", [2, 3])
@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_replicas_lose_nothing_and_converge(n, how, data):
    """Promises 1-6 over random histories of two and three replicas: every
    merge on the way holds the multiset union, keeps sorted dates sorted,
    is symmetric and idempotent; once the replicas stop writing and
    exchange, all hold the same log and the same summaries (each over the
    records it summarises), and every memory noted and never redacted is
    in it."""
    sim = Replicas(n)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(merging, "slow_hash", quick_hash)
        sim.run(data.draw(ops(n)))
        final = sim.settle(how)
    assert all(log == final[0][0] for log, _ in final), "logs diverged"
    assert all(built == final[0][1] for _, built in final), "summaries diverged"
    log, built = final[0]
    assert set(built) == set(blocks.complete(len(log)))
    have = {merge_key(r) for r in log}
    assert {k for k in sim.noted if k not in sim.redacted} <= have
    assert sorted_dates(log)


@settings(max_examples=200, deadline=None)
@given(salt=st.binary(min_size=16, max_size=16), digest=st.binary(min_size=16, max_size=16))
def test_every_tombstone_passes_the_write_guard(salt, digest):
    """A merge passes records ours lacks through the write guard; a
    tombstone's random letters must never read as a password to it."""
    from optmem.guard.text import find_problem
    stone = f"[redacted {merging._b64(salt)}:{merging._b64(digest)}]"
    assert parse_tombstone(stone) == (salt, digest)
    assert find_problem(stone) is None


def test_a_tombstone_that_reads_like_a_password_passes_the_guard_and_nothing_else_does():
    from optmem.guard.text import find_problem
    assert find_problem("[redacted 1-t9GARwBrhf3aEQCKL-Pw:-w9ssfVnFOhMO_rG7SzPAg]") is None
    assert find_problem("[redacted 1-t9GARwBrhf3aEQCKL-Pw:-w9ssfVnFOhMO_rG7SzPAg] x") is not None


def test_a_thousand_copies_of_one_text_on_both_sides_still_merge_whole():
    """Past a million pairs of equal records the alignment is skipped
    (repeated texts matched by occurrence): still the union, the same from
    both sides, and stable."""
    a = recs(["x"]) + recs(["same"] * 1001) + recs(["y"])
    b = recs(["z"]) + recs(["same"] * 1001)
    m = plan_merge(a, b).records
    assert Counter(map(merge_key, m)) == union(a, b) and len(m) == 1004
    assert plan_merge(b, a).records == m and plan_merge(m, b).records == m


def test_hundreds_of_one_text_on_both_sides_skip_the_alignment(monkeypatch):
    """400 repeats of one text on one date on both sides are 160,000 pairs
    of equal records: past ``_MAX_PAIRS`` the quadratic alignment is not
    run (repeats are matched by occurrence), and the merge still holds
    every record, is the same both ways and merging again changes nothing."""
    from optmem import merging
    calls = []
    real = merging._lcs_pairs
    monkeypatch.setattr(merging, "_lcs_pairs", lambda a, b: calls.append(len(a)) or real(a, b))
    n = 400
    a = [("2026-01-01", "base")] + [("2026-01-02", "ok")] * n + [("2026-01-02", "a-only")]
    b = [("2026-01-01", "base")] + [("2026-01-02", "b-only")] + [("2026-01-02", "ok")] * n
    ab, ba = plan_merge(a, b).records, plan_merge(b, a).records
    assert calls == []
    assert ab == ba and len(ab) == n + 3
    assert plan_merge(ab, a).records == ab and plan_merge(ab, b).records == ab

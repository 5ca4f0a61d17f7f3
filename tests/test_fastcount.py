"""Recall's chunk counts (``optmem.recall.fastcount``) equal the per-line definition.

The oracle is recall's definition (docs/recall.md): Python ``re``,
IGNORECASE, the NFC form of the pattern searched in the NFC form of each
``#id date text`` line. Stores are random: frequent and rare words, words
glued to each other and to non-ASCII letters (for ``\\b``), every case trap
``re`` folds, text in NFC and in NFD, and damaged records. Patterns have
many matches, so recall counts most chunks without looking at their lines.
"""

from __future__ import annotations

import os
import random
import re
import sys
import tempfile
import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import glued_text, nfc
from optmem.recall import fastcount, scancount, search
from optmem.recall.pattern import inert_char, line_of
from optmem.store.memory import LOG_RECORD, Store, displayable, encode_memory

WORDS = [
    "release", "deploy", "deployment", "redeploy", "deploy_x", "rollback", "v2", "2024-05-01",
    "Zürich", "ZÜRICH", "zurich", "café", "CAFÉ", "été", "straße", "STRASSE", "ẞ",
    "σοφία", "ΣΟΦΊΑ", "Σίσυφος", "İstanbul", "ısı", "ſtyle", "STYLE", "Kelvin", "\u212aelvin",
    "東京", "日本語", "한국어", "Москва", "ДАННЫЕ", "ﬁx", "Å", "\u212b", "µs", "ǅemal", "🚀",
    "x", "xx", "a",
    # Marks NFC keeps, and characters NFC changes (docs/recall.md: the NFC
    # screen must find exactly the lines that change).
    "हिन्दी", "ที่นี่", "\u1100\u1161", "a\u0328\u0301", "\u037e", "\u0958", "\uf900",
]
GLUE = [" ", " ", " ", " ", "", "-", ".", "é", "→", "_", "9"]


def oracle(lines: list, pattern: str) -> list:
    """Recall's definition, line by line."""
    rx = re.compile(nfc(pattern), re.IGNORECASE)
    return [line for line in lines if rx.search(nfc(line))]


@st.composite
def records(draw):
    """A list of 320-byte records: mostly memories, some damaged."""
    n = draw(st.integers(1, 40))
    out = []
    for i in range(n):
        kind = draw(st.sampled_from(["memory"] * 8 + ["nfd", "damaged"]))
        text = glued_text(draw, WORDS, GLUE, 8, nfd=kind == "nfd")
        if kind != "damaged":
            out.append(encode_memory(i, "2024-05-01", text))
            continue
        body = f"#{i} 2024-05-01 {text}".encode("utf-8")
        junk = draw(st.binary(max_size=12))
        at = draw(st.integers(0, len(body)))
        body = (body[:at] + junk + body[at:])[:LOG_RECORD - 1]
        out.append(body + b" " * (LOG_RECORD - 1 - len(body)) + b"\n")
    return out


def literal_patterns():
    word = st.sampled_from(WORDS + ["deploy", "ZüRiCh", "zu\u0308rich", "caf\u00e9", "cafe\u0301",
                                    "σ", "ς", "i", "k", "s", "ss", "é", "2024", "0"])
    typed = st.tuples(word, st.sampled_from(["keep", "upper", "lower", "nfd"])).map(
        lambda t: {"keep": t[0], "upper": t[0].upper(), "lower": t[0].lower(),
                   "nfd": unicodedata.normalize("NFD", t[0])}[t[1]])
    alternation = st.lists(typed, min_size=1, max_size=3).map(
        lambda ws: "|".join(map(re.escape, ws)))
    bounded = st.tuples(st.sampled_from(["\\b", ""]), alternation, st.sampled_from(["\\b", ""])).map(
        lambda t: f"{t[0]}(?:{t[1]}){t[2]}" if "|" in t[1] else t[0] + t[1] + t[2])
    return st.one_of(bounded, st.sampled_from(["[ab]c", "v[12]", "(?:deploy|rollback)s?",
                                               "\\b(deploy|rollback)\\b", "a|", "deploy ",
                                               "(?a)\\bdeploy\\b", "(?-i:Deploy)", "\\Bdeploy"]))


def build(tmp_path, recs) -> Store:
    root = os.path.join(tempfile.mkdtemp(dir=tmp_path), "mem")
    store, created = Store.init(root)
    assert created
    with open(store.log_path, "ab") as f:
        f.write(b"".join(recs))
    return store


def lines_of(recs) -> list:
    return [line_of(r) for r in recs]


class small_chunks:
    """Recall with ``chunk`` records a chunk, RE2 on or off, and the C
    counter (``scancount``) on or off: each way must give the definition."""

    def __init__(self, chunk, re2, scan=True):
        self.chunk, self.re2, self.scan = chunk, re2, scan

    def __enter__(self):
        self.saved = (search.CHUNK_RECORDS, search.USE_RE2, search.TIME_BOUND, scancount._scan)
        search.CHUNK_RECORDS, search.USE_RE2, search.TIME_BOUND = self.chunk, self.re2, 60.0
        if not self.scan:
            scancount._scan = None

    def __exit__(self, *exc):
        search.CHUNK_RECORDS, search.USE_RE2, search.TIME_BOUND, scancount._scan = self.saved


@settings(max_examples=250, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(recs=records(), pattern=literal_patterns(), limit=st.sampled_from([0, 60, 400, 10 ** 6]),
       chunk=st.sampled_from([1, 2, 3, 7, 64]), re2=st.booleans(), scan=st.booleans())
def test_recall_equals_the_per_line_definition(tmp_path, recs, pattern, limit, chunk, re2, scan):
    store = build(tmp_path, recs)
    want = [displayable(x) for x in oracle(lines_of(recs), pattern)]
    kept, size = [], 0
    for line in reversed(want):
        size += len(line.encode("utf-8")) + 1
        if size > limit:
            break
        kept.insert(0, line)
    with small_chunks(chunk, re2, scan):
        got = search.recall(store, pattern, limit)
    assert got == (kept, len(want), len(kept) < len(want)), pattern


@settings(max_examples=600, deadline=None)
@given(recs=records(), pattern=literal_patterns())
def test_a_chunk_count_is_the_definition_or_none(recs, pattern):
    """``Counter.count`` on a whole chunk is the number of matching lines,
    or None (then recall matches the chunk line by line)."""
    counter = fastcount.counter_for(nfc(pattern), search.case_class,
                                    re.compile(nfc(pattern), re.IGNORECASE).search)
    if counter is None:
        return
    got = counter.count(b"".join(recs), len(recs))
    assert got is None or got == len(oracle(lines_of(recs), pattern)), pattern


@settings(max_examples=600, deadline=None)
@given(recs=records())
def test_nfc_changed_names_exactly_the_lines_nfc_changes(recs):
    """``nfc_changed`` is the set of records whose line is not its own NFC
    (or None for a chunk of damaged records), and ``nfc_stable`` is True
    only when no line changes."""
    data, n = b"".join(recs), len(recs)
    lines = lines_of(recs)
    want = {r for r, line in enumerate(lines) if nfc(line) != line}
    got = fastcount.nfc_changed(data, n)
    whole = all(r[-1:] == b"\n" and r.count(b"\n") == 1 for r in recs)
    assert (got is None) == (not whole)
    if got is not None:
        assert got == want
    assert not fastcount.nfc_stable(data, n) or not want


def test_nfc_changed_reads_only_the_records_holding_a_mark():
    marks = [encode_memory(i, "2024-05-01", t) for i, t in
             enumerate(["हिन्दी release", "cafe\u0301", "plain", "\u1100\u1161 x", "Zürich 東京"])]
    data = b"".join(marks)
    assert fastcount.nfc_changed(data, 5) == {1, 3}
    assert not fastcount.nfc_inert(fastcount.residue(data[:LOG_RECORD]))  # a kept mark...
    assert fastcount.nfc_stable(data[:LOG_RECORD], 1)  # ...and yet the line is its own NFC
    assert fastcount.nfc_changed(data[:-1] + b" ", 5) is None  # not whole records


def test_clean_chunks_are_counted_not_matched_line_by_line():
    """On memory records (NFC or NFD, no damage, words apart) every
    countable class is counted in C, and exactly."""
    rng = random.Random(5)
    texts = [" ".join(rng.choices(WORDS, k=rng.randint(1, 12))) for _ in range(500)]
    texts[::50] = [unicodedata.normalize("NFD", t) for t in texts[::50]]
    recs = [encode_memory(i, "2024-05-01", t[:90]) for i, t in enumerate(texts)]
    data, lines = b"".join(recs), lines_of(recs)
    for pattern in ["release", "deploy|rollback", "\\bdeploy\\b",
                    "zürich", "ZU\u0308RICH", "東京", "σοφία", "ſtyle", "kelvin", "2024-05-01",
                    "deploy\\b", "\\bdeploy", "v[12]", "ǆemal", "å"]:
        counter = fastcount.counter_for(nfc(pattern), search.case_class,
                                        re.compile(nfc(pattern), re.IGNORECASE).search)
        assert counter is not None, pattern
        assert counter.count(data, len(recs)) == len(oracle(lines, pattern)), pattern


@pytest.mark.parametrize("pattern", [
    "deploy.*failed", "^#7 ", "a|", "deploy ", "(?a)\\bdeploy\\b", "(?-i:Deploy)", "\\Bdeploy",
    "\\bdeploy|rollback", "\\b(x-y|z)\\b", "a{2}", "\ufffd", "[^a]", "\\d",
    # several literals with \b: overwriting one can hide another that passes
    # its \b (a breaker's case: \b(ab|bcd) on "x abcd y")
    "\\b(deploy|rollback)\\b", "\\b(ab|bcd)", "(cd|abc)\\b",
])
def test_patterns_outside_the_countable_classes_are_not_counted(pattern):
    assert fastcount.counter_for(nfc(pattern), search.case_class, None) is None


def test_a_word_glued_to_a_non_ascii_letter_is_left_to_re():
    """``\\b`` next to a non-ASCII character: the bytes cannot say whether
    it is a word character, so the chunk is matched line by line."""
    recs = [encode_memory(0, "2024-05-01", "édeploy"), encode_memory(1, "2024-05-01", "→deploy")]
    counter = fastcount.counter_for("\\bdeploy\\b", search.case_class, None)
    assert counter.count(b"".join(recs), 2) is None
    assert len(oracle(lines_of(recs), "\\bdeploy\\b")) == 1


def test_nfc_inert_rests_on_true_facts_about_unicode():
    """``pattern.inert_char`` calls a character inert unless it is a mark,
    a Hangul jamo or changed by NFC alone. Over every code point: each
    character with a combining class, and each second character of a
    canonical composition, is a mark or a jamo."""
    seconds = set()
    for code in range(sys.maxunicode + 1):
        ch = chr(code)
        if unicodedata.combining(ch):
            assert unicodedata.category(ch).startswith("M"), hex(code)
        parts = unicodedata.decomposition(ch).split()
        if len(parts) == 2 and not parts[0].startswith("<"):
            seconds.add(chr(int(parts[1], 16)))
    for ch in seconds:
        assert not inert_char(ch), hex(ord(ch))
    for ch in "\u1161\u11a8":  # Hangul vowel and final jamo compose algorithmically
        assert not inert_char(ch)


def test_case_class_shortcuts_equal_the_scan():
    """ASCII characters (``ASCII_FOLDS``) and characters ``re`` calls
    uncased take a shortcut; both give what asking ``re`` about every code
    point gives."""
    sample = [chr(c) for c in range(128)] + list("東京日本한국0→✓🚀½٣\u0301") + ["\U00020000"]
    for ch in sample:
        assert set(search.case_class(ch)) == set(search.scan_class(ch)), hex(ord(ch))


@pytest.mark.parametrize("pattern", ["hello|\ud800", "hello|\udcff", "\\bhello\\b|\udcff",
                                     "[a\udcff]hello|hello", "\ud800", "hel\ud800lo"])
@pytest.mark.parametrize("scan", [True, False])
@pytest.mark.parametrize("re2", [True, False])
def test_a_pattern_holding_a_lone_surrogate_is_counted(tmp_path, pattern, scan, re2):
    """A lone surrogate (typed as an escape, or a byte of argv that is not
    UTF-8) has no UTF-8 and no line holds one: the counters leave such a
    pattern to the line-by-line match instead of failing to encode it."""
    recs = [encode_memory(i, "2024-05-01", f"hello world {i}") for i in range(30)]
    store = build(tmp_path, recs)
    want = oracle(lines_of(recs), pattern)
    with small_chunks(2, re2, scan):
        lines, total, cut = search.recall(store, pattern, 60)
    assert total == len(want)
    assert lines == want[len(want) - len(lines):]


def test_a_long_pattern_is_not_expanded():
    """Expanding a pattern into literals costs its length squared, and recall
    plans its counters before it reads a chunk: a 5 MB literal took hours.
    Over ``MAX_PATTERN_CHARS`` characters nothing is expanded (bounded by
    the number of characters ``_expand`` would be handed, not by a clock)."""
    calls = []
    real = fastcount._expand

    def spy(seq, parser, c):
        calls.append(len(seq))
        return real(seq, parser, c)

    long = "x" * (fastcount.MAX_PATTERN_CHARS + 1)
    try:
        fastcount._expand = spy
        assert fastcount.literal_set(long) is None
        assert calls == []
        assert fastcount.literal_set(long[:-1]) == [(False, long[:-1], False)]
    finally:
        fastcount._expand = real
    assert scancount.counter_for(long * 5000, search.case_class, re.compile("x").search) is None

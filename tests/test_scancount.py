"""Recall's one-pass counts (``optmem.recall.scancount`` over the C extension
``optmem.recall._scan``) equal the per-line definition.

The oracle is recall's definition (docs/recall.md): Python ``re``,
IGNORECASE, the NFC pattern searched in the NFC form of each line. The
records hold every trap the module docstring argues about: marks after a
word (NFC composes them), decomposed letters, singletons (U+212A), members
re folds to ASCII (``ſ``, ``ı``, ``İ``), composition exclusions, Hangul
jamo, words glued to non-ASCII letters (for ``\\b``), invalid UTF-8 and
records with a newline inside. Without a C compiler the extension is not
built and these tests are skipped with that reason.
"""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import glued_text, nfc
from optmem.recall import nfcspell, scancount, search
from optmem.recall.pattern import line_of
from optmem.store.memory import LOG_RECORD, encode_memory

pytestmark = pytest.mark.skipif(
    not scancount.available(),
    reason="optmem.recall._scan is not built (no C compiler at install): recall counts with fastcount")

WORDS = [
    "deploy", "Deploy", "DEPLOY", "deployment", "redeploy", "deploy_x", "rollback", "release",
    "zürich", "ZÜRICH", "zu\u0308rich", "Zu\u0308rich", "zurich", "café", "cafe\u0301",
    "東京", "東京都", "日本語", "\uf900", "\u8c48", "Москва", "σοφία", "ΣΟΦΊΑ", "ς",
    "ſtyle", "ısı", "İstanbul", "I\u0307stanbul", "\u212aelvin", "kelvin", "Å", "\u212b",
    "\u0958", "\u0915\u093c", "한국", "\u1112\u1161\u11ab", "\u1100\u1161", "ạ", "\u00c0\u0323",
    "a\u0323\u0300", "2024-05-01", "v2", "x", "ab", "bcd", "abcd", "ý", "y\u0301",
]
GLUE = [" ", " ", " ", "", "", "-", "é", "→", "’", "—", "_", "9", "\u0301", "\u0308",
        "\u0323", "\u0307", "\u11ab", "\u3099", "\u200d", "\ufe0f"]


def definition(recs: list, pattern: str) -> int:
    rx = re.compile(nfc(pattern), re.IGNORECASE)
    return sum(1 for r in recs if rx.search(nfc(line_of(r))))


def whole(recs: list) -> bool:
    """Every record ends in its only newline (what ``_scan`` accepts)."""
    return all(r.endswith(b"\n") and r.count(b"\n") == 1 for r in recs)


@st.composite
def records(draw):
    """320-byte records: memories (some in NFD), a few damaged ones."""
    n = draw(st.integers(1, 30))
    out = []
    for i in range(n):
        kind = draw(st.sampled_from(["memory"] * 7 + ["nfd", "bytes", "newline"]))
        text = glued_text(draw, WORDS, GLUE, 7, nfd=kind == "nfd")
        if kind == "memory" or kind == "nfd":
            out.append(encode_memory(i, "2024-05-01", text))
            continue
        body = f"#{i} 2024-05-01 {text}".encode("utf-8")
        junk = b"\n" if kind == "newline" else draw(st.binary(min_size=1, max_size=6))
        at = draw(st.integers(0, len(body)))
        body = (body[:at] + junk + body[at:])[:LOG_RECORD - 1]
        out.append(body + b" " * (LOG_RECORD - 1 - len(body)) + b"\n")
    return out


def patterns():
    word = st.sampled_from(WORDS + ["k", "s", "i", "y", "ü", "Ü", "é", "ạ", "東", "2024", "-0"])
    typed = st.tuples(word, st.sampled_from(["keep", "upper", "lower", "nfd"])).map(
        lambda t: {"keep": t[0], "upper": t[0].upper(), "lower": t[0].lower(),
                   "nfd": unicodedata.normalize("NFD", t[0])}[t[1]])
    edge = st.sampled_from(["\\b", ""])
    alternative = st.tuples(edge, typed, edge).map(lambda t: t[0] + re.escape(t[1]) + t[2])
    return st.one_of(
        st.lists(alternative, min_size=1, max_size=3).map("|".join),
        st.sampled_from(["\\b(ab|bcd)", "\\b(?:deploy|rollback)\\b", "v[12]", "[ab]c",
                         "\\bdeploy|rollback\\b", "deploy(ment)?", "ab|abcd"]))


def counter(pattern: str):
    pattern = nfc(pattern)
    return scancount.counter_for(pattern, search.case_class,
                                 re.compile(pattern, re.IGNORECASE).search)


@settings(max_examples=1500, deadline=None)
@given(recs=records(), pattern=patterns(), method=st.sampled_from([0, 1, 2]))
def test_a_chunk_count_is_the_definition(recs, pattern, method):
    """The count of a chunk is recall's definition, whichever way ``_scan``
    looks for the spellings; None only when a record does not end in its
    only newline."""
    scanner = counter(pattern)
    if scanner is None:
        return
    got = scanner.count(b"".join(recs), len(recs), method)
    if got is None:
        assert not whole(recs), pattern
    else:
        assert got == definition(recs, pattern), pattern


@pytest.mark.parametrize("pattern, text, matches", [
    ("deploy", "we deploy\u0301 it", False),        # NFC makes deploý
    ("deploy", "we deploy\u0323 it", False),        # NFC makes deploỵ
    ("deploy", "we deploy\u0334 it", True),         # a mark with no composite: still deploy
    ("deploy", "deploy’s fine", True),
    ("zürich", "in Zu\u0308rich today", True),       # decomposed ü
    ("zürich", "in Zu\u0308\u0301rich", False),
    ("ạ", "\u00c0\u0323", True),                     # À + dot below: ạ + grave
    ("kelvin", "\u212aelvin", True),                 # KELVIN SIGN
    ("style", "ſtyle", True),                        # long s, re folds it to s
    ("isi", "ısı", True),                            # dotless i, re folds it to i
    ("istanbul", "I\u0307stanbul", True),            # I + dot: İ, which re folds to i
    ("\u0915", "\u0958", True),                      # a composition exclusion
    ("\u8c48", "\uf900", True),                      # a CJK compatibility ideograph
    ("\ud55c", "\u1112\u1161\u11ab", True),          # 한 from its jamo
    ("\ud558", "\u1112\u1161\u11ab", False),         # 하 + ᆫ composes to 한
    ("\\bdeploy\\b", "édeploy", False),
    ("\\bdeploy\\b", "é deploy", True),
    ("\\bdeploy\\b", "deploy9", False),
    ("\\b(ab|bcd)", "abcd", True),
    ("\\b(ab|bcd)", "xabcd", False),
    ("\\bbcd", "a\u0301bcd", False),
    ("東京", "東京都", True),
    ("東京", "東京\u3099", True),                    # a mark that composes with nothing here
])
def test_traps(pattern, text, matches):
    recs = [encode_memory(0, "2024-05-01", "filler"), encode_memory(1, "2024-05-01", text)]
    assert definition(recs, pattern) == 1 if matches else definition(recs, pattern) == 0
    scanner = counter(pattern)
    assert scanner is not None, pattern
    for method in (0, 1, 2):
        assert scanner.count(b"".join(recs), 2, method) == (1 if matches else 0)


def test_a_record_with_a_newline_inside_is_left_to_the_caller():
    good = encode_memory(0, "2024-05-01", "deploy one")
    bad = good[:20] + b"\n" + good[21:]
    scanner = counter("deploy")
    assert scanner.count(good + good, 2) == 2
    assert scanner.count(good + bad, 2) is None
    assert scanner.count(good + good[:-1] + b" ", 2) is None


def test_patterns_it_does_not_count():
    for pattern in ["deploy.{2}failed", "\\d+", "\u0301", "(?-i:Deploy)", "(?a)deploy",
                    "deploy ", "\\Bdeploy", "\\b-x", "(x|y){7}"]:
        assert counter(pattern) is None, pattern


def test_the_extension_checks_its_arguments():
    from optmem.recall import _scan
    table = nfcspell.composer_table()
    rec = encode_memory(0, "2024-05-01", "deploy")
    assert _scan.count(memoryview(rec), LOG_RECORD, [(b"deploy", 0)], True, table, []) == (1, [])
    assert _scan.count(rec[:-1], LOG_RECORD, [(b"deploy", 0)], True, table, []) is None
    assert _scan.count(b"", LOG_RECORD, [(b"deploy", 0)], True, table, []) == (0, [])
    for args in [(rec, 1, [(b"x", 0)], True, table, []),
                 (rec, LOG_RECORD, [], True, table, []),
                 (rec, LOG_RECORD, [(b"", 0)], True, table, []),
                 (rec, LOG_RECORD, [(b"a\nb", 0)], True, table, []),
                 (rec, LOG_RECORD, [(b"x" * 256, 0)], True, table, []),
                 (rec, LOG_RECORD, [(b"x", 0)] * 65, True, table, []),
                 (rec, LOG_RECORD, [(b"x", 0)], True, table[:-1], []),
                 (rec, LOG_RECORD, [(b"x", 0)], True, table, [(b"", 0)]),
                 (rec, LOG_RECORD, [(b"x", 0)], True, table, [(b"y", 3)]),
                 (rec, LOG_RECORD, [(b"x", 0)], True, table, [(b"y", 0)] * 257),
                 (rec, LOG_RECORD, [(b"x", 0)], True, table, [], 3)]:
        with pytest.raises(ValueError):
            _scan.count(*args)
    for args in [(rec, LOG_RECORD, [("deploy", 0)], True, table, []),
                 (rec, LOG_RECORD, [[b"deploy", 0]], True, table, []),
                 (rec, LOG_RECORD, [b"deploy"], True, table, []),
                 (rec, LOG_RECORD, [(b"deploy", 0)], True, table, [[b"x", 0]]),
                 (rec, LOG_RECORD, [(b"deploy", 0)], True, table, None)]:
        with pytest.raises(TypeError):
            _scan.count(*args)


def test_needles_that_overlap_themselves_give_up_and_recall_still_counts(tmp_path):
    """A set of long needles that overlap themselves would cost their total
    length at every byte: ``_scan`` gives up (False) once a chunk costs over
    16 comparisons a byte, the counter stops being used, and recall counts
    those chunks another way with the same answer."""
    from test_fastcount import build, small_chunks

    from optmem.recall import _scan
    pattern = "\\b" + "a" * 200 + "[abcdefghijklmnopqrstuvwxyz0123456789_]\\b"
    recs = [encode_memory(i, "2024-05-01", "a" * 280) for i in range(40)]
    scanner = counter(pattern)
    assert len(scanner.needles) >= 37  # and the ſ, ı, İ spellings
    assert _scan.count(b"".join(recs), LOG_RECORD, scanner.needles, scanner.fold,
                       nfcspell.composer_table(), scanner.exceptions) is False
    assert scanner.count(b"".join(recs), len(recs)) is None and not scanner.usable
    store = build(tmp_path, recs)
    with small_chunks(8, False, True):
        assert search.recall(store, pattern, 0) == ([], 0, False)
        assert search.recall(store, "a" * 200, 0) == ([], 40, True)

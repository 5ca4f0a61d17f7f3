"""Literals joined by ``.*``, ``.+`` or ``[^\\n]*`` (a chain) are decided in
one compiled pass (``scancount.chain_for`` over ``_scan.chain``) with the
answers of recall's definition: Python ``re``, IGNORECASE, the NFC pattern
searched in the NFC form of each line.

The records are written unnormalised (NFD text, a mark right after or
before each literal, singletons such as U+212A, members ``re`` folds to
ASCII), with the literals overlapping each other (``abc.*cde`` on
``abcde``) and out of order, and with damaged bytes. Without a C compiler
the extension is not built and the compiled-pass tests are skipped.
"""

from __future__ import annotations

import os
import re
import tempfile
import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import glued_text
from optmem.recall import scancount, search
from optmem.recall.pattern import line_of
from optmem.store.memory import LOG_RECORD, Store, displayable, encode_memory

built = pytest.mark.skipif(
    not scancount.available(),
    reason="optmem.recall._scan is not built (no C compiler at install): chains are matched by re")

#: Literals of the chains, and near misses of them: overlapping pairs
#: (abc / cde / bcd), case pairs, composed and decomposed forms.
LITERALS = ["café", "cafe\u0301", "server", "Server", "decided", "budget 99", "abc", "cde",
            "bcd", "zürich", "zu\u0308rich", "ſtyle", "style", "kelvin", "\u212aelvin", "東京",
            "ısı", "deploy", "x", "ab"]
GLUE = [" ", " ", "", "", "-", "é", "\u0301", "\u0308", "\u0323", "\u0307", "\u3099", "_", "9",
        "→", "\u11ab", "\u200d"]


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def definition(recs: list, pattern: str) -> list:
    """The indexes of the records whose line matches (docs/recall.md)."""
    rx = re.compile(nfc(pattern), re.IGNORECASE)
    return [i for i, r in enumerate(recs) if rx.search(nfc(line_of(r)))]


@st.composite
def records(draw):
    """320-byte records: words and chain literals glued by marks, some
    lines in NFD, some with stray bytes."""
    n = draw(st.integers(1, 25))
    out = []
    for i in range(n):
        kind = draw(st.sampled_from(["memory"] * 6 + ["nfd", "bytes"]))
        text = glued_text(draw, LITERALS, GLUE, 8, nfd=kind == "nfd")
        if kind != "bytes":
            out.append(encode_memory(i, "2024-05-01", text))
            continue
        body = f"#{i} 2024-05-01 {text}".encode("utf-8")
        junk = draw(st.binary(min_size=1, max_size=4).filter(lambda b: b"\n" not in b))
        at = draw(st.integers(0, len(body)))
        body = (body[:at] + junk + body[at:])[:LOG_RECORD - 1]
        out.append(body + b" " * (LOG_RECORD - 1 - len(body)) + b"\n")
    return out


def chains():
    """Chains of two or three literals (or sets of them), each typed as is,
    in upper case or in NFD, with or without ``\\b`` at its edges."""
    typed = st.tuples(st.sampled_from(LITERALS), st.sampled_from(["keep", "upper", "nfd"])).map(
        lambda t: {"keep": t[0], "upper": t[0].upper(),
                   "nfd": unicodedata.normalize("NFD", t[0])}[t[1]])
    part = st.one_of(
        st.tuples(st.sampled_from(["\\b", ""]), typed, st.sampled_from(["\\b", ""])).map(
            lambda t: t[0] + re.escape(t[1]) + t[2]),
        st.lists(typed, min_size=2, max_size=3).map(
            lambda ws: "(?:" + "|".join(map(re.escape, ws)) + ")"))
    join = st.sampled_from([".*", ".+", "[^\\n]*", ".*?", "[^\\n]+"])
    return st.builds(lambda a, j1, b, more: a + j1 + b + "".join(j + c for j, c in more),
                     part, join, part, st.lists(st.tuples(join, part), max_size=1))


def scanner_for(pattern: str):
    pattern = nfc(pattern)
    return scancount.counter_for(pattern, search.case_class,
                                 re.compile(pattern, re.IGNORECASE).search)


@built
@settings(max_examples=600, deadline=None)
@given(recs=records(), pattern=chains())
def test_a_chain_count_and_its_lines_are_the_definition(recs, pattern):
    """The count and the matching lines of a chunk are the definition's,
    for every chain the compiled pass takes."""
    scanner = scanner_for(pattern)
    if scanner is None:
        return
    assert scanner.stages is not None, pattern
    data = b"".join(recs)
    want = definition(recs, pattern)
    assert scanner.count(data, len(recs)) == len(want), pattern
    assert scanner.lines(data, len(recs)) == [line_of(recs[i]) for i in want], pattern


@built
@pytest.mark.parametrize("pattern, text, matches", [
    ("café.*server", "the café server", True),
    ("café.*server", "the server café", False),
    ("café.*server", "the cafe\u0301 SERVER", True),            # decomposed é
    ("café.*server", "the café\u0301 server", True),            # é + another acute: still café
    ("café.+server", "caféserver", False),                      # .+ needs a character
    ("café.*server", "caféserver", True),
    ("café.+server", "café\u0301server", True),                 # the mark is the character between
    ("café.*server", "cafe\u0323\u0301 server", False),          # NFC: ẹ́, no café
    ("abc.*cde", "abcde", False),                               # overlapping literals
    ("abc.*cde", "abcdecde", True),
    ("abc.*bcd.*cde", "abcbcdcde", True),
    ("abc.*bcd.*cde", "abcdcde", False),
    ("\\bdecided\\b.*budget 99", "undecided budget 99", False),
    ("\\bdecided\\b.*budget 99", "undecided, decided: budget 99", True),
    ("decided.*budget 99", "decided budget 990", True),
    ("decided.*budget 99\\b", "decided budget 990", False),
    ("style.*kelvin", "ſtyle \u212aelvin", True),                # re folds ſ; NFC makes K
    ("zürich.*東京", "Zu\u0308rich → 東京", True),
    ("zürich.*東京", "Zu\u0308\u0323rich → 東京", False),
    ("(?:deploy|rollback).*failed", "rollback then failed", True),
    ("(?:deploy|rollback).*failed", "failed rollback", False),
])
def test_traps(pattern, text, matches):
    recs = [encode_memory(0, "2024-05-01", "filler"), encode_memory(1, "2024-05-01", text)]
    assert definition(recs, pattern) == ([1] if matches else [])
    scanner = scanner_for(pattern)
    assert scanner is not None and scanner.stages is not None, pattern
    assert scanner.count(b"".join(recs), 2) == (1 if matches else 0)


def test_what_a_chain_is():
    """``chain_parts`` reads literals joined by ``.*``-like joins; a ``.*``
    at either end changes nothing; anything else is not a chain."""
    def bodies(pattern):
        parts = scancount.chain_parts(pattern)
        return parts and [([b for _, b, _ in found], gap) for found, gap in parts]
    assert bodies("café.*server") == [(["café"], 0), (["server"], 0)]
    assert bodies("a.+b[^\\n]*c") == [(["a"], 0), (["b"], 1), (["c"], 0)]
    assert bodies(".*a.*?b.*") == [(["a"], 0), (["b"], 0)]
    assert bodies("a.*.+b") == [(["a"], 0), (["b"], 1)]
    assert bodies("(?:a|b).*c") == [(["a", "b"], 0), (["c"], 0)]
    for pattern in ["abc", "a.+.+b", ".+a.*b", "a.*b.+", "a.{2,}b", "a\\d*b", "(?s)a.*(?-i:b)",
                    "(?a)a.*b", "a.*[^x]*b", "(a.*b)"]:
        assert scancount.chain_parts(pattern) is None, pattern


@built
def test_the_chain_extension_checks_its_arguments():
    from optmem.recall import _scan, nfcspell
    table = nfcspell.composer_table()
    rec = encode_memory(0, "2024-05-01", "café server")
    stages = [([("café".encode(), 0)], 0), ([(b"server", 0)], 0)]
    assert _scan.chain(rec, LOG_RECORD, stages, True, table, []) == (1, [])
    assert _scan.chain(rec, LOG_RECORD, stages, True, table, [], True) == ([0], [])
    assert _scan.chain(rec[:-1], LOG_RECORD, stages, True, table, []) is None
    for bad in [[], [([(b"x", 0)], 2)], [([], 0)], [([(b"a\nb", 0)], 0)],
                [([(b"x", 0)], 0)] * 9]:
        with pytest.raises(ValueError):
            _scan.chain(rec, LOG_RECORD, bad, True, table, [])
    with pytest.raises(TypeError):
        _scan.chain(rec, LOG_RECORD, [[(b"x", 0)]], True, table, [])


# -- the whole recall, on every engine ---------------------------------------

@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(recs=records(), pattern=chains(), limit=st.sampled_from([0, 60, 10 ** 6]),
       chunk=st.sampled_from([1, 3, 64]), re2=st.booleans(), scan=st.booleans())
def test_recall_of_a_chain_is_the_definition(tmp_path, recs, pattern, limit, chunk, re2, scan):
    """``search.recall`` on a chain, with RE2 on or off and the compiled
    counter on or off, prints the newest matching lines that fit and counts
    every match as the definition does."""
    root = os.path.join(tempfile.mkdtemp(dir=tmp_path), "mem")
    store, _ = Store.init(root)
    with open(store.log_path, "ab") as f:
        f.write(b"".join(recs))
    want = [displayable(line_of(recs[i])) for i in definition(recs, pattern)]
    kept, size = [], 0
    for line in reversed(want):
        size += len(line.encode("utf-8")) + 1
        if size > limit:
            break
        kept.append(line)
    kept.reverse()
    saved = (search.CHUNK_RECORDS, search.USE_RE2, search.TIME_BOUND, scancount._scan)
    search.CHUNK_RECORDS, search.USE_RE2, search.TIME_BOUND = chunk, re2, 60.0
    if not scan:
        scancount._scan = None
    try:
        got = search.recall(store, pattern, limit)
    finally:
        search.CHUNK_RECORDS, search.USE_RE2, search.TIME_BOUND, scancount._scan = saved
    assert got == (kept, len(want), len(want) > len(kept)), pattern

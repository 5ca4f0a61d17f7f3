"""Raw spellings NFC turns into a character (``optmem.recall.nfcspell``), and the
recall prefilter that uses them to skip records without normalising them.

Records here are written as another tool may write them, not in NFC: a
letter and its combining marks, partial compositions, singletons (U+212A
KELVIN SIGN, U+212B ANGSTROM SIGN, U+037E GREEK QUESTION MARK, Greek oxia
letters, CJK compatibility ideographs), Hangul as conjoining jamo. Recall's
answer must still be the per-line definition: the NFC pattern on each
line's NFC form.
"""

from __future__ import annotations

import itertools
import random
import re
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optmem.recall import gen_nfc_tables, nfc_tables, nfcspell, search
from optmem.recall.pattern import line_of
from optmem.store.memory import Store, encode_memory

KNOWN = unicodedata.unidata_version in nfcspell.VERIFIED


def test_the_singleton_table_is_this_pythons_unicode():
    """On a verified Unicode version the table is exactly what
    ``unicodedata`` says; on any other, ``spellings`` gives nothing (the
    caller then normalises records instead), so the table is never trusted
    where it was not checked."""
    if KNOWN:
        table = {src: target for target, sources in nfcspell._targets().items()
                 for src in sources}
        assert table == gen_nfc_tables.scan_singletons()
        assert nfcspell.spellings("a") == (("a",), ())
    else:
        assert nfcspell.spellings("a") is None


def _equivalents(ch: str) -> list:
    """Raw texts canonically equivalent to ``ch`` (NFC of each is ``ch``):
    NFD, each partial composition followed by the marks it lacks, the
    singletons that map to ``ch`` or to a partial, marks reordered where
    their classes differ."""
    nfd = unicodedata.normalize("NFD", ch)
    out = {ch, nfd}
    out.update(nfcspell.singleton_sources(ch))
    head, rest = nfd[0], nfd[1:]
    for size in range(len(rest) + 1):
        for picked in itertools.combinations(range(len(rest)), size):
            part = unicodedata.normalize("NFC", head + "".join(rest[i] for i in picked))
            left = "".join(rest[i] for i in range(len(rest)) if i not in picked)
            for start in {part, *nfcspell.singleton_sources(part)}:
                for order in itertools.permutations(left):
                    text = start + "".join(order)
                    if unicodedata.normalize("NFC", text) == ch:
                        out.add(text)
    return sorted(out)


#: Characters NFC can make from other raw text, and plain ones around them.
TRICKY = ("ü Ü İ K k Å å ǘ Ǘ ṩ ệ ά Ω ; ` 각 강 豈 東 京 é e u i s ſ"
          " ä ö ñ ç ő ű ş ţ ȧ ḍ").split()


def test_every_equivalent_of_a_tricky_character_is_spelled():
    """``spellings`` covers each raw text whose NFC is the character: it is
    a ``whole`` spelling, or a ``head`` followed by non-ASCII characters."""
    for ch in TRICKY:
        whole, heads = nfcspell.spellings(ch)
        for raw in _equivalents(ch):
            assert raw in whole or any(
                raw.startswith(h) and len(raw) > len(h) and not raw[len(h):].isascii()
                and all(not c.isascii() for c in raw[len(h):]) for h in heads), (ch, raw)


def test_marks_and_jamo_have_no_spellings():
    for ch in ("\u0301", "\u0308", "\u1161", "\u11a8", "\u0958", "\u212a", "\u037e"):
        assert nfcspell.spellings(ch) is None, hex(ord(ch))


def _raw(word: str, rng: random.Random) -> str:
    """``word`` with each character spelled by one of its equivalents."""
    return "".join(rng.choice(_equivalents(ch)) if ch in TRICKY else ch for ch in word)


WORDS = ["Zürich", "ZÜRICH", "zurich", "İstanbul", "istanbul", "Kelvin", "kelvin",
         "Ångström", "angstrom", "ǘber", "ṩhip", "việt", "άλφα", "Ωmega", "a;b", "`tick`",
         "각도", "강", "豈東京", "東京", "release", "ſtyle", "mäñçőűşţ", "ȧḍ"]


def _store(tmp_path, seed: int, size: int) -> Store:
    rng = random.Random(seed)
    store, _ = Store.init(str(tmp_path / f"mem{seed}"))
    records = []
    for i in range(size):
        words = [_raw(w, rng) if rng.random() < 0.7 else w for w in rng.choices(WORDS, k=rng.randint(1, 6))]
        text = " ".join(words)
        records.append(encode_memory(i, "2024-01-01", text))  # bytes as typed, not NFC
    with open(store.log_path, "ab") as f:
        f.write(b"".join(records))
    return store


def _want(store, pattern: str) -> int:
    rx = re.compile(unicodedata.normalize("NFC", pattern), re.IGNORECASE)
    with open(store.log_path, "rb") as f:
        data = f.read()
    lines = [line_of(data[k:k + 320]) for k in range(0, len(data), 320)]
    return sum(1 for line in lines if rx.search(unicodedata.normalize("NFC", line)))


ENGINES = [False] + ([True] if search.re2_module() is not None else [])


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10 ** 6), word=st.sampled_from(WORDS + ["ü", "İ", "k", "東", "각"]),
       chunk=st.sampled_from([1, 7, 64]), limit=st.sampled_from([1, 10 ** 6]),
       re2=st.sampled_from(ENGINES))
def test_recall_counts_raw_spellings_as_their_nfc(tmp_path_factory, seed, word, chunk, limit, re2):
    """Records written unnormalised are counted exactly as the per-line
    NFC definition says, whether recall prints them or only counts them,
    in chunks whose prefilter names few records (``search._named``: no
    chunk-wide NFC test) and in chunks where it names many, with RE2 and
    without it."""
    store = _store(tmp_path_factory.mktemp("raw"), seed, 120)
    saved = search.CHUNK_RECORDS, search.USE_RE2, search.FEW_CANDIDATES
    try:
        search.CHUNK_RECORDS, search.USE_RE2 = chunk, re2
        for few in (0, 3, 256):
            search.FEW_CANDIDATES = few
            for pattern in (word, unicodedata.normalize("NFD", word), word.upper()):
                _, total, _ = search.recall(store, pattern, limit)
                assert total == _want(store, pattern), (pattern, few)
    finally:
        search.CHUNK_RECORDS, search.USE_RE2, search.FEW_CANDIDATES = saved


def test_the_prefilter_is_complete_only_when_every_member_is_spelled():
    assert search._re2_syntax("zürich")[1]
    assert search._re2_syntax("東京")[1]
    assert not search._re2_syntax("x\u0301")[1]  # a mark: NFC may move it
    # Without RE2: a record holding U+0307 may hold İ (I + U+0307) in NFC.
    assert "\u0307".encode() in search._FindPrefilter(["zurich"]).folds
    assert search._FindPrefilter(["zurich"]).complete


def test_the_starter_table_is_this_pythons_unicode():
    if KNOWN:
        assert nfcspell.BY_STARTER == gen_nfc_tables.scan_starters()


def _one(tmp_path, raw: bytes):
    store, _ = Store.init(str(tmp_path / "mem"))
    head = b"#0 2024-06-01 " + raw
    with open(store.log_path, "ab") as f:
        f.write(head + b" " * (319 - len(head)) + b"\n")
    return store


@pytest.mark.parametrize("raw, pattern", [
    ("\u0958", "\u0915"),            # NFC: U+0915 U+093C (a composition exclusion)
    ("\ufb2a", "\u05e9"),            # Hebrew shin with shin dot
    ("o \u0958", "o \u0915"),
    ("\u00c0\u0323", "\u1ea1"),      # NFC: U+1EA0 U+0300 (reordered, the grave left over)
    ("\u1ea7\u0323", "\u1ead"),
    ("\u0108\u0327", "\u00e7"),
    ("I\u0334\u0307", "\u0130"),
])
@pytest.mark.parametrize("re2", ENGINES)
def test_raw_text_nfc_reorders_or_splits_is_found(tmp_path, raw, pattern, re2):
    """Found by a breaker: NFC of a composition exclusion starts with a
    character that is not its own raw spelling, and reordering marks can
    turn one composite into another. Recall still counts the definition."""
    store = _one(tmp_path, raw.encode("utf-8"))
    saved = search.USE_RE2, search.CHUNK_RECORDS
    try:
        search.USE_RE2 = re2
        for chunk in (1, 4096):
            search.CHUNK_RECORDS = chunk
            assert search.recall(store, pattern, 10 ** 6)[1] == _want(store, pattern) == 1
    finally:
        search.USE_RE2, search.CHUNK_RECORDS = saved


def test_the_composer_table_marks_every_character_that_is_not_inert():
    """``composer_table`` (read by ``optmem.recall._scan`` after a literal) marks
    the first two UTF-8 bytes of every code point that is not NFC-inert on
    this Python: only those can change the character before them. On an
    unverified Unicode version it marks every non-ASCII first byte."""
    table = nfcspell.composer_table()
    assert len(table) == 65536 and not any(table[:0x8000])
    if KNOWN:
        assert all(table[block] for block in gen_nfc_tables.scan_blocks())
        assert not table[0xC3BC]  # ü: what follows zürich's u is not a mark
        assert not table[0xE4BA]  # 京 and its neighbours: CJK composes with nothing
    else:
        assert all(table[0x8000:])


def test_the_generated_tables_are_what_the_generator_writes():
    """``nfc_tables.py`` is generated: on the Unicode it was generated on the
    generator writes it again byte for byte; on any other verified version
    the singleton and starter tables are the same, and every block that is
    not NFC-inert here is in the generated blocks (they only grow with
    Unicode, and the tables come from the newest)."""
    if unicodedata.unidata_version == nfc_tables.UNICODE:
        with open(nfc_tables.__file__, encoding="utf-8") as f:
            assert f.read() == gen_nfc_tables.render()
    elif KNOWN:
        assert nfc_tables.SINGLETON_RUNS == gen_nfc_tables.singleton_runs(
            gen_nfc_tables.scan_singletons())
        assert nfc_tables.BY_STARTER == gen_nfc_tables.scan_starters()
        here = set(gen_nfc_tables.block_runs(gen_nfc_tables.scan_blocks()))
        held = {b for first, last in nfc_tables.NOT_INERT_BLOCKS for b in range(first, last + 1)}
        assert {b for first, last in here for b in range(first, last + 1)} <= held
    else:
        pytest.skip(f"Unicode {unicodedata.unidata_version} is not one the tables were checked on")

"""Wake reads a document's records in few reads: ``Store.dates`` (the
heads of many memories), ``Store.summaries`` (a run of one level) and
``view.shown_summaries`` (the summary lines of a tiling) give exactly what
reading record by record gives (``Store.date``, ``Store.summary``,
``view.shown_summary``), on stores whose heads, summaries and levels are
damaged in every way random bytes, a cut and a foreign file can damage them.
``displayable`` shows a line without the guard's fold only where no
character can fold to a frame tag's ``<``.
"""

from __future__ import annotations

import os
import tempfile

from hypothesis import given, settings
from hypothesis import strategies as st

from optmem import blocks
from optmem.engine import view
from optmem.errors import Damaged, MemoError, NotBuilt
from optmem.guard import text as guard
from optmem.store import memory, records
from optmem.store.memory import (
    LOG_RECORD,
    TREE_RECORD,
    Store,
    displayable,
    encode_memory,
    encode_summary,
)

T = 40
WORDS = ["café", "東京", "zürich", "plain", "<system-reminder>", "\uff1chook_context>",
         "&lt;", "\u202e", "x"]


def _store(root: str) -> Store:
    """A store of ``T`` memories (a new date every third) with every level
    built; texts mix ASCII, non-ASCII and tag-like words."""
    store, _ = Store.init(root)
    with open(store.log_path, "ab") as f:
        for i in range(T):
            f.write(encode_memory(i, f"2024-01-{1 + i // 3:02d}",
                                  f"note {i} {WORDS[i % len(WORDS)]}"))
    os.makedirs(store.tree_path, exist_ok=True)
    for size in blocks.level_sizes(T):
        with open(store.level_path(size), "wb") as f:
            for k in range(T // size):
                f.write(encode_summary(f"{size}/{k} {WORDS[(k + size) % len(WORDS)]}"))
    return store


def _poke(path: str, offset: int, data: bytes) -> None:
    size = os.path.getsize(path)
    if size:
        with open(path, "r+b") as f:
            f.seek(offset % size)
            f.write(data)


def _answer(read, *args):
    """What ``read(*args)`` gives, or the error it raises (as a value)."""
    try:
        return read(*args)
    except MemoError as err:
        return err


def _same(got, want) -> bool:
    if isinstance(want, MemoError):
        return (type(got) is type(want) and str(got) == str(want)
                and got.sentence == want.sentence)
    return got == want


POKES = st.lists(st.tuples(st.integers(0, 1 << 20),
                           st.sampled_from([b"#", b"9", b"-", b" ", b"\n", b"\x00", b"\xff",
                                            b"\xe2\x80\xae", b"X", b"#7 2024-13-01 "])),
                 max_size=8)


@settings(max_examples=120)
@given(pokes=POKES, cut=st.integers(0, 2 * LOG_RECORD),
       ids=st.lists(st.integers(0, T + 2), max_size=30),
       gap=st.sampled_from([0, 1, 2, 16]), span=st.sampled_from([1, 3, 256]))
def test_dates_give_what_date_gives_for_each(pokes, cut, ids, gap, span):
    with tempfile.TemporaryDirectory() as tmp:
        store = _store(os.path.join(tmp, "mem"))
        for offset, data in pokes:
            # Mostly into the heads, where the dates are.
            _poke(store.log_path, offset // LOG_RECORD * LOG_RECORD + offset % 24, data)
        os.truncate(store.log_path, T * LOG_RECORD - cut)
        store.DATES_GAP, store.DATES_SPAN = gap, span
        got = store.dates(ids)
        assert got == {i: store.date(i) for i in ids}
        store.close()


LEVEL_DAMAGE = st.sampled_from(["none", "cut", "link", "folder", "missing"])


def _damage_levels(store: Store, pokes, cut: int, level: int, how: str) -> None:
    sizes = blocks.level_sizes(T)
    for offset, data in pokes:
        _poke(store.level_path(sizes[offset % len(sizes)]), offset, data)
    path = store.level_path(sizes[level % len(sizes)])
    if how == "cut":
        os.truncate(path, max(0, os.path.getsize(path) - cut))
    elif how == "link":  # never read through: Damaged for every block of it
        os.unlink(path)
        os.symlink(store.log_path, path)
    elif how == "folder":
        os.unlink(path)
        os.mkdir(path)
    elif how == "missing":
        os.unlink(path)


@settings(max_examples=120)
@given(pokes=POKES, cut=st.integers(0, 3 * TREE_RECORD), level=st.integers(0, 8),
       how=LEVEL_DAMAGE, first=st.integers(0, T), count=st.integers(0, 12))
def test_summaries_give_what_summary_gives_for_each(pokes, cut, level, how, first, count):
    with tempfile.TemporaryDirectory() as tmp:
        store = _store(os.path.join(tmp, "mem"))
        _damage_levels(store, pokes, cut, level, how)
        for size in blocks.level_sizes(T):
            got = store.summaries(size, first, count)
            assert len(got) == count
            for j, item in enumerate(got):
                lo = (first + j) * size
                want = _answer(store.summary, lo, lo + size)
                assert _same(item, want), (size, first + j, item, want)
        store.close()


@settings(max_examples=120)
@given(pokes=POKES, log_pokes=POKES, cut=st.integers(0, 3 * TREE_RECORD),
       level=st.integers(0, 8), how=LEVEL_DAMAGE, budget=st.integers(1, T))
def test_shown_summaries_are_shown_summary_line_by_line(pokes, log_pokes, cut, level, how,
                                                        budget):
    with tempfile.TemporaryDirectory() as tmp:
        store = _store(os.path.join(tmp, "mem"))
        _damage_levels(store, pokes, cut, level, how)
        for offset, data in log_pokes:
            _poke(store.log_path, offset, data)
        tiling = [b for b in blocks.cover(T, budget) if b[1] - b[0] > 1]
        want_damaged, got_damaged = [], []
        want = []
        try:
            for lo, hi in tiling:
                want.append(view.shown_summary(store, lo, hi, want_damaged))
        except NotBuilt as err:
            want = err
        got = _answer(view.shown_summaries, store, tiling, got_damaged)
        assert _same(got, want)
        assert got_damaged == want_damaged
        store.close()


def test_a_damaged_level_is_each_of_its_blocks_answer(tmp_path):
    store = _store(str(tmp_path / "mem"))
    os.unlink(store.level_path(4))
    os.symlink(store.log_path, store.level_path(4))
    got = store.summaries(4, 2, 3)
    assert [type(e) for e in got] == [Damaged] * 3
    assert str(got[0]) == str(_answer(store.summary, 8, 12))


def test_dates_read_near_records_together(tmp_path, monkeypatch):
    """Heads of nearby records share a read: every block boundary of a
    wake of 40 memories in 3 reads or fewer, not one read per head."""
    store = _store(str(tmp_path / "mem"))
    tiling = blocks.cover(T, 12)
    reads = []
    real = memory.os.pread

    def counting(fd, n, offset):
        reads.append((n, offset))
        return real(fd, n, offset)

    monkeypatch.setattr(memory.os, "pread", counting)
    got = store.dates([i for lo, hi in tiling for i in (lo, hi - 1)])
    assert len(got) > 12 and len(reads) <= 3, reads


# -- the display's shortcut --------------------------------------------------


def test_the_characters_that_fold_to_lt_are_the_stores_table():
    """``LT_FOLDS`` is every non-ASCII character the guard's fold turns
    into ``<`` under this Python's Unicode (derived again from the rule)."""
    check = guard._folds_to_lt.__wrapped__  # uncached: every code point once
    found = {chr(cp) for cp in range(0x80, 0x110000) if check(chr(cp))}
    assert found == memory.LT_FOLDS


def test_the_lead_bytes_are_those_of_the_characters_looked_for():
    assert records._LOOK_LEADS == bytes(sorted({c.encode("utf-8")[0] for c in records._LOOK}))


def rule_displayable(text: str) -> str:
    """``displayable`` without its shortcut: the guard's fold on every
    printable line that holds no suspect character."""
    if text.isprintable() and (text.isascii() or records._SUSPECT.isdisjoint(text)):
        chars = list(text)
        for i in guard.frame_tags(text):
            chars[i] = "\ufffd"
        return "".join(chars)
    return guard.shown(text)


PIECES = sorted(memory.LT_FOLDS) + ["<", ">", "&", "&lt;", "&#60", "system-reminder",
                                    "hook_context", "café", "東京", "\u034f", "\ufe0f",
                                    "\u200b", "\u202e", "\t", "\x1b", " ", "a", "\u3164",
                                    "\uff1e", "\u2044"]


@settings(max_examples=800)
@given(st.lists(st.sampled_from(PIECES), max_size=10))
def test_the_shortcut_shows_what_the_rule_shows(parts):
    text = "".join(parts)
    assert displayable(text) == rule_displayable(text)


@settings(max_examples=600)
@given(st.lists(st.sampled_from(["a", " ", "\t", "\u3000", "\xa0", "é", "東", "\x0b", "\r",
                                 "\x1c", "\x85", "\u2028", "#", "\n"]), max_size=30),
       st.sampled_from([LOG_RECORD, TREE_RECORD]))
def test_a_records_text_is_its_line_without_the_padding_spaces(chars, width):
    """``check_record`` cuts the padding by bytes before decoding: the text
    is the decoded line with its trailing spaces, and only spaces, cut."""
    body = "".join(chars).encode("utf-8")[:width - 1]
    record = body.ljust(width - 1, b" ") + b"\n"
    why, text = memory.check_record(record, width)
    if why is None:
        assert text == record[:-1].decode("utf-8").rstrip(" ")

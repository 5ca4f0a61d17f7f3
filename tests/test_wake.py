"""``memo wake``: ``--max-bytes`` picks the most detailed document that fits
and ends awake, or says in one line why it cannot; a wake waiting for a
repair still shows the memory.
"""

from __future__ import annotations

import re

import pytest

from conftest import set_config, write_import
from helpers import AWAKE, LOG, answer_with, id_lines, imported, is_block, ok, poke, refused
from optmem.engine.view import wake_budget


def wake_max(memo, n):
    return memo("wake", "--max-bytes", str(n))


@pytest.mark.parametrize("n", [2500, 3000, 5000, 10000, 20000, 100000])
def test_wake_max_bytes_fits_and_ends_awake(memo, store300, n):
    result = wake_max(memo, n)
    out = ok(result)
    assert len(result.stdout_bytes) <= n
    assert out.endswith(AWAKE + "\n")
    assert "Run: memo sleep" not in out
    for lo, hi, _ in id_lines(out.splitlines()):
        assert is_block(lo, hi)


def test_wake_max_bytes_is_the_whole_document_when_it_fits(memo, store300):
    ok(memo("config", "PART_CHARS=1000000"))
    doc = memo("wake")
    ok(doc)
    result = wake_max(memo, 1000000)
    assert ok(result) == doc.stdout


@pytest.mark.parametrize("wake_lines", [1, 5, 40, 256])
def test_wake_max_bytes_takes_a_document_of_exactly_n_bytes(memo, store300, wake_lines):
    """N is the size in all, final newline included: the document that is
    exactly N bytes fits."""
    ok(memo("config", f"WAKE_LINES={wake_lines}", "PART_CHARS=1000000",
            "PART_LINES=1000000"))
    doc = memo("wake")
    ok(doc)
    n = len(doc.stdout_bytes)
    result = wake_max(memo, n)
    assert result.exit_code == 0, (n, result.stderr)
    assert result.stdout_bytes == doc.stdout_bytes


def test_a_larger_max_bytes_never_gives_fewer_lines(memo, store300):
    previous, seen_ok = 0, False
    for n in range(1000, 25000, 97):
        result = wake_max(memo, n)
        if result.exit_code:
            assert not seen_ok, f"--max-bytes {n} refused after a smaller N worked"
            refused(result)
            continue
        seen_ok = True
        assert len(result.stdout_bytes) <= n
        count = len(result.stdout.splitlines())
        assert count >= previous, n
        previous = count
    assert seen_ok


def test_wake_max_bytes_picks_the_most_detailed_document_that_fits(memo, inited, tmp_path):
    """Summary lengths vary by level, so a document of more lines can be
    smaller than one of fewer. For every line budget b up to WAKE_LINES,
    the b-line document (as ``memo wake`` prints it) fits in its own size
    plus one byte, so --max-bytes of that size gives at least as many lines.
    (The exact-size case is the test above.)"""
    imported(memo, tmp_path, 300)
    answer_with(memo, lambda lo, hi: f"S{hi - lo} " + ("x" * 270 if hi - lo == 256 else "x"))
    worse = []
    for b in range(1, 41):
        if not wake_budget(300, b)[1]:
            continue  # below popcount(300) + 1 lines wake drops its intro; the hook never does
        ok(memo("config", f"WAKE_LINES={b}", "PART_CHARS=1000000", "PART_LINES=1000000"))
        doc = memo("wake")
        ok(doc)
        ok(memo("config", "WAKE_LINES=40"))
        n = len(doc.stdout_bytes) + 1
        result = wake_max(memo, n)
        got = len(result.stdout.splitlines()) if result.exit_code == 0 else 0
        if got < len(doc.stdout.splitlines()):
            worse.append((b, n, len(doc.stdout.splitlines()), got,
                          result.stderr.strip()[:60]))
    assert worse == [], ("(budget, --max-bytes, lines that fit, lines given, error)", worse)


def test_wake_max_bytes_with_pending_work_is_not_refused(memo, store300):
    ok(memo("note", "memory three hundred"))
    ok(memo("note", "memory three hundred and one"))
    plain = ok(memo("wake"))  # plain wake hands the work over after the document
    assert AWAKE + "\n\nCompress memories #300-301 " in plain
    result = wake_max(memo, 5000)
    out = ok(result)
    assert len(result.stdout_bytes) <= 5000
    lines = out.splitlines()
    # As in plain wake: the document ends ``You are awake.``, the hand-over
    # follows it after a blank line, its order last.
    assert lines[-4:-2] == [AWAKE, ""] and lines[-1] == "Run: memo sleep"
    assert lines.index("Run: memo sleep") == len(lines) - 1


@pytest.mark.parametrize("n", [4000, 8000, 12000])
def test_wake_max_bytes_after_a_fresh_import_is_not_refused(memo, pending300, n):
    """All 296 compressions pending (a bootstrap import, then a startup
    hook): wake --max-bytes still prints a document, never refused."""
    result = wake_max(memo, n)
    out = ok(result)
    assert len(result.stdout_bytes) <= n
    lines = out.splitlines()
    assert lines[-4:-2] == [AWAKE, ""] and lines[-1] == "Run: memo sleep"
    # every id it shows, summarised or not, opens with zoom
    ids = id_lines(lines)
    assert ids
    for lo, hi, _ in ids:
        assert is_block(lo, hi) and hi <= 300
        ok(memo("zoom", str(lo) if hi - lo == 1 else f"{lo}-{hi - 1}"))


def test_wake_max_bytes_on_a_big_fresh_import_is_not_refused(memo, inited, tmp_path):
    path = tmp_path / "big.txt"
    path.write_text("".join(f"2024-01-01 memory number {i}\n" for i in range(10000)))
    ok(memo("import", path))
    result = wake_max(memo, 100000)
    out = ok(result)
    assert len(result.stdout_bytes) <= 100000
    assert out.splitlines()[-4] == AWAKE and out.splitlines()[-1] == "Run: memo sleep"


def test_wake_max_bytes_on_an_empty_store(memo, inited):
    result = wake_max(memo, 500)
    out = ok(result)
    assert out.endswith(AWAKE + "\n") and len(result.stdout_bytes) <= 500


@pytest.mark.parametrize("n", [0, 1, 10, 100, 500])
def test_wake_max_bytes_too_small_is_one_clear_line(memo, store300, n):
    line = refused(wake_max(memo, n))
    assert "--max-bytes" in line and str(n) in line
    # a suggested size, if any, is larger and works
    for m in re.findall(r"--max-bytes (\d+)", line):
        if int(m) != n:
            assert int(m) > n
            ok(wake_max(memo, m))


    for n in (100, 4000):
        result = wake_max(memo, n)
        if result.exit_code == 0:
            continue
        line = refused(result)
        for m in re.findall(r"--max-bytes (\d+)", line):
            if int(m) != n:
                assert int(m) > n, line
                assert wake_max(memo, m).exit_code == 0, line


@pytest.mark.parametrize("n", ["abc", "-5", "1e3", "4k"])
def test_wake_max_bytes_not_a_number(memo, store300, n):
    result = wake_max(memo, n)
    assert result.exit_code in (1, 2)
    assert result.stdout == ""
    assert "max-bytes" in result.stderr
    assert "Traceback" not in result.stderr


def test_wake_that_needs_work_waiting_for_a_repair_still_shows_the_memory(memo, inited,
                                                                          tmp_path):
    write_import(tmp_path / "many.txt", [f"2024-01-01 entry {k}" for k in range(40)])
    ok(memo("import", tmp_path / "many.txt"))
    set_config(inited, WAKE_LINES=4)
    poke(inited, LOG + 20, b"\x01")
    out = ok(memo("wake"))  # not "Cannot wake": nothing an agent does unblocks it
    doc, sep, handover = out.partition(f"\n{AWAKE}\n\n")
    assert sep and "#39 2024-01-01 entry 39" in doc
    assert handover.startswith("Compression of #0-1 waits")

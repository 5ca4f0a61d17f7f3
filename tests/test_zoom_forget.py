"""``memo zoom`` shows a block as wake prints it: both memories of a node of
two, the summaries of the halves of a larger node, a memory alone; it
takes every id wake prints, says when a half is not built, and refuses a
non-block, a negative id or one past the end in one line.
"""

from __future__ import annotations

import re

import pytest

from conftest import answer_all, history, set_config, snapshot
from helpers import (
    expected_line,
    id_lines,
    import_texts,
    imported,
    is_block,
    last_line,
    ok,
    refused,
    wake_all,
)


def test_zoom_node_of_two_shows_both_memories_as_wake_prints_them(memo, store300):
    lines = history(300)
    out = ok(memo("zoom", "0-1"))
    assert out.splitlines() == [f"#0 {lines[0]}", f"#1 {lines[1]}"]


@pytest.mark.parametrize("lo, hi", [(0, 256), (128, 256), (256, 288), (16, 32), (4, 8)])
def test_zoom_larger_node_shows_the_halves_summaries_and_nothing_else(memo, store300, lo, hi):
    lines = history(300)
    out = ok(memo("zoom", f"{lo}-{hi - 1}"))
    mid = (lo + hi) // 2
    # The later OptMem's shape: a client reading `^#(\d+)(?:-(\d+))? ` gets
    # the two halves, unindented, exactly as wake prints them.
    assert out.splitlines() == [expected_line(store300, lines, lo, mid),
                                expected_line(store300, lines, mid, hi)]


def test_zoom_single_memory_shows_it(memo, store300):
    lines = history(300)
    assert ok(memo("zoom", "7")).splitlines() == [f"#7 {lines[7]}"]


@pytest.mark.parametrize("wake_lines", [256, 40, 9, 1])
def test_every_wake_line_id_is_a_valid_zoom_argument(memo, store300, wake_lines):
    lines = history(300)
    ok(memo("config", f"WAKE_LINES={wake_lines}"))
    doc = wake_all(memo)
    ids = id_lines(doc)
    assert len(ids) >= min(wake_lines - 1, 300)  # the intro is one of WAKE_LINES
    for lo, hi, wake_line in ids:
        # the format assumed by expected_line is the one wake prints
        assert wake_line == expected_line(store300, lines, lo, hi)
        name = str(lo) if hi - lo == 1 else f"{lo}-{hi - 1}"
        out = ok(memo("zoom", name))
        got = out.splitlines()
        if hi - lo == 1:
            assert got == [wake_line]
        else:
            mid = (lo + hi) // 2
            assert got == [expected_line(store300, lines, lo, mid),
                           expected_line(store300, lines, mid, hi)], name


def test_zoom_accepts_the_id_as_wake_prints_it_with_the_hash(memo, store300):
    """Wake lines begin ``#16-31``/``#7``; pasting that id into zoom works."""
    plain = ok(memo("zoom", "16-31"))
    assert ok(memo("zoom", "#16-31")) == plain
    assert ok(memo("zoom", "#7")) == ok(memo("zoom", "7"))


def test_zoom_half_not_built_says_so_and_orders_sleep(memo, inited, tmp_path):
    lines = history(8)
    imported(memo, tmp_path, 8)
    # build only 0-1 (the first compression)
    prompt = ok(memo("sleep"))
    assert "Run: memo sleep 0-1 " in prompt
    ok(memo("sleep", "0-1", "first two"))
    out = ok(memo("zoom", "0-3"))
    got = out.splitlines()
    assert len(got) == 3
    first, second, order = got
    assert first == f"#0-1 {lines[0][:10]} first two"
    assert second.startswith("#2-3 ")
    assert re.search(r"\bnot\b", second), second
    # the order that builds what is missing stands alone on the last line
    assert order == "Run: memo sleep"
    # a node of two that is not built shows its two memories, as always
    got = ok(memo("zoom", "2-3")).splitlines()
    assert got == [f"#2 {lines[2]}", f"#3 {lines[3]}"]


def test_zoom_orders_no_sleep_that_cannot_succeed(memo, inited, tmp_path, monkeypatch):
    """Where a sleep would fail, zoom's last line is no ``Run: memo sleep``:
    a level file that is a folder gives the person's step (the sleep itself
    refuses that store), and a store read-only for this user says so."""
    imported(memo, tmp_path, 8)
    (inited / "TREE").mkdir(exist_ok=True)
    (inited / "TREE" / "8").mkdir()
    result = memo("zoom", "0-7")
    assert result.exit_code == 0
    *halves, last = result.stdout.splitlines()
    assert [h.split(" ")[0] for h in halves] == ["#0-3", "#4-7"]
    assert last.startswith(f"{inited / 'TREE' / '8'} is not a regular file")
    assert "A person can run: mv -- " in last and "Run: memo" not in last.replace(
        "A person can run:", "")
    assert "not a regular file" in memo("sleep").stderr  # the order would have failed
    (inited / "TREE" / "8").rmdir()
    from optmem.store.memory import Store
    monkeypatch.setattr(Store, "writable", lambda self: False)
    last = memo("zoom", "0-7").stdout.splitlines()[-1]
    assert "read-only for this user" in last and "Run: memo sleep" not in last


def test_zoom_leaves_out_a_half_past_the_end_of_the_log(memo, inited, tmp_path):
    lines = history(6)
    imported(memo, tmp_path, 6)
    answer_all(memo)
    result = memo("zoom", "4-7")
    assert result.exit_code == 0
    # the later OptMem's one line: the half past the end is left out
    assert result.stdout.splitlines() == [expected_line(inited, lines, 4, 6)]
    # memo's fact after it, on standard error
    assert result.stderr == (f"memo: #4-7 reaches past the newest memory ({'#5'}): #6-7 holds no "
                             "memory yet, so it is left out.\n")


def test_zoom_shows_a_half_that_reaches_past_the_end_as_not_compressed_yet(memo, inited,
                                                                             tmp_path):
    """A half that ends after the newest memory has no summary until it is
    complete: ``#LO-HI not compressed yet`` (the later OptMem's line, memo's
    dates after it), no sleep ordered (none could build it), and a note
    naming its complete parts, each one a zoom."""
    lines = history(6)
    imported(memo, tmp_path, 6)
    answer_all(memo)
    result = memo("zoom", "0-7")
    assert result.exit_code == 0
    first, last = lines[4][:10], lines[5][:10]
    assert result.stdout.splitlines() == [
        expected_line(inited, lines, 0, 4),
        f"#4-7 not compressed yet ({first if first == last else f'{first}..{last}'})"]
    assert result.stderr == (f"memo: #0-7 reaches past the newest memory ({'#5'}): #4-7 is "
                             "summarised once #7 exists (its parts so far: #4-5; zoom into "
                             "any of them).\n")
    assert ok(memo("zoom", "4-5")).splitlines() == [f"#4 {lines[4]}", f"#5 {lines[5]}"]
    # both at once: a half that reaches past the end and one past it
    result = memo("zoom", "0-15")
    assert [line.split(" ")[0] for line in result.stdout.splitlines()] == ["#0-7"]
    assert "#0-7 is summarised once #7 exists (its parts so far: #0-3, #4-5;" in result.stderr
    assert "#8-15 holds no memory yet, so it is left out." in result.stderr


def test_zoom_of_the_newest_memory_and_one_not_made_is_the_one_line(memo, inited, tmp_path):
    """``zoom N-(N+1)`` at N+1 memories: the line ``#N ...`` alone on
    standard output, as the later OptMem prints it."""
    lines = history(5)
    imported(memo, tmp_path, 5)
    answer_all(memo)
    result = memo("zoom", "4-5")
    assert result.exit_code == 0
    assert result.stdout == f"#4 {lines[4]}\n"
    assert result.stderr == (f"memo: #4-5 reaches past the newest memory ({'#4'}): #5 holds no "
                             "memory yet, so it is left out.\n")


@pytest.mark.parametrize("fill", [b" ", b"\x00"])
def test_zoom_shows_a_blank_summary_as_not_compressed_yet_and_its_repair(memo, inited,
                                                                          tmp_path, fill):
    """A blank record (a write that never reached the disk) reads as the
    later OptMem reads it, ``#LO-HI not compressed yet``, exit 0; memo's
    note that the record is damaged and the order that repairs it follow."""
    imported(memo, tmp_path, 4)
    answer_all(memo)
    with open(inited / "TREE" / "2", "r+b") as f:
        f.write(fill * 287 + b"\n")
    result = memo("zoom", "0-3")
    assert result.exit_code == 0 and result.stderr == ""
    first, second, why, order = result.stdout.splitlines()
    assert first.startswith("#0-1 not compressed yet (")
    assert second.startswith("#2-3 ") and "not compressed" not in second
    assert why.startswith("The summary of #0-1 is damaged (") and "is blank" in why
    assert order == "Run: memo forget 0-1"
    # wake and sleep still refuse it as damage where they need it
    set_config(inited, WAKE_LINES=2)  # the document is #0-1 and #2-3
    wake = memo("wake")
    assert wake.exit_code == 1 and "Run: memo forget 0-1" in wake.stderr
    assert "is blank" in wake.stderr and wake.stdout == ""
    # another damage than a blank record is refused by the CLI's zoom, as before
    with open(inited / "TREE" / "2", "r+b") as f:
        f.write(b"\xff\xfe corrupt bytes")
    corrupt = memo("zoom", "0-3")
    assert corrupt.exit_code == 1 and "Run: memo forget 0-1" in corrupt.stderr


@pytest.mark.parametrize("arg", ["3-5", "1-2", "0-2", "2-5", "5-4", "8-11x", "abc", "4-",
                                 "", "0-1-2", "\u0663-\u0664", "1.5"])
def test_zoom_refuses_a_non_block_with_a_valid_example(memo, store300, arg):
    line = refused(memo("zoom", arg))
    examples = re.findall(r"\b(\d+)-(\d+)\b", line.split("e.g.", 1)[-1])
    assert "e.g." in line, line
    assert examples, line
    for a, b in examples:
        assert is_block(int(a), int(b) + 1), (a, b, line)
        assert int(b) > int(a)


def test_zoom_refuses_a_negative_id(memo, store300):
    line = refused(memo("zoom", "--", "-1"))
    assert "e.g." in line


def test_zoom_past_the_end_or_on_an_empty_log_is_one_line(memo, inited, tmp_path):
    refused(memo("zoom", "0-1"))
    imported(memo, tmp_path, 6)
    line = refused(memo("zoom", "512-1023"))
    assert "memo" in line


def test_forget_counts_and_orders_sleep(memo, inited, tmp_path):
    import_texts(memo, tmp_path, [f"m{i}" for i in range(8)])
    assert answer_all(memo) == 7
    log = (inited / "LOG.txt").read_bytes()
    tree = {p.name: p.read_bytes() for p in (inited / "TREE").iterdir()}
    # Forget 2-3: level 2 keeps 0-1 (3 go), level 4 keeps nothing (2 go),
    # level 8 keeps nothing (1 goes): 6 summaries.
    result = memo("forget", "2-3")
    assert result.exit_code == 0 and result.stderr == ""
    assert re.search(r"\b6\b", result.stdout)
    assert last_line(result.stdout).endswith("Run: memo sleep")
    assert (inited / "LOG.txt").read_bytes() == log
    assert (inited / "TREE" / "2").read_bytes() == tree["2"][:288]
    assert (inited / "TREE" / "4").read_bytes() == b""
    assert (inited / "TREE" / "8").read_bytes() == b""
    assert "Run: memo sleep 2-3 - <<'SUMMARY'" in memo("sleep").stdout.splitlines()
    # Rebuilt with the same stand-in, every level is byte-identical again.
    assert answer_all(memo) == 6
    assert {p.name: p.read_bytes() for p in (inited / "TREE").iterdir()} == tree


def test_forget_refusals(memo, inited, tmp_path):
    import_texts(memo, tmp_path, [f"m{i}" for i in range(8)])
    answer_all(memo)
    before = snapshot(inited)
    for block in ("0-15", "3-4", "5", "8-9", "x-y"):
        result = memo("forget", block)
        assert result.exit_code == 1, block
        assert result.stdout == ""
        assert result.stderr.startswith("memo: ")
    assert snapshot(inited) == before


def test_a_blank_half_stops_the_sleep_that_needs_it_with_its_forget(memo, inited, tmp_path):
    """The blank record zoom shows as not compressed yet is damage to sleep:
    the compression of its parent is refused with the forget that repairs it."""
    imported(memo, tmp_path, 32)
    answer_all(memo)
    ok(memo("forget", "0-31"))  # the next compression is 0-31, of halves 0-15 and 16-31
    with open(inited / "TREE" / "16", "r+b") as f:
        f.write(b" " * 287 + b"\n")
    result = memo("sleep")
    assert result.exit_code == 1 and result.stdout == ""
    assert "is blank" in result.stderr and result.stderr.endswith("Run: memo forget 0-15\n")
    assert ok(memo("zoom", "0-31")).splitlines()[0].startswith("#0-15 not compressed yet (")

"""The commands beyond the seed (docs/protocol.md):
``zoom``, ``config``, ``stats``, ``wake --max-bytes``, the duplicate check of
``note``, ``nap``, ``redact``, ``recall --json`` and ``check``.

Every test drives the real CLI through click's ``CliRunner`` and asserts the
exit code, stdout and stderr separately. Expected values are computed
independently of ``optmem`` where possible: from the import file, from the
bytes of ``LOG.txt`` and ``TREE/``, and from the wake documents themselves.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import answer_all, history, tree_records
from helpers import LOG, TREE, expected_line, id_lines, imported, is_block, ok, refused, wake_all

# -- helpers ---------------------------------------------------------------


def level_lengths(root: Path) -> dict:
    return {s: len(recs) for s, recs in tree_records(root).items()}


# -- stores ------------------------------------------------------------------


# == zoom ===================================================================

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


def test_zoom_leaves_out_a_half_past_the_end_of_the_log(memo, inited, tmp_path):
    lines = history(6)
    imported(memo, tmp_path, 6)
    answer_all(memo)
    out = ok(memo("zoom", "4-7"))
    assert "#4-5 " in out
    assert not re.search(r"#6\b|#6-7\b|#7\b", out)
    out = ok(memo("zoom", "0-7"))
    shown = {(lo, hi) for lo, hi, _ in id_lines([line.strip() for line in out.splitlines()])}
    assert (0, 4) in shown and (4, 6) in shown
    assert not any(hi > 6 and lo >= 6 for lo, hi in shown)
    assert not re.search(r"#6\b|#6-7\b|#7\b", out)
    assert f"#4-5 {lines[4][:10]}" in out


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


# == config ================================================================


# == stats ==================================================================


# == wake --max-bytes ========================================================


# == duplicates ==============================================================


# == nap ======================================================================


# == redact ===================================================================


# == recall --json =============================================================


# == check ====================================================================

def test_check_a_healthy_store(memo, store300):
    out = ok(memo("check"))
    assert out.strip()
    assert "memo forget" not in out


def test_check_an_empty_store(memo, inited):
    assert ok(memo("check")).strip()


def test_check_names_memo_forget_for_a_damaged_summary(memo, store300):
    path = store300 / "TREE" / "8"
    data = bytearray(path.read_bytes())
    data[3 * TREE + 5:3 * TREE + 8] = b"\xff\xfe\xff"  # record 3: block 24-31
    path.write_bytes(bytes(data))
    result = memo("check")
    assert result.exit_code == 1, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    named = [line for line in result.stdout.splitlines() if "memo forget 24-31" in line]
    assert len(named) == 1, result.stdout
    assert "TREE" in named[0] and "8" in named[0]
    # the command it names recovers
    ok(memo("forget", "24-31"))
    ok(memo("check"))
    answer_all(memo)
    ok(memo("check"))
    ok(memo("wake"))


def test_check_names_memo_redact_for_a_damaged_memory(memo, store300):
    path = store300 / "LOG.txt"
    data = bytearray(path.read_bytes())
    data[5 * LOG + 20] = 0xFF
    path.write_bytes(bytes(data))
    result = memo("check")
    assert result.exit_code == 1
    named = [line for line in result.stdout.splitlines() if "memo redact 5 --yes" in line]
    assert len(named) == 1, result.stdout
    ok(memo("redact", "5", "--yes"))
    answer_all(memo)
    ok(memo("check"))

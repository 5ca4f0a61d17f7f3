"""The commands beyond the seed (docs/protocol.md):
``zoom``, ``config``, ``stats``, ``wake --max-bytes``, the duplicate check of
``note``, ``nap``, ``redact``, ``recall --json`` and ``check``.

Every test drives the real CLI through click's ``CliRunner`` and asserts the
exit code, stdout and stderr separately. Expected values are computed
independently of ``optmem`` where possible: from the import file, from the
bytes of ``LOG.txt`` and ``TREE/``, and from the wake documents themselves.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from conftest import answer_all, history, snapshot, tree_records
from helpers import (
    AWAKE,
    LOG,
    TREE,
    expected_line,
    id_lines,
    imported,
    is_block,
    log_bytes,
    ok,
    refused,
    wake_all,
)

KNOB_DEFAULTS = {"ENTRY_CHARS": 280, "WAKE_LINES": 256, "PART_CHARS": 20000,
                 "PART_LINES": 500}


# -- helpers ---------------------------------------------------------------


def level_lengths(root: Path) -> dict:
    return {s: len(recs) for s, recs in tree_records(root).items()}


def active_config(root: Path) -> dict:
    """The NAME=VALUE lines of ``config`` that are not comments."""
    out = {}
    for line in (root / "config").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, value = line.split("=", 1)
            out[name.strip()] = value.strip()
    return out


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

def config_lines(out: str) -> dict:
    got = {}
    for line in out.splitlines():
        for name in KNOB_DEFAULTS:
            if line.startswith(name):
                got[name] = line
    return got


def test_config_lists_each_knob_with_value_default_and_meaning(memo, inited):
    out = ok(memo("config"))
    got = config_lines(out)
    assert set(got) == set(KNOB_DEFAULTS)
    meaning = {"ENTRY_CHARS": "bytes", "WAKE_LINES": "wake", "PART_CHARS": "bytes",
               "PART_LINES": "lines"}
    for name, default in KNOB_DEFAULTS.items():
        line = got[name]
        assert re.match(rf"{name}\s*[=:]?\s*{default}\b", line), line
        assert "default" in line.lower()
        assert line.count(str(default)) >= 2, line  # the value and the default
        assert meaning[name] in line.lower(), line


def test_config_set_checks_stores_and_takes_effect(memo, inited, tmp_path):
    out = ok(memo("config", "WAKE_LINES=8"))
    assert "WAKE_LINES" in out and "8" in out
    assert active_config(inited) == {"WAKE_LINES": "8"}
    assert (inited / "config").stat().st_mode & 0o777 == 0o600
    line = config_lines(ok(memo("config")))["WAKE_LINES"]
    assert re.match(r"WAKE_LINES\s*[=:]?\s*8\b", line) and "256" in line
    # the new value is in force: 20 memories wake as 8 lines, the intro and 7
    imported(memo, tmp_path, 20)
    answer_all(memo)
    assert len(id_lines(wake_all(memo))) == 8 - 1
    # a second knob keeps the first
    ok(memo("config", "PART_LINES=10"))
    assert active_config(inited) == {"WAKE_LINES": "8", "PART_LINES": "10"}


def test_config_name_equals_nothing_returns_to_the_default(memo, inited):
    ok(memo("config", "WAKE_LINES=8", "ENTRY_CHARS=100"))
    assert active_config(inited) == {"WAKE_LINES": "8", "ENTRY_CHARS": "100"}
    ok(memo("config", "WAKE_LINES="))
    assert active_config(inited) == {"ENTRY_CHARS": "100"}
    line = config_lines(ok(memo("config")))["WAKE_LINES"]
    assert re.match(r"WAKE_LINES\s*[=:]?\s*256\b", line)
    # resetting a knob that is already default is fine and changes nothing else
    ok(memo("config", "PART_CHARS="))
    assert active_config(inited) == {"ENTRY_CHARS": "100"}


@pytest.mark.parametrize("setting, must_name", [
    ("FOO=1", list(KNOB_DEFAULTS)),
    ("FOO=", list(KNOB_DEFAULTS)),
    ("=5", list(KNOB_DEFAULTS)),
    ("WAKE_LINES=abc", ["1"]),
    ("WAKE_LINES=0", ["1"]),
    ("WAKE_LINES=-1", ["1"]),
    ("WAKE_LINES=1.5", ["1"]),
    ("ENTRY_CHARS=281", ["280"]),  # the reference refuses a store above 280
    ("ENTRY_CHARS=288", ["280"]),
    ("ENTRY_CHARS=10000", ["280"]),
    ("ENTRY_CHARS=0", ["1", "280"]),
    ("PART_CHARS=0", ["1"]),
    ("PART_LINES=0", ["1"]),
])
def test_config_refuses_bad_names_and_values_in_one_line(memo, inited, setting, must_name):
    ok(memo("config", "WAKE_LINES=8"))
    before = snapshot(inited)
    line = refused(memo("config", setting))
    for word in must_name:
        assert re.search(rf"\b{word}\b", line), (word, line)
    assert snapshot(inited) == before


def test_config_refuses_all_when_one_setting_is_bad(memo, inited):
    before = (inited / "config").read_bytes()
    refused(memo("config", "PART_LINES=20", "WAKE_LINES=0"))
    assert (inited / "config").read_bytes() == before


def test_config_is_replaced_atomically_and_reads_back(memo, inited):
    settings = {"ENTRY_CHARS": 100, "WAKE_LINES": 8, "PART_CHARS": 4096, "PART_LINES": 10}
    for name, value in settings.items():
        ok(memo("config", f"{name}={value}"))
        assert not (inited / "config.tmp").exists()
        assert sorted(p.name for p in inited.iterdir() if p.name != ".lock") == \
            ["LOG.txt", "TREE", "config"]
    assert active_config(inited) == {k: str(v) for k, v in settings.items()}
    got = config_lines(ok(memo("config")))
    for name, value in settings.items():
        assert re.match(rf"{name}\s*[=:]?\s*{value}\b", got[name]), got[name]
    from optmem.store.memory import Store
    cfg = Store.open(str(inited)).config()
    assert {name: getattr(cfg, name) for name in settings} == settings
    # the limits read back are the ones in force
    assert "100" in refused(memo("note", "x" * 101))


def test_config_write_that_fails_leaves_the_old_file_and_no_tmp(memo, inited, monkeypatch):
    ok(memo("config", "WAKE_LINES=8"))
    before = (inited / "config").read_bytes()

    def boom(src, dst):
        raise OSError(28, "No space left on device", str(dst))

    monkeypatch.setattr(os, "replace", boom)
    monkeypatch.setattr(os, "rename", boom)
    refused(memo("config", "WAKE_LINES=9"))
    monkeypatch.undo()
    assert (inited / "config").read_bytes() == before
    assert not (inited / "config.tmp").exists()


def test_config_entry_chars_287_fits_the_records(memo, inited):
    """memo once allowed ENTRY_CHARS up to 287; the reference refuses a
    store above 280, so memo config stops at 280, and a store that already
    says 287 keeps working with a one-line notice."""
    refused(memo("config", "ENTRY_CHARS=288"))
    refused(memo("config", "ENTRY_CHARS=281"))
    (inited / "config").write_text("ENTRY_CHARS=287\n")
    notice = "memo: config sets ENTRY_CHARS=287, above the 280 bytes the reference OptMem " \
             "reads (memo still reads it). Run: memo config ENTRY_CHARS=280\n"
    text = "é" + "x" * 285  # 287 bytes of UTF-8
    assert len(text.encode()) == 287
    saved = memo("note", text)
    assert (saved.exit_code, saved.stdout, saved.stderr) == (0, "Saved as #0.\n", notice)
    assert memo("note", "y" * 287).exit_code == 0
    assert len(log_bytes(inited)) == 2 * LOG
    assert log_bytes(inited)[:LOG].decode().rstrip().endswith(text)
    assert memo("sleep", "0-1", "z" * 287).exit_code == 0
    assert (inited / "TREE" / "2").read_bytes() == b"z" * 287 + b"\n"
    assert memo("note", "w" * 288).exit_code == 1
    ok(memo("config", "ENTRY_CHARS=280"))
    assert ok(memo("wake")).endswith(AWAKE + "\n")


def test_a_damaged_config_can_be_repaired_with_the_order_it_prints(memo, inited):
    (inited / "config").write_text("WAKE_LINES=abc\n")
    line = refused(memo("wake"))
    m = re.search(r"Run: (memo config \S+)", line)
    assert m, line
    args = m.group(1).split()[1:]
    ok(memo(*args))
    ok(memo("wake"))
    ok(memo("config"))


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


def test_config_set_and_unset_again_and_again_leaves_one_line(memo, memory_dir):
    """``memo config NAME=VALUE`` then ``NAME=`` restores the file byte for
    byte, however often: memo's own default line becomes the value and back
    (it used to gain a ``#NAME=default`` line each round). A person's own
    commented line is kept."""
    assert memo("init").exit_code == 0
    before = (memory_dir / "config").read_bytes()
    for _ in range(3):
        assert memo("config", "WAKE_LINES=100").exit_code == 0
        assert memo("config", "WAKE_LINES=").exit_code == 0
    assert (memory_dir / "config").read_bytes() == before
    with open(memory_dir / "config", "a") as f:
        f.write("#WAKE_LINES=500  (tried on a laptop)\n")
    assert memo("config", "WAKE_LINES=100").exit_code == 0
    text = (memory_dir / "config").read_text()
    assert "#WAKE_LINES=500  (tried on a laptop)" in text and "\nWAKE_LINES=100\n" in text
    assert memo("config").stdout.count("WAKE_LINES") == 1

"""``memo config``: each knob listed with its value, default and meaning; a
setting checked, stored atomically and taking effect; bad names, values,
bytes and lengths refused in one line; lines that set nothing named; a
damaged config repaired with the order it prints.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from conftest import answer_all, snapshot
from helpers import AWAKE, LOG, id_lines, imported, log_bytes, ok, refused, wake_all


@pytest.mark.parametrize("raw, words", [
    ("99999999999999999999999", "from 1 to 1000000000000"),
    ("1000000000001", "from 1 to 1000000000000"),
    ("0", "1 or more"),
    ("abc", "must be a whole number"),
])
def test_a_config_value_out_of_range_names_the_real_range(memo, raw, words):
    """A 23-digit WAKE_LINES was called "not a whole number, 1 or more":
    a value above the top names the top, and shows what was typed."""
    assert memo("init").exit_code == 0
    result = memo("config", f"WAKE_LINES={raw}")
    assert result.exit_code == 1
    assert words in result.stderr and raw in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("garbage", [
    b"\xff\xfe a line of Latin-1 or UTF-16 noise\n",
    b"# caf\xe9, a comment in Latin-1\n",
    b"WAKE_LINES=\xff7\n",
    b"\x00\x01\x02 binary\n",
    b"WAKE_LINES=12\xe9\n",
])
def test_a_config_with_bytes_that_are_not_utf8_is_repaired_keeping_every_byte(
        memo, memory_dir, garbage):
    """A config with one non-UTF-8 byte refused every command ("move it
    away") and ``memo config --repair`` could not fix it. Now the order a
    bad line prints runs as printed, and the file keeps every byte."""
    assert memo("init").exit_code == 0
    assert memo("note", "a memory before the config broke").exit_code == 0
    path = memory_dir / "config"
    original = path.read_bytes() + b"PART_LINES=40\n" + garbage
    path.write_bytes(original)
    result = memo("wake")
    if result.exit_code != 0:  # a value that does not parse: one line and its order
        assert result.stderr.count("\n") == 1
        assert result.stderr.rstrip().endswith("Run: memo config --repair")
        repaired = memo("config", "--repair")
        assert repaired.exit_code == 0, repaired.stderr
    assert memo("wake").exit_code == 0
    assert "PART_LINES   40 " in memo("config").stdout
    assert memo("config", "WAKE_LINES=100").exit_code == 0
    after = path.read_bytes()
    for line in original.splitlines():  # every byte is still there (maybe commented)
        assert line in after
    assert b"WAKE_LINES=100\n" in after


def test_an_over_long_config_is_refused_never_cut(memo, memory_dir):
    """The config was read up to 1 MiB and rewritten from that: a bigger
    file lost its tail on ``memo config NAME=VALUE``. It is refused whole."""
    assert memo("init").exit_code == 0
    path = memory_dir / "config"
    original = path.read_bytes() + b"# padding\n" * 120000  # 1.2 MB
    path.write_bytes(original)
    for args in (["wake"], ["config", "WAKE_LINES=100"], ["config", "--repair"]):
        result = memo(*args)
        assert result.exit_code == 1
        assert "over 1 MiB" in result.stderr and result.stderr.count("\n") == 1
    assert path.read_bytes() == original


KNOB_DEFAULTS = {"ENTRY_CHARS": 280, "WAKE_LINES": 256, "PART_CHARS": 20000,
                 "PART_LINES": 500}


def active_config(root: Path) -> dict:
    """The NAME=VALUE lines of ``config`` that are not comments."""
    out = {}
    for line in (root / "config").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, value = line.split("=", 1)
            out[name.strip()] = value.strip()
    return out


def config_lines(out: str) -> dict:
    got = {}
    for line in out.splitlines():
        for name in KNOB_DEFAULTS:
            if line.startswith(name):
                got[name] = line
    return got


def test_config_lists_each_knob_with_value_range_and_meaning(memo, inited):
    """The later OptMem's table: each knob, its value and meaning (memo adds
    its range); ``(default N)`` only where the config changed it, so a store
    that changed nothing shows no ``default`` at all."""
    out = ok(memo("config"))
    got = config_lines(out)
    assert set(got) == set(KNOB_DEFAULTS)
    meaning = {"ENTRY_CHARS": "bytes", "WAKE_LINES": "wake", "PART_CHARS": "bytes",
               "PART_LINES": "lines"}
    for name, default in KNOB_DEFAULTS.items():
        line = got[name]
        assert re.match(rf"{name}\s+{default}\s", line), line
        assert meaning[name] in line.lower(), line
        assert re.search(r"\b(1 or more|from 1 to \d+)\b", line), line
    assert "default" not in out


def test_config_marks_the_changed_knob_with_its_default_and_a_restore_drops_it(memo, inited):
    out = ok(memo("config", "WAKE_LINES=12"))
    got = config_lines(out)
    assert re.match(r"WAKE_LINES\s+12\s.*\(default 256\)$", got["WAKE_LINES"])
    assert out.count("default") == 1  # the other knobs follow memo: no mark
    assert config_lines(ok(memo("config")))["WAKE_LINES"] == got["WAKE_LINES"]
    out = ok(memo("config", "WAKE_LINES="))
    assert "default" not in out
    assert re.match(r"WAKE_LINES\s+256\s", config_lines(out)["WAKE_LINES"])
    assert active_config(inited) == {}


def test_config_set_checks_stores_and_takes_effect(memo, inited, tmp_path):
    out = ok(memo("config", "WAKE_LINES=8"))
    assert "WAKE_LINES" in out and "8" in out
    assert active_config(inited) == {"WAKE_LINES": "8"}
    assert (inited / "config").stat().st_mode & 0o777 == 0o600
    line = config_lines(ok(memo("config")))["WAKE_LINES"]
    assert re.match(r"WAKE_LINES\s*[=:]?\s*8\b", line) and "256" in line
    # the new value is in force: 20 memories wake as 8 lines
    imported(memo, tmp_path, 20)
    answer_all(memo)
    assert len(id_lines(wake_all(memo))) == 8
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
    assert line.rstrip("\n").endswith(" Run: memo config"), line  # the table: every range
    assert ok(memo("config")).startswith("ENTRY_CHARS ")


def test_a_misspelt_setting_names_the_nearest(memo, inited):
    line = refused(memo("config", "WAKE_LINE=8"))
    assert "unknown setting 'WAKE_LINE' (did you mean WAKE_LINES?)" in line
    assert "did you mean" not in refused(memo("config", "COLOUR=8"))


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


IDLE = "WAKE_LINES 100\nPART_LINES: 50\nENTRY_CHARS=200\nhello there  # a note\n# fine\n\n"


def test_config_names_each_line_that_sets_nothing(memo, inited):
    (inited / "config").write_text(IDLE)
    result = memo("config")
    assert result.exit_code == 0
    assert "WAKE_LINES   256 " in result.stdout and "ENTRY_CHARS  200 " in result.stdout
    lines = result.stderr.splitlines()
    path = str(inited / "config")
    assert len(lines) == 3, result.stderr
    assert lines[0].startswith(f"memo: {path} line 1 ('WAKE_LINES 100') sets nothing: it is "
                               f"NAME VALUE")
    assert "write WAKE_LINES=100" in lines[0]
    assert f"{path} line 2 ('PART_LINES: 50') sets nothing: it is NAME: VALUE" in lines[1]
    assert "write PART_LINES=50" in lines[1]
    assert f"{path} line 4 ('hello there') sets nothing" in lines[2]


def test_check_names_them_before_calling_the_store_whole(memo, inited):
    (inited / "config").write_text(IDLE)
    result = memo("check")
    assert result.exit_code == 0
    out = result.stdout.splitlines()
    named = [line for line in out if "sets nothing" in line]
    assert [re.search(r"config line (\d+) ", line).group(1) for line in named] == ["1", "2", "4"]
    assert out[-1] == "The store is whole."
    assert out.index(named[-1]) < len(out) - 1


def test_a_config_of_assignments_only_names_nothing(memo, inited):
    (inited / "config").write_text("# c\nWAKE_LINES=10\n\n")
    assert memo("config").stderr == ""
    assert "sets nothing" not in memo("check").stdout


def test_bad_config_is_a_clear_error(memo, inited):
    (inited / "config").write_text("PART_LINES=twenty\n")
    result = memo("wake")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert "config" in result.stderr and "PART_LINES" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1

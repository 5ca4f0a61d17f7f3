"""Dates never go backwards in the log (README "Dates never go backwards").

Hosts in different time zones are real processes under ``TZ`` (POSIX
strings, so no tz database is needed): ``EAST-14`` is UTC+14, the first
date on Earth; ``WEST+12`` is UTC-12, the last. Their local dates differ by
one or two days at any instant.
"""

from __future__ import annotations

import datetime
import os
import subprocess
import sys

import pytest

from conftest import REPO, write_import
from helpers import rec
from optmem import dates

EAST, WEST = "EAST-14", "WEST+12"


def memo_at(tz, *args, input=None):
    env = {**os.environ, "TZ": tz}
    env.pop("PYTHONIOENCODING", None)
    return subprocess.run([sys.executable, "-m", "optmem", *map(str, args)], input=input,
                          capture_output=True, env=env, cwd=REPO)


def local_date(tz) -> str:
    out = subprocess.run([sys.executable, "-c", "import datetime;"
                          "print(datetime.date.today().isoformat())"],
                         env={**os.environ, "TZ": tz}, capture_output=True, check=True)
    return out.stdout.decode().strip()


def log_dates(root):
    data = (root / "LOG.txt").read_bytes()
    return [data[k:k + 320].split(b" ")[1].decode() for k in range(0, len(data), 320)]


def test_rule_functions():
    assert dates.note_date(None, "2026-12-01") == "2026-12-01"
    assert dates.note_date("2026-11-30", "2026-12-01") == "2026-12-01"
    assert dates.note_date("2026-12-02", "2026-12-01") == "2026-12-02"
    noon = datetime.datetime(2026, 12, 1, 12, 0, tzinfo=datetime.timezone.utc)
    assert dates.latest_today(noon) == "2026-12-02"  # 02:00 at UTC+14
    assert dates.latest_today(noon.replace(hour=9)) == "2026-12-01"
    assert dates.span("2026-12-01", "2026-11-30") == ("2026-11-30", "2026-12-01")
    assert dates.shift("2026-03-01", -2) == "2026-02-27"


def test_a_note_from_a_host_behind_keeps_the_newest_date(inited):
    east, west = local_date(EAST), local_date(WEST)
    assert west < east  # 26 hours apart
    first = memo_at(EAST, "note", "noted in Kiribati")
    second = memo_at(WEST, "note", "noted on Baker Island")
    assert (first.returncode, first.stdout, first.stderr) == (0, b"Saved as #0.\n", b"")
    assert (second.returncode, second.stderr) == (0, b"")
    assert second.stdout.startswith(b"Saved as #1.\n")
    assert log_dates(inited) == [east, east]
    memo_at(WEST, "sleep", "0-1", "-", input=b"both notes\n")
    woke = memo_at(WEST, "wake")
    assert woke.returncode == 0, woke.stderr
    assert f"\n#1 {east} noted on Baker Island\n".encode() in woke.stdout
    assert f"{east} to {east}".encode() in memo_at(WEST, "stats").stdout
    assert memo_at(WEST, "zoom", "0-3").stdout == f"#0-1 {east} both notes\n".encode()


@pytest.mark.parametrize("tz", [EAST, WEST, "UTC0"])
def test_import_of_today_and_tomorrow_from_any_zone(inited, tmp_path, tz):
    east, west = local_date(EAST), local_date(WEST)
    assert memo_at(EAST, "note", "the newest memory, dated in the east").returncode == 0
    here = local_date(tz)
    path = write_import(tmp_path / "in.txt", [f"{west} dated today in the west",
                                              f"{here} dated today here",
                                              f"{east} dated today in the east"])
    result = memo_at(tz, "import", path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(b"Imported 3 memories, #1 to #3.")
    assert log_dates(inited) == [east] * 4  # nothing dated before #0
    said = result.stderr.decode()
    # the line an import prints before writing (docs/protocol.md), then the dates notice
    said = "".join(line for line in said.splitlines(keepends=True)
                   if not line.startswith("memo: importing"))
    assert said.startswith("memo: ") and said.count("\n") == 1
    assert f"dated {east}: dates never go backwards" in said


def test_import_refuses_a_date_after_today_anywhere(inited, tmp_path):
    latest = dates.latest_today()
    after = dates.shift(latest, 1)
    path = write_import(tmp_path / "in.txt", [f"{latest} fine", f"{after} from the future"])
    result = memo_at(WEST, "import", path)
    assert result.returncode == 1 and result.stdout == b""
    assert (f"line 2 is dated {after}, after today anywhere on Earth ({latest})"
            .encode() in result.stderr)
    assert log_dates(inited) == []


def test_a_log_that_runs_backwards_is_shown_in_order(memo, inited):
    # Written by another tool (the reference OptMem under two time zones).
    (inited / "LOG.txt").write_bytes(rec(0, "2026-12-01", "east") + rec(1, "2026-11-30", "west"))
    (inited / "TREE" / "2").write_bytes(b"both".ljust(287) + b"\n")
    assert "#0-1 2026-11-30..2026-12-01 both" in memo("zoom", "0-3").stdout
    assert "(#0-1, 2026-11-30 to 2026-12-01)" in memo("stats").stdout
    # The next note is never dated before the newest memory.
    assert memo("note", "later").exit_code == 0
    assert log_dates(inited)[2] >= "2026-11-30"


def test_a_clock_set_years_ahead_keeps_its_date_and_says_so(memo, inited):
    (inited / "LOG.txt").write_bytes(rec(0, "2031-01-01", "written under a clock set ahead"))
    result = memo("note", "written today")
    assert result.exit_code == 0 and result.stdout.startswith("Saved as #1.\n")
    assert log_dates(inited) == ["2031-01-01", "2031-01-01"]
    assert result.stderr.startswith("memo: the newest memory is dated 2031-01-01, after "
                                    "today anywhere on Earth")
    assert result.stderr.count("\n") == 1

"""Fault injection (docs/recovery.md: never crash, never lose, never leak).

Each test builds a damaged store byte by byte, runs ``memo`` on it and
asserts the exact outcome: the exit code; for a refusal, one line on
stderr that starts ``memo: `` and names the file, the position and the
command that recovers; no ``Traceback`` anywhere; and that no byte of
``LOG.txt`` that may be a memory was lost (byte-identical after a refusal,
the whole-record prefix unchanged after a repair).

Most tests run in-process (``memo`` fixture from conftest); the ones about
the process itself (locale, argv bytes, closed pipes, file-size limits) run
``python -m optmem`` in a subprocess.
"""

from __future__ import annotations

import datetime
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, answer_all, set_config, write_import
from helpers import LOG, TREE, ok, srec

D0 = "2026-01-01"  # the date of every built memory (before any "today")
AS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


# -- building stores by hand ----------------------------------------------

def rec(i: int, text: str, date: str = D0) -> bytes:
    body = f"#{i} {date} {text}".encode("utf-8")
    assert len(body) <= LOG - 1
    return body + b" " * (LOG - 1 - len(body)) + b"\n"


def mem_text(i: int) -> str:
    return f"memory number {i} token{i}x"


def build(root: Path, n: int, summaries: bool = True) -> bytes:
    """Write a store of ``n`` memories (and every summary); return LOG bytes."""
    root.mkdir(mode=0o700, exist_ok=True)
    (root / "TREE").mkdir(mode=0o700, exist_ok=True)
    data = b"".join(rec(i, mem_text(i)) for i in range(n))
    (root / "LOG.txt").write_bytes(data)
    if summaries:
        size = 2
        while size <= n:
            (root / "TREE" / str(size)).write_bytes(
                b"".join(srec(f"summary of {lo}-{lo + size - 1}")
                         for lo in range(0, n - n % size, size)))
            size *= 2
    return data


def log_of(root: Path) -> bytes:
    return (root / "LOG.txt").read_bytes()


def no_traceback(result) -> None:
    out = (result.stdout or "") + (result.stderr or "")
    assert "Traceback" not in out, out


def refused(result, *needles: str, code: int = 1) -> str:
    """Assert a one-line ``memo: `` refusal carrying every needle; return it."""
    no_traceback(result)
    assert result.exit_code == code, (result.exit_code, result.stdout, result.stderr)
    err = result.stderr
    assert err.startswith("memo: "), err
    assert err.endswith("\n") and err.count("\n") == 1, err
    for needle in needles:
        assert needle in err, (needle, err)
    return err


def awake(result) -> str:
    out = ok(result)
    assert out.endswith("You are awake.\n"), out
    return out


# -- a torn or foreign tail of LOG.txt -------------------------------------

PARTIAL_TAILS = {
    "date-cut": b"#5 2026-",
    "hash-only": b"#",
    "id-only": b"#5",
    "no-newline": rec(5, "a whole record but its newline")[:-1],
    "nul-run": b"\x00" * 100,
    "text-then-nul": b"#5 2026-01-01 half writ" + b"\x00" * 40,
}


@pytest.mark.parametrize("tail", PARTIAL_TAILS.values(), ids=PARTIAL_TAILS.keys())
def test_torn_append_is_cut_by_the_next_note_and_its_id_reused(memo, inited, tail):
    before = build(inited, 5)
    (inited / "LOG.txt").write_bytes(before + tail)
    # Reads ignore the unacknowledged bytes.
    assert "#4 " in awake(memo("wake"))
    result = memo("note", "after the crash")
    no_traceback(result)
    assert result.exit_code == 0 and result.stdout.startswith("Saved as #5.\n")
    kept = tail.strip(b"\x00 ")
    if kept:
        # The cut bytes are never thrown away: kept and reported in one line.
        assert (inited / "recovered.txt").read_bytes() == kept + b"\n"
        assert result.stderr.count("\n") == 1 and "recovered.txt" in result.stderr
    else:
        assert result.stderr == "" and not (inited / "recovered.txt").exists()
    data = log_of(inited)
    assert len(data) == 6 * LOG
    assert data[:5 * LOG] == before
    assert data[5 * LOG:].startswith(b"#5 ")
    assert b"after the crash" in data[5 * LOG:]


FOREIGN_TAILS = {
    "other-text": b"x" * 100,
    "hand-added-line": b"#5 2026-01-01 added in an editor\n",
    "wrong-id": b"#6 2026-01-01 not the next id",
    "spaces": b" " * 60,
}


@pytest.mark.parametrize("tail", FOREIGN_TAILS.values(), ids=FOREIGN_TAILS.keys())
def test_a_torn_tail_after_whole_records_is_cut_and_kept(memo, inited, tail, tmp_path):
    """docs/recovery.md: a last record that is not whole, after well-formed records,
    is a torn record whatever its bytes (the seed drops such tails): the
    next write cuts it, keeps its bytes in recovered.txt and says so."""
    whole = build(inited, 5)
    (inited / "LOG.txt").write_bytes(whole + tail)
    # Reads work on the whole records; check reports the tail, not as damage.
    assert "#4 " in awake(memo("wake"))
    assert "1 match." in ok(memo("recall", "token3x"))
    result = memo("check")
    no_traceback(result)
    assert result.exit_code == 0 and "offset 1600" in result.stdout
    note = memo("note", "x y z")
    assert note.exit_code == 0 and note.stdout.startswith("Saved as #5.")
    assert log_of(inited)[:5 * LOG] == whole and len(log_of(inited)) == 6 * LOG
    if tail.strip():
        assert "recovered.txt" in note.stderr
        assert tail.strip() in (inited / "recovered.txt").read_bytes()


def test_check_gives_a_command_that_recovers_a_foreign_tail(memo, inited):
    """A tail memo did not write blocks every write; check must say how to
    get out (not only how to look at it)."""
    (inited / "LOG.txt").write_bytes(build(inited, 5) + b"x" * 100)
    out = memo("check").stdout
    line = next(line for line in out.splitlines() if "offset 1600" in line)
    assert any(cmd in line for cmd in ("truncate", "memo ")), line


def test_trailing_nul_records_are_cut_on_the_next_write(memo, inited):
    before = build(inited, 5)
    (inited / "LOG.txt").write_bytes(before + b"\x00" * (2 * LOG + 17))
    out = ok(memo("note", "after the crash"))
    assert out.startswith("Saved as #5.\n")
    data = log_of(inited)
    assert data[:5 * LOG] == before and len(data) == 6 * LOG
    assert data[5 * LOG:].startswith(b"#5 ")


def test_a_trailing_nul_record_is_ignored_by_reads_and_cut_by_the_next_write(memo, inited):
    """Space a crash allocated but never filled is not a memory: readers skip
    it (no dead end), check notes it, and the next note cuts it."""
    before = build(inited, 5)
    (inited / "LOG.txt").write_bytes(before + b"\x00" * LOG * 3)
    out = awake(memo("wake"))
    assert "#4 " in out and "#5 " not in out
    assert log_of(inited) == before + b"\x00" * LOG * 3  # reads change nothing
    result = memo("check")
    assert result.exit_code == 0 and "next memo note cuts them" in result.stdout
    assert ok(memo("note", "after the crash")).startswith("Saved as #5.")
    assert len(log_of(inited)) == 6 * LOG


# -- damaged records in the middle ------------------------------------------

def damage(root: Path, i: int, record: bytes) -> bytes:
    data = bytearray(log_of(root))
    data[i * LOG:(i + 1) * LOG] = record
    (root / "LOG.txt").write_bytes(bytes(data))
    return bytes(data)


BAD_RECORDS = {
    "spaces": pytest.param((b" " * 319 + b"\n", "blank")),
    "nuls": pytest.param((b"\x00" * 320, "blank")),
    "bad-utf8": (rec(2, "cafe menu").replace(b"cafe", b"caf\xe9"), "UTF-8"),
    "wrong-id": (rec(7, "i claim to be seven"), "'#7'"),
    "stray-newline": (rec(2, "two\nlines"), "one padded line"),
}


@pytest.mark.parametrize("bad", BAD_RECORDS.values(), ids=BAD_RECORDS.keys())
def test_a_damaged_memory_is_named_by_wake_and_check_and_redact_recovers(memo, inited, bad):
    record, why = bad
    assert len(record) == LOG
    build(inited, 8)
    before = damage(inited, 2, record)
    # wake shows #2 verbatim: it works around the damage (one bad record must
    # never lock an agent out of its memory) and points at memo check.
    out = awake(memo("wake"))
    from optmem.engine.view import DAMAGED_TEXT
    assert f"#2 ????-??-?? {DAMAGED_TEXT}" in out
    assert "#1 " in out and "#3 " in out
    # recall works around it (the other memories are still found).
    assert "1 match." in ok(memo("recall", "token5x"))
    # a note is appended behind the last (good) record.
    assert ok(memo("note", "still working")).startswith("Saved as #8.")
    assert log_of(inited)[:8 * LOG] == before
    result = memo("check")
    no_traceback(result)
    assert result.exit_code == 1
    problems = [line for line in result.stdout.splitlines() if "record #" in line]
    assert len(problems) == 1 and "offset 640" in problems[0], result.stdout
    assert result.stdout.rstrip().endswith("1 problem found.")
    if why == "'#7'":  # only the id is wrong: its place implies it, nothing is lost
        assert problems[0].endswith("Run: memo check --repair")
        assert "memo redact" not in result.stdout
        ok(memo("check", "--repair"))
        data = log_of(inited)
        assert data[2 * LOG:3 * LOG] == rec(2, "i claim to be seven")
        assert b"i claim to be seven" in (inited / "recovered.txt").read_bytes()
        return
    assert problems[0].endswith("A person can run: memo redact 2 --yes")
    # The human recovery: redact, then compress again; the store is whole.
    ok(memo("redact", "2", "--yes"))
    answer_all(memo)
    result = memo("check")
    assert result.exit_code == 0, result.stdout
    assert result.stdout.endswith("The store is whole.\n")
    data = log_of(inited)
    assert data[:2 * LOG] == before[:2 * LOG] and data[3 * LOG:8 * LOG] == before[3 * LOG:]
    assert data[2 * LOG:3 * LOG].startswith(b"#2 ")


def test_a_damaged_last_record_blocks_appends(memo, inited):
    build(inited, 6)
    before = damage(inited, 5, rec(9, "wrong id at the end"))
    refused(memo("note", "behind it"), str(inited / "LOG.txt"), "#5", "memo check")
    assert log_of(inited) == before


def test_a_hand_shortened_line_is_refused_and_nothing_is_cut(memo, inited):
    build(inited, 6)
    data = log_of(inited)
    # An editor dropped ten bytes of padding from memory #2's line.
    edited = data[:2 * LOG] + data[2 * LOG:3 * LOG - 11] + b"\n" + data[3 * LOG:]
    assert len(edited) == 6 * LOG - 10
    (inited / "LOG.txt").write_bytes(edited)
    where = str(inited / "LOG.txt")
    refused(memo("note", "anything"), where, "memo check")
    assert log_of(inited) == edited
    assert "[damaged record" in awake(memo("wake"))  # worked around, never a dead end
    result = memo("check")
    no_traceback(result)
    assert result.exit_code == 1
    assert "record #2 (offset 640)" in result.stdout
    assert log_of(inited) == edited


def test_a_stripped_last_line_is_cut_and_kept(memo, inited):
    """An editor that strips trailing blanks turned the last record into a
    short line. After whole records it is a torn last record (docs/protocol.md, as
    the seed treats it): the next write cuts it and keeps the line in
    recovered.txt, so nothing is lost and writes are not blocked."""
    build(inited, 6, summaries=False)
    data = log_of(inited)
    line = f"#5 {D0} {mem_text(5)}\n".encode()
    (inited / "LOG.txt").write_bytes(data[:5 * LOG] + line)
    result = memo("note", "anything")
    assert result.exit_code == 0 and "recovered.txt" in result.stderr
    assert line.strip() in (inited / "recovered.txt").read_bytes()
    assert log_of(inited)[:5 * LOG] == data[:5 * LOG]


# -- damaged summaries --------------------------------------------------------

def test_bad_utf8_in_a_summary_is_named_and_forget_recovers(memo, inited):
    build(inited, 8)
    set_config(inited, WAKE_LINES=2)  # two lines: #0-3, #4-7
    level = inited / "TREE" / "4"
    data = bytearray(level.read_bytes())
    data[TREE:TREE + 3] = b"\xff\xfe\xfd"
    level.write_bytes(bytes(data))
    # the session-start hook still shows the memory; the hand-over names the
    # damage and forgets it
    out = ok(memo("wake", "--max-bytes", "20000"))
    assert "#4-7 2026-01-01 [damaged summary" in out
    for word in (str(level), "record 1", "offset 288"):
        assert word in out.split("You are awake.\n\n")[1]
    assert out.endswith("\nRun: memo forget 4-7\n")
    # the CLI's wake refuses, as the later OptMem does: exit 1, the order on stderr
    result = memo("wake")
    no_traceback(result)
    assert result.exit_code == 1 and result.stdout == ""
    assert str(level) in result.stderr and result.stderr.endswith("Run: memo forget 4-7\n")
    result = memo("check")
    no_traceback(result)
    assert result.exit_code == 1 and "memo forget 4-7" in result.stdout
    log = log_of(inited)
    out = ok(memo("forget", "4-7"))
    assert "Run: memo sleep" in out
    answer_all(memo)
    assert memo("check").exit_code == 0
    assert log_of(inited) == log
    awake(memo("wake"))


def test_a_level_file_that_is_a_directory(memo, inited):
    build(inited, 4)
    (inited / "TREE" / "2").unlink()
    (inited / "TREE" / "2").mkdir()
    step = f"A person can run: mv -- {inited / 'TREE' / '2'} {inited}-moved-TREE-2"
    # Four memories need no summary: wake shows them, and ends with the step.
    wake = memo("wake")
    assert wake.exit_code == 0 and wake.stdout.startswith("#0 ") and wake.stdout.count("\n#") == 3
    assert wake.stdout.rstrip("\n").endswith(step) and "Run: memo sleep" not in wake.stdout
    ok(memo("config", "WAKE_LINES=2"))  # #0-1 and #2-3: the document needs TREE/2: refused
    refused(memo("wake"), str(inited / "TREE" / "2"), step)
    ok(memo("config", "WAKE_LINES="))
    refused(memo("sleep"), str(inited / "TREE" / "2"), step)
    result = memo("check")
    no_traceback(result)
    assert result.exit_code == 1 and str(inited / "TREE" / "2") in result.stdout
    assert step in result.stdout
    # The step runs as printed, and then memo rebuilds what the level held.
    import shlex
    import subprocess
    subprocess.run(shlex.split(step.split(": ", 1)[1]), check=True)
    answer_all(memo)
    assert memo("check").exit_code == 0


def test_a_note_is_never_saved_behind_an_error(memo, inited):
    """A note whose id was taken must say so: a note that exits 1 without
    ``Saved as`` must have written nothing (else the agent retries and is
    told it is a duplicate of a memory it was told failed)."""
    build(inited, 1)
    (inited / "TREE" / "2").mkdir()
    before = log_of(inited)
    result = memo("note", "the second memory")
    no_traceback(result)
    if result.exit_code == 0:
        assert result.stdout.startswith("Saved as #1.")
    else:
        assert "Saved as #1." in result.stdout or log_of(inited) == before, \
            (result.stdout, result.stderr)


def test_a_level_file_in_a_symlink_loop(memo, inited):
    build(inited, 4)
    level = inited / "TREE" / "2"
    level.unlink()
    os.symlink("2", level)
    wake = memo("wake")  # four memories need no summary: shown, then the step
    assert wake.exit_code == 0 and str(level) in wake.stdout.splitlines()[-1]
    refused(memo("sleep"), str(level))
    result = memo("check")
    no_traceback(result)
    assert result.exit_code == 1 and str(level) in result.stdout


@pytest.mark.skipif(AS_ROOT, reason="runs as root: chmod 000 does not stop root reading")
def test_an_unreadable_level_file(memo, inited):  # pragma: no cover - root in CI
    build(inited, 4)
    level = inited / "TREE" / "2"
    level.chmod(0)
    refused(memo("wake"), str(level))


def test_a_level_longer_than_the_log_allows_is_reported_and_forget_recovers(memo, inited):
    build(inited, 4)
    level = inited / "TREE" / "2"
    level.write_bytes(level.read_bytes() + srec("a summary of memories that do not exist"))
    result = memo("check")
    no_traceback(result)
    assert result.exit_code == 1
    out = result.stdout
    assert out.startswith(str(level)), out
    # docs/recovery.md: the newer log is looked for first; forget is a person's last
    # step, never an agent's order.
    assert "Run: memo forget" not in out
    line = next(line for line in out.splitlines() if "memo forget " in line)
    assert "only if no newer log exists" in line and "a person can run:" in line, line
    assert out.index("look for the newer log") < out.index(line)
    command = line.split("&& memo ", 1)[1].split()
    ok(memo(*command))
    assert memo("check").exit_code == 0


def test_a_stale_summary_beyond_the_log_is_never_adopted(memo, inited):
    """TREE/2 holds a record for block 4-5 before memories #4 and #5 exist:
    when they arrive, their summary must not be that stale line."""
    build(inited, 4)
    level = inited / "TREE" / "2"
    level.write_bytes(level.read_bytes() + srec("STALE line from another log"))
    for text in ("fourth thing", "fifth thing"):
        memo("note", text)
    answer_all(memo)
    set_config(inited, WAKE_LINES=2)
    out = memo("wake").stdout
    assert "STALE" not in out, out


def test_a_torn_level_tail_is_cut_by_sleep(memo, inited):
    build(inited, 6, summaries=False)
    answer_all(memo)
    (inited / "TREE" / "2").unlink()
    (inited / "TREE" / "4").unlink()
    (inited / "TREE" / "2").write_bytes(srec("summary zero") + b"half a summ")
    # Harmless (readers take whole records only): a note, not a problem.
    result = memo("check")
    assert result.exit_code == 0 and "unfinished summary" in result.stdout
    out = ok(memo("sleep"))
    assert "memo sleep 2-3" in out
    answer_all(memo)
    assert (inited / "TREE" / "2").stat().st_size == 3 * TREE
    assert memo("check").exit_code == 0


def test_a_torn_tail_on_a_finished_level_is_recovered_as_check_says(memo, inited):
    """A torn summary on a level with nothing pending: check calls it
    harmless and says the next write cuts it; the next note does."""
    build(inited, 4)
    level = inited / "TREE" / "2"
    whole = level.read_bytes()
    level.write_bytes(whole + b"half a summ")
    result = memo("check")
    assert result.exit_code == 0 and "next memo note" in result.stdout
    ok(memo("note", "a fifth memory"))
    assert level.read_bytes() == whole
    assert "unfinished" not in memo("check").stdout


# -- the store itself ------------------------------------------------------

@pytest.mark.parametrize("args", [("init",), ("wake",), ("note", "x"), ("sleep",),
                                  ("recall", "x"), ("check",), ("stats",), ("config",)])
def test_memory_dir_that_is_a_file(memo, memory_dir, args):
    memory_dir.parent.mkdir(parents=True, exist_ok=True)
    memory_dir.write_bytes(b"not a store")
    refused(memo(*args), str(memory_dir), "is a file")
    assert memory_dir.read_bytes() == b"not a store"


@pytest.mark.parametrize("args", [("wake",), ("note", "x"), ("sleep",), ("recall", "x"),
                                  ("check",), ("forget", "0-1"), ("zoom", "0-1")])
def test_a_missing_store_names_memo_init(memo, memory_dir, args):
    refused(memo(*args), str(memory_dir), "memo init")
    assert not memory_dir.exists()


def test_an_unset_memory_dir(memo, monkeypatch):
    monkeypatch.delenv("MEMORY_DIR")
    refused(memo("wake"), "MEMORY_DIR", "memo init")


def test_log_that_is_a_directory(memo, inited):
    (inited / "LOG.txt").unlink()
    (inited / "LOG.txt").mkdir()
    refused(memo("wake"), str(inited / "LOG.txt"))
    refused(memo("note", "x"), str(inited / "LOG.txt"))
    result = memo("check")
    no_traceback(result)
    assert result.exit_code == 1


def test_init_on_an_existing_store_changes_no_byte(memo, inited):
    from conftest import snapshot
    build(inited, 3)
    before = snapshot(inited)
    ok(memo("init"))
    assert snapshot(inited) == before


# -- the journal of an interrupted append ---------------------------------

def test_a_journal_left_by_a_crashed_import_is_rolled_back(memo, inited):
    before = build(inited, 5)
    extra = b"".join(rec(i, f"imported {i}") for i in range(5, 8)) + rec(8, "torn")[:100]
    (inited / "LOG.txt").write_bytes(before + extra)
    import hashlib
    digest = hashlib.sha256(rec(5, "imported 5")).hexdigest()[:32]
    (inited / ".append").write_bytes(f"{len(before)} {len(before) + 4 * LOG} {digest}\n".encode())
    result = memo("note", "after the crash")
    no_traceback(result)
    assert result.exit_code == 0 and "rolled back" in result.stderr
    out = result.stdout
    assert out.startswith("Saved as #5.")
    data = log_of(inited)
    assert data[:5 * LOG] == before and len(data) == 6 * LOG
    assert b"after the crash" in data[5 * LOG:]
    assert not (inited / ".append").exists()
    assert memo("check").exit_code == 0 or "pending" in memo("check").stdout


def test_a_journal_never_cuts_bytes_appended_after_it(memo, inited):
    """The log is already longer than the journal's "after": someone else
    appended since; nothing may be cut."""
    before = build(inited, 5)
    (inited / ".append").write_bytes(f"{2 * LOG} {3 * LOG}\n".encode())
    ok(memo("note", "a new one"))
    assert log_of(inited)[:5 * LOG] == before


@pytest.mark.parametrize("junk", [b"", b"garbage", b"1 2 3", b"-5 10", b"\xff\xfe"])
def test_a_garbage_journal_is_dropped_and_cuts_nothing(memo, inited, junk):
    before = build(inited, 5)
    (inited / ".append").write_bytes(junk)
    ok(memo("note", "a new one"))
    assert log_of(inited)[:5 * LOG] == before
    assert not (inited / ".append").exists()


# -- memo check --------------------------------------------------------------

def test_check_on_a_healthy_store(memo, inited):
    build(inited, 37)
    result = memo("check")
    no_traceback(result)
    assert result.exit_code == 0
    assert result.stdout.endswith("The store is whole.\n")
    assert result.stderr == ""


def test_check_on_an_empty_store(memo, inited):
    result = memo("check")
    assert result.exit_code == 0 and result.stdout.endswith("The store is whole.\n")


def test_check_lists_every_problem_with_its_recovery(memo, inited):
    build(inited, 16)
    damage(inited, 3, b" " * 319 + b"\n")
    damage(inited, 9, rec(1, "wrong id"))
    level = inited / "TREE" / "8"
    data = bytearray(level.read_bytes())
    data[0:2] = b"\xc3\x28"
    level.write_bytes(bytes(data))
    with open(inited / "LOG.txt", "ab") as f:
        f.write(b"x" * 10)
    before = log_of(inited)
    result = memo("check")
    no_traceback(result)
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    # #9 holding #1 is a whole memory out of place (a merge's mark), not a
    # record damaged in itself: never redact (docs/recovery.md).
    want = {"record #3 (offset 960)": "memo redact 3 --yes",
            "position 9 holds #1": "out of place",
            "TREE/8 record 0": "memo forget 0-7",
            "ends with 10 bytes": "LOG.txt"}
    for where, recovery in want.items():
        hits = [line for line in lines if where in line]
        assert len(hits) == 1, (where, result.stdout)
        assert recovery in hits[0], hits[0]
    assert "3 problems found." in lines  # the torn 10 bytes are a note: the next write cuts them
    assert "memo redact 9" not in result.stdout
    assert log_of(inited) == before


# -- bad arguments --------------------------------------------------------------

BAD_NUMBERS = [
    ("wake", "٣"), ("wake", "1", "٣"), ("wake", "1", "99999999999999999999999"),
    ("wake", "0"), ("wake", "7"), ("wake", "1", "99"), ("wake", "+1"), ("wake", "1.0"),
    ("wake", " 1"), ("wake", "0x1"), ("wake", "1_0"), ("wake", "¹"),
    ("forget", "0-2"), ("forget", "1-2"), ("forget", "abc"), ("forget", "0-1-3"),
    ("forget", "٠-١"), ("forget", "0--1"), ("forget", "16-31"), ("forget", "0"),
    ("zoom", "3-4"), ("zoom", "abc"), ("zoom", "99"), ("zoom", "0-٣"),
    ("sleep", "0-2", "text"), ("sleep", "1-2", "text"), ("sleep", "x", "t"),
    ("redact", "٣", "--yes"), ("redact", "99", "--yes"), ("redact", "-", "--yes"),
    ("wake", "--max-bytes", "٣"), ("wake", "--max-bytes", "10"),
]


@pytest.mark.parametrize("args", BAD_NUMBERS, ids=[" ".join(a) for a in BAD_NUMBERS])
def test_bad_numbers_are_refused_in_one_line(memo, inited, args):
    build(inited, 4)
    before = log_of(inited)
    refused(memo(*args))
    assert log_of(inited) == before


@pytest.mark.parametrize("args", [("wake", "-1"), ("wake", "1", "-1"), ("forget", "-1")])
def test_negative_numbers_are_usage_errors(memo, inited, args):
    build(inited, 4)
    result = memo(*args)
    no_traceback(result)
    assert result.exit_code == 2, (result.stdout, result.stderr)
    cmd = args[0]
    # click's own words: "No such option '-1'" from 8.2, "No such option: -1"
    # in 8.1 (the newest click for Python 3.9).
    assert result.stderr in (f"memo: No such option '-1'. Run: memo {cmd} --help\n",
                             f"memo: No such option: -1. Run: memo {cmd} --help\n")
    assert result.stdout == ""


EMPTIES = [("note", ""), ("note", "   "), ("sleep", "0-1", ""), ("sleep", "0-1", "  "),
           ("sleep", ""), ("recall", ""), ("forget", ""), ("zoom", ""), ("wake", ""),
           ("wake", "1", ""), ("import", ""), ("redact", "", "--yes"), ("config", ""),
           ("config", "="), ("config", "WAKE_LINES=x")]


@pytest.mark.parametrize("args", EMPTIES, ids=[repr(a) for a in EMPTIES])
def test_empty_strings_are_refused(memo, inited, args):
    build(inited, 2, summaries=False)
    before = log_of(inited)
    refused(memo(*args))
    assert log_of(inited) == before
    assert not (inited / "TREE" / "2").exists()


@pytest.mark.parametrize("args", [("frobnicate",), ("WAKE",), ("wake", "1", "2", "3"),
                                  ("note",), ("forget",), ("recall",), ("import",),
                                  ("wake", "--nope"), ("",)])
def test_usage_errors_exit_2(memo, inited, args):
    result = memo(*args)
    no_traceback(result)
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert result.stderr.strip()


def memo_process(args, env_extra=None, stdin=None, **kw):
    """Run ``python -m optmem`` with bytes argv; return CompletedProcess."""
    env = dict(os.environ)
    env.update(env_extra or {})
    return subprocess.run([os.fsencode(sys.executable), b"-m", b"optmem", *args],
                          env=env, cwd=str(REPO), input=stdin, capture_output=True,
                          **kw)


def proc_refused(proc, code=1):
    assert b"Traceback" not in proc.stdout + proc.stderr, proc.stderr
    assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    if code == 1:
        # an import says what it creates before writing (docs/protocol.md); then the error
        err = b"".join(line for line in proc.stderr.splitlines(keepends=True)
                       if not line.startswith(b"memo: importing"))
        assert err.startswith(b"memo: ") and err.count(b"\n") == 1, proc.stderr
        proc.stderr.decode("utf-8")  # the error line is UTF-8


RAW_ARGS = [
    [b"note", b"caf\xe9 latin-1"],
    [b"note", b"\xff\xfe"],
    [b"sleep", b"0-1", b"caf\xe9"],
    [b"recall", b"\xff"],
    [b"forget", b"\xff-\xfe"],
    [b"zoom", b"\xe9"],
    [b"wake", b"\xb3"],
    [b"import", b"/nonexistent/\xff.txt"],
    [b"config", b"WAKE_LINES=\xff"],
    [b"redact", b"\xff", b"--yes"],
]


@pytest.mark.parametrize("args", RAW_ARGS, ids=[repr(a) for a in RAW_ARGS])
def test_non_utf8_bytes_in_arguments(memory_dir, args):
    env = {"LC_ALL": "C", "PYTHONUTF8": "0", "LANG": "C", "MEMORY_DIR": str(memory_dir)}
    assert memo_process([b"init"], env).returncode == 0
    build(memory_dir, 2, summaries=False)
    before = log_of(memory_dir)
    proc = memo_process(args, env)
    if args[0] == b"recall":
        assert proc.returncode == 0 and b"Traceback" not in proc.stderr, proc.stderr
        assert proc.stdout == b"No match.\n"
    else:
        proc_refused(proc)
    assert log_of(memory_dir) == before


def test_non_utf8_memory_dir(tmp_path):
    root = os.fsencode(str(tmp_path)) + b"/st\xe9re"
    env = {"LC_ALL": "C", "PYTHONUTF8": "0", "MEMORY_DIR": os.fsdecode(root)}
    proc = memo_process([b"init"], env)
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr, proc.stderr
    proc = memo_process([b"note", b"hello"], env)
    assert proc.returncode == 0 and proc.stdout.startswith(b"Saved as #0."), proc.stderr
    proc = memo_process([b"wake"], {**env, "MEMORY_DIR": os.fsdecode(root + b"x")})
    proc_refused(proc)
    assert b"memo init" in proc.stderr


# -- bad import files ----------------------------------------------------------

def today() -> str:
    return datetime.date.today().isoformat()


def import_refused(memo, inited, path, *needles):
    before = log_of(inited)
    err = refused(memo("import", str(path)), *needles)
    err = err.lower()
    assert log_of(inited) == before
    assert not (inited / ".append").exists()
    return err


def test_import_missing_file(memo, inited, tmp_path):
    import_refused(memo, inited, tmp_path / "nope.txt", "nope.txt")


def test_import_a_directory(memo, inited, tmp_path):
    import_refused(memo, inited, tmp_path, str(tmp_path))


@pytest.mark.parametrize("content", [b"", b"\n\n  \n", b"\xef\xbb\xbf"])
def test_import_an_empty_file(memo, inited, tmp_path, content):
    path = tmp_path / "in.txt"
    path.write_bytes(content)
    import_refused(memo, inited, path, str(path))


BAD_IMPORTS = {
    "not-utf8": (b"2026-01-01 fine\n2026-01-02 caf\xe9\n", "line 2"),
    "feb-30": (b"2026-01-01 fine\n2026-02-30 no such day\n", "line 2"),
    "out-of-order": (b"2026-01-02 b\n2026-01-01 a\n", "line 2"),
    "date-only": (b"2026-01-01 fine\n2026-01-02\n", "line 2"),
    "date-and-spaces": (b"2026-01-01 fine\n2026-01-02    \n", "line 2"),
    "no-date": (b"2026-01-01 fine\njust text\n", "line 2"),
    "arabic-digits": ("2026-01-01 fine\n٢٠٢٦-٠١-٠٢ x\n".encode(), "line 2"),
    "too-long": (b"2026-01-01 fine\n2026-01-02 " + b"x" * 281 + b"\n", "line 2"),
    "escape": (b"2026-01-01 fine\n2026-01-02 red \x1b[31m text\n", "line 2"),
    "bidi": ("2026-01-01 fine\n2026-01-02 a \u202e b\n".encode(), "line 2"),
    "key": (b"2026-01-01 fine\n2026-01-02 key sk-proj-" + b"A1b2C3d4" * 6 + b"\n", "line 2"),
    "lone-cr": (b"2026-01-01 fine\r2026-01-02 b\n", "line 1"),
    "line-sep": ("2026-01-01 fine\u2028more\n".encode(), "line 1"),
    "late-bad-line": (b"".join(b"2026-01-01 line %d\n" % i for i in range(5000))
                      + b"2026-13-01 bad\n", "line 5001"),
}


@pytest.mark.parametrize("bad", BAD_IMPORTS.values(), ids=BAD_IMPORTS.keys())
def test_bad_import_files_are_all_or_nothing(memo, inited, tmp_path, bad):
    content, where = bad
    build(inited, 3)
    path = tmp_path / "in.txt"
    path.write_bytes(content)
    err = import_refused(memo, inited, path, str(path), where)
    assert "nothing was imported" in err


def test_import_dated_before_the_newest_memory(memo, inited, tmp_path):
    build(inited, 3)  # dated D0
    # More than two days before it (README "Dates never go backwards"); up to
    # two days earlier is today in another time zone (tests/test_dates.py).
    path = write_import(tmp_path / "in.txt", ["2025-12-29 too early"])
    import_refused(memo, inited, path, "line 1", D0, "more than 2 days before")


@pytest.mark.parametrize("content", [b"\xef\xbb\xbf2026-01-01 with a BOM\n2026-01-02 second\n",
                                     b"2026-01-01 crlf one\r\n2026-01-02 crlf two\r\n",
                                     b"2026-01-01 no final newline\n2026-01-02 last",
                                     b"\n2026-01-01 blank lines skipped\n\n\n2026-01-01 b\n"])
def test_import_accepts_bom_crlf_and_blank_lines(memo, inited, tmp_path, content):
    path = tmp_path / "in.txt"
    path.write_bytes(content)
    out = ok(memo("import", str(path)))
    assert out.startswith("Imported 2 memories, #0 to #1.")
    data = log_of(inited)
    assert len(data) == 2 * LOG
    assert b"\r" not in data and b"\xef\xbb\xbf" not in data


# -- bad config ----------------------------------------------------------------

BAD_CONFIGS = {
    "unknown": ("WAKELINES=10\n", "WAKELINES", "ENTRY_CHARS"),
    "not-a-number": ("WAKE_LINES=ten\n", "WAKE_LINES", "1 or more"),
    "float": ("WAKE_LINES=10.5\n", "WAKE_LINES", "1 or more"),
    "zero": ("WAKE_LINES=0\n", "WAKE_LINES", "1 or more"),
    "negative": ("PART_LINES=-5\n", "PART_LINES", "1 or more"),
    "too-wide": ("ENTRY_CHARS=300\n", "ENTRY_CHARS", "to 280"),
}  # what the reference also refuses (tests/test_protocol.py: what it accepts)


@pytest.mark.parametrize("bad", BAD_CONFIGS.values(), ids=BAD_CONFIGS.keys())
@pytest.mark.parametrize("args", [("wake",), ("note", "a new note"), ("sleep",)])
def test_bad_config_is_one_line_naming_file_line_and_choices(memo, inited, bad, args):
    text, *needles = bad
    build(inited, 2, summaries=False)
    (inited / "config").write_text("# comment\n\n" + text, encoding="utf-8")
    before = log_of(inited)
    refused(memo(*args), str(inited / "config"), "line 3", *needles)
    assert log_of(inited) == before


def test_config_not_utf8_or_a_directory(memo, inited):
    (inited / "config").write_bytes(b"WAKE_LINES=\xff\n")
    refused(memo("wake"), str(inited / "config"))
    (inited / "config").unlink()
    (inited / "config").mkdir()
    refused(memo("wake"), str(inited / "config"))


@pytest.mark.parametrize("setting", ["ENTRY_CHARS=300", "ENTRY_CHARS=0", "WAKE_LINES=-1",
                                     "NOPE=1", "PART_CHARS=lots", "ENTRY_CHARS=1e3"])
def test_memo_config_refuses_bad_values_and_keeps_the_file(memo, inited, setting):
    before = (inited / "config").read_bytes()
    refused(memo("config", setting), setting.split("=")[0])
    assert (inited / "config").read_bytes() == before


def test_shrinking_entry_chars_does_not_break_reading_older_longer_memories(memo, inited):
    ok(memo("note", "x" * 200))
    ok(memo("config", "ENTRY_CHARS=16"))
    awake(memo("wake"))
    assert "1 match." in ok(memo("recall", "xxx"))


# -- output encoding and closed pipes ---------------------------------------------

UNI = "é ☕ 中"


@pytest.mark.parametrize("env", [{"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0"},
                                 {"PYTHONIOENCODING": "ascii"},
                                 {"LC_ALL": "C", "PYTHONIOENCODING": "latin-1", "PYTHONUTF8": "0"}])
def test_output_is_utf8_whatever_the_locale(memory_dir, env):
    env = {**env, "MEMORY_DIR": str(memory_dir)}
    assert memo_process([b"init"], env).returncode == 0
    proc = memo_process([b"note", b"-"], env, stdin=UNI.encode() + b"\n")
    assert proc.returncode == 0, proc.stderr
    for args in ([b"wake"], [b"recall", b"\\u4e2d"], [b"zoom", b"0"], [b"recall", b"."]):
        proc = memo_process(args, env)
        assert proc.returncode == 0, proc.stderr
        assert UNI.encode("utf-8") in proc.stdout, (args, proc.stdout)
    # An error that quotes non-ASCII text is UTF-8 on stderr too.
    (memory_dir / "config").write_text("WAKE_LINES=中\n", encoding="utf-8")
    proc = memo_process([b"wake"], env)
    proc_refused(proc)
    assert "中".encode() in proc.stderr


@pytest.mark.parametrize("env", [{"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0"},
                                 {"LC_ALL": "C", "PYTHONIOENCODING": "latin-1", "PYTHONUTF8": "0"}])
def test_utf8_arguments_are_read_as_utf8_whatever_the_locale(memory_dir, env):
    """Under LC_ALL=C without UTF-8 mode Python decodes argv as ASCII with
    surrogate escapes; text that is valid UTF-8 must still be saved as the
    UTF-8 it is (and found by a UTF-8 regex), not refused as "not UTF-8"."""
    env = {**env, "MEMORY_DIR": str(memory_dir)}
    assert memo_process([b"init"], env).returncode == 0
    proc = memo_process([b"note", UNI.encode()], env)
    assert proc.returncode == 0, proc.stderr
    assert f"#0 {today()} {UNI}".encode() in log_of(memory_dir)
    proc = memo_process([b"recall", "中".encode()], env)
    assert proc.returncode == 0 and b"1 match." in proc.stdout, proc.stdout


def big_store(root: Path, n: int) -> None:
    root.mkdir(mode=0o700, parents=True, exist_ok=True)
    build(root, n)
    (root / "config").write_text(
        "PART_CHARS=100000000\nPART_LINES=1000000\nWAKE_LINES=100000\n")


@pytest.mark.parametrize("args", [["wake"], ["recall", "."], ["recall", "token"], ["stats"]])
def test_a_closed_pipe_ends_quietly(memory_dir, args):
    big_store(memory_dir, 3000)
    env = dict(os.environ, MEMORY_DIR=str(memory_dir))
    cmd = f"{sys.executable} -m optmem {' '.join(args)} | head -1"
    proc = subprocess.run(["bash", "-c", "set -o pipefail; " + cmd], env=env, cwd=str(REPO),
                          capture_output=True)
    assert b"Traceback" not in proc.stderr, proc.stderr
    assert b"Exception ignored" not in proc.stderr, proc.stderr
    assert proc.stderr == b"", proc.stderr
    assert proc.stdout.count(b"\n") == 1


def test_a_pipe_closed_before_any_output(memory_dir):
    big_store(memory_dir, 3000)
    env = dict(os.environ, MEMORY_DIR=str(memory_dir))
    proc = subprocess.Popen([sys.executable, "-m", "optmem", "recall", "."], env=env,
                            cwd=str(REPO), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()
    _, err = proc.communicate()
    assert b"Traceback" not in err and b"Exception ignored" not in err, err


@pytest.mark.parametrize("full, args", [
    *[("/dev/full", args) for args in (["wake"], ["recall", "token"], ["stats"], ["--help"],
                                       ["note", "written while the output fails"])],
    # Over the limit mid-write: the write stops short (CPython's buffered
    # writer dropped the rest, and memo ended 0 with its output cut).
    ("size limit", ["wake"]), ("size limit", ["recall", "token"])])
def test_output_that_cannot_be_written_is_one_line_about_the_output(memory_dir, tmp_path,
                                                                     args, full):
    """Standard output on a full disk (``/dev/full``) or reaching the file
    size limit part-way through a write: one line that names the output, not the store (nothing is wrong
    with it), says a write is kept and must not run again; no traceback,
    no "Exception ignored" at exit; the note is saved once."""
    if full == "/dev/full" and not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    big_store(memory_dir, 3000)
    before = log_of(memory_dir)
    env = dict(os.environ, MEMORY_DIR=str(memory_dir), **BYTECODE_OFF)
    target = full if full == "/dev/full" else str(tmp_path / "out.txt")
    with open(target, "wb") as out:
        proc = subprocess.run([sys.executable, "-m", "optmem", *args], env=env, cwd=str(REPO),
                              stdout=out, stderr=subprocess.PIPE, timeout=120,
                              preexec_fn=None if full == "/dev/full" else limit_fsize(4096))
    err = proc.stderr.decode()
    assert proc.returncode == 1 and err.count("\n") == 1, err
    assert err.startswith("memo: its output could not be written (")
    assert "must not run again" in err and str(memory_dir) not in err
    if args[0] == "note":
        assert log_of(memory_dir).count(b"written while the output fails") == 1
    else:
        assert log_of(memory_dir) == before


# -- disk full (file size limit) ---------------------------------------------------

def limit_fsize(nbytes: int):
    """A ``preexec_fn`` that limits the files the process writes to
    ``nbytes`` bytes. Python's bytecode caches are written under the limit
    too, cut short (Python does not check the write), so each run under it
    passes ``BYTECODE_OFF`` in its environment: the checkout's caches are
    the other tests' as well."""
    def preexec():
        resource.setrlimit(resource.RLIMIT_FSIZE, (nbytes, nbytes))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    return preexec


#: No bytecode cache is written by a process under ``limit_fsize``.
BYTECODE_OFF = {"PYTHONDONTWRITEBYTECODE": "1"}


def test_import_that_hits_the_file_size_limit_leaves_the_log_untouched(memory_dir, tmp_path):
    build(memory_dir, 10)
    before = log_of(memory_dir)
    path = write_import(tmp_path / "big.txt", [f"{today()} imported line {i}" for i in range(5000)])
    env = dict(os.environ, MEMORY_DIR=str(memory_dir))
    proc = subprocess.run([sys.executable, "-m", "optmem", "import", str(path)],
                          env={**env, **BYTECODE_OFF},
                          cwd=str(REPO), capture_output=True,
                          preexec_fn=limit_fsize(len(before) + 300 * LOG + 17))
    proc_refused(proc)
    assert str(memory_dir / "LOG.txt").encode() in proc.stderr
    assert log_of(memory_dir) == before
    assert not (memory_dir / ".append").exists()
    # And the store still works afterwards.
    proc = subprocess.run([sys.executable, "-m", "optmem", "note", "after"], env=env,
                          cwd=str(REPO), capture_output=True)
    assert proc.stdout.startswith(b"Saved as #10."), proc.stderr


def test_a_note_at_the_file_size_limit(memory_dir):
    build(memory_dir, 10)
    before = log_of(memory_dir)
    env = dict(os.environ, MEMORY_DIR=str(memory_dir))
    proc = subprocess.run([sys.executable, "-m", "optmem", "note", "one more"],
                          env={**env, **BYTECODE_OFF},
                          cwd=str(REPO), capture_output=True,
                          preexec_fn=limit_fsize(len(before) + 100))
    proc_refused(proc)
    assert log_of(memory_dir) == before


def test_a_summary_at_the_file_size_limit_is_not_reported_saved(memory_dir):
    build(memory_dir, 4, summaries=False)
    (memory_dir / "TREE" / "2").write_bytes(srec("summary zero"))
    env = dict(os.environ, MEMORY_DIR=str(memory_dir))
    proc = subprocess.run([sys.executable, "-m", "optmem", "sleep", "2-3", "summary one"],
                          env={**env, **BYTECODE_OFF}, cwd=str(REPO), capture_output=True,
                          preexec_fn=limit_fsize(TREE + 100))
    assert b"Traceback" not in proc.stderr
    size = (memory_dir / "TREE" / "2").stat().st_size
    if proc.returncode == 0:
        assert size == 2 * TREE, (proc.stdout, size)
    else:
        proc_refused(proc)
        assert size % TREE == 0 or size == TREE + 100  # cut by the next sleep


def test_an_export_at_the_file_size_limit_leaves_no_file_and_names_it(memory_dir, tmp_path):
    """An export that reaches the limit part-way: its file is removed, and
    the one line names the export's file, not the store."""
    big_store(memory_dir, 3000)
    target = tmp_path / "out.txt"
    proc = subprocess.run([sys.executable, "-m", "optmem", "export", str(target)],
                          env=dict(os.environ, MEMORY_DIR=str(memory_dir), **BYTECODE_OFF),
                          cwd=str(REPO), capture_output=True, preexec_fn=limit_fsize(40_000))
    proc_refused(proc)
    assert proc.stderr.decode().startswith(f"memo: {target}: File too large; ")
    assert not target.exists()


def test_write_all_writes_every_byte_through_short_writes(tmp_path, monkeypatch):
    """``atomic.write_all`` and ``WholeWrites`` under a buffered writer: an
    ``os.write`` that stops short is called again for the rest, and the
    error that stops it is raised, never swallowed (CPython's buffered
    writer alone drops the rest of a large chunk and reports success)."""
    import io

    from optmem import atomic
    real_write, calls = os.write, []

    def short(fd, data):
        calls.append(len(data))
        if len(calls) > 6:
            raise OSError(28, "No space left on device")
        return real_write(fd, bytes(data[:1000]))

    data = bytes(range(256)) * 40  # 10,240 bytes: more than a buffer
    for how in ("write_all", "buffered"):
        calls.clear()
        path = tmp_path / how
        fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
        monkeypatch.setattr(os, "write", short)
        try:
            if how == "write_all":
                with pytest.raises(OSError):
                    atomic.write_all(fd, data)
            else:
                with pytest.raises(OSError):
                    with io.BufferedWriter(atomic.WholeWrites(fd)) as f:
                        f.write(data)
        finally:
            monkeypatch.setattr(os, "write", real_write)
            os.close(fd)
        assert path.read_bytes() == data[:6000] and len(calls) == 7
    fd = os.open(tmp_path / "whole", os.O_WRONLY | os.O_CREAT, 0o600)
    monkeypatch.setattr(os, "write", lambda fd, data: real_write(fd, bytes(data[:1000])))
    try:
        assert atomic.write_all(fd, data) == len(data)
    finally:
        monkeypatch.setattr(os, "write", real_write)
        os.close(fd)
    assert (tmp_path / "whole").read_bytes() == data


@pytest.mark.skipif(AS_ROOT, reason="runs as root: a read-only mode does not stop root "
                    "writing, and chattr/read-only mounts are unavailable here")
def test_a_read_only_store(memo, inited):  # pragma: no cover - root in CI
    build(inited, 2)
    inited.chmod(0o500)
    (inited / "LOG.txt").chmod(0o400)
    try:
        refused(memo("note", "x"), str(inited))
    finally:
        inited.chmod(0o700)
        (inited / "LOG.txt").chmod(0o600)


# -- the write guard -------------------------------------------------------------

BREAKS = ["\n", "\r", "\r\n", "\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]
GUARDED = ([f"one{b}two" for b in BREAKS]
           + ["red \x1b[31m text", "bell \x07", "bidi \u202e reversed", "iso \u2066 x \u2069",
              "zero\u200bwidth", "word\u2060joiner", "bom\ufeff", "tag \U000E0041",
              "my key sk-proj-" + "A1b2C3d4" * 6, "tab\there", "nul\x00byte"])


@pytest.mark.parametrize("text", GUARDED, ids=[repr(t) for t in GUARDED])
def test_the_write_guard_refuses_and_writes_nothing(memo, inited, text):
    build(inited, 2, summaries=False)
    before = log_of(inited)
    refused(memo("note", text), "")
    refused(memo("note", "-", input=text + "\n"))
    refused(memo("sleep", "0-1", text))
    refused(memo("sleep", "0-1", "-", input=text + "\n"))
    assert log_of(inited) == before
    assert not (inited / "TREE" / "2").exists()
    path = inited.parent / "in.txt"
    path.write_bytes(f"{today()} fine\n{today()} {text}\n".encode("utf-8", "surrogatepass"))
    result = memo("import", str(path))
    if "\n" in text.strip(" ") or "\r" in text:  # the file has an extra line: still refused
        assert result.exit_code == 1
    else:
        refused(result, "line 2")
    assert log_of(inited) == before


def test_the_guard_never_echoes_the_secret(memo, inited):
    secret = "sk-proj-" + "A1b2C3d4" * 6
    result = memo("note", f"my key {secret}")
    refused(result)
    assert secret not in result.stderr and secret[8:] not in result.stderr


def test_ordinary_prose_passes(memo, inited):
    for text in ["Fixed bug #12 in parser; 3 tests pass — café, naïve, 中文, emoji ☕👍🏽",
                 "password reset flow documented", "sk-learn works", "x" * 280]:
        assert ok(memo("note", text)).startswith("Saved as #")


# -- records that look whole but hold bytes memo never writes --------------------

def test_a_record_padded_with_nul_bytes_is_reported(memo, inited):
    """A crash on a delayed-allocation file system can leave a record whose
    head was written and whose padding is zeros: check must see it, and
    wake must not print NUL bytes."""
    build(inited, 4)
    body = f"#2 {D0} half written".encode()
    damage(inited, 2, body + b"\x00" * (LOG - 1 - len(body)) + b"\n")
    result = memo("check")
    no_traceback(result)
    assert result.exit_code == 1 and "record #2 (offset 640)" in result.stdout, result.stdout
    result = memo("wake")
    no_traceback(result)
    assert "\x00" not in result.stdout


def test_wake_never_prints_terminal_escapes_from_the_log(memo, inited):
    """The write guard keeps escapes out of what memo writes, but a log
    written by another tool (or by hand) can hold them; reads must not
    replay them into the agent's terminal, and check must name them."""
    build(inited, 4)
    damage(inited, 2, rec(2, "title \x1b]0;owned\x07 clear \x1b[2J done"))
    out = memo("wake").stdout + memo("recall", "title").stdout + memo("zoom", "2").stdout
    assert "\x1b" not in out and "\x07" not in out, repr(out)
    result = memo("check")
    assert result.exit_code == 1 and "record #2" in result.stdout, result.stdout


# -- an interrupted init, descriptors ------------------------------------------------

@pytest.mark.parametrize("left", ["TREE", "TREE+config", "config"])
def test_an_interrupted_init_is_finished_by_init(memo, memory_dir, left):
    """A crash inside ``memo init`` leaves the directory with part of what
    init creates and no LOG.txt: init must finish the job, not refuse the
    directory for ever."""
    memory_dir.mkdir(mode=0o700)
    if "TREE" in left:
        (memory_dir / "TREE").mkdir(mode=0o700)
    if "config" in left:
        (memory_dir / "config").write_text("WAKE_LINES=64\n")
    result = memo("init")
    assert result.exit_code == 0, result.stderr
    assert (memory_dir / "LOG.txt").read_bytes() == b""
    if "config" in left:
        assert (memory_dir / "config").read_text() == "WAKE_LINES=64\n"
    assert memo("check").exit_code == 0


def test_init_refuses_a_directory_holding_other_files(memo, memory_dir):
    memory_dir.mkdir()
    (memory_dir / "notes.md").write_text("mine")
    refused(memo("init"), str(memory_dir))
    assert not (memory_dir / "LOG.txt").exists()


def test_commands_do_not_leak_file_descriptors(memo, inited):
    """In-process use (tests, a library caller) must not keep LOG.txt open
    after each command: a long session would run out of descriptors."""
    fd_dir = Path("/proc/self/fd")
    if not fd_dir.is_dir():
        pytest.skip("no /proc/self/fd on this system")
    build(inited, 4)
    memo("wake")
    start = len(list(fd_dir.iterdir()))
    for args in (("note", "one more"), ("wake",), ("recall", "x"), ("stats",), ("sleep",),
                 ("check",), ("zoom", "0-1")):
        for _ in range(5):
            memo(*args)
    assert len(list(fd_dir.iterdir())) - start <= 1


def test_tree_that_is_a_file_is_named_as_such(memo, inited):
    """The recovery must name TREE itself: "move TREE/2 away" cannot be done
    when TREE is a file."""
    build(inited, 4, summaries=False)
    (inited / "TREE").rmdir()
    (inited / "TREE").write_text("not a directory")
    tree = str(inited / "TREE")
    for args in (("sleep",), ("sleep", "0-1", "x")):
        err = refused(memo(*args), tree)
        assert f"{tree}/2" not in err, err
    wake = memo("wake")  # four memories need no summary: shown, then the step
    assert wake.exit_code == 0 and f"{tree} is not a directory" in wake.stdout
    assert f"{tree}/2" not in wake.stdout and "Run: memo sleep" not in wake.stdout
    assert (inited / "TREE").read_text() == "not a directory"

"""The store on its filesystem: a path outside the store is not a store
problem, no store file is written through a link, a filesystem without
locks is named at once, and a deleted working directory is named, not the
store.
"""

from __future__ import annotations

import errno
import fcntl
import os

import pytest

from conftest import answer_all
from helpers import LOG, log_bytes, notes, ok, one_line


def test_a_path_outside_the_store_is_not_a_store_problem(memo, inited, tmp_path):
    result = memo("export", str(tmp_path / "no" / "such" / "dir" / "x.txt"))
    assert result.exit_code == 1
    assert "No such file or directory" in result.stderr and "memo check" not in result.stderr


@pytest.mark.parametrize("how", ["symlink", "hardlink"])
def test_a_level_file_linked_to_the_log_is_never_written_through(memo, inited, how):
    """``TREE/2`` as a link to ``LOG.txt``: ``memo forget 0-1`` cut the link's
    target, the log, to 0 bytes (every memory lost); a summary would have
    been appended into it. Now every command refuses, naming the move."""
    import os
    notes(memo, 5)
    log = (inited / "LOG.txt").read_bytes()
    level = inited / "TREE" / "2"
    if how == "symlink":
        os.symlink("../LOG.txt", level)
    else:
        os.link(inited / "LOG.txt", level)
    for args in [("forget", "0-1"), ("sleep", "0-1", "x"), ("note", "more"), ("redact", "0", "--yes"),
                 ("check",)]:
        result = memo(*args)
        assert result.exit_code == 1, (args, result.stdout)
        assert f"A person can run: mv -- {level} " in result.stdout + result.stderr
        assert (inited / "LOG.txt").read_bytes() == log
    level.unlink()
    answer_all(memo)
    assert ok(memo("check")).endswith("The store is whole.\n")


@pytest.mark.parametrize("name", [".append.tmp", "recovered.txt", ".append.kept"])
def test_no_store_file_is_written_through_a_link(memo, inited, name):
    import os
    notes(memo, 3)
    os.symlink("LOG.txt", inited / name)
    with open(inited / "LOG.txt", "ab") as f:
        f.write(b"torn")  # the next write keeps these bytes in recovered.txt
    log = (inited / "LOG.txt").read_bytes()
    result = memo("note", "after the link")
    now = (inited / "LOG.txt").read_bytes()
    assert now[:3 * LOG] == log[:3 * LOG]  # no memory lost or moved
    assert now.endswith(b"torn") or b"torn" in (inited / "recovered.txt").read_bytes()
    if result.exit_code:
        assert "is a link" in result.stderr and "A person can run: mv -- " in result.stderr
        assert len(now) <= len(log)  # nothing appended
    else:
        assert now[3 * LOG:].startswith(b"#3 ")


@pytest.mark.parametrize("code", [errno.ENOSYS, errno.ENOLCK])
def test_a_filesystem_without_locks_is_named_at_once(memo, inited, monkeypatch, code):
    import optmem.store.lock
    monkeypatch.setattr(optmem.store.lock, "LOCK_TIMEOUT", 0.2)  # never the thing asserted
    real = fcntl.flock

    def flock(fd, op):
        if op & fcntl.LOCK_EX:
            raise OSError(code, os.strerror(code))
        return real(fd, op)

    monkeypatch.setattr(fcntl, "flock", flock)
    before = log_bytes(inited)
    result = memo("note", "a fact that cannot be saved here")
    line = one_line(result.stderr)
    assert result.exit_code == 1
    assert "does not support file locks" in line and os.strerror(code) in line
    assert "another memo" not in line and "Run: memo check" not in line
    assert log_bytes(inited) == before


def test_a_deleted_working_directory_is_named_not_the_store(memo, inited, tmp_path,
                                                          monkeypatch):
    (inited / "projects").mkdir()  # scope discovery asks where memo runs
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    for args in (["wake"], ["note", "a fact"]):
        line = one_line(memo(*args).stderr)
        assert "the working directory no longer exists" in line, line
        assert str(inited) not in line and "Run: memo check" not in line


def test_a_lock_held_by_another_memo_says_nothing_was_written_and_to_run_again(
        memo, inited, monkeypatch):
    # Another process holds the store lock; this note gives up after a short
    # wait (the length is never the thing asserted) and says the note was
    # not written, so the agent runs it again, not `memo check`.
    import subprocess
    import sys

    import optmem.store.lock
    monkeypatch.setattr(optmem.store.lock, "LOCK_TIMEOUT", 0.3)
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import fcntl, os, sys; fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600); "
         "fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); sys.stdin.read()",
         str(inited / ".lock")], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        before = log_bytes(inited)
        result = memo("note", "a fact written while another memo holds the lock")
    finally:
        holder.communicate("", timeout=60)
    line = one_line(result.stderr)
    assert result.exit_code == 1
    assert "another memo has held" in line and "nothing was written" in line
    assert line.endswith("then run the command again")
    assert "Run: memo check" not in line
    assert log_bytes(inited) == before


def test_a_log_lost_beside_its_summaries_is_named_and_never_started_again(memo, inited):
    """``LOG.txt`` gone while ``TREE/`` holds summaries: every command and
    ``memo init`` say the log was lost, name how many summaries stay, and
    create nothing (an empty log there would be a second identity)."""
    from conftest import answer_all
    for k in range(4):
        assert memo("note", f"memory {k}").exit_code == 0
    answer_all(memo)
    (inited / "LOG.txt").unlink()
    for args in (["wake"], ["init"], ["note", "a new memory"]):
        result = memo(*args)
        assert result.exit_code == 1 and result.stderr.count("\n") == 1, result.stderr
        assert "LOG.txt is missing, though" in result.stderr and "holds 3 summaries" in result.stderr
        assert "No memory at" not in result.stderr and "memo init\n" not in result.stderr
    assert not (inited / "LOG.txt").exists()

"""Real processes: the launcher, ``python -m optmem``, the console script,
orders run by a real shell, locales, eight writers at once, and closed
standard streams (never a traceback, never a store file in their place)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from conftest import REPO

BIN = Path(sys.executable).parent  # the interpreter running the tests (the venv)


def env(**extra):
    """The test's environment with this interpreter's bin first on PATH, so
    ``#!/usr/bin/env python3`` finds the Python that has click and filelock."""
    e = dict(os.environ)
    e["PATH"] = f"{BIN}{os.pathsep}{e.get('PATH', '')}"
    e.pop("PYTHONIOENCODING", None)
    e.update(extra)
    return e


def run(args, input=None, **extra):
    return subprocess.run(args, input=input, capture_output=True, env=env(**extra),
                          cwd=REPO)


def memo_cmd():
    """How to run ``memo``: the console script if installed, else the launcher."""
    found = shutil.which("memo", path=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    return [found] if found else [str(REPO / "memo")]


def assert_clean_error(result):
    assert result.returncode == 1
    err = result.stderr.decode()
    assert "Traceback" not in err
    assert err.startswith("memo: ") and len(err.strip().splitlines()) == 1


def test_launcher_runs(memory_dir):
    launcher = REPO / "memo"
    assert os.access(launcher, os.X_OK)
    helped = run([str(launcher), "--help"])
    assert helped.returncode == 0, helped.stderr
    assert b"wake" in helped.stdout and b"note" in helped.stdout
    missing = run([str(launcher), "wake"])
    assert_clean_error(missing)
    assert b"memo init" in missing.stderr
    assert run([str(launcher), "init"]).returncode == 0
    noted = run([str(launcher), "note", "noted through the launcher"])
    assert (noted.returncode, noted.stdout, noted.stderr) == (0, b"Saved as #0.\n", b"")
    assert (memory_dir / "LOG.txt").stat().st_size == 320


def test_python_dash_m_runs(memory_dir):
    helped = run([sys.executable, "-m", "optmem", "--help"])
    assert helped.returncode == 0, helped.stderr
    assert b"recall" in helped.stdout
    assert run([sys.executable, "-m", "optmem", "init"]).returncode == 0
    noted = run([sys.executable, "-m", "optmem", "note", "noted with -m"])
    assert noted.stdout == b"Saved as #0.\n"


def test_console_script_runs(memory_dir):
    found = shutil.which("memo", path=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    if not found or Path(found).resolve() == (REPO / "memo").resolve():
        pytest.skip("the console script `memo` is not installed (pip install -e .)")
    assert run([found, "init"]).returncode == 0
    noted = run([found, "note", "noted with the console script"])
    assert noted.stdout == b"Saved as #0.\n"
    awake = run([found, "wake"])
    assert awake.returncode == 0 and awake.stdout.endswith(b"You are awake.\n")


def test_output_is_utf8_whatever_the_locale(memory_dir):
    memo = memo_cmd()
    assert run(memo + ["init"]).returncode == 0
    assert run(memo + ["note", "café ☕ naïve"], LC_ALL="C", LANG="C").returncode == 0
    for extra in ({"LC_ALL": "C", "LANG": "C"}, {"LC_ALL": "C", "PYTHONIOENCODING": "ascii"},
                  {"PYTHONIOENCODING": "latin-1"}):
        result = run(memo + ["recall", "caf"], **extra)
        assert result.returncode == 0, (extra, result.stderr)
        assert result.stdout.splitlines()[0].endswith(" café ☕ naïve".encode("utf-8")), extra


def test_a_sleep_order_runs_as_printed_in_bash(memory_dir, tmp_path):
    bash = shutil.which("bash")
    if not bash:
        pytest.skip("bash not found")
    memo = memo_cmd()
    assert run(memo + ["init"]).returncode == 0
    run(memo + ["note", "one"])
    prompt = run(memo + ["note", "two"]).stdout.decode()
    lines = prompt.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Run: memo sleep"))
    order = "\n".join(lines[start:]) + "\n"
    assert order.startswith("Run: ")
    dangerous = "$(touch pwned1) `touch pwned2` $HOME ${PATH} !! 'single' \"double\" \\ end"
    script = order[len("Run: "):].replace("<your line>", dangerous)
    done = subprocess.run([bash, "-c", script], capture_output=True, cwd=tmp_path,
                          env=env())
    assert done.returncode == 0, done.stderr
    assert done.stdout == b"0-1 saved.\nNothing left to compress.\n"
    assert not (tmp_path / "pwned1").exists() and not (tmp_path / "pwned2").exists()
    stored = (memory_dir / "TREE" / "2").read_bytes()
    assert stored == dangerous.encode() + b" " * (287 - len(dangerous.encode())) + b"\n"


WORKER = textwrap.dedent("""
    import sys, time
    from optmem.cli.app import cli
    w, n, start = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
    while time.time() < start:
        time.sleep(0.001)
    for j in range(n):
        cli.main(["note", f"worker {w} memory {j}"], prog_name="memo", standalone_mode=False)
""")

WORKERS, EACH = 8, 25


def test_eight_writers_at_once(memory_dir):
    assert run(memo_cmd() + ["init"]).returncode == 0
    start = time.time() + 1.0  # every process imported and waiting: then all go
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, str(w), str(EACH), str(start)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env(),
                              cwd=REPO)
             for w in range(WORKERS)]
    ids = []
    for p in procs:
        out, err = p.communicate()
        assert p.returncode == 0, err.decode()
        assert b"Traceback" not in err
        saved = [line for line in out.decode().splitlines() if line.startswith("Saved as #")]
        assert len(saved) == EACH
        ids += [int(line[len("Saved as #"):-1]) for line in saved]
    N = WORKERS * EACH
    assert sorted(ids) == list(range(N))  # no id lost or given twice
    data = (memory_dir / "LOG.txt").read_bytes()
    assert len(data) == N * 320
    texts = set()
    for i in range(N):
        record = data[i * 320:(i + 1) * 320]
        assert record.endswith(b"\n") and b"\n" not in record[:-1], i
        line = record[:-1].decode("utf-8").rstrip(" ")
        head, date, text = line.split(" ", 2)
        assert head == f"#{i}"
        assert len(date) == 10 and date[4] == "-" and date[7] == "-"
        assert record[:-1] == line.encode() + b" " * (319 - len(line.encode()))
        texts.add(text)
    assert texts == {f"worker {w} memory {j}" for w in range(WORKERS) for j in range(EACH)}
    # Compressions are pending now; the store is sound and sleep offers 0-1.
    sleep = run(memo_cmd() + ["sleep"])
    assert sleep.returncode == 0
    assert b"Run: memo sleep 0-1 - <<'SUMMARY'" in sleep.stdout


def test_reads_take_no_lock_and_writes_wait_for_it(memory_dir):
    from filelock import FileLock
    memo = memo_cmd()
    assert run(memo + ["init"]).returncode == 0
    assert run(memo + ["note", "before the lock"]).returncode == 0
    lock = FileLock(str(memory_dir / ".lock"))
    lock.acquire()
    try:
        # Readers do not take the lock: while it is held they still answer
        # (one that waited would fail after the writers' 60 s wait).
        woke = subprocess.run(memo + ["wake"], capture_output=True, env=env())
        assert woke.returncode == 0 and woke.stdout.endswith(b"You are awake.\n")
        found = subprocess.run(memo + ["recall", "before"], capture_output=True, env=env())
        assert found.returncode == 0 and b"#0 " in found.stdout
        # A writer waits for the lock ...
        writer = subprocess.Popen(memo + ["note", "after the lock"], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, env=env())
        time.sleep(1.5)
        assert writer.poll() is None, "note did not wait for the store lock"
        assert (memory_dir / "LOG.txt").stat().st_size == 320
    finally:
        lock.release()
    # ... and goes on once it is free.
    out, err = writer.communicate()
    assert writer.returncode == 0, err
    assert out.startswith(b"Saved as #1.\n")
    assert (memory_dir / "LOG.txt").stat().st_size == 640


def run_closed(args, memory_dir, closed, input=None):
    """``memo ARGS`` as a separate process with the standard streams in
    ``closed`` (a subset of 0, 1, 2) closed, as ``<&-``, ``>&-`` and ``2>&-``
    do in a shell. Returns ``(exit status, stdout, stderr)``: bytes, empty
    for a closed stream."""
    env = dict(os.environ, MEMORY_DIR=str(memory_dir))
    env.pop("PYTHONIOENCODING", None)
    redirs = " ".join({0: "<&-", 1: ">&-", 2: "2>&-"}[fd] for fd in sorted(closed))
    script = f'exec "$@" {redirs}'
    proc = subprocess.run(["sh", "-c", script, "sh", sys.executable, "-m", "optmem", *args],
                          cwd=REPO, env=env, input=input,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return proc.returncode, proc.stdout, proc.stderr


COMMANDS = [
    (["note", "a note written with a closed stream"], 0),
    (["wake"], 0),
    (["recall", "note"], 0),
    (["stats"], 0),
    (["config"], 0),
    (["zoom", "0-1"], 0),
    (["sleep"], 0),
    (["zoom", "3-1"], 1),
    (["hook", "session-start", "--harness", "claude"], 0),
]


@pytest.mark.parametrize("closed", [{1}, {2}, {1, 2}, {0, 1, 2}],
                         ids=["stdout", "stderr", "stdout+stderr", "all three"])
@pytest.mark.parametrize("args, code", COMMANDS, ids=[" ".join(a) for a, _ in COMMANDS])
def test_a_closed_standard_stream_is_never_a_traceback(memory_dir, memo, args, code, closed):
    """``memo wake >&-`` printed a traceback (``sys.stdout`` is ``None``):
    every command runs to its end and keeps its exit status, whatever
    standard stream is closed, and what it writes to the store is kept."""
    assert memo("init").exit_code == 0
    for k in range(3):
        assert memo("note", f"memory {k} before the closed streams").exit_code == 0
    status, out, err = run_closed(args, memory_dir, closed)
    assert b"Traceback" not in out + err
    assert status == code, err
    if 2 not in closed and code == 0:
        assert err == b""
    if args[0] == "note":
        log = (memory_dir / "LOG.txt").read_bytes()
        assert b"a note written with a closed stream" in log
        assert len(log) % 320 == 0


def test_a_closed_stdout_cannot_become_a_store_file(memory_dir, memo, tmp_path):
    """A closed fd 1 is the number the next open() returns: it must be
    /dev/null before memo opens the store, so that a child that writes to
    its stdout (``sleep --with CMD``) writes nowhere near the log."""
    assert memo("init").exit_code == 0
    for k in range(2):
        assert memo("note", f"memory {k} for the pay command").exit_code == 0
    log_before = (memory_dir / "LOG.txt").read_bytes()
    status, out, err = run_closed(["sleep", "--with", "cat >/dev/null; echo paid summary"],
                                  memory_dir, {1})
    assert b"Traceback" not in err
    assert status == 0, err
    assert (memory_dir / "LOG.txt").read_bytes() == log_before
    assert (memory_dir / "TREE" / "2").read_bytes().startswith(b"paid summary")


@pytest.mark.parametrize("closed", [{0}, {0, 1}], ids=["stdin", "stdin+stdout"])
def test_memo_mcp_with_a_closed_stdin_says_so_in_one_line(memory_dir, memo, closed):
    """``memo mcp <&-`` was ``internal error (AttributeError ...)``: the
    server has no client to talk to, which is one line and exit 1, whether
    or not the MCP extra is installed (the stream is checked first)."""
    assert memo("init").exit_code == 0
    status, out, err = run_closed(["mcp"], memory_dir, closed)
    assert status == 1 and out == b""
    assert err == (b"memo: standard input is closed; memo mcp talks to its client over "
                   b"standard input and output: let an MCP client start it (memo setup "
                   b"claude-desktop|cursor writes the entry)\n")

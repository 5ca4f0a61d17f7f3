"""``MEMORY_DIR`` names one store wherever memo runs (README "MEMORY_DIR"),
standard input in every state, interrupts and closed pipes, and a store
this user cannot write or read.

Each row asserts the exit status, the one line shown, and that no store
was created or changed. "Another user" runs ``memo`` in a subprocess that
drops to an unprivileged uid (possible only when the suite runs as root).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile

import pytest

from conftest import REPO
from helpers import last_line
from optmem.errors import NoStore
from optmem.store.paths import check_memory_dir, memory_dir

NOBODY = 65534


def one_line(result, code=1):
    assert result.exit_code == code, (result.stdout, result.stderr)
    assert result.stdout == ""
    assert result.stderr.startswith("memo: ") and result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr
    assert "Run: memo init" not in result.stderr
    return result.stderr


# -- MEMORY_DIR shapes ----------------------------------------------------------

#: (MEMORY_DIR value, words the one line holds)
SHAPES = [
    ("", ["MEMORY_DIR is not set", "et it to the absolute path"]),
    ("$HOME/memory", ["still holds '$'", "no shell expanded it", "MEMORY_DIR=/"]),
    ("${HOME}/memory", ["still holds '$'"]),
    ("mem", ["'mem' is a relative path", "MEMORY_DIR=/"]),
    ("./mem", ["is a relative path"]),
    ("~nosuchuser12345/mem", ["is a relative path"]),
]


@pytest.mark.parametrize("value, words", SHAPES, ids=[v or "(empty)" for v, _ in SHAPES])
@pytest.mark.parametrize("command", [("init",), ("wake",), ("note", "x"), ("recall", "x")])
def test_memory_dir_shapes_are_refused_with_why(memo, monkeypatch, tmp_path, value, words,
                                                command):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MEMORY_DIR", value)
    line = one_line(memo(*command))
    for word in words:
        assert word in line, line
    if not value:  # the person's step runs as printed: init itself sets it first
        step = 'A person can run: export MEMORY_DIR="$HOME/memory" && memo init'
        assert line.rstrip("\n").endswith(step), line
    assert list(tmp_path.iterdir()) == []  # no second store in the current folder


def test_tilde_is_expanded(memo, monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("MEMORY_DIR", "~/memory")
    assert memo("init").exit_code == 0
    assert (tmp_path / "memory" / "LOG.txt").is_file()
    assert memo("note", "kept under the home").stdout == "Saved as #0.\n"
    assert memory_dir("~/memory") == str(tmp_path / "memory")


def test_the_resolver_is_one_function():
    assert check_memory_dir("/abs/path") == "/abs/path"
    assert memory_dir("/abs//path/") == "/abs/path"
    for bad in ("", "rel", "$X/y", "/a/$b", "/a/`b`", None):
        with pytest.raises(NoStore):
            check_memory_dir(bad)


def test_a_missing_store_says_to_check_the_path(memo, memory_dir):
    line = one_line(memo("wake"))
    assert f"No memory at {memory_dir} (MEMORY_DIR)." in line
    assert "A person can run: memo init" in line


@pytest.mark.parametrize("command", [("wake",), ("init",), ("note", "x"), ("stats",)])
def test_a_broken_symlink_is_named_with_its_target(memo, memory_dir, tmp_path, command):
    memory_dir.symlink_to(tmp_path / "gone")
    line = one_line(memo(*command))
    assert f"MEMORY_DIR {memory_dir} is a link to {tmp_path / 'gone'}, which does not exist" \
        in line
    assert "memo init" not in line.split("(")[0]
    assert not (tmp_path / "gone").exists()


def test_a_directory_that_is_not_a_store(memo, memory_dir):
    memory_dir.mkdir()
    (memory_dir / "notes.md").write_text("mine")
    line = one_line(memo("wake"))
    assert "has no LOG.txt, so it is not a memory store; check MEMORY_DIR" in line
    assert "memo init" not in line


# -- another user, a read-only store ---------------------------------------------

_READABLE = []


def _readable_packages() -> str:
    """A folder every user can read holding copies of optmem, click and
    filelock (made once per test process)."""
    if not _READABLE:
        import importlib.util
        top = tempfile.mkdtemp(prefix="optmem-packages-")
        for name in ("optmem", "click", "filelock"):
            where = importlib.util.find_spec(name).submodule_search_locations[0]
            shutil.copytree(where, os.path.join(top, name),
                            ignore=shutil.ignore_patterns("__pycache__"))
        for dirpath, _dirs, files in os.walk(top):
            os.chmod(dirpath, 0o755)
            for f in files:
                os.chmod(os.path.join(dirpath, f), 0o644)
        os.chmod(top, 0o755)
        _READABLE.append(top)
    return _READABLE[0]


def as_user(args, memory_dir, uid=NOBODY, input=None):
    """``memo`` as another user: a subprocess that drops to ``uid``."""
    if os.geteuid() != 0:
        pytest.skip("needs root to run memo as another user (the suite runs as uid "
                    f"{os.geteuid()}); run it as root to cover this case")
    env = {**os.environ, "MEMORY_DIR": str(memory_dir), "HOME": "/"}
    env.pop("PYTHONIOENCODING", None)

    def drop():
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)

    # The venv's interpreter may live where that user cannot go (/root): then
    # the system's, of the same version. The checkout and the venv may be
    # private too (a clone under mktemp -d is 0700), so the packages memo
    # needs are copied where every user can read them.
    env["PYTHONPATH"] = _readable_packages()
    system = f"/usr/bin/python{sys.version_info[0]}.{sys.version_info[1]}"
    for python in (sys.executable, system):
        try:
            return subprocess.run([python, "-m", "optmem", *args], input=input, cwd="/",
                                  capture_output=True, env=env, preexec_fn=drop)
        except (PermissionError, FileNotFoundError):
            continue
    pytest.skip(f"no Python {sys.version_info[0]}.{sys.version_info[1]} that uid {uid} "
                f"can run")


@pytest.fixture
def shared_store(memo):
    """A store other users can reach (the suite's tmp_path is 0700)."""
    top = tempfile.mkdtemp(prefix="optmem-shared-")
    os.chmod(top, 0o755)
    root = os.path.join(top, "mem")
    env = {**os.environ, "MEMORY_DIR": root}
    subprocess.run([sys.executable, "-m", "optmem", "init"], env=env, cwd=REPO, check=True,
                   capture_output=True)
    yield root
    shutil.rmtree(top)


def test_another_users_store_says_permission(memory_dir, memo):
    assert memo("init").exit_code == 0
    memo("note", "mine")
    before = (memory_dir / "LOG.txt").read_bytes()
    for args in (["wake"], ["note", "theirs"], ["recall", "mine"], ["stats"]):
        proc = as_user(args, memory_dir)
        err = proc.stderr.decode()
        assert (proc.returncode, proc.stdout) == (1, b""), err
        assert err.startswith("memo: permission denied: this user (uid 65534) cannot "
                              "read") and err.count("\n") == 1, err
        assert "not a memory store" not in err and "memo init" not in err
    assert (memory_dir / "LOG.txt").read_bytes() == before


def test_a_read_only_store_reads_and_wakes_without_ordering_sleep(shared_store):
    env = {**os.environ, "MEMORY_DIR": shared_store}
    for k in range(5):  # owned by root, 0700: make it readable, not writable
        subprocess.run([sys.executable, "-m", "optmem", "note", f"memory {k} in Zürich"],
                       env=env, cwd=REPO, check=True, capture_output=True)
    for dirpath, _dirs, files in os.walk(shared_store):
        os.chmod(dirpath, 0o755)
        for name in files:
            os.chmod(os.path.join(dirpath, name), 0o644)
    before = open(os.path.join(shared_store, "LOG.txt"), "rb").read()
    woke = as_user(["wake"], shared_store)
    out = woke.stdout.decode()
    assert (woke.returncode, woke.stderr) == (0, b""), woke.stderr
    assert "#4 " in out and out.endswith("You are awake.\n")
    assert "read-only for this user (uid 65534)" in out
    assert "Run: memo sleep" not in out
    recalled = as_user(["recall", "zürich"], shared_store)
    assert recalled.returncode == 0 and b"5 matches." in recalled.stdout
    noted = as_user(["note", "cannot be written"], shared_store)
    assert noted.returncode == 1 and noted.stdout == b""
    assert b"Permission denied" in noted.stderr and noted.stderr.count(b"\n") == 1
    assert open(os.path.join(shared_store, "LOG.txt"), "rb").read() == before


# -- standard input -------------------------------------------------------------

def run_memo(args, stdin, env_extra=None, **kw):
    env = {**os.environ, **(env_extra or {})}
    env.pop("PYTHONIOENCODING", None)
    return subprocess.run([sys.executable, "-m", "optmem", *args], stdin=stdin, cwd=REPO,
                          capture_output=True, env=env, **kw)


#: (argv, what stdin is, the one line's words)
STDIN = [
    (["note", "-"], "closed", "standard input is closed; give the memory as an argument"),
    (["sleep", "0-1", "-"], "closed", "standard input is closed; give the summary"),
    (["import", "-"], "closed", "standard input is closed; give the path of a file"),
    (["note", "-"], "empty", "the memory is empty"),
    (["sleep", "0-1", "-"], "empty", "the summary is empty"),
    (["import", "-"], "empty", "standard input holds no memories"),
    (["note", "-"], "80 KB", "the memory on standard input is over 65536 bytes"),
    (["sleep", "0-1", "-"], "80 KB", "the summary on standard input is over 65536 bytes"),
    (["import", "-"], "80 KB", "standard input line 1 is longer than 65536 bytes"),
]


@pytest.mark.parametrize("argv, state, words", STDIN,
                         ids=[f"{' '.join(a)}: {s}" for a, s, _ in STDIN])
def test_stdin_states(memory_dir, memo, tmp_path, argv, state, words):
    assert memo("init").exit_code == 0
    memo("note", "one")
    memo("note", "two")
    before = (memory_dir / "LOG.txt").read_bytes()
    if state == "closed":
        # The shell's <&-: fd 0 is not open at all.
        proc = subprocess.run(["sh", "-c", 'exec "$@" <&-', "sh", sys.executable, "-m",
                               "optmem", *argv], cwd=REPO, capture_output=True,
                              env={k: v for k, v in os.environ.items()
                                   if k != "PYTHONIOENCODING"})
    else:
        data = b"" if state == "empty" else b"2024-05-01 " + b"a" * 80_000 + b"\n"
        proc = run_memo(argv, None, input=data) if data else \
            run_memo(argv, subprocess.DEVNULL)
    err = proc.stderr.decode()
    assert (proc.returncode, proc.stdout) == (1, b""), err
    assert err.startswith("memo: ") and err.count("\n") == 1 and words in err, err
    assert (memory_dir / "LOG.txt").read_bytes() == before
    assert not (memory_dir / "TREE" / "2").exists() or \
        (memory_dir / "TREE" / "2").read_bytes() == b""


def test_a_terminal_on_stdin_gets_a_hint(memory_dir, memo):
    assert memo("init").exit_code == 0
    import pty
    leader, follower = pty.openpty()
    try:
        proc = subprocess.Popen([sys.executable, "-m", "optmem", "note", "-"], stdin=follower,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO)
        os.close(follower)
        os.write(leader, b"typed at a terminal\n\x04")
        out, err = proc.communicate()
    finally:
        os.close(leader)
    assert proc.returncode == 0, err
    assert err == b"memo: reading the memory from the terminal; end it with Enter and Ctrl-D\n"
    assert out == b"Saved as #0.\n"
    record = (memory_dir / "LOG.txt").read_bytes()
    assert len(record) == 320 and record.split(b" ", 2)[2].rstrip() == b"typed at a terminal"


# -- interrupts and pipes -------------------------------------------------------

def wait_reading_stdin(pid: int, steps: int = 200_000) -> None:
    """Poll (a bounded number of steps) until ``pid`` blocks in read(0, ...)."""
    import time
    for _ in range(steps):
        try:
            with open(f"/proc/{pid}/syscall") as f:
                call = f.read().split()
        except OSError:
            call = []
        if call[:2] in (["0", "0x0"], ["63", "0x0"]):  # read(0, ...): x86-64, arm64
            return
        time.sleep(0.001)
    pytest.fail(f"memo (pid {pid}) never blocked reading stdin")


@pytest.mark.skipif(not os.path.exists("/proc/self/syscall"),
                    reason="needs /proc/<pid>/syscall to know memo is reading stdin")
@pytest.mark.parametrize("sig, code, name", [(signal.SIGINT, 130, "SIGINT"),
                                             (signal.SIGTERM, 143, "SIGTERM")])
@pytest.mark.parametrize("argv, kept", [(["import", "-"], "nothing was imported"),
                                        (["note", "-"], "nothing was saved")])
def test_an_interrupt_says_what_was_kept(memory_dir, memo, sig, code, name, argv, kept):
    assert memo("init").exit_code == 0
    memo("note", "kept before")
    before = (memory_dir / "LOG.txt").read_bytes()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONIOENCODING"}
    # SIGINT as a terminal delivers it: a suite started in the background by
    # a non-interactive shell inherits SIGINT ignored, and so would memo.
    proc = subprocess.Popen([sys.executable, "-m", "optmem", *argv], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO, env=env,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    # Nothing is written first: a read that returns data at once can be seen
    # in /proc and then end before the signal comes, leaving memo in a second
    # read when the signal lands. Blocked with no data, the signal always
    # interrupts the read.
    wait_reading_stdin(proc.pid)
    proc.send_signal(sig)
    out, err = proc.communicate()
    assert proc.returncode == code, err
    assert out == b""
    assert err == f"memo: stopped by {name}; {kept}\n".encode()
    assert (memory_dir / "LOG.txt").read_bytes() == before


@pytest.mark.parametrize("unbuffered", ["", "1"], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize("count", [3, 400], ids=["short output", "long output"])
def test_a_closed_output_pipe_ends_quietly(memory_dir, memo, unbuffered, count):
    assert memo("init").exit_code == 0
    lines = "".join(f"2024-05-01 line {k} of the Zürich move\n" for k in range(count))
    assert memo("import", "-", input=lines).exit_code == 0
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before memo writes (| head -c 0)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONIOENCODING"}
    env["PYTHONUNBUFFERED"] = unbuffered
    proc = subprocess.run([sys.executable, "-m", "optmem", "recall", "zürich"], cwd=REPO,
                          stdout=write_end, stderr=subprocess.PIPE, env=env)
    os.close(write_end)
    assert (proc.returncode, proc.stderr) == (141, b"")


def test_head_reads_ten_bytes(memory_dir, memo):
    assert memo("init").exit_code == 0
    # More output than a pipe holds (64 KiB), so memo is still writing when
    # head exits, however busy the machine: 4,000 lines, ~190 KB in one part.
    (memory_dir / "config").write_text("PART_CHARS=1000000\n")
    lines = "".join(f"2024-05-01 line {k} of the Zürich move\n" for k in range(4000))
    assert memo("import", "-", input=lines).exit_code == 0
    launcher = REPO / "memo"
    proc = subprocess.run(["bash", "-c", f'"{launcher}" recall zürich | head -c 10; '
                           'echo " ${PIPESTATUS[0]}"'], capture_output=True,
                          env={**os.environ, "PATH": f"{os.path.dirname(sys.executable)}:"
                               f"{os.environ['PATH']}"})
    assert proc.stdout == b"#0 2024-05 141\n"
    assert proc.stderr == b""


def test_init_without_memory_dir_says_what_to_set(memo, monkeypatch, tmp_path):
    monkeypatch.delenv("MEMORY_DIR")
    monkeypatch.chdir(tmp_path)
    result = memo("init")
    assert result.exit_code == 1 and "nothing was created" in result.stderr
    step = last_line(result.stderr).split("A person can run: ", 1)[1]
    assert step == 'export MEMORY_DIR="$HOME/memory" && memo init'
    assert list(tmp_path.iterdir()) == []

"""Races between real ``memo`` processes (docs/recovery.md).

Every writer holds the lock and takes its id inside it, and readers only
look at whole records, so: parallel notes lose and duplicate nothing;
parallel sessions answering the same compression store it once; a wake
that runs while the last compression lands prints either the refusal or the
whole document; and a part ``memo wake K T`` is a snapshot that never
changes, whatever is noted and compressed later.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import REPO
from helpers import LOG, TREE, srec

D0 = "2026-01-01"

_LAUNCHER = Path(sys.executable).parent / "memo"
MEMO = [str(_LAUNCHER)] if _LAUNCHER.is_file() else [sys.executable, "-m", "optmem"]


def rec(i: int, text: str) -> bytes:
    body = f"#{i} {D0} {text}".encode()
    return body + b" " * (LOG - 1 - len(body)) + b"\n"


def build(root: Path, n: int, summaries: bool = True, config: str = "") -> None:
    root.mkdir(mode=0o700, parents=True, exist_ok=True)
    (root / "TREE").mkdir(mode=0o700, exist_ok=True)
    (root / "LOG.txt").write_bytes(b"".join(rec(i, f"memory {i} tok{i}q") for i in range(n)))
    if summaries:
        size = 2
        while size <= n:
            (root / "TREE" / str(size)).write_bytes(b"".join(
                srec(f"summary {lo}-{lo + size - 1}") for lo in range(0, n - n % size, size)))
            size *= 2
    if config:
        (root / "config").write_text(config)


def env_for(root: Path) -> dict:
    return dict(os.environ, MEMORY_DIR=str(root))


def spawn(root: Path, *args, stdin=None):
    return subprocess.Popen(MEMO + list(args), env=env_for(root), cwd=str(REPO),
                            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def run(root: Path, *args, stdin=None) -> subprocess.CompletedProcess:
    return subprocess.run(MEMO + list(args), env=env_for(root), cwd=str(REPO), input=stdin,
                          capture_output=True)


def clean(stdout: bytes, stderr: bytes) -> None:
    assert b"Traceback" not in stdout + stderr, stderr.decode(errors="replace")


SLEEP_ORDER = re.compile(r"^Run: memo sleep (\d+-\d+) - <<'SUMMARY'$", re.M)


# -- 8 parallel noters -------------------------------------------------------

WORKERS, EACH = 8, 3

WORKER = r"""
import subprocess, sys
memo = sys.argv[1:-1]
k = int(sys.argv[-1])
for j in range(%d):
    p = subprocess.run(memo + ["note", f"worker {k} note {j} w{k}n{j}z"], capture_output=True)
    sys.stdout.buffer.write(b"RC %%d\n" %% p.returncode + p.stdout)
    sys.stderr.buffer.write(p.stderr)
""" % EACH


def test_parallel_noters_lose_and_duplicate_no_id(memory_dir):
    build(memory_dir, 3)
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, *MEMO, str(k)],
                              env=env_for(memory_dir), cwd=str(REPO),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for k in range(WORKERS)]
    saved = {}
    for k, p in enumerate(procs):
        out, err = p.communicate()
        clean(out, err)
        assert p.returncode == 0 and err == b"", err
        text = out.decode()
        assert text.count("RC 0\n") == EACH, text
        ids = [int(m) for m in re.findall(r"^Saved as #(\d+)\.$", text, re.M)]
        assert len(ids) == EACH and ids == sorted(ids), text
        for j, i in enumerate(ids):
            assert i not in saved, f"id {i} given twice"
            saved[i] = f"w{k}n{j}z"
    total = 3 + WORKERS * EACH
    assert sorted(saved) == list(range(3, total))
    data = (memory_dir / "LOG.txt").read_bytes()
    assert len(data) == total * LOG
    for i in range(total):
        record = data[i * LOG:(i + 1) * LOG]
        assert record.startswith(f"#{i} ".encode()) and record.endswith(b"\n")
        if i >= 3:
            assert saved[i].encode() in record, (i, record)
    tokens = re.findall(rb"w\d+n\d+z", data)
    assert len(tokens) == len(set(tokens)) == WORKERS * EACH
    assert not (memory_dir / ".append").exists()
    check = run(memory_dir, "check")
    assert check.returncode == 0 or b"pending" in check.stdout, check.stdout


# -- the same compression from several sessions --------------------------------

SESSIONS = 6


@pytest.mark.parametrize("round_", range(3))
def test_parallel_sessions_answering_the_same_compression_store_it_once(memory_dir, round_):
    build(memory_dir, 4, summaries=False)
    procs = [spawn(memory_dir, "sleep", "0-1", f"session {k} says 0-1") for k in range(SESSIONS)]
    results = []
    for p in procs:
        out, err = p.communicate()
        clean(out, err)
        results.append((p.returncode, out.decode(), err.decode()))
    assert all(rc == 0 and err == "" for rc, _, err in results), results
    stored = [out for _, out, _ in results if out.startswith("0-1 saved.\n")]
    again = [out for _, out, _ in results if out.startswith("Another session already wrote 0-1.\n")]
    assert len(stored) == 1 and len(again) == SESSIONS - 1, results
    for out in stored + again:  # each shows the next compression
        assert SLEEP_ORDER.findall(out) == ["2-3"], out
    data = (memory_dir / "TREE" / "2").read_bytes()
    assert len(data) == TREE
    winner = data.rstrip(b" \n").decode()
    assert re.fullmatch(r"session \d says 0-1", winner)
    assert not (memory_dir / "TREE" / "4").exists()


def test_parallel_sessions_racing_through_every_compression(memory_dir):
    """Several agents each answer whatever ``memo sleep`` shows them until
    nothing is left: every level ends dense, each block stored once."""
    build(memory_dir, 8, summaries=False)
    script = r"""
import re, subprocess, sys
memo = sys.argv[1:]
for _ in range(200):
    out = subprocess.run(memo + ["sleep"], capture_output=True, text=True)
    assert "Traceback" not in out.stdout + out.stderr, out.stderr
    if out.stdout == "Nothing left to compress.\n":
        break
    m = re.search(r"^Run: memo sleep (\d+-\d+) - ", out.stdout, re.M)
    block = m.group(1)
    r = subprocess.run(memo + ["sleep", block, f"sum of {block}"], capture_output=True, text=True)
    print(r.returncode, block, r.stdout.splitlines()[0] if r.stdout else "", r.stderr.strip())
"""
    procs = [subprocess.Popen([sys.executable, "-c", script, *MEMO], env=env_for(memory_dir),
                              cwd=str(REPO), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for _ in range(3)]
    for p in procs:
        out, err = p.communicate()
        clean(out, err)
        assert p.returncode == 0, err
        for line in out.decode().splitlines():
            rc, block, first, errline = (line.split(" ", 3) + ["", ""])[:4]
            # A stale prompt may name a block another session finished or
            # made obsolete: that is "already saved" (0) or a refusal naming
            # the next one (1), never anything worse.
            assert rc in ("0", "1"), line
    for size, n in ((2, 4), (4, 2), (8, 1)):
        data = (memory_dir / "TREE" / str(size)).read_bytes()
        assert len(data) == n * TREE, size
        for k in range(n):
            lo = k * size
            assert data[k * TREE:(k + 1) * TREE].rstrip(b" \n") == \
                f"sum of {lo}-{lo + size - 1}".encode()
    assert run(memory_dir, "check").returncode == 0


# -- wake while the last compression lands ----------------------------------------

def test_wake_during_the_last_compression_is_refusal_or_whole_document(memory_dir):
    config = "WAKE_LINES=4\n"
    build(memory_dir, 16, config=config)
    (memory_dir / "TREE" / "16").unlink()
    final = None
    outcomes = {0: 0, 1: 0}
    for _round in range(3):
        # Readers start all through the writer's life, so some run before,
        # during and after the summary lands.
        readers = [spawn(memory_dir, "wake")]
        writer = spawn(memory_dir, "sleep", "0-15", "the whole sixteen")
        for _ in range(5):
            time.sleep(0.04)
            readers.append(spawn(memory_dir, "wake"))
        out, err = writer.communicate()
        clean(out, err)
        assert writer.returncode == 0 and out == b"0-15 saved.\nNothing left to compress.\n", (out, err)
        if final is None:
            done = run(memory_dir, "wake")
            assert done.returncode == 0
            final = done.stdout
            assert final.endswith(b"You are awake.\n")
        for p in readers:
            rout, rerr = p.communicate()
            clean(rout, rerr)
            outcomes[p.returncode] = outcomes.get(p.returncode, 0) + 1
            if p.returncode == 0:
                # The whole document; before the summary landed, the pending
                # compression is handed over after it.
                document, awake, handed = rout.partition(b"You are awake.\n")
                assert document + awake == final, rout
                assert handed == b"" or handed.startswith(b"\nCompress memories #0-15 "), rout
                assert rerr == b""
            else:
                assert p.returncode == 1, (rout, rerr)
                assert rout.startswith(b"Cannot wake: 1 compression pending."), rout
                assert b"Run: memo sleep 0-15 - <<'SUMMARY'" in rout
                assert b"You are awake." not in rout
        forgot = run(memory_dir, "forget", "0-15")
        assert forgot.returncode == 0, forgot.stderr
    assert set(outcomes) <= {0, 1}


# -- a part is a snapshot -------------------------------------------------------

def all_parts(root: Path, T: int) -> list:
    parts, k = [], 1
    while True:
        p = run(root, "wake", str(k), str(T))
        clean(p.stdout, p.stderr)
        assert p.returncode == 0, p.stderr
        parts.append(p.stdout)
        if b"\nYou are awake.\n" in p.stdout:
            # The document as of T; pending work handed over after it is now's.
            parts.append(parts.pop().partition(b"You are awake.\n")[0])
            return parts
        assert p.stdout.endswith(f"Run: memo wake {k + 1} {T}\n".encode()), p.stdout
        k += 1


WRITER = r"""
set -e
for i in $(seq 1 %d); do
  "$@" note "later note $i l${i}q" >/dev/null
  while :; do
    out=$("$@" sleep)
    [ "$out" = "Nothing left to compress." ] && break
    block=$(printf '%%s\n' "$out" | sed -n "s/^Run: memo sleep \([0-9-]*\) - .*/\1/p")
    "$@" sleep "$block" "summary of $block written later" >/dev/null
  done
done
"""


NEW = 4


def test_a_wake_part_is_a_snapshot_while_the_store_grows(memory_dir):
    config = "WAKE_LINES=20\nPART_LINES=6\nPART_CHARS=2048\n"  # 20 lines in 4 parts
    build(memory_dir, 45, config=config)
    T = 45
    before = all_parts(memory_dir, T)
    assert len(before) >= 3
    writer = subprocess.Popen(["bash", "-c", WRITER % NEW, "writer", *MEMO],
                              env=env_for(memory_dir), cwd=str(REPO),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    seen = 0
    while writer.poll() is None or seen == 0:
        for k, want in enumerate(before, 1):
            p = run(memory_dir, "wake", str(k), str(T))
            clean(p.stdout, p.stderr)
            assert p.returncode == 0, (k, p.stdout, p.stderr)
            assert p.stdout.partition(b"You are awake.\n")[0] == want, (k, p.stdout)
            seen += 1
    out, err = writer.communicate()
    assert writer.returncode == 0, err
    assert (memory_dir / "LOG.txt").stat().st_size == (T + NEW) * LOG
    assert all_parts(memory_dir, T) == before
    # The newest document is a different one, and it too is whole.
    now = all_parts(memory_dir, T + NEW)
    assert now != before and now[-1].endswith(b"\n")


# -- parallel init -----------------------------------------------------------------

def test_parallel_inits_all_succeed_on_one_store(tmp_path):
    """Sessions that start together may all run ``memo init``: each must
    either create the store or find it, never fail half-way."""
    for round_ in range(5):
        root = tmp_path / f"fresh{round_}" / "mem"
        procs = [spawn(root, "init") for _ in range(6)]
        outs = []
        for p in procs:
            out, err = p.communicate()
            clean(out, err)
            outs.append((p.returncode, out.decode(), err.decode()))
        assert all(rc == 0 for rc, _, _ in outs), (round_, outs)
        assert sum(out.startswith("Created") for _, out, _ in outs) == 1, outs
        assert (root / "LOG.txt").read_bytes() == b""


# -- a forget that lands while wake renders -------------------------------------------

def test_wake_racing_a_forget_refuses_or_prints_the_whole_document(memory_dir, monkeypatch):
    """Interleaving injected at the race window: wake has checked that
    nothing is pending (``Store.built``), then another process forgets a
    summary wake is about to print. Wake must still print the whole
    document or the refusal with the prompt, never an internal error."""
    from click.testing import CliRunner

    from optmem.cli.app import cli
    from optmem.store.memory import Store

    build(memory_dir, 64, config="WAKE_LINES=8\n")
    real_built = Store.built
    fired = []

    def built_then_forget(self, T):
        result = real_built(self, T)
        if not fired:
            fired.append(run(memory_dir, "forget", "0-31"))
        return result

    monkeypatch.setattr(Store, "built", built_then_forget)
    monkeypatch.setenv("MEMORY_DIR", str(memory_dir))
    result = CliRunner().invoke(cli, ["wake"])
    assert fired and fired[0].returncode == 0, fired
    out = result.stdout + result.stderr
    assert "Traceback" not in out and "internal error" not in out, out
    if result.exit_code == 0:
        assert result.stdout.endswith("You are awake.\n")
        assert "#0-31 " in result.stdout
    else:
        assert result.exit_code == 1
        assert result.stdout.startswith("Cannot wake: "), out
        assert "Run: memo sleep 0-31 - <<'SUMMARY'" in result.stdout


# -- a writer killed mid-import -----------------------------------------------------------

def test_an_import_killed_midway_is_rolled_back_by_the_next_write(memory_dir, tmp_path):
    import datetime
    import signal

    build(memory_dir, 5)
    before = (memory_dir / "LOG.txt").read_bytes()
    today = datetime.date.today().isoformat()
    path = tmp_path / "big.txt"
    path.write_text("".join(f"{today} imported line {i} i{i}q\n" for i in range(40000)))
    log = memory_dir / "LOG.txt"
    for _attempt in range(3):
        p = spawn(memory_dir, "import", "--yes", str(path))
        while p.poll() is None:  # the import ends by itself: 40,000 lines
            if log.stat().st_size > len(before):
                break
            time.sleep(0.002)
        if p.poll() is None:
            p.send_signal(signal.SIGKILL)
            p.wait()
            break
        p.communicate()
        log.write_bytes(before)  # it finished too soon (a loaded machine): again
    else:
        pytest.skip("the import always finished before it could be killed")
    grown = log.stat().st_size
    assert grown > len(before)
    assert (memory_dir / ".append").exists()
    # The next write rolls the unacknowledged bytes back before appending.
    done = run(memory_dir, "note", "after the crash")
    clean(done.stdout, done.stderr)
    assert done.returncode == 0 and done.stdout.startswith(b"Saved as #5."), done.stderr
    data = log.read_bytes()
    assert data[:len(before)] == before and len(data) == len(before) + LOG
    assert b"after the crash" in data[len(before):]
    assert not (memory_dir / ".append").exists()


def test_an_init_that_sees_the_log_appear_while_it_looks_finds_the_store(tmp_path, monkeypatch):
    """Another ``memo init`` writes ``LOG.txt`` between this one's check for
    it and its listing of the folder: that is the store being made, not a
    folder of foreign files (it refused, "not empty and has no LOG.txt")."""
    from optmem.store import memory
    root = str(tmp_path / "mem")
    memory.Store.init(root)
    log = os.path.join(root, "LOG.txt")
    real = os.path.lexists
    missed = []

    def late(path):  # the first look at LOG.txt comes just before the other init wrote it
        if path == log and not missed:
            missed.append(path)
            return False
        return real(path)

    monkeypatch.setattr(memory.os.path, "lexists", late)
    store, created = memory.Store.init(root)
    assert missed and created is False
    store.close()

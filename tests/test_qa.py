"""Faults found by the QA pass (odd process states a user or harness can
create), each tested for its whole kind through a real ``memo`` process."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import REPO


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


def test_the_readme_knob_table_is_the_config_table():
    """README "Files" gave ranges memo does not apply (ENTRY_CHARS 16..287,
    WAKE_LINES 1..1,000,000): every knob's default and range there must be
    ``optmem.store.config.KNOBS``."""
    import re

    from optmem.store.config import KNOBS
    text = (REPO / "README.md").read_text(encoding="utf-8")
    rows = dict((m.group(1), (m.group(2), m.group(3), m.group(4))) for m in re.finditer(
        r"^\| `([A-Z_]+)` \| ([\d,]+) \| ([\d,]+)\.\.([\d,]+) \|", text, re.M))
    assert set(rows) == set(KNOBS)
    for name, (default, low, high, _meaning) in KNOBS.items():
        assert tuple(int(x.replace(",", "")) for x in rows[name]) == (default, low, high), name


def test_every_file_the_readme_imports_is_made_or_shipped():
    """The README's session ran ``memo import click-history.txt`` with no
    step that makes the file (the shipped one has 2,485 lines, the
    transcript 1,000): every ``$ memo import FILE`` in a console block is a
    file in the repository or written by an earlier ``$`` line of that
    block, and a ``head -n N`` that writes it gives the count printed."""
    import re
    text = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```console\n(.*?)```", text, re.S)
    seen = 0
    for block in blocks:
        made = {}
        lines = block.splitlines()
        for k, line in enumerate(lines):
            m = re.match(r"\$ head -n (\d+) (\S+) > (\S+)$", line)
            if m:
                made[m.group(3)] = (int(m.group(1)), REPO / m.group(2))
            m = re.match(r"\$ memo import (\S+)", line)
            if not m:
                continue
            seen += 1
            name = m.group(1)
            assert name in made or (REPO / name).is_file(), line
            if name in made:
                count, source = made[name]
                assert source.is_file(), source
                have = min(count, sum(1 for row in source.read_text(encoding="utf-8")
                                      .splitlines() if row.strip()))
                said = re.match(r"Imported (\d+) memor", lines[k + 1])
                assert said and int(said.group(1)) == have, lines[k + 1]
    assert seen


def test_no_module_has_an_invalid_escape():
    """protocol.py had ``\\w`` in a docstring: Python 3.12+ prints a
    SyntaxWarning on stderr whenever it compiles the module (a git clone's
    first run, ``-B``, a read-only install), two stray lines for the user.
    Every module compiles without a warning."""
    import warnings
    sources = sorted((REPO / "optmem").rglob("*.py")) + [REPO / "memo"]
    for path in sources:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            compile(path.read_text(encoding="utf-8"), str(path), "exec")


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

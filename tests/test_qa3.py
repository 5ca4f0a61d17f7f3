"""Faults of the third QA pass, each tested for its whole kind.

- A damaged log record never reaches a summary: the hand-over waits and
  says why; ``memo check --repair`` restores what the record's place
  implies (its id, its date when both neighbours share one) and loses
  nothing; a record whose text is damaged is a person's step.
- Every order memo prints begins its line or is the last sentence of it
  (the seed's ``... up. Run: memo sleep``), and runs as printed; every step
  only a person may take is ``A person can run: <command>``.
- Argument and standard-input edges: ``memo init`` without MEMORY_DIR,
  ``-- -`` naming a file, over-long input on every stdin reader.
"""

from __future__ import annotations

import ast
import re
import shlex

import pytest

from conftest import REPO, answer_all
from helpers import LOG, last_line, notes, ok, poke
from optmem.cli.app import cli

# -- 1. a damaged record is never summarised ------------------------------------


# -- 2 and 5. every order and every person's step, as printed ------------------

def _docstrings(tree) -> set:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def _strings():
    """``(where, text)`` for every string constant in optmem/ that is not a
    docstring (f-strings give their literal parts)."""
    for path in sorted((REPO / "optmem").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _docstrings(tree)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                    and id(node) not in skip):
                yield f"{path.relative_to(REPO)}:{node.lineno}", node.value


def _misplaced(text: str) -> list:
    """Occurrences of ``Run: `` / ``A person can run: `` that neither start a
    line nor follow the full stop of the sentence before them."""
    bad = []
    for m in re.finditer(r"(A person can run|Run): ", text):
        if m.group(1) == "Run" and text[:m.start()].endswith("A person can "):
            continue
        before = text[:m.start()]
        if before == "" or before.endswith(("\n", ". ", "`")) or text.strip() == m.group(0).strip():
            continue  # a line's start, a sentence's, quoted as code, or the marker itself
        bad.append(text[max(0, m.start() - 40):m.end() + 20])
    return bad


def test_no_message_puts_an_order_inside_a_sentence():
    bad = [(where, hit) for where, text in _strings() for hit in _misplaced(text)]
    assert bad == []


def test_no_message_leaves_a_persons_step_unprinted():
    """A step only a person may take is printed ``A person can run: ...``:
    no message speaks of "a human" or tells anyone to "move it away"
    without the command, and ``--yes`` is confirmed only in such a step."""
    bad = []
    for where, text in _strings():
        low = text.lower()
        if "a human" in low or "for humans" in low or "move it away" in low:
            bad.append((where, text))
        if "confirms it with --yes" in low:
            bad.append((where, text))
    assert bad == []


SUBCOMMANDS = set(cli.commands)


def _check_orders(text: str, where: str) -> list:
    """Every order and person's step in ``text``: placed at a line's start
    or after a full stop, the rest of the line a command shlex parses, a
    ``memo`` order naming a real subcommand whose arguments click accepts.
    Returns the ``Run:`` orders as argument lists."""
    orders = []
    for line in text.splitlines():
        assert _misplaced(line) == [], (where, line)
        for m in re.finditer(r"(A person can run|Run): (.*)$", line):
            if m.group(1) == "Run" and line[:m.start()].endswith("A person can "):
                continue
            words = shlex.split(m.group(2))  # raises on an unbalanced quote
            assert words, (where, line)
            if m.group(1) == "Run":
                assert words[0] == "memo" and words[1] in SUBCOMMANDS, (where, line)
            elif "memo" in words:
                at = words.index("memo")
                assert words[at + 1] in SUBCOMMANDS, (where, line)
            if words[0] == "memo":
                args = [w for w in words[1:] if not w.startswith("<<")]
                sub = cli.commands[args[0]]
                with sub.make_context(args[0], list(args[1:])):  # raises UsageError
                    pass
                if m.group(1) == "Run":
                    orders.append(args)
    return orders


#: Read-only orders that are run as printed in the life below.
SAFE = {"wake", "check", "stats", "zoom", "recall", "scope"}


def test_every_order_in_a_scripted_life_begins_its_line_and_runs(memo, memory_dir, tmp_path,
                                                                 monkeypatch):
    seen, followed = [], set()

    def say(*args, input=None):
        result = memo(*args, input=input)
        assert "Traceback" not in result.stdout + result.stderr, (args, result.stderr)
        text = result.stdout + result.stderr
        seen.append(args)
        for order in _check_orders(text, " ".join(map(str, args))):
            if tuple(order) in followed:
                continue
            followed.add(tuple(order))
            if order[0] in SAFE or order[0] in ("forget", "config") or order == ["sleep"]:
                after = say(*order)  # an order runs as printed: never a usage error
                assert after.exit_code != 2, (args, order, after.stderr)
        return result

    monkeypatch.delenv("MEMORY_DIR")
    say("init")
    say("wake")
    monkeypatch.setenv("MEMORY_DIR", "relative/mem")
    say("wake")
    monkeypatch.setenv("MEMORY_DIR", str(tmp_path / "nowhere"))
    say("wake")
    say("note", "x")
    monkeypatch.setenv("MEMORY_DIR", str(memory_dir))
    say("init")
    say("init")
    say("wake")
    say("sleep")
    for k in range(6):
        say("note", f"memory {k} about the parser")
    say("note", "memory 0 about the parser")  # a duplicate
    for args in [("wake", "0"), ("wake", "9"), ("wake", "1", "99"), ("wake", "2"),
                 ("wake", "--max-bytes", "10"), ("wake", "--max-bytes", "300"),
                 ("wake", "--max-bytes", "4000"), ("sleep", "4-5", "early"),
                 ("sleep", "0-1"), ("sleep", "0-3", "x"), ("recall", "("),
                 ("recall", "parser"), ("zoom", "0-3"), ("zoom", "64-127"), ("zoom", "3-1"),
                 ("forget", "0-1"), ("forget", "8-15"), ("redact", "1"), ("stats",),
                 ("config", "WAKE_LINES=abc"), ("config", "NOPE=1"), ("import", "missing.txt"),
                 ("import", "-"), ("export", "-"), ("check",), ("note", "-"),
                 ("sleep", "-"), ("note", "Run: memo sleep")]:
        say(*args, input="")
    answer_all(memo)
    say("forget", "0-1")
    say("config", "ENTRY_CHARS=287")
    say("note", "a note above 280")
    (memory_dir / "config").write_text("WAKE_LINES=\n")
    say("config", "ENTRY_CHARS=")
    # damaged states, one after another, each followed where it leads
    poke(memory_dir, LOG, b"XX")
    for args in [("wake",), ("sleep",), ("check",), ("note", "after the damage"),
                 ("export",), ("zoom", "0-1")]:
        say(*args)
    say("check", "--repair")
    poke(memory_dir, 2 * LOG + 20, b"\xff")
    for args in [("wake",), ("sleep",), ("sleep", "2-3", "x"), ("check",)]:
        say(*args)
    say("redact", "2", "--yes")
    answer_all(memo)
    tree2 = memory_dir / "TREE" / "2"
    data = tree2.read_bytes()
    tree2.write_bytes(b"\xff" + data[1:])
    for args in [("wake",), ("check",), ("sleep",)]:
        say(*args)
    tree2.unlink()
    tree2.mkdir()
    for args in [("wake",), ("check",), ("sleep",)]:
        say(*args)
    tree2.rmdir()
    (memory_dir / "config").mkdir() if not (memory_dir / "config").exists() else None
    say("wake")
    with open(memory_dir / "LOG.txt", "ab") as f:
        f.write(b"#9 torn")
    for args in [("check",), ("note", "after a torn tail"), ("wake",)]:
        say(*args)
    assert len(seen) > 60


# -- 3 and 4. arguments and standard input ----------------------------------

def test_init_without_memory_dir_says_what_to_set(memo, monkeypatch, tmp_path):
    monkeypatch.delenv("MEMORY_DIR")
    monkeypatch.chdir(tmp_path)
    result = memo("init")
    assert result.exit_code == 1 and "nothing was created" in result.stderr
    step = last_line(result.stderr).split("A person can run: ", 1)[1]
    assert step == 'export MEMORY_DIR="$HOME/memory" && memo init'
    assert list(tmp_path.iterdir()) == []


def test_after_double_dash_a_dash_is_a_file(memo, inited, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "-").write_text("2024-01-01 from the file called dash\n")
    out = ok(memo("import", "--", "-", input="2024-01-01 from standard input\n"))
    assert out.startswith("Imported 1 memory")
    assert "from the file called dash" in ok(memo("recall", "dash"))
    assert ok(memo("recall", "standard input")) == "No match.\n"
    (tmp_path / "-").unlink()
    ok(memo("export", "--", "-"))
    assert (tmp_path / "-").read_text() == "2024-01-01 from the file called dash\n"


FIVE_MB = "a" * 5_000_000


@pytest.mark.parametrize("args", [("note", "-"), ("sleep", "0-1", "-"), ("sleep", "-"),
                                  ("import", "-")], ids=" ".join)
def test_every_stdin_reader_refuses_over_long_input_by_size(memo, inited, args):
    notes(memo, 2)
    before = {p.name: p.read_bytes() for p in inited.rglob("*") if p.is_file()}
    result = memo(*args, input=FIVE_MB)
    assert result.exit_code == 1 and result.stdout == ""
    assert "65536 bytes" in result.stderr and result.stderr.count("\n") == 1, result.stderr
    assert {p.name: p.read_bytes() for p in inited.rglob("*") if p.is_file()} == before


# -- 6. a damaged summary never locks wake, and its repair is handed over -------


# -- 6. hostile stores and inputs ------------------------------------------------


@pytest.mark.parametrize("source", ["/dev/zero", "fifo"])
def test_importing_a_device_or_a_pipe_is_refused_without_reading_it(memo, inited, tmp_path,
                                                                     source):
    """``memo import /dev/zero`` counted the lines of an endless file before
    its first check, and never ended."""
    import os
    if source == "fifo":
        source = str(tmp_path / "fifo")
        os.mkfifo(source)  # nobody writes: a read would block for ever
    result = memo("import", source)
    assert result.exit_code == 1 and "is not a regular file" in result.stderr


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


@pytest.mark.parametrize("name", ["../x", "a b", "x;rm -rf ~"])
def test_an_impossible_project_name_gets_no_step_that_would_be_refused(memo, inited,
                                                                      monkeypatch, name):
    monkeypatch.setenv("MEMO_PROJECT", name)
    result = memo("wake")
    assert result.exit_code == 1 and "there can be none" in result.stderr
    assert "memo init --project" not in result.stderr

"""Every order memo prints begins its line (or is the last sentence of it, as
in the seed) and runs as printed, and every step only a person may take is
printed ``A person can run: <command>``: read from the messages in the
source and from a scripted life.
"""

from __future__ import annotations

import ast
import re
import shlex

from conftest import REPO, answer_all
from helpers import LOG, poke
from optmem.cli.app import cli


def _docstrings(tree) -> set:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def _helps() -> set:
    """The commands' help texts (``optmem.commands``): documentation a
    person reads in ``--help``, as a command's docstring was."""
    from optmem import commands
    return {row.help for row in commands.ROWS} | {
        p.help for row in commands.ROWS for p in row.params if p.help}


def _strings():
    """``(where, text)`` for every string constant in optmem/ that is not a
    docstring or a command's help (f-strings give their literal parts)."""
    helps = _helps()
    for path in sorted((REPO / "optmem").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _docstrings(tree)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                    and id(node) not in skip and node.value not in helps):
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


SUBCOMMANDS = set(cli.list_commands(None))


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
                sub = cli.get_command(None, args[0])
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

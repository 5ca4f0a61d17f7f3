"""What every ``memo`` command shares, through click's CliRunner: a store
must exist, ``init``, orders that start ``Run:``, help and usage errors,
text that starts with a dash, ``--version``. Exit code, stdout and stderr
are asserted separately (docs/protocol.md and docs/scopes.md); the tests of
one command live in that command's file."""

from __future__ import annotations

import re
import sys

import pytest
from click.testing import CliRunner

from conftest import answer_all, set_config, snapshot, write_import
from helpers import NOTHING, import_texts
from optmem.cli.app import MemoGroup, cli

# -- a store must exist ------------------------------------------------------

COMMAND_ARGS = {
    "wake": [],
    "note": ["hello"],
    "sleep": [],
    "nap": [],
    "recall": ["hello"],
    "forget": ["0-1"],
    "import": ["@FILE"],
    "zoom": ["0-1"],
    "config": [],
    "stats": [],
    "check": [],
    "redact": ["0", "--yes"],
    "merge": ["@FILE"],
}


@pytest.mark.parametrize("command", sorted(COMMAND_ARGS))
def test_every_command_refuses_a_missing_store(memo, memory_dir, tmp_path, command):
    if command != "nap" and command not in cli.list_commands(None):
        pytest.skip(f"memo {command} is not implemented yet")
    src = write_import(tmp_path / "in.txt", ["2024-05-01 hello"])
    args = [str(src) if a == "@FILE" else a for a in COMMAND_ARGS[command]]
    before = sorted(p.name for p in tmp_path.iterdir())
    result = memo(command, *args)
    assert result.exit_code == 1, (result.stdout, result.stderr)
    assert result.stdout == ""
    assert "memo init" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not memory_dir.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_unset_memory_dir_is_refused(memo, monkeypatch, tmp_path):
    monkeypatch.delenv("MEMORY_DIR")
    monkeypatch.chdir(tmp_path)
    for args in (["wake"], ["note", "hi"], ["init"]):
        result = memo(*args)
        assert result.exit_code == 1
        assert result.stdout == ""
        assert "MEMORY_DIR" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_init_twice_changes_no_byte(memo, memory_dir, tmp_path):
    first = memo("init")
    assert first.exit_code == 0 and first.stderr == ""
    assert memo("note", "something worth keeping").exit_code == 0
    assert memo("note", "and a second thing").exit_code == 0
    assert memo("sleep", "0-1", "two things").exit_code == 0
    before = snapshot(memory_dir)
    again = memo("init")
    assert again.exit_code == 0
    assert again.stderr == ""
    assert again.stdout.strip()
    assert snapshot(memory_dir) == before


def test_init_refuses_a_non_empty_directory_without_a_log(memo, memory_dir):
    memory_dir.mkdir()
    (memory_dir / "notes.md").write_text("mine")
    result = memo("init")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert sorted(p.name for p in memory_dir.iterdir()) == ["notes.md"]


# -- note -----------------------------------------------------------------------


# -- sleep ---------------------------------------------------------------------


# -- wake -------------------------------------------------------------------------


# -- recall -----------------------------------------------------------------------


# -- forget -------------------------------------------------------------------------


# -- import ----------------------------------------------------------------------


# -- output protocol ----------------------------------------------------------------

ORDER = re.compile(r"\b[Rr]un:? +memo ")


def orders_are_lines_starting_with_run(out: str) -> None:
    """Every order reads ``Run: memo ...`` (as in the seed's ``Forgot 20
    summaries, from 188-191 up. Run: memo sleep``), never ``run: memo``."""
    for line in out.splitlines():
        line = line.replace("then run memo wake again.", "")  # the seed's own words
        for m in ORDER.finditer(line):
            assert m.group(0) == "Run: memo ", f"order not written 'Run: memo': {line!r}"


def test_every_order_starts_with_run(memo, inited, tmp_path):
    import_texts(memo, tmp_path, [f"x{i}" for i in range(5)])
    outputs = [memo("sleep").stdout,
               memo("import", write_import(tmp_path / "b.txt", ["2024-05-02 z"])).stdout,
               memo("note", "y").stdout]
    answer_all(memo)
    outputs.append(memo("forget", "0-1").stdout)
    for out in outputs:
        assert "Run: memo " in out
        orders_are_lines_starting_with_run(out)


def test_wake_refusal_orders_start_with_run(memo, inited):
    memo("note", "one")
    memo("note", "two")
    set_config(inited, WAKE_LINES=1)
    result = memo("wake")
    assert result.exit_code == 1
    orders_are_lines_starting_with_run(result.stdout)


def test_help_lists_commands(memo):
    result = memo("--help")
    assert result.exit_code == 0
    for name in ("init", "wake", "note", "sleep", "recall", "forget", "import"):
        assert name in result.stdout


def test_usage_errors_exit_2(memo, inited):
    for args in (["bogus"], ["note"], ["recall"], ["forget"], ["wake", "1", "2", "3"]):
        result = memo(*args)
        assert result.exit_code == 2, args
        assert result.stdout == ""
        assert result.stderr


# -- the lazy command table --------------------------------------------------------

EXTRA = """\
import click


@click.command(hidden=True)
def waker():
    \"\"\"A hidden command.\"\"\"


@click.command()
def wakes():
    \"\"\"A shown command.\"\"\"
"""


def test_a_lazy_table_imports_a_command_only_when_it_is_needed(tmp_path, monkeypatch):
    """A ``MemoGroup`` lists its table's names without importing a module;
    the help's list and the unknown-command hint import them all and leave
    out a hidden command, which still runs by its name."""
    (tmp_path / "memo_extra_cmds.py").write_text(EXTRA, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "memo_extra_cmds", raising=False)
    group = MemoGroup("memo", lazy={"waker": "memo_extra_cmds:waker",
                                    "wakes": "memo_extra_cmds:wakes"})
    assert group.list_commands(None) == ["waker", "wakes"]
    assert "memo_extra_cmds" not in sys.modules
    result = CliRunner().invoke(group, ["wak"])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == "memo: No such command 'wak'. Did you mean 'wakes'? Run: memo --help\n"
    assert "memo_extra_cmds" in sys.modules
    result = CliRunner().invoke(group, ["--help"])
    assert result.exit_code == 0
    assert "wakes  A shown command." in result.stdout and "waker" not in result.stdout
    assert CliRunner().invoke(group, ["waker"]).exit_code == 0
    group.lazy["lost"] = "memo_extra_lost:lost"  # an install missing a file
    result = CliRunner().invoke(group, ["lost"])
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr.startswith("memo: memo lost cannot be loaded (ModuleNotFoundError: ")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    (tmp_path / "memo_extra_cut.py").write_text("def cut(:\n", encoding="utf-8")
    group.lazy["cut"] = "memo_extra_cut:cut"  # a file cut short: not Python
    result = CliRunner().invoke(group, ["cut"])
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr.startswith("memo: memo cut cannot be loaded (SyntaxError: ")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    # The damaged ones hide no other command from the help or the hint.
    result = CliRunner().invoke(group, ["--help"])
    assert result.exit_code == 0 and "wakes  A shown command." in result.stdout, result.output
    result = CliRunner().invoke(group, ["wak"])
    assert "Did you mean 'wakes'?" in result.stderr, result.stderr


def test_a_group_inside_memo_hints_and_helps_as_memo_does(memo):
    """``memo hook`` answers a typo with the nearest command on every click
    version, and bare ``memo hook`` prints its help (exit 0), as bare
    ``memo`` does."""
    result = memo("hook", "session-strt")
    assert result.exit_code == 2
    assert result.stderr == ("memo: No such command 'session-strt'. Did you mean one of: "
                             "'session-end', 'session-start'? Run: memo hook --help\n")
    result = memo("hook")
    assert result.exit_code == 0 and "session-start" in result.stdout, result.output
    assert result.stderr == ""


# -- the pager behind wake, as a property ------------------------------------------


# -- wake --max-bytes (startup hooks) ----------------------------------------------


# -- text that starts with a dash ----------------------------------------------------

def test_note_text_may_start_with_a_dash(memo, inited):
    # `memo note "..."` takes any one line; agents often write bullets.
    result = memo("note", "- fixed the parser bug")
    assert (result.exit_code, result.stdout, result.stderr) == (0, "Saved as #0.\n", "")
    cold = memo("note", "-5 degrees outside, the pipes froze")
    assert cold.exit_code == 0, cold.stderr
    assert cold.stdout.splitlines()[0] == "Saved as #1."
    data = (inited / "LOG.txt").read_bytes()
    assert data[:319].rstrip(b" ").endswith(b" - fixed the parser bug")
    assert data[320:639].rstrip(b" ").endswith(b" -5 degrees outside, the pipes froze")


def test_summary_and_pattern_may_start_with_a_dash(memo, inited):
    memo("note", "it was minus five")
    memo("note", "the pipes froze")
    stored = memo("sleep", "0-1", "-5 degrees: pipes froze")
    assert (stored.exit_code, stored.stdout, stored.stderr) == (0, "0-1 saved.\n" + NOTHING, "")
    memo("note", "-5 again today")  # would fail at click parsing without the fix
    found = memo("recall", "-5")
    assert found.exit_code == 0, found.stderr
    assert found.stdout.splitlines()[0].endswith(" -5 again today")


def test_version_names_the_recall_engines(memo, monkeypatch):
    """``memo --version`` says whether recall's C counter was built and
    google-re2 is installed (a pip install hides the build's warning)."""
    from optmem.recall import scancount, search
    out = memo("--version")
    assert out.exit_code == 0
    first, second = out.stdout.splitlines()
    assert first.startswith("memo, version ")
    assert second.startswith("recall: ")
    assert ("C counter built" in second) == scancount.available()
    monkeypatch.setattr(scancount, "_scan", None)
    monkeypatch.setattr(search, "USE_RE2", False)
    second = memo("--version").stdout.splitlines()[1]
    assert "no C counter (no C compiler at install" in second and "no google-re2" in second

"""The argv rule of ``note``, ``sleep`` and ``recall`` (README "What you type
is what is stored"), usage errors as one line, bare ``memo`` and the help.

Each row of a table gives the words after ``memo`` and asserts the exit
status, what was stored byte for byte (the log record's text) and the one
line shown.
"""

from __future__ import annotations

import pytest

from conftest import set_config
from helpers import notes, ok
from optmem.cli.app import cli

HELP = "help"  #: the row shows the command's help on stdout (exit 0)

#: (argv after ``memo note``, stored text, or HELP, or the start of the
#: one-line usage error)
NOTE_TABLE = [
    (["restore", "with", "git", "checkout", "--", "config.yaml"],
     "restore with git checkout -- config.yaml"),
    (["-h"], HELP),
    (["--help"], HELP),
    (["-h", "more", "words"], HELP),
    (["-x"], "memo: '-x' is not an option of memo note; "),
    (["--verbose", "hi"], "memo: '--verbose' is not an option of memo note; "),
    (["--color=always", "hi"], "memo: '--color' is not an option of memo note; "),
    (["--", "-h"], "-h"),
    (["--", "--help"], "--help"),
    (["--", "-x", "is", "a", "flag"], "-x is a flag"),
    (["--", "--verbose", "hi"], "--verbose hi"),
    (["--", "--", "twice"], "-- twice"),
    (["use", "--help", "to", "see", "options"], "use --help to see options"),
    (["grep", "-h", "hides", "names"], "grep -h hides names"),
    (["-5 degrees at night"], "-5 degrees at night"),
    (["-5", "degrees"], "-5 degrees"),
    (["- fixed it"], "- fixed it"),
    (["-", "fixed", "it"], "- fixed it"),
    (["->", "arrow"], "-> arrow"),
    (["words", "after", "--", "-x", "--y"], "words after -- -x --y"),
    (["a  b"], "a  b"),
    ([], "memo: the text of the note is missing: give it as one quoted argument, or add - "),
]


def _log_texts(memory_dir):
    data = (memory_dir / "LOG.txt").read_bytes()
    out = []
    for k in range(0, len(data), 320):
        line = data[k:k + 319].rstrip(b" ").decode("utf-8")
        out.append(line.split(" ", 2)[2])
    return out


@pytest.mark.parametrize("argv, expected", NOTE_TABLE,
                         ids=[" ".join(a) or "(none)" for a, _ in NOTE_TABLE])
def test_note_argv_table(memo, inited, argv, expected):
    result = memo("note", *argv)
    if expected == HELP:
        assert (result.exit_code, result.stderr) == (0, "")
        assert result.stdout.startswith("Usage: memo note [OPTIONS] TEXT...")
        assert _log_texts(inited) == []
    elif expected.startswith("memo: "):
        assert result.exit_code == 2
        assert result.stdout == ""
        assert result.stderr.startswith(expected), result.stderr
        assert result.stderr.endswith(". Run: memo note --help\n")
        assert result.stderr.count("\n") == 1
        assert _log_texts(inited) == []
    else:
        assert (result.exit_code, result.stdout, result.stderr) == (0, "Saved as #0.\n", "")
        assert _log_texts(inited) == [expected]


#: (argv after ``memo recall``, the stdout's last line or HELP or the usage error)
RECALL_TABLE = [
    (["-h"], HELP),
    (["--help"], HELP),
    (["-x"], "memo: '-x' is not an option of memo recall; "),
    (["--", "-x"], "#1 "),
    (["--", "--help"], "#2 "),
    (["-5"], "#0 "),
    (["degrees", "--json"], '[{"id": 0, '),
    (["--json", "degrees"], '[{"id": 0, '),
    (["--json", "--", "-x"], '[{"id": 1, '),
    (["two", "words"], "memo: recall takes one PATTERN; quote it when it holds spaces"),
    (["--", "degrees", "--json"], "memo: recall takes one PATTERN"),
]


@pytest.mark.parametrize("argv, expected", RECALL_TABLE,
                         ids=[" ".join(a) for a, _ in RECALL_TABLE])
def test_recall_argv_table(memo, inited, argv, expected):
    for words in (["-5", "degrees"], ["--", "-x", "marks", "it"], ["see", "--help"]):
        assert memo("note", *words).exit_code == 0
    result = memo("recall", *argv)
    if expected == HELP:
        assert (result.exit_code, result.stderr) == (0, "")
        assert result.stdout.startswith("Usage: memo recall [OPTIONS] PATTERN")
    elif expected.startswith("memo: "):
        assert (result.exit_code, result.stdout) == (2, "")
        assert result.stderr.startswith(expected) and result.stderr.count("\n") == 1
        assert result.stderr.endswith(". Run: memo recall --help\n")
    else:
        assert result.exit_code == 0, result.stderr
        assert result.stdout.startswith(expected), result.stdout


#: (argv after ``memo sleep``, stored summary, or HELP, or the usage error)
SLEEP_TABLE = [
    (["0-1", "kept", "as", "typed"], "kept as typed"),
    (["0-1", "--", "-x", "marks", "it"], "-x marks it"),
    (["--", "0-1", "--", "-x"], "-- -x"),  # taken once: the second is text
    (["--", "0-1", "x", "--", "y"], "x -- y"),
    (["0-1", "a", "--help", "b"], "a --help b"),
    (["0-1", "-5", "degrees"], "-5 degrees"),
    (["-h"], HELP),
    (["0-1", "--help"], HELP),
    (["0-1", "-x"], "memo: '-x' is not an option of memo sleep; to write text that "
                    "starts with '-', put -- before it (memo sleep 0-1 -- -x ...)"),
    (["-x", "0-1"], "memo: '-x' is not an option of memo sleep; "),
]


@pytest.mark.parametrize("argv, expected", SLEEP_TABLE,
                         ids=[" ".join(a) for a, _ in SLEEP_TABLE])
@pytest.mark.parametrize("command", ["sleep", "nap"])
def test_sleep_argv_table(memo, inited, command, argv, expected):
    memo("note", "one")
    memo("note", "two")
    result = memo(command, *argv)
    tree = inited / "TREE" / "2"
    if expected == HELP:
        assert (result.exit_code, result.stderr) == (0, "")
        assert result.stdout.startswith(f"Usage: memo {command} [OPTIONS]")
    elif expected.startswith("memo: "):
        assert (result.exit_code, result.stdout) == (2, "")
        expected = expected.replace("memo sleep", f"memo {command}")
        assert result.stderr.startswith(expected), result.stderr
        assert result.stderr.endswith(f". Run: memo {command} --help\n")
    else:
        assert result.exit_code == 0, result.stderr
        assert tree.read_bytes()[:287].rstrip(b" ").decode() == expected
        return
    assert not tree.exists() or tree.read_bytes() == b""


@pytest.mark.parametrize("command", cli.list_commands(None))
@pytest.mark.parametrize("flag", ["-h", "--help"])
def test_help_flag_alone_is_help_on_every_command(memo, command, flag):
    result = memo(command, flag)
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout.startswith(f"Usage: memo {command} ")


@pytest.mark.parametrize("argv", [["wake", "-x"], ["wake", "1", "2", "3"], ["forget"],
                                  ["zoom", "--nope"], ["import"], ["stats", "--yaml"],
                                  ["redact"], ["config", "--x"], ["nosuch"], ["--nope"]])
def test_usage_errors_are_one_line_naming_the_help(memo, inited, argv):
    result = memo(*argv)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.startswith("memo: ") and result.stderr.count("\n") == 1
    command = argv[0] if argv[0] in cli.list_commands(None) else None
    assert result.stderr.endswith(f"Run: memo {command} --help\n" if command
                                  else "Run: memo --help\n")


def test_bare_memo_prints_help_on_stdout(memo):
    result = memo()
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout.startswith("Usage: memo [OPTIONS] COMMAND")
    assert result.stdout == memo("--help").stdout


def test_max_bytes_too_small_names_the_smallest_that_fits(memo, inited):
    set_config(inited, WAKE_LINES=4)
    for k in range(40):
        memo("note", f"memory number {k} about the Zürich office move")
    result = memo("wake", "--max-bytes", "10")
    assert (result.exit_code, result.stdout) == (1, "")
    line = result.stderr.strip()
    assert line.startswith("memo: --max-bytes 10 is too small: the shortest document is ")
    n = int(line.rsplit(" ", 1)[1])
    assert line.endswith(f"bytes. Run: memo wake --max-bytes {n}")
    fits = memo("wake", "--max-bytes", str(n))
    assert fits.exit_code == 0 and len(fits.stdout.encode()) <= n
    assert memo("wake", "--max-bytes", str(n - 1)).exit_code == 1


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


def test_a_scope_flag_after_the_text_is_shown_before_it_in_the_form_in_force(memo, monkeypatch):
    """The hint names the safe form: the quoted heredoc by default (no shell
    expands the text), the quoted one-line command where MEMO_ORDERS asks."""
    assert memo("init").exit_code == 0
    done = memo("note", "a fact", "--global")
    assert done.exit_code == 2
    assert "memo note --global - <<'MEMORY'" in done.stderr and "<text>" not in done.stderr
    monkeypatch.setenv("MEMO_ORDERS", "line")
    done = memo("note", "a fact", "--global")
    assert done.exit_code == 2 and 'memo note --global "<text>"' in done.stderr

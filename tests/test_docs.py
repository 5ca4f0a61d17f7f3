"""Docs that cannot drift (after sqlite-utils' test_docs.py): every command
in ``memo --help`` has help text and is in the README, and the agent snippet
says what an agent must do; the README's knob table is the config table
and every file it imports is made or shipped."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from conftest import REPO
from optmem.cli.app import cli

README = REPO / "README.md"
SNIPPET = REPO / "AGENTS.snippet.md"


def listed_commands() -> list:
    """``(name, short help)`` for each command under ``Commands:`` in ``memo --help``."""
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    lines = result.stdout.splitlines()
    assert "Commands:" in lines, result.stdout
    out = []
    for line in lines[lines.index("Commands:") + 1:]:
        if not line.strip():
            break
        if out and re.match(r"^   +\S", line):  # a long description wraps
            out[-1] = (out[-1][0], f"{out[-1][1]} {line.strip()}")
            continue
        m = re.match(r"^  (\S+)\s*(.*)$", line)
        assert m, line
        out.append((m.group(1), m.group(2).strip()))
    return out


COMMANDS = [name for name, _ in listed_commands()]


def test_the_expected_commands_are_listed():
    for name in ("init", "wake", "note", "sleep", "nap", "recall", "forget", "import",
                 "zoom", "config", "stats", "check", "redact"):
        assert name in COMMANDS, name


@pytest.mark.parametrize("name, short", listed_commands())
def test_every_command_has_help_text(name, short):
    assert short, f"memo {name} has no help text in `memo --help`"
    result = CliRunner().invoke(cli, [name, "--help"])
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    body = [line for line in result.stdout.splitlines()
            if line.strip() and not line.startswith(("Usage:", "Options:", "  -"))]
    assert body, f"memo {name} --help shows no description"


@pytest.mark.parametrize("name, short", listed_commands())
def test_memo_help_lists_each_description_whole(name, short):
    """``memo --help`` does not cut a description short (click's list does)."""
    first = " ".join(cli.get_command(None, name).help.split("\n\n", 1)[0].split())
    assert " ".join(short.split()) == first


def readme_text() -> str:
    if not README.is_file():
        pytest.skip(f"{README} is missing: the README is not written yet, so the commands "
                    f"cannot be checked against it")
    return README.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_is_in_the_readme(name):
    """Each command has a row of the README's command table (a row whose
    first cell starts with `` `memo NAME``), not only a mention."""
    text = readme_text()
    assert re.search(rf"^\| `memo {re.escape(name)}\b[^|]*` \|", text, re.M), \
        f"`memo {name}` has no row in README.md's command table"


DOCS = REPO / "docs"
#: The reference pages; code and other pages cite them by these names.
PAGES = ("format", "blocks", "protocol", "commands", "scopes", "guard", "recall",
         "harness", "recovery", "machines")


@pytest.mark.parametrize("page", PAGES)
def test_each_docs_page_is_in_the_index_and_the_readme(page):
    assert (DOCS / f"{page}.md").is_file(), f"docs/{page}.md is missing"
    assert f"]({page}.md)" in (DOCS / "README.md").read_text(encoding="utf-8"), \
        f"docs/README.md does not list {page}.md"
    assert f"](docs/{page}.md" in readme_text(), f"README.md does not link docs/{page}.md"


def _links(path):
    """Relative link targets of a Markdown file, without their ``#anchor``."""
    text = path.read_text(encoding="utf-8")
    return [m.group(1).split("#")[0] for m in re.finditer(r"\]\(([^)\s]+)\)", text)
            if not re.match(r"[a-z]+:", m.group(1)) and not m.group(1).startswith("#")]


@pytest.mark.parametrize("path", [README] + sorted(DOCS.glob("*.md")), ids=lambda p: p.name)
def test_every_relative_link_resolves(path):
    missing = [t for t in _links(path) if not (path.parent / t).exists()]
    assert not missing, f"{path.name} links to files that do not exist: {missing}"


#: A citation of a file outside the repository, or of an issue number.
OUTSIDE = re.compile(r"DESIGN\.md|STYLE\.md|harness[-]facts|\.\./shared|[Ii]ssue #?[0-9]+|\(#[0-9]+\)")


@pytest.mark.parametrize("path", sorted(DOCS.glob("*.md")), ids=lambda p: p.name)
def test_docs_cite_nothing_outside_the_repository(path):
    text = path.read_text(encoding="utf-8")
    assert not OUTSIDE.search(text), path.name


def snippet_text() -> str:
    assert SNIPPET.is_file(), f"{SNIPPET} is missing"
    return SNIPPET.read_text(encoding="utf-8")


@pytest.mark.parametrize("phrase", ["memo wake", "You are awake.", "memo note", "memo recall"])
def test_agents_snippet_names_the_protocol(phrase):
    assert phrase in snippet_text()


def test_agents_snippet_says_subagents_never_run_memo():
    text = " ".join(snippet_text().split())
    assert re.search(r"subagents? (never run|must not run|do(es)? not run) memo", text,
                     re.IGNORECASE), "AGENTS.snippet.md must say that subagents never run memo"
    # the sentence to hand to a subagent is there, ready to paste
    assert re.search(r"You are a subagent\. Do not run memo\.", text)


def test_agents_snippet_tells_an_order_from_a_persons_step():
    """Both prefixes memo prints are explained: ``Run: `` is the agent's,
    ``A person can run: `` never is."""
    text = " ".join(snippet_text().split())
    assert re.search(r"begins `Run: ` is yours: run it exactly as printed", text)
    assert re.search(r"begins `A person can run: ` is your person's step, never yours", text)


#: Outside citations the code must not make: files a person who clones the
#: repository cannot open, and issue numbers. The design is in docs/.
def test_code_and_tests_cite_only_the_repository():
    found = []
    roots = [REPO / "optmem", REPO / "tests", REPO / "benchmarks", REPO / "examples"]
    paths = [REPO / "setup.py", REPO / "memo"]
    for root in roots:
        paths += [p for p in root.rglob("*") if p.is_file() and p.suffix in (".py", ".c", "")
                  and "data" not in p.relative_to(root).parts and "__pycache__" not in p.parts]
    for path in paths:
        for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if OUTSIDE.search(line):
                found.append(f"{path.relative_to(REPO)}:{n}: {line.strip()}")
    assert not found, "\n".join(found)


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


#: The README is the five-minute tour: detail belongs in docs/.
README_MAX_BYTES = 16_000
#: A CHANGELOG entry is one short line; its detail belongs in docs/.
CHANGELOG_ENTRY_MAX = 300


def test_the_readme_stays_a_tour():
    size = len(README.read_bytes())
    assert size <= README_MAX_BYTES, f"README.md is {size:,} bytes; move detail into docs/"


def test_the_readme_starts_from_nothing():
    """A newcomer's first commands: clone, enter the folder, install and
    start, run the tests; the note in the command table is the quoted
    heredoc (a double-quoted note lets the shell eat ``$5`` and run
    backticks)."""
    text = README.read_text(encoding="utf-8")
    first = text.index("```sh")
    block = text[first:text.index("```", first + 5)]
    assert block.splitlines()[1].startswith("git clone ") and "&& cd " in block
    assert "memo init && memo wake" in block
    assert "pip install -e '.[test,fast]' && .venv/bin/python -m pytest -q" in text[first:]
    row = next(line for line in text.splitlines() if line.startswith("| `memo note"))
    assert "<<'MEMORY'" in row and '"<text>"' not in row


def test_each_changelog_entry_is_one_short_line():
    lines = (REPO / "CHANGELOG.md").read_text(encoding="utf-8").splitlines()
    long = [(k, len(line)) for k, line in enumerate(lines, 1)
            if line.startswith("- ") and len(line) > CHANGELOG_ENTRY_MAX]
    assert long == [], f"CHANGELOG.md lines longer than {CHANGELOG_ENTRY_MAX} characters: {long}"
    for k, line in enumerate(lines, 1):  # an entry is one line: no continuation lines
        assert not line.startswith("  "), f"CHANGELOG.md line {k} continues an entry"

"""Faults found by the QA pass (odd process states a user or harness can
create), each tested for its whole kind through a real ``memo`` process."""

from __future__ import annotations

from conftest import REPO


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

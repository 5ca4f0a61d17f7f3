"""docs/commands.md's reference is memo's own help (``docs/reference.py``).

With the suite (so in CI): the page matches what the commands print; a
page with an option taken out, or one left over, is found stale. Where
the click in use is not the one the page was written with (its help lays
lines out a little differently between versions), every command and every
option ``--help`` shows must still be on the page.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys

import click

from conftest import REPO
from optmem.cli.app import cli

SCRIPT = REPO / "docs" / "reference.py"


def _reference():
    spec = importlib.util.spec_from_file_location("docs_reference", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _page() -> str:
    return (REPO / "docs" / "commands.md").read_text(encoding="utf-8")


def _written_with(page: str) -> str | None:
    m = re.search(r"^Written with click (\d+\.\d+)\.$", page, re.M)
    return m.group(1) if m else None


def _options(command) -> set:
    return {o for p in command.params for o in getattr(p, "opts", []) if o.startswith("-")}


def test_the_reference_is_memos_own_help():
    ref, page = _reference(), _page()
    if _written_with(page) == ref.click_version():
        assert ref.stale(page) == "", "run python docs/reference.py"
    ctx = click.Context(cli, info_name="memo")
    section = page.split(ref.BEGIN, 1)[1].split(ref.END, 1)[0]
    for name in cli.list_commands(ctx):
        command = cli.get_command(ctx, name)
        assert f"### `memo {name}`" in section, name
        for option in _options(command) - {"-h", "--help"}:
            assert re.search(rf"(^|[\s,]){re.escape(option)}\b", section), (name, option)


def test_a_stale_page_is_found_and_named():
    ref, page = _reference(), _page()
    section = page.split(ref.BEGIN, 1)[1]
    taken = re.search(r"^  --all .*$\n", section, re.M).group(0)  # check --all, taken out
    stale = page.replace(taken, "", 1)
    diff = ref.stale(stale)
    assert "+" + taken in diff
    added = page.replace("### `memo zoom`", "### `memo zoom`\n\n  --old-option  gone", 1)
    assert "-  --old-option  gone" in ref.stale(added)
    assert ref.rendered(stale) == ref.rendered(page)  # written anew, the page is whole again


def test_the_check_exits_1_on_a_stale_page(tmp_path):
    copy = tmp_path / "docs"
    copy.mkdir()
    (copy / "reference.py").write_text(SCRIPT.read_text(encoding="utf-8"), encoding="utf-8")
    page = _page()
    head, section = page.split("<!-- reference:", 1)
    stale = head + "<!-- reference:" + section.replace("  --dry-run ", "  --dry-runs", 1)
    (copy / "commands.md").write_text(stale, encoding="utf-8")
    done = subprocess.run([sys.executable, str(copy / "reference.py"), "--check"],
                          capture_output=True, text=True)
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "docs/commands.md is stale: run python docs/reference.py" in done.stderr

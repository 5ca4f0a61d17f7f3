"""``memo forget LO-HI --dry-run`` says what a forget costs, changing nothing,
and ``memo recall -F`` finds text as written (the command line's side of
``core.forget_count`` and literal recall)."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import sys

import pytest

from conftest import REPO, answer_all, snapshot, write_import


def built(memo, inited, tmp_path, n: int):
    lines = [f"2026-01-01 fact {i} about $HOME and a.b.c" for i in range(n)]
    assert memo("import", write_import(tmp_path / "in.txt", lines)).exit_code == 0
    answer_all(memo)
    return inited


@pytest.mark.parametrize("block", ["0-1", "2-3", "0-7", "16-31", "32-33", "0-31"])
def test_dry_run_counts_what_the_real_forget_drops(memo, inited, tmp_path, monkeypatch, block):
    store = built(memo, inited, tmp_path, 45)
    copy = tmp_path / "copy"
    shutil.copytree(store, copy)
    before = snapshot(store)
    dry = memo("forget", block, "--dry-run")
    assert dry.exit_code == 0, dry.stderr
    assert snapshot(store) == before  # nothing written
    assert "Run:" not in dry.stdout and dry.stdout.endswith("Nothing was changed.\n")
    would = int(re.search(r"would drop (\d+) summar", dry.stdout).group(1))
    assert f"creating {would} compression" in dry.stdout
    monkeypatch.setenv("MEMORY_DIR", str(copy))
    real = memo("forget", block)
    gone = int(re.match(r"Forgot (\d+) summar", real.stdout).group(1))
    assert would == gone


def test_forgetting_the_first_block_costs_every_summary(memo, inited, tmp_path):
    built(memo, inited, tmp_path, 45)
    out = memo("forget", "0-1", "--dry-run").stdout
    assert out.startswith(f"memo forget 0-1 would drop {45 - bin(45).count('1')} summaries")


def test_dry_run_of_a_block_not_built_is_refused_as_forget_is(memo, inited, tmp_path):
    built(memo, inited, tmp_path, 5)
    result = memo("forget", "4-5", "--dry-run")
    assert result.exit_code == 1 and "there is no summary 4-5 to forget" in result.stderr


def test_recall_fixed_finds_home_as_written(memo, inited, tmp_path):
    built(memo, inited, tmp_path, 3)
    assert memo("recall", "$HOME").stdout == "No match.\n"
    found = memo("recall", "-F", "$HOME").stdout
    assert found.endswith("3 matches.\n") and "fact 2 about $HOME" in found
    assert memo("recall", "--fixed", "A.B.C").stdout.endswith("3 matches.\n")
    assert memo("recall", "-F", "a?b").stdout == "No match.\n"


def test_mcp_recall_fixed_finds_home_as_written(memo, inited, tmp_path):
    pytest.importorskip("jsonschema")
    from optmem import mcp
    built(memo, inited, tmp_path, 3)
    text, err = mcp.call_tool("recall", {"pattern": "$HOME", "fixed": True})
    assert not err and text.endswith("3 matches.") and "$HOME" in text
    text, err = mcp.call_tool("recall", {"pattern": "$HOME"})  # as a regex: the hint to -F
    assert not err and text.startswith("No match.\n")
    assert text.endswith('Run: recall {"pattern": "$HOME", "fixed": true}')
    text, err = mcp.call_tool("recall", {"pattern": "x", "fixed": "yes"})
    assert err and "fixed" in text


def test_the_mcp_server_gives_its_connection_a_session(inited, monkeypatch):
    """``memo mcp`` sets ``MEMO_SESSION`` for its own connection when the
    environment does not: a compression it handed over is held, and another
    session asking is told nothing is needed."""
    if sys.version_info < (3, 10):
        pytest.skip("the MCP SDK needs Python 3.10 or newer")
    pytest.importorskip("mcp")
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    env = {k: v for k, v in os.environ.items() if k != "MEMO_SESSION"}
    env.update(PYTHONPATH=str(REPO), MEMORY_DIR=str(inited))
    params = StdioServerParameters(command=sys.executable, args=["-m", "optmem", "mcp"],
                                   env=env, cwd=str(REPO))

    async def work():
        with open(os.devnull, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    await session.call_tool("note", {"text": "first fact"})
                    got = await session.call_tool("note", {"text": "second fact"})
                    return got.content[0].text

    handed = asyncio.run(work())
    assert "Compress memories #0-1" in handed
    monkeypatch.setenv("MEMO_SESSION", "a-shell-session")
    from click.testing import CliRunner

    from optmem.cli.app import cli
    other = CliRunner().invoke(cli, ["sleep"])
    assert other.stdout.startswith("Another session is compressing 0-1"), other.stdout

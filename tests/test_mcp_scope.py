"""``memo mcp`` with project scopes (docs/scopes.md, docs/protocol.md): every tool takes
``scope``; the stores are resolved as the CLI resolves them, from the
server's working directory. Driven by the SDK's own stdio client, in a
scratch git repository whose project a person made with
``memo init --project NAME``."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from test_projects import make_repo, needs_git

from conftest import REPO, set_config

if sys.version_info < (3, 10):
    pytest.skip("the MCP SDK (mcp) needs Python 3.10 or newer", allow_module_level=True)
pytest.importorskip("mcp", reason="the MCP SDK is not installed")

from mcp.client.stdio import StdioServerParameters  # noqa: E402
from test_mcp import ENV, answer_all, call, orders, run, session_do  # noqa: E402

from optmem import protocol  # noqa: E402

GIT_ENV = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def memo_in(cwd, memory_dir, *args):
    """``memo ARGS`` run in ``cwd`` (a person's step, such as ``init``)."""
    env = dict(os.environ, MEMORY_DIR=str(memory_dir), PYTHONPATH=str(REPO), **GIT_ENV)
    done = subprocess.run([sys.executable, "-m", "optmem", *args], cwd=str(cwd), env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def server_in(cwd, memory_dir) -> StdioServerParameters:
    env = dict(ENV, MEMORY_DIR=str(memory_dir), **GIT_ENV)
    return StdioServerParameters(command=sys.executable, args=["-m", "optmem", "mcp"],
                                 env=env, cwd=str(cwd))


@pytest.fixture
def widget(tmp_path, memory_dir):
    """A repository bound to project ``widget``, beside an inited global store."""
    repo = make_repo(tmp_path / "widget")
    memo_in(tmp_path, memory_dir, "init")
    memo_in(repo, memory_dir, "init", "--project", "widget")
    assert (memory_dir / "projects" / "widget" / "LOG.txt").is_file()
    return repo


SCRIPT = [("note", {"text": "the deploy key lives in vault"}), ("wake", {}),
          ("recall", {"pattern": "deploy"}), ("stats", {}), ("sleep", {}),
          ("zoom", {"block": "0-0"}), ("forget", {"block": "0-0"}),
          ("wake", {"at": "x"}), ("note", {"text": "a" * 300})]


async def _script(session):
    out = []
    for _ in range(3):
        for name, args in SCRIPT:
            out.append(await call(session, name, args))
    return out


@needs_git
def test_no_project_active_keeps_every_result_byte_for_byte(tmp_path, widget):
    """A store without projects/ and the same store with a project that is
    not this folder's give the same bytes for every call."""
    plain = tmp_path / "plain"
    memo_in(tmp_path, plain, "init")
    set_config(plain, PART_LINES=3, WAKE_LINES=4)
    set_config(tmp_path / "mem", PART_LINES=3, WAKE_LINES=4)
    elsewhere = make_repo(tmp_path / "other")
    a = run(session_do(server_in(elsewhere, plain), _script))
    b = run(session_do(server_in(elsewhere, tmp_path / "mem"), _script))
    assert [t.replace(str(plain), "MEM") for t, _ in a] == \
        [t.replace(str(tmp_path / "mem"), "MEM") for t, _ in b]
    assert [e for _, e in a] == [e for _, e in b]
    assert not any("scope" in t or "Project memory" in t for t, _ in a)


@needs_git
def test_a_project_session_through_tool_calls(tmp_path, memory_dir, widget):
    set_config(memory_dir, PART_LINES=3, WAKE_LINES=6)
    set_config(memory_dir / "projects" / "widget", PART_LINES=3, WAKE_LINES=6)
    before = sorted(os.listdir(memory_dir / "projects"))

    async def work(session):
        log = []
        tools = await session.list_tools()
        assert all("scope" in t.input_schema["properties"] for t in tools.tools)
        for i in range(6):
            text, err = await call(session, "note", {"text": f"widget fact {i}"})
            assert not err and text.startswith(f"Saved as #{i}.\nScope: project widget"), text
            await answer_all(session, text, log)
        for i in range(5):
            text, err = await call(session, "note", {"text": f"global fact {i}",
                                                     "scope": "global"})
            assert not err and text.startswith(f"Saved as #{i}.\nScope: global memory."), text
            for _tool, args in orders(text):
                assert args.get("scope") in ("global", "widget"), text
            await answer_all(session, text, log)
        # every compression order carried its scope; the summaries went home
        assert log and (memory_dir / "projects" / "widget" / "LOG.txt").is_file()
        # wake: two sections, paged with the opaque two-snapshot at
        text, err = await call(session, "wake")
        assert not err and "Global memory (" in text, text
        parts = [text]
        while "You are awake." not in text.splitlines():
            (tool, args), = [o for o in orders(text) if o[0] == "wake"]
            assert args["scope"] == "widget" and len(args["at"].split()) == 2, args
            text, err = await call(session, tool, args)
            assert not err, text
            parts.append(text)
        whole = "\n".join(parts)
        assert "Project memory: widget (" in whole
        # recall searches both, headed; with scope, one store
        text, _ = await call(session, "recall", {"pattern": "fact"})
        assert text.startswith("Global memory (") and "Project memory: widget" in text
        text, _ = await call(session, "recall", {"pattern": "fact", "scope": "widget"})
        assert "Global memory" not in text and "global fact" not in text, text
        assert text.splitlines()[-1] == protocol.matches(6), text
        # zoom/forget without scope: refused with both calls as orders
        text, err = await call(session, "zoom", {"block": "0-1"})
        assert err and 'Run: zoom {"block": "0-1", "scope": "global"}' in text, text
        assert 'Run: zoom {"block": "0-1", "scope": "widget"}' in text, text
        text, err = await call(session, "zoom", {"block": "0-1", "scope": "widget"})
        assert not err and "widget fact 0" in text, text
        text, err = await call(session, "stats")
        assert not err and "Project memory: widget" in text
        # an unknown project: an error naming the projects, nothing created
        text, err = await call(session, "note", {"text": "x", "scope": "gadget"})
        assert err and "gadget" in text and "widget" in text, text
        text, err = await call(session, "stats", {"scope": "Bad Name"})
        assert err and "project name" in text, text
        text, err = await call(session, "wake", {"at": "1 2 3"})
        assert err, text
        return log

    run(session_do(server_in(widget, memory_dir), work))
    assert sorted(os.listdir(memory_dir / "projects")) == before
    # the CLI sees what the tools wrote, in the right stores
    out = memo_in(widget, memory_dir, "recall", "--project", "widget", "fact")
    assert "widget fact 5" in out and "global fact" not in out
    out = memo_in(widget, memory_dir, "recall", "--global", "fact")
    assert "global fact 4" in out and "widget fact" not in out
    out = memo_in(widget, memory_dir, "sleep")
    assert out.strip() == "Nothing left to compress."


#: How a client reads an order in an MCP result, one per line.
TOOL_ORDER = r"^Run: (\w+) (\{.*\})$"


@needs_git
def test_a_refusal_gives_each_tool_call_its_own_line(tmp_path, memory_dir, widget):
    """``zoom``/``forget`` without ``scope`` while a project is active: the
    first line says what is wrong, then each order on its own line, matched
    by ``^Run: (\\w+) (\\{.*\\})$``, and each call, made as printed, works."""
    import json
    import re

    async def work(session):
        for scope in ("global", "widget"):
            for i in range(2):
                await call(session, "note", {"text": f"{scope} fact {i}", "scope": scope})
            text, err = await call(session, "sleep", {"block": "0-1", "summary": "two facts",
                                                      "scope": scope})
            assert not err, text
        seen = []
        for tool, block in (("zoom", "0-1"), ("zoom", "#0-1"), ("zoom", "1"), ("forget", "0-1")):
            text, err = await call(session, tool, {"block": block})
            assert err, text
            first, *lines = text.split("\n")
            assert first.startswith("memo: ids restart at #0") and "Run:" not in first, text
            assert len(lines) == 2, text
            for line in lines:
                m = re.match(TOOL_ORDER, line)
                assert m and m.group(1) == tool, line
                args = json.loads(m.group(2))
                done, err = await call(session, m.group(1), args)
                assert not err, (line, done)
                seen.append(args["scope"])
        return seen

    seen = run(session_do(server_in(widget, memory_dir), work))
    assert seen == ["global", "widget"] * 4

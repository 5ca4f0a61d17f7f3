"""``memo setup claude-desktop`` and ``memo setup cursor``: the MCP entry.

Pure file edits (no SDK needed): the ``mcpServers.memo`` entry running the
absolute ``memo mcp`` with ``MEMORY_DIR`` in ``env``, in the client's
user-level file only, with the safe-edit guarantees of every target.
"""

from __future__ import annotations

import json
import os
import sys

import pytest

from optmem.errors import MemoError
from optmem.harness import HARNESSES, claude_desktop, cursor, edit, setup

CLIENTS = ["claude-desktop", "cursor"]


@pytest.fixture
def env(tmp_path, inited):
    home = tmp_path / "home"
    home.mkdir()
    return {"HOME": str(home), "MEMORY_DIR": str(inited), "PATH": os.environ["PATH"]}


def target(env, name) -> str:
    ctx = setup.context(name, None, None, None, env, need_store=False)[1]
    return HARNESSES[name].edits(ctx)[0].path


@pytest.mark.parametrize("name", CLIENTS)
def test_install_is_idempotent_and_uninstall_removes_exactly_it(env, name):
    path = target(env, name)
    assert path.startswith(env["HOME"] + os.sep)
    out = setup.run(name, environ=env)
    assert any("created" in line for line in out)
    entry = json.load(open(path))["mcpServers"]["memo"]
    assert os.path.isabs(entry["command"]) and entry["args"][-1] == "mcp"
    assert entry["env"] == {"MEMORY_DIR": env["MEMORY_DIR"]}
    before = open(path, "rb").read()
    again = setup.run(name, environ=env)
    assert "Nothing to change." in again and open(path, "rb").read() == before
    setup.run(name, uninstall=True, environ=env)
    assert not os.path.exists(path)
    assert not os.path.exists(os.path.dirname(path))  # the folders setup made go too


@pytest.mark.parametrize("name", CLIENTS)
def test_other_servers_and_keys_stay_and_come_back_byte_exact(env, name):
    path = target(env, name)
    os.makedirs(os.path.dirname(path))
    mine = ('{\n    "globalShortcut": "Ctrl+Space",\n    "mcpServers": {\n        "fs": '
            '{"command": "npx", "args": ["-y", "fs"]}\n    }\n}\n')
    with open(path, "w") as f:
        f.write(mine)
    dry = setup.run(name, dry_run=True, environ=env)
    assert dry[-1] == "Dry run: nothing was written." and open(path).read() == mine
    setup.run(name, environ=env)
    obj = json.load(open(path))
    assert list(obj["mcpServers"]) == ["fs", "memo"] and obj["globalShortcut"] == "Ctrl+Space"
    assert '\n    "mcpServers"' in open(path).read()  # the file's indent kept
    setup.run(name, uninstall=True, environ=env)
    assert open(path).read() == mine


def test_uninstall_after_a_person_edited_the_file_takes_out_only_memo(env):
    path = target(env, "cursor")
    setup.run("cursor", environ=env)
    obj = json.load(open(path))
    obj["mcpServers"]["other"] = {"command": "x"}
    with open(path, "w") as f:
        json.dump(obj, f)
    setup.run("cursor", uninstall=True, environ=env)
    assert json.load(open(path)) == {"mcpServers": {"other": {"command": "x"}}}


@pytest.mark.parametrize("name", CLIENTS)
def test_someone_elses_memo_server_is_refused_and_nothing_written(env, name):
    path = target(env, name)
    os.makedirs(os.path.dirname(path))
    theirs = json.dumps({"mcpServers": {"memo": {"command": "node", "args": ["memo.js"]}}})
    with open(path, "w") as f:
        f.write(theirs)
    with pytest.raises(MemoError, match="already has an MCP server named 'memo'"):
        setup.run(name, environ=env)
    assert open(path).read() == theirs


def test_not_json_and_no_store_are_refused_before_any_write(env, tmp_path):
    path = target(env, "claude-desktop")
    os.makedirs(os.path.dirname(path))
    with open(path, "w") as f:
        f.write("{not json")
    with pytest.raises(MemoError, match="not strict JSON"):
        setup.run("claude-desktop", environ=env)
    with pytest.raises(MemoError, match="No memory at"):
        setup.run("cursor", environ=dict(env, MEMORY_DIR=str(tmp_path / "none")))
    assert not os.path.exists(target(env, "cursor"))


def test_documented_paths_per_platform(env):
    ctx = setup.context("claude-desktop", None, None, None, dict(env, APPDATA="C:/A"),
                        need_store=False)[1]
    home = env["HOME"]
    assert claude_desktop.config_path(ctx, "darwin") == os.path.join(
        home, "Library", "Application Support", "Claude", "claude_desktop_config.json")
    assert claude_desktop.config_path(ctx, "win32") == os.path.join(
        "C:/A", "Claude", "claude_desktop_config.json")
    assert claude_desktop.config_path(ctx, "linux") == os.path.join(
        home, ".config", "Claude", "claude_desktop_config.json")
    assert cursor.config_path(ctx) == os.path.join(home, ".cursor", "mcp.json")


def test_the_entry_runs_the_launcher_or_python_m_optmem():
    assert edit.mcp_entry(["/opt/bin/memo"], "/m") == {
        "command": "/opt/bin/memo", "args": ["mcp"], "env": {"MEMORY_DIR": "/m"}}
    entry = edit.mcp_entry([sys.executable, "-m", "optmem"], "/m")
    assert entry["args"] == ["-m", "optmem", "mcp"] and edit.is_our_server(entry)
    assert not edit.is_our_server({"command": "node", "args": ["mcp"]})


def test_status_names_the_mcp_files(env):
    setup.run("cursor", environ=env)
    lines, ok = setup.status(environ=env)
    assert ok
    assert any(line.startswith("cursor --scope user: ~/.cursor/mcp.json current")
               for line in lines)
    assert any(line.startswith("claude-desktop --scope user:") and "absent" in line
               for line in lines)


@pytest.mark.skipif(sys.platform in ("darwin", "win32"), reason="XDG_CONFIG_HOME is Linux's")
def test_a_relative_config_home_is_refused(env):
    with pytest.raises(MemoError, match="XDG_CONFIG_HOME 'conf' is a relative path"):
        setup.run("claude-desktop", environ=dict(env, XDG_CONFIG_HOME="conf"))
    with pytest.raises(MemoError, match="XDG_CONFIG_HOME 'conf' is a relative path"):
        setup.run("claude-desktop", environ=dict(env, XDG_CONFIG_HOME="conf"), uninstall=True)
    assert os.listdir(env["HOME"]) == []


@pytest.mark.parametrize("text,kept", [('{"x": 1e400, "y": 1.10}\n', True),
                                       ('{"x": 1, "x": 2}\n', False)])
def test_client_json_keeps_numbers_and_refuses_a_key_twice(env, text, kept):
    path = target(env, "cursor")
    os.makedirs(os.path.dirname(path))
    with open(path, "w") as f:
        f.write(text)
    if not kept:
        with pytest.raises(MemoError, match=r'not strict JSON \(the key "x" appears twice'):
            setup.run("cursor", environ=env)
        assert open(path).read() == text
        return
    setup.run("cursor", environ=env)
    written = open(path).read()
    assert '"x": 1e400' in written and '"y": 1.10' in written and "Infinity" not in written
    setup.run("cursor", environ=env, uninstall=True)
    assert open(path).read() == text

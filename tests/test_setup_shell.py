"""After ``memo setup <harness>``, the agent's own shell can run memo.

Each harness is set up in a scratch HOME with a store at no default path;
then a fresh ``env -i`` shell gets only what that harness gives its agent's
shell commands (Claude Code: ``env`` of its settings; Codex: the lines the
SessionStart hook wrote to ``CODEX_ENV_FILE``; Gemini CLI: the first
``.env`` file it finds, loaded into its own environment) and runs the
agent's ``memo wake``.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

BIN = str(Path(sys.executable).parent)
MEMO = os.path.join(BIN, "memo")

pytestmark = pytest.mark.skipif(not os.path.isfile(MEMO), reason="no memo launcher beside python")


def base_env(home: Path) -> dict:
    return {"HOME": str(home), "PATH": f"{BIN}:/usr/bin:/bin", "LC_ALL": "C.UTF-8"}


@pytest.fixture
def world(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    store = tmp_path / "elsewhere" / "store"
    env = dict(base_env(home), MEMORY_DIR=str(store))
    assert subprocess.run([MEMO, "init"], env=env, capture_output=True).returncode == 0
    note = subprocess.run([MEMO, "note", "setup reaches the agent shell"], env=env,
                          capture_output=True, text=True)
    assert note.returncode == 0, note.stderr
    project = tmp_path / "project"
    project.mkdir()
    return {"home": home, "store": store, "project": project, "tmp": tmp_path}


def setup(world, harness: str) -> None:
    env = dict(base_env(world["home"]), MEMORY_DIR=str(world["store"]))
    done = subprocess.run([MEMO, "setup", harness], env=env, cwd=str(world["project"]),
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def agent_wake(world, exports: dict) -> subprocess.CompletedProcess:
    """A fresh shell with nothing but HOME, PATH and what the harness gives."""
    words = ["env", "-i"] + [f"{k}={v}" for k, v in {**base_env(world["home"]),
                                                     **exports}.items()]
    return subprocess.run(words + ["sh", "-c", "memo wake"], cwd=str(world["project"]),
                          capture_output=True, text=True)


def dotenv(path: Path) -> dict:
    """``NAME=value`` lines as a dotenv loader reads them."""
    out = {}
    for line in path.read_text().splitlines():
        key, eq, value = line.partition("=")
        if eq and not key.startswith("#"):
            out[key.strip()] = shlex.split(value)[0] if value.strip() else ""
    return out


def gemini_env(world) -> dict:
    """Gemini CLI loads the first of these it finds, not merged."""
    here = world["project"]
    for path in (here / ".gemini" / ".env", here / ".env",
                 world["home"] / ".gemini" / ".env", world["home"] / ".env"):
        if path.is_file():
            return dotenv(path)
    return {}


def assert_woke(result):
    assert result.returncode == 0, result.stderr
    assert "setup reaches the agent shell" in result.stdout
    assert "You are awake." in result.stdout


def test_gemini_gives_the_agent_shell_memory_dir(world):
    assert agent_wake(world, {}).returncode != 0  # no default path holds this store
    setup(world, "gemini")
    exports = gemini_env(world)
    assert exports.get("MEMORY_DIR") == str(world["store"])
    assert_woke(agent_wake(world, exports))


def test_gemini_keeps_the_other_lines_of_its_env_file_and_undoes_only_its_own(world):
    folder = world["home"] / ".gemini"
    folder.mkdir()
    (folder / ".env").write_text("GEMINI_MODEL=gemini-x\n")
    setup(world, "gemini")
    assert dotenv(folder / ".env") == {"GEMINI_MODEL": "gemini-x",
                                       "MEMORY_DIR": str(world["store"])}
    env = dict(base_env(world["home"]), MEMORY_DIR=str(world["store"]))
    undo = subprocess.run([MEMO, "setup", "gemini", "--uninstall"], env=env,
                          capture_output=True, text=True)
    assert undo.returncode == 0, undo.stderr
    assert (folder / ".env").read_text() == "GEMINI_MODEL=gemini-x\n"


def test_gemini_refuses_to_overwrite_another_memory_dir(world):
    folder = world["home"] / ".gemini"
    folder.mkdir()
    (folder / ".env").write_text("MEMORY_DIR=/somewhere/else\n")
    env = dict(base_env(world["home"]), MEMORY_DIR=str(world["store"]))
    done = subprocess.run([MEMO, "setup", "gemini"], env=env, capture_output=True, text=True)
    assert done.returncode != 0 and "already sets MEMORY_DIR" in done.stderr
    assert (folder / ".env").read_text() == "MEMORY_DIR=/somewhere/else\n"


def test_claude_gives_the_agent_shell_memory_dir(world):
    setup(world, "claude")
    settings = json.loads((world["home"] / ".claude" / "settings.json").read_text())
    assert_woke(agent_wake(world, settings["env"]))


def test_codex_hook_gives_the_agent_shell_memory_dir_and_its_session(world):
    setup(world, "codex")
    hooks = json.loads((world["home"] / ".codex" / "hooks.json").read_text())
    command = hooks["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    env_file = world["tmp"] / "codex-env"
    env = dict(base_env(world["home"]), CODEX_ENV_FILE=str(env_file))
    payload = json.dumps({"hook_event_name": "SessionStart", "source": "startup",
                          "session_id": "s-42", "cwd": str(world["project"])})
    ran = subprocess.run(["sh", "-c", command], input=payload, env=env, capture_output=True,
                         text=True)
    assert ran.returncode == 0, ran.stderr
    exports = {}
    for line in env_file.read_text().splitlines():
        name, _, value = line[len("export "):].partition("=")
        exports[name] = shlex.split(value)[0]
    assert exports == {"MEMORY_DIR": str(world["store"]), "MEMO_SESSION": "s-42"}
    assert_woke(agent_wake(world, exports))

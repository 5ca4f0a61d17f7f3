"""``memo setup`` and ``memo hook``, tested without any harness.

Every settings file written is validated against SchemaStore's schemas
(``tests/data/schemas/``); the hook is run on the stdin each harness sends
(``tests/data/hook-stdin/``); ``harness_emulator`` reads the written files
as the harness does, runs the hook from an unrelated folder and checks what
reaches the model, including Claude Code's 10,000-character cap.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

import harness_emulator as emu
from conftest import REPO, data_file
from optmem.harness import agent_block, edit

DATA = Path(__file__).resolve().parent / "data"
SCHEMAS = DATA / "schemas"
STDIN = DATA / "hook-stdin"
MEMO = [sys.executable, "-m", "optmem"]


def ends_awake(text: str) -> bool:
    """The document ends ``You are awake.``; after it stands nothing, or a
    blank line and the hand-over, whose last line is its order (as plain
    wake prints it)."""
    if text.endswith("You are awake."):
        return True
    doc, sep, handover = text.partition("\nYou are awake.\n\n")
    return bool(sep) and handover.splitlines()[-1].startswith(("Run: ", "A person can run: "))


def click_history() -> Path:
    """The click history (real memories, tests/data/README.md)."""
    return data_file("click-history.txt")


def schema(name: str) -> dict:
    return json.loads((SCHEMAS / name).read_text(encoding="utf-8"))


SETTINGS_SCHEMA = {"claude": "claude-code-settings.json", "codex": "codex-hooks.json"}


@pytest.fixture(scope="module")
def big_store(tmp_path_factory) -> Path:
    """A store of the first 1,000 memories of the click history, with every
    compression still pending (994 of them)."""
    root = tmp_path_factory.mktemp("big") / "mem"
    lines = click_history().read_text(encoding="utf-8").splitlines()[:1000]
    src = root.parent / "import.txt"
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    env = dict(os.environ, MEMORY_DIR=str(root))
    subprocess.run(MEMO + ["init"], env=env, check=True, capture_output=True)
    out = subprocess.run(MEMO + ["import", str(src)], env=env, check=True,
                         capture_output=True, text=True).stdout
    assert "994 compressions pending. Run: memo sleep" in out
    return root


@pytest.fixture
def world(tmp_path, monkeypatch, memory_dir, memo):
    """A temporary HOME, a project folder, an unrelated folder, and an
    empty store at MEMORY_DIR; the current folder is the project."""
    home, project, elsewhere = (tmp_path / n for n in ("home", "project", "elsewhere"))
    for d in (home, project, elsewhere):
        d.mkdir()
    for name in ("XDG_STATE_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "CLAUDE_ENV_FILE",
                 "CODEX_ENV_FILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(project)
    assert memo("init").exit_code == 0
    return {"home": home, "project": project, "elsewhere": elsewhere, "store": memory_dir}


def tree(root: Path, skip=(".local",)) -> dict:
    """Every file, folder and link under ``root``: path -> (kind, mode, bytes)."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if rel.parts[0] in skip:
            continue
        st = path.lstat()
        if path.is_symlink():
            out[str(rel)] = ("link", os.readlink(path), None)
        elif path.is_file():
            out[str(rel)] = ("file", st.st_mode, path.read_bytes())
        else:
            out[str(rel)] = ("dir", st.st_mode, None)
    return out


def setup_ok(memo, *args) -> str:
    result = memo("setup", *args)
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    return result.stdout


def run_emulated(harness, world, source, store=None):
    """SessionStart ``source`` through the emulator, from the unrelated folder,
    with the environment a harness started from a shell would have."""
    environ = {"PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"],
               "HOME": str(world["home"]), "MEMORY_DIR": str(store or world["store"]),
               "LANG": "C"}
    stdin = json.loads((STDIN / f"{harness}-session-start-startup.json").read_text())
    return emu.session_start(harness, str(world["home"]), str(world["project"]), source,
                             stdin, str(world["elsewhere"]), environ)


# -- the agent block --------------------------------------------------------

def test_snippet_file_is_the_package_block():
    """AGENTS.snippet.md is generated from the package's one source."""
    assert (REPO / "AGENTS.snippet.md").read_text(encoding="utf-8") == agent_block.BODY, \
        "regenerate it: python -m optmem.harness.agent_block > AGENTS.snippet.md"
    assert agent_block.HOOK_HEADER_START in agent_block.BODY


def test_block_names_no_machine_path():
    assert os.path.expanduser("~") not in agent_block.block()
    assert "$MEMORY_DIR" in agent_block.BODY


# -- setup: twice, uninstall, schemas --------------------------------------

CASES = [("claude", "user"), ("claude", "project"), ("codex", "user"), ("codex", "project"),
         ("gemini", "user"), ("gemini", "project"), ("agents", "project")]


def _seed_files(world):
    """Files a person already has: other hooks, other rules, CRLF and a BOM."""
    home, project = world["home"], world["project"]
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text(json.dumps(
        {"model": "opus", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "echo hi"}]}]}}, indent=2) + "\n")
    (project / "CLAUDE.md").write_bytes(b"\xef\xbb\xbf# Project\r\n\r\nUse tabs.\r\n")
    (project / "AGENTS.md").write_text("# Agents\n\nRun make test.")  # no final newline
    (project / ".codex").mkdir()
    (project / ".codex" / "hooks.json").write_text(
        '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}')


@pytest.mark.parametrize("harness,scope", CASES)
def test_setup_twice_then_uninstall_restores_every_byte(world, memo, harness, scope):
    _seed_files(world)
    before = (tree(world["home"]), tree(world["project"]))
    first = setup_ok(memo, harness, "--scope", scope)
    after_one = (tree(world["home"]), tree(world["project"]))
    assert after_one != before
    second = setup_ok(memo, harness, "--scope", scope)
    assert (tree(world["home"]), tree(world["project"])) == after_one, "second run changed a byte"
    assert "Nothing to change." in second and "Nothing to change." not in first
    # The undo is the person's step the setup printed, run as printed.
    undo = [line for line in first.splitlines() if line.startswith("To undo it: ")]
    assert len(undo) == 1 and "Run: " not in first, first
    step = undo[0].split("A person can run: ", 1)[1].split()
    assert step[:2] == ["memo", "setup"]
    setup_ok(memo, *step[2:])
    assert (tree(world["home"]), tree(world["project"])) == before


@pytest.mark.parametrize("harness,scope", [c for c in CASES if c[0] in SETTINGS_SCHEMA])
def test_written_settings_validate_against_the_schemas(world, memo, harness, scope):
    _seed_files(world)
    setup_ok(memo, harness, "--scope", scope)
    files = [p for p in emu.settings_files(harness, str(world["home"]), str(world["project"]))
             if os.path.exists(p)]
    assert files
    for path in files:
        jsonschema.Draft7Validator(schema(SETTINGS_SCHEMA[harness])).validate(
            json.loads(Path(path).read_text()))
    # every hook entry of ours, alone, is valid too
    entry = {"hooks": {"SessionStart": [g for p in files for g in json.loads(
        Path(p).read_text()).get("hooks", {}).get("SessionStart", [])]}}
    assert entry["hooks"]["SessionStart"]
    jsonschema.Draft7Validator(schema(SETTINGS_SCHEMA[harness])).validate(entry)


@pytest.mark.parametrize("harness", ["claude", "codex", "gemini", "agents"])
def test_no_machine_path_in_a_committed_file(world, memo, harness):
    setup_ok(memo, harness, "--scope", "project")
    local = {".claude/settings.local.json"}
    for rel, (kind, _, data) in tree(world["project"]).items():
        if kind == "file" and rel not in local:
            assert str(world["store"]).encode() not in data, rel
            assert str(world["home"]).encode() not in data, rel
            assert sys.executable.encode() not in data, rel
    assert not (world["project"] / ".claude" / "settings.json").exists()


def test_claude_writes_env_and_hook_as_documented(world, memo):
    setup_ok(memo, "claude")
    data = json.loads((world["home"] / ".claude" / "settings.json").read_text())
    assert data["env"] == {"MEMORY_DIR": str(world["store"])}
    (group,) = data["hooks"]["SessionStart"]
    assert group["matcher"] == "startup|resume|clear|compact|fork"
    (handler,) = group["hooks"]
    assert handler["timeout"] == 30 and "async" not in handler
    assert "--harness claude" in handler["command"]
    assert "--memory-dir" in handler["command"]


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_claude_project_warns_when_git_would_commit_the_local_settings(world, memo):
    subprocess.run(["git", "init", "-q", str(world["project"])], check=True)
    out = setup_ok(memo, "claude", "--scope", "project")
    assert "git does not ignore it here" in out
    setup_ok(memo, "claude", "--scope", "project", "--uninstall")
    (world["project"] / ".gitignore").write_text(".claude/settings.local.json\n")
    assert "git does not ignore" not in setup_ok(memo, "claude", "--scope", "project")


def test_codex_prints_the_trust_step(world, memo):
    out = setup_ok(memo, "codex")
    assert "A person's next step: Codex runs a new or changed hook only after you trust it" in out
    assert "Run: " not in out


def test_dry_run_writes_nothing(world, memo):
    before = tree(world["home"])
    out = setup_ok(memo, "claude", "--dry-run")
    assert "+++ " in out and "Dry run: nothing was written." in out
    assert tree(world["home"]) == before


def test_stale_entry_is_replaced_not_added(world, memo, tmp_path, monkeypatch):
    setup_ok(memo, "claude")
    moved = tmp_path / "mem2"
    shutil.copytree(world["store"], moved)
    settings = world["home"] / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    data["env"].pop("MEMORY_DIR")
    settings.write_text(json.dumps(data, indent=2) + "\n")
    setup_ok(memo, "claude", "--memory-dir", str(moved))
    data = json.loads(settings.read_text())
    (group,) = data["hooks"]["SessionStart"]
    assert str(moved) in group["hooks"][0]["command"]


def test_a_different_memory_dir_in_env_is_refused(world, memo):
    (world["home"] / ".claude").mkdir()
    settings = world["home"] / ".claude" / "settings.json"
    settings.write_text('{"env": {"MEMORY_DIR": "/somewhere/else"}}\n')
    result = memo("setup", "claude")
    assert result.exit_code == 1
    assert "already sets MEMORY_DIR to '/somewhere/else'" in result.stderr
    assert settings.read_text() == '{"env": {"MEMORY_DIR": "/somewhere/else"}}\n'
    assert not (world["home"] / ".claude" / "CLAUDE.md").exists()


@pytest.mark.parametrize("value,why", [("mem", "relative path"), ("$HOME/mem", "shell"),
                                       ("`pwd`/mem", "shell")])
def test_relative_or_unexpanded_memory_dir_is_refused(world, memo, monkeypatch, value, why):
    monkeypatch.setenv("MEMORY_DIR", value)
    result = memo("setup", "claude")
    assert result.exit_code == 1 and why in result.stderr
    assert tree(world["home"]) == {}


def test_a_missing_store_is_refused(world, memo, tmp_path):
    result = memo("setup", "codex", "--memory-dir", str(tmp_path / "nope"))
    assert result.exit_code == 1 and "No memory at" in result.stderr
    assert tree(world["home"]) == {}


def test_preflight_refusal_writes_nothing(world, memo):
    """The settings file is fine, the memory file is not: neither changes."""
    (world["project"] / "CLAUDE.md").write_text(f"{agent_block.BEGIN}\nhalf a block\n")
    result = memo("setup", "claude", "--scope", "project")
    assert result.exit_code == 1 and "optmem:begin" in result.stderr
    assert not (world["project"] / ".claude").exists()


def test_non_json_settings_are_refused(world, memo):
    (world["home"] / ".claude").mkdir()
    bad = '{\n  // my settings\n  "model": "opus",\n}\n'
    (world["home"] / ".claude" / "settings.json").write_text(bad)
    result = memo("setup", "claude")
    assert result.exit_code == 1 and "not strict JSON" in result.stderr
    assert (world["home"] / ".claude" / "settings.json").read_text() == bad
    assert not (world["home"] / ".claude" / "CLAUDE.md").exists()


# -- text files: links, legacy blocks, BOM and line ends --------------------

def test_bom_and_crlf_are_kept(world, memo):
    path = world["project"] / "CLAUDE.md"
    path.write_bytes(b"\xef\xbb\xbf# P\r\n\r\nx\r\n")
    setup_ok(memo, "claude", "--scope", "project")
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf# P\r\n\r\nx\r\n\r\n" + agent_block.BEGIN.encode())
    assert b"\n" not in data.replace(b"\r\n", b"")


@pytest.mark.parametrize("link", ["symlink", "hardlink"])
def test_two_names_of_one_file_are_written_once(world, memo, link):
    agents = world["project"] / "AGENTS.md"
    agents.write_text("# Rules\n")
    claude = world["project"] / "CLAUDE.md"
    if link == "symlink":
        claude.symlink_to("AGENTS.md")
    else:
        os.link(agents, claude)
    out = setup_ok(memo, "agents")
    assert "CLAUDE.md is the same file as" in out
    assert agents.read_text().count(agent_block.BEGIN) == 1
    assert claude.is_symlink() == (link == "symlink")
    assert os.path.samefile(agents, claude)
    # without AGENTS.md in the run, CLAUDE.md alone is a link to a file this run
    # does not write (a hard link's other name could lie outside the project): refused
    result = memo("setup", "claude", "--scope", "project")
    why = "CLAUDE.md is a link (to AGENTS.md)" if link == "symlink" else "CLAUDE.md has 2 hard links"
    assert result.exit_code == 1 and why in result.stderr
    assert not (world["project"] / ".claude").exists()
    setup_ok(memo, "agents", "--uninstall")
    assert agents.read_text() == "# Rules\n" and os.path.samefile(agents, claude)
    assert claude.is_symlink() == (link == "symlink")


def test_dangling_link_is_refused(world, memo):
    (world["home"] / ".claude").mkdir()
    (world["home"] / ".claude" / "CLAUDE.md").symlink_to("gone.md")
    result = memo("setup", "claude")
    assert result.exit_code == 1 and "does not exist" in result.stderr
    assert not (world["home"] / ".claude" / "settings.json").exists()


def test_a_hand_pasted_block_is_replaced_not_doubled(world, memo):
    pasted = ("# Project rules\n\nBe brief.\n\n## Memory\n\nYou have a permanent memory: the "
              "`memo` command, with its files in\n`$MEMORY_DIR`. Old words.\n\n**Wake first.** "
              "Run memo wake.\n\n## Build\n\nmake all\n")
    path = world["project"] / "CLAUDE.md"
    path.write_text(pasted)
    setup_ok(memo, "claude", "--scope", "project")
    text = path.read_text()
    assert text.count("You have a permanent memory") == 1 and "Old words" not in text
    assert text.startswith("# Project rules\n\nBe brief.\n\n" + agent_block.BEGIN)
    assert text.endswith(agent_block.END + "\n\n## Build\n\nmake all\n")
    assert edit.md_state(path.read_bytes(), str(path)) == "current"
    setup_ok(memo, "claude", "--scope", "project", "--uninstall")
    assert path.read_text() == pasted  # untouched since: the bytes from before


def test_uninstall_keeps_what_a_person_added_since(world, memo):
    setup_ok(memo, "claude")
    settings = world["home"] / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    data["model"] = "opus"
    settings.write_text(json.dumps(data, indent=2) + "\n")
    md = world["home"] / ".claude" / "CLAUDE.md"
    md.write_text("# Mine\n\n" + md.read_text())
    setup_ok(memo, "claude", "--uninstall")
    assert json.loads(settings.read_text()) == {"model": "opus"}
    assert md.read_text() == "# Mine\n"


def test_an_edit_between_two_setups_survives_the_uninstall(world, memo, tmp_path):
    """Setup, a person's edit, setup again with another store (the entry
    changes), uninstall: the person's edit stays, ours goes."""
    setup_ok(memo, "claude")
    settings = world["home"] / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    data["model"] = "opus"
    data["env"].pop("MEMORY_DIR")
    settings.write_text(json.dumps(data, indent=2) + "\n")
    moved = tmp_path / "mem2"
    shutil.copytree(world["store"], moved)
    setup_ok(memo, "claude", "--memory-dir", str(moved))
    setup_ok(memo, "claude", "--uninstall")
    assert json.loads(settings.read_text()) == {"model": "opus"}


def test_uninstall_without_the_record_takes_out_only_ours(world, memo):
    """The record of what setup wrote is lost: a canonical file still comes
    back byte for byte, because only our entries are taken out."""
    original = json.dumps({"hooks": {"SessionStart": [{"matcher": "startup", "hooks": [
        {"type": "command", "command": "echo other"}]}]}, "env": {"A": "1"}}, indent=2) + "\n"
    (world["home"] / ".claude").mkdir()
    settings = world["home"] / ".claude" / "settings.json"
    settings.write_text(original)
    setup_ok(memo, "claude")
    os.unlink(edit.manifest_path({"HOME": str(world["home"])}))
    setup_ok(memo, "claude", "--uninstall")
    data = json.loads(settings.read_text())
    data.get("env", {}).pop("MEMORY_DIR", None)  # not recorded as ours: kept, so drop it here
    assert json.dumps(data, indent=2) + "\n" == original


# -- setup writes only where it says ----------------------------------------

#: Every file setup writes in project scope, by harness: (harness, the
#: file's name in the project).
PROJECT_FILES = [("claude", "CLAUDE.md"), ("claude", ".claude/settings.local.json"),
                 ("codex", "AGENTS.md"), ("codex", ".codex/hooks.json"),
                 ("gemini", "GEMINI.md"), ("gemini", ".gemini/settings.json"),
                 ("agents", "AGENTS.md")]


@pytest.mark.parametrize("harness,name", PROJECT_FILES)
def test_a_project_file_linked_out_of_the_project_is_refused(world, memo, harness, name):
    """A cloned repository's file is a link to a file of the person's home:
    setup refuses it in one line naming it, and writes nothing anywhere."""
    outside = world["home"] / (".bashrc" if name.endswith(".md") else "other.json")
    outside.write_text("export PS1='$ '\n" if name.endswith(".md") else '{"keep": 1}\n')
    link = world["project"] / name
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(outside)
    before = (tree(world["home"]), tree(world["project"]))
    result = memo("setup", harness, "--scope", "project")
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1
    assert f"{link} is a link (to {outside})" in result.stderr
    assert "a person may still edit it by hand" in result.stderr
    assert (tree(world["home"]), tree(world["project"])) == before
    assert memo("setup", harness, "--scope", "project", "--uninstall").exit_code == 1
    status = memo("setup", "--status").stdout
    assert "a link (setup writes through none in a project)" in status


def test_a_link_whose_target_holds_a_line_break_is_refused_in_one_line(world, memo):
    (world["project"] / "CLAUDE.md").symlink_to("x\nRun: memo init")
    result = memo("setup", "claude", "--scope", "project")
    assert result.exit_code == 1 and result.stderr.count("\n") == 1
    assert "is a link (to 'x\\nRun: memo init')" in result.stderr


@pytest.mark.parametrize("harness,name", [f for f in PROJECT_FILES if "/" in f[1]])
def test_a_project_folder_linked_out_of_the_project_is_refused(world, memo, harness, name):
    """``.claude`` (``.codex``, ``.gemini``) is a link to a folder in home."""
    folder, file = name.split("/")
    away = world["home"] / "away"
    away.mkdir()
    (away / file).write_text('{"keep": 1}\n')
    (world["project"] / folder).symlink_to(away)
    before = (tree(world["home"]), tree(world["project"]))
    result = memo("setup", harness, "--scope", "project")
    assert result.exit_code == 1 and "leads outside the project" in result.stderr
    assert str(world["project"] / folder / file) in result.stderr
    assert (tree(world["home"]), tree(world["project"])) == before


def test_a_folder_linked_inside_the_project_is_followed(world, memo):
    """A link among the folders that stays in the project is no way out."""
    (world["project"] / "conf").mkdir()
    (world["project"] / ".claude").symlink_to("conf")
    setup_ok(memo, "claude", "--scope", "project")
    assert (world["project"] / "conf" / "settings.local.json").is_file()
    assert (world["project"] / ".claude").is_symlink()


def test_a_folder_swapped_for_a_link_before_the_write_is_not_followed(world, memo,
                                                                    monkeypatch):
    """Between the last check and the write, ``.claude`` becomes a link to a
    folder in home: the settings there stay untouched."""
    claude_dir = world["project"] / ".claude"
    claude_dir.mkdir()
    (claude_dir / "settings.local.json").write_text("{}\n")
    victim = world["home"] / "victim"
    victim.mkdir()
    (victim / "settings.local.json").write_text("{}\n")
    load, calls = edit.state.load, []

    def swap_then_load(path):
        calls.append(path)
        if len(calls) == 2:  # apply's manifest read: the files were checked just before
            claude_dir.rename(world["project"] / "moved")
            claude_dir.symlink_to(victim)
        return load(path)

    monkeypatch.setattr(edit.state, "load", swap_then_load)
    result = memo("setup", "claude", "--scope", "project")
    assert result.exit_code == 1 and "settings.local.json" in result.stderr
    assert (victim / "settings.local.json").read_text() == "{}\n"
    assert sorted(os.listdir(victim)) == ["settings.local.json"]


@pytest.mark.skipif(not getattr(edit, "_BY_FD", True), reason="no descriptor-relative calls here")
def test_the_write_walks_folders_without_following_a_link(tmp_path):
    """The last line of defence alone: the path checks pass (stubbed), the
    folder is a link by the time of the write, and the write refuses it."""
    root, away = tmp_path / "p", tmp_path / "away"
    root.mkdir()
    away.mkdir()
    (root / ".codex").symlink_to(away)
    target = edit.Target(str(root / ".codex" / "hooks.json"),
                         str(root / ".codex" / "hooks.json"), None, ("new", ""))
    with pytest.raises(edit.Refused, match="became a link"):
        edit._write_in(target, b"{}\n", 0o600, str(root))
    assert os.listdir(away) == []


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_user_settings_in_a_dotfiles_work_tree_get_the_commit_notice(world, memo):
    dotfiles = world["home"] / "dotfiles"
    (dotfiles / "claude").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(dotfiles)], check=True)
    (world["home"] / ".claude").symlink_to(dotfiles / "claude")
    out = setup_ok(memo, "claude")
    assert ("A person's next step: ~/.claude/settings.json holds this machine's paths and "
            "lies in the git work tree ~/dotfiles, which does not ignore it") in out
    assert "CLAUDE.md holds" not in out  # the block names no path: fine to commit
    setup_ok(memo, "claude", "--uninstall")
    (dotfiles / ".gitignore").write_text("claude/settings.json\n")
    assert "git work tree" not in setup_ok(memo, "claude")


@pytest.mark.parametrize("harness,var", [("claude", "CLAUDE_CONFIG_DIR"),
                                         ("codex", "CODEX_HOME"),
                                         ("gemini", "GEMINI_CLI_HOME")])
@pytest.mark.parametrize("uninstall", [False, True])
def test_a_relative_harness_home_is_refused(world, memo, monkeypatch, harness, var,
                                            uninstall):
    monkeypatch.setenv(var, "cfg")
    before = (tree(world["home"]), tree(world["project"]))
    result = memo("setup", harness, *(["--uninstall"] if uninstall else []))
    assert result.exit_code == 1
    assert f"{var} 'cfg' is a relative path, so each folder" in result.stderr
    assert f"set it to an absolute path, e.g. {var}={world['project'] / 'cfg'}" in result.stderr
    assert (tree(world["home"]), tree(world["project"])) == before


def test_gemini_home_moves_the_user_files(world, memo, monkeypatch, tmp_path):
    monkeypatch.setenv("GEMINI_CLI_HOME", str(tmp_path / "ghome"))
    setup_ok(memo, "gemini")
    assert (tmp_path / "ghome" / ".gemini" / "settings.json").is_file()
    assert not (world["home"] / ".gemini").exists()


NUMBERS = '{"a": 1e400, "b": 1.0, "c": -0, "d": 123456789012345678901234567890, "e": [2.50, 1E-7]}'


def test_numbers_are_kept_as_written(world, memo):
    (world["home"] / ".claude").mkdir()
    settings = world["home"] / ".claude" / "settings.json"
    settings.write_text(NUMBERS + "\n")
    setup_ok(memo, "claude")
    text = settings.read_text()
    for number in ("1e400", "1.0", "-0", "123456789012345678901234567890", "2.50", "1E-7"):
        assert f" {number}" in text, number
    assert "Infinity" not in text
    setup_ok(memo, "claude")  # unchanged: no second rewrite
    setup_ok(memo, "claude", "--uninstall")
    assert settings.read_text() == NUMBERS + "\n"


@pytest.mark.parametrize("text,why", [
    ('{"model": "opus", "model": "sonnet"}', 'the key "model" appears twice'),
    ('{"env": {"A": "1", "A": "2"}}', 'the key "A" appears twice'),
    ('{"n": NaN}', "NaN is not a JSON number"),
    ('{"n": Infinity}', "Infinity is not a JSON number"),
    ('{"s": "\\ud800"}', "a string holds a lone surrogate"),
])
def test_json_that_would_not_come_back_alike_is_refused(world, memo, text, why):
    (world["home"] / ".claude").mkdir()
    settings = world["home"] / ".claude" / "settings.json"
    settings.write_text(text)
    result = memo("setup", "claude")
    assert result.exit_code == 1 and result.stderr.count("\n") == 1
    assert f"{settings} is not strict JSON ({why}" in result.stderr
    assert settings.read_text() == text
    assert not (world["home"] / ".claude" / "CLAUDE.md").exists()


def test_folders_memo_makes_are_owner_only_under_umask_0(world):
    """Run in a child with umask 000: every folder setup makes (its state
    folder and the ones above it, the harness folders) is 0700."""
    code = ("import os, sys; os.umask(0); sys.argv = ['memo'] + sys.argv[1:]; "
            "from optmem.cli.app import main; main()")
    env = dict(os.environ, HOME=str(world["home"]), MEMORY_DIR=str(world["store"]))
    for args in (["setup", "claude"], ["setup", "claude", "--scope", "project"]):
        p = subprocess.run([sys.executable, "-c", code, *args], cwd=world["project"], env=env,
                           capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
    folders = [p for root in (world["home"], world["project"]) for p in root.rglob("*")
               if p.is_dir()]
    assert {str(p.relative_to(world["home"])) for p in folders
            if world["home"] in p.parents} >= {".local", ".local/state",
                                               ".local/state/optmem", ".claude"}
    assert world["project"] / ".claude" in folders
    for folder in folders:
        assert oct(folder.stat().st_mode & 0o777) == oct(0o700), folder


def test_an_unknown_hook_harness_is_a_usage_error(memo):
    result = memo("hook", "session-start", "--harness", "vscode")
    assert result.exit_code == 2
    assert "'vscode' is not one of 'claude', 'codex', 'gemini'" in result.stderr


def test_the_hook_harness_choices_are_the_harnesses_with_a_hook():
    from optmem.cli.app import HOOK_HARNESSES
    from optmem.harness import HARNESSES
    assert set(HOOK_HARNESSES) == {n for n, m in HARNESSES.items() if hasattr(m, "hook_output")}


# -- the hook: stdin fixtures ----------------------------------------------

def run_hook(harness, stdin_bytes, cwd, env, *extra):
    p = subprocess.run(MEMO + ["hook", "session-start", "--harness", harness, *extra],
                       input=stdin_bytes, cwd=cwd, env=env, capture_output=True)
    assert p.returncode == 0, p.stderr
    return p.stdout.decode("utf-8")


def hook_env(home, store):
    return {"PATH": os.environ["PATH"], "HOME": str(home), "MEMORY_DIR": str(store)}


@pytest.mark.parametrize("fixture", sorted(p.name for p in STDIN.glob("*.json")))
def test_every_stdin_fixture(world, fixture, big_store):
    harness = fixture.split("-")[0]
    event = json.loads((STDIN / fixture).read_text())
    out = run_hook(harness, (STDIN / fixture).read_bytes(), world["elsewhere"],
                   hook_env(world["home"], big_store))
    if event["hook_event_name"] != "SessionStart":
        assert out == ""
        return
    assert out.endswith("\n") and out.count("\n") == 1
    data = json.loads(out)
    assert list(data) == ["hookSpecificOutput"]
    assert list(data["hookSpecificOutput"]) == ["hookEventName", "additionalContext"]
    assert data["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    text = data["hookSpecificOutput"]["additionalContext"]
    assert len(text.encode("utf-8")) <= 9000
    assert text.startswith(agent_block.HOOK_HEADER_START)
    assert ends_awake(text)
    assert "#999 2020-02-16 Fix for string cast of MissingParameter" in text
    assert "994 compressions are pending" in text and text.endswith("\nRun: memo sleep")
    assert "Not awake yet" not in text and "Run: memo wake" not in text
    text, previewed, failed = emu.deliver(harness, out)
    assert text is not None and not previewed and not failed


@pytest.mark.parametrize("stdin", [b"", b"not json", b"[1, 2]", b"\xff\xfe"])
def test_garbled_stdin_is_a_startup(world, big_store, stdin):
    out = run_hook("claude", stdin, world["elsewhere"], hook_env(world["home"], big_store))
    text = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert "at session startup" in text and ends_awake(text)


@pytest.mark.parametrize("value,why", [
    ("", "MEMORY_DIR is not set"), ("mem", "relative path"), ("$HOME/mem", "expand"),
    ("/nonexistent/memory", "No memory at /nonexistent/memory")])
def test_a_bad_store_is_one_clear_line_in_the_context(world, value, why):
    env = dict(hook_env(world["home"], "x"), MEMORY_DIR=value)
    out = run_hook("codex", (STDIN / "codex-session-start-startup.json").read_bytes(),
                   world["elsewhere"], env)
    text = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert text.startswith(f"{agent_block.HOOK_HEADER_START} could not be loaded (")
    assert why in text and "\n" not in text
    assert "Run: memo init" not in text


def test_resume_says_unchanged_only_when_it_is(world, memo, big_store):
    env = hook_env(world["home"], world["store"])
    memo("note", "the first memory")
    start = (STDIN / "claude-session-start-startup.json").read_bytes()
    resume = (STDIN / "claude-session-start-resume.json").read_bytes()
    full = json.loads(run_hook("claude", start, world["elsewhere"], env))
    assert "#0 " in full["hookSpecificOutput"]["additionalContext"]
    again = json.loads(run_hook("claude", resume, world["elsewhere"], env))
    line = again["hookSpecificOutput"]["additionalContext"]
    assert "unchanged since it was loaded earlier in this session" in line and "\n" not in line
    memo("note", "a second memory")
    moved = json.loads(run_hook("claude", resume, world["elsewhere"], env))
    assert "#1 " in moved["hookSpecificOutput"]["additionalContext"]
    # compact always refills, even when unchanged
    compact = (STDIN / "claude-session-start-compact.json").read_bytes()
    text = json.loads(run_hook("claude", compact, world["elsewhere"], env))
    assert ends_awake(text["hookSpecificOutput"]["additionalContext"])


def test_two_hooks_at_once_both_deliver(world, big_store):
    """Claude Code runs matching hooks in parallel (a plugin's copy beside a
    settings one): both succeed and the session record stays JSON."""
    env = hook_env(world["home"], big_store)
    cmd = MEMO + ["hook", "session-start", "--harness", "claude"]
    procs = [subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              cwd=world["elsewhere"], env=env) for _ in range(4)]
    for i, p in enumerate(procs):
        p.stdin.write(json.dumps({"hook_event_name": "SessionStart", "source": "startup",
                                  "session_id": f"s{i}"}).encode())
        p.stdin.close()
    for p in procs:
        out = p.stdout.read()
        assert p.wait() == 0
        assert ends_awake(json.loads(out)["hookSpecificOutput"]["additionalContext"])
    record = world["home"] / ".local" / "state" / "optmem" / "hook-sessions.json"
    assert json.loads(record.read_text())[str(big_store)]


def test_env_file_gets_each_export_line_once(world, big_store, tmp_path):
    env_file = tmp_path / "env.sh"
    env = dict(hook_env(world["home"], big_store), CODEX_ENV_FILE=str(env_file))
    for _ in range(2):
        run_hook("codex", (STDIN / "codex-session-start-startup.json").read_bytes(),
                 world["elsewhere"], env)
    assert env_file.read_text() == (f"export MEMORY_DIR={big_store}\n"
                                    f"export MEMO_SESSION=019a-codex-thread\n")


# -- the emulator: end to end, and the 10,000-character boundary ------------

@pytest.mark.parametrize("harness,scope", [("claude", "user"), ("claude", "project"),
                                           ("codex", "user"), ("codex", "project")])
def test_emulated_startup_and_compact_deliver_the_memory(world, memo, big_store,
                                                          harness, scope):
    setup_ok(memo, harness, "--scope", scope, "--memory-dir", str(big_store))
    for source in ("startup", "compact", "clear"):
        got = run_emulated(harness, world, source, store=big_store)
        assert got.failed == 0 and got.previewed == 0, got.runs
        (text,) = got.texts
        assert len(text) <= emu.CLAUDE_CAP_CHARS
        assert ends_awake(text) and "#999 " in text
        assert "Run: memo sleep" in text
    setup_ok(memo, harness, "--scope", scope, "--uninstall")
    assert run_emulated(harness, world, "startup", store=big_store).texts == []


@pytest.mark.parametrize("scope", ["user", "project"])
def test_emulated_gemini_gets_the_memory_on_every_source(world, memo, big_store, scope):
    setup_ok(memo, "gemini", "--scope", scope, "--memory-dir", str(big_store))
    for source in ("startup", "resume", "clear"):
        got = run_emulated("gemini", world, source, store=big_store)
        assert got.failed == 0, got.runs
        (text,) = got.texts
        assert ends_awake(text) and "#999 " in text


def test_claude_user_and_project_hooks_with_one_command_run_once(world, memo, big_store):
    """Claude Code runs one handler defined at two levels once."""
    setup_ok(memo, "claude", "--memory-dir", str(big_store))
    setup_ok(memo, "claude", "--scope", "project", "--memory-dir", str(big_store))
    assert len(run_emulated("claude", world, "startup", store=big_store).texts) == 1


def test_the_emulator_cap_is_at_10000_characters():
    def wrap(text):
        return json.dumps(
            {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}})
    whole, previewed, _ = emu.deliver("claude", wrap("é" * 10_000))
    assert whole == "é" * 10_000 and not previewed
    cut, previewed, _ = emu.deliver("claude", wrap("é" * 10_001))
    assert previewed and "Preview (first 2KB)" in cut and len(cut) < 2_300
    flat, _, failed = emu.deliver("codex", json.dumps({"additionalContext": "x",
                                                        "hookSpecificOutput": {}}))
    assert flat is None and failed


def test_wide_text_stays_under_the_cap_at_the_boundary(world, memo, tmp_path):
    """3-byte characters (the Korean case of OptMem #6): a byte budget of
    10,000 is at most 10,000 characters, so nothing is ever previewed."""
    lines = [f"2026-01-{1 + i % 28:02d} 메모리 {i}: " + "기억" * 40 for i in range(400)]
    src = tmp_path / "wide.txt"
    src.write_text("\n".join(sorted(lines)) + "\n", encoding="utf-8")
    assert memo("import", str(src)).exit_code == 0
    env = hook_env(world["home"], world["store"])
    for budget in ("10000", "9999", "4000"):
        out = run_hook("claude", b"", world["elsewhere"], env, "--max-bytes", budget)
        value = json.loads(out)["hookSpecificOutput"]["additionalContext"]
        assert len(value.encode("utf-8")) <= int(budget)
        text, previewed, _ = emu.deliver("claude", out)
        assert text == value and not previewed


def test_status_says_what_is_installed(world, memo):
    setup_ok(memo, "claude")
    out = setup_ok(memo, "--status")
    assert "claude --scope user: ~/.claude/settings.json current; ~/.claude/CLAUDE.md current" in out
    assert "codex --scope user: ~/.codex/hooks.json absent" in out


def test_status_flags_an_unexpanded_memory_dir(world, memo):
    (world["project"] / ".claude").mkdir()
    (world["project"] / ".claude" / "settings.json").write_text(
        '{"env": {"MEMORY_DIR": "$HOME/memory"}}\n')
    result = memo("setup", "--status")
    assert result.exit_code == 1
    assert "env MEMORY_DIR '$HOME/memory' is refused" in result.stdout


@pytest.mark.parametrize("notes, line", [
    (2, "1 compression is pending; do it before your next action."),
    (3, "1 compression is pending; do it before your next action."),
    (4, "3 compressions are pending; do them before your next action."),
])
def test_the_hook_names_pending_work_in_agreement(world, tmp_path, notes, line):
    store = tmp_path / "small-store"
    env = hook_env(world["home"], store)
    assert subprocess.run(MEMO + ["init"], env=env, capture_output=True).returncode == 0
    for i in range(notes):
        assert subprocess.run(MEMO + ["note", f"fact number {i}"], env=env,
                              capture_output=True).returncode == 0
    out = run_hook("claude", b"", world["elsewhere"], env)
    text = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert "You are awake.\n\n" + line + "\nRun: memo sleep" in text


def test_a_misspelt_harness_names_the_nearest_and_the_help(world, memo):
    result = memo("setup", "claud")
    assert result.exit_code == 1 and result.stdout == ""
    line = result.stderr.rstrip("\n")
    assert "\n" not in line and "no harness named 'claud' (did you mean claude?)" in line
    assert line.endswith(". Run: memo setup --help")
    assert memo("setup", "--help").exit_code == 0

"""One selection of stores for every command and front end (docs/scopes.md).

With a project active the identity is two stores. Each case here is one
the two-store path once treated differently from the one-store path: the
wake's warning of a conflict copy and its damage per store, ``export``
choosing its store as ``import`` does, a zoom only one store can answer,
a dry run naming the command in the form that runs where it was asked,
one JSON shape whatever the scope, and ``setup --status`` agreeing with
the hook ``setup`` wrote on a store that syncs.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess

import pytest

from conftest import run_in, write_import
from helpers import ok
from optmem.harness import inject

GIT = shutil.which("git")
GIT_ENV = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
COPY = "LOG.sync-conflict-20261203-101010-ABCDEFG.txt"  #: Syncthing's name for a conflict copy

pytestmark = pytest.mark.skipif(GIT is None, reason="git is not installed")


ORDER = re.compile(r"^Run: memo sleep (\d+-\d+)((?: --global| --project \S+)?) - <<'SUMMARY'$",
                   re.M)


def answer_both(memo) -> None:
    """Answer every compression of both stores, following each order."""
    out = ok(memo("sleep"))
    while "Nothing left to compress." not in out:
        block, flag = ORDER.search(out).groups()
        out = ok(memo("sleep", *flag.split(), block, f"the summary of {block}"))


def git(*args, cwd=None) -> str:
    done = subprocess.run(["git", *map(str, args)], cwd=cwd, capture_output=True, text=True)
    assert done.returncode == 0, (args, done.stderr)
    return done.stdout.strip()


@pytest.fixture
def widget(tmp_path, memo, inited, monkeypatch):
    """The working directory is a repository bound to project ``widget``;
    the global memory holds 6 memories, the project 3, every summary built."""
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    repo = tmp_path / "widget"
    repo.mkdir()
    git("-C", repo, "init", "-q")
    git("-C", repo, "commit", "-q", "--allow-empty", "-m", "start")
    monkeypatch.chdir(repo)
    ok(memo("init", "--project", "widget"))
    for k in range(6):
        ok(memo("note", "--global", f"global fact {k}"))
    for k in range(3):
        ok(memo("note", f"widget fact {k}"))
    answer_both(memo)
    return repo


def _hook(cwd, memory_dir) -> str:
    from optmem.harness import claude
    event = json.dumps({"hook_event_name": "SessionStart", "source": "startup",
                        "cwd": str(cwd)})
    return inject.context(claude, event, str(memory_dir), dict(os.environ))


def _has_mcp() -> bool:
    """Whether the MCP server's call path can run here (it checks its
    arguments with jsonschema, a test dependency)."""
    import importlib.util
    return importlib.util.find_spec("jsonschema") is not None


def _mcp(tool, arguments, root):
    from optmem import mcp
    return mcp.call_tool(tool, arguments, root=str(root))


# -- the wake of two stores reads each as the one-store wake does ---------------

def test_the_two_store_wake_warns_of_a_conflict_copy_in_every_front_end(memo, widget,
                                                                        inited):
    (inited / COPY).write_bytes((inited / "LOG.txt").read_bytes())
    seen = {"cli": memo("wake").stdout, "hook": _hook(widget, inited),
            "max-bytes": memo("wake", "--max-bytes", "20000").stdout}
    if _has_mcp():
        seen["mcp"] = _mcp("wake", {}, widget)[0]
    for where, text in seen.items():
        lines = text.splitlines()
        warning = [line for line in lines if line.startswith("Warning: a sync tool")]
        assert len(warning) == 1, (where, text)
        assert COPY in warning[0]
        # the person's step names the global memory, so it runs where it was given
        assert "&& memo merge --global -- " in warning[0], (where, warning[0])
        # it stands in the global memory's section, before the project's heading
        project = next(k for k, line in enumerate(lines) if line.startswith("Project memory:"))
        assert lines.index(warning[0]) < project, where
    (inited / COPY).unlink()
    assert "Warning: a sync tool" not in memo("wake").stdout


def test_a_broken_level_of_one_store_leaves_the_two_store_wake_whole(memo, widget, inited):
    level = inited / "projects" / "widget" / "TREE" / "2"
    level.unlink()
    level.mkdir()
    for args in (["wake"], ["wake", "--project", "widget"]):
        result = memo(*args)
        assert result.exit_code == 0, result.stderr
        lines = result.stdout.rstrip("\n").splitlines()
        ids = [line.split(" ", 1)[0] for line in lines if line.startswith("#")]
        assert ids == [f"#{k}" for k in range(6)] + [f"#{k}" for k in range(3)]
        assert lines[-3:-1] == ["You are awake.", ""]
        assert lines[-1].startswith(f"{level} is not a regular file")
        assert "A person can run: mv -- " in lines[-1]
        assert not [line for line in lines if line.startswith("Run: ")]
    text = _hook(widget, inited)
    assert "#2 " in text and "could not be loaded" not in text and "Run: memo sleep" not in text


def test_a_broken_level_the_two_store_document_needs_is_one_line(memo, widget, inited):
    ok(memo("config", "WAKE_LINES=2"))  # the global section is then #0-3 and #4-5
    level = inited / "TREE" / "4"
    level.unlink()
    level.mkdir()
    result = memo("wake")
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and f"{level} is not a regular file" in result.stderr


def test_a_damaged_summary_the_two_store_wake_needs_orders_that_stores_forget(memo, widget,
                                                                             inited):
    ok(memo("config", "WAKE_LINES=4"))
    tree = inited / "projects" / "widget" / "TREE" / "2"
    data = bytearray(tree.read_bytes())
    data[:20] = b"\x00" * 20  # the 0-1 summary of the project: no record memo writes
    tree.write_bytes(bytes(data))
    result = memo("wake")
    assert result.exit_code == 1, result.stdout
    assert "Run: memo forget 0-1 --project widget" in result.stderr
    order = result.stderr.rstrip("\n").rsplit("Run: ", 1)[1]
    ok(memo(*shlex.split(order)[1:]))
    # over MCP the memory is shown with the stand-in line instead (the hook's
    # document, the most detailed that fits, shows these memories verbatim)
    tree.write_bytes(bytes(data))
    stand_in = "[damaged summary: memo check names its repair]"
    if _has_mcp():
        text, is_error = _mcp("wake", {}, widget)
        assert stand_in in text and not is_error


# -- one store chosen by the same rule -------------------------------------------

def test_export_writes_the_store_import_writes(memo, widget, inited, tmp_path):
    both = {"default": [], "--global": ["--global"], "--project": ["--project", "widget"]}
    texts = {}
    for name, flag in both.items():
        for place in ("after", "before"):
            args = [*flag, "export"] if place == "before" else ["export", *flag]
            texts[name, place] = ok(memo(*args))
        assert texts[name, "after"] == texts[name, "before"]
    assert "widget fact 0" in texts["default", "after"]
    assert "global fact" not in texts["default", "after"]
    assert texts["--project", "after"] == texts["default", "after"]
    assert "global fact 0" in texts["--global", "after"]
    assert "widget fact" not in texts["--global", "after"]
    # an export imports back where it came from: the same memories
    out = tmp_path / "widget.txt"
    ok(memo("export", str(out)))
    assert out.read_text() == texts["default", "after"]
    fresh = tmp_path / "fresh"
    ok(run_in(fresh, "init"))
    ok(run_in(fresh, "import", out))
    assert run_in(fresh, "export").stdout == texts["default", "after"]
    # import with no flag writes the project's store, as export read it
    import datetime
    today = datetime.date.today().isoformat()
    write_import(tmp_path / "more.txt", [f"{today} one more widget fact"])
    ok(memo("import", str(tmp_path / "more.txt")))
    assert ok(memo("export")).endswith("one more widget fact\n")


def test_a_zoom_only_one_store_can_answer_is_answered_naming_it(memo, widget):
    result = memo("zoom", "4")  # the project holds #0-2: only the global memory has #4
    assert result.exit_code == 0, result.stderr
    heading, line = result.stdout.splitlines()
    assert heading.startswith("Global memory (") and line.startswith("#4 ")
    assert line.endswith("global fact 4")
    both = memo("zoom", "1")
    assert both.exit_code == 1
    assert both.stderr.splitlines()[1:] == ["Run: memo zoom --global 1",
                                             "Run: memo zoom --project widget 1"]
    if _has_mcp():
        text, is_error = _mcp("zoom", {"block": "4"}, widget)
        assert not is_error and text.splitlines() == [heading, line]


def test_a_dry_run_names_the_forget_that_runs_where_it_was_asked(memo, widget, inited):
    for flag in (["--global"], ["--project", "widget"]):
        for args in ([*flag, "forget", "--dry-run", "0-1"], ["forget", *flag, "0-1", "--dry-run"]):
            report = ok(memo(*args))
            named = report.split(" would drop ", 1)[0]
            assert named == " ".join(["memo forget", *flag, "0-1"]), report
    named = ok(memo("forget", "--global", "--dry-run", "4-5")).split(" would drop ", 1)[0]
    before = (inited / "projects" / "widget" / "TREE" / "2").read_bytes()
    assert ok(memo(*shlex.split(named)[1:])).startswith("Forgot 1 summary, from 4-5 up.")
    assert (inited / "projects" / "widget" / "TREE" / "2").read_bytes() == before


# -- one JSON shape per command ------------------------------------------------------

@pytest.mark.parametrize("command", [["recall", "--json", "fact"], ["stats", "--json"]])
def test_json_is_one_list_whatever_the_scope(memo, widget, command):
    shapes = {}
    for name, flag in {"both": [], "global": ["--global"],
                       "project": ["--project", "widget"]}.items():
        out = json.loads(ok(memo(*flag, *command)))
        assert isinstance(out, list) and out and all(isinstance(i, dict) for i in out)
        shapes[name] = out
    assert {item["store"] for item in shapes["both"]} == {"global", "widget"}
    for name in ("global", "project"):
        assert not any("store" in item for item in shapes[name])
    stripped = [{k: v for k, v in item.items() if k != "store"} for item in shapes["both"]]
    assert stripped == shapes["global"] + shapes["project"]


def test_json_of_one_store_without_projects_is_the_same_list(memo, inited):
    ok(memo("note", "a fact"))
    assert json.loads(ok(memo("recall", "--json", "fact")))[0]["text"] == "a fact"
    [info] = json.loads(ok(memo("stats", "--json")))
    assert info["memories"] == 1 and "store" not in info


# -- setup and its status agree --------------------------------------------------------

def test_setup_status_is_current_right_after_setup_on_a_store_that_syncs(
        memo, inited, tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    hub = tmp_path / "hub.git"
    git("init", "-q", "--bare", "-b", "main", hub)
    git("-C", inited, "init", "-q", "-b", "main")
    git("-C", inited, "remote", "add", "origin", hub)
    git("-C", inited, "commit", "-q", "--allow-empty", "-m", "memo store")
    git("-C", inited, "push", "-q", "-u", "origin", "main")
    monkeypatch.chdir(tmp_path)
    out = ok(memo("setup", "claude"))
    assert "the hooks run memo sync" in out
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    assert "--sync" in json.dumps(settings["hooks"]["SessionStart"])
    status = memo("setup", "--status")
    line = next(line for line in status.stdout.splitlines()
                if line.startswith("claude --scope user:"))
    assert "settings.json current" in line, line
    assert "stale" not in line

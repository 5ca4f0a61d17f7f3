"""Every store command sees the same stores the same way, in every front end.

The matrix: each store command x each scope x each front end that has the
command (the CLI; the MCP server for its tools; the session-start hook for
the wake). A scope is how the command is pointed at the identity:

- ``plain``: run outside any repository, so no project is active;
- ``global``: ``--global`` (the MCP ``scope`` argument ``"global"``) in a
  repository bound to project ``widget``;
- ``project``: ``--project widget`` (``"scope": "widget"``) there;
- ``both``: no scope named there, so the project is active.

A command that takes an id is run twice: with an id only the global memory
holds, and with one both memories hold. For each cell the test observes
which stores the answer shows (the global memory's texts say ``global
fact``, the project's ``widget fact``; counts and settings differ too),
which store a write changed, whether it was refused, and which stores the
refusal's orders name; then asserts the observation is the one the rules
of docs/scopes.md give (``EXPECTED``), the same in every front end, and
that a ``--json`` answer is one list whose items name their store exactly
where several stores are read.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from optmem.cli.app import cli

GIT = shutil.which("git")
GIT_ENV = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}

pytestmark = pytest.mark.skipif(GIT is None, reason="git is not installed")

G, P = "global", "widget"  #: the two stores, as an order's scope names them
SCOPES = ("plain", "global", "project", "both")
FLAGS = {"plain": [], "global": ["--global"], "project": ["--project", P], "both": []}
TOOL_SCOPE = {"plain": {}, "global": {"scope": G}, "project": {"scope": P}, "both": {}}

#: The global memory: 8 memories, 0-1, 2-3, 4-5 and 0-3 summarised, 6-7
#: pending (WAKE_LINES shows all 8 verbatim, so no wake waits for it); the
#: project: 3 memories, 0-1 summarised, WAKE_LINES=200 in its config.
G_COUNT, P_COUNT = 8, 3
ONLY_G_ID, BOTH_ID = "4", "1"  #: a memory only the global memory holds; one both hold
ONLY_G_BLOCK, BOTH_BLOCK = "2-3", "0-1"  #: a summary built only in the global memory; in both

# -- the rules, written out -------------------------------------------------------
# The stores a read shows, by scope: the wake (and the hand-over of a bare
# sleep) shows the identity, the project joining the global memory
# whenever one is active; the other reads show the selection.
IDENTITY = {"plain": {G}, "global": {G}, "project": {G, P}, "both": {G, P}}
SELECTION = {"plain": {G}, "global": {G}, "project": {P}, "both": {G, P}}
WRITES = {"plain": G, "global": G, "project": P, "both": P}
CONFIG = {"plain": G, "global": G, "project": P, "both": G}  # config: the global unless named


def _one_store(scope: str, holds: set, write: bool) -> dict:
    """What zoom (a read) or forget/redact (writes) do with an id the stores
    ``holds`` hold: the selection's one store answers (refused where it
    does not hold it); where several are read, a read only one holds is
    answered there, anything else is refused naming the stores that hold it."""
    read = SELECTION[scope]
    if len(read) == 1:
        (only,) = read
        if only in holds:
            return {"shows" if not write else "writes": only}
        return {"refused": set()}
    if len(holds) == 1 and not write:
        return {"shows": next(iter(holds))}
    return {"refused": set(holds)}


def expected(command: str, scope: str, variant: str) -> dict:
    """The observation the rules give for one cell."""
    holds = {G} if variant == "one" else {G, P}
    if command in ("wake", "hook"):
        return {"shows": IDENTITY[scope]}
    if command == "sleep":  # the next compression of the identity: the global memory's 6-7
        return {"shows": {G}}
    if command in ("recall", "stats", "check", "recall --json", "stats --json"):
        return {"shows": SELECTION[scope]}
    if command == "config":
        return {"shows": {CONFIG[scope]}}
    if command in ("note", "import"):
        return {"writes": WRITES[scope]}
    if command == "export":
        return {"shows": {WRITES[scope]}}
    if command == "zoom":
        out = _one_store(scope, holds, write=False)
        return {"shows": {out["shows"]}} if "shows" in out else out
    if command in ("forget", "forget --dry-run", "redact"):
        out = _one_store(scope, holds, write=True)
        if command == "forget --dry-run" and "writes" in out:
            return {"shows": {out["writes"]}}
        return out
    raise AssertionError(command)


# -- the world ------------------------------------------------------------------------

def _git(*args):
    done = subprocess.run(["git", *map(str, args)], capture_output=True, text=True,
                          env=dict(os.environ, **GIT_ENV))
    assert done.returncode == 0, (args, done.stderr)


def _cli(world: Path, where: str, args: list, env=None):
    here = os.getcwd()
    os.chdir(world / where)
    try:
        full = {"MEMORY_DIR": str(world / "mem"), "MEMO_ORDERS": "line", **GIT_ENV,
                "XDG_STATE_HOME": str(world / "state"), **(env or {})}
        result = CliRunner().invoke(cli, args, env=full, catch_exceptions=False)
    finally:
        os.chdir(here)
    return result


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    """The world every cell copies: ``mem`` (the global store and project
    widget), ``widget`` (a repository bound to it) and ``plain``."""
    world = tmp_path_factory.mktemp("matrix") / "world"
    (world / "plain").mkdir(parents=True)
    (world / "widget").mkdir()
    _git("-C", world / "widget", "init", "-q")
    _git("-C", world / "widget", "commit", "-q", "--allow-empty", "-m", "start")

    def run(*args):
        result = _cli(world, "widget", list(args))
        assert result.exit_code == 0, (args, result.stdout, result.stderr)

    run("init")
    run("init", "--project", P)
    for k in range(G_COUNT - 2):
        run("note", "--global", f"global fact {k}")
    for k in range(P_COUNT):
        run("note", f"widget fact {k}")
    for block in ("0-1", "2-3", "4-5", "0-3"):
        run("sleep", "--global", block, f"global summary {block}")
    for k in range(G_COUNT - 2, G_COUNT):
        run("note", "--global", f"global fact {k}")
    run("sleep", "--project", P, "0-1", "widget summary 0-1")
    run("config", "--project", P, "WAKE_LINES=200")
    (world / "import.txt").write_text(
        f"{subprocess.run(['date', '+%F'], capture_output=True, text=True).stdout.strip()} "
        f"an imported fact\n")
    return world


@pytest.fixture
def world(template, tmp_path) -> Path:
    copy = tmp_path / "world"
    shutil.copytree(template, copy, symlinks=True)
    return copy


# -- what an answer shows ---------------------------------------------------------------

def _logs(world: Path) -> dict:
    return {G: (world / "mem" / "LOG.txt").read_bytes(),
            P: (world / "mem" / "projects" / P / "LOG.txt").read_bytes()}


def _trees(world: Path) -> dict:
    out = {}
    for name, root in ((G, world / "mem"), (P, world / "mem" / "projects" / P)):
        out[name] = {f.name: f.read_bytes() for f in sorted((root / "TREE").iterdir())}
    return out


ORDER_SCOPE = re.compile(r'(--global|--project widget|"scope": "(global|widget)")')


def _shows(command: str, text: str) -> set:
    """The stores whose content ``text`` shows."""
    seen = set()
    if command in ("stats", "stats --json"):
        counts = re.findall(r'memories\W+(\d+)', text)
        seen |= {G for c in counts if int(c) == G_COUNT} | {P for c in counts if int(c) == P_COUNT}
        return seen
    if command == "config":
        value = re.search(r"^WAKE_LINES\s+(\d+)", text, re.M)
        return {P if value and value.group(1) == "200" else G}
    if command == "check":  # one store: no heading; several: one heading each
        heads = re.findall(r"^(Global memory|Project widget) \(", text, re.M)
        return {G if h == "Global memory" else P for h in heads} or {"one"}
    if command == "forget --dry-run":  # the report names the forget as asked
        flag = re.match(r"memo forget (--global |--project widget )?\d+-\d+ would drop", text)
        return {P if flag and flag.group(1) == "--project widget " else G} if flag else set()
    if command == "sleep":
        return {G} if "global fact 6" in text else ({P} if "widget fact" in text else set())
    if re.search(r"global (fact|summary)", text):
        seen.add(G)
    if re.search(r"widget (fact|summary)", text):
        seen.add(P)
    return seen


def observe(command: str, text: str, failed: bool, before=None, after=None) -> dict:
    """The cell's observation, in ``expected``'s terms."""
    if failed:
        return {"refused": {m.group(2) or (G if m.group(1) == "--global" else P)
                            for m in ORDER_SCOPE.finditer(text)}}
    if before is not None and before != after:
        changed = [name for name in (G, P) if before[name] != after[name]]
        assert len(changed) == 1, changed
        return {"writes": changed[0]}
    shown = _shows(command, text)
    if command == "check" and shown == {"one"}:
        return {"shows": "one store"}
    return {"shows": shown}


def _expected_check(scope: str) -> dict:
    read = SELECTION[scope]
    return {"shows": read if len(read) > 1 else "one store"}


# -- the commands ----------------------------------------------------------------------

#: command -> (CLI words, MCP tool and arguments or None, takes an id, writes)
COMMANDS = {
    "wake": (["wake"], ("wake", {}), False, False),
    "sleep": (["sleep"], ("sleep", {}), False, False),
    "recall": (["recall", "fact|summary"], ("recall", {"pattern": "fact|summary"}), False, False),
    "recall --json": (["recall", "--json", "fact|summary"], None, False, False),
    "stats": (["stats"], ("stats", {}), False, False),
    "stats --json": (["stats", "--json"], None, False, False),
    "check": (["check"], None, False, False),
    "config": (["config"], None, False, False),
    "zoom": (["zoom", "{id}"], ("zoom", {"block": "{id}"}), True, False),
    "forget": (["forget", "{block}"], ("forget", {"block": "{block}"}), True, True),
    "forget --dry-run": (["forget", "--dry-run", "{block}"], None, True, False),
    "redact": (["redact", "{id}", "--yes"], None, True, True),
    "note": (["note", "a new fact"], ("note", {"text": "a new fact"}), False, True),
    "import": (["import", "../import.txt"], None, False, True),
    "export": (["export"], None, False, False),
}


def _fill(words, variant):
    ident = ONLY_G_ID if variant == "one" else BOTH_ID
    block = ONLY_G_BLOCK if variant == "one" else BOTH_BLOCK
    if isinstance(words, dict):
        return {k: _fill(v, variant) for k, v in words.items()}
    if isinstance(words, list):
        return [_fill(w, variant) for w in words]
    return words.replace("{id}", ident).replace("{block}", block)


def _cells():
    for command, (_, tool, takes_id, _) in COMMANDS.items():
        for variant in (("one", "both") if takes_id else ("-",)):
            for scope in SCOPES:
                yield command, variant, scope, "cli"
                if tool is not None:
                    yield command, variant, scope, "mcp"
    for scope in ("plain", "both"):  # the hook has no flags: the folder decides
        yield "hook", "-", scope, "hook"


CELLS = list(_cells())


def test_the_matrix_covers_every_store_command_scope_and_front_end():
    fronts = {(c, f) for c, _, _, f in CELLS}
    assert {c for c, _ in fronts} == set(COMMANDS) | {"hook"}
    assert {c for c, f in fronts if f == "mcp"} == {
        "wake", "sleep", "recall", "stats", "zoom", "forget", "note"}
    assert len(CELLS) == 114


def _where(scope: str) -> str:
    return "plain" if scope == "plain" else "widget"


def _run(world, command, variant, scope, front) -> dict:
    words, tool, _, writes = COMMANDS.get(command, (None, None, False, False))
    before = _logs(world) if command != "forget" else _trees(world)
    if front == "cli":
        args = [*FLAGS[scope], *_fill(words, variant)]
        result = _cli(world, _where(scope), args)
        assert "Traceback" not in result.stdout + result.stderr
        text, failed = result.stdout + result.stderr, result.exit_code != 0
        if command.endswith("--json") and not failed:
            _check_json(json.loads(result.stdout), SELECTION[scope])
    elif front == "mcp":
        name, arguments = tool
        arguments = {**_fill(arguments, variant), **TOOL_SCOPE[scope]}
        text, failed = _call(world, scope, name, arguments)
    else:
        text, failed = _hook(world, scope), False
    after = _logs(world) if command != "forget" else _trees(world)
    return observe(command, text, failed, before if writes else None, after)


def _check_json(out, read: set) -> None:
    """One list; its items name their store exactly where several are read."""
    assert isinstance(out, list) and out, out
    if len(read) > 1:
        assert {item["store"] for item in out} == read, out
    else:
        assert not any("store" in item for item in out), out


def _call(world, scope, name, arguments):
    pytest.importorskip("jsonschema", reason="the MCP call path checks arguments with it")
    from optmem import mcp
    saved = dict(os.environ)
    os.environ.update({"MEMORY_DIR": str(world / "mem"), "XDG_STATE_HOME": str(world / "state"),
                       **GIT_ENV})
    os.environ.pop("MEMO_ORDERS", None)
    try:
        return mcp.call_tool(name, arguments, root=str(world / _where(scope)))
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _hook(world, scope) -> str:
    from optmem.harness import claude, inject
    event = json.dumps({"hook_event_name": "SessionStart", "source": "startup",
                        "cwd": str(world / _where(scope))})
    env = {**os.environ, "XDG_STATE_HOME": str(world / "state"), **GIT_ENV}
    return inject.context(claude, event, str(world / "mem"), env)


@pytest.mark.parametrize("command, variant, scope, front", CELLS,
                         ids=["-".join(c).replace(" ", "") for c in CELLS])
def test_each_cell_reads_the_stores_the_rules_give(world, command, variant, scope, front):
    seen = _run(world, command, variant, scope, front)
    want = _expected_check(scope) if command == "check" else expected(command, scope, variant)
    assert seen == want, (command, variant, scope, front)


@pytest.mark.parametrize("command", [c for c, (_, tool, _, _) in COMMANDS.items() if tool])
def test_the_cli_and_mcp_answer_each_scope_alike(template, tmp_path, command):
    """Per tool, the observations of the CLI and of MCP are equal across
    every scope and id (the cells above check each against the rules; this
    states the front ends' agreement on its own)."""
    takes_id = COMMANDS[command][2]
    for variant in (("one", "both") if takes_id else ("-",)):
        for scope in SCOPES:
            seen = {}
            for front in ("cli", "mcp"):
                world = tmp_path / f"{variant}-{scope}-{front}"
                shutil.copytree(template, world, symlinks=True)
                seen[front] = _run(world, command, variant, scope, front)
            assert seen["cli"] == seen["mcp"], (command, variant, scope)

"""Each command imports only what it uses: on a store without projects,
``memo wake``, ``note``, ``sleep`` and ``recall`` import nothing of the
project layer, the harness, the MCP server or git's process machinery, and
only ``recall`` imports the recall engine; a command imports no module of
another command (the lazy command table), while ``memo --help`` still lists
every one. Read off ``python -X importtime`` of the real command (what
``benchmarks/startup.py`` measures).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from optmem import projects, scope
from optmem.cli.app import COMMANDS, cli
from optmem.store.memory import Store

#: Never imported by these commands on a store without projects. ``locale``:
#: what click's first ``gettext`` lookup imports (a help option worded
#: through it, a ``click.Path`` built).
NEVER = ("optmem.projects", "optmem.harness", "optmem.mcp", "optmem.scoped", "subprocess",
         "json", "shlex", "signal", "locale", "optmem.engine.replicas")
RECALL = ("optmem.recall.search", "optmem.recall.scancount", "re2")
#: Never imported by a command that writes nothing and hands nothing over:
#: the credential tables (only a write checks text), OpenSSL's digests and
#: the hand-over record (a hand-over's), git's runner (a store kept in git)
#: and the store lock (a write's).
READING = ("optmem.guard.secrets", "hashlib", "optmem.store.handovers", "optmem.gitcall",
           "optmem.store.lock")


def _baseline(modules: str = "click, filelock") -> set:
    """What ``import <modules>`` alone imports on this Python: a standard
    module they pull in (``subprocess`` through filelock's asyncio on 3.9,
    ``hashlib`` through filelock 4's ``secrets``) is theirs, not memo's
    choice."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", f"import {modules}"],
                          capture_output=True, text=True, timeout=120)
    return set(re.findall(r"^import time:.*\| +(\S+)$", done.stderr, re.M))


def imported(root: str, *args: str) -> set:
    env = dict(os.environ, MEMORY_DIR=root)
    env.pop("MEMO_PROJECT", None)
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "optmem", *args],
                          env=env, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stdout + done.stderr
    return set(re.findall(r"^import time:.*\| +(\S+)$", done.stderr, re.M))


@pytest.fixture
def store_root(tmp_path):
    root = str(tmp_path / "mem")
    Store.init(root)
    env = dict(os.environ, MEMORY_DIR=root)
    for text in ("first note about the café server", "second note"):
        subprocess.run([sys.executable, "-m", "optmem", "note", text], env=env,
                       capture_output=True, timeout=120, check=True)
    return root


@pytest.mark.parametrize("args", [("wake",), ("note", "a third note"), ("sleep",),
                                  ("recall", "café.*server")])
def test_a_command_imports_only_what_it_uses(store_root, args):
    got = imported(store_root, *args)
    assert "optmem.cli.app" in got  # the command ran here, not from a cache
    never = set(NEVER) - _baseline()
    never.discard("json")  # a compression handed over (0-1 is due here) is recorded as JSON
    assert not got & never, sorted(got & never)
    if args[0] == "recall":
        assert "optmem.recall.search" in got
    else:
        assert not got & set(RECALL), sorted(got & set(RECALL))


def module_of(where: str) -> str:
    """The module of a command table's ``"module:attribute"``."""
    return where.partition(":")[0]


@pytest.mark.parametrize("args", [("wake",), ("note", "a third note"), ("sleep",),
                                  ("recall", "café.*server"), ("hook", "session-start")])
def test_a_command_imports_no_module_of_another_command(store_root, args):
    """The command table names each command's module; running one imports
    its own and none of the others (``hook session-start``: not
    ``session-end``'s, which sits with ``memo sync``)."""
    got = imported(store_root, *args)
    own = module_of(COMMANDS[args[0]])
    others = {module_of(where) for where in COMMANDS.values()} - {own}
    assert own in got
    assert "optmem.cli.replica_cmds" in others
    assert not got & others, sorted(got & others)


def test_memo_help_lists_every_command_of_the_table():
    """``memo --help`` (built from the table, every command loaded) lists
    each name of the table once, and each name is the command's own (its
    description: tests/test_docs.py); ``memo hook --help`` lists both hook
    commands."""
    done = subprocess.run([sys.executable, "-m", "optmem", "--help"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    listed = done.stdout.split("\nCommands:\n", 1)[1]
    names = re.findall(r"^  (\S+)", listed, re.M)
    assert names == sorted(COMMANDS)
    for name in COMMANDS:
        command = cli.get_command(None, name)
        assert command.name == name and not command.hidden
    done = subprocess.run([sys.executable, "-m", "optmem", "hook", "--help"],
                          capture_output=True, text=True, timeout=120)
    assert re.findall(r"^  (\S+)", done.stdout.split("\nCommands:\n", 1)[1], re.M) == [
        "session-end", "session-start"]


@pytest.mark.parametrize("args", [("wake",), ("recall", "café.*server")])
def test_a_command_that_only_reads_imports_no_write_machinery(store_root, args):
    """The store's summaries hold non-ASCII text but no character that
    could fold to a frame tag's ``<``, so wake shows them as written without
    the guard's fold (``guard.text``, ``unicodedata``); the store is whole
    and has no hand-over due, so no digest and no hand-over record."""
    env = dict(os.environ, MEMORY_DIR=store_root)
    done = subprocess.run([sys.executable, "-m", "optmem", "sleep"], env=env,
                          capture_output=True, text=True, timeout=120)
    m = re.search(r"^Run: memo sleep (\d+-\d+) - <<'(\w+)'$", done.stdout, re.M)
    assert m, done.stdout + done.stderr
    subprocess.run([sys.executable, "-m", "optmem", "sleep", m.group(1), "café server notes"],
                   env=env, capture_output=True, timeout=120, check=True)
    got = imported(store_root, *args)
    assert "optmem.cli.app" in got
    never = set(READING) - _baseline("click")
    if args[0] == "wake":
        never |= {"optmem.guard.text", "unicodedata"} - _baseline("click")
    assert not got & never, sorted(got & never)


def test_a_projects_folder_brings_the_project_layer_back(store_root):
    os.mkdir(os.path.join(store_root, projects.PROJECTS))
    assert "optmem.projects" in imported(store_root, "wake")


def test_the_scope_without_projects_is_projects_own(tmp_path):
    """``scope.resolve`` answers without ``optmem.projects`` where no
    projects folder exists and no scope is named: the same attribute values
    as ``projects.Scope(root)``, which ``projects.resolve`` gives there."""
    root = str(tmp_path / "mem")
    Store.init(root)
    env = {"MEMORY_DIR": root}
    got = scope.resolve(None, str(tmp_path), env)
    want = projects.resolve(root, None, env, str(tmp_path))
    assert isinstance(got, scope.NoProjects)
    assert {k: getattr(got, k) for k in vars(want)} == vars(want)
    assert got.flag == want.flag == ""
    assert scope.PROJECTS == projects.PROJECTS
    # A named scope, or MEMO_PROJECT, still goes through projects.
    assert isinstance(scope.resolve("", str(tmp_path), env), projects.Scope)
    assert isinstance(scope.resolve(None, str(tmp_path), dict(env, MEMO_PROJECT="none")),
                      projects.Scope)


#: Runs memo the way ``run`` says, counting the collector's passes that
#: start while a watched module is being imported (in ``sys.modules``
#: without the attribute its import ends with). Python 3.12 starts with
#: objects of its own already frozen, so the count is compared to the
#: start's.
_COLLECTIONS = """
import gc, sys
frozen_at_start = gc.get_freeze_count()
sys.argv = ["memo"] + {argv!r}
{prepare}
WATCHED = {{"optmem.cli.app": "main", "optmem.cli.wake_cmd": "wake"}}
during = []
def watch(phase, info):
    for name, last in WATCHED.items():
        module = sys.modules.get(name)
        if phase == "start" and module is not None and not hasattr(module, last):
            during.append(name)
    if phase == "start" and not hasattr(sys.modules.get("optmem.cli.app"), "main"):
        during.append("before optmem.cli.app")
gc.callbacks.append(watch)
try:
    {run}
except SystemExit:
    pass
print(len(during), gc.isenabled(), gc.get_freeze_count() > frozen_at_start,
      file=sys.stderr)
"""


def _collections(prepare: str, run: str, *argv: str, env=None) -> list:
    done = subprocess.run([sys.executable, "-c", _COLLECTIONS.format(
        argv=list(argv), prepare=prepare, run=run)], capture_output=True, text=True,
        timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    return done.stderr.split()


def test_the_command_line_is_imported_with_the_collector_paused(store_root):
    """``memo``'s entry point imports click and the command line, and the
    lazy table the command's module, with the cyclic collector paused (no
    pass starts while either import runs), freezes what they made, and
    runs the command with collection back on; importing the command line
    straight makes passes."""
    env = dict(os.environ, MEMORY_DIR=store_root)
    assert _collections("from optmem.cli import start", "start.main()", "wake",
                        env=env) == ["0", "True", "True"]
    assert _collections("from optmem.cli import start", "start.main()",
                        "--version") == ["0", "True", "True"]
    straight = _collections("", "from optmem.cli.app import main; main()", "--version")
    assert int(straight[0]) > 0 and straight[1:] == ["True", "False"], straight


def test_every_way_to_run_memo_enters_through_the_paused_import():
    """pip's ``memo`` script, ``python -m optmem`` and a checkout's launcher
    all call ``optmem.cli.start.main``."""
    from importlib import metadata
    found = metadata.entry_points()
    scripts = (found.select(group="console_scripts") if hasattr(found, "select")
               else found.get("console_scripts", []))
    assert {e.name: e.value for e in scripts}.get("memo") == "optmem.cli.start:main"
    import optmem
    here = os.path.dirname(optmem.__file__)
    with open(os.path.join(here, "__main__.py"), encoding="utf-8") as f:
        assert "from optmem.cli.start import main" in f.read()
    launcher = os.path.join(os.path.dirname(here), "memo")
    if os.path.isfile(launcher):  # a checkout (an installed wheel has pip's script)
        with open(launcher, encoding="utf-8") as f:
            assert "from optmem.cli.start import main" in f.read()


def test_python_m_optmem_runs_beside_a_folder_named_optmem(tmp_path):
    """A folder named ``optmem`` in the current one (no package: a
    checkout's parent, say) never stands in for the installed package (an
    editable install found it first: a traceback)."""
    (tmp_path / "optmem").mkdir()
    done = subprocess.run([sys.executable, "-m", "optmem", "--version"], cwd=str(tmp_path),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.startswith("memo, version "), done.stderr
    assert "Traceback" not in done.stderr


def _package_copy(tmp_path) -> str:
    """A copy of the ``optmem`` package (with its built extension) that a
    ``python -m optmem`` run in the returned folder imports, and whose
    bytecode cache files this test may damage."""
    import shutil

    import optmem
    root = tmp_path / "pkg"
    shutil.copytree(os.path.dirname(optmem.__file__), str(root / "optmem"),
                    ignore=shutil.ignore_patterns("__pycache__"))
    return str(root)


def _run_copy(root: str, store: str, *args: str):
    env = dict(os.environ, MEMORY_DIR=store)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # the caches are what is under test
    return subprocess.run([sys.executable, "-m", "optmem", *args], cwd=root, env=env,
                          capture_output=True, text=True, timeout=120)


def _cut_short(root: str, module: str) -> str:
    """Cut ``module``'s bytecode cache file to 388 bytes, as a write at a
    file size limit leaves it; returns its path."""
    import importlib.util
    source = os.path.join(root, *module.split(".")) + ".py"
    cached = importlib.util.cache_from_source(source)
    with open(cached, "r+b") as f:
        f.truncate(388)
    return cached


def test_a_cache_file_cut_short_is_removed_and_named_in_one_line(tmp_path):
    """A bytecode cache file of memo cut short by a full disk (Python does
    not check its write) failed every later command that imported the
    module; memo removes it, says so in one line, and the next run works."""
    root = _package_copy(tmp_path)
    store = str(tmp_path / "mem")
    assert _run_copy(root, store, "init").returncode == 0
    for text in ("one", "two"):  # the second hands a compression over
        assert _run_copy(root, store, "note", text).returncode == 0
    cached = _cut_short(root, "optmem.store.handovers")  # imported where work is handed over
    done = _run_copy(root, store, "note", "three")
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1 and "run the command again" in done.stderr, done.stderr
    assert "cut short" in done.stderr and not os.path.exists(cached)
    # The memory was saved before the hand-over failed to load: nothing lost.
    assert "three" in _run_copy(root, store, "recall", "three").stdout
    again = _run_copy(root, store, "note", "four")
    assert again.returncode == 0 and again.stdout.startswith("Saved as #3."), again.stderr


def test_a_cut_short_cache_file_of_the_command_line_is_replaced_on_the_spot(tmp_path):
    """The command line and each command's module are imported through
    ``import_paused``, which removes a cut-short cache file and imports
    from the source at once: the command runs."""
    root = _package_copy(tmp_path)
    store = str(tmp_path / "mem")
    assert _run_copy(root, store, "init").returncode == 0
    assert _run_copy(root, store, "note", "one").returncode == 0
    assert _run_copy(root, store, "wake").returncode == 0  # its caches written
    for module in ("optmem.cli.app", "optmem.cli.wake_cmd"):
        _cut_short(root, module)
    done = _run_copy(root, store, "wake")
    assert done.returncode == 0 and "#0" in done.stdout, done.stderr

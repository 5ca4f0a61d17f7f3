"""Each decision in one place, held by reading the package's syntax trees.

- Every order and person's step is built through ``optmem.protocol``: no
  string constant outside ``protocol.py`` (docstrings aside) holds
  ``Run: `` or ``A person can run``, so no module writes an order by hand
  and none can cut one back out of text.
- Shell quoting is ``optmem.textform.quoted`` alone: no other module
  imports ``shlex``.
- The helpers and constants named once are defined once: the projects
  folder's name (``store.paths.PROJECTS``) and the plural helper
  (``protocol.plural``).
"""

from __future__ import annotations

import ast

import pytest

from conftest import REPO

PACKAGE = REPO / "optmem"
ORDER_MARKS = ("Run: ", "A person can run")
#: Modules another change is reshaping at the same time; until it lands
#: their steps still carry the person's prefix as a constant of their own.
PENDING = {"engine/sync.py", "projects.py"}


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path.relative_to(PACKAGE).as_posix(), ast.parse(path.read_text(encoding="utf-8"))


def _docstrings(tree) -> set:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                found.add(id(body[0].value))
    return found


def order_literals(tree) -> list:
    """``(line, text)`` of each string constant holding an order's mark."""
    docs = _docstrings(tree)
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docs and any(m in node.value for m in ORDER_MARKS)]


def test_the_scan_finds_an_order_written_by_hand():
    """The scan itself: an f-string's constant part, a plain constant and a
    constant in a call are found; a docstring and the mark in lower case
    are not."""
    tree = ast.parse('"""Run: memo wake is in a docstring."""\n'
                     'def f(x):\n'
                     '    """A person can run: documented."""\n'
                     '    a = f"{x}. Run: memo sleep"\n'
                     '    b = "A person can run: rm"\n'
                     '    return g(" Run: ") + "a person can run"\n')
    assert sorted(line for line, _ in order_literals(tree)) == [4, 5, 6]


def test_every_order_is_built_through_protocol():
    found = {}
    for name, tree in _modules():
        if name == "protocol.py" or name in PENDING:
            continue
        hits = order_literals(tree)
        if hits:
            found[name] = hits
    assert found == {}, "orders written by hand (build them with optmem.protocol):\n" + "\n".join(
        f"optmem/{name}:{line}: {text[:80]!r}" for name, hits in found.items()
        for line, text in hits)


@pytest.mark.parametrize("module", sorted(PENDING))
def test_the_modules_pending_elsewhere_exist(module):
    """The exemption names modules that exist (drop one that moved)."""
    assert (PACKAGE / module).is_file()


def _imports(tree) -> set:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
    return out


def test_shell_quoting_is_textform_alone():
    users = sorted(name for name, tree in _modules()
                   if "shlex" in _imports(tree) and name != "textform.py" and name not in PENDING)
    assert users == [], f"quote with optmem.textform.quoted (or protocol.shell), not shlex: {users}"


def _defined(tree, name: str) -> bool:
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name == name:
            return True
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                return True
    return False


@pytest.mark.parametrize("name, home", [("PROJECTS", "store/paths.py"),
                                        ("plural", "protocol.py")])
def test_each_shared_helper_is_defined_once(name, home):
    where = sorted(module for module, tree in _modules()
                   if _defined(tree, name) and module not in PENDING)
    assert where == [home], f"{name} is defined in {where}; import it from optmem/{home}"
    copies = sorted(module for module, tree in _modules() if _defined(tree, "_" + name)
                    and module not in PENDING)
    assert copies == [], f"a private copy of {name} in {copies}"


#: Modules whose git calls another change is moving onto gitcall's
#: environments at the same time (the sync and the projects' discovery).
PENDING_GIT = {"engine/sync.py", "engine/replicas.py", "projects.py"}


def _git_env_choices(tree) -> list:
    """``(line, what)`` of each place a module chooses git's environment:
    a ``git_env(...)`` call with arguments, an ``env=`` passed to
    ``run_git`` that is not one of gitcall's environments, or a process
    started with ``"git"`` as its program."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(
            node.func, "id", "")
        if name == "git_env" and (node.args or node.keywords):
            found.append((node.lineno, "git_env with its own variables"))
        if name == "run_git":
            for kw in node.keywords:
                if kw.arg == "env" and not (isinstance(kw.value, ast.Call) and isinstance(
                        kw.value.func, ast.Attribute) and kw.value.func.attr.endswith("_env")
                        and not kw.value.args and not kw.value.keywords):
                    if not isinstance(kw.value, ast.Name):
                        found.append((node.lineno, "run_git with an environment of its own"))
        if name in ("run", "Popen", "check_output", "call") and node.args \
                and isinstance(node.args[0], ast.List) and node.args[0].elts \
                and isinstance(node.args[0].elts[0], ast.Constant) \
                and node.args[0].elts[0].value == "git":
            found.append((node.lineno, "git started outside gitcall.run_git"))
    return found


def test_gits_environment_is_chosen_in_gitcall_alone():
    found = {}
    for name, tree in _modules():
        if name == "gitcall.py" or name in PENDING_GIT:
            continue
        hits = _git_env_choices(tree)
        if hits:
            found[name] = hits
    assert found == {}, f"choose git's environment in optmem/gitcall.py: {found}"


def test_the_git_scan_finds_an_environment_chosen_by_hand():
    tree = ast.parse("gitcall.run_git(['status'], env=gitcall.git_env(('GIT_DIR',)))\n"
                     "subprocess.run(['git', 'status'])\n"
                     "gitcall.run_git(['status'], env=gitcall.folder_env())\n")
    assert sorted({line for line, _ in _git_env_choices(tree)}) == [1, 2]

"""The package's layers (pyproject.toml, ``[tool.importlinter]``): a module
imports only from the layers below its own, and no modules import each
other in a circle. A change that climbs back up fails here."""

from __future__ import annotations

import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

grimp = pytest.importorskip("grimp")
importlinter_cli = pytest.importorskip("importlinter.cli")


def test_the_layer_contracts_are_kept(capsys):
    """``lint-imports`` over pyproject.toml's contracts: every one kept."""
    code = importlinter_cli.lint_imports(config_filename=os.path.join(ROOT, "pyproject.toml"),
                                         no_cache=True)
    out = capsys.readouterr().out
    assert code == 0, out
    assert "0 broken" in out


def test_no_import_circle():
    """No module reaches itself through the modules it imports (lazy
    imports inside functions count, as they do for the contracts)."""
    graph = grimp.build_graph("optmem", cache_dir=None)
    edges = {m: graph.find_modules_directly_imported_by(m) for m in graph.modules}
    circles = []
    state = {}  # module -> 1 while on the path, 2 when done

    def visit(m, path):
        state[m] = 1
        for n in sorted(edges.get(m, ())):
            if state.get(n) == 1:
                circles.append(path[path.index(n):] + [n])
            elif n not in state:
                visit(n, path + [n])
        state[m] = 2

    for m in sorted(edges):
        if m not in state:
            visit(m, [m])
    assert not circles, "import circles: " + "; ".join(" -> ".join(c) for c in circles)


def test_no_private_name_crosses_a_module():
    """No module imports another module's ``_name`` (a dunder such as
    ``__version__`` and the compiled ``_scan`` extension, a module of its
    own, aside)."""
    import ast
    bad = []
    for folder, _, files in os.walk(os.path.join(ROOT, "optmem")):
        for name in files:
            if not name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8") as f:
                tree = ast.parse(f.read())
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("optmem"):
                    bad += [f"{os.path.relpath(path, ROOT)}: {node.module}.{a.name}"
                            for a in node.names if a.name.startswith("_")
                            and not a.name.endswith("__") and a.name != "_scan"]
    assert not bad, bad

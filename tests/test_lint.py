"""ruff over the code, the tests and the benchmarks finds nothing (the rule
set is pyproject.toml's ``[tool.ruff]``: pycodestyle, pyflakes, isort,
bugbear): no unused import or variable, no dead name, imports in order;
and no module holds an invalid escape."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import REPO

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

pytest.importorskip("ruff")


def test_ruff_finds_nothing():
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise",
         "optmem", "tests", "benchmarks", "examples"],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr


def test_no_module_has_an_invalid_escape():
    """protocol.py had ``\\w`` in a docstring: Python 3.12+ prints a
    SyntaxWarning on stderr whenever it compiles the module (a git clone's
    first run, ``-B``, a read-only install), two stray lines for the user.
    Every module compiles without a warning."""
    import warnings
    sources = sorted((REPO / "optmem").rglob("*.py")) + [REPO / "memo"]
    for path in sources:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            compile(path.read_text(encoding="utf-8"), str(path), "exec")

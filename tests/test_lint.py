"""ruff over the code, the tests and the benchmarks finds nothing (the rule
set is pyproject.toml's ``[tool.ruff]``: pycodestyle, pyflakes, isort,
bugbear): no unused import or variable, no dead name, imports in order."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

pytest.importorskip("ruff")


def test_ruff_finds_nothing():
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise",
         "optmem", "tests", "benchmarks", "examples"],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr

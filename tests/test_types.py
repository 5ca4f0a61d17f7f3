"""mypy over the package finds nothing (pyproject.toml's ``[tool.mypy]``:
the session layer, the order table, the scopes and the store declare every
function's types), and the package says it is typed (``py.typed``, PEP 561)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import REPO

pytest.importorskip("mypy", reason="mypy is a test extra from Python 3.10 on")


def test_mypy_finds_nothing():
    done = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental",
                           "--config-file", str(REPO / "pyproject.toml")],
                          cwd=REPO, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("Success: no issues found")


def test_the_package_ships_its_type_marker():
    from pathlib import Path

    import optmem
    assert (Path(optmem.__file__).parent / "py.typed").is_file()

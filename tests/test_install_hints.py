"""The install command memo names for an extra fits how memo was installed."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys

from optmem import deps

CHECKOUT = os.path.dirname(os.path.dirname(os.path.abspath(deps.__file__)))


def test_from_a_checkout_the_extra_is_installed_from_that_checkout():
    command = deps.extra_install_command("mcp", "/venv/bin/python")
    assert command == f"/venv/bin/python -m pip install -e {shlex.quote(CHECKOUT + '[mcp]')}"
    assert "'optmem[mcp]'" not in command


def test_outside_a_checkout_the_command_names_no_missing_folder(tmp_path):
    command = deps.extra_install_command("mcp", "python3", str(tmp_path / "optmem"))
    words = shlex.split(command)
    assert words[:4] == ["python3", "-m", "pip", "install"]
    target = words[-1]
    assert target == "optmem[mcp]" or os.path.isdir(target[:-len("[mcp]")])


def test_the_checkout_command_is_one_pip_accepts():
    words = shlex.split(deps.extra_install_command("mcp", sys.executable))
    dry = subprocess.run(words[:4] + ["--dry-run", "--no-deps", "--no-index", "--no-build-isolation"]
                         + words[4:], capture_output=True, text=True, timeout=300)
    assert "is not a valid editable requirement" not in dry.stderr
    assert "does not appear to be a Python project" not in dry.stderr

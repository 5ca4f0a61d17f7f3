"""The install command memo names for an extra fits how memo was installed."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys

from optmem import deps


def test_from_a_checkout_the_extra_is_installed_from_that_checkout(tmp_path):
    # A checkout is a folder with pyproject.toml beside the optmem package;
    # the suite also runs against an installed wheel, so one is made here.
    checkout = tmp_path / "my checkout"
    (checkout / "optmem").mkdir(parents=True)
    (checkout / "pyproject.toml").write_text("[project]\nname = 'optmem'\n")
    command = deps.extra_install_command("mcp", "/venv/bin/python", str(checkout / "optmem"))
    assert command == f"/venv/bin/python -m pip install -e {shlex.quote(str(checkout) + '[mcp]')}"
    assert shlex.split(command)[-1] == f"{checkout}[mcp]"


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

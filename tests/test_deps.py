"""Missing packages: the launcher and ``python -m optmem`` say which, with
the install command for the interpreter that runs them, before anything is
created; the declared dependencies and extras are the ones the code needs."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import textwrap

import pytest

from conftest import REPO
from optmem import deps
from optmem.recall import search

PYPROJECT = (REPO / "pyproject.toml").read_text(encoding="utf-8")


def pyproject_list(name: str) -> list:
    """The strings of the TOML array ``name = [...]`` in pyproject.toml."""
    m = re.search(rf"^{re.escape(name)} = \[(.*?)\]", PYPROJECT, re.M | re.S)
    assert m, f"{name} not found in pyproject.toml"
    return re.findall(r'"([^"]+)"', m.group(1))


def test_required_is_what_pyproject_declares():
    assert pyproject_list("dependencies") == list(deps.REQUIRED.values())
    assert f'requires-python = ">={deps.MIN_PYTHON[0]}.{deps.MIN_PYTHON[1]}"' in PYPROJECT


def test_google_re2_is_optional():
    assert not any("re2" in d for d in pyproject_list("dependencies"))
    assert all(d.startswith("google-re2") for d in pyproject_list("fast"))


def test_installed_google_re2_is_used():
    # Recall is tested both ways: the python engine always, RE2 wherever the
    # fast extra installed it. An installed google-re2 that memo cannot use
    # would silently test only one of them.
    from importlib.metadata import PackageNotFoundError, version
    try:
        version("google-re2")
    except PackageNotFoundError:
        assert search.re2_module() is None
    else:
        assert search.re2_module() is not None


@pytest.mark.parametrize("names", [[], ["click"], ["filelock"], ["click", "filelock"]])
def test_the_line_names_each_missing_package_and_the_command(names):
    line = deps.problem_line(names, "/opt/my python/bin/python3", (3, 11, 7))
    if not names:
        assert line == ""
        return
    assert line.startswith("memo: ") and "\n" not in line
    for name in deps.REQUIRED:
        assert (name in line) == (name in names)
    command = line.split("A person can run: ", 1)[1]
    assert shlex.split(command) == ["/opt/my python/bin/python3", "-m", "pip", "install"] + [
        deps.REQUIRED[n] for n in names]


def test_too_old_a_python_is_named():
    line = deps.problem_line([], "/usr/bin/python3", (3, 8, 10))
    assert line.startswith("memo: memo needs Python 3.9 or newer; /usr/bin/python3 is "
                           "Python 3.8.10.")


# A program that hides packages from itself, then starts memo the way argv[1]
# says (the launcher or ``python -m optmem``).
HIDE = textwrap.dedent("""
    import runpy, sys
    how, hidden = sys.argv[1], sys.argv[2].split(",")
    for name in hidden:
        sys.modules[name] = None  # import and find_spec both fail for it
    sys.argv = ["memo"] + sys.argv[3:]
    if how == "launcher":
        runpy.run_path(sys.argv.pop(1), run_name="__main__")
    else:
        runpy.run_module("optmem", run_name="__main__", alter_sys=True)
""")


@pytest.mark.parametrize("how", ["launcher", "-m"])
@pytest.mark.parametrize("hidden", [["filelock"], ["click"], ["click", "filelock"]])
def test_a_missing_package_is_one_line_and_nothing_is_created(tmp_path, memory_dir, how,
                                                             hidden):
    args = [str(REPO / "memo")] if how == "launcher" else []
    proc = subprocess.run([sys.executable, "-c", HIDE, how, ",".join(hidden), *args, "init"],
                          cwd=str(REPO), capture_output=True)
    assert proc.returncode == 1
    assert proc.stdout == b""
    err = proc.stderr.decode()
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err == deps.problem_line(hidden, sys.executable) + "\n"
    assert not memory_dir.exists()


@pytest.mark.parametrize("how", ["launcher", "-m"])
def test_a_bare_venv_gets_its_own_install_command(tmp_path, memory_dir, how):
    venv = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    args = [str(REPO / "memo")] if how == "launcher" else ["-m", "optmem"]
    proc = subprocess.run([python, *args, "init"], cwd=str(REPO), capture_output=True)
    assert proc.returncode == 1
    err = proc.stderr.decode()
    assert err.startswith(f"memo: the Python packages click and filelock are missing for "
                          f"{python}; a person installs them")
    assert f". A person can run: {python} -m pip install " in err
    assert err.count("\n") == 1
    assert not memory_dir.exists()


def test_a_writer_without_filelock_names_the_command(memo, inited, monkeypatch):
    # Reached only when memo runs without the launcher's check (an import of
    # the package into a Python that lacks filelock): still one line.
    monkeypatch.setitem(sys.modules, "filelock", None)
    result = memo("note", "no lock to take")
    assert result.exit_code == 1
    assert result.stderr == (f"memo: the Python package filelock is missing; a person installs "
                             f"it. A person can run: {deps.install_command(['filelock'])}\n")
    assert (inited / "LOG.txt").read_bytes() == b""


def test_the_counter_is_built_where_a_compiler_and_headers_are():
    """Where a C compiler and this Python's headers are present, the install
    the tests run on has built ``optmem.recall._scan`` (a checkout's own optmem/,
    never built, once shadowed tox's installed wheel and these tests were
    all skipped there)."""
    import os
    import shutil
    import sysconfig
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    headers = os.path.join(sysconfig.get_paths()["include"], "Python.h")
    if shutil.which(cc) is None or not os.path.isfile(headers):
        pytest.skip(f"no C compiler ({cc}) or no {headers}: the counter cannot be built here")
    from optmem.recall import scancount
    assert scancount.available(), (
        "a C compiler and the Python headers are here, yet optmem.recall._scan is not "
        "importable: the tests run on an optmem/ that was not built")

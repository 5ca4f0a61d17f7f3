"""What ``memo`` needs installed, checked before anything else runs.

The launcher (``memo`` at the top of a checkout) and ``python -m optmem``
call ``require()`` first, so a missing package is one line on stderr that
names it and the install command for the running interpreter, and no
command has started (nothing is created). A pip-installed ``memo`` has its
dependencies by construction and skips the check.

This module imports nothing beyond the standard library and must stay
cheap: it runs on every launcher start (``find_spec`` locates a package
without importing it).
"""

import sys

#: The oldest Python memo supports (``requires-python`` in pyproject.toml).
MIN_PYTHON = (3, 9)

#: import name -> pip requirement, exactly as pyproject.toml's
#: ``dependencies`` list them (``tests/test_deps.py`` checks they agree).
#: google-re2 is optional (the ``fast`` extra): recall works without it.
REQUIRED = {"click": "click>=8.0", "filelock": "filelock>=3.10"}


def missing() -> list:
    """The import names in ``REQUIRED`` that this interpreter cannot find,
    in ``REQUIRED`` order (``[]`` when all are there)."""
    from importlib.util import find_spec
    out = []
    for name in REQUIRED:
        try:
            found = find_spec(name) is not None
        except (ImportError, ValueError):  # a broken or blocked package
            found = False
        if not found:
            out.append(name)
    return out


def problem_line(names: list, executable: str = None, version: tuple = None) -> str:
    """The one line (no newline) saying what is wrong and the command that
    fixes it, for the interpreter ``executable`` (default: this one).

    ``names`` are missing import names from ``REQUIRED``; ``version`` is
    ``sys.version_info`` by default. Returns ``""`` when nothing is wrong.
    """
    executable = executable or sys.executable or "python3"
    version = tuple(version or sys.version_info)[:3]
    if version[:2] < MIN_PYTHON:
        have = ".".join(map(str, version))
        need = ".".join(map(str, MIN_PYTHON))
        return (f"memo: memo needs Python {need} or newer; {executable} is Python {have}. "
                f"Start it with a newer python3 (the launcher uses the first python3 on PATH)")
    if not names:
        return ""
    which = " and ".join(names)
    noun = "package" if len(names) == 1 else "packages"
    verb = "is" if len(names) == 1 else "are"
    command = install_command(names, executable)
    from optmem.protocol import person_can_run
    return (f"memo: the Python {noun} {which} {verb} missing for {executable}; a person "
            f"installs {'it' if len(names) == 1 else 'them'} (a system Python that refuses pip: "
            f"install memo in a venv as README.md shows). {person_can_run(command)}")


def install_command(names: list, executable: str = None) -> str:
    """The shell command that installs the ``REQUIRED`` packages ``names``
    for the interpreter ``executable`` (default: this one), quoted."""
    from optmem.protocol import shell
    return shell(executable or sys.executable or "python3", "-m", "pip", "install",
                 *(REQUIRED[name] for name in names))


def extra_install_command(extra: str, executable: str = None, package_dir: str = None) -> str:
    """The shell command that adds the extra ``extra`` (``"mcp"``) to memo
    as it was installed, for the interpreter ``executable``: from the
    checkout memo runs from (``pip install -e '<checkout>[mcp]'``), from
    the folder pip installed it from (its ``direct_url.json``), else from
    the package index (``'optmem[mcp]'``). ``package_dir`` is the
    ``optmem`` package's folder (default: this one)."""
    import os

    from optmem.textform import quoted
    executable = quoted(executable or sys.executable or "python3")
    here = package_dir or os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    if os.path.isfile(os.path.join(root, "pyproject.toml")):
        return f"{executable} -m pip install -e {quoted(root + f'[{extra}]')}"
    source = None
    try:
        import json
        from importlib import metadata
        for dist in metadata.distributions(name="optmem"):
            data = dist.read_text("direct_url.json")
            url = json.loads(data).get("url", "") if data else ""
            if url.startswith("file://"):
                from urllib.parse import unquote, urlparse
                source = unquote(urlparse(url).path)
            break
    except Exception:  # noqa: BLE001 - an odd install: the index form is the answer
        source = None
    if source and os.path.isdir(source):
        return f"{executable} -m pip install {quoted(source + f'[{extra}]')}"
    return f"{executable} -m pip install {quoted(f'optmem[{extra}]')}"


def require() -> None:
    """Exit 1 with ``problem_line`` on stderr unless this Python is new
    enough and every ``REQUIRED`` package can be found."""
    line = problem_line([] if sys.version_info[:2] < MIN_PYTHON else missing())
    if line:
        sys.stderr.write(line + "\n")
        raise SystemExit(1)


# -- memo's own bytecode cache -------------------------------------------------
#
# Python writes a module's bytecode cache (``__pycache__/*.pyc``) the first
# time it imports it, and does not check that the write was whole: a disk
# that is full, or a file size limit, leaves a file cut short that every
# later import of the module fails on (``EOFError: marshal data too
# short``), for good. memo imports much of itself only when a command needs
# it, so a first import can come at such a moment. These are caches: memo
# removes a damaged one, and Python writes it again from the source.

def is_bytecode_damage(err: BaseException) -> bool:
    """True for what importing a module whose bytecode cache file is cut
    short or garbled raises (``EOFError``/``ValueError`` naming marshal
    data, ``ImportError`` naming a bad magic number)."""
    text = str(err)
    return ((isinstance(err, (EOFError, ValueError)) and "marshal data" in text)
            or (isinstance(err, ImportError) and "bad magic number" in text))


def remove_damaged_bytecode(package_dir: str = None) -> list:
    """Remove every bytecode cache file this Python wrote for the
    ``optmem`` package (``package_dir``, default this one: its
    ``__pycache__`` folders, files tagged ``sys.implementation.cache_tag``)
    that does not load; returns their paths. Another Python's files are
    left alone. Never raises."""
    import marshal
    import os
    from importlib.util import MAGIC_NUMBER
    root = package_dir or os.path.dirname(os.path.abspath(__file__))
    tag = f".{sys.implementation.cache_tag}."
    gone = []
    for folder, _, files in os.walk(root):
        if os.path.basename(folder) != "__pycache__":
            continue
        for name in files:
            if tag not in name or not name.endswith(".pyc"):
                continue
            path = os.path.join(folder, name)
            try:
                with open(path, "rb") as f:
                    data = f.read()
                if data[:4] == MAGIC_NUMBER:
                    marshal.loads(data[16:])
                    continue
            except (OSError, EOFError, ValueError, TypeError):
                pass
            try:
                os.unlink(path)
                gone.append(path)
            except OSError:
                pass
    return gone


def bytecode_line(removed: list) -> str:
    """The one line (without ``memo: ``) after ``remove_damaged_bytecode``."""
    what = (f"removed {len(removed)} such file{'s' if len(removed) != 1 else ''} "
            f"(Python writes them again)" if removed else
            "could not remove it (check that this user may write to memo's install)")
    return (f"a bytecode cache file of memo was cut short (written while the disk was full "
            f"or at a file size limit), so part of memo could not load; memo {what}, and "
            f"nothing was half-written: run the command again")

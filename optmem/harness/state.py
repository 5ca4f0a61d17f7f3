"""memo's own state outside the store: what ``memo setup`` wrote, and what
``memo hook`` injected into which session.

Both live under ``$XDG_STATE_HOME/optmem`` (default ``~/.local/state/optmem``),
never in the store (the store holds only memo's records) and never in a
project. Each file is replaced atomically; a lost update only costs a full
wake on a resume, or a structural (not byte-exact) uninstall.
"""

from __future__ import annotations

import json
import os

from optmem import atomic
from optmem.store.paths import state_dir  # noqa: F401 (setup's callers read it here)


def private_dirs(folder: str) -> list:
    """Create ``folder`` and each missing folder above it owner-only (mode
    0700, whatever the umask, which could otherwise leave one
    world-writable); return the absolute folders made, outermost first (one
    another process made meanwhile is not counted). Raises ``OSError``."""
    missing = []
    probe = os.path.abspath(folder)
    while not os.path.isdir(probe):
        missing.append(probe)
        parent = os.path.dirname(probe)
        if parent == probe:
            break
        probe = parent
    made = []
    for path in reversed(missing):
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            if os.path.isdir(path):
                continue
            raise
        owner_only(path)
        made.append(path)
    return made


def owner_only(path: str, fd: int | None = None) -> None:
    """Set a folder memo made to mode 0700 (``fd``: the folder, opened),
    without following a link put in its place."""
    if fd is not None and hasattr(os, "fchmod"):
        os.fchmod(fd, 0o700)
        return
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
    if not hasattr(os, "fchmod"):  # Windows before 3.13: no modes to speak of
        os.chmod(path, 0o700)
        return
    own = os.open(path, flags)
    try:
        os.fchmod(own, 0o700)
    finally:
        os.close(own)


def load(path: str) -> dict:
    """The JSON object in ``path``; ``{}`` when it is missing or unreadable
    (state is a cache of what was done, never needed to read a memory)."""
    try:
        with atomic.open_file(path, "r", encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def save(path: str, data: dict) -> None:
    """Write ``data`` to ``path`` atomically (0600; parents made 0700);
    an empty ``data`` removes the file. Raises ``OSError``."""
    if not data:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        return
    folder = os.path.dirname(path)
    private_dirs(folder)
    text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    atomic.replace_file(path, text.encode("utf-8"))

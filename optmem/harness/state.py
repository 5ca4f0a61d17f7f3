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
import tempfile


def state_dir(environ=None) -> str:
    """The absolute folder of memo's state files (not created here)."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_STATE_HOME") or ""
    if not os.path.isabs(base):
        home = env.get("HOME") or os.path.expanduser("~")
        base = os.path.join(home, ".local", "state")
    return os.path.join(base, "optmem")


def load(path: str) -> dict:
    """The JSON object in ``path``; ``{}`` when it is missing or unreadable
    (state is a cache of what was done, never needed to read a memory)."""
    try:
        with open(path, encoding="utf-8") as f:
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
    os.makedirs(folder, mode=0o700, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".state-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1, ensure_ascii=False)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise

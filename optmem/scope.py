"""Which store a command uses: ``MEMORY_DIR`` checked in one place.

DESIGN.md "Store life": ``MEMORY_DIR`` is required and must be absolute
after ``~`` is expanded. Settings files pass ``env`` values unexpanded
(harness-facts.md A1.5: ``$HOME/memory`` arrives as that literal text), so
a value that still holds ``$`` is refused rather than read as a relative
path under whatever folder the agent happens to be in.
"""

from __future__ import annotations

import os

from .errors import NoStore


def memory_dir(value: str | None, name: str = "MEMORY_DIR") -> str:
    """The absolute store path that ``value`` names.

    ``value`` is the raw setting (``None`` or ``""`` when unset); ``name``
    is what to call it in messages (``MEMORY_DIR``, ``--memory-dir``).
    ``~`` is expanded; nothing else is. Returns a normalised absolute path
    (no trailing slash). Raises ``NoStore`` when the value is unset, holds
    ``$`` or a backtick (text a shell was meant to expand), or is relative.
    Whether a store exists there is not checked here (``Store.open`` does).
    """
    raw = (value or "").strip()
    if not raw:
        raise NoStore(f"{name} is not set; set it to the absolute path of your memory "
                      f"(a person creates a new one with: memo init)")
    if "$" in raw or "`" in raw:
        raise NoStore(f"{name} is {raw!r}, which holds text a shell was meant to expand "
                      f"(settings files pass it unexpanded); write the absolute path instead, "
                      f"e.g. {os.path.expanduser('~')}/memory")
    path = os.path.expanduser(raw)
    if not os.path.isabs(path):
        raise NoStore(f"{name} is {raw!r}, a relative path (it would name a different "
                      f"folder wherever memo runs); write the absolute path instead")
    return os.path.normpath(path)

"""Where the global store is: ``MEMORY_DIR``, checked in one place.

``MEMORY_DIR`` names one store wherever memo runs (docs/scopes.md). Every
front end calls ``memory_dir()`` before anything else, and so does every
one that writes ``MEMORY_DIR`` somewhere (``memo setup``, the session-start
hook):

* unset or empty: refused (there is no default store);
* ``~`` and ``~user`` at the start are expanded (as a shell would);
* a value that still holds ``$`` or a backtick is refused: no shell
  expanded it (settings files pass ``env`` values unexpanded, so
  ``$HOME/memory`` arrives as that literal text; docs/harness.md), and memo
  never guesses;
* a relative path is refused: it would name a different store in every
  folder memo runs in.

No message here orders ``memo init``: an agent follows every ``Run:``, and
a wrong path followed by ``memo init`` forks its identity into a second,
empty store. The messages say to check the path; creating a store is a
person's step (``A person can run: ...``).
"""


from __future__ import annotations

import os
from typing import Mapping

from optmem.errors import NoStore
from optmem.protocol import person_can_run

#: The folder of project memories in the global store (docs/scopes.md), in
#: the lowest layer every reader of it can import: ``optmem.scope``,
#: ``optmem.projects``, ``optmem.engine.sync``.
PROJECTS = "projects"

#: The person's step where ``MEMORY_DIR`` is unset: name a store, create it.
INIT_STEP = 'export MEMORY_DIR="$HOME/memory" && memo init'

_FROM_ENV = object()


def _example(raw: str) -> str:
    """A fully written path for ``raw``, to show in a message."""
    guess = os.path.expanduser(os.path.expandvars(raw))
    if "$" in guess or "`" in guess or guess.startswith("~"):
        guess = os.path.join(os.path.expanduser("~"), "memory")
    return os.path.normpath(os.path.abspath(guess))


def memory_dir(value: object = _FROM_ENV, name: str = "MEMORY_DIR",
               creating: bool = False) -> str:
    """The absolute store path that ``value`` names.

    ``value`` is the raw setting (``None`` or ``""`` when unset; omitted:
    ``os.environ["MEMORY_DIR"]``); ``name`` is what to call it in messages
    (``MEMORY_DIR``, ``--memory-dir``); ``creating`` is True for ``memo
    init``, whose refusals say where to point it instead of naming
    ``memo init`` again. ``~`` is expanded; nothing else is.
    Returns a normalised absolute path (no trailing slash). Raises
    ``NoStore`` (one line, never an order to run ``memo init``) when the
    value is unset, holds ``$`` or a backtick, or is relative. Whether a
    store exists there is not checked here (``Store.open`` does).
    """
    if value is _FROM_ENV:
        value = os.environ.get("MEMORY_DIR", "")
    raw = (str(value) if value else "").strip()
    if not raw and creating:
        raise NoStore(f"{name} is not set, so memo init does not know where to create the "
                      f"store; nothing was created. Set it to the absolute path of a new or "
                      f"empty directory, then run memo init again. "
                      f"{person_can_run(INIT_STEP)}")
    if not raw:
        raise NoStore(f"{name} is not set; set it to the absolute path of your memory "
                      f"store (e.g. export MEMORY_DIR=\"$HOME/memory\" in a shell). If no store "
                      f"exists yet, only a person creates one (memo init changes nothing "
                      f"where one is). {person_can_run(INIT_STEP)}")
    if "$" in raw or "`" in raw:
        raise NoStore(f"{name} {raw!r} still holds '{'$' if '$' in raw else '`'}': no shell "
                      f"expanded it (settings files pass it as written), so memo cannot "
                      f"tell which store it names; write the path out in full, e.g. "
                      f"{name}={_example(raw)}")
    path = os.path.expanduser(raw)
    if not os.path.isabs(path):
        raise NoStore(f"{name} {raw!r} is a relative path, so each folder memo runs in "
                      f"would name a different store; set it to an absolute path, e.g. "
                      f"{name}={_example(raw)}")
    return os.path.normpath(path)


def check_memory_dir(raw: str) -> str:
    """``memory_dir(raw)``: the same checks for a value already in hand."""
    return memory_dir(raw)


def state_dir(environ: Mapping[str, str] | None = None) -> str:
    """This user's folder of memo's state, absolute (``$XDG_STATE_HOME/optmem``
    when that is absolute, else ``~/.local/state/optmem``); not created here.
    The hand-over record and ``memo setup``'s manifest live under it."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_STATE_HOME") or ""
    if not os.path.isabs(base):
        home = env.get("HOME") or os.path.expanduser("~")
        base = os.path.join(home, ".local", "state")
    return os.path.join(base, "optmem")

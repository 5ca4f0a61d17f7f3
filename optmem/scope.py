"""Which store a command uses: ``MEMORY_DIR``, resolved in one place.

``MEMORY_DIR`` names one store, wherever memo runs (README "MEMORY_DIR").
``cli.py`` calls ``memory_dir()`` before anything else, and so does every
front end that writes ``MEMORY_DIR`` somewhere (``memo setup``, hooks):

* unset or empty: refused (there is no default store);
* ``~`` and ``~user`` at the start are expanded (as a shell would);
* a path that still holds ``$`` is refused: no shell expanded it (a JSON
  settings file passes ``$HOME/memory`` as written), and memo never guesses;
* a relative path is refused: it would name a different store in every
  folder memo runs in.

No message here orders ``memo init``: an agent follows every ``Run:``, and
a wrong path followed by ``memo init`` forks its identity into a second,
empty store. The messages say to check the path; creating a store is a
person's step (``A person can run: ...``).
"""

from __future__ import annotations

import os

from .errors import NoStore

#: How a person's step is printed (an agent does not follow it).
PERSON = "A person can run:"


def _example(raw: str) -> str:
    """A fully written path for ``raw``, to show in a message."""
    guess = os.path.expanduser(os.path.expandvars(raw))
    if "$" in guess or guess.startswith("~"):
        guess = os.path.join(os.path.expanduser("~"), "memory")
    return os.path.abspath(guess)


def check_memory_dir(raw: str) -> str:
    """The absolute store path ``raw`` (a ``MEMORY_DIR`` value) names.

    Returns ``raw`` with a leading ``~`` expanded. Raises ``NoStore`` (one
    line, no ``memo init`` order) for an empty value, a value that still
    holds ``$``, or a relative path. Touches no file.
    """
    if not raw:
        raise NoStore("MEMORY_DIR is not set; set it to the absolute path of your memory "
                      f"store (e.g. export MEMORY_DIR=\"$HOME/memory\" in a shell). {PERSON} "
                      f"memo init (it creates a new, empty store there)")
    if "$" in raw:
        raise NoStore(f"MEMORY_DIR {raw!r} still holds '$': no shell expanded it (settings "
                      f"files pass it as written), so memo cannot tell which store it names; "
                      f"write the path out in full, e.g. MEMORY_DIR={_example(raw)}")
    path = os.path.expanduser(raw)
    if not os.path.isabs(path):
        raise NoStore(f"MEMORY_DIR {raw!r} is a relative path, so each folder memo runs in "
                      f"would name a different store; set it to an absolute path, e.g. "
                      f"MEMORY_DIR={_example(raw)}")
    return path


def memory_dir(environ=None) -> str:
    """``check_memory_dir`` of ``MEMORY_DIR`` in ``environ`` (default
    ``os.environ``)."""
    env = os.environ if environ is None else environ
    return check_memory_dir(env.get("MEMORY_DIR", ""))

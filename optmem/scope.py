"""Which stores a command uses: the global one (``MEMORY_DIR``,
``optmem.store.paths``) and, where a project is bound, the project's
(``optmem.projects``; docs/scopes.md)."""

from __future__ import annotations

import os

from optmem.errors import NoStore
from optmem.store.paths import memory_dir


def resolve(flag=None, cwd: str | None = None, environ=None, root: str | None = None):
    """The one decision of which stores a command uses (docs/scopes.md).

    ``root`` is the global store (default: ``memory_dir()``); ``flag`` the
    command line's scope (None: not given; ``""``: ``--global``; a name:
    ``--project NAME``); ``cwd`` where the command runs (the hook passes the
    harness's ``cwd``). Returns an ``optmem.projects.Scope``. With no
    ``$MEMORY_DIR/projects/`` folder this is just ``memory_dir()``: no git
    call is made and no project is active. Raises ``NoStore``/``BadInput``
    as ``memory_dir`` and ``projects.resolve`` do; creates nothing.
    """
    environ = os.environ if environ is None else environ
    if root is None:
        root = memory_dir(environ.get("MEMORY_DIR", "")) if environ is not os.environ \
            else memory_dir()
    if flag is None and environ.get("MEMO_PROJECT") is None \
            and not os.path.isdir(os.path.join(root, PROJECTS)):
        # One stat, and optmem.projects is not imported (its regexes and
        # classes cost memo wake 3.1 ms of start-up, benchmarks/startup.py).
        return NoProjects(root)
    from optmem import projects
    return projects.resolve(root, flag, environ, cwd)


PROJECTS = "projects"  #: the folder of project memories in the global store (``projects.PROJECTS``)


class NoProjects:
    """The scope where no project memory exists and none is named: what
    ``projects.Scope(root)`` holds, the same attributes with the same
    values (``tests/test_startup.py`` compares them), without importing
    ``optmem.projects``. Only the global store at ``root`` is used."""

    project = project_root = remotes = bound = problem = repository = None
    how = "no project exists"
    forced_global = bare = False
    flag = ""  #: no scope flag: no project

    def __init__(self, root: str):
        self.root = root
        self.notices = []

    def __repr__(self) -> str:
        return f"NoProjects(root={self.root!r})"


def needs_cwd(flag=None, environ=None, root: str | None = None) -> bool:
    """Whether ``resolve(flag, cwd, environ, root)`` would look at ``cwd``
    (ask git which repository it is in): only when no scope is given
    (``flag`` None, no ``MEMO_PROJECT``) and ``$MEMORY_DIR/projects/``
    exists, the order ``projects.resolve`` decides in. False when
    ``MEMORY_DIR`` itself is refused (``resolve`` then raises before any
    folder matters). The MCP server uses it to ask a client for its
    workspace roots only when they can change the answer.
    """
    environ = os.environ if environ is None else environ
    if flag is not None or environ.get("MEMO_PROJECT") is not None:
        return False
    try:
        if root is None:
            root = memory_dir(environ.get("MEMORY_DIR", "")) if environ is not os.environ \
                else memory_dir()
    except NoStore:
        return False
    return os.path.isdir(os.path.join(root, PROJECTS))

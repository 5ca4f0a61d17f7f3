"""Which stores a command uses: the global one (``MEMORY_DIR``,
``optmem.store.paths``) and, where a project is bound, the project's
(``optmem.projects``; docs/scopes.md)."""

from __future__ import annotations

import os
from typing import Any, Mapping

from optmem.errors import NoStore
from optmem.store.paths import PROJECTS, memory_dir


def resolve(flag: str | None = None, cwd: str | None = None,
            environ: Mapping[str, str] | None = None, root: str | None = None) -> Any:
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


#: The name that stands for the global memory wherever a store is named by a
#: word: an order's scope (``--global``), the MCP ``scope`` argument, the
#: ``store`` of a JSON item when several stores are read.
GLOBAL = "global"

#: The flag that names the global memory on the command line.
GLOBAL_FLAG = "--global"


class Selection:
    """The stores one command uses, as one value (docs/scopes.md): which it
    reads and which one it writes, decided once from the scope flag, the
    checkout and the environment (``resolve``) and handed to every command
    of every front end (the CLI, the MCP server, the session-start hook).

    ``scope``: ``resolve``'s answer (a ``projects.Scope`` or ``NoProjects``);
    ``explicit``: the command named its scope (``--global``, ``--project
    NAME``, the MCP ``scope`` argument). A store is named by a word:
    ``GLOBAL`` or the active project's name. Pure: it opens no store and
    runs no git.
    """

    __slots__ = ("scope", "explicit")

    def __init__(self, scope: Any, explicit: bool = False):
        self.scope, self.explicit = scope, explicit

    def __repr__(self) -> str:
        return f"Selection({self.scope!r}, explicit={self.explicit!r})"

    @property
    def project(self) -> str | None:
        """The active project's name, or None."""
        return self.scope.project

    @property
    def several(self) -> bool:
        """Whether a read covers the global and the project memory: a
        project is active and no scope was named."""
        return bool(self.scope.project) and not self.explicit

    def reads(self, identity: bool = False) -> tuple:
        """The stores a read covers, global first, as names: both where
        ``several``; the one named; else the global memory. ``identity``
        (``wake``: the document of the whole identity): both whenever a
        project is active, ``--project NAME`` naming which project joins
        the global memory, ``--global`` leaving it out."""
        if self.scope.project and (identity or not self.explicit):
            return (GLOBAL, self.scope.project)
        return (self.scope.project or GLOBAL,)

    def writes(self, default: str | None = None) -> str:
        """The one store a write goes to: the active project's, else the
        global memory. ``default=GLOBAL`` (``config``): the global memory
        unless ``--project NAME`` named the project."""
        if self.scope.project and (self.explicit or default != GLOBAL):
            return self.scope.project
        return GLOBAL

    def root(self, name: str) -> str:
        """The folder of store ``name`` (``GLOBAL`` or the active project)."""
        if name == GLOBAL or name != self.scope.project:
            return self.scope.root
        return self.scope.project_root

    def flag(self, name: str) -> str:
        """The scope flag an order for store ``name`` carries, so it names
        the store it was given for: ``--project NAME`` for the project;
        ``--global`` for the global memory where a project is active, where
        ``--global`` was named while projects exist, or where git could not
        be asked which project this is; else none (the seed's orders)."""
        if name != GLOBAL and name == self.scope.project:
            return self.scope.flag
        return GLOBAL_FLAG if self.global_named() else ""

    def global_named(self) -> bool:
        """Whether an order for the global memory names it (``flag``)."""
        sc = self.scope
        return bool(sc.project or (sc.how == GLOBAL_FLAG and sc.forced_global) or sc.problem)

    def given(self) -> str:
        """The scope flag this command was given, as an order repeating it
        prints it (``--project NAME``, ``--global``), or ``""`` when none
        was given."""
        if not self.explicit:
            return ""
        return self.scope.flag if self.scope.project else GLOBAL_FLAG

    def order_scope(self, name: str) -> str | None:
        """``protocol.Order``'s ``scope`` for an order about store ``name``:
        the word of ``flag(name)`` (``GLOBAL``, the project's name), or None
        where the order carries no flag."""
        flag = self.flag(name)
        if not flag:
            return None
        return GLOBAL if flag == GLOBAL_FLAG else self.scope.project


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
        self.notices: list = []

    def __repr__(self) -> str:
        return f"NoProjects(root={self.root!r})"


def needs_cwd(flag: str | None = None, environ: Mapping[str, str] | None = None,
              root: str | None = None) -> bool:
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

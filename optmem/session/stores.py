"""The stores one command uses and what it answers: ``Stores`` (the
``scope.Selection`` with the stores opened) and ``Result``; the section
headings where several stores are read, and the flag an order for the
global memory carries."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterable

from optmem.scope import GLOBAL, Selection

if TYPE_CHECKING:  # for the annotations alone (a command opens stores through its front end)
    from optmem.store.memory import Store


class Result:
    """What one command answers, built once here and rendered by each front end.

    ``lines``: what it prints on standard output, in order (an item may hold
    several lines: a hand-over prompt is one item); ``notes``: ``memo: ...``
    lines after them, which the CLI prints on standard error (a write that
    was saved but whose store needs care, a notice such as "showing the
    newest N"); ``exit_code``: the CLI's exit status; ``error``: whether a
    client sees an error result (MCP ``isError``). The two differ for a
    wake blocked on a compression: exit 1 on the command line, where a
    script checks it, and no error over MCP, where it is a step to take.
    (A plain class: ``dataclass`` would cost every command's start-up.)
    """

    __slots__ = ("lines", "notes", "exit_code", "error")

    def __init__(self, lines: Iterable[str] | None = None, notes: Iterable[str] | None = None,
                 exit_code: int = 0, error: bool = False) -> None:
        self.lines = list(lines or [])
        self.notes = list(notes or [])
        self.exit_code, self.error = exit_code, error

    def __repr__(self) -> str:
        return (f"Result(lines={self.lines!r}, notes={self.notes!r}, "
                f"exit_code={self.exit_code!r}, error={self.error!r})")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Result) and all(
            getattr(self, k) == getattr(other, k) for k in self.__slots__)

    @property
    def text(self) -> str:
        """The whole answer as one text (the MCP tool result): the lines,
        then the notes, joined by newlines."""
        return "\n".join([*self.lines, *self.notes])


class Stores:
    """The stores one command uses, each opened on first use: the
    ``Selection`` (``sel``: which stores it reads, which one it writes)
    with the stores themselves.

    ``sc``: the scope (``optmem.scope.resolve``); ``g``: the global store;
    ``p``: the active project's store, or None without one; ``explicit``:
    True when the command named a scope (``--global``, ``--project NAME``,
    the ``scope`` argument); ``cwd``: the folder whose repository picks the
    project (None: the working directory). ``opener(path)`` opens the store
    at ``path`` (a front end's: the CLI closes it when the command ends);
    ``Store.open`` raises ``NoStore`` for a missing store, so a command
    that reads only the project's store never opens the global one."""

    def __init__(self, sc: Any, opener: Callable[[str], Store], explicit: bool = False,
                 cwd: str | None = None) -> None:
        self.sc, self.explicit, self.cwd = sc, explicit, cwd
        self.sel = Selection(sc, explicit)
        self._opener = opener
        self._open: dict = {}

    def _at(self, path: str) -> Store:
        if path not in self._open:
            self._open[path] = self._opener(path)
        return self._open[path]

    @property
    def g(self) -> Store:
        """The global store (its orders name it: ``Store.scope_flag``)."""
        store = self._at(self.sc.root)
        store.scope_flag = self.sel.flag(GLOBAL)
        return store

    @property
    def p(self) -> Store | None:
        """The active project's store, or None (its orders name it:
        ``Store.scope_flag``)."""
        if not self.sc.project:
            return None
        store = self._at(self.sc.project_root)
        store.scope_flag = self.sc.flag
        return store

    def store(self, name: str) -> Store:
        """The store ``name`` stands for (``scope.GLOBAL`` or the active
        project's name), opened."""
        project = self.p if name is not None and name == self.sc.project else None
        return project if project is not None else self.g

    def read(self, identity: bool = False) -> list:
        """``[(name, store), ...]``: the stores a read covers, global first
        (``Selection.reads``), each opened."""
        return [(name, self.store(name)) for name in self.sel.reads(identity)]

    def written(self, default: str | None = None) -> Store:
        """The one store a write goes to (``Selection.writes``), opened."""
        return self.store(self.sel.writes(default))

    def heading(self, name: str) -> str:
        """The heading of store ``name``'s section where several are read."""
        return heading_global(self.sc) if name != self.sc.project else heading_project(self.sc)

    def ambient(self) -> tuple | None:
        """Where the global memory was named while projects exist
        (``forced_global``) and no project is active: ``(scope, store)`` of
        the project this folder uses without a flag (``scope.resolve`` at
        ``cwd``), whose work the hand-over after a saved summary still
        names; None when there is none."""
        if self.sc.project or not self.sc.forced_global:
            return None
        from optmem.scope import resolve
        ambient = resolve(None, cwd=self.cwd)
        if not ambient.project:
            return None
        return ambient, self._at(ambient.project_root)

    def opened(self) -> list:
        """The stores opened so far, in the order they were opened."""
        return list(self._open.values())


def lazy_projects() -> Any:
    """``optmem.projects``, imported on first use: a store without a
    ``projects/`` folder never needs it (5.9 ms of start-up, measured with
    ``benchmarks/startup.py --importtime wake``)."""
    from optmem import projects
    return projects


def lazy_json() -> Any:
    """``json``, imported on first use (``recall --json`` alone; 1.2 ms of
    start-up every other command would pay)."""
    import json
    return json


def heading_global(scope: Any) -> str:
    """The global section's heading (never starts with ``#`` or ``Run:``)."""
    return f"Global memory ({scope.root}): facts true in any repository."


def heading_project(scope: Any) -> str:
    """The project section's heading."""
    return (f"Project memory: {scope.project} ({scope.project_root}): facts of this "
            f"repository only.")


def global_flag(scope: Any) -> str:
    """The flag an order for the global store carries where both stores are
    read (a project active: ``--global``): ``Selection.flag``, the one rule."""
    return Selection(scope).flag(GLOBAL)


def global_named(sc: Any) -> bool:
    """Does an order for the global store carry ``--global``
    (``Selection.global_named``, the one rule)?"""
    return Selection(sc).global_named()

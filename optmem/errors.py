"""The project's exceptions (docs/protocol.md).

Core modules raise these; the CLI turns every one into a single line on
stderr with exit 1. Each message says what is wrong and ends with what to
run next; a filesystem problem names the path.
"""

from __future__ import annotations

from typing import Any, Iterable


class MemoError(Exception):
    """Base class: ``str(err)`` is the one line a user sees (what is wrong).

    ``orders`` (keyword only; default none) are the lines that follow it
    when there is more than one thing to run next, each one order as
    printed (``Run: ...`` or ``A person can run: ...``, rendered by
    ``optmem.protocol.one_of``): a front end prints each on its own line,
    never joined to the message.

    ``then`` (keyword only; an ``optmem.protocol.Order``, or None) is the
    one order the sentence ends with: ``str(err)`` is the sentence, a space
    and that order rendered in the form in force (``Run: memo wake`` on the
    command line, ``Run: wake {}`` over MCP), so no front end rewrites a
    message's text; ``sentence`` is the message without it.
    """

    def __init__(self, *args: object, orders: Iterable[str] = (), then: Any = None) -> None:
        super().__init__(*args)
        self.orders = tuple(orders)
        self.then = then

    @property
    def sentence(self) -> str:
        """The message without its closing order (``then``)."""
        return Exception.__str__(self)

    def __str__(self) -> str:
        if self.then is None:
            return self.sentence
        return f"{self.sentence} {self.then.line()}"


class NoStore(MemoError):
    """``MEMORY_DIR`` is unset, missing, or not a store."""


class BadInput(MemoError):
    """An argument, a memory text, a summary or an import file is refused."""


class BadText(BadInput):
    """Text refused by the write guard (``optmem.guard.text``): a line break,
    control or invisible character, or a credential."""


class ConfigError(MemoError):
    """The ``config`` file or a ``memo config`` value is invalid."""


class Damaged(MemoError):
    """A store file holds a record that cannot be read as written."""


class Blank(Damaged):
    """A summary record of spaces or NUL bytes only: a write that never
    reached the disk. Damage like any other to wake and sleep; zoom shows
    its block as not compressed yet, as the reference OptMem reads it."""


class Busy(MemoError):
    """The store lock could not be taken in time."""


class NotBuilt(MemoError, KeyError):
    """A summary that is not (or no longer) built was asked for."""

    def __str__(self) -> str:  # KeyError would quote the message
        return MemoError.__str__(self)


"""``memo note``: record one memory."""

from __future__ import annotations

import click

from optmem import session  # imported with this module, the collector paused
from optmem.cli.argv import TextCommand, scoped
from optmem.cli.base import show, stores
from optmem.cli.stdio import keeping, text_arg


@click.command(cls=TextCommand)
@click.argument("text", nargs=-1, required=True)
@scoped
def note(text):
    """Record one memory: one line, at most ENTRY_CHARS bytes (`-` reads stdin).

    With a project active the memory goes to the project; --global sends a
    fact that would be true in any repository to the global memory.
    """
    show(session.note(stores(notice=False), lambda limit: text_arg(text, "memory", limit),
                      kept=keeping))

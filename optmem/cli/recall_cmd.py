"""``memo recall``: search the raw log."""

from __future__ import annotations

import click

from optmem import session  # imported with this module, the collector paused
from optmem.cli.argv import TextCommand, scoped
from optmem.cli.base import show, stores
from optmem.cli.stdio import undo_surrogates


@click.command(cls=TextCommand, one_word=True)
@click.argument("pattern")
@click.option("--json", "as_json", is_flag=True, help="A JSON list of {id, date, text}.")
@click.option("-F", "--fixed", is_flag=True,
              help="Find PATTERN as written, not as a regex ($HOME, a.b.c, f(x)).")
@scoped
def recall(pattern, as_json, fixed):
    """Search the raw log (Python regex, case-insensitive) for detail a summary lost.

    Each line `#id date text` is matched, so ids and dates can be searched
    too: memo recall '^#7 ', memo recall '2024-05'. With -F the text is
    found as written: memo recall -F '$HOME'. With a project active,
    both memories are searched, each in its own headed section.
    """
    show(session.recall(stores(), undo_surrogates(pattern), fixed, as_json))

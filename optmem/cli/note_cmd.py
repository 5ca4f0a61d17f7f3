"""``memo note``: record one memory."""

from __future__ import annotations

from optmem import session  # imported with this module, the collector paused
from optmem.cli.base import show, stores
from optmem.cli.stdio import keeping, text_arg
from optmem.cli.table import command


@command("note")
def note(text):
    show(session.note(stores(notice=False), lambda limit: text_arg(text, "memory", limit),
                      kept=keeping))

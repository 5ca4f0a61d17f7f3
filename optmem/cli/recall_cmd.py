"""``memo recall``: search the raw log."""

from __future__ import annotations

from optmem import session  # imported with this module, the collector paused
from optmem.cli.base import show, stores
from optmem.cli.stdio import undo_surrogates
from optmem.cli.table import command


@command("recall")
def recall(pattern, as_json, fixed):
    show(session.recall(stores(), undo_surrogates(pattern), fixed, as_json))

"""``memo wake``: print the memory, part by part."""

from __future__ import annotations

import click

from optmem import session  # imported with this module, the collector paused
from optmem.cli.base import show, stores
from optmem.cli.table import command
from optmem.engine import view
from optmem.errors import BadInput
from optmem.protocol import Order


@command("wake")
def wake(part, t, tp, max_bytes):
    st = stores()
    st.g  # noqa: B018 - opened first, as every command opens it
    if tp is not None and st.p is None:  # as click says it without projects
        raise click.UsageError(f"Got unexpected extra argument ({tp})")
    if max_bytes is not None:
        if part is not None or t is not None:
            raise BadInput("--max-bytes prints the whole memory as one part; drop PART "
                           "and T, or page through the parts instead.", then=Order("wake"))
        show(session.wake(st, max_bytes=view.parse_count(max_bytes, "--max-bytes")))
        return
    again = Order("wake")  # a word that is no number: the document from its first part
    k = view.parse_count(part, "PART", again) if part is not None else 1
    T = view.parse_count(t, "T", again) if t is not None else None
    TP = view.parse_count(tp, "TP", again) if tp is not None else None
    show(session.wake(st, k, T, TP, strict=True))

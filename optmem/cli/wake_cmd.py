"""``memo wake``: print the memory, part by part."""

from __future__ import annotations

import click

from optmem import session  # imported with this module, the collector paused
from optmem.cli.argv import Command, scoped
from optmem.cli.base import show, stores
from optmem.engine import view
from optmem.errors import BadInput
from optmem.protocol import Order


@click.command(cls=Command)
@click.argument("part", required=False)
@click.argument("t", metavar="[T]", required=False)
@click.argument("tp", metavar="[TP]", required=False)
@click.option("--max-bytes", metavar="N", help="One part of at most N bytes, never refused "
              "for pending work (for startup hooks that cannot page).")
@scoped
def wake(part, t, tp, max_bytes):
    """Print your memory: part PART (default 1) of the document at T memories.

    Run every part, as each one orders, until one prints `You are awake.`
    With a project active, T and TP are the global and project snapshots.
    """
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

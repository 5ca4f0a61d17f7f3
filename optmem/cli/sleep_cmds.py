"""``memo sleep`` and its other name ``memo nap``: show the next
compression, or store a summary; ``--with CMD`` pays every pending one."""

from __future__ import annotations

import click

from optmem import session  # imported with this module, the collector paused
from optmem.cli.base import LateBar, show, stores
from optmem.cli.stdio import STDIN_LIMIT, keeping, read_stdin, text_arg, undo_surrogates
from optmem.cli.table import command
from optmem.protocol import Order


@command("sleep")
def sleep(block, text, with_cmd):
    if with_cmd is not None:
        st = stores(notice=False)
        targets = session.pay_targets(st, block, text)
        scope = Order.scoped(st.sel.given())  # a step to go on repeats the scope given
        for k, target in enumerate(targets):
            _pay_with(target, with_cmd, last=k == len(targets) - 1, scope=scope)
        return
    st = stores(notice=block is None)
    if block == "-":
        show(session.sleep(st, batch=lambda: _batch_lines(text), kept=keeping))
        return

    def summary(limit):
        if not text:
            from optmem.errors import BadInput
            raise BadInput("give your summary line after the block, as the last lines of the "
                           "compression prompt show.", then=Order("sleep"))
        return text_arg(text, "summary", limit)

    show(session.sleep(st, block, summary if block is not None else None, kept=keeping,
                       strict=True))


# ``nap`` is the later OptMem's word for ``sleep``: the same callback, its own row.
assert sleep.callback is not None  # made just above
nap = command("nap")(sleep.callback)


def _batch_lines(items: tuple) -> list:
    """``memo sleep -``'s answer: one ``LO-HI <line>`` per quoted argument,
    else the lines on standard input."""
    if items:
        return [undo_surrogates(item) for item in items]
    lines = read_stdin("answer", "give one quoted 'LO-HI <line>' argument per block",
                       1 << 24, "a batch answer is one short line per block",
                       line_limit=STDIN_LIMIT).split("\n")
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def _pay_with(store, shell_command: str, last: bool = True, scope: str | None = None) -> None:
    """``memo sleep --with CMD``: pay every pending compression with CMD
    (``scope``: the scope given, which the step to go on repeats)."""
    from optmem.engine import backlog, view
    bar = LateBar("memo: paying compressions")

    def progress(saved, total):
        keeping(f"{saved:,} {'summary was' if saved == 1 else 'summaries were'} saved; "
                f"the same command goes on from there")
        bar(saved, total)

    try:
        paid = backlog.pay(store, shell_command, progress=progress, scope=scope)
    finally:
        bar.close()
    if paid.saved:
        click.echo(f"Saved {paid.saved:,} {'summary' if paid.saved == 1 else 'summaries'} "
                   f"from {paid.runs:,} {'run' if paid.runs == 1 else 'runs'} of the command.")
    if last:
        click.echo(view.NOTHING_LEFT)

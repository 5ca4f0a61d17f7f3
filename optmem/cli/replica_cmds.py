"""The commands that join replicas of one memory: ``memo sync``.

A person's commands (they may renumber memories an agent holds in its
context): memo only ever prints them as ``A person can run: memo ...``, and
they are no MCP tools. ``optmem.cli.app`` registers them.
"""

from __future__ import annotations

import click


@click.command("sync")
@click.option("--drop-refused", is_flag=True,
              help="In a merge, leave out the memories the write guard refuses.")
@click.option("--keep-refused", is_flag=True,
              help="In a merge, keep the memories the write guard refuses, as they are.")
@click.option("--unrelated", is_flag=True,
              help="Merge although the two machines' stores share no memory.")
@click.option("--yes", is_flag=True,
              help="Merge although more than 10,000 compressions are pending afterwards.")
def sync(drop_refused, keep_refused, unrelated, yes):
    """For a person, never an agent: sync MEMORY_DIR with its git hub.

    MEMORY_DIR is a git work tree whose branch has an upstream (see
    docs/machines.md; without one this prints the commands that set it up
    and changes nothing). Commits the stores' files (the global store and
    every project's) with your git identity, fetches, fast-forwards when it
    can, otherwise merges each store with memo merge's rules (git never
    merges the store's files) and records a merge commit, then pushes
    (never forced). Ids after the first difference may change, so agents
    wake again. The report prints how to put the store back.
    """
    from optmem.engine import sync as syncing
    from optmem.store.paths import memory_dir
    report = syncing.sync(memory_dir(), drop_refused=drop_refused, keep_refused=keep_refused,
                          unrelated=unrelated, yes=yes)
    for line in report.lines:
        click.echo(line)

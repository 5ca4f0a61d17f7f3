"""The commands over one memory besides the four of every session (wake,
note, sleep, recall): ``zoom``, ``forget``, ``stats``, ``config``,
``check``, ``redact`` and ``scope``. Each is a few lines over the session
layer, so they share a module: running one builds these seven."""

from __future__ import annotations

import click

from optmem.cli.argv import Command, scoped
from optmem.cli.base import show, stores


@click.command(cls=Command)
@click.argument("block", required=False)
@scoped
def zoom(block):
    """Open one line of wake: LO-HI's two halves (summaries, or raw memories)."""
    if block is None:  # exit 1, as the later OptMem: a client checks it
        from optmem.errors import BadInput
        from optmem.protocol import Order
        raise BadInput("zoom needs a block id, as wake prints it (memo zoom 0-1, or one "
                       "memory: memo zoom 7).", then=Order("wake"))
    from optmem import session
    show(session.zoom(stores(), block, strict=True))


@click.command(cls=Command)
@click.argument("block")
@click.option("--dry-run", is_flag=True,
              help="Say how many summaries would go (each a compression to redo); "
                   "change nothing.")
@scoped
def forget(block, dry_run):
    """Drop the summary LO-HI and every one built on it (the log is untouched)."""
    from optmem import session
    from optmem.engine import view
    view.block_arg(block)  # a block refused before the scope is read
    show(session.forget(stores(notice=False), block, dry_run))


@click.command("config", cls=Command)
@click.argument("settings", nargs=-1)
@click.option("--repair", is_flag=True, help="Comment out config lines that are not valid.")
@scoped
def config_(settings, repair):
    """Show the settings, or change them: NAME=VALUE (NAME= restores the default).

    The global store's, unless --project NAME names a project's."""
    from optmem import session
    show(session.config(stores(notice=not (settings or repair)), settings, repair))


@click.command(cls=Command)
@click.option("--json", "as_json", is_flag=True, help="One JSON object.")
@scoped
def stats(as_json):
    """Memories, summaries, pending work, bytes on disk and the wake shape.

    With a project active and no flag: the global memory, then the project's."""
    from optmem import session
    show(session.stats(stores(), as_json))


@click.command(cls=Command)
@click.option("--all", "every", is_flag=True, help="Also check every project store.")
@click.option("--repair", is_flag=True, help="Restore log records whose id or date alone "
              "is damaged (their place implies it); the text is never changed and the "
              "old bytes are kept in recovered.txt. Then check.")
@scoped
def check(every, repair):
    """Verify every record of the store; each problem names its recovery.

    With a project active and no flag: the global store, then the project's;
    --all walks every project. --repair first restores what a record's place
    in the log implies (its id, and its date when both neighbours share it),
    losing nothing, then checks.
    """
    from optmem import session
    show(session.check(stores(notice=not repair), every, repair))


@click.command(cls=Command)
@click.argument("memory_id", metavar="ID")
@click.option("--yes", is_flag=True, help="Really blank the memory.")
@scoped
def redact(memory_id, yes):
    """For humans only, never agents: blank memory ID in place for good.

    Use it only for what must not stay on disk (a secret, something a person
    asked to have removed). The id and date stay; the text becomes
    [redacted]; the summaries over it are dropped and rebuilt by memo sleep.
    """
    from optmem import session
    show(session.redact(stores(notice=False), memory_id, yes))


@click.command("scope", cls=Command)
@scoped
def scope_(**_):
    """Say which memory this folder uses: the global store, the active
    project, how it was found and the remotes seen (reads only)."""
    from optmem import session
    show(session.scope(stores(notice=False)))

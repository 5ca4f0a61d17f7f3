"""The commands that join replicas of one memory: ``memo merge`` and ``memo sync``.

A person's commands (they may renumber memories an agent holds in its
context): memo only ever prints them as ``A person can run: memo merge ...``,
and they are no MCP tools. ``optmem.cli.app``'s table names them; ``session-end`` is a
``memo hook`` command (``optmem.cli.hook_cmds``).
"""

from __future__ import annotations

import click

from optmem.cli.argv import Command, scoped


def _scope():
    """The scope this run names (``optmem.scope.resolve``), decided once."""
    ctx = click.get_current_context()
    meta = ctx.meta
    if "optmem.scope" not in meta:
        from optmem.scope import resolve
        meta["optmem.scope"] = resolve(meta.get("optmem.scope_flag"))
    return meta["optmem.scope"]


def _store_and_command(other: str, flags: tuple = ()):
    """``(store, command)``: the store the scope flag names (the global one,
    or the project's), and ``memo merge`` with that flag for the steps a
    refusal prints. With a project active and no flag, refused with both
    runnable forms (ids restart at #0 in every store)."""
    from optmem import protocol, session, textform
    from optmem.errors import BadInput
    from optmem.store.memory import Store
    sc = _scope()
    flag = click.get_current_context().meta.get("optmem.scope_flag")
    word = textform.quoted(other)
    # Where git could not be asked which project this is: name the memory.
    session.write_scope(sc, flag is not None, "this merge",
                        protocol.Order("merge", (*flags, "--", word), person=True))
    if sc.project and flag is None:
        raise BadInput(f"ids restart at #0 in the global and the project memory, so memo "
                       f"does not guess which one to "
                       f"{'undo the merge of' if flags else 'merge'} {textform.shown(other)} "
                       f"{'in' if flags else 'into'}; "
                       f"name the memory with one of:",
                       orders=protocol.one_of(
                           [protocol.Order("merge", (*flags, "--", word), where, person=True,
                                           flag_first=True)
                            for where in ("global", sc.project)]))
    if flag is None:
        command = "memo merge"
    elif sc.project:
        command = f"memo merge --project {textform.quoted(sc.project)}"
    else:
        command = "memo merge --global"
    store = Store.open(sc.project_root if sc.project else sc.root)
    click.get_current_context().call_on_close(store.close)
    return store, command


def merge_choices(command):
    """The decisions a person gives a merge, the same for ``memo merge`` and
    ``memo sync`` (which passes them to each store's merge): click options
    ``--drop-refused``, ``--keep-refused``, ``--unrelated``, ``--yes`` and
    ``--accept-old-redactions``, applied to ``command``."""
    for option in reversed((
            click.option("--drop-refused", is_flag=True,
                         help="Leave out the other side's memories the write guard refuses "
                              "(this store's own are never judged); the report lists them."),
            click.option("--keep-refused", is_flag=True,
                         help="Keep the memories the write guard refuses, as they are."),
            click.option("--unrelated", is_flag=True,
                         help="Merge although the two sides share no memory (two identities "
                              "made one)."),
            click.option("--yes", is_flag=True,
                         help="Merge although more than 10,000 compressions are pending "
                              "afterwards, or matching tombstones takes more than 600 slow "
                              "hashes."),
            click.option("--accept-old-redactions", is_flag=True,
                         help="Blank this store's memories where the other side holds an old "
                              "redaction ([redacted], no hash) at the same place; without it "
                              "the merge refuses and lists them."))):
        command = option(command)
    return command


@click.command("merge", cls=Command)
@click.argument("other", metavar="OTHER", type=click.Path())
@click.option("--dry-run", is_flag=True, help="Print the report; write nothing.")
@merge_choices
@click.option("--undo", is_flag=True,
              help="Put the store back as the merge whose merge-backup/ folder is OTHER "
                   "found it (its report prints this); memories noted since are kept.")
@scoped
def merge(other, dry_run, drop_refused, keep_refused, unrelated, yes, undo,
          accept_old_redactions):
    """For a person, never an agent: make this store whole with OTHER.

    OTHER is another replica of this memory: another store's directory, or
    a lone copy of its LOG.txt (a sync tool's conflict copy, a backup, a
    `git show`). It is only read. Afterwards this store holds every memory
    of both, in one order every machine computes alike; ids after the first
    difference may change, so agents wake again. Summaries are kept where
    their memories did not move; `memo sleep` builds the rest.

    What the merge replaces is kept first in merge-backup/ in the store, and
    the report prints how to put the store back (memo merge --undo). Memories only one side
    holds pass the write guard; refused ones stop the merge until a person
    chooses --drop-refused or --keep-refused. With a project active, name
    the memory with --project NAME or --global.
    """
    from optmem.engine.merge import merge as run_merge
    from optmem.engine.merge import undo as run_undo
    store, command = _store_and_command(other, ("--undo",) if undo else ())
    if undo:
        if dry_run or drop_refused or keep_refused or unrelated or yes or accept_old_redactions:
            from optmem import protocol, textform
            from optmem.errors import BadInput
            raise BadInput("--undo takes no other option; nothing was changed. "
                           + protocol.person_can_run(
                               f"{command} --undo -- {textform.quoted(other)}"))
        lines = run_undo(store, other)
    else:
        lines = run_merge(store, other, dry_run=dry_run, drop_refused=drop_refused,
                          keep_refused=keep_refused, unrelated=unrelated, yes=yes,
                          again=command, old_redactions=accept_old_redactions).lines
    for line in lines:
        click.echo(line)
    for line in store.notices:
        click.echo(f"memo: {line}", err=True)
    store.notices.clear()


@click.command("sync", cls=Command)
@merge_choices
def sync(drop_refused, keep_refused, unrelated, yes, accept_old_redactions):
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
                          unrelated=unrelated, yes=yes,
                          old_redactions=accept_old_redactions)
    for line in report.lines:
        click.echo(line, err=line.startswith("memo: "))
    if report.failed:
        raise SystemExit(1)


@click.command("session-end", cls=Command)
@click.option("--harness", "harness_name", default="claude",
              help="Which harness runs it (setup writes it).")
@click.option("--memory-dir", metavar="PATH", help="The store (default: MEMORY_DIR).")
def session_end(harness_name, memory_dir):
    """Sync the store to its git hub when a session ends (exit 0).

    memo setup adds it only where the store is a git work tree with an
    upstream. Fast-forwards only, prompts off, a few seconds at most; what
    it could not do goes to standard error, and the next session's wake
    says when a person's memo sync is needed.
    """
    import os

    from optmem.cli.stdio import hook_stdin
    from optmem.engine import sync as syncing
    from optmem.errors import MemoError
    from optmem.store.paths import memory_dir as checked
    hook_stdin()  # the harness's JSON: read so its pipe never blocks
    try:
        root = checked(memory_dir if memory_dir is not None else os.environ.get("MEMORY_DIR"))
    except MemoError as err:
        click.echo(f"memo: {err}", err=True)
        return
    for line in syncing.hook_sync(root):
        click.echo(line, err=True)

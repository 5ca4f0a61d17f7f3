"""The commands a person runs to set memo up and move memories in and out:
``init``, ``import``, ``export``, ``setup`` and ``mcp``."""

from __future__ import annotations

import errno
import sys

import click

from optmem.cli.argv import Command
from optmem.cli.base import LateBar, show, stores
from optmem.cli.stdio import keeping, open_stdin
from optmem.cli.table import command
from optmem.errors import BadInput, MemoError


@click.command(cls=Command)
@click.option("--project", "project", is_flag=False, flag_value="", default=None,
              metavar="[NAME]", help="Create (or adopt) a project store for this repository "
              "and bind the repository to it; NAME defaults to the repository's.")
def init(project):
    """Create the store at MEMORY_DIR (safe to run again: changes nothing).

    With --project [NAME], a person adds a project store beside the global
    one, bound to this git repository (every worktree of it).
    """
    from optmem import session
    if project is None:
        project = click.get_current_context().meta.get("optmem.scope_flag") or None
    show(session.init(project))


def _spool_lines(source, sink) -> None:
    """Copy the import lines on standard input into ``sink`` (a spool file:
    the import reads its file twice), refusing (``BadInput``) as soon as a
    line is longer than ``core.IMPORT_LINE_LIMIT`` bytes, as a file's line
    is refused, so endless input without a newline never fills the disk."""
    from optmem.engine import core
    limit = core.IMPORT_LINE_LIMIT
    run = number = 0  # bytes of the current line so far (no newline); lines ended
    while True:
        chunk = source.read(1 << 20)
        if not chunk:
            return
        sink.write(chunk)
        parts = chunk.split(b"\n")
        for k, part in enumerate(parts):
            run += len(part)
            if run >= limit:  # as a file's line: readline(limit) finds no newline
                raise BadInput(f"standard input line {number + 1} is longer than {limit} "
                               f"bytes (a memory is one short line); nothing was imported")
            if k < len(parts) - 1:
                number += 1
                run = 0


@command("import")
def import_(file, yes):
    from optmem import session
    from optmem.engine import backlog
    st = stores(notice=False)
    store = session.import_store(st)
    keeping("nothing was imported")
    bar = LateBar("memo: importing", counts=False)

    def before_write(count, created):
        bar.close()
        line = backlog.import_warning(count, created)
        if line:
            click.echo(line, err=True)

    def import_lines(path):
        try:
            return session.import_(st, store, path, file, yes, before_write, bar, keeping)
        finally:
            bar.close()

    if file == "-":  # stdin is read once; the import reads its file twice
        import tempfile
        source = open_stdin("lines to import", "give the path of a file to import")
        with tempfile.NamedTemporaryFile(prefix="memo-import-", suffix=".txt") as tmp:
            try:
                _spool_lines(source if source is not None else sys.stdin.buffer, tmp)
            except OSError as err:
                if err.errno == errno.ENOSPC:
                    raise
                raise BadInput(f"standard input cannot be read ({err.strerror}); nothing "
                               f"was imported") from None
            tmp.flush()
            try:
                result = import_lines(tmp.name)
            except MemoError as err:  # name what the user gave, not the spool file
                raise type(err)(str(err).replace(tmp.name, "standard input")) from None
    else:
        result = import_lines(file)
    show(result)


@command("export")
def export(file):
    from optmem import session
    st = stores()
    if file is None or file == "-":
        out = sys.stdout.buffer if hasattr(sys.stdout, "buffer") else None
        write = out.write if out is not None else (
            lambda data: sys.stdout.write(data.decode("utf-8")))
        session.export(st, None, write)
        if out is not None:
            out.flush()
        return
    show(session.export(st, file))


@click.command(cls=Command)
@click.argument("harness", required=False)
@click.option("--scope", "scope_name", metavar="user|project",
              help="user: your own settings (the default); project: this project's files.")
@click.option("--memory-dir", metavar="PATH", help="The store (default: MEMORY_DIR); absolute.")
@click.option("--project", metavar="DIR", help="The project folder (default: the current one).")
@click.option("--dry-run", is_flag=True, help="Show each file's diff; write nothing.")
@click.option("--uninstall", is_flag=True, help="Take out exactly what setup added.")
@click.option("--status", "show_status", is_flag=True, help="Say what is installed where.")
def setup(harness, scope_name, memory_dir, project, dry_run, uninstall, show_status):
    """Wire memo into an agent: claude, codex, gemini, agents, claude-desktop or cursor.

    Writes the harness's SessionStart hook (the memory in context at start
    and after compaction), MEMORY_DIR where the harness takes it, and the
    agent's rules into CLAUDE.md / AGENTS.md / GEMINI.md. For the MCP
    clients (claude-desktop, cursor) it writes a `memo mcp` server entry,
    with the absolute memo and MEMORY_DIR, into the client's user-level
    file. Running it again changes nothing; --uninstall restores what was
    there. For people, not agents.
    """
    from optmem.harness import setup as harness_setup
    if show_status:
        lines, ok = harness_setup.status(project=project)
        for line in lines:
            click.echo(line)
        if not ok:
            sys.exit(1)
        return
    if not harness:
        from optmem.harness import HARNESSES
        raise click.UsageError(f"name the harness: memo setup {'|'.join(HARNESSES)}")
    for line in harness_setup.run(harness, scope_name, memory_dir, project, dry_run, uninstall):
        click.echo(line)


@click.command(cls=Command)
def mcp():
    """Serve the memory to MCP clients over stdio (Claude Desktop, Cursor).

    The client starts it and it ends with the client: no daemon, no port.
    Tools: wake, note, sleep, recall, zoom, forget, stats, on the store
    MEMORY_DIR names. Needs the extra: pip install 'optmem[mcp]' (Python
    3.10+). memo setup claude-desktop|cursor writes the client's entry.
    """
    for stream, name in ((sys.stdin, "standard input"), (sys.stdout, "standard output")):
        if stream is None or getattr(stream, "closed", False) or not hasattr(stream, "buffer"):
            raise BadInput(f"{name} is closed; memo mcp talks to its client over standard "
                           f"input and output: let an MCP client start it (memo setup "
                           f"claude-desktop|cursor writes the entry)")
    from optmem import mcp as mcp_server
    sys.exit(mcp_server.main())

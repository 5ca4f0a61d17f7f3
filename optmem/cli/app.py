"""The ``memo`` command: the click group and its commands.

Each command reads its arguments (``optmem.cli.argv``, ``optmem.cli.stdio``);
``wake``, ``note``, ``sleep``, ``recall``, ``zoom``, ``forget`` and ``stats``
then call their function in the session layer (``optmem.session``), which
the MCP server calls too, and print the ``Result`` it returns (``_show``:
lines on stdout, notes on stderr, its exit code); the commands a person
runs (``init``, ``config``, ``check``, ``import``, ...) call the engine
(``optmem.engine``) themselves. ``MemoGroup`` turns every
failure into one line on stderr in one place (``optmem.cli.render``):
``MemoError`` and ``OSError`` exit 1, usage errors exit 2, and nothing ever
shows a traceback. ``main`` is the console entry point.
"""

from __future__ import annotations

import errno
import os
import sys

import click

from optmem import __version__, protocol
from optmem.cli import replica_cmds
from optmem.cli.argv import FileCommand, TextCommand, scoped
from optmem.cli.render import ARGV, MemoFailure, UsageFailure, one_line, unechoed_argv
from optmem.cli.stdio import (
    EXIT_PIPE,
    EXIT_SIGINT,
    EXIT_SIGTERM,
    STDIN_LIMIT,
    Interrupted,
    PipeClosed,
    closed_streams,
    hook_stdin,
    keeping,
    kept,
    on_sigterm,
    open_stdin,
    quiet_stdout,
    read_stdin,
    text_arg,
    undo_surrogates,
    utf8_streams,
)
from optmem.engine import core, view
from optmem.errors import BadInput, MemoError


class MemoGroup(click.Group):
    """The ``memo`` group: one place that turns failures into one line."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True,
             **extra):
        """Run one command. Bare ``memo`` prints the help on stdout (exit 0).
        Usage errors are one line (exit 2); Ctrl-C and SIGTERM say what was
        kept (exit 130, 143); a closed output pipe ends quietly (exit 141),
        whether the output was still buffered or not."""
        closed_streams()
        args = list(sys.argv[1:] if args is None else args)
        if not args:
            args = ["--help"]
        ARGV[:] = [a for a in args if isinstance(a, str)]
        import _signal as signal  # signal's enum wrappers cost 0.5 ms of every command
        old = None
        try:
            old = signal.signal(signal.SIGTERM, on_sigterm)
        except (ValueError, OSError):  # not the main thread (tests): leave it
            pass
        try:
            try:
                code = super().main(args, "memo", complete_var,
                                    standalone_mode=False, **extra)
            except SystemExit as err:  # a command's own exit status (wake, note)
                code = err.code
            except click.exceptions.Exit as err:
                code = err.exit_code
            except click.UsageError as err:
                if not isinstance(err, UsageFailure):
                    err = UsageFailure(err.format_message(), err.ctx)
                err.show()
                code = err.exit_code
            except click.ClickException as err:
                err.show()
                code = err.exit_code
            except click.Abort:  # EOF at a prompt (memo asks none): be quiet
                code = 1
            sys.stdout.flush()
        except (BrokenPipeError, PipeClosed):
            quiet_stdout()
            code = EXIT_PIPE
        except KeyboardInterrupt as err:  # between commands: nothing was running
            term = isinstance(err, Interrupted)
            click.echo(f"memo: stopped by {'SIGTERM' if term else 'SIGINT'}; nothing "
                       f"was changed", err=True)
            code = EXIT_SIGTERM if term else EXIT_SIGINT
        finally:
            if old is not None:
                signal.signal(signal.SIGTERM, old)
        if not standalone_mode:
            return code
        sys.exit(code or 0)

    def resolve_command(self, ctx, args):
        """Find the command ``args[0]`` names. An unknown name is a usage
        error that suggests the nearest commands (``difflib``), the same on
        every click version (older ones suggest nothing)."""
        name = args[0] if args else ""
        if (isinstance(name, str) and name and not name.startswith("-")
                and self.get_command(ctx, name) is None):
            import difflib
            shown = [n for n, cmd in self.commands.items() if not cmd.hidden]
            near = sorted(difflib.get_close_matches(name, shown))
            hint = ""
            if len(near) == 1:
                hint = f" Did you mean {near[0]!r}?"
            elif near:
                hint = f" Did you mean one of: {', '.join(repr(n) for n in near)}?"
            raise click.UsageError(f"No such command {name!r}.{hint}", ctx)
        return super().resolve_command(ctx, args)

    def format_commands(self, ctx, formatter):
        """The command list of ``memo --help``, each description whole."""
        rows = [(name, cmd.help.split("\n\n", 1)[0].replace("\n", " ").strip()
                 if cmd.help else "")
                for name, cmd in sorted(self.commands.items()) if not cmd.hidden]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as err:
            sig = "SIGTERM" if isinstance(err, Interrupted) else "SIGINT"
            code = EXIT_SIGTERM if isinstance(err, Interrupted) else EXIT_SIGINT
            failure = MemoFailure(f"stopped by {sig}; {kept(ctx)}")
            failure.exit_code = code
            raise failure from None
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except MemoError as err:
            raise MemoFailure(str(err), err.orders) from None
        except BrokenPipeError:
            raise PipeClosed() from None
        except Exception as err:  # the last line of defence: never a traceback
            if isinstance(err, OSError) and err.errno == errno.EPIPE:
                raise PipeClosed() from None
            from optmem.session import error_line  # the same words over MCP
            raise MemoFailure(error_line(err)) from None


def _scope(notice: bool = True):
    """The command's scope (``optmem.scope.resolve``), decided once, first.
    Where git could not be asked which project this is (``Scope.problem``)
    a read says so on stderr, once (``notice``: False for a write, whose
    refusal says it, and for ``memo scope``, which prints it)."""
    ctx = click.get_current_context(silent=True)
    meta = ctx.meta if ctx is not None else {}
    if "optmem.scope" not in meta:
        from optmem.scope import resolve
        sc = meta["optmem.scope"] = resolve(meta.get("optmem.scope_flag"))
        if sc.problem and notice:
            click.echo(f"memo: {sc.unresolved_line()}", err=True)
    return meta["optmem.scope"]


def _explicit() -> bool:
    """Whether this run was given a scope flag (``--global``, ``--project``)."""
    return click.get_current_context().meta.get("optmem.scope_flag") is not None


def _store(path: str | None = None):
    """Open the store at ``path`` (default: the global store of the scope)."""
    from optmem.store.memory import Store
    store = Store.open(path or _scope().root)
    ctx = click.get_current_context(silent=True)
    if ctx is not None:
        ctx.call_on_close(lambda: _close(store))
    return store


def _stores(notice: bool = True):
    """The command's stores (``session.Stores``), each opened on first use
    and closed when the command ends; ``notice`` as for ``_scope`` (False
    for a write, whose refusal says what git could not be asked)."""
    from optmem import session
    return session.Stores(_scope(notice), _store, _explicit())


def _show(result) -> None:
    """Print a command's ``session.Result``: its lines on stdout, its notes
    on stderr, then exit with its code when that is not 0."""
    for line in result.lines:
        click.echo(line)
    for line in result.notes:
        click.echo(one_line(unechoed_argv(line)), err=True)
    if result.exit_code:
        sys.exit(result.exit_code)


def _close(store) -> None:
    """After a command: close the store and tell of any repair it made."""
    store.close()
    for line in store.notices:
        click.echo(f"memo: {line}", err=True)


def _engines() -> str:
    """One line: which of recall's optional engines this install has."""
    from optmem.recall import scancount, search
    counter = ("C counter built (optmem.recall._scan)" if scancount.available() else
               "no C counter (no C compiler at install; pure Python, slower counts)")
    re2 = ("google-re2 installed" if search.re2_module() is not None else
           "no google-re2 (the fast extra; rare words slower)")
    return f"recall: {counter}; {re2}"


def _version(ctx, param, value):
    if not value or ctx.resilient_parsing:
        return
    click.echo(f"memo, version {__version__}\n{_engines()}")
    ctx.exit()


@click.group(cls=MemoGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_version,
              help="Show the version and which recall engines are installed, and exit.")
@scoped
def cli():
    """memo: a permanent memory for AI agents (OptMem format).

    Set MEMORY_DIR to the store (required), run `memo init` once, then
    `memo wake` at the start of every session.
    """
    import warnings
    warnings.simplefilter("ignore")  # a user sees one-line answers, never warnings
    utf8_streams()


@cli.command()
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
    _show(session.init(project))


@cli.command()
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
    from optmem import session
    st = _stores()
    st.g  # noqa: B018 - opened first, as every command opens it
    if tp is not None and st.p is None:  # as click says it without projects
        raise click.UsageError(f"Got unexpected extra argument ({tp})")
    if max_bytes is not None:
        if part is not None or t is not None:
            raise BadInput("--max-bytes prints the whole memory as one part; drop PART "
                           "and T, or page through the parts instead. Run: memo wake")
        _show(session.wake(st, max_bytes=view.parse_count(max_bytes, "--max-bytes")))
        return
    k = view.parse_count(part, "PART") if part is not None else 1
    T = view.parse_count(t, "T") if t is not None else None
    TP = view.parse_count(tp, "TP") if tp is not None else None
    _show(session.wake(st, k, T, TP, strict=True))


@cli.command(cls=TextCommand)
@click.argument("text", nargs=-1, required=True)
@scoped
def note(text):
    """Record one memory: one line, at most ENTRY_CHARS bytes (`-` reads stdin).

    With a project active the memory goes to the project; --global sends a
    fact that would be true in any repository to the global memory.
    """
    from optmem import session
    _show(session.note(_stores(notice=False), lambda limit: text_arg(text, "memory", limit),
                       kept=keeping))


@cli.command(cls=TextCommand, heads=1)
@click.argument("block", required=False)
@click.argument("text", nargs=-1)
@click.option("--with", "with_cmd", metavar="CMD",
              help="For a person paying a backlog: run CMD (through sh) on each "
                   "prompt, in the foreground, and store what it prints.")
@scoped
def sleep(block, text, with_cmd):
    """Compress: show the next compression, or store LO-HI's summary TEXT.

    Answer each prompt until it prints `Nothing left to compress.`
    `memo nap` is the same command. TEXT `-` reads the line from stdin.
    `memo sleep -` answers a batched hand-over (MEMO_HANDOVER=batch): one
    `LO-HI <line>` per block on stdin, or one quoted argument each.

    With --with CMD memo runs CMD once per prompt (per batch with
    MEMO_HANDOVER=batch), prompt on its stdin; CMD prints the answer, which
    is checked like any summary. It stops at the first answer refused.

    With a project active the global memory's work comes first, then the
    project's; each order carries its --global or --project flag.
    """
    from optmem import session
    if with_cmd is not None:
        targets = session.pay_targets(_stores(notice=False), block, text)
        for k, target in enumerate(targets):
            _pay_with(target, with_cmd, last=k == len(targets) - 1)
        return
    st = _stores(notice=block is None)
    if block == "-":
        _show(session.sleep(st, batch=lambda: _batch_lines(text), kept=keeping))
        return

    def summary(limit):
        if not text:
            raise BadInput(f"give your summary line after the block, as the last lines of the "
                           f"compression prompt show. {protocol.run(protocol.Order('sleep'))}")
        return text_arg(text, "summary", limit)

    _show(session.sleep(st, block, summary if block is not None else None, kept=keeping,
                        strict=True))


def _batch_lines(items: tuple) -> list:
    """``memo sleep -``'s answer: one ``LO-HI <line>`` per quoted argument,
    else the lines on standard input."""
    if items:
        return [undo_surrogates(item) for item in items]
    lines = read_stdin("answer", "give one quoted 'LO-HI <line>' argument per block",
                       1 << 24, "a batch answer is one short line per block",
                       line_limit=STDIN_LIMIT).split("\n")
    return [line[:-1] if line.endswith("\r") else line for line in lines]


class _LateBar:
    """A progress bar on stderr that appears only once a second has passed
    (click's ``progressbar``; on a non-terminal it prints its label once)."""

    def __init__(self, label: str, counts: bool = True):
        import time
        self.label, self.start, self.bar, self.done = label, time.monotonic(), None, 0
        self.counts = counts  # show "done/total" (items), else a percentage (bytes)
        self._clock = time.monotonic

    def __call__(self, done: int, total: int) -> None:
        if self.bar is None:
            if self._clock() - self.start < 1.0:
                return
            self.bar = click.progressbar(length=max(total, 1), label=self.label,
                                         file=sys.stderr, show_pos=self.counts,
                                         show_percent=not self.counts)
            self.bar.__enter__()
        self.bar.update(max(0, min(done, total) - self.done))
        self.done = max(self.done, min(done, total))

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
            self.bar = None


def _pay_with(store, command: str, last: bool = True) -> None:
    """``memo sleep --with CMD``: pay every pending compression with CMD."""
    from optmem.engine import backlog
    bar = _LateBar("memo: paying compressions")

    def progress(saved, total):
        keeping(f"{saved:,} {'summary was' if saved == 1 else 'summaries were'} saved; "
                f"the same command goes on from there")
        bar(saved, total)

    try:
        paid = backlog.pay(store, command, progress=progress)
    finally:
        bar.close()
    if paid.saved:
        click.echo(f"Saved {paid.saved:,} {'summary' if paid.saved == 1 else 'summaries'} "
                   f"from {paid.runs:,} {'run' if paid.runs == 1 else 'runs'} of the command.")
    if last:
        click.echo(view.NOTHING_LEFT)


# ``nap`` is the later OptMem's word for ``sleep``: the same command; orders
# say ``sleep`` except in the ``nap`` form (``MEMO_ORDERS=nap``).
cli.add_command(TextCommand(
    "nap", heads=1, callback=sleep.callback, params=sleep.params,
    help="Another name for `memo sleep` (the later OptMem's word).",
    short_help="Another name for sleep."))


@cli.command(cls=TextCommand, one_word=True)
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
    from optmem import session
    _show(session.recall(_stores(), undo_surrogates(pattern), fixed, as_json))


@cli.command()
@click.argument("block")
@click.option("--dry-run", is_flag=True,
              help="Say how many summaries would go (each a compression to redo); "
                   "change nothing.")
@scoped
def forget(block, dry_run):
    """Drop the summary LO-HI and every one built on it (the log is untouched)."""
    from optmem import session
    view.block_arg(block)  # a block refused before the scope is read
    _show(session.forget(_stores(notice=False), block, dry_run))


def _spool_lines(source, sink) -> None:
    """Copy the import lines on standard input into ``sink`` (a spool file:
    the import reads its file twice), refusing (``BadInput``) as soon as a
    line is longer than ``core.IMPORT_LINE_LIMIT`` bytes, as a file's line
    is refused, so endless input without a newline never fills the disk."""
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


@cli.command("import", cls=FileCommand)
@click.argument("file", type=click.Path(dir_okay=True, allow_dash=True))
@click.option("--yes", is_flag=True, help="Import more than 10,000 memories (each one "
              "is about one compression, an agent turn).")
@scoped
def import_(file, yes):
    """Bootstrap from FILE: lines `YYYY-MM-DD text`, all or nothing (`-`: stdin).

    Before writing it says on stderr how many compressions the import
    creates; above 10,000 memories it asks for --yes. With a project active
    the lines go to the project (--global: the global memory).
    """
    from optmem import session
    from optmem.engine import backlog
    st = _stores(notice=False)
    store = session.import_store(st)
    keeping("nothing was imported")
    bar = _LateBar("memo: importing", counts=False)

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
    _show(result)


@cli.command(cls=FileCommand)
@click.argument("file", required=False, type=click.Path(dir_okay=False, allow_dash=True))
def export(file):
    """Write every memory as `YYYY-MM-DD text` lines (the import format).

    To standard output, or into FILE (a new file: never replaces one).
    `memo import` of an export into an empty store gives back the same log.
    """
    from optmem import session
    st = _stores()
    if file is None or file == "-":
        out = sys.stdout.buffer if hasattr(sys.stdout, "buffer") else None
        write = out.write if out is not None else (
            lambda data: sys.stdout.write(data.decode("utf-8")))
        session.export(st, None, write)
        if out is not None:
            out.flush()
        return
    _show(session.export(st, file))


@cli.command()
@click.argument("block", required=False)
@scoped
def zoom(block):
    """Open one line of wake: LO-HI's two halves (summaries, or raw memories)."""
    if block is None:  # exit 1, as the later OptMem: a client checks it
        raise BadInput("zoom needs a block id, as wake prints it (memo zoom 0-1, or one "
                       "memory: memo zoom 7). Run: memo wake")
    from optmem import session
    _show(session.zoom(_stores(), block, strict=True))


@cli.command("config")
@click.argument("settings", nargs=-1)
@click.option("--repair", is_flag=True, help="Comment out config lines that are not valid.")
@scoped
def config_(settings, repair):
    """Show the settings, or change them: NAME=VALUE (NAME= restores the default).

    The global store's, unless --project NAME names a project's."""
    from optmem import session
    _show(session.config(_stores(notice=not (settings or repair)), settings, repair))


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="One JSON object.")
@scoped
def stats(as_json):
    """Memories, summaries, pending work, bytes on disk and the wake shape.

    With a project active and no flag: the global memory, then the project's."""
    from optmem import session
    _show(session.stats(_stores(), as_json))


@cli.command()
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
    _show(session.check(_stores(notice=not repair), every, repair))


@cli.command()
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
    _show(session.redact(_stores(notice=False), memory_id, yes))


@cli.command("scope")
@scoped
def scope_(**_):
    """Say which memory this folder uses: the global store, the active
    project, how it was found and the remotes seen (reads only)."""
    from optmem import session
    _show(session.scope(_stores(notice=False)))


@cli.command()
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


@cli.group()
def hook():
    """What a harness runs; memo setup writes these commands for you."""


#: The harnesses ``memo hook session-start`` prints for (those with a hook).
HOOK_HARNESSES = ("claude", "codex", "gemini")


@hook.command("session-start")
@click.option("--harness", "harness_name", default="claude", type=click.Choice(HOOK_HARNESSES),
              help="Whose output shape to print (setup writes it).")
@click.option("--memory-dir", metavar="PATH", help="The store (default: MEMORY_DIR).")
@click.option("--max-bytes", metavar="N", help="Budget of the whole injected text "
              "(default: the harness's, under its cap).")
@click.option("--sync", "sync_first", is_flag=True, help="At startup and clear, fast-forward "
              "the store from its git upstream first (memo setup adds it where one is).")
def session_start(harness_name, memory_dir, max_bytes, sync_first):
    """Print the memory as the SessionStart JSON a harness injects (exit 0).

    Reads the harness's JSON on stdin (source: startup, resume, clear,
    compact). Always exits 0: a problem becomes a line in the context.
    """
    import json

    from optmem.harness import HARNESSES, inject
    module = HARNESSES.get(harness_name)
    if module is None or not hasattr(module, "hook_output"):
        module = HARNESSES["claude"]
    try:
        budget = view.parse_count(max_bytes, "--max-bytes") if max_bytes else None
        text = inject.context(module, hook_stdin(),
                              memory_dir if memory_dir is not None
                              else os.environ.get("MEMORY_DIR"), os.environ, budget,
                              sync=sync_first)
    except Exception as err:  # the hook never fails: the reason goes to the model
        text = inject.failure(f"memo hook failed ({type(err).__name__}: {err})")
    if text is not None:
        click.echo(json.dumps(module.hook_output(text), ensure_ascii=False))


@cli.command()
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


cli.add_command(replica_cmds.merge)
cli.add_command(replica_cmds.sync)
hook.add_command(replica_cmds.session_end)


def main() -> None:
    """Console entry point."""
    cli.main(prog_name="memo")

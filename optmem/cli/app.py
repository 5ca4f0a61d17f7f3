"""The ``memo`` command: the click group, its table of commands, and ``main``.

The group (``cli``, a ``MemoGroup``) knows its commands by name only
(``COMMANDS``: ``"module:attribute"``); a run imports and builds the one it
names, so ``memo wake`` pays for no other command's options or imports.
The commands live beside this module: ``wake_cmd``, ``note_cmd``,
``sleep_cmds`` (``sleep``, ``nap``) and ``recall_cmd`` each build only
themselves; ``store_cmds`` the other commands over one memory (``zoom``,
``forget``, ``stats``, ``config``, ``check``, ``redact``, ``scope``);
``person_cmds`` what a person runs to set up and move memories (``init``,
``import``, ``export``, ``setup``, ``mcp``); ``hook_cmds`` the ``hook``
group; ``replica_cmds`` ``merge``, ``sync`` and ``hook session-end``.
Each reads its arguments (``optmem.cli.argv``, ``optmem.cli.stdio``),
calls the session layer (``optmem.session``) or, for a person's commands,
the engine, and prints what it returns (``optmem.cli.base.show``: lines on
stdout, notes on stderr, its exit code). ``MemoGroup`` turns every failure
into one line on stderr in one place (``optmem.cli.render``): ``MemoError``
and ``OSError`` exit 1, usage errors exit 2, and nothing ever shows a
traceback. ``main`` runs the group; the console entry point
(``optmem.cli.start``) imports this module with the garbage collector
paused and calls it.
"""

from __future__ import annotations

import sys

import click

from optmem import __version__, commands, protocol
from optmem.cli.argv import scoped
from optmem.cli.base import ORDERS_BEFORE, LazyGroup
from optmem.cli.render import ARGV, MemoFailure, UsageFailure
from optmem.cli.stdio import (
    EXIT_PIPE,
    EXIT_SIGINT,
    EXIT_SIGTERM,
    Interrupted,
    PipeClosed,
    closed_streams,
    flush_stdout,
    kept,
    on_sigterm,
    output_failure,
    quiet_stdout,
    utf8_streams,
)
from optmem.errors import MemoError

#: What click 8.2 and later raise for a group run without a command (the
#: help as an error, exit 2); click 8.1 printed the help and exited 0, as
#: memo does on every version.
_NO_ARGS_IS_HELP = getattr(click.exceptions, "NoArgsIsHelpError", ())

#: Every command of ``memo``: its name and where it is built
#: (``"module:attribute"``), imported only when a run names it. The store
#: commands are rows of ``optmem.commands`` (their help, parameters and MCP
#: tool are there); the rest are a person's commands built here and below.
COMMANDS = {
    **{row.name: f"optmem.cli.{row.cli}" for row in commands.ROWS},
    "init": "optmem.cli.person_cmds:init",
    "setup": "optmem.cli.person_cmds:setup",
    "mcp": "optmem.cli.person_cmds:mcp",
    "hook": "optmem.cli.hook_cmds:hook",
    "merge": "optmem.cli.replica_cmds:merge",
    "sync": "optmem.cli.replica_cmds:sync",
}


class MemoGroup(LazyGroup):
    """The ``memo`` group: its commands imported on first use (``LazyGroup``),
    and one place that turns failures into one line."""

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
            except _NO_ARGS_IS_HELP as err:  # bare ``memo hook`` on click 8.2+: the help, exit 0
                click.echo(err.ctx.get_help())
                code = 0
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
            flush_stdout()
        except (BrokenPipeError, PipeClosed):
            quiet_stdout()
            code = EXIT_PIPE
        except OSError as err:  # the output's file failed at the last flush
            line = output_failure(err)
            if line is None:
                raise
            quiet_stdout()
            click.echo(f"memo: {line}", err=True)
            code = 1
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

    def invoke(self, ctx):
        ctx.meta[ORDERS_BEFORE] = protocol.rendered_orders()
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
            import errno
            if isinstance(err, OSError) and err.errno == errno.EPIPE:
                raise PipeClosed() from None
            line = output_failure(err)
            if line is not None:  # standard output, not the store: no store advice
                quiet_stdout()
                raise MemoFailure(line) from None
            from optmem.session import error_line  # the same words over MCP
            raise MemoFailure(error_line(err)) from None


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


@click.group(cls=MemoGroup, lazy=COMMANDS, context_settings={"help_option_names": ["-h", "--help"]})
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


def __getattr__(name: str):
    """A command's object by its attribute name (``optmem.cli.app.wake``),
    or ``HOOK_HARNESSES``, imported on first use, as when this module built
    them all; ``AttributeError`` for any other name."""
    if name == "HOOK_HARNESSES":
        from optmem.cli.hook_cmds import HOOK_HARNESSES
        return HOOK_HARNESSES
    for where in COMMANDS.values():
        module, _, attribute = where.partition(":")
        if attribute == name:
            __import__(module)
            return getattr(sys.modules[module], name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    """Run ``memo`` on ``sys.argv`` (called by ``optmem.cli.start.main``, the
    console entry point). Exits with the command's code (``SystemExit``)."""
    cli.main(prog_name="memo")

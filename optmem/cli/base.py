"""What every command of ``memo`` shares: the lazy group its commands sit in
(``LazyGroup``), the scope and stores it works on (``scope``, ``stores``),
and how it prints the ``session.Result`` it gets back (``show``)."""

from __future__ import annotations

import sys

import click

from optmem.cli.argv import QuickHelp
from optmem.cli.loading import import_paused
from optmem.cli.render import MemoFailure, one_line, unechoed_argv


class LazyGroup(QuickHelp, click.Group):
    """A click group that imports and builds each command on first use.

    ``lazy`` maps a command's name to ``"module:attribute"``, the click
    command (or group) of that name. Listing the names (``list_commands``)
    imports nothing; ``get_command`` imports the one module asked for, so
    ``memo wake`` builds the group and ``wake`` only. Commands added with
    ``add_command`` are served as in any group. A module is imported with
    the garbage collector paused (``loading.import_paused``), so a command
    module that imports what its command runs at its top (``session``)
    pays no collection for it. Where the module cannot be
    imported (an install missing a file, or one cut short), ``get_command``
    raises ``MemoFailure``: one line, exit 1. An unknown name is a usage
    error that suggests the nearest commands (``resolve_command``), and
    the help lists each command's first paragraph whole
    (``format_commands``), in every group of memo alike. Its help option
    is ``QuickHelp``'s.
    """

    def __init__(self, *args, lazy: dict | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy or {})

    def list_commands(self, ctx) -> list:
        """Every command's name, sorted; none is imported."""
        return sorted({*self.commands, *self.lazy})

    def get_command(self, ctx, cmd_name: str):
        """The command named ``cmd_name``, imported on first use, or None."""
        if cmd_name not in self.commands and cmd_name in self.lazy:
            module, _, attribute = self.lazy[cmd_name].partition(":")
            try:
                import_paused(module)  # what its import makes is frozen
            except Exception as err:  # missing, cut short, not Python: never a traceback
                raise MemoFailure(f"memo {cmd_name} cannot be loaded ({type(err).__name__}: "
                                  f"{err}); this install of memo is damaged: reinstall it"
                                  ) from None
            self.commands[cmd_name] = getattr(sys.modules[module], attribute)
        return self.commands.get(cmd_name)

    def all_commands(self, ctx=None) -> dict:
        """``{name: command}`` for every command that loads, each imported
        and built (for the help's list and the unknown-command hint: one
        damaged command's module hides no other; running it says why)."""
        out = {}
        for name in self.list_commands(ctx):
            try:
                out[name] = self.get_command(ctx, name)
            except MemoFailure:
                continue
        return out

    def resolve_command(self, ctx, args):
        """Find the command ``args[0]`` names. An unknown name is a usage
        error that suggests the nearest commands (``difflib``), the same on
        every click version (older ones suggest nothing)."""
        name = args[0] if args else ""
        if (isinstance(name, str) and name and not name.startswith("-")
                and self.get_command(ctx, name) is None):
            import difflib
            shown = [n for n, cmd in self.all_commands(ctx).items() if not cmd.hidden]
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
                for name, cmd in self.all_commands(ctx).items() if not cmd.hidden]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def scope(notice: bool = True):
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


def explicit() -> bool:
    """Whether this run was given a scope flag (``--global``, ``--project``)."""
    return click.get_current_context().meta.get("optmem.scope_flag") is not None


def open_store(path: str | None = None):
    """Open the store at ``path`` (default: the global store of the scope),
    closed when the command ends."""
    from optmem.store.memory import Store
    store = Store.open(path or scope().root)
    ctx = click.get_current_context(silent=True)
    if ctx is not None:
        ctx.call_on_close(lambda: close(store))
    return store


def stores(notice: bool = True):
    """The command's stores (``session.Stores``), each opened on first use
    and closed when the command ends; ``notice`` as for ``scope`` (False
    for a write, whose refusal says what git could not be asked)."""
    from optmem import session
    return session.Stores(scope(notice), open_store, explicit())


#: ``ctx.meta`` key: ``protocol.rendered_orders()`` when the command began
#: (``MemoGroup.invoke``), so ``show`` tells whether its output holds an order.
ORDERS_BEFORE = "optmem.orders_before"


def show(result) -> None:
    """Print a command's ``session.Result``: its lines on stdout, its notes
    on stderr, then exit with its code when that is not 0."""
    for line in result.lines:
        click.echo(line)
    for line in result.notes:
        click.echo(one_line(unechoed_argv(line)), err=True)
    from optmem import protocol
    ctx = click.get_current_context(silent=True)
    before = ctx.meta.get(ORDERS_BEFORE, 0) if ctx is not None else 0
    if protocol.rendered_orders() > before and result.lines:  # the output holds an order
        unknown = protocol.unknown_form_line()
        if unknown:
            click.echo(f"memo: {one_line(unknown)}", err=True)
    if result.exit_code:
        sys.exit(result.exit_code)


def close(store) -> None:
    """After a command: close the store and tell of any repair it made."""
    store.close()
    for line in store.notices:
        click.echo(f"memo: {line}", err=True)


class LateBar:
    """A progress bar on stderr that appears only once a second has passed
    (click's ``progressbar``; on a non-terminal it prints its label once).
    Called with ``(done, total)`` counts; ``counts`` shows them as
    ``done/total``, else as a percentage."""

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

"""How a failure reads on the command line: one line on stderr, never a
traceback. ``MemoFailure`` (exit 1, then the error's orders) and
``UsageFailure`` (exit 2) print it (the wording of a filesystem error is
the session layer's, ``optmem.session.oserror_line``); ``unechoed_argv``
keeps a credential typed as an argument out of it."""

from __future__ import annotations

import click


def one_line(text: str) -> str:
    """``text`` as one line, whatever a path or an argument inside it holds."""
    return text.replace("\r", "\\r").replace("\n", "\\n")


#: The words ``memo`` was run with (after ``memo``), for ``unechoed_argv``.
ARGV: list = []


def unechoed_argv(text: str) -> str:
    """``text`` with every argument a credential rule matches named by its
    position (``argument 2``) instead of repeated (``optmem.guard.unecho``)."""
    from optmem.guard.unecho import unechoed
    return unechoed(text, [(f"argument {pos}", word) for pos, word in enumerate(ARGV, 1)])


class MemoFailure(click.ClickException):
    """A failure: ``memo: <message>`` on stderr as one line, exit 1; then
    ``orders`` (``MemoError.orders``), each on its own line."""

    def __init__(self, message: str, orders=()):
        super().__init__(message)
        self.orders = tuple(orders)

    def show(self, file=None):
        click.echo(f"memo: {one_line(unechoed_argv(self.format_message()))}", err=True)
        for order in self.orders:
            click.echo(one_line(unechoed_argv(order)), err=True)


def sentence(text: str) -> str:
    """``text`` ending as one sentence ends: a full stop added unless it
    already ends with ``.``, ``?`` or ``!`` (never ``?.`` or ``..``)."""
    text = text.rstrip()
    return text if text.endswith((".", "?", "!")) else text + "."


class UsageFailure(click.UsageError):
    """A usage error as one line: ``memo: <what>. Run: memo <command> --help``
    on stderr, exit 2 (README "Errors"; click's own form takes four lines)."""

    def show(self, file=None):
        from optmem.protocol import Order
        words = self.ctx.command_path.split()[1:] if self.ctx else []
        what = unechoed_argv(self.format_message()).replace("\r", "\\r").replace(
            "\n", "\\n")
        if words == ["note"] and what.startswith("Missing argument 'TEXT"):
            what = ("the text of the note is missing: give it as one quoted argument, or add "
                    "- to read it from standard input (memo note - <<'MEMORY', then the "
                    "text and MEMORY on lines of their own)")
        # ``memo <command> --help``; the group's own: ``memo --help``
        help_order = Order(words[0], (*words[1:], "--help")) if words else Order("--help")
        click.echo(f"memo: {sentence(what)} {help_order.line()}", err=True)

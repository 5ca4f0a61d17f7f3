"""How a failure reads on the command line: one line on stderr, never a
traceback. ``MemoFailure`` (exit 1, then the error's orders) and
``UsageFailure`` (exit 2) print it; ``oserror_line`` words a filesystem
error; ``unechoed_argv`` keeps a credential typed as an argument out of it."""

from __future__ import annotations

import errno
import os

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


def oserror_line(err: OSError) -> str:
    """The one line for a filesystem error, naming the path. A path outside
    ``MEMORY_DIR`` (an export's FILE, an import's) is the user's to check:
    no store advice, and no ``memo check`` order that could not help."""
    if (err.errno == errno.ENOENT and cwd_gone()
            and not (isinstance(err.filename, str) and os.path.isabs(err.filename))):
        return ("the working directory no longer exists (it was deleted or moved), so "
                "memo cannot tell which folder it runs in; nothing was written. Change to "
                "a folder that exists and run the command again")
    store = os.environ.get("MEMORY_DIR", "")
    where = err.filename or store
    what = err.strerror or str(err)
    outside = bool(err.filename and store and isinstance(err.filename, str)
                   and not os.path.abspath(err.filename).startswith(
                       os.path.abspath(os.path.expanduser(store)).rstrip(os.sep) + os.sep))
    if outside and err.errno not in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT):
        return f"{where}: {what}; nothing was written there. Check the path and run the command again"
    if err.errno == errno.ELOOP and err.filename:  # a link in the store: never written through
        import shlex
        return (f"{where} is a link, and memo never writes through a link in its store; "
                f"nothing was half-written. Once it is moved away memo makes a new file. "
                f"A person can run: mv -- {shlex.quote(str(where))} "
                f"{shlex.quote(str(where) + '.link-moved')}")
    if err.errno in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT):
        hint = "free some space (or raise the file size limit) and run the command again"
    elif err.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        hint = "memo needs to read and write MEMORY_DIR; check its owner and mode"
    else:
        hint = "Run: memo check"
    return f"{where}: {what}; nothing was half-written. {hint}"


def cwd_gone() -> bool:
    """True when the working directory was deleted (or moved out of reach)."""
    try:
        os.getcwd()
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return False


def sentence(text: str) -> str:
    """``text`` ending as one sentence ends: a full stop added unless it
    already ends with ``.``, ``?`` or ``!`` (never ``?.`` or ``..``)."""
    text = text.rstrip()
    return text if text.endswith((".", "?", "!")) else text + "."


class UsageFailure(click.UsageError):
    """A usage error as one line: ``memo: <what>. Run: memo <command> --help``
    on stderr, exit 2 (README "Errors"; click's own form takes four lines)."""

    def show(self, file=None):
        path = " ".join(["memo", *(self.ctx.command_path.split()[1:] if self.ctx else [])])
        what = unechoed_argv(self.format_message()).replace("\r", "\\r").replace(
            "\n", "\\n")
        if path == "memo note" and what.startswith("Missing argument 'TEXT"):
            what = ("the text of the note is missing: give it as one quoted argument, or add "
                    "- to read it from standard input (memo note - <<'MEMORY', then the "
                    "text and MEMORY on lines of their own)")
        click.echo(f"memo: {sentence(what)} Run: {path} --help", err=True)

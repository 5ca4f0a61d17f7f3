"""The command's standard streams and signals: closed streams get
``/dev/null``, output is UTF-8 whatever the locale, a closed output pipe
ends quietly, SIGTERM unwinds like Ctrl-C and says what was kept, and text
read from standard input is bounded (``read_stdin``, ``text_arg``)."""

from __future__ import annotations

import io
import os
import sys

import click

from optmem.errors import BadInput

#: Exit statuses for a stop from outside (README "Interrupts and pipes"):
#: 128 + the signal's number, as a shell reports a process the signal ended.
EXIT_SIGINT, EXIT_SIGTERM, EXIT_PIPE = 130, 143, 141


class Interrupted(KeyboardInterrupt):
    """Raised by the SIGTERM handler (SIGINT raises ``KeyboardInterrupt``),
    so a stop unwinds through every ``finally`` (the store's append rolls
    back) and ends as one line saying what was kept."""

    signum = 15


def on_sigterm(signum, frame):
    raise Interrupted()


def kept(ctx) -> str:
    """What a stop keeps, as the running command last declared it."""
    return ctx.meta.get("optmem.kept", "nothing was changed") if ctx else "nothing was changed"


def keeping(what: str) -> None:
    """Declare what an interrupt at this point keeps (``nothing was imported``,
    ``memory #4 was saved``): the line a stop prints."""
    ctx = click.get_current_context(silent=True)
    if ctx is not None:
        ctx.meta["optmem.kept"] = what


class PipeClosed(Exception):
    """Standard output was closed by its reader (``memo recall x | head``);
    carried past click, which would turn it into a silent exit 1."""


def output_failure(err: BaseException) -> str | None:
    """When ``err`` is an ``OSError`` raised while writing standard output
    (``memo wake > /dev/full``: a full disk under the file it goes to, a
    file size limit, an I/O error), the one line that says so: the store is
    not the file that failed, so no store advice applies. Else None. Told
    by the innermost frame of ``err``'s traceback: click's ``echo``, a
    flush of ``sys.stdout`` itself (``flush_stdout``), or the whole write
    under ``whole_stdout`` (``atomic.write_all``)."""
    if not isinstance(err, OSError) or err.filename is not None:
        return None
    tb = err.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    code = tb.tb_frame.f_code if tb is not None else None
    ours = code is not None and (
        (code.co_name == "echo" and os.sep + "click" + os.sep in code.co_filename)
        or code.co_name == "flush_stdout")
    ours = ours or (code is not None and code.co_name == "write_all"
                    and code.co_filename.endswith(os.sep + "atomic.py"))
    if not ours:
        return None
    return (f"its output could not be written ({err.strerror or err}); what the command "
            f"saved in the store is kept, so a write (note, sleep) is done and must not run "
            f"again. To read the output, send it where it can be written (a disk with free "
            f"space, the terminal)")


def flush_stdout() -> None:
    """Flush ``sys.stdout`` (at the end of a command); an ``OSError`` it
    raises is told apart by ``output_failure``."""
    sys.stdout.flush()


def quiet_stdout() -> None:
    """After a closed output pipe: point stdout at /dev/null so the flush at
    exit cannot fail again (and print nothing)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def closed_streams() -> None:
    """Give a closed standard stream (``memo note x >&-``) ``/dev/null``.

    Run before any file is opened: a closed fd 0, 1 or 2 would otherwise be
    the number the next ``open`` returns, so a store file could become the
    "stdout" a child process (``sleep --with``) writes into. Python starts
    with ``sys.stdout``/``sys.stderr`` set to ``None`` for a closed fd; they
    get a stream on ``/dev/null``, so the command runs to the end and its
    output is dropped, as a reader that closed it asked. ``sys.stdin`` stays
    ``None``: reading a closed stdin is refused as "standard input is
    closed" (``open_stdin``).
    """
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            try:
                got = os.open(os.devnull, os.O_RDONLY if fd == 0 else os.O_WRONLY)
                if got != fd:
                    os.dup2(got, fd)
                    os.close(got)
            except OSError:
                pass
    for name in ("stdout", "stderr"):
        if getattr(sys, name) is None:
            try:
                setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))
            except OSError:
                pass


def whole_stdout() -> None:
    """Point ``sys.stdout`` at descriptor 1 through ``atomic.WholeWrites``
    (UTF-8, the buffering it had), when it is the process's own standard
    output on descriptor 1 (a test's captured stream is left alone), so
    ``memo wake > file`` on a disk that fills mid-write fails as one line
    (``output_failure``) instead of ending 0 with its output cut."""
    from optmem.atomic import WholeWrites
    old = sys.stdout
    try:
        if old is None or old is not sys.__stdout__ or old.fileno() != 1:
            return
        old.flush()
    except (AttributeError, OSError, ValueError):
        return
    sys.stdout = io.TextIOWrapper(io.BufferedWriter(WholeWrites(1)), encoding="utf-8",
                                  errors="replace", line_buffering=old.line_buffering)


def utf8_streams() -> None:
    """Write UTF-8 whatever the locale or PYTHONIOENCODING (docs/protocol.md),
    and standard output in whole writes (``whole_stdout``)."""
    whole_stdout()
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(encoding="utf-8", errors="replace")
            except (ValueError, OSError):
                pass


def undo_surrogates(text: str) -> str:
    """Arguments decoded under a non-UTF-8 locale carry raw bytes as
    surrogates: read them as UTF-8 when they are (what is not stays, and the
    write guard refuses it)."""
    if any("\udc80" <= ch <= "\udcff" for ch in text):
        try:
            return os.fsencode(text).decode("utf-8")
        except (UnicodeError, ValueError):
            return text
    return text


#: Most bytes read for a note or summary on stdin: far above any record, so a
#: longer input is refused as "over STDIN_LIMIT bytes" without reading on.
STDIN_LIMIT = 1 << 16


def open_stdin(what: str, instead: str = ""):
    """The binary standard input, after a one-line hint on stderr when it is a
    terminal (a person typing); ``BadInput`` when it is closed."""
    stream = sys.stdin
    if stream is None or getattr(stream, "closed", False):
        raise BadInput(f"standard input is closed; {instead or f'give the {what} as an argument'}"
                       f", or pipe it in")
    try:
        if stream.isatty():
            click.echo(f"memo: reading the {what} from the terminal; end it with Enter "
                       f"and Ctrl-D", err=True)
    except (ValueError, OSError):
        pass
    return getattr(stream, "buffer", None)


def read_stdin(what: str, instead: str, limit: int, too_long: str,
                line_limit: int | None = None) -> str:
    """All of standard input as text, for a ``-`` argument.

    At most ``limit`` bytes are read: longer input is refused as "over
    ``limit`` bytes" followed by ``too_long``; with ``line_limit``, so is a
    line of more than ``line_limit`` bytes. A UTF-8 BOM is dropped.
    ``instead`` says what to do when stdin is closed or unreadable. Raises
    ``BadInput`` (closed, unreadable, too long, not UTF-8).
    """
    buffer = open_stdin(what, instead)
    try:
        data = (buffer.read(limit + 1) if buffer is not None
                else sys.stdin.read(limit + 1).encode("utf-8", "surrogateescape"))
    except OSError as err:
        raise BadInput(f"standard input cannot be read ({err.strerror}); "
                       f"{instead or f'give the {what} as an argument'}") from None
    if len(data) > limit:
        raise BadInput(f"the {what} on standard input is over {limit} bytes; {too_long}")
    if line_limit is not None and len(data) > line_limit and \
            max(map(len, data.split(b"\n"))) > line_limit:
        raise BadInput(f"the {what} on standard input has a line over {line_limit} bytes; "
                       f"{too_long}")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise BadInput(f"the {what} on standard input is not UTF-8 text") from None


def text_arg(words: tuple, what: str, limit: int) -> str:
    """The text of a note or summary: the words joined, or stdin for ``-``.

    Standard input may be closed (refused), empty (the core refuses an empty
    text), a terminal (a hint on stderr first) or longer than
    ``STDIN_LIMIT`` bytes (refused, saying so and naming ``limit``, the
    ``ENTRY_CHARS`` in force). Raises ``BadInput``.
    """
    if words == ("-",):
        text = read_stdin(what, "", STDIN_LIMIT,
                           f"the limit is {limit} bytes (ENTRY_CHARS) and a {what} is "
                           f"one line: keep the fact, cut the rest")
        if text.endswith("\n"):
            text = text[:-1]
            if text.endswith("\r"):
                text = text[:-1]
        return text
    return undo_surrogates(" ".join(words))


def hook_stdin(limit: int = 1 << 20, wait: float = 5.0) -> str:
    """The harness's JSON on stdin: at most ``limit`` bytes, given up after
    ``wait`` seconds of silence; empty for a terminal or closed stdin."""
    stream = sys.stdin
    if stream is None or stream.isatty():
        return ""
    try:
        fd = stream.fileno()
    except (OSError, ValueError, AttributeError):  # not a real file (tests)
        return stream.read(limit) if hasattr(stream, "read") else ""
    import select
    chunks, size = [], 0
    while size < limit:
        ready, _, _ = select.select([fd], [], [], wait)
        if not ready:
            break
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks).decode("utf-8", "replace")

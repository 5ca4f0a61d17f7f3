"""How a failed command reads, in both front ends: the ``memo: ...`` line
of any failure (``failure_lines``), a filesystem error's advice naming the
path (``oserror_line``), and the line of an unexpected one (``error_line``)."""

from __future__ import annotations

import errno
import os

from optmem import protocol
from optmem.errors import MemoError


def cwd_gone() -> bool:
    """True when the working directory was deleted (or moved out of reach)."""
    try:
        os.getcwd()
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return False


def oserror_line(err: OSError) -> str:
    """The one line for a filesystem error, naming the path, in both front
    ends: a deleted working directory, a full disk, a permission, a link in
    the store each get their own advice. A path outside ``MEMORY_DIR`` (an
    export's FILE, an import's) is the user's to check: no store advice,
    and no ``memo check`` order that could not help."""
    if isinstance(getattr(err, "line", None), str):  # atomic.NotRegular: the whole line
        return err.line  # type: ignore[attr-defined]
    if err.errno == errno.EISDIR and isinstance(err.filename, str):
        return (f"{err.filename} is a directory where memo keeps a file; nothing was "
                f"half-written. Once it is moved away memo makes a new file. "
                f"{protocol.move_aside(err.filename, err.filename + '.moved')}")
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
        return (f"{where} is a link, and memo never writes through a link in its store; "
                f"nothing was half-written. Once it is moved away memo makes a new file. "
                f"{protocol.move_aside(str(where), str(where) + '.link-moved')}")
    if err.errno in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT):
        hint = "Free some space (or raise the file size limit) and run the command again"
    elif err.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        hint = "memo needs to read and write MEMORY_DIR: check its owner and mode"
    else:
        hint = protocol.run(protocol.Order("check"))
    return f"{where}: {what}; nothing was half-written. {hint}"


def error_line(err: BaseException) -> str:
    """The one line (without ``memo: ``) of a failure that is no
    ``MemoError``, as both front ends say it."""
    if isinstance(err, OSError):
        return oserror_line(err)
    if isinstance(err, RecursionError):
        return "the input is too deeply nested to handle; simplify it"
    if isinstance(err, MemoryError):
        return "out of memory; the input is too large"
    from optmem import deps
    if deps.is_bytecode_damage(err):  # a cache file cut short by a full disk: removed
        return deps.bytecode_line(deps.remove_damaged_bytecode())
    return (f"internal error ({type(err).__name__}: {err}); nothing was half-written. "
            f"{protocol.run(protocol.Order('check'))}, and please report this")


def failure_lines(err: BaseException) -> list:
    """The lines of a failed command, as both front ends say them: ``memo:
    `` and the one line (``str(err)`` of a ``MemoError``, ``error_line``
    of any other failure), then the error's ``orders``, one per line."""
    if isinstance(err, MemoError):
        return ["memo: " + str(err), *err.orders]
    return ["memo: " + error_line(err)]

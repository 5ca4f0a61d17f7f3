"""The one way memo replaces a file whole: write a temporary file beside
it, fsync, rename over it. A reader sees the old file or the new one, never
half; on any failure the temporary file is removed and the old file stays.
It is also the one way memo opens a file it reads: only a regular file
(``open_regular``), so a FIFO, socket or device never makes it wait; and
the one way it writes bytes to a descriptor: whole (``write_all``,
``WholeWrites``), never a write that stops short unnoticed."""

from __future__ import annotations

import errno
import io
import os
import stat

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def write_all(fd: int, data) -> int:
    """Write every byte of ``data`` (bytes-like) to descriptor ``fd`` at its
    offset; returns the length in bytes. ``os.write`` may stop short (a disk
    that fills mid-write, a file size limit) and the next call then raises:
    this loops until all is written or raises that ``OSError``, so a file is
    never cut short unnoticed."""
    view = memoryview(data).cast("B")
    done = 0
    while done < len(view):
        wrote = os.write(fd, view[done:])
        if wrote <= 0:  # no progress and no error: never loop for ever
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        done += wrote
    return done


class WholeWrites(io.RawIOBase):
    """A descriptor as a raw stream whose ``write`` is ``write_all``: under
    ``io.BufferedWriter`` every byte given reaches the file or an
    ``OSError`` is raised. (CPython's buffered writer drops what a short
    write left of a chunk larger than its buffer, and reports success.)
    Closing the stream leaves the descriptor open."""

    def __init__(self, fd: int):
        super().__init__()
        self._fd = fd

    def fileno(self) -> int:
        return self._fd

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return os.isatty(self._fd)

    def write(self, data) -> int:
        """``write_all(fd, data)``: the length of ``data`` in bytes."""
        return write_all(self._fd, data)


def replace_file(path: str, data: bytes, mode: int = 0o600, tmp: str | None = None,
                 dir_fd: int | None = None, sync_dir: bool = False) -> None:
    """Replace ``path`` with ``data`` (bytes), file mode ``mode``.

    ``tmp`` is the temporary file's name (a fixed name a lock holder uses;
    one left by a crash is removed first); None picks a fresh name beside
    ``path`` (``.<name>.optmem-<random>``). The temporary file is created
    new and never through a link. With ``dir_fd`` both names are relative to
    that open folder. ``sync_dir`` also fsyncs the folder after the rename
    (``dir_fd`` or ``path``'s folder), so the rename itself is durable.
    Raises ``OSError`` as the system does (disk full, permission); nothing
    is left behind then.
    """
    folder, name = os.path.split(path)
    if tmp is None:
        tmp = os.path.join(folder, f".{name}.optmem-{os.urandom(6).hex()}")
    elif os.path.lexists(tmp) if dir_fd is None else _exists_at(tmp, dir_fd):
        os.unlink(tmp, dir_fd=dir_fd)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600, dir_fd=dir_fd)
    try:
        try:
            write_all(fd, data)
            os.fsync(fd)
            if mode != 0o600:
                os.fchmod(fd, mode)
        finally:
            os.close(fd)
        os.replace(tmp, path, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        try:
            os.unlink(tmp, dir_fd=dir_fd)
        except OSError:
            pass
        raise
    if sync_dir:
        sync_folder((folder or ".") if dir_fd is None else dir_fd)


def sync_folder(folder) -> None:
    """fsync a folder (a path, or an open descriptor), so the names created
    or renamed in it last; a filesystem that cannot is left as it is."""
    try:
        fd = os.open(folder, os.O_RDONLY) if isinstance(folder, str) else folder
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        if isinstance(folder, str):
            os.close(fd)


def _exists_at(name: str, dir_fd: int) -> bool:
    try:
        os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return True


class NotRegular(OSError):
    """``path`` is not a regular file (a FIFO, socket, device or folder)
    where memo reads one. ``str(err)`` and ``line`` are the one line for a
    user: what it is, and a person's ``mv`` that moves it away."""

    def __init__(self, path: str, kind: str):
        from optmem import protocol
        self.line = (f"{path} is a {kind}, not a regular file, so memo does not open it. "
                     f"{protocol.move_aside(path, path + '.moved')}")
        super().__init__(0, self.line, path)

    def __str__(self):
        return self.line


def kind_of(mode: int) -> str:
    """What a file of ``st_mode`` ``mode`` is, in words ("FIFO", "socket", ...)."""
    if stat.S_ISFIFO(mode):
        return "FIFO"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISDIR(mode):
        return "directory"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    if stat.S_ISLNK(mode):
        return "symbolic link"
    return "special file"


def open_regular(path: str, follow: bool = True, dir_fd: int | None = None,
                 append: bool = False) -> int:
    """A read-only descriptor of ``path`` when it is a regular file (with
    ``append``: write-only, appending, created 0600 when absent).

    Opened with ``O_NONBLOCK`` (a FIFO never blocks the open; the flag is
    cleared again for a regular file) and, with ``follow`` False,
    ``O_NOFOLLOW`` (a symbolic link is refused, ``OSError`` ELOOP). Raises
    ``NotRegular`` for a FIFO, socket, device or folder, and ``OSError``
    as the system does otherwise (``FileNotFoundError`` when absent).
    """
    flags = getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    flags |= (os.O_WRONLY | os.O_CREAT | os.O_APPEND) if append else os.O_RDONLY
    if not follow:
        flags |= _NOFOLLOW
    try:
        fd = os.open(path, flags, 0o600, dir_fd=dir_fd)
    except OSError as err:
        try:  # a socket cannot be opened at all (ENXIO): name what it is
            st = os.stat(path, dir_fd=dir_fd, follow_symlinks=follow)
        except OSError:
            raise err from None
        if not stat.S_ISREG(st.st_mode) and not stat.S_ISLNK(st.st_mode):
            raise NotRegular(path, kind_of(st.st_mode)) from None
        raise
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegular(path, kind_of(mode))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_file(path: str, mode: str = "rb", encoding: str | None = None, follow: bool = True):
    """``open(path, mode)`` for reading (``"rb"`` or ``"r"``), through
    ``open_regular``: the same errors, a file object to use in ``with``."""
    fd = open_regular(path, follow=follow)
    try:
        return os.fdopen(fd, mode, encoding=encoding)
    except BaseException:
        os.close(fd)
        raise

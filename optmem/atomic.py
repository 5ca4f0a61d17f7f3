"""The one way memo replaces a file whole: write a temporary file beside
it, fsync, rename over it. A reader sees the old file or the new one, never
half; on any failure the temporary file is removed and the old file stays."""

from __future__ import annotations

import os

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


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
            view = memoryview(data)
            while view:
                n = os.write(fd, view)
                if n <= 0:
                    raise OSError(28, "No space left on device")
                view = view[n:]
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

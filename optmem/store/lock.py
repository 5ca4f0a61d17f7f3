"""The store lock: every write holds ``.lock`` (``filelock``, over
``flock``); ids are assigned under it. ``acquire`` takes it or says in one
line why it cannot: held too long by another memo (``Busy``), or a
filesystem without file locks (``MemoError``)."""

from __future__ import annotations

import errno
import os
from typing import Any

from optmem.errors import Busy, MemoError

LOCK_TIMEOUT = 60.0  #: seconds a writer waits for the lock before giving up

#: What ``flock`` answers on a filesystem without lock support: no waiting
#: can help, so a write says so at once.
NO_LOCK_ERRNOS = frozenset(e for e in (errno.ENOLCK, errno.ENOSYS,
                                       getattr(errno, "EOPNOTSUPP", None)) if e)

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def acquire(lock_path: str, timeout: float | None = None) -> Any:
    """Take the lock at ``lock_path``; return the held ``filelock.FileLock``
    (the caller releases it). Waits up to ``timeout`` seconds (default
    ``LOCK_TIMEOUT``), then raises ``Busy``; raises ``MemoError`` when
    filelock is not installed or the filesystem cannot lock files."""
    try:  # only writers pay for the import
        from filelock import FileLock, Timeout
    except ImportError:
        from optmem.deps import install_command
        from optmem.protocol import person_can_run
        raise MemoError(f"the Python package filelock is missing; a person installs it. "
                        f"{person_can_run(install_command(['filelock']))}") from None
    _check_support(lock_path)
    lock = FileLock(lock_path, mode=0o600,
                    timeout=LOCK_TIMEOUT if timeout is None else timeout)
    try:
        lock.acquire()
    except NotImplementedError:  # filelock 3.x: flock is ENOSYS here
        raise MemoError(no_locks_line(lock_path, "flock is not implemented")) from None
    except Timeout:  # first: filelock's Timeout is a TimeoutError, an OSError
        waited = LOCK_TIMEOUT if timeout is None else timeout
        raise Busy(f"another memo has held {lock_path} for {waited:g} s, so nothing was "
                   f"written; wait for it to finish, then run the command again") from None
    except OSError as err:
        if err.errno in NO_LOCK_ERRNOS:
            raise MemoError(no_locks_line(lock_path, err.strerror or str(err))) from None
        raise
    return lock


def no_locks_line(lock_path: str, why: str) -> str:
    """The one line for a filesystem that cannot lock files."""
    return (f"{lock_path}: the filesystem under MEMORY_DIR does not support file "
            f"locks ({why}), so no write can be made safely; nothing was written. "
            f"A person moves MEMORY_DIR to a filesystem with locks (a local disk)")


def _check_support(lock_path: str) -> None:
    """Raise ``MemoError`` at once when ``flock`` cannot work on the
    store's filesystem (``ENOLCK``, ``ENOSYS``, ``EOPNOTSUPP``): filelock
    would otherwise fall back to a marker file, and a lock file left by
    an earlier write would then look held for ``LOCK_TIMEOUT`` seconds.
    A lock held by another process (``EWOULDBLOCK``) passes: it works."""
    try:
        import fcntl
    except ImportError:  # not POSIX: filelock uses the system's own locks
        return
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | _NOFOLLOW, 0o600)
    except OSError:
        return  # filelock's own open names the problem
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as err:
        if err.errno in NO_LOCK_ERRNOS:
            raise MemoError(no_locks_line(lock_path, err.strerror or str(err))) from None
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)

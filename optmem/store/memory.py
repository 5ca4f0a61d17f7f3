"""The fixed-width record store: the only code that touches the files.

Layout of ``$MEMORY_DIR`` (docs/format.md; byte-compatible with the
reference OptMem):

- ``LOG.txt``: memory ``i`` is the 320-byte record at offset ``i*320``:
  ``#<i> <YYYY-MM-DD> <text>`` in UTF-8, right-padded with spaces to 319
  bytes, then ``\\n``. Append-only.
- ``TREE/<s>``: for each block size ``s`` (2, 4, 8, ...), record ``k`` at
  offset ``k*288`` is the summary of memories ``[k*s, (k+1)*s)``, padded to
  287 bytes, then ``\\n``. Each file is a dense prefix of its level.
- ``config``: optional ``NAME=VALUE`` knobs (``optmem.store.config``).
- ``.lock``: taken (``filelock``) by every write; ids are assigned under it.
- ``recovered.txt``: the bytes of a torn last record, kept when it is cut.
- ``.append``: this tool's journal of an append in flight: the log size
  before and after, the offset of the batch being written and a short
  digest of each of its records. A crash mid-append leaves it behind; the
  next writer rolls the unacknowledged bytes back, so ``import`` is all or
  nothing even across a crash, but only while every record after the
  start is one this append wrote: records another tool appended after the
  crash are never removed (the interrupted append is then kept, and noted
  in ``.append.kept`` for ``memo check``). The reference tool ignores both.

Reads take no lock and only ever look at whole records (``size // width``).
Writes hold the lock, repair a torn tail that is verifiably an unfinished
append, write, and ``fsync``. Files are created 0600, directories 0700.
"""

from __future__ import annotations

import os
import stat as stat_mod
from contextlib import contextmanager
from typing import Iterable, Iterator

from optmem import atomic, blocks, protocol
from optmem.errors import Blank, ConfigError, Damaged, MemoError, NoStore, NotBuilt
from optmem.protocol import Order
from optmem.store import journal as appends  # the append journal (a local name here)
from optmem.store.config import Config
from optmem.store.config import parse as parse_config
from optmem.store.config import render as render_config
from optmem.store.config import update as update_config_text
from optmem.store.records import (  # noqa: F401 - the names readers of a store import from here
    BLANK,
    CONFIG_NAME,
    GIT_NAMES,
    JOURNAL_NAME,
    KEPT_NAME,
    LOCK_NAME,
    LOG_NAME,
    LOG_RECORD,
    LT_FOLDS,
    RECOVERED_NAME,
    REDACTED,
    SALT_BYTES,
    SALT_NAME,
    TREE_NAME,
    TREE_RECORD,
    Memory,
    check_record,
    date_shaped,
    decode_memory,
    digest,
    displayable,
    encode_memory,
    encode_summary,
    head_date,
    is_date,
    memory_of,
    memory_record,
    permission,
    problem_in_memory,
    problem_in_summary,
    read_at,
    record_digest,
    restored_record,
    unreadable,
)


def log_lost(store: Store) -> str | None:
    """When ``store`` has no ``LOG.txt`` but its ``TREE/`` levels hold
    summaries (a log moved or lost: a sync tool, a partial restore), the
    line that says so; else None. Neither wake's "No memory" nor ``memo
    init`` fits then: an empty log beside the summaries would be a second
    identity in the old one's folder."""
    records = 0
    try:
        names = os.listdir(store.tree_path)
    except OSError:
        return None
    for name in names:
        if name.isdigit():
            try:
                records += os.lstat(os.path.join(store.tree_path, name)).st_size // TREE_RECORD
            except OSError:
                continue
    if not records:
        return None
    return (f"{store.log_path} is missing, though {store.tree_path} holds {records} "
            f"summar{'y' if records == 1 else 'ies'}: this memory's log was moved or lost (a "
            f"sync tool, a partial restore), and memo init would start an empty memory beside "
            f"them; nothing was changed. A person puts {LOG_NAME} back from a copy (a sync "
            f"tool's conflict copy, a backup, git history), or moves {TREE_NAME} out of the "
            f"folder to start a new memory there")


class Store:
    """One memory store at ``root`` (an existing directory).

    Open it with ``Store.open(path)``; ``init(path)`` makes a new one.
    Methods raise ``NoStore`` for a missing store, ``Damaged`` for a record
    that cannot be read (naming the file, the position and the command that
    recovers), ``Busy`` when the lock cannot be had, ``ConfigError`` for a
    bad ``config``, and ``OSError`` (the CLI names its path) for the rest.
    """

    def __init__(self, root: str) -> None:
        self.root = root
        self.log_path = os.path.join(root, LOG_NAME)
        self.tree_path = os.path.join(root, TREE_NAME)
        self.config_path = os.path.join(root, CONFIG_NAME)
        self.lock_path = os.path.join(root, LOCK_NAME)
        self.journal_path = os.path.join(root, JOURNAL_NAME)
        self.recovered_path = os.path.join(root, RECOVERED_NAME)
        self.salt_path = os.path.join(root, SALT_NAME)
        self.notices: list = []  #: lines for the user about repairs done (stderr)
        self._log_fd: int | None = None
        self._level_fds: dict = {}  #: size -> read handle of TREE/<size>
        self._seen_size = 0  #: the log size last seen (a cheap bound for reads)
        self._config: Config | None = None
        self._held = 0  #: how deep this object holds the lock (``locked``)

    # -- opening ---------------------------------------------------------

    @classmethod
    def open(cls, root: str) -> "Store":
        """Open an existing store at ``root`` (an absolute path; see
        ``optmem.scope``). Raises ``NoStore`` saying what is wrong with the
        path (missing, a broken link named with its target, a file, not a
        store, or no permission for this user); no message orders
        ``memo init``: creating a store is a person's step."""
        if not root:
            from optmem.store.paths import check_memory_dir
            check_memory_dir(root)  # raises: not set
        from optmem.protocol import no_memory
        try:
            st = os.stat(root)
        except FileNotFoundError:
            if os.path.islink(root):
                raise NoStore(f"MEMORY_DIR {root} is a link to {os.readlink(root)}, which "
                              f"does not exist; check the path") from None
            raise NoStore(no_memory(root)) from None
        except PermissionError:
            raise NoStore(permission(root)) from None
        except OSError as err:
            raise NoStore(f"cannot open the memory store {root}: {err.strerror}; "
                          f"check MEMORY_DIR") from None
        if not stat_mod.S_ISDIR(st.st_mode):
            raise NoStore(f"MEMORY_DIR {root}: Not a directory (it is a file, not a memory "
                          f"store); check the path")
        store = cls(root)
        try:
            os.lstat(store.log_path)
        except FileNotFoundError:
            # An existing directory without a log is not a store either: an
            # unmounted mount point or a folder not synced yet looks like one,
            # and starting a memory there would fork the identity.
            ours = {TREE_NAME, CONFIG_NAME, LOCK_NAME, CONFIG_NAME + ".tmp", *GIT_NAMES}
            try:
                others = set(os.listdir(root)) - ours
            except OSError:
                others = set()
            if others:  # someone's files: memo init would refuse there too
                raise NoStore(f"No memory at {root} (MEMORY_DIR): {root} has no {LOG_NAME}, "
                              f"so it is not a memory store; check MEMORY_DIR (a new store "
                              f"goes in an empty or new directory)") from None
            lost = log_lost(store)
            if lost:
                raise NoStore(lost) from None
            raise NoStore(no_memory(root)) from None
        except PermissionError:
            raise NoStore(permission(root)) from None
        if not os.path.isfile(store.log_path):
            raise Damaged(f"{store.log_path} is not a regular file (a directory or a "
                          f"broken link?); a person puts the log back there from a copy, and memo "
                          f"check then says whether the store is whole")
        if not os.access(store.log_path, os.R_OK):
            raise NoStore(permission(store.log_path))
        return store

    @classmethod
    def init(cls, root: str) -> tuple:
        """Create the store at ``root`` (parents too); return ``(store, created)``.

        On an existing store nothing is changed (``created`` is False). The
        directory is 0700, ``LOG.txt`` and the commented ``config`` are 0600.
        """
        if not root:
            from optmem.store.paths import check_memory_dir
            check_memory_dir(root)  # raises: not set
        if os.path.islink(root) and not os.path.exists(root):
            raise NoStore(f"MEMORY_DIR {root} is a link to {os.readlink(root)}, which does "
                          f"not exist; check the path (memo init does not follow a broken "
                          f"link)")
        if os.path.lexists(root) and not os.path.isdir(root):
            raise NoStore(f"MEMORY_DIR {root}: Not a directory (it is a file); choose "
                          f"another path")
        store = cls(root)
        if os.path.lexists(store.log_path):
            return store, False  # an existing store: not one byte changes
        # A store's own names: another ``memo init`` may be making them right
        # now, ``LOG.txt`` last (after the look above, before this listing);
        # under the lock below that store is found, and nothing changes.
        lost = log_lost(store)
        if lost:  # an empty log beside them would be a second identity
            raise NoStore(lost)
        ours = {LOG_NAME, TREE_NAME, CONFIG_NAME, LOCK_NAME, CONFIG_NAME + ".tmp", *GIT_NAMES}
        if os.path.isdir(root) and set(os.listdir(root)) - ours:
            raise NoStore(f"{root} is not empty and has no {LOG_NAME}; choose an empty "
                          f"or new directory for MEMORY_DIR, then run memo init again")
        os.makedirs(root, mode=0o700, exist_ok=True)
        with store.locked(repair=False):  # parallel inits: one creates, the rest see it
            if os.path.lexists(store.log_path):
                return store, False
            os.chmod(root, 0o700)
            os.makedirs(store.tree_path, mode=0o700, exist_ok=True)
            os.chmod(store.tree_path, 0o700)
            if not os.path.lexists(store.config_path):
                store._write_new(store.config_path, render_config({}).encode("utf-8"))
            store._write_new(store.log_path, b"")
            store._fsync_dir(root)
        return store, True

    @staticmethod
    def _write_new(path: str, data: bytes) -> None:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            atomic.write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)

    # -- config ----------------------------------------------------------

    def _config_text(self) -> str | None:
        """The raw ``config`` text, or None when the file is absent.

        Bytes that are not UTF-8 are kept as surrogate escapes (PEP 383): a
        line without ``=`` is ignored as the reference ignores it, a value is
        refused naming ``memo config --repair``, and a rewrite gives every
        byte back. A file over 1 MiB is refused (``ConfigError``): it is no
        config file, and a rewrite must never drop what was not read.
        """
        try:
            st = os.stat(self.config_path)
        except FileNotFoundError:
            return None
        except OSError as err:
            raise ConfigError(f"{self.config_path} cannot be read ({err.strerror}); once it is "
                              f"moved out of the store memo uses the defaults. "
                              f"{self.move_aside(self.config_path)}") from None
        if not stat_mod.S_ISREG(st.st_mode) and not stat_mod.S_ISDIR(st.st_mode):
            raise ConfigError(f"{self.config_path} is not a regular file; once it is moved out of "
                              f"the store memo uses the defaults. {self.move_aside(self.config_path)}")
        try:
            with atomic.open_file(self.config_path) as f:
                raw = f.read((1 << 20) + 1)
        except FileNotFoundError:
            return None
        except IsADirectoryError:
            raise ConfigError(f"{self.config_path} is a directory, not a config file; once it is "
                              f"moved out of the store memo uses the defaults. "
                              f"{self.move_aside(self.config_path)}") from None
        if len(raw) > 1 << 20:  # not a config file; a rewrite would drop the rest
            raise ConfigError(f"{self.config_path} is over 1 MiB, not a config file; once it is "
                              f"moved out of the store memo uses the defaults. "
                              f"{self.move_aside(self.config_path)}")
        return raw.decode("utf-8", "surrogateescape")

    def config_values(self) -> dict:
        """The knobs set in ``config`` (``{}`` when the file is absent)."""
        text = self._config_text()
        return {} if text is None else parse_config(text, self.config_path)

    def config_idle_lines(self) -> list:
        """``config.idle_lines`` of the ``config`` file: a line each for the
        lines that set nothing (``[]`` when the file is absent)."""
        from optmem.store.config import idle_lines
        text = self._config_text()
        return [] if text is None else idle_lines(text, self.config_path)

    #: The scope flag that names this store on the command line, set by whoever
    #: opened it as one store of a selection (``scope.Selection.flag``:
    #: ``--project NAME``, ``--global`` while a project is active; empty where
    #: no flag is needed): the orders its errors end with carry it.
    scope_flag = ""

    def config(self) -> Config:
        """The ``Config`` in force (read once per ``Store``). Raises
        ``ConfigError`` for a line memo cannot read, its repair order naming
        this store (``scope_flag``)."""
        if self._config is None:
            from optmem.store.config import REFERENCE_ENTRY_MAX, legacy_entry
            try:
                values = self.config_values()
            except ConfigError as err:
                if not self.scope_flag or err.then is None:
                    raise
                # the repair names this store: its order carries the scope flag
                then = Order(err.then.verb, err.then.words, Order.scoped(self.scope_flag),
                             flag_first=True)
                raise ConfigError(err.sentence, then=then) from None
            config = self._config = Config(**values)
            if config.ENTRY_CHARS > REFERENCE_ENTRY_MAX:
                self.notices.append(legacy_entry(config.ENTRY_CHARS, REFERENCE_ENTRY_MAX,
                                                 self.scope_flag))
        return self._config

    def redaction_salt(self, create: bool = False) -> bytes | None:
        """The ``SALT_BYTES``-byte salt this identity's redaction tombstones
        are hashed with: the file ``salt`` beside ``config``, one base64url
        line. None when absent, unless ``create`` (call it under the lock):
        then random bytes are written, 0600, atomically (temporary file,
        fsync, rename). Raises ``Damaged`` (naming the person's ``mv``) for a
        file that holds no such line; a tombstone carries its own salt, so
        one made with a salt moved aside still matches."""
        import base64
        try:
            with atomic.open_file(self.salt_path, "rb", follow=False) as f:
                raw = f.read(256)
        except FileNotFoundError:
            raw = None
        except OSError as err:
            raise Damaged(f"{self.salt_path} cannot be read ({err.strerror}); memo makes a new "
                          f"salt for redactions once it is moved out of the store. "
                          f"{self.move_aside(self.salt_path)}") from None
        if raw is not None:
            line = raw.strip()
            try:
                salt = base64.urlsafe_b64decode(line + b"=" * (-len(line) % 4))
            except ValueError:
                salt = b""
            if len(salt) != SALT_BYTES or len(line) != 22:
                raise Damaged(f"{self.salt_path} is not a salt ({SALT_BYTES} bytes as one "
                              f"base64url line); memo makes a new one for redactions once it "
                              f"is moved out of the store. {self.move_aside(self.salt_path)}")
            return salt
        if not create:
            return None
        salt = os.urandom(SALT_BYTES)
        atomic.replace_file(self.salt_path, base64.urlsafe_b64encode(salt).rstrip(b"=") + b"\n",
                            sync_dir=True)
        return salt

    def update_config(self, changes: dict) -> list:
        """Apply ``{NAME: int or None}`` to ``config`` (``None``: back to the
        default), keeping what a person wrote and commenting out lines that
        do not parse; return notes on those. Under the lock, atomically:
        temp file, fsync, rename; the temp file never outlives a failure."""
        tmp = self.config_path + ".tmp"
        with self.locked(repair=False):  # the config only: a damaged log is check's
            text = self._config_text()
            new, notes = update_config_text(render_config({}) if text is None else text,
                                            changes)
            atomic.replace_file(self.config_path, new.encode("utf-8", "surrogateescape"),
                                tmp=tmp, sync_dir=True)
        self._config = None
        return notes

    def writable(self) -> bool:
        """Can this process write the store? False when the filesystem is
        mounted read-only, or the directory, ``LOG.txt`` or ``TREE`` is not
        writable by this user (``os.access``, so root passes mode bits)."""
        try:
            if os.statvfs(self.root).f_flag & getattr(os, "ST_RDONLY", 1):
                return False
        except (OSError, AttributeError):
            pass
        paths = [self.root, self.log_path]
        if os.path.isdir(self.tree_path):
            paths.append(self.tree_path)
        return all(os.access(p, os.W_OK) for p in paths)

    # -- reading ---------------------------------------------------------

    def _fd(self) -> int:
        fd = self._log_fd
        if fd is None:
            try:
                fd = self._log_fd = os.open(self.log_path, os.O_RDONLY)
            except IsADirectoryError:
                raise Damaged(f"{self.log_path} is a directory, not the log; a person moves it "
                              f"out of the store and puts the log back from a copy. "
                              f"{self.move_aside(self.log_path)}") from None
        return fd

    def close(self) -> None:
        """Close the read handle (reopened on demand)."""
        if self._log_fd is not None:
            os.close(self._log_fd)
            self._log_fd = None
        for fd in self._level_fds.values():
            if fd >= 0:
                os.close(fd)
        self._level_fds = {}

    def log_size(self) -> int:
        """Size of ``LOG.txt`` in bytes (the log only grows between cuts)."""
        self._seen_size = os.fstat(self._fd()).st_size
        return self._seen_size

    def count(self) -> int:
        """How many memories the log holds: whole records (``size // 320``),
        less what readers must not see: records of an append still in flight
        (or crashed) behind the ``.append`` journal, and trailing records of
        NUL bytes (space a crash allocated, cut by the next write)."""
        n = self.log_size() // LOG_RECORD
        if os.path.lexists(self.journal_path):
            journal = self.read_journal()
            if journal is not None and journal["before"] // LOG_RECORD < n:
                # Hide the append in flight, unless another tool has appended
                # after it (then every record stays readable), read twice so
                # a live append moving to its next batch is not mistaken.
                foreign = self.foreign_after(journal, n * LOG_RECORD)
                if foreign is None or self.read_journal() != journal:
                    n = journal["before"] // LOG_RECORD
        if n and self.read_log(n * LOG_RECORD - LOG_RECORD, 1) == b"\x00":
            n = self._last_non_nul_record(n) + 1
        return n

    def read_journal(self) -> dict | None:
        """``journal.read_journal``."""
        return appends.read_journal(self)

    def foreign_after(self, journal: dict, size: int) -> int | None:
        """``journal.foreign_after``."""
        return appends.foreign_after(self, journal, size)

    def kept_appends(self) -> list:
        """``journal.kept_appends``."""
        return appends.kept_appends(self)

    def _last_non_nul_record(self, n: int) -> int:
        """Index of the last record before ``n`` that is not all NUL bytes
        (-1 if none); reads backwards in large chunks, only where the file
        holds data: the holes of a sparse file (``SEEK_HOLE``/``SEEK_DATA``,
        where the system has them) read as NUL bytes and are skipped unread,
        since a crash can leave gigabytes allocated."""
        step = 4096 * LOG_RECORD
        for start, end in reversed(self._data_stretches(n * LOG_RECORD)):
            hi = end
            while hi > start:
                lo = max(start, hi - step)
                data = self.read_log(lo, hi - lo)
                stripped = len(data.rstrip(b"\x00"))
                if stripped:
                    return (lo + stripped - 1) // LOG_RECORD
                hi = lo
        return -1

    def _data_stretches(self, limit: int) -> list:
        """``[(start, end), ...]``: the byte ranges of the log before
        ``limit`` that may hold data, in order; the rest is holes (NUL).
        ``[(0, limit)]`` when the system cannot tell holes from data or the
        file has too many stretches to list."""
        seek_data, seek_hole = getattr(os, "SEEK_DATA", None), getattr(os, "SEEK_HOLE", None)
        if seek_data is None or seek_hole is None or limit <= 0:
            return [(0, max(0, limit))]
        fd = self._fd()
        out: list = []
        pos = 0
        try:
            while pos < limit and len(out) < 4096:
                try:
                    start = os.lseek(fd, pos, seek_data)
                except OSError:  # ENXIO: no data after pos
                    return out
                if start >= limit:
                    return out
                pos = os.lseek(fd, start, seek_hole)
                out.append((start, min(pos, limit)))
            return out if pos >= limit else [(0, limit)]
        except OSError:
            return [(0, limit)]

    def read_log(self, offset: int, length: int) -> bytes:
        """Raw bytes of ``LOG.txt`` (for streaming readers such as recall)."""
        return read_at(self._fd(), offset, length)

    def move_aside(self, path: str) -> str:
        """A person's step that moves ``path`` (a file or folder in the store)
        out of the store, beside the store directory and never inside it:
        ``A person can run: mv -- SRC DST``, each name one shell word on this
        one line (``textform.quoted``: a line break in a name is escaped)."""
        rel = os.path.relpath(path, self.root).replace(os.sep, "-")
        dst = os.path.abspath(self.root).rstrip(os.sep) + "-moved-" + rel
        return protocol.move_aside(path, dst)

    def implied_date(self, i: int) -> str | None:
        """The date memory ``i`` must have when its neighbours share one (dates
        never decrease, so ``#i-1`` and ``#i+1`` on one day pin ``#i`` to it);
        the one neighbour's date for the first or last memory is no proof, so
        None then, and None when they differ or cannot be read."""
        before = self.date(i - 1) if i > 0 else None
        after = self.date(i + 1) if (i + 2) * LOG_RECORD <= self.log_size() else None
        return before if before is not None and before == after else None

    def restorable(self, i: int, record: bytes | None = None) -> bytes | None:
        """``restored_record`` for record ``i`` (read when not given), with
        the date its neighbours imply; None when it cannot be restored."""
        if record is None:
            record = self.read_log(i * LOG_RECORD, LOG_RECORD)
        return (restored_record(i, record)
                or restored_record(i, record, self.implied_date(i)))

    def damaged_memory(self, i: int, why: str, record: bytes | None = None) -> Damaged:
        """The error for bad log record ``i`` (``why`` says what is wrong),
        ending with the step that recovers it: ``Run: memo check --repair``
        when only its head is damaged (``restorable``; nothing is lost), else
        a person's ``memo redact`` (the text itself is damaged)."""
        where = f"{self.log_path} record #{i} (offset {i * LOG_RECORD}) {why}"
        if self.restorable(i, record) is not None:
            return Damaged(f"{where}, but its text is intact and its place in the log "
                           f"tells what its head must be, so memo can restore it and lose "
                           f"nothing.", then=Order("check", ("--repair",),
                                                  Order.scoped(self.scope_flag)))
        return Damaged(f"{where}, so its text cannot be read whole (memo check lists every "
                       f"damaged record). A person restores {LOG_NAME} from a copy, or blanks "
                       f"this record.", then=Order("redact", (str(i), "--yes"),
                                                   Order.scoped(self.scope_flag), person=True,
                                                   flag_first=True))

    def memories(self, lo: int, hi: int) -> list:
        """Memories ``[lo, hi)`` (half-open) as ``Memory`` tuples, one read.

        Raises ``Damaged`` for a bad record and ``IndexError`` past the end.
        """
        if lo < 0 or (hi * LOG_RECORD > self._seen_size
                      and hi > self.log_size() // LOG_RECORD):
            raise IndexError(f"memories {lo}..{hi} are past the end of the log")
        data = self.read_log(lo * LOG_RECORD, (hi - lo) * LOG_RECORD)
        out = []
        for n, i in enumerate(range(lo, hi)):
            record = data[n * LOG_RECORD:(n + 1) * LOG_RECORD]
            why, line = memory_record(i, record)
            if why:
                raise self.damaged_memory(i, why, record)
            out.append(memory_of(i, line))
        return out

    def date(self, i: int) -> str | None:
        """The date of memory ``i`` read from its record's head (one small
        read), or None when the head is not ``#<i> <YYYY-MM-DD> ``."""
        prefix = b"#%d " % i
        return head_date(self.read_log(i * LOG_RECORD, len(prefix) + 11), 0, prefix)

    #: ``dates`` reads records at most this many apart with one ``pread``...
    DATES_GAP = 16
    #: ... and spans at most this many records with one (80 KiB).
    DATES_SPAN = 256

    def dates(self, ids: Iterable[int]) -> dict:
        """``{i: date(i)}`` for every memory id in ``ids`` (an iterable of
        ints >= 0, repeats allowed): each value is what ``date`` gives (None
        for a head that is not ``#<i> <YYYY-MM-DD> ``, or past the end), read
        in few reads: ids whose records lie at most ``DATES_GAP`` records
        apart share one ``pread`` of at most ``DATES_SPAN`` records."""
        order = sorted(set(ids))
        gap, span = self.DATES_GAP, self.DATES_SPAN
        out = {}
        a, n = 0, len(order)
        while a < n:
            first = order[a]
            b = a + 1
            while b < n and order[b] - order[b - 1] <= gap and order[b] - first < span:
                b += 1
            last = order[b - 1]
            data = self.read_log(first * LOG_RECORD,
                                 (last - first) * LOG_RECORD + len(b"#%d " % last) + 11)
            for i in order[a:b]:
                out[i] = head_date(data, (i - first) * LOG_RECORD, b"#%d " % i)
            a = b
        return out

    def memory(self, i: int) -> Memory:
        """Memory ``i``; raises ``Damaged`` or ``IndexError``."""
        return self.memories(i, i + 1)[0]

    def level_path(self, size: int) -> str:
        """Path of the level file ``TREE/<size>``."""
        return os.path.join(self.tree_path, str(size))

    def level_len(self, size: int) -> int:
        """How many whole summaries level ``size`` holds (0 when absent).

        Raises ``Damaged`` (naming the person's ``mv``) when ``TREE/`` or the
        level is not a plain regular file of its own: a symbolic link, or a
        hard link to the log, would let a summary's append or a ``forget``'s
        cut write into another file (the log itself), so memo never writes
        through one."""
        path = self.level_path(size)
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            return 0
        except NotADirectoryError:
            raise Damaged(f"{self.tree_path} is not a directory; it only holds summaries, which "
                          f"memo sleep rebuilds once it is moved out of the store. "
                          f"{self.move_aside(self.tree_path)}") from None
        except PermissionError as err:
            raise MemoError(unreadable(path, err)) from None
        except OSError as err:
            raise Damaged(f"{path} cannot be read ({err.strerror}); memo sleep rebuilds its "
                          f"summaries once it is moved out of the store. "
                          f"{self.move_aside(path)}") from None
        if not stat_mod.S_ISREG(st.st_mode):
            what = "a link" if stat_mod.S_ISLNK(st.st_mode) else "not a regular file"
            raise Damaged(f"{path} is {what}; memo never writes through it, and memo sleep "
                          f"rebuilds its summaries once it is moved out of the store. "
                          f"{self.move_aside(path)}")
        if st.st_nlink > 1 and (st.st_dev, st.st_ino) == self._log_identity():
            raise Damaged(f"{path} is the log itself under a second name (a hard link); memo "
                          f"never writes a summary into the log, and memo sleep rebuilds the "
                          f"level once this name is moved out of the store. "
                          f"{self.move_aside(path)}")
        return st.st_size // TREE_RECORD

    def log_stamp(self) -> tuple:
        """``(st_dev, st_ino, st_size)`` of ``LOG.txt`` as its name finds it
        now. When the name now leads to another file than the open read
        handle (``memo merge`` replaced the log by a rename), the handles
        are closed first, so later reads see the new log. A reader takes a
        stamp before it reads and compares one after: a difference means the
        log changed under it (read again, once). Raises ``OSError`` as
        ``os.stat`` does."""
        st = os.stat(self.log_path)
        if self._log_fd is not None:
            held = os.fstat(self._log_fd)
            if (held.st_dev, held.st_ino) != (st.st_dev, st.st_ino):
                self.close()
        return st.st_dev, st.st_ino, st.st_size

    def _log_identity(self) -> tuple:
        """``(st_dev, st_ino)`` of the open log."""
        st = os.fstat(self._fd())
        return st.st_dev, st.st_ino

    def built(self, T: int) -> dict:
        """``{size: records}`` for every level with a complete block at ``T``.

        One ``stat`` per level (about ``log2 T`` of them).
        """
        return {s: self.level_len(s) for s in blocks.level_sizes(T)}

    def summary(self, lo: int, hi: int) -> str:
        """The summary of block ``[lo, hi)``; ``KeyError`` if not built yet.

        Raises ``Damaged`` (recover with ``memo forget``) for a bad record.
        """
        text = self.summaries(hi - lo, lo // (hi - lo), 1)[0]
        if isinstance(text, MemoError):
            raise text
        return text

    def summaries(self, size: int, first: int, count: int) -> list:
        """The summaries of ``count`` adjacent blocks of ``size`` memories,
        blocks ``first`` to ``first + count - 1`` of their level (records of
        ``TREE/<size>``), read with one ``pread``. Each item is what
        ``summary`` gives for its block: the text, or the error it raises
        for that block (``NotBuilt``, ``Damaged``) as the item itself, so a
        reader can show the others. Raises ``MemoError`` for a level this
        user may not read, as ``summary`` does."""
        try:
            fd = self._level_fd(size)
        except Damaged as err:  # the level itself: every block's answer
            return [err] * count
        data = read_at(fd, first * TREE_RECORD, count * TREE_RECORD) if fd >= 0 else b""
        return [self._summary_of(size, first + j, data[j * TREE_RECORD:(j + 1) * TREE_RECORD])
                for j in range(count)]

    def _level_fd(self, size: int) -> int:
        """The cached read handle of ``TREE/<size>``, or -1 when the level
        does not exist (not cached: it may be made later in this process).
        Raises ``Damaged`` for a level that is not a regular file of its own
        (``level_len``) and ``MemoError`` for one this user may not read."""
        fd = self._level_fds.get(size)
        if fd is None:
            self.level_len(size)  # a level that is not a regular file: Damaged
            path = self.level_path(size)
            try:
                fd = os.open(path, os.O_RDONLY)
                self._level_fds[size] = fd
            except FileNotFoundError:
                fd = -1
            except PermissionError as err:
                raise MemoError(unreadable(path, err)) from None
        return fd

    def _summary_of(self, size: int, k: int, record: bytes) -> str | MemoError:
        """The text of summary record ``k`` of level ``size`` read as
        ``record`` (fewer than ``TREE_RECORD`` bytes: not built), or the
        error ``summary`` raises for it (``NotBuilt``, ``Damaged``)."""
        if len(record) < TREE_RECORD:
            return NotBuilt(f"the summary of {blocks.block_name(k * size, (k + 1) * size)} is "
                            f"not built (or another session just forgot it).",
                            then=Order("sleep"))
        why, text = check_record(record, TREE_RECORD)
        if why:
            name = blocks.block_name(k * size, (k + 1) * size)
            return (Blank if why == BLANK else Damaged)(
                f"{self.level_path(size)} record {k} (offset {k * TREE_RECORD}), "
                f"the summary of {name}, {why}.", then=Order("forget", (name,)))
        return text

    def level_bytes(self) -> dict:
        """``{size: bytes}`` for every regular ``TREE/<size>`` file present."""
        out: dict = {}
        try:
            names = os.listdir(self.tree_path)
        except FileNotFoundError:
            return out
        for name in names:
            if name.isascii() and name.isdigit():
                try:
                    st = os.stat(os.path.join(self.tree_path, name))
                except OSError:
                    continue
                if stat_mod.S_ISREG(st.st_mode):
                    out[int(name)] = st.st_size
        return out

    def tail_problem(self) -> str | None:
        """Why the log's last bytes are not whole records, or None."""
        size = self.log_size()
        extra = size % LOG_RECORD
        if not extra:
            return None
        return f"ends with {extra} bytes that are not a whole record (offset {size - extra})"

    # -- writing ---------------------------------------------------------

    @contextmanager
    def locked(self, repair: bool = True, timeout: float | None = None) -> Iterator[Store]:
        """Hold the store lock; on entry (with ``repair``), roll back or cut
        unfinished appends. Raises ``Busy`` after ``timeout`` seconds
        (default ``LOCK_TIMEOUT``). Re-entrant: a ``with`` inside another on
        the same object holds the lock already and takes nothing more.
        """
        if self._held:
            self._held += 1
            try:
                yield self
            finally:
                self._held -= 1
            return
        if os.path.lexists(self.lock_path) and not os.path.isfile(self.lock_path):
            raise Damaged(f"{self.lock_path} is not a regular file, so no write can take "
                          f"the lock; once it is moved out of the store memo makes a new one. "
                          f"{self.move_aside(self.lock_path)}")
        from optmem.store import lock as store_lock  # writes only: no read imports it
        lock = store_lock.acquire(self.lock_path, timeout)
        self._held += 1
        try:
            if repair:
                self._recover()
            yield self
        finally:
            self._held -= 1
            lock.release()

    def _recover(self) -> None:
        """``journal.recover``."""
        return appends.recover(self)

    def _note_kept(self, before: int, foreign: int) -> None:
        """``journal.note_kept``."""
        return appends.note_kept(self, before, foreign)

    def tail_is_torn(self) -> bool:
        """``journal.tail_is_torn``."""
        return appends.tail_is_torn(self)

    def _cut_torn_log_tail(self) -> None:
        """``journal.cut_torn_log_tail``."""
        return appends.cut_torn_log_tail(self)

    @staticmethod
    def _truncate(path: str, size: int) -> None:
        """``journal.truncate``."""
        return appends.truncate(path, size)

    @staticmethod
    def _fsync_dir(path: str) -> None:
        """``journal.fsync_dir``."""
        return appends.fsync_dir(path)

    def check_last_memory(self) -> None:
        """Raise ``Damaged`` if the last record is bad: never append behind one.

        Call under the lock, after ``_recover``.
        """
        n = self.count()
        if n:
            record = self.read_log((n - 1) * LOG_RECORD, LOG_RECORD)
            why = problem_in_memory(n - 1, record)
            if why:
                raise Damaged(f"{self.log_path} record #{n - 1} (offset "
                              f"{(n - 1) * LOG_RECORD}) {why}, so nothing is appended "
                              f"behind it.", then=Order("check"))

    def append(self, records: Iterable[bytes], total: int) -> int:
        """``journal.append``."""
        return appends.append(self, records, total)

    def _undo_append(self, fd: int, start: int, journal_written: bool) -> None:
        """``journal.undo_append``."""
        return appends.undo_append(self, fd, start, journal_written)

    def _write_journal(self, before: int, after: int, start: int, batch: bytes) -> None:
        """``journal.write_journal``."""
        return appends.write_journal(self, before, after, start, batch)

    def _prepare_level(self, size: int) -> int:
        """Under the lock: cut a torn tail off ``TREE/<size>``; return its records."""
        path = self.level_path(size)
        n = self.level_len(size)
        try:
            actual = os.lstat(path).st_size
        except FileNotFoundError:
            return 0
        if actual != n * TREE_RECORD:
            # A summary is a cache of the log: a partial record is never a
            # memory, so cutting it loses nothing.
            self._truncate(path, n * TREE_RECORD)
        return n

    def put_summary(self, lo: int, hi: int, text: str) -> None:
        """Append the summary of ``[lo, hi)`` to its level. Call under the lock,
        after checking that it is the next pending block."""
        size = hi - lo
        if not os.path.isdir(self.tree_path):
            os.makedirs(self.tree_path, mode=0o700, exist_ok=True)
        n = self._prepare_level(size)
        if n != lo // size:
            raise Damaged(f"{self.level_path(size)} holds {n} records, so block "
                          f"{blocks.block_name(lo, hi)} cannot be record {lo // size}.",
                          then=Order("check"))
        path = self.level_path(size)
        fd = atomic.open_regular(path, follow=False, append=True)
        try:
            atomic.write_all(fd, encode_summary(text))
            os.fsync(fd)
        except OSError as err:
            err.filename = err.filename or path
            try:
                os.ftruncate(fd, n * TREE_RECORD)
            except OSError:
                pass
            raise
        finally:
            os.close(fd)

    def cut_level(self, size: int, keep: int) -> int:
        """Cut ``TREE/<size>`` back to ``keep`` records; return how many went.
        Call under the lock."""
        path = self.level_path(size)
        self.level_len(size)  # never a link: the cut must not reach another file
        try:
            actual = os.lstat(path).st_size
        except FileNotFoundError:
            return 0
        have = actual // TREE_RECORD
        if actual <= keep * TREE_RECORD:
            return 0
        self._truncate(path, keep * TREE_RECORD)
        return max(0, have - keep)

    def restore_memory(self, i: int, was: bytes, record: bytes) -> bool:
        """Overwrite record ``i`` with ``record`` (``restored_record``'s
        answer) if it still holds ``was``, keeping ``was`` in
        ``recovered.txt`` first (so no byte is ever lost); return whether it
        was written. ``memo check --repair`` only; call under the lock."""
        if self.read_log(i * LOG_RECORD, LOG_RECORD) != was or len(record) != LOG_RECORD:
            return False
        fd = atomic.open_regular(self.recovered_path, follow=False, append=True)
        try:
            atomic.write_all(fd, b"record #%d before memo check --repair: " % i
                       + was.rstrip(b" \n") + b"\n")
            os.fsync(fd)
        finally:
            os.close(fd)
        self.rewrite_memory(i, record)
        return True

    def rewrite_memory(self, i: int, record: bytes) -> None:
        """Overwrite record ``i`` in place (``memo redact`` only). Under the lock."""
        fd = os.open(self.log_path, os.O_WRONLY)
        try:
            os.pwrite(fd, record, i * LOG_RECORD)
            os.fsync(fd)
        finally:
            os.close(fd)

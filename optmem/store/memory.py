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
from collections import namedtuple
from contextlib import contextmanager

from optmem import atomic, blocks
from optmem.errors import Blank, ConfigError, Damaged, MemoError, NoStore, NotBuilt
from optmem.protocol import Order
from optmem.store.config import Config
from optmem.store.config import parse as parse_config
from optmem.store.config import render as render_config
from optmem.store.config import update as update_config_text

LOG_RECORD = 320  #: bytes per ``LOG.txt`` record, newline included
TREE_RECORD = 288  #: bytes per ``TREE/<s>`` record, newline included
LOG_NAME = "LOG.txt"
TREE_NAME = "TREE"
CONFIG_NAME = "config"
LOCK_NAME = ".lock"
JOURNAL_NAME = ".append"
KEPT_NAME = ".append.kept"  #: interrupted appends kept because the log moved on
RECOVERED_NAME = "recovered.txt"  #: where cut-off partial records are kept
SALT_NAME = "salt"  #: the identity's salt for redaction tombstones (``redaction_salt``)
SALT_BYTES = 16  #: bytes of that salt (one base64url line in the file)
#: Names a store folder may hold besides the store's own before it has a log:
#: git's files (the store is a work tree, ``memo sync``) and merge's backups.
GIT_NAMES = frozenset((".git", ".gitattributes", ".gitignore", "merge-backup"))
#: Added to every open that writes a file of the store other than the log:
#: a link there (to the log, or anywhere) is refused (ELOOP), never written
#: through.
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
REDACTED = "[redacted]"  #: the text ``memo redact`` leaves in place
#: The order that restores records whose head alone is damaged (``restorable``).
RESTORE_ORDER = "Run: memo check --repair"
#: The start of the person's step for a record whose text is damaged.
PERSON_REDACT = "A person can run: memo redact"

Memory = namedtuple("Memory", "id date text")
Memory.__doc__ = "One log record: ``id`` (int), ``date`` (``YYYY-MM-DD``), ``text`` (str)."


#: C0 and C1 controls other than TAB, and the Unicode line separators: never
#: written by memo (the write guard refuses them), so damage or a foreign tool.
_CONTROL_CHARS = "".join(map(chr, [*range(0, 9), *range(10, 32), *range(127, 160),
                                   0x2028, 0x2029]))
#: The same as a set: sets, not regular expressions, because compiling these
#: two classes cost every command 1.2 ms (5 million instructions) at import.
#: Every one of them is non-printable (``str.isprintable``), so a printable
#: text holds none.
_CONTROL = frozenset(_CONTROL_CHARS)
#: Characters that may need a look before printing, besides those
#: ``str.isprintable`` already flags (controls, every format character, line
#: separators): the invisible letters and the variation selectors.
_SUSPECT = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u3164\uffa0"
                     + "".join(map(chr, [*range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0)])))


#: Non-ASCII characters that give a ``<`` when the guard folds a text for
#: frame tags (``guard.text._folds_to_lt``: the look-alikes of ``<`` and
#: the characters whose NFKC form holds one), the same 16 under Unicode 13
#: to 15.1; tests/test_batched_reads.py derives them again from the rule.
LT_FOLDS = frozenset("\u02c2\u1438\u16b2\u2039\u227a\u2329\u276c\u276e\u27e8\u29fc"
                     "\u2aa1\u3008\ufe3f\ufe64\uff1c\U0001d236")
#: What makes a printable line need more than a glance (``displayable``): a
#: suspect character, or one that may start a frame tag (``<``, ``&`` of an
#: HTML reference, a character folding to ``<``).
_LOOK = _SUSPECT | LT_FOLDS | frozenset("<&")
#: The first byte of the UTF-8 form of every character of ``_LOOK``: a line
#: whose UTF-8 holds none holds none of them. Checking the bytes (one C
#: call) costs a tenth of checking the characters against the set (each a
#: new object): a 1,000-memory wake runs 3 million instructions fewer.
_LOOK_LEADS = b"&<\xcb\xcd\xe1\xe2\xe3\xef\xf0\xf3"
_NOT_LOOK_LEADS = bytes(range(256)).translate(None, _LOOK_LEADS)


def displayable(text: str) -> str:
    """``text`` safe to print, by the write guard's own rule
    (``guard.shown``): what the guard refuses as hiding, moving or breaking
    text (controls, line breaks, bidi controls, invisible characters outside
    the script that needs them, stray variation selectors) becomes U+FFFD and
    a tab a space, so a record written by another tool can never move the
    cursor, reorder text or forge a line, and the ``<`` of a harness's frame
    tag (``guard.frame_tags``) becomes U+FFFD too; what the guard accepts is
    shown as written."""
    # ``plain``: printable and no suspect character, so only frame tags to look for.
    if not text.isprintable():
        plain = False
    elif text.isascii():
        if "<" not in text and "&" not in text:
            return text
        plain = True
    elif (not text.encode("utf-8", "surrogatepass").translate(None, _NOT_LOOK_LEADS)
          or _LOOK.isdisjoint(text)):
        return text  # no suspect character, and none frame_tags could fold to ``<``
    else:
        plain = _SUSPECT.isdisjoint(text)
    if plain:
        from optmem.guard.text import frame_tags
        at = frame_tags(text)  # folds the text (``＜``, ``&lt;``) and matches
        if not at:
            return text
        chars = list(text)
        for i in at:
            chars[i] = "\ufffd"
        return "".join(chars)
    from optmem.guard.text import shown  # only for the rare line that needs it
    return shown(text)


def _permission(path: str) -> str:
    """The one line for a store this user may not read (another user's)."""
    return (f"permission denied: this user (uid {os.getuid()}) cannot read {path} "
            f"(MEMORY_DIR); check the path, and that the store belongs to this user "
            f"(its owner and mode)")


def unreadable(path: str, err: OSError) -> str:
    """The one line for a file of the store this user may not read
    (``EACCES``/``EPERM``): a permission to fix, never damage, so nothing is
    to be moved or rebuilt."""
    return (f"permission denied: this user (uid {os.getuid()}) cannot read {path} "
            f"({err.strerror or err}); its contents are not in question, and nothing was "
            f"changed. A person gives this user back access to it (its owner and mode, "
            f"and those of the folders above it)")


def _digest(data: bytes) -> str:
    import hashlib
    return hashlib.sha256(data).hexdigest()[:32]


def _record_digest(record: bytes) -> str:
    """A short digest of one log record, for the journal (16 hex digits)."""
    import hashlib
    return hashlib.blake2b(record, digest_size=8).hexdigest()


def date_shaped(value: str) -> bool:
    """True for ``YYYY-MM-DD`` in ASCII digits, calendar or not: a record
    another tool wrote with ``2025-02-30`` (the seed imported such dates) is
    read and shown as it is; only new writes need a real date (``is_date``)."""
    if len(value) != 10 or value[4] != "-" or value[7] != "-":
        return False
    digits = value[:4] + value[5:7] + value[8:]
    return digits.isascii() and digits.isdigit()


def _write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` (``os.write`` may write fewer)."""
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        if n <= 0:
            raise OSError(28, "No space left on device")
        view = view[n:]


_DATES_SEEN = set()


def _is_date(value: str) -> bool:
    """True for a real calendar date written ``YYYY-MM-DD`` in ASCII digits."""
    if value in _DATES_SEEN:
        return True
    if len(value) != 10 or value[4] != "-" or value[7] != "-":
        return False
    y, m, d = value[:4], value[5:7], value[8:]
    if not (y + m + d).isascii() or not (y + m + d).isdigit():
        return False
    year, month, day = int(y), int(m), int(d)
    if not (1 <= year and 1 <= month <= 12):
        return False
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    if not 1 <= day <= (31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)[month - 1]:
        return False
    _DATES_SEEN.add(value)  # no datetime import: it costs start-up time
    return True


is_date = _is_date


def encode_memory(i: int, date: str, text: str) -> bytes:
    """The 320-byte ``LOG.txt`` record for memory ``i``.

    Raises ``ValueError`` if the UTF-8 line is longer than 319 bytes (callers
    check ``ENTRY_CHARS`` first, which keeps every id well inside).
    """
    body = f"#{i} {date} {text}".encode("utf-8")
    if len(body) > LOG_RECORD - 1:
        raise ValueError(f"memory #{i} is {len(body)} bytes; a record holds {LOG_RECORD - 1}")
    return body + b" " * (LOG_RECORD - 1 - len(body)) + b"\n"


def encode_summary(text: str) -> bytes:
    """The 288-byte ``TREE/<s>`` record for one summary line.

    Raises ``ValueError`` if ``text`` is over 287 bytes of UTF-8.
    """
    body = text.encode("utf-8")
    if len(body) > TREE_RECORD - 1:
        raise ValueError(f"summary is {len(body)} bytes; a record holds {TREE_RECORD - 1}")
    return body + b" " * (TREE_RECORD - 1 - len(body)) + b"\n"


#: The end of a padded record: spaces, then the newline (``_check_record``).
_PADDING = b" " * (LOG_RECORD - 1) + b"\n"


#: Why a record of spaces or NUL bytes only is not one (``_check_record``).
BLANK = "is blank (all spaces or NUL bytes)"


def _check_record(record: bytes, width: int) -> tuple:
    """``(why, text)``: why a fixed-width record is not one padded UTF-8 line
    of ``width`` bytes (``why`` None when it is), and its text when it is:
    the line without its newline and the padding spaces after it."""
    if len(record) != width:
        return f"is {len(record)} bytes, not {width}", None
    # (An int in bytes is one memchr: ``b"\x00" in`` first tries the bytes as an int.)
    if record[0] in b"\x00 \n" and not record.strip(b"\x00 \n"):  # a record starts "#..."
        return BLANK, None
    if record.find(b"\n") != width - 1:  # no newline, or one before the last byte
        return "is not one padded line (the file was edited by hand?)", None
    if 0 in record:
        return "holds NUL bytes", None
    # The padding is cut before decoding: spaces are whole characters in
    # UTF-8, printable and no control, so they change no answer below.
    # ``rstrip()`` cuts in a quarter of the instructions ``rstrip(b" ")``
    # takes, and is its answer where it cut spaces and the newline alone.
    body = record.rstrip()
    if not record.endswith(_PADDING[len(body) - width:]):
        body = record[:-1].rstrip(b" ")  # a tab or the like before the padding
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return "is not valid UTF-8", None
    if not text.isprintable() and not _CONTROL.isdisjoint(text):
        return "holds control characters (terminal escapes?) that memo never writes", None
    return None, text


def _memory_record(i: int, record: bytes) -> tuple:
    """``(why, line)``: why ``record`` is not a valid ``LOG.txt`` record for
    memory ``i`` (``why`` None when it is), and its line when it is (the
    decoded record without its newline and padding, ``_check_record``)."""
    why, line = _check_record(record, LOG_RECORD)
    if why:
        return why, None
    head = f"#{i} "
    if not line.startswith(head):
        found = line.split(" ", 1)[0][:24]
        return f"holds {found!r} where #{i} belongs", None
    # After the date a space, or only padding (an empty text: the line ends).
    if not date_shaped(line[len(head):len(head) + 10]) or \
            line[len(head) + 10:len(head) + 11] not in (" ", ""):
        return "has no valid YYYY-MM-DD date after its id", None
    return None, line


def problem_in_memory(i: int, record: bytes) -> str | None:
    """Why ``record`` is not a valid ``LOG.txt`` record for memory ``i``, or None."""
    return _memory_record(i, record)[0]


def restored_record(i: int, record: bytes, date: str | None = None) -> bytes | None:
    """The record ``i`` held before its head was damaged, or None.

    A log is fixed-width, so a record's place implies its id: ``#<i> ``
    takes the first ``len(str(i)) + 2`` bytes of record ``i`` whatever they
    hold now. When those bytes alone are wrong (an id overwritten in place)
    the record with them rewritten is returned; when its date is wrong too
    or instead and ``date`` (``YYYY-MM-DD``, the date its neighbours imply)
    is given, the record with ``#<i> <date> `` rewritten. The text after the
    head is never changed, so nothing readable is lost. None when the rest
    of the record is damaged as well (bad bytes, a stray newline, blank).
    """
    if len(record) != LOG_RECORD:
        return None
    head = b"#%d" % i
    candidate = head + record[len(head):]
    if problem_in_memory(i, candidate) is None:
        return candidate
    if date is not None and date_shaped(date):
        candidate = b"#%d %s " % (i, date.encode("ascii")) + record[len(head) + 12:]
        if candidate[len(head) + 12:].strip(b" \n") and problem_in_memory(i, candidate) is None:
            return candidate
    return None


def decode_memory(i: int, record: bytes) -> Memory:
    """Parse a record known to be valid (see ``problem_in_memory``)."""
    return _memory_of(i, record[:-1].rstrip(b" ").decode("utf-8"))


def _memory_of(i: int, line: str) -> Memory:
    """The ``Memory`` of a valid record's ``line``, its padding cut
    (``_memory_record``)."""
    head = len(str(i)) + 2
    return Memory(i, line[head:head + 10], line[head + 11:])


def _head_date(data: bytes, at: int, prefix: bytes) -> str | None:
    """The date in the head of the log record that starts at byte ``at`` of
    ``data`` (bytes read from the log, fewer where the file ended), when
    that head is ``prefix`` (``b"#<i> "``), ``YYYY-MM-DD`` (``date_shaped``)
    and a space; else None."""
    end = at + len(prefix) + 10
    if len(data) > end and data[end] == 32 and data.startswith(prefix, at):
        date = data[end - 10:end]
        # date_shaped in bytes: the '-' at 4 and 7 are the only non-digits.
        if date[4] == date[7] == 45 and date.translate(None, b"0123456789") == b"--":
            return date.decode("ascii")
    return None


def _read_at(fd: int, offset: int, length: int) -> bytes:
    """``length`` bytes of the open file ``fd`` from byte ``offset``, fewer
    only where the file ends (``os.pread`` again after a short read)."""
    data = os.pread(fd, length, offset) if length > 0 else b""
    if len(data) == length or not data:
        return data  # the common case: one read
    out = [data]
    offset += len(data)
    length -= len(data)
    while length > 0:
        chunk = os.pread(fd, length, offset)
        if not chunk:
            break
        out.append(chunk)
        offset += len(chunk)
        length -= len(chunk)
    return b"".join(out)


def problem_in_summary(record: bytes) -> str | None:
    """Why ``record`` is not a valid ``TREE/<s>`` record, or None."""
    return _check_record(record, TREE_RECORD)[0]


def log_lost(store) -> str | None:
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
        self.notices = []  #: lines for the user about repairs done (stderr)
        self._log_fd = None
        self._level_fds = {}  #: size -> read handle of TREE/<size>
        self._seen_size = 0  #: the log size last seen (a cheap bound for reads)
        self._config = None
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
            raise NoStore(_permission(root)) from None
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
            raise NoStore(_permission(root)) from None
        if not os.path.isfile(store.log_path):
            raise Damaged(f"{store.log_path} is not a regular file (a directory or a "
                          f"broken link?); a person puts the log back there from a copy, and memo "
                          f"check then says whether the store is whole")
        if not os.access(store.log_path, os.R_OK):
            raise NoStore(_permission(store.log_path))
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

    #: The scope flag that names this store on the command line (``--project
    #: NAME`` for a project's store, set by whoever opened it as one; empty
    #: for the global store): the repair a bad config line orders carries it.
    scope_flag = ""

    def config(self) -> Config:
        """The ``Config`` in force (read once per ``Store``). Raises
        ``ConfigError`` for a line memo cannot read, its repair order naming
        this store (``scope_flag``)."""
        if self._config is None:
            from optmem.store.config import LEGACY_ENTRY, REFERENCE_ENTRY_MAX
            try:
                values = self.config_values()
            except ConfigError as err:
                if not self.scope_flag:
                    raise
                raise ConfigError(str(err).replace(
                    "memo config --repair", f"memo config {self.scope_flag} --repair")) from None
            self._config = Config(**values)
            if self._config.ENTRY_CHARS > REFERENCE_ENTRY_MAX:
                self.notices.append(LEGACY_ENTRY.format(value=self._config.ENTRY_CHARS,
                                                        top=REFERENCE_ENTRY_MAX))
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
        if self._log_fd is None:
            try:
                self._log_fd = os.open(self.log_path, os.O_RDONLY)
            except IsADirectoryError:
                raise Damaged(f"{self.log_path} is a directory, not the log; a person moves it "
                              f"out of the store and puts the log back from a copy. "
                              f"{self.move_aside(self.log_path)}") from None
        return self._log_fd

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

    def read_journal(self):
        """The ``.append`` journal as a dict, or None when absent or unreadable.

        Keys: ``before``, ``after`` (log sizes in bytes), and either
        ``start`` (offset of the batch in flight) with ``digests`` (one per
        record of that batch), or, for memo 0.1's journal, ``first`` (the
        digest of the first record written).
        """
        try:
            with atomic.open_file(self.journal_path) as f:
                data = f.read(1 << 20)
        except atomic.NotRegular:
            raise
        except OSError:
            return None
        words = data.split()
        if len(words) == 3 and words[0].isdigit() and words[1].isdigit():
            out = {"before": int(words[0]), "after": int(words[1]), "first": words[2]}
        elif (len(words) >= 4 and words[0] == b"v2"
                and all(w.isdigit() for w in words[1:4])):
            out = {"before": int(words[1]), "after": int(words[2]), "start": int(words[3]),
                   "digests": [w.decode("ascii", "replace") for w in words[4:]]}
            if out["start"] % LOG_RECORD or not out["before"] <= out["start"] <= out["after"]:
                return None
        else:
            return None
        if out["before"] % LOG_RECORD or out["after"] % LOG_RECORD or \
                out["after"] <= out["before"]:
            return None  # not a journal memo wrote: it describes nothing to undo
        return out

    def foreign_after(self, journal: dict, size: int):
        """The offset of the first whole record after ``journal["before"]``
        that the journalled append did not write (another tool's), or None
        when every byte up to ``size`` may be its own.

        Another tool can only append after this one's crash (both take the
        lock), so records before the batch in flight are this append's; the
        batch's records are compared with their digests.
        """
        before = journal["before"]
        if size <= before:
            return None
        if "first" in journal:  # memo 0.1: only the first record is known
            first = self.read_log(before, LOG_RECORD)
            ours = (size <= journal["after"]
                    and _digest(first).encode() == journal["first"])
            return None if ours else before
        start, digests = journal["start"], journal["digests"]
        if size > journal["after"]:
            return max(start, journal["after"] - journal["after"] % LOG_RECORD)
        whole = size - size % LOG_RECORD
        if whole <= start:
            return None
        data = self.read_log(start, whole - start)
        for k in range(len(data) // LOG_RECORD):
            if k >= len(digests) or \
                    _record_digest(data[k * LOG_RECORD:(k + 1) * LOG_RECORD]) != digests[k]:
                return start + k * LOG_RECORD
        return None

    def kept_appends(self) -> list:
        """``[(first_id, foreign_id), ...]``: appends that were interrupted
        and kept because another tool appended after them (``.append.kept``)."""
        path = os.path.join(self.root, KEPT_NAME)
        try:
            with atomic.open_file(path) as f:
                text = f.read(1 << 16).decode("ascii", "replace")
        except atomic.NotRegular:
            raise
        except OSError:
            return []
        out = []
        for line in text.splitlines():
            words = line.split()
            if len(words) == 2 and all(w.isdigit() for w in words):
                out.append((int(words[0]) // LOG_RECORD, int(words[1]) // LOG_RECORD))
        return out

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
        out, pos = [], 0
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
        return _read_at(self._fd(), offset, length)

    def move_aside(self, path: str) -> str:
        """A person's step that moves ``path`` (a file or folder in the store)
        out of the store, beside the store directory and never inside it:
        ``A person can run: mv -- SRC DST``, each name one shell word on this
        one line (``textform.quoted``: a line break in a name is escaped)."""
        from optmem.textform import quoted
        rel = os.path.relpath(path, self.root).replace(os.sep, "-")
        dst = os.path.abspath(self.root).rstrip(os.sep) + "-moved-" + rel
        return f"A person can run: mv -- {quoted(path)} {quoted(dst)}"

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
                           f"nothing.", then=Order("check", ("--repair",)))
        return Damaged(f"{where}, so its text cannot be read whole (memo check lists every "
                       f"damaged record). A person restores {LOG_NAME} from a copy, or blanks "
                       f"this record.", then=Order("redact", (str(i), "--yes"), person=True))

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
            why, line = _memory_record(i, record)
            if why:
                raise self.damaged_memory(i, why, record)
            out.append(_memory_of(i, line))
        return out

    def date(self, i: int) -> str | None:
        """The date of memory ``i`` read from its record's head (one small
        read), or None when the head is not ``#<i> <YYYY-MM-DD> ``."""
        prefix = b"#%d " % i
        return _head_date(self.read_log(i * LOG_RECORD, len(prefix) + 11), 0, prefix)

    #: ``dates`` reads records at most this many apart with one ``pread``...
    DATES_GAP = 16
    #: ... and spans at most this many records with one (80 KiB).
    DATES_SPAN = 256

    def dates(self, ids) -> dict:
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
                out[i] = _head_date(data, (i - first) * LOG_RECORD, b"#%d " % i)
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
        data = _read_at(fd, first * TREE_RECORD, count * TREE_RECORD) if fd >= 0 else b""
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

    def _summary_of(self, size: int, k: int, record: bytes):
        """The text of summary record ``k`` of level ``size`` read as
        ``record`` (fewer than ``TREE_RECORD`` bytes: not built), or the
        error ``summary`` raises for it (``NotBuilt``, ``Damaged``)."""
        if len(record) < TREE_RECORD:
            return NotBuilt(f"the summary of {blocks.block_name(k * size, (k + 1) * size)} is "
                            f"not built (or another session just forgot it).",
                            then=Order("sleep"))
        why, text = _check_record(record, TREE_RECORD)
        if why:
            name = blocks.block_name(k * size, (k + 1) * size)
            return (Blank if why == BLANK else Damaged)(
                f"{self.level_path(size)} record {k} (offset {k * TREE_RECORD}), "
                f"the summary of {name}, {why}.", then=Order("forget", (name,)))
        return text

    def level_bytes(self) -> dict:
        """``{size: bytes}`` for every regular ``TREE/<size>`` file present."""
        out = {}
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
    def locked(self, repair: bool = True, timeout: float | None = None):
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
        """Under the lock: undo an append that never finished (journal) when
        nothing another tool wrote follows it, then cut a torn log tail
        (``tail_is_torn``), keeping its bytes in ``recovered.txt``."""
        if os.path.lexists(self.journal_path):
            if not os.path.isfile(self.journal_path) or os.path.islink(self.journal_path):
                raise Damaged(f"{self.journal_path} is not a regular file, so no append can "
                              f"be made safely; once it is moved out of the store memo makes a "
                              f"new one. {self.move_aside(self.journal_path)}")
            journal = self.read_journal()
            size = self.log_size()
            if journal is not None and size > journal["before"]:
                before = journal["before"]
                foreign = self.foreign_after(journal, size)
                if foreign is None:
                    # Every byte after ``before`` is this tool's unfinished
                    # append: roll it back (it was never acknowledged).
                    self._truncate(self.log_path, before)
                    self.notices.append(
                        f"an append that never finished was rolled back "
                        f"({(size - before) // LOG_RECORD} records of it had been written)")
                elif "digests" in journal and foreign > before:
                    # Another tool appended after the crash: never remove its
                    # records, so the interrupted append stays too.
                    self._note_kept(before, foreign)
                    self.notices.append(
                        f"an append that never finished left #{before // LOG_RECORD}-"
                        f"#{foreign // LOG_RECORD - 1} in the log and another tool wrote "
                        f"after them, so nothing was rolled back. Run: memo check")
            os.unlink(self.journal_path)
        self._cut_torn_log_tail()

    def _note_kept(self, before: int, foreign: int) -> None:
        """Record in ``.append.kept`` that the append from ``before`` (bytes)
        was kept because another tool wrote from ``foreign`` on."""
        path = os.path.join(self.root, KEPT_NAME)
        fd = atomic.open_regular(path, follow=False, append=True)
        try:
            _write_all(fd, f"{before} {foreign}\n".encode())
            os.fsync(fd)
        finally:
            os.close(fd)

    def tail_is_torn(self) -> bool:
        """True when the log's last bytes (fewer than a record) follow whole
        records of which the last is well formed for its position: a torn
        last record, whatever its bytes (the seed drops such tails). False
        when the records before it are misaligned (a hand edit, a merge):
        damage for ``memo check``, never cut."""
        size = self.log_size()
        whole = size - size % LOG_RECORD
        n = whole // LOG_RECORD
        if n == 0:
            return True
        last = self.read_log(whole - LOG_RECORD, LOG_RECORD)
        return not last.strip(b"\x00") or problem_in_memory(n - 1, last) is None

    def _cut_torn_log_tail(self) -> None:
        size = self.log_size()
        whole = size - size % LOG_RECORD
        # Trailing records of NUL bytes: space a crash allocated, never data
        # (readers never count them). They go before and after a torn tail:
        # the next append must land right after the last memory, at the id
        # it is written with.
        keep = whole
        if whole and self.read_log(whole - LOG_RECORD, 1) == b"\x00":
            keep = (self._last_non_nul_record(whole // LOG_RECORD) + 1) * LOG_RECORD
        if size == keep:
            return
        tail = self.read_log(whole, size - whole)
        if tail.strip(b"\x00") and not self.tail_is_torn():
            raise Damaged(
                f"{self.log_path} ends with {size - whole} bytes at offset {whole} after "
                f"records that are misaligned (a hand edit or a merge?); nothing was "
                f"changed.", then=Order("check"))
        text = tail.strip(b"\x00 ")
        if text:
            # Most likely an append that crashed before it was acknowledged,
            # but it may be the start of a memory cut short: keep a copy.
            fd = atomic.open_regular(self.recovered_path, follow=False, append=True)
            try:
                _write_all(fd, text + b"\n")
                os.fsync(fd)
            finally:
                os.close(fd)
            self.notices.append(
                f"{self.log_path} ended with {len(tail)} bytes of an unfinished record "
                f"(offset {whole}); they were cut off and kept in {self.recovered_path}")
        self._truncate(self.log_path, keep)

    @staticmethod
    def _truncate(path: str, size: int) -> None:
        fd = os.open(path, os.O_WRONLY)
        try:
            os.ftruncate(fd, size)
            os.fsync(fd)
        finally:
            os.close(fd)

    @staticmethod
    def _fsync_dir(path: str) -> None:
        atomic.sync_folder(path)

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

    def append(self, records, total: int) -> int:
        """Append encoded records (an iterable of ``bytes`` batches holding
        ``total`` bytes in all); return the first id. Call under ``locked()``.

        The journal makes the append all or nothing: if the process dies or a
        write fails midway, the bytes already written are removed (now, or by
        the next writer after a crash).
        """
        start = self.log_size()
        first = start // LOG_RECORD
        fd = os.open(self.log_path, os.O_WRONLY | os.O_APPEND)
        journal_written = False
        try:
            offset = start
            for batch in records:
                # Before each batch: which records it holds, so a recovery
                # can tell them from records another tool appends later.
                self._write_journal(start, start + total, offset, batch)
                journal_written = True
                _write_all(fd, batch)
                offset += len(batch)
            os.fsync(fd)
        except OSError as err:
            err.filename = err.filename or self.log_path
            self._undo_append(fd, start, journal_written)
            raise
        except BaseException:
            self._undo_append(fd, start, journal_written)
            raise
        os.close(fd)
        if journal_written:
            os.unlink(self.journal_path)
        return first

    def _undo_append(self, fd: int, start: int, journal_written: bool) -> None:
        try:
            os.ftruncate(fd, start)
            os.fsync(fd)
        finally:
            os.close(fd)
            if journal_written:
                os.unlink(self.journal_path)

    def _write_journal(self, before: int, after: int, start: int, batch: bytes) -> None:
        """Replace the journal atomically (readers never see half of it):
        ``v2 <size before> <size after> <batch offset>`` and one short digest
        per record of the batch about to be written."""
        digests = " ".join(_record_digest(batch[k:k + LOG_RECORD])
                           for k in range(0, len(batch), LOG_RECORD))
        data = f"v2 {before} {after} {start}\n{digests}\n".encode()
        atomic.replace_file(self.journal_path, data, tmp=self.journal_path + ".tmp")

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
            _write_all(fd, encode_summary(text))
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
            _write_all(fd, b"record #%d before memo check --repair: " % i
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

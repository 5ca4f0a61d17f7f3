"""The records of a store, as bytes (docs/format.md): the widths and the
file names, how a memory and a summary are encoded into one fixed-width
record and read back, and what is wrong with one that cannot be read
(``problem_in_memory``, ``problem_in_summary``, ``restored_record``). Pure
but for ``read_at``, one read at an offset; ``optmem.store.memory`` (the
``Store``) is the only code that opens the files."""

from __future__ import annotations

import os
from collections import namedtuple

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


def permission(path: str) -> str:
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


def digest(data: bytes) -> str:
    import hashlib
    return hashlib.sha256(data).hexdigest()[:32]


def record_digest(record: bytes) -> str:
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


_DATES_SEEN: set = set()


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


#: The end of a padded record: spaces, then the newline (``check_record``).
_PADDING = b" " * (LOG_RECORD - 1) + b"\n"


#: Why a record of spaces or NUL bytes only is not one (``check_record``).
BLANK = "is blank (all spaces or NUL bytes)"


def check_record(record: bytes, width: int) -> tuple:
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


def memory_record(i: int, record: bytes) -> tuple:
    """``(why, line)``: why ``record`` is not a valid ``LOG.txt`` record for
    memory ``i`` (``why`` None when it is), and its line when it is (the
    decoded record without its newline and padding, ``check_record``)."""
    why, line = check_record(record, LOG_RECORD)
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
    return memory_record(i, record)[0]


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
    return memory_of(i, record[:-1].rstrip(b" ").decode("utf-8"))


def memory_of(i: int, line: str) -> Memory:
    """The ``Memory`` of a valid record's ``line``, its padding cut
    (``memory_record``)."""
    head = len(str(i)) + 2
    return Memory(i, line[head:head + 10], line[head + 11:])


def head_date(data: bytes, at: int, prefix: bytes) -> str | None:
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


def read_at(fd: int, offset: int, length: int) -> bytes:
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
    return check_record(record, TREE_RECORD)[0]

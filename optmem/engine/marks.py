"""What ``memo wake`` looks at of a sync tool's or a merge's marks: the
names of conflict copies, and the cheap look of ``quick_look``.

Every wake calls ``quick_look``: two ``stat`` calls for the store folder's
conflict copies where nothing changed since a listing found none
(``copies_beside``), the log's size, the head of its last record and the
levels' lengths. Where all is as memo left it, that is all:
``optmem.engine.replicas``, which words the warning
(``replicas.quick_warning``) and holds what ``memo check`` reads and
advises, is the larger part of a wake's start-up and is not imported.
Nothing here writes to the store; the listing mark is this user's state
(``LISTED_DIR``).
"""

from __future__ import annotations

import functools
import os
import re
import stat as stat_mod
import time
from collections import namedtuple

from optmem import blocks
from optmem.store.memory import (
    CONFIG_NAME,
    JOURNAL_NAME,
    KEPT_NAME,
    LOCK_NAME,
    LOG_NAME,
    LOG_RECORD,
    RECOVERED_NAME,
    SALT_NAME,
    TREE_NAME,
    Store,
)

Copy = namedtuple("Copy", "path name of tool")
Copy.__doc__ = ("A conflict copy: its ``path``, its file ``name``, the store file it is a "
                "copy ``of`` (``LOG.txt``, ``config`` or ``TREE/<s>``) and the ``tool`` "
                "that names files so.")

#: File-name shapes of conflict copies and backups, each with the groups
#: ``stem`` and ``ext`` whose join is the original name. Checked in order.
_COPY_SHAPES = [
    ("Syncthing", r"^(?P<stem>.+?)\.sync-conflict-[^.]*(?P<ext>\..*)?$", 0),
    ("Dropbox or Nextcloud",
     r"^(?P<stem>.+?) \([^()]*conflicted copy[^()]*\)(?P<ext>\..*)?$", re.I),
    ("rclone bisync", r"^(?P<stem>.+?)(?:\.conflict\d+|\.\.path[12])(?P<ext>)$", 0),
    ("rclone bisync", r"^(?P<stem>.+?)\.conflict\d+(?P<ext>\..*)$", 0),
    ("git (a merge's backup)", r"^(?P<stem>.+?)(?P<ext>)\.orig$", 0),
    ("git mergetool", r"^(?P<stem>.+?)_(?:BACKUP|BASE|LOCAL|REMOTE)_\d+(?P<ext>\..*)?$", 0),
    ("an editor's backup", r"^(?P<stem>.+?)(?P<ext>)(?:~|\.bak|\.swp|\.swo)$", 0),
    ("an editor's backup", r"^\.(?P<stem>.+?)(?P<ext>)\.sw[op]$", 0),
    ("an editor's backup", r"^#(?P<stem>.+?)(?P<ext>)#$", 0),
    ("a file manager or cloud drive (a numbered copy)",
     r"^(?P<stem>.+?) (?:\(\d+\)|\d+|copy(?: \d+)?)(?P<ext>\.[^.]*)?$", re.I),
]


@functools.lru_cache(maxsize=1)
def _copy_names() -> list:
    """``_COPY_SHAPES`` compiled, once, when a name needs them: a store
    folder holding only the store's own files never does (``conflict_copies``;
    compiled at import, this module cost memo wake 4.2 ms of self time, 0.7
    ms without: `benchmarks/startup.py --importtime wake`)."""
    return [(tool, re.compile(shape, flags)) for tool, shape, flags in _COPY_SHAPES]


#: The folder ``memo merge`` keeps what it replaced in: a backup, no conflict copy.
BACKUP_NAME = "merge-backup"
#: The names a store folder holds without a sync tool or a merge.
#: (The store's own files, memo's journal and salt, a project's and a
#: synced store's files: no name here has a copy's shape, so a folder
#: holding only these needs no copy pattern compiled.)
_OWN_NAMES = frozenset((LOG_NAME, CONFIG_NAME, TREE_NAME, LOCK_NAME, BACKUP_NAME, JOURNAL_NAME,
                        KEPT_NAME, RECOVERED_NAME, SALT_NAME, "REMOTES", "projects",
                        ".git", ".gitignore", ".gitattributes"))

#: A git conflict marker line: seven of one character, then a space or the end.
MARKER_SOURCE = rb"(?m)^(?:<{7}|>{7}|={7}|\|{7})(?: |$)"
#: The head of a whole log record: ``#<id> <YYYY-MM-DD> ``.
WHOLE_SOURCE = rb"#(\d{1,19}) \d{4}-\d\d-\d\d "


@functools.lru_cache(maxsize=None)
def compiled(source: bytes):
    """``source`` (``MARKER_SOURCE``, ``WHOLE_SOURCE``) compiled, once,
    when a log needs a look: a store of whole records whose last record is
    in place needs neither (compiled at import, both cost every ``memo
    wake`` a million instructions: callgrind, ``benchmarks/startup.py``)."""
    return re.compile(source)


def copy_of(name: str, in_tree: bool = False) -> tuple | None:
    """``(original, tool)`` when ``name`` is a conflict copy or backup of a
    store file (``LOG.txt``, ``config``; in ``TREE/`` a level ``2``, ``4``,
    ...), else None. Pure: names only."""
    for tool, pattern in _copy_names():
        m = pattern.match(name)
        if not m:
            continue
        original = m.group("stem") + (m.group("ext") or "")
        if in_tree:
            if original.isascii() and original.isdigit() and blocks.is_power_of_two(int(original)) \
                    and int(original) >= 2:
                return original, tool
        elif original in (LOG_NAME, CONFIG_NAME):
            return original, tool
    return None


def conflict_copies(store: Store, tree: bool = True) -> list:
    """Every ``Copy`` beside the store's files: one listing of the store
    directory, and with ``tree`` one of ``TREE/``. Sorted by path."""
    out = []
    places = [(store.root, False)] + ([(store.tree_path, True)] if tree else [])
    for folder, in_tree in places:
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            if name in _OWN_NAMES or (in_tree and name.isdigit()):
                continue  # a store file itself: no shape of a copy matches it
            found = copy_of(name, in_tree)
            if found:
                of = f"{TREE_NAME}/{found[0]}" if in_tree else found[0]
                out.append(Copy(os.path.join(folder, name), name, of, found[1]))
    return sorted(out)



# -- wake: what is cheap to see ------------------------------------------------

def level_overruns(store: Store, T: int) -> dict:
    """``{size: records}`` for each level holding more summaries than ``T``
    memories complete (``records > T // size``). One ``stat`` per level
    ``store.built`` looks at, plus one for the next size up (a level whose
    blocks are all past ``T``)."""
    sizes = blocks.level_sizes(T)
    out = {}
    for s in sizes:
        try:
            n = store.level_len(s)
        except Exception:  # a level that is no file memo reads: its reader says so
            continue
        if n > T // s:
            out[s] = n
    above = (sizes[-1] * 2) if sizes else 2
    try:
        n = store.level_len(above)
    except Exception:  # a level that cannot be read is check's to report
        n = 0
    if n:
        out[above] = n
    return out


#: How long (ns) the store folder's times must lie in the past before a
#: listing that found no copy is recorded (``copies_beside``): longer than
#: the coarsest timestamp a filesystem keeps (2 s on FAT), so a name added
#: after the listing can never carry the times recorded.
SETTLED_NS = 2_000_000_000

#: How long (ns) a listing found nothing for, at most: a filesystem that
#: keeps no real folder times (a network or cloud mount may show a fixed
#: one) still has its folder listed this often.
RELIST_NS = 600_000_000_000

#: The folder, under this user's state folder, of the listing marks: one
#: empty file per store folder, named by its device and inode numbers.
LISTED_DIR = "listed"


def _listed_path(st: os.stat_result) -> str:
    from optmem.store.paths import state_dir
    return os.path.join(state_dir(), LISTED_DIR, f"{st.st_dev:x}-{st.st_ino:x}")


def _record_listed(path: str, st: os.stat_result) -> None:
    """Keep the folder times ``st`` as the mark's own (its modification
    time the folder's change time, its access time the folder's
    modification time); a mark that cannot be written is left out."""
    try:
        folder = os.path.dirname(path)
        if not os.path.isdir(folder):
            os.makedirs(folder, mode=0o700, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
        try:
            if os.utime in os.supports_fd:
                os.utime(fd, ns=(st.st_mtime_ns, st.st_ctime_ns))
            else:
                os.utime(path, ns=(st.st_mtime_ns, st.st_ctime_ns))
        finally:
            os.close(fd)
    except OSError:
        pass


def copies_beside(store: Store) -> list:
    """``conflict_copies(store, tree=False)``, without listing the store
    folder where nothing can have come since a listing found nothing.

    A name added, removed or renamed in a folder changes its modification
    and change times. A listing that finds no copy is recorded in this
    user's state folder (``LISTED_DIR``) with the folder's times as they
    were *before* the listing, and only when those lie ``SETTLED_NS`` in
    the past; while the folder's times still equal the record, the answer
    is the same empty list, for two ``stat`` calls, for up to ``RELIST_NS``
    after the record was made. Any change since, memo's own writes included
    (a note's journal), means one listing again. A copy found is never
    recorded, so its warning stays until it is gone.
    """
    now = time.time_ns()  # before the stat: a later change is later than both
    try:
        st = os.stat(store.root)
    except OSError:
        return conflict_copies(store, tree=False)
    mark = _listed_path(st)
    try:
        was = os.stat(mark, follow_symlinks=False)
    except OSError:
        was = None
    if was is not None and stat_mod.S_ISREG(was.st_mode) \
            and was.st_mtime_ns == st.st_ctime_ns and was.st_atime_ns == st.st_mtime_ns \
            and 0 <= now - was.st_ctime_ns < RELIST_NS:
        return []
    copies = conflict_copies(store, tree=False)
    if not copies and max(st.st_ctime_ns, st.st_mtime_ns) < now - SETTLED_NS:
        _record_listed(mark, st)
    return copies


class Look:
    """What ``quick_look`` saw: the conflict ``copies`` beside the store
    files (``Copy`` list), ``log_size`` (bytes) when the log is not whole
    records and its tail looks like a merge's, ``last_head`` (the first 24
    bytes of the last record) when its head is not its own, ``over``
    (``level_overruns``) and ``count`` (memories). (A plain class: a
    ``namedtuple`` is built with ``exec`` at import, on every wake.)"""

    __slots__ = ("copies", "log_size", "last_head", "over", "count")

    def __init__(self, copies: list, log_size, last_head, over: dict, count: int):
        self.copies, self.log_size, self.last_head = copies, log_size, last_head
        self.over, self.count = over, count


def quick_look(store: Store) -> Look | None:
    """What a sync tool or a merge left that a wake can see cheaply, as a
    ``Look``, or None where the store is as memo leaves it (the usual case:
    two ``stat`` calls, the log's size, one small read and one ``stat`` per
    level). ``replicas.quick_warning`` words it."""
    copies = copies_beside(store)
    size = store.log_size()
    bad_size = None
    if size % LOG_RECORD:
        tail = store.read_log(size - size % LOG_RECORD, size % LOG_RECORD)
        if b"\n" in tail or compiled(MARKER_SOURCE).search(tail):
            bad_size = size
    count = store.count()
    last = None
    if count and store.date(count - 1) is None:
        last = store.read_log((count - 1) * LOG_RECORD, 24)
    over = level_overruns(store, count)
    if not copies and bad_size is None and last is None and not over:
        return None
    return Look(copies, bad_size, last, over, count)


def insert_after_first_line(text: str, line: str | None) -> str:
    """``text`` with ``line`` inserted after its first line (so a reader of
    ``^Your memory, part`` or ``^Cannot wake:`` still finds that first)."""
    if not line:
        return text
    first, sep, rest = text.partition("\n")
    return first + "\n" + line + (sep + rest if sep else "")

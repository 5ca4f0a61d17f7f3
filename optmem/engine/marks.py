"""What ``memo wake`` looks at of a sync tool's or a merge's marks: the
cheap part of ``optmem.engine.replicas``.

Every wake calls ``quick_warning``: two ``stat`` calls for the store
folder's conflict copies where nothing changed since a listing found none
(``copies_beside``), the log's size, the head of its last record and the
levels' lengths. Where all is as memo left it, that is all, and
``optmem.engine.replicas`` (the copies' name shapes, the steps that settle
them, what ``memo check`` reads) is never imported: it is the larger part
of a wake's start-up otherwise. Where something is seen, the warning is
worded there. Nothing here writes to the store; the listing mark is
this user's state (``LISTED_DIR``).
"""

from __future__ import annotations

import os
import stat as stat_mod
import time

from optmem import blocks, protocol
from optmem.store.memory import LOG_NAME, LOG_RECORD, TREE_NAME, Store


def _replicas():
    """``optmem.engine.replicas``, imported where something needs a look."""
    from optmem.engine import replicas
    return replicas


def level_overruns(store: Store, T: int) -> dict:
    """``{size: records}`` for each level holding more summaries than ``T``
    memories complete (``records > T // size``). One ``stat`` per level
    ``store.built`` looks at, plus one for the next size up (a level whose
    blocks are all past ``T``)."""
    sizes = blocks.level_sizes(T)
    out = {s: n for s, n in store.built(T).items() if n > T // s}
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
        return _replicas().conflict_copies(store, tree=False)
    mark = _listed_path(st)
    try:
        was = os.stat(mark, follow_symlinks=False)
    except OSError:
        was = None
    if was is not None and stat_mod.S_ISREG(was.st_mode) \
            and was.st_mtime_ns == st.st_ctime_ns and was.st_atime_ns == st.st_mtime_ns \
            and 0 <= now - was.st_ctime_ns < RELIST_NS:
        return []
    copies = _replicas().conflict_copies(store, tree=False)
    if not copies and max(st.st_ctime_ns, st.st_mtime_ns) < now - SETTLED_NS:
        _record_listed(mark, st)
    return copies


def quick_warning(store: Store) -> str | None:
    """One line for ``memo wake`` naming what a sync tool or a merge left,
    and what resolves it, or None.

    Looks only at what is cheap: the store directory's conflict copies
    (``copies_beside``: two ``stat`` calls where nothing changed since a
    listing found none, else one listing), the log's size (a whole number
    of 320-byte records?), the levels' lengths against ``T``, and the head
    of the last record (one small read).
    """
    seen = []
    copies = copies_beside(store)
    for c in copies[:2]:
        seen.append(f"{_replicas()._s(c.name)} beside {c.of} is a conflict copy ({c.tool})")
    if len(copies) > 2:
        seen.append(f"and {len(copies) - 2} more conflict copies")
    size = store.log_size()
    if size % LOG_RECORD:
        tail = store.read_log(size - size % LOG_RECORD, size % LOG_RECORD)
        r = _replicas()
        if b"\n" in tail or r._pattern(r._MARKER_SOURCE).search(tail):
            seen.append(f"{LOG_NAME} is {size:,} bytes, not a whole number of "
                        f"{LOG_RECORD}-byte records (a merge or an edit)")
    count = store.count()
    if count and store.date(count - 1) is None:
        last = store.read_log((count - 1) * LOG_RECORD, 24)
        r = _replicas()
        m = r._pattern(r._WHOLE_SOURCE).match(last)
        what = f"holds #{int(m.group(1))}" if m else "is not a memory"
        seen.append(f"the last record of {LOG_NAME} (#{count - 1}) {what}: "
                    f"records are out of place (a merge?)")
    over = level_overruns(store, count)
    if over:
        top = max((n * s for s, n in over.items()), default=0)
        seen.append(f"{TREE_NAME}/ summarises memories up to #{top - 1} but {LOG_NAME} "
                    f"ends at #{count - 1} (an older log put back?)" if count else
                    f"{TREE_NAME}/ summarises memories up to #{top - 1} but {LOG_NAME} is "
                    f"empty (an older log put back?)")
    if not seen:
        return None
    head = ("Warning: a sync tool or a merge changed this store: " + "; ".join(seen)
            + ". Memories may be missing below; nothing is lost yet. ")
    if len(seen) == 1 and len(copies) == 1 and copies[0].of == LOG_NAME:
        # The one case a merge settles whole: the copy kept outside the store, merged in.
        return head + ("Keep every copy; a person moves the copy out of the store and merges "
                       "it. " + protocol.person_can_run(_replicas().keep_and_merge(store, copies[0].path)))
    return head + ("Keep every copy and ask a person to settle it. "
                   + protocol.run(protocol.Order("check")))


def insert_after_first_line(text: str, line: str | None) -> str:
    """``text`` with ``line`` inserted after its first line (so a reader of
    ``^Your memory, part`` or ``^Cannot wake:`` still finds that first)."""
    if not line:
        return text
    first, sep, rest = text.partition("\n")
    return first + "\n" + line + (sep + rest if sep else "")

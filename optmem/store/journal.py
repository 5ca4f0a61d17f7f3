"""The append journal of a store (docs/recovery.md): how an append is
written (``append``: one batch of whole records after a journal of it),
undone, and rolled back or kept after a crash (``recover``, under the
lock), and a torn tail cut to ``recovered.txt``. Each function takes the
``Store`` it works on; the ``Store`` methods of the same names call them."""

from __future__ import annotations

import os
from typing import Any, Iterable

from optmem import atomic
from optmem.errors import Damaged
from optmem.protocol import Order
from optmem.store.records import (
    KEPT_NAME,
    LOG_RECORD,
    digest,
    problem_in_memory,
    record_digest,
)

#: The ``optmem.store.memory.Store`` each function works on (named, not
#: imported: that module imports this one).
Store = Any


def read_journal(store: Store) -> dict | None:
    """The ``.append`` journal as a dict, or None when absent or unreadable.

    Keys: ``before``, ``after`` (log sizes in bytes), and either
    ``start`` (offset of the batch in flight) with ``digests`` (one per
    record of that batch), or, for memo 0.1's journal, ``first`` (the
    digest of the first record written).
    """
    try:
        with atomic.open_file(store.journal_path) as f:
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


def foreign_after(store: Store, journal: dict, size: int) -> int | None:
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
        first = store.read_log(before, LOG_RECORD)
        ours = (size <= journal["after"]
                and digest(first).encode() == journal["first"])
        return None if ours else before
    start, digests = journal["start"], journal["digests"]
    if size > journal["after"]:
        return max(start, journal["after"] - journal["after"] % LOG_RECORD)
    whole = size - size % LOG_RECORD
    if whole <= start:
        return None
    data = store.read_log(start, whole - start)
    for k in range(len(data) // LOG_RECORD):
        if k >= len(digests) or \
                record_digest(data[k * LOG_RECORD:(k + 1) * LOG_RECORD]) != digests[k]:
            return start + k * LOG_RECORD
    return None


def kept_appends(store: Store) -> list:
    """``[(first_id, foreign_id), ...]``: appends that were interrupted
    and kept because another tool appended after them (``.append.kept``)."""
    path = os.path.join(store.root, KEPT_NAME)
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


def recover(store: Store) -> None:
    """Under the lock: undo an append that never finished (journal) when
    nothing another tool wrote follows it, then cut a torn log tail
    (``tail_is_torn``), keeping its bytes in ``recovered.txt``."""
    if os.path.lexists(store.journal_path):
        if not os.path.isfile(store.journal_path) or os.path.islink(store.journal_path):
            raise Damaged(f"{store.journal_path} is not a regular file, so no append can "
                          f"be made safely; once it is moved out of the store memo makes a "
                          f"new one. {store.move_aside(store.journal_path)}")
        journal = store.read_journal()
        size = store.log_size()
        if journal is not None and size > journal["before"]:
            before = journal["before"]
            foreign = store.foreign_after(journal, size)
            if foreign is None:
                # Every byte after ``before`` is this tool's unfinished
                # append: roll it back (it was never acknowledged).
                store._truncate(store.log_path, before)
                store.notices.append(
                    f"an append that never finished was rolled back "
                    f"({(size - before) // LOG_RECORD} records of it had been written)")
            elif "digests" in journal and foreign > before:
                # Another tool appended after the crash: never remove its
                # records, so the interrupted append stays too.
                store._note_kept(before, foreign)
                store.notices.append(
                    f"an append that never finished left #{before // LOG_RECORD}-"
                    f"#{foreign // LOG_RECORD - 1} in the log and another tool wrote "
                    f"after them, so nothing was rolled back. "
                    f"{Order('check', (), Order.scoped(store.scope_flag)).line()}")
        os.unlink(store.journal_path)
    store._cut_torn_log_tail()


def note_kept(store: Store, before: int, foreign: int) -> None:
    """Record in ``.append.kept`` that the append from ``before`` (bytes)
    was kept because another tool wrote from ``foreign`` on."""
    path = os.path.join(store.root, KEPT_NAME)
    fd = atomic.open_regular(path, follow=False, append=True)
    try:
        atomic.write_all(fd, f"{before} {foreign}\n".encode())
        os.fsync(fd)
    finally:
        os.close(fd)


def tail_is_torn(store: Store) -> bool:
    """True when the log's last bytes (fewer than a record) follow whole
    records of which the last is well formed for its position: a torn
    last record, whatever its bytes (the seed drops such tails). False
    when the records before it are misaligned (a hand edit, a merge):
    damage for ``memo check``, never cut."""
    size = store.log_size()
    whole = size - size % LOG_RECORD
    n = whole // LOG_RECORD
    if n == 0:
        return True
    last = store.read_log(whole - LOG_RECORD, LOG_RECORD)
    return not last.strip(b"\x00") or problem_in_memory(n - 1, last) is None


def cut_torn_log_tail(store: Store) -> None:
    size = store.log_size()
    whole = size - size % LOG_RECORD
    # Trailing records of NUL bytes: space a crash allocated, never data
    # (readers never count them). They go before and after a torn tail:
    # the next append must land right after the last memory, at the id
    # it is written with.
    keep = whole
    if whole and store.read_log(whole - LOG_RECORD, 1) == b"\x00":
        keep = (store._last_non_nul_record(whole // LOG_RECORD) + 1) * LOG_RECORD
    if size == keep:
        return
    tail = store.read_log(whole, size - whole)
    if tail.strip(b"\x00") and not store.tail_is_torn():
        raise Damaged(
            f"{store.log_path} ends with {size - whole} bytes at offset {whole} after "
            f"records that are misaligned (a hand edit or a merge?); nothing was "
            f"changed.", then=Order("check"))
    text = tail.strip(b"\x00 ")
    if text:
        # Most likely an append that crashed before it was acknowledged,
        # but it may be the start of a memory cut short: keep a copy.
        fd = atomic.open_regular(store.recovered_path, follow=False, append=True)
        try:
            atomic.write_all(fd, text + b"\n")
            os.fsync(fd)
        finally:
            os.close(fd)
        store.notices.append(
            f"{store.log_path} ended with {len(tail)} bytes of an unfinished record "
            f"(offset {whole}); they were cut off and kept in {store.recovered_path}")
    store._truncate(store.log_path, keep)


def truncate(path: str, size: int) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.ftruncate(fd, size)
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_dir(path: str) -> None:
    atomic.sync_folder(path)


def append(store: Store, records: Iterable[bytes], total: int) -> int:
    """Append encoded records (an iterable of ``bytes`` batches holding
    ``total`` bytes in all); return the first id. Call under ``locked()``.

    The journal makes the append all or nothing: if the process dies or a
    write fails midway, the bytes already written are removed (now, or by
    the next writer after a crash).
    """
    start = store.log_size()
    first = start // LOG_RECORD
    fd = os.open(store.log_path, os.O_WRONLY | os.O_APPEND)
    journal_written = False
    try:
        offset = start
        for batch in records:
            # Before each batch: which records it holds, so a recovery
            # can tell them from records another tool appends later.
            store._write_journal(start, start + total, offset, batch)
            journal_written = True
            atomic.write_all(fd, batch)
            offset += len(batch)
        os.fsync(fd)
    except OSError as err:
        err.filename = err.filename or store.log_path
        store._undo_append(fd, start, journal_written)
        raise
    except BaseException:
        store._undo_append(fd, start, journal_written)
        raise
    os.close(fd)
    if journal_written:
        os.unlink(store.journal_path)
    return first


def undo_append(store: Store, fd: int, start: int, journal_written: bool) -> None:
    try:
        os.ftruncate(fd, start)
        os.fsync(fd)
    finally:
        os.close(fd)
        if journal_written:
            os.unlink(store.journal_path)


def write_journal(store: Store, before: int, after: int, start: int, batch: bytes) -> None:
    """Replace the journal atomically (readers never see half of it):
    ``v2 <size before> <size after> <batch offset>`` and one short digest
    per record of the batch about to be written."""
    digests = " ".join(record_digest(batch[k:k + LOG_RECORD])
                       for k in range(0, len(batch), LOG_RECORD))
    data = f"v2 {before} {after} {start}\n{digests}\n".encode()
    atomic.replace_file(store.journal_path, data, tmp=store.journal_path + ".tmp")

"""``memo export [FILE]``: every memory as an import line, oldest first.

Each memory becomes ``YYYY-MM-DD <text>\\n`` (UTF-8), the format ``memo
import`` reads, so a log can be read out whole, compared with another, or
carried to another store: importing an export into an empty store gives
back the same ``LOG.txt`` byte for byte (memo writes each record from the
date and the stripped text, and the text is kept as it is). The log is read
in chunks of whole records (never held in memory); a record that is not a
memory in its place stops the export with the position and ``memo check``.
"""

from __future__ import annotations

import io
import os

from optmem import atomic
from optmem.errors import BadInput, Damaged
from optmem.protocol import Order
from optmem.store.memory import LOG_RECORD, Store, decode_memory, problem_in_memory

CHUNK_RECORDS = 4096  #: records read at a time


def lines(store: Store, T: int | None = None):
    """Yield ``bytes`` batches of import lines for memories ``[0, T)``
    (default: all). Raises ``Damaged`` naming a bad record (nothing of it
    is yielded)."""
    from optmem.engine.check import clean_bytes, heads_fine  # check's chunk checks, in C
    T = store.count() if T is None else T
    good_dates = set()
    for start in range(0, T, CHUNK_RECORDS):
        n = min(CHUNK_RECORDS, T - start)
        data = store.read_log(start * LOG_RECORD, n * LOG_RECORD)
        if clean_bytes(data, LOG_RECORD, n) and heads_fine(data, start, n, good_dates, set()):
            # Every record is ``#<i> <date> <text>`` padded: the line is the
            # bytes after ``#<i> ``, without the padding.
            yield b"\n".join(
                data[k * LOG_RECORD + len(b"#%d " % (start + k)):(k + 1) * LOG_RECORD - 1]
                .rstrip(b" ") for k in range(n)) + b"\n"
            continue
        out = []
        for k in range(n):
            i = start + k
            record = data[k * LOG_RECORD:(k + 1) * LOG_RECORD]
            why = problem_in_memory(i, record)
            if why:
                raise Damaged(f"{store.log_path} record #{i} (offset {i * LOG_RECORD}) {why}, "
                              f"so the log cannot be exported whole.",
                              then=Order("check", (), Order.scoped(store.scope_flag)))
            m = decode_memory(i, record)
            out.append(f"{m.date} {m.text}\n".encode("utf-8"))
        yield b"".join(out)


def export(store: Store, write) -> int:
    """Write every memory through ``write(bytes)``; return how many."""
    T = store.count()
    for batch in lines(store, T):
        write(batch)
    return T


def export_to_file(store: Store, path: str) -> int:
    """Export into a new file at ``path`` (0600); return how many memories.

    Refuses (``BadInput``) a path that exists: an export never replaces a
    file. On any failure the partial file is removed.
    """
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise BadInput(f"{path} exists; an export never replaces a file. Give a new file "
                       f"name, or leave FILE out to write to standard output") from None
    try:
        try:
            with io.BufferedWriter(atomic.WholeWrites(fd)) as f:  # never cut short unnoticed
                count = export(store, f.write)
                f.flush()
                os.fsync(fd)
        finally:
            os.close(fd)
    except BaseException as err:
        try:
            os.unlink(path)
        except OSError:
            pass
        if isinstance(err, OSError) and err.filename is None:
            err.filename = path  # the export's file failed, not the store
        raise
    return count

"""``memo check``: read the whole store and report every problem.

Each problem is one line naming the file, the position, what is wrong and
the command that recovers. The log is read in chunks of whole records with
chunk-level checks in C (newline positions, UTF-8, an anchored regex for
``#<id> <date> ``), falling back to a record-by-record look only inside a
chunk that fails, so a healthy million-memory store checks in about a
second. Nothing is written.
"""

from __future__ import annotations

import os
import re
import stat as stat_mod

from . import blocks
from .errors import ConfigError
from .store import (JOURNAL_NAME, LOG_RECORD, TREE_RECORD, Store, is_date,
                    problem_in_memory, problem_in_summary)

CHUNK_RECORDS = 8192
_HEAD = re.compile(r"^#(\d+) (\d\d\d\d-\d\d-\d\d) ", re.MULTILINE)
#: What memo never writes inside a record (see ``store.problem_in_memory``):
#: controls other than TAB, and the Unicode line separators; the newline
#: that ends each record is checked by position instead.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")


def _check_log(store: Store, T: int, problems: list) -> None:
    good_dates = set()
    for start in range(0, T, CHUNK_RECORDS):
        n = min(CHUNK_RECORDS, T - start)
        data = store.read_log(start * LOG_RECORD, n * LOG_RECORD)
        fine = (data[LOG_RECORD - 1::LOG_RECORD] == b"\n" * n and data.count(b"\n") == n
                and b"\x00" not in data)
        if fine:
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                fine = False
        if fine:
            fine = not _CONTROL.search(text)
        if fine:
            heads = _HEAD.findall(text)
            fine = (len(heads) == n
                    and [h[0] for h in heads] == [str(i) for i in range(start, start + n)])
            if fine:
                for date in {h[1] for h in heads} - good_dates:
                    if not is_date(date):
                        fine = False
                        break
                    good_dates.add(date)
        if fine:
            continue
        for k in range(n):
            i = start + k
            why = problem_in_memory(i, data[k * LOG_RECORD:(k + 1) * LOG_RECORD])
            if why:
                problems.append(str(store.damaged_memory(i, why)))


def _check_tree(store: Store, T: int, problems: list, notes: list) -> None:
    try:
        names = sorted(os.listdir(store.tree_path))
    except FileNotFoundError:
        if T >= 2:
            problems.append(f"{store.tree_path} is missing; create it with: mkdir -m 700 "
                            f"{store.tree_path}, then Run: memo sleep")
        return
    except NotADirectoryError:
        problems.append(f"{store.tree_path} is not a directory; move it away, then "
                        f"Run: mkdir -m 700 {store.tree_path} and memo sleep")
        return
    lengths = {}
    for name in names:
        path = os.path.join(store.tree_path, name)
        size = int(name) if name.isascii() and name.isdigit() and len(name) < 25 else 0
        if size < 2 or not blocks.is_power_of_two(size):
            problems.append(f"{path} is not a level file memo knows (names are 2, 4, 8, ...); "
                            f"move it out of TREE/")
            continue
        try:
            st = os.stat(path)
        except OSError as err:
            problems.append(f"{path} cannot be read ({err.strerror}); move it away, "
                            f"then Run: memo sleep")
            continue
        if not stat_mod.S_ISREG(st.st_mode):
            problems.append(f"{path} is not a regular file; move it away, then Run: memo sleep")
            continue
        n = st.st_size // TREE_RECORD
        lengths[size] = n
        if st.st_size % TREE_RECORD:
            notes.append(f"{path} ends with {st.st_size % TREE_RECORD} bytes of an unfinished "
                         f"summary (offset {n * TREE_RECORD}): harmless, readers skip them and "
                         f"the next memo note (or summary stored at this level) cuts them")
        allowed = T // size
        if n > allowed:
            lo = allowed * size
            problems.append(f"{path} holds {n} summaries but the log completes only {allowed} "
                            f"blocks of {size}; Run: memo forget "
                            f"{blocks.block_name(lo, lo + size)}")
        with open(path, "rb") as f:
            for k in range(min(n, allowed)):
                record = f.read(TREE_RECORD)
                why = problem_in_summary(record)
                if why:
                    lo = k * size
                    problems.append(f"{path} record {k} (offset {k * TREE_RECORD}), the summary "
                                    f"of {blocks.block_name(lo, lo + size)}, {why}; Run: memo "
                                    f"forget {blocks.block_name(lo, lo + size)}")
    for size, n in sorted(lengths.items()):
        if size == 2:
            continue
        below = lengths.get(size // 2, 0)
        if min(n, T // size) > below // 2:
            k = below // 2
            lo = k * size
            problems.append(f"{store.level_path(size)} holds summary {blocks.block_name(lo, lo + size)} "
                            f"but not both of its halves in TREE/{size // 2}; Run: memo forget "
                            f"{blocks.block_name(lo, lo + size)}")


def check(store: Store) -> tuple:
    """Check every record; return ``(problems, notes)`` as lists of lines.

    ``problems`` are damage (each with its recovery); ``notes`` are facts
    that need no repair, such as pending compressions.
    """
    problems, notes = [], []
    try:
        store.config_values()
    except ConfigError as err:
        problems.append(str(err))
    if not os.path.isfile(store.log_path):
        problems.append(f"{store.log_path} is not a regular file; restore the log")
        return problems, notes
    size = store.log_size()
    T = store.count()
    if size // LOG_RECORD > T:
        notes.append(f"{size // LOG_RECORD - T} records after the last memory belong to an append "
                     f"that never finished (NUL bytes, or a crashed import); readers skip "
                     f"them and the next memo note cuts them")
    if size % LOG_RECORD:
        extra = size % LOG_RECORD
        problems.append(f"{store.log_path} {store.tail_problem()}; the next write cuts them if "
                        f"they are an unfinished append, else refuses to append. A human "
                        f"can keep them and cut them off with: tail -c {extra} "
                        f"{store.log_path} > memo-tail.txt && truncate -s {size - extra} "
                        f"{store.log_path}")
    if os.path.lexists(os.path.join(store.root, JOURNAL_NAME)):
        notes.append("an append was interrupted; the next memo note rolls it back")
    if os.path.lexists(store.lock_path) and not os.path.isfile(store.lock_path):
        problems.append(f"{store.lock_path} is not a regular file, so no write can take the "
                        f"lock; move it away (memo makes a new one)")
    _check_log(store, T, problems)
    _check_tree(store, T, problems, notes)
    built = {}
    try:
        built = store.built(T)
    except Exception:  # already reported by _check_tree
        pass
    pending = blocks.pending_count(T, built)
    notes.insert(0, f"{T} memories, {blocks.complete_count(T) - pending} summaries built, "
                    f"{pending} pending.")
    if pending and not problems:
        notes.append("Run: memo sleep")
    return problems, notes

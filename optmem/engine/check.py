"""``memo check``: read the whole store and report every problem.

Each problem is one line naming the file, the position, what is wrong and
the command that recovers. Every file is read in chunks of whole records
with chunk-level checks done in C (newline positions, control bytes, UTF-8,
and for the log each record's ``#<id> <date> `` head, compared column by
column against the ids the chunk must hold), falling back to a
record-by-record look only inside a chunk that fails. Nothing is written.
"""

from __future__ import annotations

import os
import re

from optmem import atomic, blocks
from optmem.engine import replicas
from optmem.engine.marks import BACKUP_NAME, conflict_copies, copy_of
from optmem.engine.view import built_or_broken, sleep_step
from optmem.errors import ConfigError, Damaged, MemoError
from optmem.protocol import Order, Problem, person_can_run, shell
from optmem.store.memory import (
    JOURNAL_NAME,
    KEPT_NAME,
    LOG_RECORD,
    RECOVERED_NAME,
    TREE_RECORD,
    Store,
    date_shaped,
    is_date,
    problem_in_memory,
    problem_in_summary,
    unreadable,
)
from optmem.textform import shown

CHUNK_RECORDS = 8192
#: What the stand-in line of a damaged record starts with (``view.DAMAGED_TEXT``,
#: and the older wording): a summary holding it was written from the stand-in.
STAND_IN = b"[damaged record"
_HEAD = re.compile(r"^#(\d+) (\d\d\d\d-\d\d-\d\d) ", re.MULTILINE)
#: Bytes that may stand in a record: printable ASCII, UTF-8 lead and
#: continuation bytes, and the newline (checked by position). Deleting them
#: leaves only control bytes, so one C call finds any.
_SAFE = bytes(range(0x20, 0x7F)) + bytes(range(0x80, 0x100)) + b"\n"
#: C1 controls (C2 80..C2 9F) and U+2028/U+2029 (E2 80 A8/A9) in UTF-8,
#: found by mapping each byte to a class and looking for the class pattern:
#: two C passes instead of a regex over the chunk.
_CLASSES = bytearray(256)
_CLASSES[0xC2], _CLASSES[0xE2], _CLASSES[0xA8], _CLASSES[0xA9] = 2, 3, 4, 4
for _b in range(0x80, 0xA0):
    _CLASSES[_b] = 1
_CLASSES = bytes(_CLASSES)


def clean_bytes(data: bytes, width: int, n: int) -> bool:
    """Chunk-level check, all in C: ``n`` records of ``width`` bytes, each
    one UTF-8 line ending in its newline, with no NUL or control byte and no
    blank record."""
    if data[width - 1::width] != b"\n" * n or data.count(b"\n") != n:
        return False
    if data.translate(None, _SAFE):
        return False
    if b"\xc2" in data or b"\xe2\x80" in data:
        classes = data.translate(_CLASSES)
        if b"\x02\x01" in classes or b"\x03\x01\x04" in classes:
            return False
    # Newlines stand only at record ends (checked above), so width-1 spaces
    # and a newline can only be a whole blank record.
    if b" " * (width - 1) + b"\n" in data:
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _digit_column(place: int, start: int, n: int) -> bytes:
    """The digit at ``place`` (1, 10, 100, ...) of the ids ``start ..
    start+n-1``, one byte each: built by repetition, no loop per id.

    Work is O(n) bytes whatever ``place`` is: a place up to ``n`` repeats
    its 10 * ``place``-byte cycle; a larger one changes digit at most
    ``n // place + 1`` times, so it is built from those runs (a cycle of
    10 * ``place`` bytes would cost 100 MB per chunk at ids of 10 million)."""
    if place <= n:
        cycle = b"".join(bytes([48 + d]) * place for d in range(10))
        offset = start % (10 * place)
        reps = (offset + n) // len(cycle) + 1
        return (cycle * reps)[offset:offset + n]
    runs, i, end = [], start, start + n
    while i < end:
        nxt = min(end, (i // place + 1) * place)
        runs.append(bytes([48 + (i // place) % 10]) * (nxt - i))
        i = nxt
    return b"".join(runs)


def heads_fine(data: bytes, start: int, n: int, good_dates: set, odd: set) -> bool:
    """Each record starts ``#<its id> <a real date> ``. Column slices when
    every id in the chunk has the same number of digits, else a regex."""
    digits = len(str(start))
    if len(str(start + n - 1)) == digits:
        col = lambda k: data[k::LOG_RECORD]  # noqa: E731  (one byte per record)
        if col(0) != b"#" * n or col(digits + 1) != b" " * n or col(digits + 12) != b" " * n:
            return False
        for j in range(digits):
            if col(1 + j) != _digit_column(10 ** (digits - 1 - j), start, n):
                return False
        at = digits + 2
        if col(at + 4) != b"-" * n or col(at + 7) != b"-" * n:
            return False
        dates = set(zip(*(col(at + k) for k in (0, 1, 2, 3, 5, 6, 8, 9))))
        for d in dates - good_dates:
            text = bytes(d).decode("ascii", "replace")
            date = f"{text[:4]}-{text[4:6]}-{text[6:]}"
            if not date_shaped(date):
                return False
            if not is_date(date):  # another tool's 2025-02-30: shown as it is
                odd.add(date)
            good_dates.add(d)
        return True
    heads = _HEAD.findall(data.decode("utf-8"))
    odd.update(h[1] for h in heads if date_shaped(h[1]) and not is_date(h[1]))
    return (len(heads) == n
            and [h[0] for h in heads] == [str(i) for i in range(start, start + n)]
            and all(date_shaped(h[1]) for h in heads))


def _check_log(store: Store, T: int, damage: replicas.LogDamage, odd: set) -> None:
    good_dates = set()
    for start in range(0, T, CHUNK_RECORDS):
        n = min(CHUNK_RECORDS, T - start)
        data = store.read_log(start * LOG_RECORD, n * LOG_RECORD)
        if clean_bytes(data, LOG_RECORD, n) and heads_fine(data, start, n, good_dates, odd):
            continue
        for k in range(n):
            i = start + k
            record = data[k * LOG_RECORD:(k + 1) * LOG_RECORD]
            why = problem_in_memory(i, record)
            if why:
                damage.add(i, why, record)


def _check_tree(store: Store, T: int, problems: list, notes: list, over: dict) -> None:
    try:
        names = sorted(os.listdir(store.tree_path))
    except FileNotFoundError:
        if T >= 2:
            problems.append(f"{store.tree_path} is missing; memo sleep makes it again and "
                            f"rebuilds the summaries. {' '.join(sleep_step(store, T))}")
        return
    except NotADirectoryError:
        problems.append(f"{store.tree_path} is not a directory; it only holds summaries, which "
                        f"memo sleep rebuilds once it is moved out of the store. "
                        f"{store.move_aside(store.tree_path)}")
        return
    lengths = {}
    stand_ins = []  # (size, k) of summaries that quote a damaged record's stand-in
    for name in names:
        path = os.path.join(store.tree_path, name)
        size = int(name) if name.isascii() and name.isdigit() and len(name) < 25 else 0
        if not size and copy_of(name, in_tree=True):
            continue  # a conflict copy: replicas.findings names it
        if size < 2 or not blocks.is_power_of_two(size):
            problems.append(f"{shown(path)} is not a level file memo knows (names are 2, 4, 8, ...); "
                            f"a person moves it out of the store. {store.move_aside(path)}")
            continue
        try:
            store.level_len(size)  # a link, not a file, unreadable: named with its step
            st = os.stat(path)
            f = open(path, "rb")
        except (Damaged, MemoError) as err:
            problems.append(Problem.of(err))
            continue
        except PermissionError as err:
            problems.append(unreadable(path, err))
            continue
        except OSError as err:
            problems.append(f"{path} cannot be read ({err.strerror}); memo sleep rebuilds its "
                            f"summaries once it is moved out of the store. {store.move_aside(path)}")
            continue
        n = st.st_size // TREE_RECORD
        lengths[size] = n
        if st.st_size % TREE_RECORD:
            notes.append(f"{path} ends with {st.st_size % TREE_RECORD} bytes of an unfinished "
                         f"summary (offset {n * TREE_RECORD}): harmless, readers skip them and "
                         f"the next memo note (or summary stored at this level) cuts them")
        allowed = T // size
        if n > allowed:
            over[size] = n  # replicas.overrun_problem: an older log put back?
        with f:
            for first in range(0, min(n, allowed), CHUNK_RECORDS):
                m = min(CHUNK_RECORDS, min(n, allowed) - first)
                data = f.read(m * TREE_RECORD)
                at = data.find(STAND_IN)
                while at >= 0:  # summarised from a stand-in line, not a memory
                    stand_ins.append((size, first + at // TREE_RECORD))
                    at = data.find(STAND_IN, (at // TREE_RECORD + 1) * TREE_RECORD)
                if clean_bytes(data, TREE_RECORD, m):
                    continue
                for k in range(first, first + m):
                    record = data[(k - first) * TREE_RECORD:(k - first + 1) * TREE_RECORD]
                    why = problem_in_summary(record)
                    if why:
                        lo = k * size
                        problems.append(Problem(
                            f"{path} record {k} (offset {k * TREE_RECORD}), the summary of "
                            f"{blocks.block_name(lo, lo + size)}, {why}.",
                            Order("forget", (blocks.block_name(lo, lo + size),))))
    if stand_ins:
        size, k = min(stand_ins)
        name = blocks.block_name(k * size, (k + 1) * size)
        more = len(stand_ins) - 1
        problems.append(Problem(
            f"{store.level_path(size)} record {k}, the summary of {name}, quotes the "
            f"stand-in line of a damaged record instead of the memory"
            f"{f' ({more} more summaries do too; memo check names the next once this is gone)' if more else ''}: "  # noqa: E501
            f"forgotten, it is written again from the log once the record is repaired.",
            Order("forget", (name,))))
    for size, n in sorted(lengths.items()):
        if size == 2:
            continue
        below = lengths.get(size // 2, 0)
        if min(n, T // size) > below // 2:
            k = below // 2
            lo = k * size
            problems.append(Problem(
                f"{store.level_path(size)} holds summary {blocks.block_name(lo, lo + size)} "
                f"but not both of its halves in TREE/{size // 2}.",
                Order("forget", (blocks.block_name(lo, lo + size),))))


def _side_files(store: Store) -> list:
    """A line for each side file of the store (``recovered.txt``,
    ``.append``, ``.append.kept``) that exists but is not a
    regular file (a folder, a FIFO): memo cannot use it, so writes stop
    there; the line names the person's ``mv``."""
    import stat

    out = []
    for name in (RECOVERED_NAME, JOURNAL_NAME, KEPT_NAME):
        path = os.path.join(store.root, name)
        try:
            mode = os.lstat(path).st_mode
        except OSError:
            continue
        if not stat.S_ISREG(mode) and not stat.S_ISLNK(mode):
            out.append(str(atomic.NotRegular(path, atomic.kind_of(mode))))
    return out


def check(store: Store) -> tuple:
    """Check every record; return ``(problems, notes)`` as lists of lines.

    ``problems`` are damage (each with its recovery); ``notes`` are facts
    that need no repair, such as pending compressions.
    """
    problems, notes = [], []
    try:
        store.config_values()
        notes += store.config_idle_lines()
    except ConfigError as err:
        problems.append(str(err))
    if not os.path.isfile(store.log_path):
        problems.append(f"{store.log_path} is not a regular file; restore the log")
        return problems, notes
    problems += _side_files(store)
    size = store.log_size()
    T = store.count()
    if size // LOG_RECORD > T:
        extra = size // LOG_RECORD - T
        notes.append(f"{extra} record{'s' if extra > 1 else ''} after the last memory belong to an append "
                     f"that never finished (NUL bytes, or a crashed import); readers skip "
                     f"them and the next memo note cuts them")
    damage, odd = replicas.LogDamage(), set()
    _check_log(store, T, damage, odd)
    damage.settle(store)
    if size % LOG_RECORD and not damage.shifted:  # a shift explains the size
        extra = size % LOG_RECORD
        if store.tail_is_torn():
            notes.append(f"{store.log_path} {store.tail_problem()}: a torn last record (a "
                         f"write that never finished); readers skip it, and the next memo "
                         f"write cuts it off and keeps its bytes in {store.recovered_path}")
        else:
            problems.append(f"{store.log_path} {store.tail_problem()}, after records that are "
                            f"misaligned (a hand edit, a merge, conflict markers?); memo cuts "
                            f"nothing and appends nothing. A person restores LOG.txt from a "
                            f"copy, or repairs the records named here; memo check then says "
                            f"whether the store is whole")
    journal = os.path.join(store.root, JOURNAL_NAME)
    if os.path.lexists(journal):
        if os.path.isfile(journal) and not os.path.islink(journal):
            state = store.read_journal()
            if state is not None and store.foreign_after(state, size) is not None:
                notes.append("an append was interrupted and another tool wrote after it; "
                             "the next memo write keeps every record and notes it here")
            else:
                notes.append("an append was interrupted; the next memo write rolls it back")
        else:
            problems.append(f"{journal} is not a regular file, so no append can be made "
                            f"safely; once it is moved out of the store memo makes a new one. "
                            f"{store.move_aside(journal)}")
    if os.path.lexists(store.lock_path) and not os.path.isfile(store.lock_path):
        problems.append(f"{store.lock_path} is not a regular file, so no write can take the "
                        f"lock; once it is moved out of the store memo makes a new one. "
                        f"{store.move_aside(store.lock_path)}")
    for first, foreign in store.kept_appends():
        problems.append(f"memories #{first}-#{foreign - 1} come from an append (an import?) that "
                        f"was interrupted; another tool then wrote #{foreign} on, so they were "
                        f"kept, not rolled back. Review them (an import run again holds them "
                        f"twice): memo recall '^#{first} '. Once they are reviewed, this note can go. "
                        f"{person_can_run(shell('rm', os.path.join(store.root, KEPT_NAME)))}")
    if odd:
        shown = ", ".join(sorted(odd)[:5]) + (", ..." if len(odd) > 5 else "")
        notes.append(f"{len(odd)} date{'s' if len(odd) > 1 else ''} in the log "
                     f"{'are' if len(odd) > 1 else 'is'} not a calendar date ({shown}), as "
                     f"another tool wrote them; they are shown as they are")
    problems += [Problem.of(store.damaged_memory(i, why)) for i, why in damage.in_itself]
    over = {}
    _check_tree(store, T, problems, notes, over)
    # What sync tools and merges left comes first: it explains the rest, and
    # while it stands no order may drop anything (replicas.defer).
    marks = replicas.findings(store, T, conflict_copies(store), damage, over)
    if marks:
        problems = marks + [replicas.defer(p) for p in problems]
    notes += replicas.surroundings(store)
    kept = os.path.join(store.root, BACKUP_NAME)
    if os.path.isdir(kept) and not os.path.islink(kept):
        try:
            n = len(os.listdir(kept))
        except OSError:
            n = 0
        if n:
            notes.append(f"{kept} keeps what {n} merge{'s' if n > 1 else ''} replaced (a "
                         f"backup, not a conflict copy); each merge's report said how to undo "
                         f"it, and a person deletes the folder once the merge is settled")
    built = {}
    try:  # a broken level counts none (_check_tree reports it); the others count
        built = built_or_broken(store, T)[0]
    except Exception:  # already reported by _check_tree
        pass
    pending = blocks.pending_count(T, built)
    built_n = blocks.complete_count(T) - pending
    notes.insert(0, f"{T} memor{'y' if T == 1 else 'ies'}, {built_n} "
                    f"summar{'y' if built_n == 1 else 'ies'} built, {pending} pending.")
    if pending and not problems:
        notes += sleep_step(store, T)  # the order in the form in force, or why none
    return problems, notes


def repair(store: Store) -> list:
    """``memo check --repair``: restore every log record whose head alone is
    damaged (``Store.restorable``: the id its place implies, and the date
    its neighbours share), keeping the old bytes in ``recovered.txt``;
    nothing else is changed. Returns one line per record restored; what is
    left (a record whose text is damaged needs a person: ``memo redact``)
    the check that follows names. The log's tail is not repaired here (a
    torn one is the next write's, a misaligned one a person's).

    While a sync tool's or a merge's marks stand (``replicas.findings``) a
    record out of place is no damaged head, so nothing is written and the
    one line says to settle those first.
    """
    out = []
    with store.locked(repair=False):  # in place: a damaged tail is a person's, not a reason to stop
        T = store.count()
        damage = replicas.LogDamage()
        _check_log(store, T, damage, set())
        damage.settle(store)
        if damage.out_of_place() or conflict_copies(store):
            return ["Nothing was repaired: a sync tool or a merge left marks on this store, "
                    "and a record out of place is no damaged head. Settle those first. "
                    + Order("check", (), Order.scoped(store.scope_flag)).line()]
        for i, why in damage.in_itself:
            was = store.read_log(i * LOG_RECORD, LOG_RECORD)
            fixed = store.restorable(i, was)
            if fixed is not None and store.restore_memory(i, was, fixed):
                out.append(f"Restored memory #{i}: its record {why}; the head its place "
                           f"implies was written back, its text is unchanged, and the old "
                           f"bytes are kept in {store.recovered_path}.")
    return out  # what is left, the check that follows names

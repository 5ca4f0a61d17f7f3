"""``memo merge OTHER``: make this store whole with another replica of it.

OTHER is another store's directory (a project store's too) or a lone log
file: a sync tool's conflict copy, a ``LOG.txt`` from a backup or from
``git show``. It is only ever read. The pure part (which records, in which
order, which summaries still hold) is ``optmem.merging``; this module reads
both sides, judges what one side lacks with the write guard, and writes the
result so that nothing is lost at any moment:

1. The merge is planned first without the lock (the slow hashes of
   tombstones, the alignment, the guard), then made under the store lock
   (a ``note`` meanwhile waits); if the store changed between the two, the
   plan is made again under the lock.
2. The log records that change and the summaries that go are copied first
   into ``merge-backup/<stamp>/`` in the store (``LOG.tail``,
   ``TREE/<size>.tail``, and ``merge.txt`` saying where they belong), and
   the new log is written whole beside them (``LOG.new``).
3. The levels are cut back to the summaries both logs share, the log is
   replaced whole by a rename (``optmem.atomic``), then the levels are
   extended with every summary that still holds. Readers take no lock: a
   wake running meanwhile sees the old log or the new one, each only with
   summaries of its own memories, and ``Store.log_stamp`` lets it notice
   that the log was swapped under it and read again.

A process killed at any step leaves the old store or the new one (only
summaries may be missing, which ``memo sleep`` builds). The report says how
to put the store back from ``merge-backup/`` (``undo``: ``memo merge --undo``).
"""

from __future__ import annotations

import functools
import os
import stat as stat_mod
from typing import NamedTuple

from optmem import atomic, blocks, protocol, textform
from optmem.engine.backlog import IMPORT_ASK_ABOVE
from optmem.errors import BadInput, MemoError
from optmem.store.memory import (
    LOG_NAME,
    LOG_RECORD,
    TREE_NAME,
    TREE_RECORD,
    encode_memory,
    encode_summary,
    problem_in_memory,
    problem_in_summary,
)

#: The folder in a store that keeps what each merge replaced.
BACKUP_DIR = "merge-backup"
#: More pending compressions than this after a merge ask for ``--yes``:
#: the import's threshold (``backlog.IMPORT_ASK_ABOVE``), for the same reason.
ASK_ABOVE = IMPORT_ASK_ABOVE

#: Why a record is refused that does not fit a 320-byte record at its new id.
TOO_LONG = "is too long for a record at its new id"
#: Refused records listed by position in one error line, at most.
LISTED = 8

#: ``N memories`` with thousands separators, for the report a person reads.
_counted = functools.partial(protocol.plural, grouped=True)


class Report(NamedTuple):
    """What ``merge`` did (or, with ``dry_run``, would do).

    ``lines``: the lines to print, in order (the last ones the undo step and
    ``Run: memo sleep`` where they apply). ``undo``: the person's command
    that puts the store back as it was before the merge (None when nothing
    was written). ``added``: memories of OTHER this store lacked, now in it.
    ``renumbered``: this store's memories whose id changed. ``pending``:
    compressions pending after the merge. ``wrote``: whether anything was
    written. ``total``: memories after the merge. ``backup``: the
    ``merge-backup/<stamp>`` folder (None when nothing was written).
    ``dropped``: records left out with ``drop_refused``.
    """

    lines: list
    undo: str | None
    added: int
    renumbered: int
    pending: int
    wrote: bool
    total: int = 0
    backup: str | None = None
    dropped: int = 0

    @property
    def text(self) -> str:
        """The lines joined with newlines (no newline at the end)."""
        return "\n".join(self.lines)


def _reached(step: str) -> None:
    """Called after each write step (``backup``, ``cut``, ``log``,
    ``swap``, ``level``, ``done``); does nothing. The crash tests replace
    it to stop the process dead at that step."""


def _q(path: str) -> str:
    """``path`` as one shell word of an order (``textform.quoted``)."""
    return textform.quoted(path)


def _s(path: str) -> str:
    """``path`` as a sentence shows it (``textform.shown``): never a line
    break or a control character of its own."""
    return textform.shown(path)



# -- reading OTHER -------------------------------------------------------------

class _Side(NamedTuple):
    """One side of a merge: ``records`` ``[(date, text)]``, ``built``
    ``{(lo, hi): summary}`` (half-open blocks, contiguous from the start of
    each level), and ``raw_levels`` ``{size: bytes}`` (this store only)."""

    records: list
    built: dict
    raw_levels: dict
    log: bytes = b""


def _refuse_damaged_other(shown: str, is_dir: bool, what: str) -> BadInput:
    if is_dir:
        step = f"MEMORY_DIR={_q(shown)} memo check"
    else:
        folder = shown.rstrip(os.sep) + "-store"
        step = (f"mkdir -m 700 {_q(folder)} && cp -p {_q(shown)} "
                f"{_q(os.path.join(folder, LOG_NAME))} && MEMORY_DIR={_q(folder)} memo check")
    return BadInput(f"{what}; nothing was written. Merge a whole copy, or see what is wrong "
                    f"with it. {protocol.person_can_run(step)}")


def _other_log(store, other: str) -> tuple:
    """``(log path, tree path or None, is_dir)`` of OTHER; refuses
    (``BadInput``) a path that is missing, not a store or a regular file,
    or this very store (the same folder, a link to it, or its log)."""
    if not other:
        raise BadInput("OTHER is empty; give another store's directory or a copy of its "
                       f"{LOG_NAME}")
    path = os.path.abspath(other)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise BadInput(f"{_s(other)}: no such file or directory; give another store's directory "
                       f"or a copy of its {LOG_NAME}") from None
    except OSError as err:
        raise BadInput(f"{_s(other)} cannot be read ({err.strerror}); give another store's "
                       f"directory or a copy of its {LOG_NAME} that this user can read") from None
    try:
        ours = os.stat(store.root)
        our_log = os.stat(store.log_path)
    except OSError:
        ours = our_log = None
    this = (f"{_s(other)} is this store itself ({_s(store.root)}); nothing was written. Give "
            f"another store's directory, or a copy of another machine's {LOG_NAME}")
    if stat_mod.S_ISDIR(st.st_mode):
        if ours is not None and os.path.samestat(st, ours):
            raise BadInput(this)
        log = os.path.join(path, LOG_NAME)
        try:
            lst = os.stat(log)
        except OSError:
            raise BadInput(f"{_s(other)} holds no {LOG_NAME}, so it is no memory store; give "
                           f"another store's directory, or a copy of its {LOG_NAME}") from None
        if our_log is not None and os.path.samestat(lst, our_log):
            raise BadInput(this)
        return log, os.path.join(path, TREE_NAME), True
    if not stat_mod.S_ISREG(st.st_mode):
        raise BadInput(f"{_s(other)} is a {atomic.kind_of(st.st_mode)}, not a store's directory "
                       f"or a log file; give another store's directory or a copy of its "
                       f"{LOG_NAME}")
    if our_log is not None and os.path.samestat(st, our_log):
        raise BadInput(this)
    return path, None, False


def _read_other(store, other: str) -> _Side:
    """OTHER's records and (for a store) its built summaries. Refuses
    (``BadInput``) a log that is not whole 320-byte records or holds a
    damaged record, naming the first."""
    log, tree, is_dir = _other_log(store, other)
    shown = other if is_dir else log
    try:
        with atomic.open_file(log) as f:
            size = os.fstat(f.fileno()).st_size
            if size % LOG_RECORD:
                raise _refuse_damaged_other(
                    shown, is_dir, f"{_s(log)} is {size:,} bytes, not a whole number of "
                                   f"{LOG_RECORD}-byte records (a torn copy, or one a tool "
                                   f"edited)")
            end = _end_of_records(f, size)  # space a crash allocated is never a memory
            if end > MAX_OTHER_BYTES:
                raise BadInput(
                    f"{_s(log)} holds {end // LOG_RECORD:,} records ({end:,} bytes), more than "
                    f"the {MAX_OTHER_BYTES // LOG_RECORD:,} memo merge reads in one merge; "
                    f"nothing was written. A person checks that it is a copy of this memory "
                    f"and not some other large file")
            f.seek(0)
            data = f.read(end)
    except atomic.NotRegular:
        kind = atomic.kind_of(os.stat(log).st_mode) if os.path.exists(log) else "special file"
        raise BadInput(f"{_s(log)} is a {kind}, not a log file, so nothing was read and "
                       f"nothing was written; give another store's directory or a copy of "
                       f"its {LOG_NAME}") from None
    except OSError as err:
        raise BadInput(f"{_s(log)} cannot be read ({err.strerror or err}); nothing was "
                       f"written") from None
    if len(data) != end:
        raise BadInput(f"{_s(log)} changed while it was read; nothing was written. "
                       + protocol.person_can_run(_again("memo merge", other)))

    def bad(i, why, record):
        return _refuse_damaged_other(
            shown, is_dir, f"{_s(log)} record #{i} (offset {i * LOG_RECORD:,}) {why}")

    records = decode_log(data, bad)
    built = {}
    if tree is not None:
        built = _read_levels(tree, len(records), follow=False, whole_files=False)[0]
    return _Side(records, built, {})


#: The most bytes of OTHER's log (after trailing NUL space) a merge reads:
#: 128 MiB, 419,430 memories (bounded memory and time).
MAX_OTHER_BYTES = 128 << 20
#: Bytes read at a time when looking for the end of OTHER's records.
_SCAN = 1 << 20


def _end_of_records(f, size: int) -> int:
    """The end (bytes, a multiple of ``LOG_RECORD``) of the file ``f`` of
    ``size`` bytes once its trailing all-NUL records are left off: read
    backwards from the end in ``_SCAN``-byte chunks, each byte once (linear
    time, memory bounded by a chunk); a sparse file's trailing hole, which
    the system reports (``SEEK_HOLE``), is skipped unread."""
    pos = size
    if hasattr(os, "SEEK_DATA") and size:
        try:  # the end of the last data run: a hole after it reads as NUL
            fd, at, last = f.fileno(), 0, 0
            for _ in range(1 << 16):
                try:
                    at = os.lseek(fd, at, os.SEEK_DATA)
                except OSError:
                    break  # ENXIO: no data after ``at``
                at = last = os.lseek(fd, at, os.SEEK_HOLE)
                if at >= size:
                    break
            else:
                last = size  # too many runs to walk: read them
            pos = min(size, last)
        except OSError:
            pos = size
    while pos > 0:
        start = max(0, pos - _SCAN)
        f.seek(start)
        chunk = f.read(pos - start)
        if len(chunk) != pos - start:
            return size  # changed meanwhile: read it all, the size check says so
        last = len(chunk.rstrip(b"\x00"))
        if last:
            end = start + last
            return -(-end // LOG_RECORD) * LOG_RECORD
        pos = start
    return 0


def decode_log(data: bytes, bad) -> list:
    """The ``(date, text)`` of every record of ``data`` (whole 320-byte log
    records, ids from #0). A damaged record raises ``bad(i, why, record)``
    (an exception to raise). Checked a chunk at a time as ``memo check``
    does (``check.clean_bytes``, ``check.heads_fine``), record by record only
    in a chunk that fails."""
    from optmem.engine.check import CHUNK_RECORDS, clean_bytes, heads_fine
    n = len(data) // LOG_RECORD
    out = []
    good_dates, odd = set(), set()
    for start in range(0, n, CHUNK_RECORDS):
        m = min(CHUNK_RECORDS, n - start)
        chunk = data[start * LOG_RECORD:(start + m) * LOG_RECORD]
        if not (clean_bytes(chunk, LOG_RECORD, m) and heads_fine(chunk, start, m, good_dates, odd)):
            for k in range(m):
                record = chunk[k * LOG_RECORD:(k + 1) * LOG_RECORD]
                why = problem_in_memory(start + k, record)
                if why:
                    raise bad(start + k, why, record)
        for k, line in enumerate(chunk.split(b"\n")[:m]):
            head = len(str(start + k)) + 2
            line = line.rstrip(b" ").decode("utf-8")
            out.append((line[head:head + 10], line[head + 11:]))
    return out


def _read_levels(tree: str, T: int, follow: bool, whole_files: bool = True) -> tuple:
    """``(built, raw)`` for the level files in ``tree``: ``built`` maps
    each block ``(lo, hi)`` (half-open) to its summary, contiguous from the
    start of each level up to the first record that is damaged or past
    ``T``; ``raw`` maps each size to the level file's bytes (with
    ``whole_files`` False, only the ``T // size`` records a log of ``T``
    memories can use are read: bounded by the log, whatever the file's size)."""
    from optmem.engine.check import clean_bytes
    built, raw = {}, {}
    try:
        names = os.listdir(tree)
    except OSError:
        return built, raw
    for name in names:
        if not (name.isascii() and name.isdigit()):
            continue
        size = int(name)
        if size < 2 or not blocks.is_power_of_two(size):
            continue
        path = os.path.join(tree, name)
        try:
            with atomic.open_file(path, follow=follow) as f:
                data = f.read() if whole_files else f.read((T // size) * TREE_RECORD)
        except OSError:
            continue
        raw[size] = data
        n = min(len(data) // TREE_RECORD, T // size)
        whole = data[:n * TREE_RECORD]
        if not clean_bytes(whole, TREE_RECORD, n):  # the summaries before the first bad one
            n = next((k for k in range(n)
                      if problem_in_summary(data[k * TREE_RECORD:(k + 1) * TREE_RECORD])), n)
            whole = data[:n * TREE_RECORD]
        for k, line in enumerate(whole.split(b"\n")[:n]):
            built[(k * size, (k + 1) * size)] = line.rstrip(b" ").decode("utf-8")
    return built, raw


def _read_ours(store) -> _Side:
    """This store's records and summaries (under the lock). Raises
    ``Damaged`` for a damaged record (its message orders the repair) and
    ``BadInput`` when the levels run past the log."""
    from optmem.engine import marks
    T = store.count()
    over = marks.level_overruns(store, T)
    if over:
        raise BadInput(f"this store's summaries reach past its log ({_s(store.tree_path)}), so "
                       f"it is not merged until that is settled; nothing was written. "
                       f"{protocol.run(protocol.Order('check'))}")
    log = store.read_log(0, T * LOG_RECORD)
    records = decode_log(log, lambda i, why, record: store.damaged_memory(i, why, record))
    for size in store.level_bytes():
        store.level_len(size)  # a level that is a link: Damaged, before anything
    built, raw = _read_levels(store.tree_path, T, follow=False)
    return _Side(records, built, raw, log)


# -- deciding ------------------------------------------------------------------

def _refusals(plan, ours: list, theirs: list, limit: int) -> list:
    """``[(position, why, side)]``: records of the merged log this store
    lacks (``side`` ``"theirs"``) that the write guard refuses or that are
    longer than ``limit`` bytes (``ENTRY_CHARS``, as a note would be), and
    records of either side too long for a record at their new id. Records
    this store already holds are never judged by the guard."""
    from optmem import merging
    from optmem.guard.text import find_problem
    P = plan.prefix  # held by both, byte for byte, at the same ids
    ours_keys = _multiset(ours[P:])
    theirs_keys = _multiset(theirs[P:])
    out = []
    for i in range(P, len(plan.records)):
        date, text = plan.records[i]
        key = merging.merge_key((date, text))
        if ours_keys.get(key, 0):
            # This store holds it: one occurrence of each side's, so repeats count.
            ours_keys[key] -= 1
            if theirs_keys.get(key, 0):
                theirs_keys[key] -= 1
            side = "ours"
        else:
            theirs_keys[key] = theirs_keys.get(key, 0) - 1
            side = "theirs"
        why = None
        if len(f"#{i} {date} {text}".encode("utf-8", "surrogatepass")) > LOG_RECORD - 1:
            why = f"{TOO_LONG} #{i}"  # cannot be written at all: before any judgement
        elif side == "theirs" and not merging.is_redacted(text):
            why = find_problem(text)
            size = len(text.encode("utf-8", "surrogatepass"))
            if why is None and size > limit:
                why = (f"is {size} bytes, more than the {limit} a memory may hold here "
                       f"(ENTRY_CHARS)")
        if why is not None:
            out.append((i, why, side))
    return out


def _multiset(records: list) -> dict:
    from optmem import merging
    out = {}
    for r in records:
        key = merging.merge_key(r)
        out[key] = out.get(key, 0) + 1
    return out


def _without(records: list, keys: dict) -> list:
    """``records`` less ``keys[k]`` occurrences of each key ``k``."""
    from optmem import merging
    left = dict(keys)
    out = []
    for r in records:
        key = merging.merge_key(r)
        if left.get(key, 0):
            left[key] -= 1
            continue
        out.append(r)
    return out


class _Judged(dict):
    """The other side's built summaries, each judged by the write guard
    ``memo sleep`` applies (``view.clean_text``) the first time the merge
    looks at it: a refused one is not there, so it is never taken over
    (``memo sleep`` builds that block), and its block is in ``refused``.
    A summary this store already holds for the same block is not judged."""

    def __init__(self, built: dict, ours: dict, limit: int):
        super().__init__(built)
        self.ours = ours
        self.limit = limit
        self.refused = set()
        self.judged = {}

    def _ok(self, block) -> bool:
        if block not in self.judged:
            text = dict.__getitem__(self, block)
            self.judged[block] = text == self.ours.get(block) or \
                _summary_problem(text, self.limit) is None
            if not self.judged[block]:
                self.refused.add(block)
        return self.judged[block]

    def __contains__(self, block) -> bool:
        return dict.__contains__(self, block) and self._ok(block)

    def __getitem__(self, block):
        if not self._ok(block):
            raise KeyError(block)
        return dict.__getitem__(self, block)


def _summary_problem(text: str, limit: int) -> str | None:
    """Why ``memo sleep`` would refuse ``text`` as a summary (one line), or
    None: the write guard (credentials, frame tags, control characters),
    an order written as the summary, more than ``limit`` bytes."""
    from optmem.engine.view import clean_text
    try:
        if clean_text(text, limit, "summary") != text:
            return "the summary is not in the form memo sleep stores"
    except MemoError as err:
        return str(err)
    return None


def _targets(records: list, sources: list) -> dict:
    """``{size: [summary, ...]}``: each level of the merged log as it is
    to be, contiguous from its start (``merging.reusable_summaries``)."""
    from optmem import merging
    T = len(records)
    sizes = blocks.level_sizes(T)
    reuse = merging.reusable_summaries(records, sources, sizes)
    out = {}
    for size in sizes:
        level = []
        for k in range(T // size):
            text = reuse.get((k * size, (k + 1) * size))
            if text is None:
                break
            level.append(text)
        if level:
            out[size] = level
    return out


# -- the command ----------------------------------------------------------------

def merge(store, other: str, *, dry_run: bool = False, drop_refused: bool = False,
          keep_refused: bool = False, unrelated: bool = False, yes: bool = False,
          again: str = "memo merge", old_redactions: bool = False) -> Report:
    """Merge OTHER (a path: another store's directory, or a lone log file)
    into ``store``: planned without the lock, written holding it (planned
    again under it if the store changed meanwhile); OTHER is only read.

    The merged log holds every memory of both sides (``optmem.merging``):
    the first ids both logs share stay, later ones may change. Records only
    this store lacks pass the write guard (its own are never judged again);
    a refused one is listed and nothing is written unless ``drop_refused``
    (leave it out of this store) or ``keep_refused`` (keep it) is given.
    Summaries are kept where their memories did not change and taken from
    OTHER where it built the same block and the guard passes them; the rest
    are pending compressions.

    Returns a ``Report``. With ``dry_run`` nothing is written (``wrote`` is
    False) and the report says what would be. Raises ``BadInput`` (one
    line and what to run) for every refusal: OTHER missing, damaged, not
    whole 320-byte records, or this store itself; the two sides hold
    memories and share none (unless ``unrelated``); refused records without
    a decision; more than ``ASK_ABOVE`` compressions pending after the merge,
    or more than ``merging.MAX_SLOW_HASHES`` tombstone hashes, without
    ``yes``; old plain redactions of OTHER that would blank this store's
    memories without ``old_redactions``; OTHER past ``MAX_OTHER_BYTES``.
    ``again`` is the command the refusals' steps repeat (the CLI adds its
    scope flag: ``memo merge --project NAME``). Raises
    ``Damaged`` for a damaged record in this store, ``Busy`` when the lock
    cannot be had, ``OSError`` for the filesystem.
    """
    if drop_refused and keep_refused:
        raise BadInput("--drop-refused and --keep-refused contradict each other; nothing was "
                       "written. A person gives one of them",
                       orders=[protocol.person_can_run(_again(again, other, "--drop-refused")),
                               protocol.person_can_run(_again(again, other, "--keep-refused"))])
    theirs = _read_other(store, other)
    if not dry_run and not store.writable():
        raise MemoError(f"this store ({_s(store.root)}) is read-only for this user (uid "
                        f"{os.getuid()}), so nothing can be merged into it; nothing was "
                        f"changed. A person makes the store writable, then runs memo merge "
                        f"again")
    decided = (dry_run, drop_refused, keep_refused, unrelated, yes, again, old_redactions)
    # The costly part (tombstones' slow hashes, the alignment, the guard)
    # runs before the lock is taken, on the store as read now; under the
    # lock the store is read again and the plan made again only if it
    # changed meanwhile (a note, a summary, a redaction).
    try:
        ours = _read_ours(store)
    except MemoError:
        if dry_run and not store.writable():
            raise  # no lock to take: the damage as found is the answer
        ours = None  # a write under way, or damage: read and say so under the lock
    if ours is not None:
        planned = _plan(store, other, ours, theirs, *decided)
        if isinstance(planned, Report):
            return planned
        _reached("planned")
    with store.locked(repair=not dry_run):
        now = _read_ours(store)
        if ours is None or now.log != ours.log or now.raw_levels != ours.raw_levels:
            planned = _plan(store, other, now, theirs, *decided)
            if isinstance(planned, Report):
                return planned
        return _commit(store, other, planned)


def _again(again: str, other: str, *flags: str) -> str:
    """The person's ``again`` (``memo merge``) with ``flags`` before OTHER."""
    words = " ".join(flags)
    return f"{again} {words + ' ' if words else ''}-- {_q(other)}"


class _Planned(NamedTuple):
    """A merge decided and not yet written (``_plan``), for ``_commit``."""

    lines: list
    ours: _Side
    first: int
    new_bytes: list
    old_bytes: list
    log_same: bool
    keep: dict
    target: dict
    redacted: list
    report: tuple  # (added, renumbered, pending, T, dropped)
    again: str = "memo merge"


def _plan(store, other, ours, theirs, dry_run, drop_refused, keep_refused, unrelated, yes,
          again, old_redactions=False):
    """The merge of ``theirs`` into ``ours`` (this store as read) decided:
    a ``Report`` when nothing is to be written (nothing missing, or
    ``dry_run``), else a ``_Planned``. Raises ``BadInput`` for each
    refusal. Writes nothing and takes no lock."""
    from optmem import merging
    mine, yours = ours.records, theirs.records
    try:
        mine, yours, killed = merging.apply_tombstones(
            mine, yours, None if yes else merging.MAX_SLOW_HASHES)
    except merging.TooManyHashes as err:
        raise BadInput(
            f"matching the {err.stones:,} redactions' tombstones of the two sides takes "
            f"{err.needed:,} slow hashes (tens of milliseconds each, more than the "
            f"{merging.MAX_SLOW_HASHES:,} memo computes without asking), so nothing was "
            f"written; the store is not locked while they run. To merge all the same, a "
            f"person confirms with --yes. "
            + protocol.person_can_run(_again(again, other, "--yes"))) from None
    redacted = [i for side, i in killed if side == "ours"]  # this store's, as it was
    plain = [i for i in redacted if mine[i][1] == merging.PLAIN_REDACTED]
    if plain and not old_redactions:
        listed = ", ".join(f"#{i}" for i in plain[:LISTED]) + (
            f" and {len(plain) - LISTED:,} more" if len(plain) > LISTED else "")
        raise BadInput(
            f"{_s(other)} holds old redactions ([redacted], with no hash to show they are "
            f"the same memories) where this store holds "
            f"{_counted(len(plain), 'memory', 'memories')} ({listed}), which the merge would "
            f"blank; nothing was written. A person compares those memories with the copy, "
            f"then lets the merge blank them all the same. "
            + protocol.person_can_run(_again(again, other, "--accept-old-redactions")))
    if mine and yours and not unrelated and not merging.related(mine, yours):
        raise BadInput(f"this store and {_s(other)} share no memory: they look like two "
                       f"identities, not two replicas of one, so nothing was written; merge "
                       f"them only if they are one memory. " + protocol.person_can_run(
                           _again(again, other, "--unrelated")))
    plan = merging.plan_merge(mine, yours)
    refused = _refusals(plan, mine, yours, store.config().ENTRY_CHARS)
    dropped = []
    long = [i for i, why, _ in refused if why.startswith(TOO_LONG)]
    if refused and not (drop_refused or keep_refused):
        listed = "; ".join(f"#{i} {why}" for i, why, _ in refused[:LISTED])
        more = f"; and {len(refused) - LISTED} more" if len(refused) > LISTED else ""
        judged = len(refused) - len(long)
        what = []
        if judged:
            what.append(f"the write guard refuses {_counted(judged, 'memory', 'memories')} that "
                        f"only the other side holds")
        if long:
            what.append(f"{_counted(len(long), 'memory is', 'memories are')} too long for a "
                        f"record at {'its' if len(long) == 1 else 'their'} new id")
        orders = [protocol.person_can_run(_again(again, other, "--drop-refused"))]
        if long:
            decide = "A person leaves them out (a record too long for its id cannot be kept)"
        else:
            decide = ("A person decides for all of them alike: leave them out, or keep them "
                      "as they are")
            orders.append(protocol.person_can_run(_again(again, other, "--keep-refused")))
        raise BadInput(f"{' and '.join(what)} (ids as merged): {listed}{more}; nothing was "
                       f"written. {decide}", orders=orders)
    if long and keep_refused:
        raise BadInput(f"memory #{long[0]} (as merged) {TOO_LONG} #{long[0]}, so it cannot be "
                       f"kept; nothing was written. A person leaves it out (the report lists "
                       f"what is dropped). "
                       + protocol.person_can_run(_again(again, other, "--drop-refused")))
    dropped_ours = []
    if refused and drop_refused:
        # Each record leaves only the side it was judged on: what this store
        # holds stays unless it cannot be written at its new id at all.
        mine = _without(mine, _multiset([plan.records[i] for i, _, side in refused
                                         if side == "ours"]))
        yours = _without(yours, _multiset([plan.records[i] for i, _, side in refused
                                           if side == "theirs"]))
        dropped = [i for i, _, side in refused if side == "theirs"]
        dropped_ours = [i for i, _, side in refused if side == "ours"]
        plan = merging.plan_merge(mine, yours)
    records = plan.records
    T_old, T = len(ours.records), len(records)
    old_bytes = [ours.log[k:k + LOG_RECORD] for k in range(0, len(ours.log), LOG_RECORD)]
    # Ours as it is, as far as the merged log starts with it (a redaction or
    # a dropped record may change it before the two sides part).
    P = merging.common_prefix(ours.records, records)
    new_bytes = old_bytes[:P] + [encode_memory(i, d, t) for i, (d, t) in
                                 enumerate(records[P:], P)]
    first = next((i for i, (a, b) in enumerate(zip(old_bytes, new_bytes)) if a != b),
                 min(T_old, T))
    log_same = T == T_old and first == T
    their_built = _Judged(theirs.built, ours.built, store.config().ENTRY_CHARS)
    sources = [(ours.records, ours.built), (theirs.records, their_built)]
    target = _targets(records, sources)
    # A refused summary of the other side counts where it would have been taken.
    refused_summaries = sum(1 for lo, hi in their_built.refused
                            if lo // (hi - lo) >= len(target.get(hi - lo, [])))
    keep = {}
    for size, data in ours.raw_levels.items():
        want = target.get(size, [])
        k = 0
        while (k < len(want) and (k + 1) * TREE_RECORD <= len(data)
               and data[k * TREE_RECORD:(k + 1) * TREE_RECORD] == encode_summary(want[k])):
            k += 1
        if not log_same:
            k = min(k, first // size)  # a summary over a changed record never stays
        keep[size] = k
    for size in sorted(keep):  # a summary stays only over halves that stay
        if size > 2:
            keep[size] = min(keep[size], keep.get(size // 2, 0) // 2)
    levels_same = all(keep.get(s, 0) == len(v) for s, v in target.items()) and all(
        keep[s] * TREE_RECORD == len(data) for s, data in ours.raw_levels.items())
    built_after = {s: len(v) for s, v in target.items()}
    pending = blocks.pending_count(T, built_after)
    pending_before = blocks.pending_count(T_old, {s: len(d) // TREE_RECORD
                                                  for s, d in ours.raw_levels.items()})
    added = len(plan.added)
    renumbered = plan.renumbered
    reused = sum(len(v) for v in target.values())
    if log_same and levels_same:
        lines = [f"Nothing to merge: this store already holds every memory of {_s(other)} "
                 f"({_counted(T, 'memory', 'memories')}); nothing was written."]
        if pending:
            lines.append(protocol.pending_after_import(pending))
        return Report(lines, None, 0, 0, pending, False, T, None, len(dropped))
    if pending > ASK_ABOVE and pending > pending_before and not yes:
        raise BadInput(
            f"the merge leaves {pending:,} compressions pending, more than the "
            f"{ASK_ABOVE:,} memo creates without asking (each is an agent turn), so "
            f"nothing was written. To merge all the same, a person confirms with --yes, "
            f"then pays them with memo sleep --with CMD (see memo sleep --help). "
            + protocol.person_can_run(_again(again, other, "--yes")))
    head = "Would merge" if dry_run else "Merged"
    lines = [f"{head} {_s(other)} into {_s(store.root)}: {_counted(T, 'memory', 'memories')} "
             f"(this store held {T_old:,}), {added:,} of them new from the other side"
             + (f", {len(redacted):,} redacted as the other side redacted them"
                if redacted else "") + "."]
    if dropped:
        lines.append(f"Left out as refused: {_counted(len(dropped), 'memory', 'memories')} of "
                     f"the other side, never in this store (ids as first merged: "
                     + ", ".join(f"#{i}" for i in dropped[:LISTED])
                     + (", ..." if len(dropped) > LISTED else "") + ").")
    if dropped_ours:
        lines.append(f"Left out: {_counted(len(dropped_ours), 'memory', 'memories')} of this "
                     f"store too long for a record at the new id (ids as first merged: "
                     + ", ".join(f"#{i}" for i in dropped_ours[:LISTED])
                     + (", ..." if len(dropped_ours) > LISTED else "")
                     + "); the merge's backup keeps the text.")
    dropped = dropped + dropped_ours
    if plain:
        lines.append(f"{_counted(len(plain), 'memory', 'memories')} of this store (before the "
                     f"merge: " + ", ".join(f"#{i}" for i in plain[:LISTED])
                     + (", ..." if len(plain) > LISTED else "") + ") stood where the other "
                     "side holds an old redaction ([redacted], with no hash to confirm it is "
                     "the same memory), so they are [redacted] too: a person confirms from "
                     "the backup that nothing else was blanked.")
    if renumbered:
        lines.append(f"{_counted(renumbered, 'memory', 'memories')} of this store changed id "
                     f"(ids from #{first} on are new): an agent that holds ids from before "
                     f"the merge wakes again before it uses them.")
    # The pending count is said once: here on a dry run or when none is
    # pending, else by the closing line a written merge ends with (spelt as
    # the protocol's closing line spells it: one number, one way).
    lines.append(f"{_counted(reused, 'summary', 'summaries')} kept or taken over"
                 + (f", {pending} {'compression' if pending == 1 else 'compressions'} pending."
                    if dry_run or not pending else "."))
    if refused_summaries:
        one = refused_summaries == 1
        lines.append(f"{_counted(refused_summaries, 'summary', 'summaries')} of the other side "
                     f"the write guard refuses (as memo sleep would) {'was' if one else 'were'} "
                     f"not taken over; memo sleep builds {'that block' if one else 'those blocks'} "
                     f"here.")
    if dry_run:
        lines.append("Dry run: nothing was written.")
        return Report(lines, None, added, renumbered, pending, False, T, None, len(dropped))
    return _Planned(lines, ours, first, new_bytes, old_bytes, log_same, keep, target, redacted,
                    (added, renumbered, pending, T, len(dropped)), again)


def _commit(store, other, planned: _Planned) -> Report:
    """Write a planned merge (under the lock) and finish its report."""
    lines, ours, first = list(planned.lines), planned.ours, planned.first
    keep, target, log_same = planned.keep, planned.target, planned.log_same
    added, renumbered, pending, T, dropped = planned.report
    backup = _write(store, other, planned.old_bytes, first, planned.new_bytes, log_same,
                    ours.raw_levels, keep, target)
    undo = _undo_command(store, backup, planned.again)
    redacted = planned.redacted
    if redacted:
        lines.append(f"{_s(backup)} still holds the text of memories this merge redacted; a person "
                     f"deletes that folder once the merge is settled.")
    lines.append(f"What this merge replaced is kept in {_s(backup)}; to put the store back as it "
                 f"was (memories noted after the merge are kept, at new ids):")
    lines.append(protocol.person_can_run(undo))
    if pending:
        lines.append(protocol.pending_after_import(pending))
    return Report(lines, undo, added, renumbered, pending, True, T, backup, dropped)


# -- writing ---------------------------------------------------------------------

def _new_backup(store) -> str:
    """A new ``merge-backup/<UTC stamp>`` folder (0700) in the store."""
    import time
    top = os.path.join(store.root, BACKUP_DIR)
    if not os.path.isdir(top):
        os.makedirs(top, mode=0o700, exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    n = 0
    while True:
        name = stamp if n == 0 else f"{stamp}-{n}"
        path = os.path.join(top, name)
        try:
            os.mkdir(path, 0o700)
            return path
        except FileExistsError:
            n += 1


def _write_new(path: str, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0),
                 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)


def _write(store, other, old_bytes, first, new_bytes, log_same, raw_levels, keep,
           target) -> str:
    """Back up, cut the levels, swap the log, extend the levels; return the
    backup folder. Under the lock. Everything the backup holds is made
    before the folder is; a failure before any level is cut removes the
    folder again (the store is as it was)."""
    import hashlib
    tail_from = len(old_bytes) if log_same else first
    after = b"".join(old_bytes) if log_same else b"".join(new_bytes)
    info = [f"other {_s(other)}", f"log_records_before {len(old_bytes)}",
            f"log_kept {tail_from}", f"log_records_after {len(after) // LOG_RECORD}",
            f"log_sha256_after {hashlib.sha256(after).hexdigest()}"] + [
                f"level {s} kept {keep[s]} of {len(d) // TREE_RECORD}"
                for s, d in sorted(raw_levels.items())]
    text = ("\n".join(info) + "\n").encode("utf-8", "surrogateescape")
    backup = _new_backup(store)
    new_log = os.path.join(backup, "LOG.new")  # in the store: one filesystem with the log
    try:
        _write_new(os.path.join(backup, "LOG.tail"), b"".join(old_bytes[tail_from:]))
        os.makedirs(os.path.join(backup, TREE_NAME), mode=0o700, exist_ok=True)
        for size, data in sorted(raw_levels.items()):
            _write_new(os.path.join(backup, TREE_NAME, f"{size}.tail"),
                       data[keep[size] * TREE_RECORD:])
        _write_new(os.path.join(backup, "merge.txt"), text)
        atomic.sync_folder(os.path.join(backup, TREE_NAME))
        atomic.sync_folder(backup)
        atomic.sync_folder(os.path.dirname(backup))
        _reached("backup")
        if not log_same:
            # Written whole before anything of the store changes: a full disk
            # stops the merge here, with the store as it was.
            _write_new(new_log, after)
            _reached("log")
    except BaseException:
        import shutil
        shutil.rmtree(backup, ignore_errors=True)
        raise
    for size in sorted(raw_levels, reverse=True):  # parents before halves
        store.cut_level(size, keep[size])
        _reached("cut")
    if not log_same:
        os.replace(new_log, store.log_path)
        atomic.sync_folder(store.root)
        store.close()  # read the new log from here on
        _reached("swap")
    for size in sorted(target):
        have = keep.get(size, 0)
        for k in range(have, len(target[size])):
            store.put_summary(k * size, (k + 1) * size, target[size][k])
            _reached("level")
    if os.path.isdir(store.tree_path):
        atomic.sync_folder(store.tree_path)
    _reached("done")
    return backup


def _undo_command(store, backup: str, again: str = "memo merge") -> str:
    """The person's command that puts the store back as the merge found it
    (``undo``): ``again`` (``memo merge`` with its scope flag) ``--undo``
    and the backup folder."""
    return f"{again} --undo -- {_q(backup)}"


def _read_info(backup: str) -> dict:
    """``merge.txt`` of a merge's backup folder as ``{key: value}`` (the
    ``level`` lines as ``{"levels": {size: kept}}``). Raises ``BadInput``
    when the folder holds no usable ``merge.txt``."""
    info = {"levels": {}}
    try:
        with atomic.open_file(os.path.join(backup, "merge.txt"), follow=False) as f:
            text = f.read(1 << 20).decode("utf-8", "replace")
    except OSError:
        text = ""
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        if key == "level":
            words = value.split()
            if len(words) >= 3 and words[0].isdigit() and words[2].isdigit():
                info["levels"][int(words[0])] = int(words[2])
        elif key:
            info[key] = value
    need = ("log_records_before", "log_kept", "log_records_after", "log_sha256_after")
    if not all(k in info for k in need) or not all(
            info[k].isdigit() for k in need[:3]):
        raise BadInput(f"{_s(backup)} holds no merge.txt this memo can undo (a folder of "
                       f"another memo version, or not a merge's backup); nothing was changed. "
                       f"A person puts the store back by hand from that folder's LOG.tail and "
                       f"TREE/ tails")
    return info


def undo(store, backup: str) -> list:
    """Put the store back as the merge whose ``merge-backup/<stamp>``
    folder is ``backup`` found it; return the report's lines.

    Under the store lock: the log must still start with the merged log
    byte for byte (``merge.txt`` keeps its length and SHA-256); memories
    noted after the merge are kept, appended after the restored ones at new
    ids (the report names them). The levels are cut back to what the merge
    kept and their old summaries appended again from the backup; a level
    the store did not have before is emptied, and summaries over the
    appended notes are pending (``memo sleep``). A crash leaves the store
    before or after the undo, with at most summaries missing. Raises
    ``BadInput`` (one line) when the folder is not this store's merge
    backup or the log changed otherwise since (a redaction, another merge).
    """
    import hashlib
    if not backup:
        raise BadInput("the backup folder is empty; give the merge-backup/ folder the "
                       "merge's report named")
    path = os.path.abspath(backup)
    top = os.path.join(os.path.abspath(store.root), BACKUP_DIR)
    if os.path.dirname(path.rstrip(os.sep)) != top:
        raise BadInput(f"{_s(backup)} is not a folder in this store's {BACKUP_DIR}/ ({_s(top)}); "
                       f"nothing was changed. Give the folder the merge's report named")
    info = _read_info(path)
    before, kept = int(info["log_records_before"]), int(info["log_kept"])
    after = int(info["log_records_after"])
    try:
        with atomic.open_file(os.path.join(path, "LOG.tail"), follow=False) as f:
            tail = f.read()
    except OSError as err:
        raise BadInput(f"{_s(path)}/LOG.tail cannot be read ({err.strerror or err}); nothing "
                       f"was changed") from None
    if len(tail) != (before - kept) * LOG_RECORD:
        raise BadInput(f"{_s(path)}/LOG.tail is not the {before - kept:,} records merge.txt "
                       f"names; nothing was changed. A person puts the store back by hand")
    with store.locked():
        T = store.count()
        log = store.read_log(0, T * LOG_RECORD)
        merged = log[:after * LOG_RECORD]
        if T < after or hashlib.sha256(merged).hexdigest() != info["log_sha256_after"]:
            raise BadInput(
                f"{LOG_NAME} no longer starts with the log the merge wrote (a redaction, "
                f"another merge or a log put back since), so this merge cannot be undone "
                f"without losing what changed; nothing was changed. {_s(path)} keeps what "
                f"the merge replaced. {protocol.run(protocol.Order('check'))}")
        later = decode_log(log, lambda i, why, record: store.damaged_memory(
            i, why, record))[after:]
        restored = log[:kept * LOG_RECORD] + tail
        new_log = restored + b"".join(encode_memory(before + k, d, t)
                                      for k, (d, t) in enumerate(later))
        levels = info["levels"]
        tails = {}
        for size in levels:
            try:
                with atomic.open_file(os.path.join(path, TREE_NAME, f"{size}.tail"),
                                      follow=False) as f:
                    tails[size] = f.read()
            except OSError:
                tails[size] = b""
        for size in sorted(set(store.level_bytes()) | set(levels), reverse=True):
            have = store.level_len(size)
            store.cut_level(size, min(levels.get(size, 0), have))
        work = os.path.join(path, "LOG.undo")
        try:
            os.unlink(work)
        except FileNotFoundError:
            pass
        _write_new(work, new_log)
        os.replace(work, store.log_path)
        atomic.sync_folder(store.root)
        store.close()
        for size in sorted(levels):
            if store.level_len(size) != levels[size]:
                continue  # cut shorter meanwhile: memo sleep builds the rest
            data = tails[size]
            k0 = levels[size]
            for k in range(len(data) // TREE_RECORD):
                lo = (k0 + k) * size
                if lo + size > before:
                    break
                text = data[k * TREE_RECORD:(k + 1) * TREE_RECORD].rstrip(b" \n").decode(
                    "utf-8", "replace")
                store.put_summary(lo, lo + size, text)
        if os.path.isdir(store.tree_path):
            atomic.sync_folder(store.tree_path)
    lines = [f"Put the store back as the merge found it: {_counted(before, 'memory', 'memories')}"
             f" (the merge had made {after:,})."]
    if later:
        lines.append(f"{_counted(len(later), 'memory', 'memories')} noted after the merge "
                     f"{'is' if len(later) == 1 else 'are'} kept, now "
                     + (f"#{before}" if len(later) == 1 else f"#{before}-#{before + len(later) - 1}")
                     + " (an agent that holds ids from before wakes again before it uses them).")
    lines.append(f"{_s(path)} still holds the merge's copies; a person deletes it once the "
                 f"store is settled.")
    pending = blocks.pending_count(before + len(later), store.built(before + len(later)))
    if pending:
        lines.append(protocol.pending_after_import(pending))
    return lines

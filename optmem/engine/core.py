"""One store's commands, without click: note, sleep, forget, redact and
import (writes), zoom, stats, recall and config (reads).

Every function takes an open ``Store`` and returns text (or data) for a
front end to print; failures raise ``optmem.errors`` exceptions whose
message is the one line a user sees. The lines programs read are rendered
by ``optmem.protocol`` (docs/protocol.md); wake is ``optmem.engine.wake``,
the hand-over ``optmem.engine.handover``.
"""

from __future__ import annotations

import os

from optmem import blocks, protocol
from optmem.dates import ZONE_SPAN_DAYS
from optmem.engine.handover import (
    compression,
    handed_to_this_session,
    next_handover,
    settle,
    stale_since,
)
from optmem.engine.view import (
    NOTHING_LEFT,
    RAW_PROMPT_MAX,
    clean_text,
    damaged_error,
    dates_of,
    fold,
    memory_line,
    next_pending,
    parse_block,
    pending_in,
    refuse_damaged,
    shown,
    shown_summary,
    sleep_step,
    summary_line,
    summary_repair,
)
from optmem.errors import BadInput, Blank, Damaged, MemoError, NotBuilt
from optmem.store.memory import LOG_RECORD, REDACTED, TREE_RECORD, Store, encode_memory, is_date

# -- text checks -----------------------------------------------------------


# -- pending work ----------------------------------------------------------


# -- writes ----------------------------------------------------------------

def today() -> str:
    """Today's local date as ``YYYY-MM-DD`` (``optmem.dates.today``)."""
    from optmem import dates
    return dates.today()


def note(store: Store, text: str, date: str | None = None) -> tuple:
    """Append one memory; return ``(id, prompt_or_None)``.

    Refuses (``BadInput``) text the write guard refuses, text over
    ``ENTRY_CHARS`` bytes, and an exact duplicate (after ``fold``) of one of
    the last ``WAKE_LINES`` memories, naming its id.
    """
    from optmem import dates
    cfg = store.config()
    text = clean_text(text, cfg.ENTRY_CHARS, "memory")
    with store.locked():
        store.check_last_memory()
        T = store.count()
        check_levels_fit(store, T)
        newest = store.memory(T - 1).date if T else None
        date = date or dates.note_date(newest)
        ahead = dates.ahead_of_earth(date)
        if ahead:
            store.notices.append(ahead)
        key = fold(text)
        lo = max(0, T - cfg.WAKE_LINES)
        for m in _readable(store, lo, T):
            if fold(m.text) == key:
                raise BadInput(f"this is already memory #{m.id} ({m.date}); nothing was "
                               f"saved. If something changed, note what changed")
        record = encode_memory(T, date, text)
        i = store.append([record], len(record))
    try:
        prompt = compression(store)  # any pending work is due now (the invariant)
    except MemoError as err:  # saved all the same: say so, then the problem
        return i, f"memo: {err}"
    return i, (None if prompt == NOTHING_LEFT else prompt)


def check_levels_fit(store: Store, T: int) -> None:
    """Before an append, under the lock: cut torn level tails (an unfinished
    summary is never a memory), and refuse (``Damaged``) when a level holds
    summaries past the end of the log, since a memory appended there would
    inherit a summary of something else."""
    for size, nbytes in sorted(store.level_bytes().items()):
        if size < 2 or size & (size - 1):
            continue
        n = nbytes // TREE_RECORD
        if nbytes % TREE_RECORD:
            store.cut_level(size, n)
        if n > T // size:
            lo = (T // size) * size
            blocks_n = T // size
            raise Damaged(f"{store.level_path(size)} holds {n} summar{'y' if n == 1 else 'ies'} but the log "
                          f"completes only {blocks_n} block{'' if blocks_n == 1 else 's'} "
                          f"of {size}, so nothing is appended: {store.log_path} may be an "
                          f"older copy put back over a newer one, and these summaries the "
                          f"only trace of the newer memories (only once no newer log exists "
                          f"may a person drop them, with memo forget "
                          f"{blocks.block_name(lo, lo + size)}).",
                          then=protocol.Order("check"))


def _readable(store: Store, lo: int, hi: int):
    """Memories ``[lo, hi)``, skipping damaged records (for soft checks)."""
    try:
        yield from store.memories(lo, hi)
    except Damaged:
        for i in range(lo, hi):
            try:
                yield store.memory(i)
            except Damaged:
                continue


def refuse_read_only(store: Store, pending_only: bool = False) -> None:
    """Raise ``MemoError`` when ``store`` is read-only for this user
    (``Store.writable``): no compression is handed out that cannot be
    saved. With ``pending_only`` a store with nothing pending passes (bare
    ``memo sleep`` then says ``Nothing left to compress.``)."""
    if store.writable():
        return
    if pending_only and compression(store) == NOTHING_LEFT:
        return
    raise MemoError(f"this store ({store.root}) is read-only for this user (uid {os.getuid()}), "
                    f"so no summary can be saved and no compression is handed out; nothing "
                    f"was changed. Do not run memo sleep or memo note here until a person "
                    f"makes the store writable")


def sleep(store: Store, block_arg: str, text: str) -> tuple:
    """Store the summary of the next pending block; return ``(said, prompt)``.

    ``said`` is ``LO-HI saved.``, or ``Another session already wrote
    LO-HI.`` when the block was already built (not an error; seed strings,
    ``optmem.protocol``). ``prompt`` is the next hand-over, a
    ``protocol.Handover`` (``handover.next_handover``). Any other block is
    refused (``BadInput``), naming the next one.
    """
    lo, hi = parse_block(block_arg)
    name = blocks.block_name(lo, hi)
    cfg = store.config()
    text = clean_text(text, cfg.ENTRY_CHARS, "summary")
    refuse_read_only(store)
    said = protocol.saved_block(name)
    with store.locked(repair=False):  # levels only: the log's tail is the next note's (or a person's)
        T = store.count()
        built = store.built(T)
        size = hi - lo
        if hi > T:
            raise BadInput(f"block {name} is not complete: the log holds {T} memories "
                           f"(#0-{T - 1}). {protocol.run(protocol.Order('sleep'))}" if T else
                           f"block {name} does not exist: the log is empty")
        if lo // size < built.get(size, 0):
            said = protocol.already_wrote(name)
        else:
            want = next_pending(store, T, built)
            if want != (lo, hi) and not handed_to_this_session(store, lo, hi, built):
                nxt = blocks.block_name(*want)
                raise BadInput(f"Wrong block: {name}. Summaries are stored in the order "
                               f"the prompts hand them over; the next is {nxt}. "
                               f"{protocol.run(protocol.Order('sleep'))}")
            refuse_damaged(store, lo, hi)
            stale = stale_since(store, lo, hi)
            if stale is not None:
                raise BadInput(stale, orders=compression(store).split("\n"))
            # The halves must be readable before a summary is built on them.
            if size > RAW_PROMPT_MAX:
                for a, b in blocks.halves(lo, hi):
                    store.summary(a, b)
            store.put_summary(lo, hi, text)
            settle(store, [(lo, hi)])
    return said, next_handover(store)


def forget(store: Store, block_arg: str) -> int:
    """Drop a summary, all built on it and the later ones at those levels.

    Returns how many summaries went. The block must exist (``BadInput``
    otherwise). The log is never touched.
    """
    lo, hi = parse_block(block_arg)
    with store.locked(repair=False):  # levels only: a damaged log tail is no reason to refuse
        return sum(store.cut_level(s, lo // s) for s in _forget_sizes(store, lo, hi))


def _forget_sizes(store: Store, lo: int, hi: int) -> list:
    """The block sizes ``forget`` of the built block ``[lo, hi)`` cuts: its
    own and every larger level the store holds. Raises ``BadInput`` when
    ``[lo, hi)`` is not built."""
    size = hi - lo
    if lo // size >= store.level_len(size):
        raise BadInput(f"there is no summary {blocks.block_name(lo, hi)} to forget (it is not "
                       f"built). {sleep_step(store, store.count())[0]}")
    top = max(store.level_bytes(), default=size)
    sizes, s = [], size
    while s <= top:
        sizes.append(s)
        s *= 2
    return sizes


def forget_count(store: Store, block_arg: str) -> int:
    """How many summaries ``forget(store, block_arg)`` would drop now, which
    is how many compressions it creates (each dropped summary is a complete
    block of the log, pending again). Writes nothing and takes no lock.
    Raises ``BadInput`` as ``forget`` does for a block that is not built."""
    lo, hi = parse_block(block_arg)
    return sum(max(0, store.level_len(s) - lo // s) for s in _forget_sizes(store, lo, hi))


def redact(store: Store, i: int, was: list | None = None) -> int:
    """Blank memory ``i`` in place (same id and date); drop every summary over
    it. Returns how many summaries went. For humans only. When ``was`` is a
    list, the memory's text before the redaction is appended to it (the raw
    text after the head for a damaged record), for ``replicas.files_holding``.
    An answer to a compression handed over before the redaction is refused:
    the hand-over record's digest no longer matches (``handover.stale_since``).

    The text left is a tombstone (``merging.tombstone``: a slow salted hash
    of the memory under the store's ``redaction_salt``, made on the first
    redaction), so a merge with another replica blanks the memory there too;
    a damaged record, whose text is not known, becomes ``[redacted]``. A
    memory already redacted keeps its text."""
    from optmem import merging
    with store.locked():
        T = store.count()
        if i >= T:
            raise BadInput(f"there is no memory #{i}; the log holds {T} memories")
        try:
            memory = store.memory(i)
        except Damaged:
            memory = None
        if was is not None:
            if memory is not None:
                was.append(memory.text)
            else:
                raw = store.read_log(i * LOG_RECORD, LOG_RECORD)
                body = raw.split(b" ", 2)[2] if raw.count(b" ") >= 2 else raw
                was.append(body.rstrip(b" \n\x00").decode("utf-8", "surrogateescape"))
        date = _nearest_date(store, i, T)
        if memory is None:
            text = REDACTED
        elif merging.is_redacted(memory.text):
            text = memory.text
        else:
            salt = store.redaction_salt(create=True)
            text = merging.tombstone((memory.date, memory.text), salt)
        sizes = [2 << k for k in range(max(store.level_bytes(), default=1).bit_length())]
        for size in sizes:  # every level readable before anything changes
            store.level_len(size)
        # Summaries first (they may repeat the text), the log record last: a
        # failure between leaves the text in the log, never only in a cache.
        gone = sum(store.cut_level(size, i // size) for size in sizes)
        store.rewrite_memory(i, encode_memory(i, date, text))
    return gone


def _nearest_date(store: Store, i: int, T: int) -> str:
    """The date of memory ``i`` if readable, else of the nearest readable
    memory before it, else after it, else today."""
    for j in [i] + list(range(i - 1, max(-1, i - 1000), -1)) + list(range(i + 1, min(T, i + 1000))):
        try:
            return store.memory(j).date
        except Damaged:
            continue
    return today()


def import_lines(store: Store, path: str, before_write=None, progress=None) -> tuple:
    """Append every ``YYYY-MM-DD <text>`` line of ``path``; all or nothing.

    The file is read twice, streaming (never held in memory): once to check
    every line (the write guard included), then under the lock to check the
    dates against the newest memory again and append. The second pass
    digests what it reads and the append is undone unless the bytes are the
    ones the first pass checked. Returns ``(first_id, count, pending)``.
    Raises ``BadInput`` naming the line.

    ``before_write(count, created)``, when given, is called under the lock
    once every check has passed, before anything is written, with the number of memories
    and of compressions the import creates (it may raise to stop the
    import). ``progress(done, total)``, when given, is called every few
    thousand lines with bytes read so far over both passes (``total`` is
    twice the file's size).
    """
    import hashlib
    cfg = store.config()
    floor = None
    T = store.count()
    if T:
        floor = store.memory(T - 1).date
    checked = hashlib.sha256()
    total = 0
    if progress is not None:
        try:
            total = 2 * os.stat(path).st_size
        except OSError:
            pass  # _import_entries names the problem
    first_text = []

    def counted():
        for _date, text in _import_entries(path, cfg, floor, checked,
                                          progress=progress, progress_base=(0, total)):
            if not first_text:
                first_text.append(text)
            yield 1
    count = sum(counted())
    if count == 0:
        raise BadInput(f"{path} holds no memories (lines of YYYY-MM-DD text)")
    with store.locked():
        store.check_last_memory()
        T = store.count()
        check_levels_fit(store, T)
        floor = store.memory(T - 1).date if T else None
        # Under the lock: two imports of one file at once cannot both pass.
        refuse_reimport(store, path, cfg, floor, T, count, first_text[0])
        if before_write is not None:  # every check passed; nothing written yet
            before = pending_in(T, store.built(T))
            before_write(count, pending_in(T + count, store.built(T + count)) - before)

        def records():
            i = T
            batch = []
            again = hashlib.sha256()
            for date, text in _import_entries(path, cfg, floor, again, guard=False,
                                              clamped=clamped, progress=progress,
                                              progress_base=(total // 2, total)):
                batch.append(encode_memory(i, date, text))
                i += 1
                if len(batch) >= 4096:
                    yield b"".join(batch)
                    batch = []
            if i - T != count or again.digest() != checked.digest():
                raise BadInput(f"{path} changed while it was imported; nothing was "
                               f"imported. Run the import again")
            if batch:
                yield b"".join(batch)

        clamped = []
        first = store.append(records(), count * LOG_RECORD)
    if clamped:
        n = len(clamped)
        store.notices.append(
            f"{n} line{'s' if n > 1 else ''} dated {min(clamped)}"
            f"{'..' + max(clamped) if max(clamped) != min(clamped) else ''}, before the "
            f"newest memory ({floor}) by at most {ZONE_SPAN_DAYS} days (today in another "
            f"time zone), {'were' if n > 1 else 'was'} dated {floor}: dates never go backwards")
    T = first + count
    return first, count, pending_in(T, store.built(T))


IMPORT_LINE_LIMIT = 1 << 16  #: bytes; a longer import line is refused unread


#: How many of the newest memories ``refuse_reimport`` looks back through,
#: and at most how many runs it compares with the file (each a read of it).
REIMPORT_LOOKBACK = 1 << 16
REIMPORT_TRIES = 4


def refuse_reimport(store: Store, path: str, cfg, floor, T: int, count: int,
                    first: str) -> None:
    """Raise ``BadInput`` when the ``count`` lines of import file ``path``
    are already, text for text and in order, a run of memories that starts
    on or after the newest memory's date less ``ZONE_SPAN_DAYS`` (``floor``
    is the newest memory's date): the same file imported twice. Dates never
    go backwards, so a second import of a file passes only when its dates
    are that recent, and it would then keep every memory twice, for good.
    ``first`` is the file's first text; the memories are read back from the
    newest (at most ``REIMPORT_LOOKBACK``) while their date is that recent,
    and the file is read again only where a memory's text is ``first`` (at
    most ``REIMPORT_TRIES`` times, the newest first). A line matches a
    memory when the texts are equal and its date, as the import would
    write it, is the memory's, or the newest memory's (an earlier import
    may have moved it up to the newest memory's date then, and this one to
    today's newest); a damaged record matches nothing."""
    if not 0 < count <= T or floor is None:
        return
    from optmem import dates
    lowest = dates.shift(floor, -ZONE_SPAN_DAYS)
    stop = max(0, T - REIMPORT_LOOKBACK)
    tries = REIMPORT_TRIES
    hi = T
    while hi > stop and tries:
        lo = max(stop, hi - 4096)
        try:
            batch = store.memories(lo, hi)
        except (Damaged, IndexError):
            return
        for memory in reversed(batch):
            if memory.text == first and memory.id + count <= T and tries:
                tries -= 1
                if not _is_run(store, path, cfg, floor, memory.id, count):
                    continue
                where = (f"its one memory is #{memory.id}" if count == 1 else
                         f"its {count} memories are #{memory.id} to #{memory.id + count - 1}")
                raise BadInput(
                    f"{path} was imported already: {where} of this memory, text for text; "
                    f"nothing was imported (a second import would keep each twice, for good)")
            if memory.date < lowest or not tries:
                return
        hi = lo


def _is_run(store: Store, path: str, cfg, floor, start: int, count: int) -> bool:
    """Are memories ``[start, start + count)`` the lines of ``path``, in
    order (``refuse_reimport``'s match: the text, and the date as written
    or moved up to ``floor``)? False at a damaged record."""
    entries = _import_entries(path, cfg, floor, guard=False)
    try:
        for lo in range(start, start + count, 4096):
            for memory, (date, text) in zip(store.memories(lo, min(start + count, lo + 4096)),
                                            entries):
                if memory.text != text or date not in (memory.date, floor):
                    return False
    except (Damaged, IndexError):
        return False
    finally:
        entries.close()
    return True


def _import_entries(path: str, cfg, floor, digest=None, guard: bool = True,
                    clamped: list | None = None, progress=None, progress_base=(0, 0)):
    """Yield ``(date, text)`` for each line, checking every one as ``note``
    does (the write guard only with ``guard``), and that no date is after
    today; raises ``BadInput`` naming the file and line. Every byte read is
    fed to ``digest`` when given. ``path`` must be a regular file (it is
    read twice). Dates follow ``optmem.dates``: a line up to
    ``ZONE_SPAN_DAYS`` before ``floor`` (the newest memory's date) is dated
    ``floor``, and its own date is appended to ``clamped`` when given.
    ``progress(base + bytes_read, total)`` is called every 4,096 lines when
    given, ``progress_base`` being ``(base, total)``."""
    import stat as stat_mod
    try:
        st = os.stat(path)
        if stat_mod.S_ISDIR(st.st_mode):
            raise BadInput(f"{path} is a directory; give a file of YYYY-MM-DD text lines")
        if not stat_mod.S_ISREG(st.st_mode):
            raise BadInput(f"{path} is not a regular file (a pipe or a device can be read "
                           f"only once); save the lines to a file, then import that file")
        f = open(path, "rb")
    except FileNotFoundError:
        raise BadInput(f"{path}: no such file; give the path of a file of "
                       f"YYYY-MM-DD text lines") from None
    except OSError as err:
        raise BadInput(f"{path} cannot be read: {err.strerror}") from None
    from optmem import dates
    from optmem.textform import nfc
    last = None  # the previous line's own date
    newest = dates.latest_today()
    lowest = dates.shift(floor, -dates.ZONE_SPAN_DAYS) if floor is not None else None
    with f:
        number = 0
        done = 0
        while True:
            try:
                raw = f.readline(IMPORT_LINE_LIMIT)
            except OSError as err:
                raise BadInput(f"{path} cannot be read at line {number + 1}: {err.strerror}; "
                               f"nothing was imported") from None
            if not raw:
                break
            if digest is not None:
                digest.update(raw)
            number += 1
            if progress is not None:
                done += len(raw)
                if number % 4096 == 0:
                    progress(progress_base[0] + done, progress_base[1])
            where = f"{path} line {number}"
            if len(raw) == IMPORT_LINE_LIMIT and not raw.endswith(b"\n"):
                raise BadInput(f"{where} is longer than {IMPORT_LINE_LIMIT} bytes (a memory "
                               f"is one short line); nothing was imported")
            if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            if raw.endswith(b"\n"):
                raw = raw[:-1]
            if raw.endswith(b"\r"):
                raw = raw[:-1]
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as err:
                raise BadInput(f"{where} is not UTF-8 (byte {err.start + 1}); nothing was "
                               f"imported. Convert the file to UTF-8") from None
            if not line.strip():
                continue
            date, _, text = line.strip().partition(" ")
            if not is_date(date):
                if len(date) == 10 and date[4] == "-" and date[7] == "-" and \
                        (date[:4] + date[5:7] + date[8:]).isdigit() and date.isascii():
                    raise BadInput(f"line {number}: {date} is not a real date. Nothing was "
                                   f"imported from {path}; fix the date and import again")
                raise BadInput(f"{where} does not start with a real date YYYY-MM-DD; "
                               f"nothing was imported")
            if not text.strip():
                raise BadInput(f"{where} has a date and no text; nothing was imported")
            if date > newest and (floor is None or date > floor):
                raise BadInput(f"{where} is dated {date}, after today anywhere on Earth "
                               f"({newest}); a memory cannot come from the future. Fix the "
                               f"date; nothing was imported")
            if last is not None and date < last:
                raise BadInput(f"{where} is dated {date}, before the line before ({last}); "
                               f"dates must never decrease, so nothing was imported. Sort "
                               f"the file by date, then import it again")
            last = date
            if floor is not None and date < floor:
                if date < lowest:
                    raise BadInput(
                        f"{where} is dated {date}, more than {dates.ZONE_SPAN_DAYS} days "
                        f"before the newest memory ({floor}); dates must never decrease, "
                        f"so nothing was imported. Keep only lines dated {lowest} or later "
                        f"(a line up to {dates.ZONE_SPAN_DAYS} days earlier is today in "
                        f"another time zone and is dated {floor}), then import it again")
                if clamped is not None:
                    clamped.append(date)
                date = floor
            if not guard:  # the first pass checked these very bytes
                yield date, nfc(text.strip())
                continue
            try:
                text = clean_text(text, cfg.ENTRY_CHARS, "memory")
            except BadInput as err:
                why = str(err).rstrip(".")
                if why.startswith("Too long: "):  # ``line N: B bytes, limit L.`` first
                    size = len(text.strip().encode("utf-8", "surrogatepass"))
                    raise BadInput(f"line {number}: {size} bytes, limit {cfg.ENTRY_CHARS}. "
                                   f"Nothing was imported from {path}; shorten the line "
                                   f"(accented and non-Latin characters take 2-4 bytes) "
                                   f"and import again") from None
                raise BadInput(f"{where}: {why}; nothing was imported") from None
            yield date, text


# -- reads -----------------------------------------------------------------


# -- recall ----------------------------------------------------------------

class RecallResult:
    """What ``recall`` found: ``lines`` (newest that fit, oldest first),
    ``total`` matches, and whether ``lines`` was ``cut``."""

    __slots__ = ("lines", "total", "cut")

    def __init__(self, lines, total, cut):
        self.lines, self.total, self.cut = lines, total, cut


def recall(store: Store, pattern: str, limit_bytes: int | None = None,
           fixed: bool = False) -> RecallResult:
    """Search every log line (``#id date text``) for ``pattern``, a regex,
    or with ``fixed`` a text found literally (``memo recall -F``).

    See ``optmem.recall.search``. ``limit_bytes`` defaults to ``PART_CHARS``.
    """
    from optmem.recall import search
    cfg = store.config()
    limit = cfg.PART_CHARS if limit_bytes is None else limit_bytes
    lines, total, cut = search.recall(store, pattern, limit, fixed)
    return RecallResult(lines, total, cut)


# -- zoom, stats, config -----------------------------------------------------

NOT_COMPRESSED = "not compressed yet"  #: zoom's text for an unbuilt summary (the later OptMem)


def _decompose(lo: int, hi: int) -> list:
    """The fewest aligned blocks that tile ``[lo, hi)``, oldest first."""
    out = []
    while lo < hi:
        size = lo & -lo if lo else 1 << (hi.bit_length())
        while lo + size > hi:
            size //= 2
        out.append((lo, lo + size))
        lo += size
    return out


def zoom(store: Store, arg: str, strict: bool = False) -> tuple:
    """Open one node of the tree: ``(lines, notes)``, the lines being its two
    halves as ``#`` lines exactly as wake prints them (summaries, or raw
    memories for a node of two) and no other line starting with ``#`` (the
    later OptMem's shape); ``notes`` are memo's ``memo: ...`` lines after
    them (standard error on the command line).

    A half past the end of the log is left out. A half that reaches past
    the end cannot be summarised yet: it reads ``#LO-HI not compressed yet
    (DATES)``, as an unbuilt half does, and a note names its complete parts
    inside the log (each one a zoom). ``arg`` may be a single memory id
    (every wake line's id is a valid argument): its one line is printed.

    A blank summary record (``Blank``: a write that never reached the disk)
    is shown as not compressed yet, as the later OptMem reads it, and its
    repair (``Run: memo forget LO-HI``) follows the lines. Any other damaged
    summary is shown as a stand-in line followed by its repair; with
    ``strict`` (the CLI) it raises ``Damaged`` instead, ending ``Run: memo
    forget LO-HI``. A block at or past the end raises ``BadInput`` (``...
    is beyond the memory ...``).
    """
    lo, hi = parse_block(arg, allow_memory=True)
    name = blocks.block_name(lo, hi)
    T = store.count()
    if lo >= T:
        raise BadInput(f"#{name} is beyond the memory: it holds {T} memor"
                       f"{'y' if T == 1 else 'ies'} (#0-{T - 1}); zoom into a line of memo wake."
                       if T else
                       f"#{name} is beyond the memory: it is empty, so there is nothing to "
                       f"zoom into.", then=protocol.Order("wake"))
    if hi - lo == 1:
        return [memory_line(shown(store, lo, lo + 1)[0])], []
    out, past, damaged, blank = [], [], [], []
    unbuilt = False  # a half inside the log with no summary: a sleep builds it
    for a, b in blocks.halves(lo, hi):
        half = blocks.block_name(a, b)
        if a >= T:
            past.append(f"#{half} holds no memory yet, so it is left out")
        elif b > T:  # never summarised before memory #b-1 exists
            out.append(f"#{half} {NOT_COMPRESSED} ({dates_of(store, a, T)})")
            parts = ", ".join(f"#{blocks.block_name(c, d)}" for c, d in _decompose(a, T))
            past.append(f"#{half} is summarised once #{b - 1} exists (its parts so far: "
                        f"{parts}; zoom into any of them)")
        elif b - a == 1:
            out.append(memory_line(shown(store, a, b)[0]))
        else:
            try:
                out.append(summary_line(store, a, b))
            except NotBuilt:
                unbuilt = True
                out.append(f"#{half} {NOT_COMPRESSED} ({dates_of(store, a, b)})")
            except Blank as err:
                blank.append(((a, b), err.sentence))
                out.append(f"#{half} {NOT_COMPRESSED} ({dates_of(store, a, b)})")
            except Damaged:
                out.append(shown_summary(store, a, b, damaged))
    if damaged and strict:
        raise damaged_error(store, damaged)
    if damaged or blank:  # the repair first: a sleep could not build on it
        out += summary_repair(store, blank + damaged).split("\n")
    elif unbuilt:
        out += sleep_step(store, T)
    notes = ([f"memo: #{name} reaches past the newest memory (#{T - 1}): "
              f"{'; '.join(past)}."] if past else [])
    return out, notes


def stats(store: Store) -> dict:
    """Counts, sizes on disk and the shape of today's wake document.

    Keys: ``memories``, ``first_date``, ``last_date``, ``summaries``
    (built inside the log), ``summaries_expected`` (``T - popcount(T)``),
    ``pending``, ``bytes`` (``log``, ``tree``, ``total``), ``wake_lines``,
    ``wake_shape`` (list of ``[block size, lines]``, oldest first).
    """
    cfg = store.config()
    T = store.count()
    built = store.built(T)
    summaries = sum(min(n, T // s) for s, n in built.items())
    tree_bytes = sum(store.level_bytes().values())
    log_bytes = store.log_size()
    shape = blocks.cover_runs(T, cfg.WAKE_LINES) if T else []
    merged = {}
    for size, n in shape:
        merged[size] = merged.get(size, 0) + n
    return {
        "memories": T,
        "first_date": shown(store, 0, 1)[0].date if T else None,
        "last_date": shown(store, T - 1, T)[0].date if T else None,
        "summaries": summaries,
        "summaries_expected": blocks.complete_count(T),
        "pending": pending_in(T, built),
        "bytes": {"log": log_bytes, "tree": tree_bytes, "total": log_bytes + tree_bytes},
        "wake_lines": cfg.WAKE_LINES,
        "wake_shape": sorted(([s, n] for s, n in merged.items()), reverse=True),
    }


def stats_text(info: dict, store: Store | None = None) -> str:
    """``stats`` as text with a small chart of the wake shape. With
    compressions pending it ends with ``sleep_step`` of ``store`` (``Run:
    memo sleep`` when ``store`` is None)."""
    T = info["memories"]
    from optmem.dates import span
    ids = "#0" if T == 1 else f"#0-{T - 1}"
    lines = [f"memories     {T}" + (" ({}, {} to {})".format(ids, *span(info['first_date'],
                                                                 info['last_date']))
                                     if T else ""),
             f"summaries    {info['summaries']} of {info['summaries_expected']} built, "
             f"{info['pending']} pending",
             f"on disk      {info['bytes']['total']} bytes (log {info['bytes']['log']}, "
             f"tree {info['bytes']['tree']})"]
    shape = info["wake_shape"]
    if shape:
        total = sum(n for _, n in shape)
        # One wake line per block (docs/blocks.md): a #LO-HI line summarises
        # memories LO..HI, a #ID line is one memory verbatim.
        lines.append(f"wake         {total} line{'s' if total > 1 else ''} "
                     f"(WAKE_LINES={info['wake_lines']}), oldest first (#lo-hi summarises "
                     f"memories lo..hi, #id is one memory verbatim):")
        most = max(n for _, n in shape)
        width = len(str(shape[0][0]))
        for size, n in shape:
            bar = "#" * max(1, round(40 * n / most))
            what = "memories verbatim" if size == 1 else f"blocks of {size}"
            lines.append(f"  {size:>{width}} | {bar} {n} ({what})")
    if info["pending"]:
        lines += (sleep_step(store, T) if store is not None
                  else [protocol.run(protocol.Order("sleep"))])
    return "\n".join(lines)


def config_show(store: Store, names=None) -> str:
    """Each knob on one line, ``NAME VALUE`` first (the value in force),
    then its meaning and range (``protocol.config_line``)."""
    from optmem.store.config import KNOBS, limits
    values = store.config_values()
    out = []
    for name, (default, _low, _high, meaning) in KNOBS.items():
        if names and name not in names:
            continue
        out.append(protocol.config_line(name, values.get(name, default), default, limits(name),
                                        meaning, name in values))
    return "\n".join(out)


def config_set(store: Store, assignments, repair: bool = False) -> str:
    """Apply ``NAME=VALUE`` items (``NAME=`` restores the default) and write
    ``config`` atomically; with ``repair`` (or any change) lines that do not
    parse are commented out. Returns what was done, one line."""
    from optmem.errors import ConfigError
    from optmem.store.config import KNOBS, check_value
    changes = {}
    said = []
    for item in assignments:
        if "=" not in item:
            raise ConfigError(f"expected NAME=VALUE, got {item!r}; the settings are "
                              f"{', '.join(KNOBS)}")
        name, raw = item.split("=", 1)
        name = name.strip().upper()
        if raw.strip() == "":
            if name not in KNOBS:
                check_value(name, "0")  # raises: unknown name
            changes[name] = None
            # (no word "default": the table after a restore holds none)
            said.append(f"{name} is no longer set, so it is {KNOBS[name][0]}")
        else:
            changes[name] = check_value(name, raw)
            said.append(f"{name}={changes[name]}")
    notes = store.update_config(changes)
    said += notes
    if not said:
        return "The config file is valid; nothing was changed." if repair else ""
    return "Saved: " + "; ".join(said) + "."

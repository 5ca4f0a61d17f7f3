"""What each command does, without click: the protocol on top of the store.

Every function takes an open ``Store`` and returns text (or data) for the
CLI to print; failures raise ``optmem.errors`` exceptions whose message is
the one line a user sees. The lines programs read (DESIGN.md "Commands")
are rendered by ``optmem.protocol``; the names below are kept for callers.
"""

from __future__ import annotations

import os

from optmem import blocks, protocol
from optmem.engine import pager
from optmem.errors import BadInput, Damaged, MemoError
from optmem.errors import NotBuilt
from optmem.dates import ZONE_SPAN_DAYS
from optmem.store.memory import (LOG_RECORD, REDACTED, TREE_RECORD, Memory, Store, displayable,
                    encode_memory, is_date)

AWAKE = protocol.AWAKE
NOTHING_LEFT = protocol.NOTHING_LEFT
RAW_PROMPT_MAX = protocol.RAW_PROMPT_MAX
HEREDOC_TAG = protocol.SUMMARY_TAG
saved_as = protocol.saved_as


# -- text checks -----------------------------------------------------------

def clean_text(text: str, limit: int, what: str = "memory") -> str:
    """Strip ``text`` and check it may be written as one record.

    ``limit`` is ``ENTRY_CHARS`` in bytes of UTF-8. Raises ``BadText`` (the
    write guard: line breaks, control and invisible characters, credentials)
    or ``BadInput`` (empty, too long). The length is checked before the
    guard runs: every write path (note, sleep, import, stdin) comes here, so
    the guard never judges more than ``limit`` (at most ``MAX_ENTRY_BYTES``)
    characters and its worst case is bounded (``benchmarks/guard.py``).
    """
    from optmem.guard import text as guard
    from optmem.textform import nfc
    text = nfc(text.strip())
    if not text:
        raise BadInput(f"the {what} is empty; write one line of text")
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > limit:
        raise BadInput(f"Too long: {size} bytes, limit {limit}. The {what} is {size} bytes "
                       f"of UTF-8 and the limit is {limit} bytes (ENTRY_CHARS; accented and "
                       f"non-Latin characters take 2-4 bytes). Shorten it and run the "
                       f"command again")
    if "<your line>" in text or text.startswith(("Run: memo", "memo sleep", "memo note")):
        raise BadInput(f"the {what} is the order itself, not your line: put your own "
                       f"line where the order says <your line>")
    guard.check_text(text, what)
    return text


def fold(text: str) -> str:
    """Fold text for the duplicate check: case, runs of white space,
    trailing punctuation and the Unicode form (NFC or NFD, ``textform``) do
    not count (DESIGN.md "Beyond the seed")."""
    from optmem.textform import nfc
    text = " ".join(nfc(nfc(text).casefold()).split())
    return text.rstrip(" .,;:!?…")


def block_arg(arg: str, allow_memory: bool = False) -> str:
    """``arg`` checked by ``parse_block`` and written back as its inclusive
    name (``"#0-1 "`` -> ``"0-1"``, a memory ``"7"``), for an order that
    repeats it: it runs as printed (a shell reads ``#`` as a comment).
    Raises ``BadInput`` as ``parse_block`` does."""
    return blocks.block_name(*parse_block(arg, allow_memory))


def parse_block(arg: str, allow_memory: bool = False) -> tuple:
    """Parse an inclusive block id ``"lo-hi"`` into half-open ``(lo, hi+1)``.

    ASCII digits only; the range must be an aligned power-of-two block of
    size >= 2 (``allow_memory`` also accepts a single id ``"7"``). Raises
    ``BadInput`` with an example of a valid id.
    """
    text = arg.strip()
    if text.startswith("#"):  # the id as wake prints it
        text = text[1:]
    parts = text.split("-")
    if len(parts) == 1 and allow_memory:
        parts = [parts[0], parts[0]]
    if len(parts) != 2 or not all(p.isascii() and p.isdigit() and len(p) <= 20 for p in parts):
        raise BadInput(f"{arg!r} is not a block id; write LO-HI with digits, "
                       f"e.g. 0-1, 4-7 or 16-31")
    lo, last = int(parts[0]), int(parts[1])
    hi = last + 1
    if hi - lo == 1 and allow_memory:
        return lo, hi
    if hi - lo < 2 or not blocks.is_block(lo, hi):
        size = 2
        while size * 2 <= hi - lo and size < 1 << 20:
            size *= 2
        base = lo - lo % size if lo < 1 << 40 else 0
        raise BadInput(f"{arg} is not a block: a block is an aligned power-of-two range "
                       f"of 2 or more memories, e.g. {base}-{base + size - 1}")
    return lo, hi


def parse_count(arg: str, what: str) -> int:
    """Parse a non-negative whole number written in ASCII digits only."""
    if not (arg.isascii() and arg.isdigit()) or len(arg) > 20:
        raise BadInput(f"{what} must be a whole number in digits, not {arg!r}")
    return int(arg)


# -- pending work ----------------------------------------------------------

def next_pending(store: Store, T: int, built: dict | None = None):
    """The next block to build at ``T`` (build order), or None."""
    built = store.built(T) if built is None else built
    for size in blocks.level_sizes(T):
        have = built.get(size, 0)
        if have < T // size:
            return (have * size, (have + 1) * size)
    return None


def pending_in(T: int, built: dict) -> int:
    """How many compressions are pending inside ``[0, T)``."""
    return blocks.pending_count(T, built)


DAMAGED_TEXT = "[damaged record: memo check names its repair]"


def damaged_in(store: Store, lo: int, hi: int) -> list:
    """``[(i, why), ...]``: the damaged records among memories ``[lo, hi)``
    (``why``: what is wrong, ``store.problem_in_memory``'s words). One read."""
    from optmem.store.memory import problem_in_memory
    data = store.read_log(lo * LOG_RECORD, (hi - lo) * LOG_RECORD)
    out = []
    for i in range(lo, hi):
        k = (i - lo) * LOG_RECORD
        why = problem_in_memory(i, data[k:k + LOG_RECORD])
        if why:
            out.append((i, why))
    return out


def waits_for_repair(store: Store, lo: int, hi: int, flag: str = "",
                     form: str | None = None) -> str | None:
    """The hand-over when block ``[lo, hi)`` cannot be compressed as it
    stands, else None: a block of raw memories holding a damaged record (a
    summary written from the stand-in line would keep the damage in the
    tree for good; ``protocol.compression_waits``), or a larger block one
    of whose built halves is a damaged summary (``protocol.half_waits``:
    forget it, and memo sleep writes it again)."""
    if hi - lo > RAW_PROMPT_MAX:
        for a, b in blocks.halves(lo, hi):
            try:
                store.summary(a, b)
            except NotBuilt:
                continue  # a half of the same batch: checked in its turn
            except Damaged as err:
                return protocol.half_waits(blocks.block_name(lo, hi), blocks.block_name(a, b),
                                           str(err), flag, form)
        return None
    bad = damaged_in(store, lo, hi)
    if not bad:
        return None
    i, why = bad[0]
    where = f"{store.log_path} record #{i} (offset {i * LOG_RECORD}) {why}"
    return protocol.compression_waits(blocks.block_name(lo, hi), i, where,
                                      store.restorable(i) is not None, flag, form)


def refuse_damaged(store: Store, lo: int, hi: int) -> None:
    """Raise ``Damaged`` when block ``[lo, hi)`` is summarised from raw
    memories and one of them is damaged: no summary of it is stored (it was
    never handed over; the stand-in would stay in the tree for good). The
    message is the hand-over's first line and its last (the step)."""
    if hi - lo > RAW_PROMPT_MAX:
        return
    waits = waits_for_repair(store, lo, hi)
    if waits is not None:
        lines = waits.split("\n")
        raise Damaged(f"nothing was saved: {lines[0][0].lower()}{lines[0][1:]} {lines[-1]}")


def next_waits(store: Store, T: int | None = None, built: dict | None = None,
               flag: str = "", form: str | None = None) -> str | None:
    """``waits_for_repair`` for the block a hand-over at ``T`` shows first
    (the next pending block; with ``MEMO_HANDOVER=batch`` the first in
    completion order), or None when that block holds no damaged record."""
    from optmem.engine import handover
    T = store.count() if T is None else T
    built = store.built(T) if built is None else built
    if handover.batch_mode():
        block = next(iter(blocks.pending_by_end(T, built)), None)
    else:
        block = next_pending(store, T, built)
    if block is None:
        return None
    return waits_for_repair(store, *block, flag, form)


def shown(store: Store, lo: int, hi: int) -> list:
    """Memories ``[lo, hi)`` for display: a damaged record becomes a stand-in
    (date ``????-??-??``, text ``DAMAGED_TEXT``) instead of stopping the
    command, so one bad byte never locks an agent out of its memory. Writes
    stay strict (``Store.check_last_memory``)."""
    try:
        return store.memories(lo, hi)
    except Damaged:
        out = []
        for i in range(lo, hi):
            try:
                out.append(store.memory(i))
            except Damaged:
                out.append(Memory(i, "????-??-??", DAMAGED_TEXT))
        return out


def dates_of(store: Store, lo: int, hi: int) -> str:
    """``"2014-04-24"`` or ``"2014-04-24..2014-09-30"`` for memories ``[lo, hi)``."""
    from optmem.dates import span
    first = store.date(lo) or "????-??-??"
    last = (store.date(hi - 1) or "????-??-??") if hi - lo > 1 else first
    first, last = span(first, last)  # another tool's log may run backwards
    return first if first == last else f"{first}..{last}"


def memory_line(m: Memory) -> str:
    """How one memory is shown: ``#<id> <date> <text>``."""
    return displayable(f"#{m.id} {m.date} {m.text}")


def summary_line(store: Store, lo: int, hi: int, text: str | None = None) -> str:
    """How one summary is shown: ``#<lo>-<hi-1> <dates> <text>``."""
    if text is None:
        text = store.summary(lo, hi)
    return displayable(f"#{blocks.block_name(lo, hi)} {dates_of(store, lo, hi)} {text}")


def compression(store: Store, T: int | None = None, form: str | None = None,
                flag: str = "") -> str:
    """The prompt for the next compression at ``T`` (default: the whole
    log), or ``NOTHING_LEFT``; rendered by ``protocol.compression_prompt``.

    Blocks of up to ``RAW_PROMPT_MAX`` memories show the raw memories; a
    larger block shows its two halves' summaries. ``form`` is the order form
    (``None``: ``MEMO_ORDERS``, see ``optmem.protocol``). ``flag`` is the
    scope flag the order carries (``--project NAME``, ``--global``; issue
    #17), empty without projects. With ``MEMO_HANDOVER=batch`` in the
    environment it is the batched hand-over instead (``optmem.engine.handover``),
    its order carrying ``flag`` too.
    """
    from optmem.engine import handover
    if handover.batch_mode():
        return handover.batch_prompt(store, T, form, flag)
    T = store.count() if T is None else T
    built = store.built(T)
    block = next_pending(store, T, built)
    if block is None:
        return NOTHING_LEFT
    lo, hi = block
    waits = waits_for_repair(store, lo, hi, flag, form)
    if waits is not None:
        return waits
    if hi - lo <= RAW_PROMPT_MAX:
        body = [memory_line(m) for m in shown(store, lo, hi)]
        store.shown_since_redaction(range(lo, hi))
    else:
        body = [summary_line(store, a, b) for a, b in blocks.halves(lo, hi)]
    return protocol.compression_prompt(blocks.block_name(lo, hi), store.config().ENTRY_CHARS,
                                       body, pending_in(T, built) - 1, form, flag)


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
                          f"{blocks.block_name(lo, lo + size)}). Run: memo check")


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
    ``optmem.protocol``). ``prompt`` is the next compression or
    ``NOTHING_LEFT``. Any other block is refused (``BadInput``), naming the
    next one.
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
                           f"(#0-{T - 1}). {protocol.run('memo sleep')}" if T else
                           f"block {name} does not exist: the log is empty")
        if lo // size < built.get(size, 0):
            said = protocol.already_wrote(name)
        else:
            want = next_pending(store, T, built)
            if want != (lo, hi):
                nxt = blocks.block_name(*want)
                raise BadInput(f"Wrong block: {name}. Summaries are stored in the order "
                               f"the prompts hand them over; the next is {nxt}. "
                               f"{protocol.run('memo sleep')}")
            refuse_damaged(store, lo, hi)
            stale = redacted_since(store, lo, hi)
            if stale is not None:
                raise BadInput(stale, orders=compression(store).split("\n"))
            # The halves must be readable before a summary is built on them.
            if size > RAW_PROMPT_MAX:
                for a, b in blocks.halves(lo, hi):
                    store.summary(a, b)
            store.put_summary(lo, hi, text)
    return said, compression(store)


def forget(store: Store, block_arg: str) -> int:
    """Drop a summary, all built on it and the later ones at those levels.

    Returns how many summaries went. The block must exist (``BadInput``
    otherwise). The log is never touched.
    """
    lo, hi = parse_block(block_arg)
    name = blocks.block_name(lo, hi)
    with store.locked(repair=False):  # levels only: a damaged log tail is no reason to refuse
        size = hi - lo
        if lo // size >= store.level_len(size):
            raise BadInput(f"there is no summary {name} to forget (it is not built). "
                           f"{protocol.run('memo sleep')}")
        top = max(store.level_bytes(), default=size)
        gone = 0
        s = size
        while s <= top:
            gone += store.cut_level(s, lo // s)
            s *= 2
    return gone


def redacted_since(store: Store, lo: int, hi: int) -> str | None:
    """Under the lock, before a summary of ``[lo, hi)`` is stored: when
    ``memo redact`` blanked a memory of the block after the last summary of
    it (``Store.redacted_ids``), a compression handed over before then
    showed the old text, so this answer is refused once: the ids are
    cleared (the next answer comes from the prompt shown now) and the
    reason returned. None when no such memory is in the block."""
    ids = store.redacted_ids()
    hit = sorted(j for j in ids if lo <= j < hi)
    if not hit:
        return None
    store.set_redacted_ids(ids - set(hit))
    which = ", ".join(f"#{j}" for j in hit)
    return (f"memory {which} in {blocks.block_name(lo, hi)} was redacted after this "
            f"compression may have been handed over, so the summary could carry the "
            f"removed text; nothing was saved. Compress the block again from its "
            f"memories as they are now")


def redact(store: Store, i: int, was: list | None = None) -> int:
    """Blank memory ``i`` in place (same id and date); drop every summary over
    it. Returns how many summaries went. For humans only. When ``was`` is a
    list, the memory's text before the redaction is appended to it (the raw
    text after the head for a damaged record), for ``replicas.files_holding``.
    The id is noted in ``.redacted`` (``redacted_since``)."""
    with store.locked():
        T = store.count()
        if i >= T:
            raise BadInput(f"there is no memory #{i}; the log holds {T} memories")
        if was is not None:
            try:
                was.append(store.memory(i).text)
            except Damaged:
                raw = store.read_log(i * LOG_RECORD, LOG_RECORD)
                body = raw.split(b" ", 2)[2] if raw.count(b" ") >= 2 else raw
                was.append(body.rstrip(b" \n\x00").decode("utf-8", "surrogateescape"))
        date = _nearest_date(store, i, T)
        sizes = [2 << k for k in range(max(store.level_bytes(), default=1).bit_length())]
        for size in sizes:  # every level readable before anything changes
            store.level_len(size)
        # Summaries first (they may repeat the text), the log record last: a
        # failure between leaves the text in the log, never only in a cache.
        gone = sum(store.cut_level(size, i // size) for size in sizes)
        store.set_redacted_ids(store.redacted_ids() | {i})
        store.rewrite_memory(i, encode_memory(i, date, REDACTED))
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
    count = sum(1 for _ in _import_entries(path, cfg, floor, checked,
                                           progress=progress, progress_base=(0, total)))
    if count == 0:
        raise BadInput(f"{path} holds no memories (lines of YYYY-MM-DD text)")
    with store.locked():
        store.check_last_memory()
        T = store.count()
        check_levels_fit(store, T)
        floor = store.memory(T - 1).date if T else None
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

def missing_in(T: int, tiling: list, built: dict) -> list:
    """The blocks of ``tiling`` (a ``cover`` at ``T``) whose summary is not
    built, given ``built`` (``{size: records}``): what stops a wake."""
    return [(lo, hi) for lo, hi in tiling
            if hi - lo > 1 and lo // (hi - lo) >= built.get(hi - lo, 0)]


DAMAGED_SUMMARY = "[damaged summary: memo check names its repair]"


def shown_summary(store: Store, lo: int, hi: int, damaged: list | None = None) -> str:
    """``summary_line`` of block ``[lo, hi)``, or, when its record is
    damaged, the line with ``DAMAGED_SUMMARY`` for its text (the error is
    appended to ``damaged`` when given), so one bad summary never locks an
    agent out of its memory. Raises ``NotBuilt`` as ``summary_line`` does."""
    try:
        return summary_line(store, lo, hi)
    except Damaged as err:
        if damaged is not None:
            damaged.append(((lo, hi), str(err)))
        return displayable(f"#{blocks.block_name(lo, hi)} {dates_of(store, lo, hi)} "
                           f"{DAMAGED_SUMMARY}")


def summary_repair(store: Store, damaged: list, flag: str = "", form: str | None = None) -> str:
    """The hand-over after a document that showed damaged summaries
    (``damaged``: ``[((lo, hi), error line), ...]``, from ``shown_summary``):
    what is wrong with the first, and the order that forgets it (memo sleep
    then writes it again from the log)."""
    (lo, hi), why = damaged[0]
    name = blocks.block_name(lo, hi)
    sentence, _ = protocol.split_order(why)
    more = f" ({len(damaged) - 1} more after it)" if len(damaged) > 1 else ""
    return "\n".join([f"The summary of #{name} is damaged ({sentence.rstrip('.')}){more}; "
                      f"memo sleep writes it again from the log once it is forgotten.",
                      protocol.run(f"memo forget {name} {flag}".strip(), form)])


def wake_lines(store: Store, T: int, budget: int, damaged: list | None = None) -> list:
    """The document body at ``T``: one line per block of ``cover(T, budget)``.

    Every block must be built (see ``missing_in``); raises ``NotBuilt``. A
    damaged summary is shown as ``shown_summary`` shows it (and named in
    ``damaged`` when given).
    """
    tiling = blocks.cover(T, budget)
    out = []
    raw_from = None
    for lo, hi in tiling:
        if hi - lo == 1:
            raw_from = lo if raw_from is None else raw_from
            continue
        out.append(shown_summary(store, lo, hi, damaged))
    if raw_from is not None:
        out += [memory_line(m) for m in shown(store, raw_from, T)]
    return out


def wake_budget(T: int, lines: int) -> tuple:
    """``(budget, intro)``: how many lines ``cover(T, budget)`` gets in a
    document of at most ``lines`` (``WAKE_LINES``) lines, and whether memo's
    intro line (``wake_intro``) is one of them. The intro counts against
    ``lines``, so memo prints no more than the later OptMem does: the tiling
    gets ``lines - 1`` whenever T memories fit in that many lines; else (a
    budget below ``popcount(T)`` + 1, or ``lines`` = 1) the intro is left out
    and the tiling gets all ``lines``, the later OptMem's document."""
    if lines >= 2 and (T <= lines - 1 or blocks.popcount(T) <= lines - 1):
        return lines - 1, True
    return lines, False


def strict_damage(text: str) -> None:
    """Raise ``Damaged`` when ``text`` (a hand-over) is the one that waits
    for a damaged summary of a half (``protocol.half_waits``): the CLI's
    ``memo wake`` and ``memo sleep`` refuse then, as the later OptMem does,
    with memo's description and ``Run: memo forget LO-HI`` as one line."""
    if text and protocol.is_half_waiting(text):
        raise Damaged(" ".join(text.split("\n")))


def damaged_error(store: Store, damaged: list, flag: str = "") -> Damaged:
    """The refusal of a command that needs damaged summaries (``damaged``,
    from ``shown_summary``): ``summary_repair``'s text as one line, ending
    ``Run: memo forget LO-HI``."""
    return Damaged(" ".join(summary_repair(store, damaged, flag).split("\n")))


def wake_intro(store: Store, T: int) -> str:
    """The first line of the document."""
    if T == 0:
        if store.count():
            return "Your memory as of T=0 holds nothing (wake without T shows all of it)."
        return "Your memory is empty: nothing has been noted yet."
    from optmem.dates import span
    first, last = span(shown(store, 0, 1)[0].date, shown(store, T - 1, T)[0].date)
    what = "1 memory (#0)" if T == 1 else f"{T} memories (#0-{T - 1})"
    return (f"Your memory: {what}, {first} to {last}, oldest first. "
            f"#lo-hi lines summarise memories lo..hi; #id lines are memories verbatim.")


def wake(store: Store, part: int, T: int | None, form: str | None = None,
         flag: str = "", strict: bool = False) -> tuple:
    """Render part ``part`` (1-based) of the document at ``T``.

    At most ``WAKE_LINES`` lines of document, memo's intro line among them
    (``wake_budget``), cut into parts of ``PART_LINES`` of those lines
    (``optmem.engine.pager``).

    Returns ``(ok, text)``. Wake refuses (``ok`` False; the CLI exits 1)
    only when the document itself needs a summary that is not built: then
    ``text`` is ``Cannot wake: N compressions pending. ...``, a blank line
    and the next compression (the seed's strings, the later OptMem's rule).
    Otherwise ``text`` is the part; the last part ends ``You are awake.``
    and, when compressions are pending, a blank line and the next one (the
    hand-over). An empty log gives ``protocol.empty_store``.

    On a store this user cannot write (``Store.writable``), pending work
    does not stop wake: the document is the ``--max-bytes`` one in
    ``PART_CHARS`` bytes (unbuilt blocks as their built halves) and says the
    store is read-only. Raises ``BadInput`` for a ``T`` past the log or a
    part that does not exist. ``flag`` is the scope flag its hand-over
    orders carry (``compression``), empty by default.

    A damaged summary is shown as ``shown_summary`` shows it and its repair
    handed over, so an agent is never left without its memory (the
    session-start hook, MCP). With ``strict`` (the CLI's ``memo wake``) a
    damaged summary the document shows, or one the hand-over's next
    compression needs, raises ``Damaged`` instead (exit 1, ``Run: memo
    forget LO-HI``), as the later OptMem refuses.
    """
    cfg = store.config()  # a bad config stops every command (as in the reference)
    count = store.count()
    if T is None:
        T = count
    elif T > count:
        raise BadInput(f"the log holds {count} memories, so there is no view at T={T}. "
                       f"Run: memo wake")
    from optmem.engine import replicas
    warning = replicas.quick_warning(store)  # a sync tool's or a merge's marks
    if count == 0:
        if part != 1:
            raise BadInput(f"part {part} does not exist: the memory is empty. Run: memo wake")
        return True, replicas.insert_after_first_line(
            "\n".join(protocol.empty_store(form)), warning)
    budget, with_intro = wake_budget(T, cfg.WAKE_LINES)
    tiling = blocks.cover(T, budget)
    if T == count and pending_in(T, store.built(T)) and not store.writable():
        # A sleep could not be saved: show what is built instead of ordering it.
        from optmem.engine import wakedoc as hook
        return True, hook.wake_max_bytes(store, cfg.PART_CHARS, read_only=True)
    if missing_in(T, tiling, store.built(T)):
        prompt = compression(store, form=form, flag=flag)
        if prompt == NOTHING_LEFT:  # another session just built it
            return wake(store, part, T, form, flag, strict)
        if strict:
            strict_damage(prompt)
        if protocol.is_waiting(prompt):
            # The work waits for a repair: refusing would lock the agent out
            # of its memory, so show what is built, then why nothing is due.
            from optmem.engine import wakedoc as hook
            return True, hook.wake_max_bytes(store, cfg.PART_CHARS, waiting=prompt)
        pending = pending_in(count, store.built(count))
        return False, replicas.insert_after_first_line(
            protocol.cannot_wake(pending) + "\n\n" + prompt, warning)
    damaged = []
    try:
        body = wake_lines(store, T, budget, damaged)
    except NotBuilt:  # another session forgot a summary while we read
        return wake(store, part, T, form, flag, strict)
    if damaged and strict:
        raise damaged_error(store, damaged)
    # The warning stands after the first line of every part: room for it is
    # kept in each, so the parts stay within PART_LINES and PART_CHARS.
    room = len(warning.encode("utf-8")) + 1 if warning else 0
    parts = pager.paginate(body, wake_intro(store, T) if with_intro else None, T,
                           cfg.PART_LINES - bool(warning), cfg.PART_CHARS - room,
                           intro_counts=T > budget)  # it took the place of a line
    parts = [replicas.insert_after_first_line(p, warning) for p in parts]
    if not 1 <= part <= len(parts):
        raise BadInput(f"part {part} does not exist: the document at T={T} has "
                       f"{len(parts)} part{'s' if len(parts) > 1 else ''}. Run: memo wake 1 {T}")
    text = parts[part - 1]
    if part == len(parts):
        prompt = compression(store, form=form, flag=flag)
        if damaged and store.writable():  # the document's own damage comes first
            prompt = summary_repair(store, damaged, flag=flag, form=form)
        elif strict:
            strict_damage(prompt)
        if prompt != NOTHING_LEFT and store.writable():  # the hand-over, after ``You are awake.``
            text += "\n\n" + prompt
    return True, text


# -- recall ----------------------------------------------------------------

class RecallResult:
    """What ``recall`` found: ``lines`` (newest that fit, oldest first),
    ``total`` matches, and whether ``lines`` was ``cut``."""

    __slots__ = ("lines", "total", "cut")

    def __init__(self, lines, total, cut):
        self.lines, self.total, self.cut = lines, total, cut


def recall(store: Store, pattern: str, limit_bytes: int | None = None) -> RecallResult:
    """Search every log line (``#id date text``) for ``pattern``.

    See ``optmem.recall.search``. ``limit_bytes`` defaults to ``PART_CHARS``.
    """
    from optmem.recall import search
    cfg = store.config()
    limit = cfg.PART_CHARS if limit_bytes is None else limit_bytes
    lines, total, cut = search.recall(store, pattern, limit)
    return RecallResult(lines, total, cut)



# -- zoom, stats, config -----------------------------------------------------

NOT_COMPRESSED = "not compressed yet"  #: zoom's text for an unbuilt summary (the later OptMem)


def block_line(store: Store, lo: int, hi: int, T: int, damaged: list | None = None) -> str:
    """One block as wake would show it; an unbuilt summary reads ``#LO-HI
    not compressed yet (DATES)`` (the later OptMem's words, memo's dates
    after them); a damaged one is ``shown_summary``'s line (named in
    ``damaged`` when given)."""
    if hi - lo == 1:
        return memory_line(shown(store, lo, lo + 1)[0])
    try:
        return shown_summary(store, lo, hi, damaged)
    except NotBuilt:
        return f"#{blocks.block_name(lo, hi)} {NOT_COMPRESSED} ({dates_of(store, lo, hi)})"


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


def zoom(store: Store, arg: str, strict: bool = False) -> list:
    """Open one node of the tree: its two halves as ``#`` lines exactly as
    wake prints them (summaries, or raw memories for a node of two), and no
    other line starting with ``#`` (the later OptMem's shape).

    A half past the end of the log is left out; a half that reaches past
    the end is shown as the complete blocks inside the log, after a header
    line that says so. ``arg`` may be a single memory id (every wake line's
    id is a valid argument): its one line is printed. A damaged summary is
    shown as a stand-in line followed by its repair; with ``strict`` (the
    CLI) it raises ``Damaged`` instead, ending ``Run: memo forget LO-HI``.
    A block at or past the end raises ``BadInput`` (``... is beyond the
    memory ...``).
    """
    lo, hi = parse_block(arg, allow_memory=True)
    name = blocks.block_name(lo, hi)
    T = store.count()
    if lo >= T:
        raise BadInput(f"#{name} is beyond the memory: it holds {T} memor"
                       f"{'y' if T == 1 else 'ies'} (#0-{T - 1}); zoom into a line of memo wake. "
                       f"Run: memo wake" if T else
                       f"#{name} is beyond the memory: it is empty, so there is nothing to "
                       f"zoom into. Run: memo wake")
    if hi - lo == 1:
        return [memory_line(shown(store, lo, lo + 1)[0])]
    out = [] if hi <= T else [f"Block {name} reaches past the newest memory "
                              f"(#{T - 1}); its parts so far:"]
    damaged = []
    for a, b in blocks.halves(lo, hi):
        if a >= T:
            continue
        for c, d in ([(a, b)] if b <= T else _decompose(a, T)):
            out.append(block_line(store, c, d, T, damaged))
    if damaged and strict:
        raise damaged_error(store, damaged)
    if damaged:  # the repair first: a sleep could not build on it
        out += summary_repair(store, damaged).split("\n")
    elif any(f" {NOT_COMPRESSED} (" in line for line in out):
        out.append(protocol.run("memo sleep"))
    return out


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
    shape = blocks.cover_runs(T, wake_budget(T, cfg.WAKE_LINES)[0]) if T else []
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


def stats_text(info: dict) -> str:
    """``stats`` as text with a small chart of the wake shape."""
    T = info["memories"]
    from optmem.dates import span
    lines = [f"memories     {T}" + (" ({} to {})".format(*span(info['first_date'],
                                                             info['last_date'])) if T else ""),
             f"summaries    {info['summaries']} of {info['summaries_expected']} built, "
             f"{info['pending']} pending",
             f"on disk      {info['bytes']['total']} bytes (log {info['bytes']['log']}, "
             f"tree {info['bytes']['tree']})"]
    shape = info["wake_shape"]
    if shape:
        total = sum(n for _, n in shape)
        lines.append(f"wake         {total} lines (WAKE_LINES={info['wake_lines']}):")
        most = max(n for _, n in shape)
        width = len(str(shape[0][0]))
        for size, n in shape:
            bar = "#" * max(1, round(40 * n / most))
            what = "memories verbatim" if size == 1 else f"blocks of {size}"
            lines.append(f"  {size:>{width}} | {bar} {n} ({what})")
    if info["pending"]:
        lines.append(protocol.run("memo sleep"))
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
    from optmem.store.config import KNOBS, check_value
    from optmem.errors import ConfigError
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
            said.append(f"{name} is back to its default ({KNOBS[name][0]})")
        else:
            changes[name] = check_value(name, raw)
            said.append(f"{name}={changes[name]}")
    notes = store.update_config(changes)
    said += notes
    if not said:
        return "The config file is valid; nothing was changed." if repair else ""
    return "Saved: " + "; ".join(said) + "."

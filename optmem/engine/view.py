"""How one store's memories and summaries are shown, and the checks every
command shares: the text and block arguments, the damaged-record stand-ins
and their repair orders, the next pending block. Write (``core``), wake
(``wake``) and the hand-over (``handover``) build on it."""

from __future__ import annotations

import os

from optmem import blocks, protocol
from optmem.dates import span
from optmem.errors import BadInput, ConfigError, Damaged, NotBuilt
from optmem.store.memory import LOG_RECORD, Memory, Store, displayable

AWAKE = protocol.AWAKE


NOTHING_LEFT = protocol.NOTHING_LEFT


RAW_PROMPT_MAX = protocol.RAW_PROMPT_MAX


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
                       f"non-Latin characters take 2-4 bytes). Shorten it{AGAIN}")
    if protocol.is_order_text(text):
        raise BadInput(f"the {what} is the order itself, not your line: put your own "
                       f"line where the order says <your line>")
    guard.check_text(text, what)
    return text


#: How a refusal of one command's text ends; a batch's refusal drops it (the
#: batch's next step is to answer the prompt handed over again).
AGAIN = " and run the command again"


def fold(text: str) -> str:
    """Fold text for the duplicate check: case, runs of white space,
    trailing punctuation and the Unicode form (NFC or NFD, ``textform``) do
    not count (docs/protocol.md)."""
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


def parse_count(arg: str, what: str, then=None) -> int:
    """Parse a non-negative whole number written in ASCII digits only.
    Raises ``BadInput`` otherwise, ending with ``then`` (a
    ``protocol.Order``: the command to run instead) when given."""
    if not (arg.isascii() and arg.isdigit()) or len(arg) > 20:
        raise BadInput(f"{what} must be a whole number in digits, not {arg!r}.", then=then)
    return int(arg)


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
                     form: str | None = None) -> protocol.Handover | None:
    """The hand-over when block ``[lo, hi)`` cannot be compressed as it
    stands, else None: a block of raw memories holding a damaged record (a
    summary written from the stand-in line would keep the damage in the
    tree for good; ``protocol.compression_waits``), or a larger block one
    of whose built halves is a damaged summary (``protocol.half_waits``:
    forget it, and memo sleep writes it again). The hand-over is a
    ``protocol.Handover`` of kind ``WAITING`` or ``HALF_WAITING``."""
    if hi - lo > RAW_PROMPT_MAX:
        for a, b in blocks.halves(lo, hi):
            try:
                store.summary(a, b)
            except NotBuilt:
                continue  # a half of the same batch: checked in its turn
            except Damaged as err:
                half = blocks.block_name(a, b)
                return protocol.Handover(
                    protocol.HALF_WAITING, protocol.half_waits_order(half, flag),
                    protocol.half_waits(blocks.block_name(lo, hi), half, err.sentence,
                                        flag, form))
        return None
    parts = _raw_waits(store, lo, hi, flag)
    if parts is None:
        return None
    return protocol.Handover(protocol.WAITING, parts[2],
                             "\n".join([*parts[:2], protocol.run(parts[2], form)]))


def _raw_waits(store: Store, lo: int, hi: int, flag: str = ""):
    """``protocol.compression_waits_parts`` for block ``[lo, hi)`` of raw
    memories holding a damaged record, else None."""
    bad = damaged_in(store, lo, hi)
    if not bad:
        return None
    i, why = bad[0]
    where = f"{store.log_path} record #{i} (offset {i * LOG_RECORD}) {why}"
    return protocol.compression_waits_parts(blocks.block_name(lo, hi), i, where,
                                            store.restorable(i) is not None, flag)


def refuse_damaged(store: Store, lo: int, hi: int) -> None:
    """Raise ``Damaged`` when block ``[lo, hi)`` is summarised from raw
    memories and one of them is damaged: no summary of it is stored (it was
    never handed over; the stand-in would stay in the tree for good). The
    message is the hand-over's first line and its last (the step)."""
    if hi - lo > RAW_PROMPT_MAX:
        return
    parts = _raw_waits(store, lo, hi)
    if parts is not None:
        head, _, order = parts
        raise Damaged(f"nothing was saved: {head[0].lower()}{head[1:]}", then=order)


def next_waits(store: Store, T: int | None = None, built: dict | None = None,
               flag: str = "", form: str | None = None) -> str | None:
    """``waits_for_repair`` for the block a hand-over at ``T`` shows first
    (the next pending block; with ``MEMO_HANDOVER=batch`` the first in
    completion order), or None when that block holds no damaged record."""
    T = store.count() if T is None else T
    built = store.built(T) if built is None else built
    if batch_mode():
        block = next(iter(blocks.pending_by_end(T, built)), None)
    else:
        block = next_pending(store, T, built)
    if block is None:
        return None
    waits = waits_for_repair(store, *block, flag, form)
    return None if waits is None else waits.text


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
    first = store.date(lo)
    return _dates_text(first, store.date(hi - 1) if hi - lo > 1 else first)


def _dates_text(first: str | None, last: str | None) -> str:
    """``dates_of``'s text from the dates of a block's first and last
    memories (``Store.date``; None: a damaged head, shown ``????-??-??``)."""
    first, last = span(first or "????-??-??", last or "????-??-??")  # another tool's log
    return first if first == last else f"{first}..{last}"  # may run backwards


def memory_line(m: Memory) -> str:
    """How one memory is shown: ``#<id> <date> <text>``."""
    return displayable(f"#{m.id} {m.date} {m.text}")


def summary_line(store: Store, lo: int, hi: int, text: str | None = None) -> str:
    """How one summary is shown: ``#<lo>-<hi-1> <dates> <text>``."""
    if text is None:
        text = store.summary(lo, hi)
    return displayable(f"#{blocks.block_name(lo, hi)} {dates_of(store, lo, hi)} {text}")


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
            damaged.append(((lo, hi), err.sentence))
        return displayable(f"#{blocks.block_name(lo, hi)} {dates_of(store, lo, hi)} "
                           f"{DAMAGED_SUMMARY}")


def shown_summaries(store: Store, tiling: list, damaged: list | None = None) -> list:
    """``[shown_summary(store, lo, hi, damaged) for lo, hi in tiling]`` for
    blocks of 2 or more memories (in order), the same lines read in few
    reads: one ``Store.summaries`` per run of adjacent blocks of one size,
    and ``Store.dates`` for every block's first and last memory. Raises
    ``NotBuilt`` for the first block that is not built, as ``shown_summary``
    does (the damaged blocks before it already named in ``damaged``)."""
    dates = store.dates([i for lo, hi in tiling for i in (lo, hi - 1)])
    texts = []
    a = 0
    while a < len(tiling):
        lo, hi = tiling[a]
        b = a + 1
        while b < len(tiling) and tiling[b][0] == tiling[b - 1][1] \
                and tiling[b][1] - tiling[b][0] == hi - lo:
            b += 1
        texts += store.summaries(hi - lo, lo // (hi - lo), b - a)
        a = b
    out = []
    for (lo, hi), text in zip(tiling, texts):
        if isinstance(text, NotBuilt):
            raise text
        if isinstance(text, Damaged):
            if damaged is not None:
                damaged.append(((lo, hi), text.sentence))
            text = DAMAGED_SUMMARY
        out.append(displayable(f"#{blocks.block_name(lo, hi)} "
                               f"{_dates_text(dates[lo], dates[hi - 1])} {text}"))
    return out


def summary_repair(store: Store, damaged: list, flag: str = "", form: str | None = None) -> str:
    """The hand-over after a document that showed damaged summaries
    (``damaged``: ``[((lo, hi), error line), ...]``, from ``shown_summary``):
    what is wrong with the first, and the order that forgets it (memo sleep
    then writes it again from the log). When the level file itself is no
    file memo writes (``Store.level_len``: a folder, a link), no forget can
    help: its own line, naming the person's step, instead."""
    (lo, hi), why = damaged[0]
    try:
        store.level_len(hi - lo)
    except Damaged as err:  # the level file itself (a folder, a link): a forget cannot cut it
        return str(err)
    name = blocks.block_name(lo, hi)
    sentence = why  # the store's sentence, without its order (``MemoError.sentence``)
    more = f" ({len(damaged) - 1} more after it)" if len(damaged) > 1 else ""
    return "\n".join([f"The summary of #{name} is damaged ({sentence.rstrip('.')}){more}; "
                      f"memo sleep writes it again from the log once it is forgotten.",
                      protocol.run(protocol.Order("forget", (name,), protocol.Order.scoped(flag)), form)])


def strict_damage(handover: protocol.Handover) -> None:
    """Raise ``Damaged`` when ``handover`` (a ``protocol.Handover``) waits
    for a damaged summary of a half (kind ``HALF_WAITING``,
    ``protocol.half_waits``): the CLI's ``memo wake`` and ``memo sleep``
    refuse then, as the later OptMem does, with memo's description and
    ``Run: memo forget LO-HI`` as one line."""
    if handover.kind == protocol.HALF_WAITING:
        raise Damaged(" ".join(handover.text.split("\n")))


def built_or_broken(store: Store, T: int) -> tuple:
    """``(built, broken)``: ``Store.built(T)`` with a level file that is no
    file memo writes (a folder, a link: ``Store.level_len`` raises
    ``Damaged``) counted as holding nothing, and ``broken`` the first such
    level's line (naming the person's step), or None when every level is
    sound. A reader shows the memory without that level; no sleep can be
    ordered while it stands."""
    built, broken = {}, None
    for size in blocks.level_sizes(T):
        try:
            built[size] = store.level_len(size)
        except Damaged as err:
            built[size] = 0
            broken = broken or str(err)
    return built, broken


def sleep_step(store: Store, T: int) -> list:
    """The line that follows output showing blocks not summarised yet (at
    ``T`` memories): ``Run: memo sleep`` when a sleep can succeed here.
    When it cannot, no order: on a store read-only for this user,
    ``protocol.read_only_pending``; when a level file of ``TREE/`` is no
    file memo writes (a folder, a link: ``Store.level_len``), the sentence
    naming the person's step. Returns a list of one line."""
    try:
        store.config()  # a sleep reads it first: its own line and repair
    except ConfigError as err:
        return [str(err)]
    built, broken = built_or_broken(store, T)
    if broken is not None:
        return [broken]
    pending = max(1, pending_in(T, built))
    if not store.writable():
        return [protocol.read_only_pending(pending, os.getuid())]
    return [protocol.run(protocol.Order("sleep"))]


def damaged_error(store: Store, damaged: list, flag: str = "") -> Damaged:
    """The refusal of a command that needs damaged summaries (``damaged``,
    from ``shown_summary``): ``summary_repair``'s text as one line, ending
    ``Run: memo forget LO-HI``."""
    return Damaged(" ".join(summary_repair(store, damaged, flag).split("\n")))


#: The environment variable that chooses the hand-over (not a ``config``
#: knob: the reference OptMem stops on a config name it does not know).
MODE_ENV = "MEMO_HANDOVER"


#: Its value for the batch; anything else (or unset) is the seed's one block.
BATCH = "batch"


def batch_mode(environ=None) -> bool:
    """True when ``MEMO_HANDOVER=batch`` (case and spaces ignored)."""
    env = os.environ if environ is None else environ
    return env.get(MODE_ENV, "").strip().lower() == BATCH

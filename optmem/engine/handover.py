"""The batched hand-over: every compression that can be done now, in one prompt.

The seed hands over one block per round trip: noting memory #15 makes four
blocks due (14-15, 12-15, 8-15, 0-15) and the agent reads four prompts,
30 memory lines, in four turns. With ``MEMO_HANDOVER=batch`` in memo's
environment, a hand-over (after ``note``, by ``sleep``, by a blocked wake)
instead lists every pending block whose input exists, in completion order
(``blocks.pending_by_end``: a block after its halves, each level in order),
in one prompt of at most ``PART_CHARS`` bytes:

- blocks of up to ``RAW_PROMPT_MAX`` memories are summarised from raw
  memories, so they share one listing of those memories;
- a larger block is summarised from its two halves: a built half is shown
  as its summary line, a half in the same batch is the agent's own line
  written a moment earlier.

The agent answers with one order, a quoted heredoc of ``LO-HI <line>``
lines (``store_batch``). Each line is checked as a single summary is and
stored in order up to the first one refused; since every level file is a
dense prefix, nothing after a refused line can be stored, so the rest is
handed over again.

Why opt-in: an existing client reads the prompt's first line (``Compress
memories #14-15 ...``), summarises everything after it and stores that as
14-15; shown a batch it would store a wrong summary for good. The first
line stays that seed line for the first block, so a batch-aware client and
a person reading it see the same start as always.
"""

from __future__ import annotations

import functools
import os
import re
import time

from optmem import blocks, protocol
from optmem.engine import view
from optmem.engine.view import (
    NOTHING_LEFT,
    RAW_PROMPT_MAX,
    memory_line,
    next_pending,
    pending_in,
    shown,
    summary_line,
    waits_for_repair,
)
from optmem.errors import BadInput, MemoError
from optmem.store.memory import LOG_RECORD, Store

# -- choosing and rendering a batch -----------------------------------------

def _head(first: str, n: int, limit: int) -> list:
    """The instruction lines of a batch of ``n`` blocks starting at ``first``."""
    lines = [protocol.compress_head(first, limit)]
    if n > 1:
        lines.append(f"In the same answer, also compress the {n - 1} block"
                     f"{'s' if n > 2 else ''} listed after it: {n} lines in all, "
                     f"each at most {limit} bytes, each from its own memories.")
    return lines + list(protocol.COMPRESS_RULES) + [""]


def _remains(left: int) -> list:
    if left == 0:
        return []
    if left == 1:
        return ["1 compression remains after this batch."]
    return [f"{left} compressions remain after this batch."]


def order_lines(names: list, form: str | None = None, flag: str = "") -> list:
    """The order that answers a batch of block ``names`` (``"lo-hi"``), with
    ``flag`` (``--global``, ``--project NAME``; docs/scopes.md):
    ``protocol.batch_order``'s lines."""
    return protocol.batch_order(names, form, protocol.Order.scoped(flag))


def _size(lines) -> int:
    return sum(len(line.encode("utf-8", "surrogatepass")) + 1 for line in lines)


def batch_prompt(store, T: int | None = None, form: str | None = None,
                 flag: str = "", force: bool = False, after: int = 0) -> protocol.Handover:
    """The batched hand-over (``_batch_prompt``) as a ``protocol.Handover``,
    chosen again when another session stored its first block meanwhile;
    ``after`` as for ``next_handover``."""
    for _ in range(8):
        prompt = _batch_prompt(store, T, form, flag, force, after)
        if prompt is not BUILT:
            return prompt
    prompt = _batch_prompt(store, T, form, flag, True, after)
    return NOTHING if prompt is BUILT else prompt


def _batch_prompt(store, T: int | None = None, form: str | None = None,
                  flag: str = "", force: bool = False, after: int = 0):
    """The batched hand-over at ``T`` (default: the log's length), or
    ``view.NOTHING_LEFT``; ``form`` is the order form (``None``:
    ``MEMO_ORDERS``, ``optmem.protocol``) and ``flag`` the scope flag the
    order carries (``--global``, ``--project NAME``; docs/scopes.md).
    The blocks are recorded as handed over (``claim``, ``force`` as there);
    while another known session holds the first one, the answer is
    ``protocol.held_elsewhere``'s line instead. Returns a
    ``protocol.Handover``, or ``BUILT`` (the caller chooses again).

    Takes pending blocks in completion order while the whole prompt stays
    within ``PART_CHARS`` bytes (always at least one block). Shape::

        Compress memories #14-15 into one line of at most 280 bytes.
        In the same answer, also compress the 3 blocks listed after it: ...
        (what to keep)

        Memories:
          #0 <date> <text>          (each raw memory a block here spans, once)
        Blocks, in the order to answer them:
          14-15: memories #14-15
          ...
          0-31: join the summaries of its halves:
            #0-15 (your line above)
            #16-31 <dates> <summary>  (a half built earlier)

        <N compressions remain after this batch.>
        Run: memo sleep - <<'SUMMARY'
        14-15 <your line>
        ...
        SUMMARY
    """
    T = store.count() if T is None else T
    built = store.built(T)
    cfg = store.config()
    limit_bytes = cfg.PART_CHARS
    total = blocks.pending_count(T, built)
    if total == 0:
        return NOTHING
    chosen = []          # blocks, completion order
    raw = {}             # memory id -> display line
    block_lines = []     # lines of the "Blocks" listing
    in_batch = set()
    # Fixed parts, sized with the widest numbers they can hold.
    widest = blocks.block_name(0, 1 << T.bit_length())
    fixed = _size(_head(widest, 2 + total, cfg.ENTRY_CHARS)) + _size(
        ["Memories:", "Blocks, in the order to answer them:", ""]) + _size(
        _remains(total + after)) + _size(order_lines([], form, flag)) + 64
    used = fixed
    for lo, hi in blocks.pending_by_end(T, built):
        name = blocks.block_name(lo, hi)
        add_raw = {}
        waits = view.waits_for_repair(store, lo, hi, flag, form)
        if waits is not None:  # damaged input: never summarised; stop here
            if not chosen:
                return waits
            break
        if hi - lo <= view.RAW_PROMPT_MAX:
            new = [i for i in range(lo, hi) if i not in raw]
            if new:
                for m in view.shown(store, new[0], new[-1] + 1):
                    if m.id not in raw:
                        add_raw[m.id] = "  " + view.memory_line(m)
            mine = [f"  {name}: memories #{name}"]
        else:
            mine = [f"  {name}: join the summaries of its halves:"]
            for a, b in blocks.halves(lo, hi):
                if (a, b) in in_batch:
                    mine.append(f"    #{blocks.block_name(a, b)} (your line above)")
                else:
                    mine.append("    " + view.summary_line(store, a, b))
        # its line in the order: "LO-HI <your line>" (or ' "LO-HI <your line>"')
        cost = _size(add_raw.values()) + _size(mine) + len(name) + 16
        if chosen and used + cost > limit_bytes:
            break
        used += cost
        chosen.append((lo, hi))
        in_batch.add((lo, hi))
        raw.update(add_raw)
        block_lines += mine
    names = [blocks.block_name(lo, hi) for lo, hi in chosen]
    held = _claimed(store, chosen, force)
    if held is not None:
        return held
    return protocol.Handover(protocol.COMPRESS, None,
                             _render(names, raw, block_lines, total + after,
                                     cfg.ENTRY_CHARS, form, flag))


def _render(names: list, raw: dict, block_lines: list, total: int, limit: int,
            form: str | None, flag: str = "") -> str:
    """The batch prompt's text from its parts (see ``batch_prompt``)."""
    lines = _head(names[0], len(names), limit)
    if raw:
        lines.append("Memories:")
        lines += [raw[i] for i in sorted(raw)]
    lines.append("Blocks, in the order to answer them:")
    lines += block_lines
    lines.append("")
    lines += _remains(total - len(names))
    lines += order_lines(names, form, flag)
    return "\n".join(lines)


# -- reading and storing an answer -------------------------------------------

#: One line of a batched answer: ``LO-HI <line>`` (``#LO-HI``, ``LO-HI:``).
_ITEM_SOURCE = r"\s*#?(\d{1,20})-(\d{1,20})\s*:?(?:\s+(.*))?\s*\Z"


@functools.lru_cache(maxsize=1)
def _item():
    """``_ITEM_SOURCE`` compiled, on first use: only a batched answer needs
    it (compiled at import, it cost every ``memo wake`` 0.7 million
    instructions: callgrind, ``benchmarks/startup.py``)."""
    return re.compile(_ITEM_SOURCE, re.S)


def parse_items(lines) -> list:
    """Split an answer into ``(block_arg, text)`` pairs, one per non-blank line.

    A line is ``LO-HI <line>`` (``#LO-HI`` and ``LO-HI:`` are accepted too,
    as the prompt shows them). A line that does not start with a block id
    becomes ``(None, line)`` and is refused in its turn by ``store_batch``.
    """
    out = []
    for line in lines:
        if not line.strip():
            continue
        m = _item().match(line)
        if m is None:
            out.append((None, line))
        else:
            out.append((f"{m.group(1)}-{m.group(2)}", m.group(3) or ""))
    return out


class BatchResult:
    """What ``store_batch`` did: ``saved`` and ``already`` (block names, in
    answer order), ``refused`` (None, or ``(name_or_None, why, order)`` for
    the first line refused, ``order`` the ``protocol.Order`` that closes
    ``why`` or None; nothing after it was stored), and ``prompt`` (the next
    hand-over, a ``protocol.Handover``)."""

    __slots__ = ("saved", "already", "refused", "prompt")

    def __init__(self, saved, already, refused, prompt):
        self.saved, self.already, self.refused, self.prompt = saved, already, refused, prompt


def store_batch(store, items) -> BatchResult:
    """Store ``(block_arg, text)`` pairs in order, up to the first refused.

    Each text is checked as ``memo sleep LO-HI`` checks one (``view.clean_text``:
    the write guard, ``ENTRY_CHARS``, the placeholder). A block is stored when
    it is the next record of its level and its halves are built (so every
    level stays a dense prefix); a block already stored (another session
    did it) is skipped and named in ``already``. Raises ``BadInput`` only for
    an empty answer; a refused line is reported in the result, never raised,
    because the lines before it are stored.
    """
    items = list(items)
    if not items:
        raise BadInput("the answer holds no lines; write one 'LO-HI <line>' per block, "
                       "as the order shows.", then=protocol.Order("sleep"))
    cfg = store.config()
    checked = []
    refused = None
    for arg, text in items:  # text checks first, outside the lock
        try:
            if arg is None:
                raise BadInput("the line does not start with a block id LO-HI followed by "
                               "its summary")
            lo, hi = view.parse_block(arg)
            name = blocks.block_name(lo, hi)
            if not text.strip():
                raise BadInput(f"there is no summary after {name}")
            clean = view.clean_text(text, cfg.ENTRY_CHARS, "summary")
        except MemoError as err:
            refused = _refusal(arg, err)
            break
        checked.append((lo, hi, clean))
    saved, already = [], []
    with store.locked(repair=False):  # levels only, as core.sleep
        T = store.count()
        built = store.built(T)
        for lo, hi, text in checked:
            name = blocks.block_name(lo, hi)
            size = hi - lo
            why = None
            if hi > T:
                why = (f"block {name} is not complete: the log holds {T} memories")
            elif lo // size < built.get(size, 0):
                already.append(name)
                continue
            elif lo // size > built.get(size, 0):
                k = built.get(size, 0)
                why = (f"{name} is not the next summary of its size; the next is "
                       f"{blocks.block_name(k * size, (k + 1) * size)}")
            elif size > 2 and built.get(size // 2, 0) * (size // 2) < hi:
                half = next(h for h in blocks.halves(lo, hi)
                            if built.get(size // 2, 0) * (size // 2) < h[1])
                why = (f"{name} needs the summary of {blocks.block_name(*half)} first")
            if why is not None:
                refused = (name, why, None)
                break
            try:
                view.refuse_damaged(store, lo, hi)
                stale = stale_since(store, lo, hi)
                if stale is not None:
                    raise BadInput(stale)
                if size > view.RAW_PROMPT_MAX:  # halves readable before building on them
                    for a, b in blocks.halves(lo, hi):
                        store.summary(a, b)
                store.put_summary(lo, hi, text)
                settle(store, [(lo, hi)])
            except MemoError as err:
                refused = _refusal(name, err)
                break
            built[size] = built.get(size, 0) + 1
            saved.append(name)
    return BatchResult(saved, already, refused, next_handover(store))


def _refusal(name, err: MemoError) -> tuple:
    """``BatchResult.refused`` for ``err``: its sentence and its closing
    order (``MemoError.then``) apart, so the order can stand on a line of
    its own; a message that does not end a sentence before its order stays
    whole."""
    if err.then is not None and err.sentence.endswith("."):
        return name, err.sentence, err.then
    return name, str(err), None


def reply_lines(result: BatchResult) -> list:
    """What ``memo sleep -`` prints: ``LO-HI saved.`` per stored block (the
    seed's line), ``Another session already wrote LO-HI.`` per skipped one,
    the refusal (one line, starting ``Not saved:``) when there was one, then
    a blank line and the next hand-over (or ``Nothing left to compress.``)."""
    out = [protocol.saved_block(name) for name in result.saved]
    out += [protocol.already_wrote(name) for name in result.already]
    if result.refused is not None:
        name, why, order = result.refused
        what = f"{name}" if name else "a line"
        why = why.rstrip(".")
        if why.endswith(view.AGAIN):  # the batch's next step is the prompt below
            why = why[:-len(view.AGAIN)]
        after = ("Nothing is pending now." if result.prompt.kind == protocol.NOTHING
                 else "What is still pending is handed over again below.")
        out.append(f"Not saved: {what} and every line after it ({why}). {after}")
        if order is not None and not result.prompt.waiting:  # the hand-over says it
            out.append(order.line())
    if out:
        out.append("")
    out.append(result.prompt.text)
    return out


def compression(store: Store, T: int | None = None, form: str | None = None,
                flag: str = "", force: bool = False) -> str:
    """``next_handover``'s text: the prompt for the next compression, or
    ``NOTHING_LEFT``, or why it waits (arguments as there)."""
    return next_handover(store, T, form, flag, force).text


#: The hand-over when nothing is pending.
NOTHING = protocol.Handover(protocol.NOTHING, None, NOTHING_LEFT)


def next_handover(store: Store, T: int | None = None, form: str | None = None,
                  flag: str = "", force: bool = False, after: int = 0) -> protocol.Handover:
    """The next compression at ``T`` (default: the whole log) as a
    ``protocol.Handover``: kind ``NOTHING`` (text ``NOTHING_LEFT``),
    ``COMPRESS`` (the prompt, rendered by ``protocol.compression_prompt``),
    ``WAITING``/``HALF_WAITING`` (``view.waits_for_repair``) or ``HELD``.

    Blocks of up to ``RAW_PROMPT_MAX`` memories show the raw memories; a
    larger block shows its two halves' summaries. ``form`` is the order form
    (``None``: ``MEMO_ORDERS``, see ``optmem.protocol``). ``flag`` is the
    scope flag the order carries (``--project NAME``, ``--global``; docs/scopes.md), empty without
    projects. With ``MEMO_HANDOVER=batch`` in the environment it is the
    batched hand-over instead (``batch_prompt``), its order carrying ``flag``
    too.

    The block is recorded as handed over (``claim``); while another known
    session holds it, the answer is ``protocol.held_elsewhere``'s one line
    (no order) instead, unless ``force`` (a wake whose document needs it).
    ``after``: compressions waiting in another store after this one's (a
    project's, behind the global memory's), counted in the prompt's
    ``N compressions remain`` line, so it never says ``This is the last
    compression.`` while another store still has one.
    """
    if view.batch_mode():
        return batch_prompt(store, T, form, flag, force, after)
    for _ in range(8):  # another session stored the chosen block meanwhile: choose again
        prompt = _compression(store, T, form, flag, force, after)
        if prompt is not BUILT:
            return prompt
    prompt = _compression(store, T, form, flag, True, after)
    return NOTHING if prompt is BUILT else prompt


def _claimed(store: Store, chosen: list, force: bool):
    """``claim`` as a hand-over: None (handed over), ``BUILT``, or a
    ``HELD`` ``protocol.Handover``."""
    held = claim(store, chosen, force=force)
    if held is None or held is BUILT:
        return held
    return protocol.Handover(protocol.HELD, None, held)


def _compression(store: Store, T: int | None, form: str | None, flag: str,
                 force: bool, after: int = 0):
    """``next_handover`` once (``BUILT`` when its block was stored meanwhile)."""
    T = store.count() if T is None else T
    built = store.built(T)
    block = next_pending(store, T, built)
    if block is None:
        return NOTHING
    lo, hi = block
    waits = waits_for_repair(store, lo, hi, flag, form)
    if waits is not None:
        return waits
    held = _claimed(store, [(lo, hi)], force)
    if held is not None:
        return held
    if hi - lo <= RAW_PROMPT_MAX:
        body = [memory_line(m) for m in shown(store, lo, hi)]
    else:
        body = [summary_line(store, a, b) for a, b in blocks.halves(lo, hi)]
    return protocol.Handover(
        protocol.COMPRESS, protocol.summary_order(blocks.block_name(lo, hi), flag),
        protocol.compression_prompt(blocks.block_name(lo, hi), store.config().ENTRY_CHARS,
                                    body, pending_in(T, built) - 1 + after, form, flag))


# -- the hand-over record ----------------------------------------------------
#
# Under the lock, every hand-over is recorded (``optmem.store.handovers``):
# the block, a digest of each record its prompt showed, when, and the
# session it went to. Two uses: an answer whose block's records changed
# since it was handed over (a redact, a forget and rebuild, a merge) is
# refused with the current prompt (``stale_since``); and while one known
# session holds a block, another known session asking is told that nothing
# is needed now (``claim``). A request without ``MEMO_SESSION``, and the
# same session asking again, are handed the block as they always were.

SESSION_ENV = "MEMO_SESSION"  #: names the session a hand-over goes to
#: The hold window, in seconds: ``HOLD_FACTOR`` times the longest of the
#: last answer times measured on this store (hand-over to stored summary),
#: within ``[HOLD_MIN, HOLD_MAX]``; ``HOLD_DEFAULT`` before any is measured.
#: Answers of an agent turn take 2-30 s, so a live session's block is held
#: through its answer and a crashed session's block comes back in minutes.
HOLD_DEFAULT = 120.0
HOLD_MIN = 30.0
HOLD_MAX = 600.0
HOLD_FACTOR = 4.0
CLAIM_WAIT = 5.0  #: seconds a hand-over waits for the lock to record itself

#: The session this process speaks for when the environment does not say
#: (``memo mcp`` sets it for its own connection); None: ``MEMO_SESSION``.
session_override = None


def current_session(environ=None) -> str | None:
    """The session a hand-over goes to: ``session_override`` when set, else
    ``MEMO_SESSION`` (stripped, at most 200 characters), else None."""
    if session_override is not None and environ is None:
        return session_override or None
    env = os.environ if environ is None else environ
    value = env.get(SESSION_ENV, "").strip()[:200]
    return value or None


def hold_seconds(answers) -> float:
    """The hold window (seconds) from measured answer times (seconds)."""
    if not answers:
        return HOLD_DEFAULT
    return min(HOLD_MAX, max(HOLD_MIN, HOLD_FACTOR * max(answers)))


def input_parts(store: Store, lo: int, hi: int) -> list:
    """One short digest (hex) per record the prompt of ``[lo, hi)`` shows:
    each raw log record for a block of up to ``RAW_PROMPT_MAX`` memories,
    else each half's summary; ``""`` for a half not built (or unreadable),
    which is then not compared."""
    import hashlib  # only where a block is handed over (OpenSSL's load: 2-3 ms of a wake)

    def h(data: bytes) -> str:
        return hashlib.sha256(data).hexdigest()[:16]

    if hi - lo <= RAW_PROMPT_MAX:
        data = store.read_log(lo * LOG_RECORD, (hi - lo) * LOG_RECORD)
        return [h(data[k * LOG_RECORD:(k + 1) * LOG_RECORD]) for k in range(hi - lo)]
    out = []
    for a, b in blocks.halves(lo, hi):
        try:
            out.append(h(store.summary(a, b).encode("utf-8", "surrogatepass")))
        except (MemoError, KeyError, OSError, IndexError):
            out.append("")
    return out


def _changed(was: list, now: list) -> list:
    """Indexes of parts recorded and different now."""
    return [k for k, (a, b) in enumerate(zip(was, now)) if a and a != b]


def claim(store: Store, chosen: list, force: bool = False,
          session: str | None = None) -> str | None:
    """Record that blocks ``chosen`` (``[(lo, hi)]``, the first the one
    answered first) are handed over now, to ``session`` (default
    ``current_session()``); return None. Returns
    ``protocol.held_elsewhere``'s line instead, recording nothing, when the
    asking session is known, ``force`` is false, and another known session
    was handed the first block within the hold window over the same
    records, and ``BUILT`` when the first block was stored since it was
    chosen (the caller chooses again). Best effort: a store this user
    cannot write, or a lock not had within ``CLAIM_WAIT`` s, records
    nothing and hands over."""
    if not chosen:
        return None
    session = current_session() if session is None else session
    try:
        if not store.writable():
            return None
        if store._held:
            return _claim(store, chosen, force, session)
        with store.locked(repair=False, timeout=CLAIM_WAIT):
            return _claim(store, chosen, force, session)
    except (MemoError, OSError):
        return None


def _held_by_other(entry, session, now: float, window: float, parts: list) -> bool:
    """Is ``entry`` a live hold of another known session over ``parts``?"""
    return (entry is not None and bool(entry["session"]) and entry["session"] != session
            and 0 <= now - entry["at"] < window
            and not _changed(entry["digest"].split(","), parts))


def _claim(store: Store, chosen: list, force: bool, session: str | None) -> str | None:
    """``claim`` under the lock (``BUILT`` when the first block was stored
    since it was chosen: the caller chooses again)."""
    from optmem.store import handovers
    record = handovers.read(store.root)
    if record.get("unreadable"):
        return None  # not memo's record (a merge's marks): hand over, record nothing
    before = repr(record)
    now = time.time()
    T = store.count()
    built = store.built(T)
    lo, hi = chosen[0]
    if hi > T or lo // (hi - lo) < built.get(hi - lo, 0):
        return BUILT
    _prune(record, T, built)
    window = hold_seconds(record["answers"])
    first = blocks.block_name(lo, hi)
    entry = record["blocks"].get(first)
    if session and not force and _held_by_other(entry, session, now, window,
                                                 input_parts(store, lo, hi)):
        return protocol.held_elsewhere(first)
    for lo, hi in chosen:
        name = blocks.block_name(lo, hi)
        parts = input_parts(store, lo, hi)
        if session:
            record["seen"].setdefault(name, {})[session] = ",".join(parts)
        old = record["blocks"].get(name)
        if _held_by_other(old, session, now, window, parts):
            continue  # still the other session's hold; this asker is handed it too
        if (old is not None and old["session"] == session and old["digest"] == ",".join(parts)
                and 0 <= now - old["at"] < window):
            continue  # handed to this session over these records already: its hold stands
        record["blocks"][name] = {"digest": ",".join(parts), "at": now, "session": session}
    if repr(record) != before:  # a hand-over repeated changes no byte
        handovers.write(store.root, record)
    return None


BUILT = "\x00built"  #: ``claim``'s answer when the block was stored meanwhile


def handed_over_at(store: Store, name: str) -> float | None:
    """When ``store`` last handed block ``name`` (``LO-HI``) over where the
    global memory and a project's are read together (``mark_both``), in
    seconds since the epoch, while it is not stored yet; None when it did
    not, or nothing was recorded."""
    from optmem.store import handovers
    entry = handovers.read(store.root)["blocks"].get(name)
    return entry["at"] if entry is not None and entry.get("both") else None


def mark_both(store: Store, blocks_: list) -> None:
    """Note in ``store``'s hand-over record that blocks ``blocks_``
    (``[(lo, hi)]``, just claimed) were handed over where the global memory
    and a project's are read together, for ``handed_over_at``. Under the
    store's lock; best effort, as ``claim`` is."""
    from optmem.store import handovers
    try:
        with store.locked(repair=False, timeout=CLAIM_WAIT):
            record = handovers.read(store.root)
            if record.get("unreadable"):
                return
            changed = False
            for lo, hi in blocks_:
                entry = record["blocks"].get(blocks.block_name(lo, hi))
                if entry is not None and not entry.get("both"):
                    entry["both"] = changed = True
            if changed:
                handovers.write(store.root, record)
    except (MemoError, OSError):
        pass


def _prune(record: dict, T: int, built: dict) -> None:
    """Drop entries of blocks built or not in the log (under the lock)."""
    for name in list(record["blocks"]):
        try:
            lo, hi = view.parse_block(name)
        except MemoError:
            del record["blocks"][name]
            continue
        size = hi - lo
        if hi > T or lo // size < built.get(size, 0):
            del record["blocks"][name]
    for name in list(record["seen"]):
        if name not in record["blocks"]:
            del record["seen"][name]


def stale_since(store: Store, lo: int, hi: int) -> str | None:
    """Under the lock, before a summary of ``[lo, hi)`` is stored: the
    reason to refuse it when a record its prompt showed changed since the
    block was handed over (a redact, a forget and rebuild of a half, a
    merge), else None. The answering session (``current_session``) is
    checked against what it was shown; a session without identity against
    the last hand-over. A block never recorded (a client that answers
    without a prompt, a store this user could not write to) passes."""
    from optmem.store import handovers
    record = handovers.read(store.root)
    name = blocks.block_name(lo, hi)
    entry = record["blocks"].get(name)
    session = current_session()
    digest = record["seen"].get(name, {}).get(session) if session else None
    if digest is None:
        if entry is None:
            return None
        digest = entry["digest"]
    changed = _changed(digest.split(","), input_parts(store, lo, hi))
    if not changed:
        return None
    name = blocks.block_name(lo, hi)
    if hi - lo > RAW_PROMPT_MAX:
        halves = blocks.halves(lo, hi)
        which = " and ".join(f"#{blocks.block_name(*halves[k])}" for k in changed)
        return (f"the summary of {which} changed after {name} was handed over (forgotten "
                f"and rebuilt, or merged), so this answer summarises other records; nothing "
                f"was saved. Compress the block again from its halves as they are now")
    ids = [lo + k for k in changed]
    which = ", ".join(f"#{i}" for i in ids)
    from optmem.merging import is_redacted
    redacted = []
    for i in ids:
        try:
            redacted.append(is_redacted(store.memory(i).text))
        except MemoError:
            redacted.append(False)
    what = "was redacted" if all(redacted) else "changed"
    return (f"memory {which} in {name} {what} after this compression was handed over, so "
            f"the summary could carry text that is no longer there; nothing was saved. "
            f"Compress the block again from its memories as they are now")


def handed_to_this_session(store: Store, lo: int, hi: int, built: dict) -> bool:
    """Under the lock: may ``[lo, hi)`` be stored although build order
    names another block next? Only when the answering session is known
    (``current_session``) and was handed this very block, and storing it
    keeps every level a dense prefix (it is the next record of its level
    and its halves are built), as a batched answer is stored. This is
    the block a session held while another session's note made a smaller
    block due; a client without identity is refused as always."""
    session = current_session()
    if not session:
        return False
    from optmem.store import handovers
    name = blocks.block_name(lo, hi)
    if session not in handovers.read(store.root)["seen"].get(name, {}):
        return False
    size = hi - lo
    if lo // size != built.get(size, 0):
        return False
    return size == 2 or built.get(size // 2, 0) * (size // 2) >= hi


def settle(store: Store, stored: list) -> None:
    """Under the lock, after summaries of ``stored`` (``[(lo, hi)]``) were
    written: drop their entries and keep how long each answer took (for
    ``hold_seconds``). Best effort: an unwritable record changes nothing."""
    from optmem.store import handovers
    try:
        record = handovers.read(store.root)
        if record.get("unreadable"):
            return
        now = time.time()
        touched = False
        for lo, hi in stored:
            record["seen"].pop(blocks.block_name(lo, hi), None)
            entry = record["blocks"].pop(blocks.block_name(lo, hi), None)
            if entry is not None:
                touched = True
                if 0 <= now - entry["at"] <= HOLD_MAX:
                    record["answers"].append(round(now - entry["at"], 3))
        if touched:
            handovers.write(store.root, record)
    except OSError:
        pass

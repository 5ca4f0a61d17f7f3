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

import re

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
from optmem.store.memory import Store

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
    """The order that answers a batch of block ``names`` (``"lo-hi"``).

    Heredoc by default (no shell expands the agent's text); with
    ``MEMO_ORDERS=line`` one line whose arguments are ``"LO-HI <your line>"``
    each, for programs that call memo without a shell. ``flag`` is the scope
    flag the order carries (``--global``, ``--project NAME``; docs/scopes.md).
    """
    scope = protocol.Order.scoped(flag)
    if (form or protocol.orders_form()) == protocol.MCP_FORM:  # memo mcp: a tool call
        return ["Run: " + protocol.batch_call(names, scope)]
    mine = protocol.YOUR_LINE
    items = tuple(f'"{n} {mine}"' for n in names)
    if (form or protocol.orders_form()) in ("line", protocol.NAP_FORM):  # nap: no batch text
        return [protocol.run(protocol.Order("sleep", ("-",) + items, scope, flag_first=True),
                             "line")]
    tag = protocol.SUMMARY_TAG  # the heredoc, and the default for any other form
    sleep = protocol.Order("sleep", ("-",), scope, flag_first=True).command()
    return [f"Run: {sleep} <<'{tag}'"] + [f"{n} {mine}" for n in names] + [tag]


def _size(lines) -> int:
    return sum(len(line.encode("utf-8", "surrogatepass")) + 1 for line in lines)


def batch_prompt(store, T: int | None = None, form: str | None = None,
                 flag: str = "") -> str:
    """The batched hand-over at ``T`` (default: the log's length), or
    ``view.NOTHING_LEFT``; ``form`` is the order form (``None``:
    ``MEMO_ORDERS``, ``optmem.protocol``) and ``flag`` the scope flag the
    order carries (``--global``, ``--project NAME``; docs/scopes.md).

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
        return view.NOTHING_LEFT
    chosen = []          # blocks, completion order
    raw = {}             # memory id -> display line
    block_lines = []     # lines of the "Blocks" listing
    in_batch = set()
    # Fixed parts, sized with the widest numbers they can hold.
    widest = blocks.block_name(0, 1 << T.bit_length())
    fixed = _size(_head(widest, 2 + total, cfg.ENTRY_CHARS)) + _size(
        ["Memories:", "Blocks, in the order to answer them:", ""]) + _size(
        _remains(total)) + _size(order_lines([], form, flag)) + 64
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
    store.shown_since_redaction(raw)  # these memories are shown as they are now
    return _render(names, raw, block_lines, total, cfg.ENTRY_CHARS, form, flag)


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

_ITEM = re.compile(r"\s*#?(\d{1,20})-(\d{1,20})\s*:?(?:\s+(.*))?\s*\Z", re.S)


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
        m = _ITEM.match(line)
        if m is None:
            out.append((None, line))
        else:
            out.append((f"{m.group(1)}-{m.group(2)}", m.group(3) or ""))
    return out


class BatchResult:
    """What ``store_batch`` did: ``saved`` and ``already`` (block names, in
    answer order), ``refused`` (None, or ``(name_or_None, why)`` for the
    first line refused; nothing after it was stored), and ``prompt`` (the
    next hand-over, or ``view.NOTHING_LEFT``)."""

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
            refused = (arg, str(err))
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
                refused = (name, why)
                break
            try:
                view.refuse_damaged(store, lo, hi)
                stale = view.redacted_since(store, lo, hi)
                if stale is not None:
                    raise BadInput(stale)
                if size > view.RAW_PROMPT_MAX:  # halves readable before building on them
                    for a, b in blocks.halves(lo, hi):
                        store.summary(a, b)
                store.put_summary(lo, hi, text)
            except MemoError as err:
                refused = (name, str(err))
                break
            built[size] = built.get(size, 0) + 1
            saved.append(name)
    return BatchResult(saved, already, refused, compression(store))


def reply_lines(result: BatchResult) -> list:
    """What ``memo sleep -`` prints: ``LO-HI saved.`` per stored block (the
    seed's line), ``Another session already wrote LO-HI.`` per skipped one,
    the refusal (one line, starting ``Not saved:``) when there was one, then
    a blank line and the next hand-over (or ``Nothing left to compress.``)."""
    out = [protocol.saved_block(name) for name in result.saved]
    out += [protocol.already_wrote(name) for name in result.already]
    if result.refused is not None:
        name, why = result.refused
        what = f"{name}" if name else "a line"
        why, order = protocol.split_order(why)
        after = ("Nothing is pending now." if result.prompt == protocol.NOTHING_LEFT
                 else "What is still pending is handed over again below.")
        out.append(f"Not saved: {what} and every line after it ({why.rstrip('.')}). {after}")
        if order and not protocol.is_waiting(result.prompt):  # the hand-over says it
            out.append(order)
    if out:
        out.append("")
    out.append(result.prompt)
    return out


def compression(store: Store, T: int | None = None, form: str | None = None,
                flag: str = "") -> str:
    """The prompt for the next compression at ``T`` (default: the whole
    log), or ``NOTHING_LEFT``; rendered by ``protocol.compression_prompt``.

    Blocks of up to ``RAW_PROMPT_MAX`` memories show the raw memories; a
    larger block shows its two halves' summaries. ``form`` is the order form
    (``None``: ``MEMO_ORDERS``, see ``optmem.protocol``). ``flag`` is the
    scope flag the order carries (``--project NAME``, ``--global``; docs/scopes.md), empty without
    projects. With ``MEMO_HANDOVER=batch`` in the environment it is the
    batched hand-over instead (``batch_prompt``), its order carrying ``flag``
    too.
    """
    if view.batch_mode():
        return batch_prompt(store, T, form, flag)
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

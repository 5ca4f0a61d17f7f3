"""The pager: cut the wake document into parts (docs/protocol.md, wake).

Harnesses truncate long command output, each differently, so wake prints
parts that fit all of them: a part holds at most ``PART_LINES`` lines of
the document (the header and the closing line are extra, as in the later
OptMem, so a store pages into the same number of parts; an intro line
stands in part 1, counted or not as the caller says) and at most
``PART_CHARS`` bytes of UTF-8, header and closing line included. With
more than one part each starts with a header naming the part and the count;
a part that is not the last ends with the order for the next one, carrying
``T`` so a memory noted mid-read shifts nothing; the last ends with
``You are awake.``. Pure: lines in, text out.
"""

from __future__ import annotations

from optmem import protocol

AWAKE = protocol.AWAKE


def header(k: int, n: int, T: int) -> str:
    """The first line of part ``k`` of ``n`` (only when ``n > 1``):
    ``Your memory, part K of N, oldest first.`` (seed; ``T`` is unused)."""
    return protocol.part_header(k, n)


def footer(k: int, n: int, T: int) -> str:
    """The last line of part ``k``: ``Not awake yet. Run: memo wake <k+1>
    <T>``, or ``AWAKE``."""
    return protocol.part_footer(k, n, T)


def _size(line: str) -> int:
    return len(line.encode("utf-8")) + 1  # with its newline


def paginate(lines: list, intro: str | None, T: int, part_lines: int, part_chars: int,
             head=None, foot=None, intro_counts: bool = True, closed: bool = True) -> list:
    """Split ``intro`` + ``lines`` into parts; return each part's text
    (``intro`` None: ``lines`` alone).

    ``part_lines`` counts the lines of the document in a part (``intro``
    and ``lines``; the header and footer are not counted, as in the later
    OptMem). ``part_chars`` counts bytes of UTF-8 (newlines included),
    header and footer included: room for the longest possible header and
    footer is kept in every part, so the split never depends on how many
    parts there turn out to be (where ``part_chars`` binds, memo may need
    one part more than the later OptMem). Always returns at least
    one part; a line too long for any part still gets one of its own.
    With ``intro_counts`` False the intro is one line more in part 1, not
    counted against ``part_lines`` (the one-store wake over MCP: memo's own
    line stands beside the reference's ``WAKE_LINES`` lines, never in the
    place of one). ``head(k, n)``
    and ``foot(k, n)`` replace ``header``/``footer`` for a document of two
    stores (docs/scopes.md: the footer carries both snapshots). With
    ``closed`` False a part that is not the last has no footer (the order
    for the next part: a reader holding every part needs none); the parts
    split where they do with it.
    """
    head = head or (lambda k, n: header(k, n, T))
    foot = foot or (lambda k, n: footer(k, n, T))
    big = 10 ** 9
    head_room = _size(head(big, big))
    foot_room = max(_size(foot(big, big + 1)), _size(AWAKE))
    chunks = []
    current = [] if intro is None else [intro]
    used_bytes = 0 if intro is None else _size(intro)
    free = 1 if intro is not None and not intro_counts else 0  # lines not counted
    for line in lines:
        need = len(line.encode("utf-8")) + 1  # _size, without a call per line
        fits = (len(current) - free < part_lines
                and used_bytes + need + head_room + foot_room <= part_chars)
        if not fits and current:
            chunks.append(current)
            current, used_bytes, free = [], 0, 0
        current.append(line)
        used_bytes += need
    chunks.append(current)
    n = len(chunks)
    parts = []
    for k, chunk in enumerate(chunks, 1):
        body = ([head(k, n)] if n > 1 else []) + chunk + ([foot(k, n)] if closed or k == n else [])
        parts.append("\n".join(body))
    return parts

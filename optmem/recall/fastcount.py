"""Exact recall counts for literal patterns with CPython's byte methods.

For a literal, a set of literals (``deploy|rollback``, ``v(1|2)``,
``[ab]c``), each with or without ``\\b`` at either end, ``Counter.count``
gives the number of matching records of a chunk from its bytes (case
classes mapped to one representative, the chunk normalised first when a
character in it may change under NFC), or None when the chunk does not
meet the conditions; the caller then matches it line by line. Why the count
equals recall's definition: docs/recall.md, "Counting without matching
lines".
"""

from __future__ import annotations

import functools
import re
import unicodedata

from optmem.recall.pattern import inert_char, is_word, sre_modules
from optmem.store.memory import LOG_RECORD

MAX_ALTERNATIVES = 64  #: literals a pattern may expand to and still be counted here
MAX_PATTERN_CHARS = 1024  #: longer patterns are matched line by line (``literal_set``)
MAX_EXCEPTIONS = 256  #: records of a chunk matched with ``re`` before mapping spellings instead
#: Printable ASCII: deleting it from a chunk leaves newlines, control bytes
#: and the bytes of non-ASCII characters (one C call, ~1.5 GB/s).
_PRINTABLE = bytes(range(0x20, 0x7F))
#: Deleting these from that residue leaves only control bytes.
_HIGH_AND_NEWLINE = bytes(range(0x80, 0x100)) + b"\n"
_BOUNDARY = object()  #: a ``\b`` in an expanded alternative


class _NotCountable(Exception):
    pass


@functools.lru_cache(maxsize=4)  # recall asks twice about one chunk
def nfc_inert(residue: bytes) -> bool:
    """True if the text whose non-ASCII bytes (in order, ASCII bytes
    deleted or kept) are ``residue`` is certainly its own NFC.

    Deleting ASCII bytes may join the pieces of invalid sequences into
    other characters, never split a valid one, so every real character is
    judged (a false "not inert" only costs time)."""
    if residue.isascii():
        return True
    text = residue.decode("utf-8", "replace")
    return all(map(inert_char, set(text)))


def nfc_changed(data: bytes, n: int, rest: bytes | None = None):
    """The records (indexes in ``[0, n)``, a set) of a chunk whose line
    (``pattern.line_of``) is not its own NFC, or None when the chunk is not
    ``n`` whole records each ending in its only newline (the caller then
    normalises every line). ``rest``: ``residue(data)`` when the caller
    has it.

    Only records holding a character that is not NFC-inert can change
    (``inert_char``; a text of inert characters is its own NFC). Those
    characters are read off the residue (every valid character of ``data``
    is whole in it, see ``nfc_inert``), each is found in ``data`` with
    ``bytes.find`` (an occurrence of a valid sequence is that character in
    its record's line: a lead byte is never swallowed as a continuation),
    and only the records holding one are decoded and normalised. Much
    cheaper than normalising the chunk when a few lines hold marks that
    NFC keeps (Devanagari vowel signs, a Thai tone mark)."""
    if len(data) != n * LOG_RECORD or data[LOG_RECORD - 1::LOG_RECORD] != b"\n" * n:
        return None
    rest = residue(data) if rest is None else rest
    if rest.count(b"\n") != n:
        return None
    if rest.isascii():
        return set()
    rows = set()
    find = data.find
    for ch in set(rest.decode("utf-8", "replace")):
        if inert_char(ch):
            continue
        spelling = ch.encode("utf-8", "surrogatepass")
        pos = find(spelling)
        while pos >= 0:
            r = pos // LOG_RECORD
            rows.add(r)
            pos = find(spelling, (r + 1) * LOG_RECORD)
    changed = set()
    normalize = unicodedata.normalize
    for r in rows:
        record = data[r * LOG_RECORD:(r + 1) * LOG_RECORD]
        line = record.decode("utf-8", "replace").replace("\n", " ").rstrip()
        if normalize("NFC", line) != line:
            changed.add(r)
    return changed


def nfc_stable(data: bytes, n: int, rest: bytes | None = None) -> bool:
    """True if every line of the chunk's ``n`` records is certainly its own
    NFC: its characters are all NFC-inert (``nfc_inert``), or no record's
    line changes under NFC (``nfc_changed``)."""
    rest = residue(data) if rest is None else rest
    return nfc_inert(rest) or nfc_changed(data, n, rest) == set()


def _rows_holding(low: bytes, residue: bytes, spellings: list):
    """The records (indexes, a set) of ``low`` that hold one of
    ``spellings`` (UTF-8 of non-ASCII characters), or None if over
    ``MAX_EXCEPTIONS`` might. Each spelling is found through its rarest
    byte in ``residue`` (``bytes.find`` of one byte is memchr: some 50
    times faster here than a multi-byte find or an ``re`` scan)."""
    rows = set()
    for spelling in spellings:
        k = min(range(len(spelling)), key=lambda j: residue.count(spelling[j:j + 1]))
        if residue.count(spelling[k:k + 1]) > 4 * MAX_EXCEPTIONS:
            return None
        byte, find, size = spelling[k:k + 1], low.find, len(spelling)
        pos = find(byte)
        while pos >= 0:
            if low[pos - k:pos - k + size] == spelling:
                rows.add((pos - k) // LOG_RECORD)
            pos = find(byte, pos + 1)
        if len(rows) > MAX_EXCEPTIONS:
            return None
    return rows


def residue(data: bytes) -> bytes:
    """``data`` without its printable ASCII bytes: newlines, control bytes
    and the bytes of non-ASCII characters, in order (one C pass)."""
    return data.translate(None, _PRINTABLE)


def _shape(data: bytes, n: int, rest: bytes | None = None):
    """The residue (``residue``, or ``rest`` when given) of ``n`` whole
    records, or None unless each record ends in its only newline and holds
    no control byte."""
    if len(data) != n * LOG_RECORD or data[LOG_RECORD - 1::LOG_RECORD] != b"\n" * n:
        return None
    rest = residue(data) if rest is None else rest
    if rest.count(b"\n") != n or rest.translate(None, _HIGH_AND_NEWLINE):
        return None
    return rest


def _expand(seq, parser, c) -> list:
    """The alternatives a parsed (sub)pattern matches: lists of characters
    and ``_BOUNDARY``; raises ``_NotCountable`` for anything else."""
    out = [[]]
    for op, av in seq:
        if op is c.LITERAL:
            if 0xD800 <= av <= 0xDFFF:
                raise _NotCountable  # a lone surrogate: no UTF-8, and no line holds one
            options = [[chr(av)]]
        elif op is c.AT and av is c.AT_BOUNDARY:
            options = [[_BOUNDARY]]
        elif op is c.SUBPATTERN:
            if av[1] or av[2]:  # local flags: (?-i:...), (?a:...)
                raise _NotCountable
            options = _expand(av[-1], parser, c)
        elif op is c.BRANCH:
            options = [o for alt in av[1] for o in _expand(alt, parser, c)]
        elif op is c.IN:
            if not all(item_op is c.LITERAL for item_op, _ in av):
                raise _NotCountable
            if any(0xD800 <= x <= 0xDFFF for _, x in av):
                raise _NotCountable
            options = [[chr(x)] for _, x in av]
        else:
            raise _NotCountable
        out = [a + b for a in out for b in options]
        if len(out) > MAX_ALTERNATIVES:
            raise _NotCountable
    return out


def literal_set(pattern: str):
    """The literals ``pattern`` matches, as ``[(left, body, right)]``:
    ``body`` a non-empty string with no newline, U+FFFD or lone surrogate,
    ``left``/``right`` True where a ``\\b`` stands before/after it; None
    when the pattern is anything else (a repeat, a class of ranges, local
    or ASCII flags, over ``MAX_ALTERNATIVES`` literals, over
    ``MAX_PATTERN_CHARS`` characters: expanding costs the length squared)."""
    if len(pattern) > MAX_PATTERN_CHARS:
        return None
    parser, c = sre_modules()
    try:
        tree = parser.parse(pattern, re.IGNORECASE)
        if tree.state.flags & (re.ASCII | getattr(re, "LOCALE", 0)):
            return None
    except (RecursionError, Exception):  # noqa: BLE001 - not countable
        return None
    return literals_of(tree, parser, c)


def literals_of(seq, parser, c):
    """``literal_set`` for a parsed (sub)pattern ``seq`` (items of Python's
    own parser, ``pattern.sre_modules``): ``[(left, body, right)]`` or
    None."""
    try:
        alternatives = _expand(seq, parser, c)
    except (_NotCountable, RecursionError, Exception):  # noqa: BLE001 - not countable
        return None
    out = []
    for alt in alternatives:
        left = bool(alt) and alt[0] is _BOUNDARY
        right = len(alt) > left and alt[-1] is _BOUNDARY
        body = alt[left:len(alt) - right]
        if not body or any(x is _BOUNDARY or x in "\n\ufffd" for x in body):
            return None
        out.append((left, "".join(body), right))
    return out


class Counter:
    """Counts the records of a chunk that match one countable pattern.

    Built by ``counter_for``; ``count(data, n)`` gives the exact number of
    matching records among the ``n`` whole records in ``data``, or None.
    """

    def __init__(self, literals: list, left: bool, right: bool, classes: dict, search):
        self.left, self.right, self.search = left, right, search
        #: Whether chunks are ASCII-lowered first: only when a character of
        #: the literals has ASCII letters among its spellings (``東京``,
        #: ``2024-05-01`` are counted in the bytes as they are).
        self.fold = any(x.isascii() and x.isalpha() for members in classes.values() for x in members)
        rep, self.members = {}, []
        for members in set(classes.values()):
            letters = {x.lower() for x in members if x.isascii()}
            typed = sorted(ch for ch in classes if classes[ch] == members)
            target = letters.pop() if letters else typed[0]
            for x in members:
                rep[x] = target
                if not x.isascii() and x != target:
                    old = x.encode("utf-8")
                    self.members.append((old, target.encode("utf-8"), re.compile(re.escape(old))))
        needles = {"".join(rep[ch] for ch in lit).encode("utf-8") for lit in literals}
        self.needles = sorted(needles, key=len, reverse=True)  # longest first
        # Several literals: each occurrence is first overwritten, longest
        # literal first, by a same-length run \x01 \x00 ... (so records keep
        # their width); those bytes count as word characters, as the
        # literal's own characters are (``counter_for`` checks).
        word = b"A-Za-z0-9_\\x80-\\xff"  # A-Z too: a chunk is lowered only if ``fold``
        if len(self.needles) == 1:
            head = tail = re.escape(self.needles[0])
        else:
            head, tail, word = b"\x01", b"\x01\x00*", word + b"\\x00\\x01"
        look = b""
        if left:
            look += b"(?<=[^" + word + b"]" + head + b")"
        body = head + look + tail[len(head):]
        if right:
            body += b"(?![" + word + b"])"
        self.rx = re.compile(body + b".*")  # "." stops at a newline: one match a line
        undecided = []
        if left:
            undecided.append(b"(?<=[\\x80-\\xff]" + head + b")" + tail[len(head):])
        if right:
            undecided.append(tail[len(head):] + b"(?=[\\x80-\\xff])")
        self.undecided = re.compile(head + b"(?:" + b"|".join(undecided) + b")") if undecided else None

    def _count(self, low: bytes):
        """Matching lines of ``low`` (lowered, members mapped or excepted)."""
        if len(self.needles) > 1:
            for needle in self.needles:
                low = low.replace(needle, b"\x01" + b"\x00" * (len(needle) - 1))
        if self.left and not low.startswith(b"#"):
            low = b"\n" + low  # a damaged record may start with the word
        if self.undecided is not None and self.undecided.search(low):
            return None
        return self.rx.subn(b"", low)[1]

    def count(self, data: bytes, n: int, rest: bytes | None = None,
              stable: bool | None = None):
        """How many of the ``n`` records (``data``: exactly ``n`` * 320 bytes)
        match, or None when this chunk must be matched line by line.
        ``rest``: ``residue(data)`` when the caller has it; ``stable``:
        ``nfc_stable(data, n, rest)`` when the caller has it.

        Non-ASCII spellings of the literal's characters (``Ü`` for ``ü``,
        ``ſ`` for ``s``) are either mapped onto one spelling with a byte
        replacement, or, when at most ``MAX_EXCEPTIONS`` records hold one,
        those records are matched with ``re`` instead (cheaper: a replacement
        that changes lengths copies the chunk)."""
        residue = _shape(data, n, rest)
        if residue is None:
            return None
        fixed = nfc_stable(data, n, residue) if stable is None else stable
        if not fixed:
            text = data.decode("utf-8", "replace")
            data = unicodedata.normalize("NFC", text).encode("utf-8")
        low = data.lower() if self.fold else data
        present = [m for m in self.members if m[0] in (residue if fixed else low)]
        for old, new, rx in present:
            if len(old) == len(new):  # same width: map in place
                low = rx.sub(new, low)
        present = [m for m in present if len(m[0]) != len(m[1])]
        if fixed and present:
            rows = _rows_holding(low, residue, [m[0] for m in present])
            if rows is not None:
                total = self._count(low)
                if total is None:
                    return None
                for r in rows:
                    a, b = r * LOG_RECORD, (r + 1) * LOG_RECORD
                    own = self._count(low[a:b])
                    if own is None:
                        return None
                    # An inert chunk is its own NFC: the line is as stored.
                    total += bool(self.search(data[a:b].decode("utf-8", "replace").rstrip())) - own
                return total
        for _old, new, rx in present:
            low = rx.sub(new, low)
        return self._count(low)


def counter_for(pattern: str, case_class, search):
    """A ``Counter`` for ``pattern`` (already NFC), or None when it is not
    countable here. ``case_class(ch)`` gives the characters ``re`` matches
    with the literal ``ch`` under IGNORECASE (``search.case_class``);
    ``search(line)`` is the compiled pattern's ``search``, for the few
    records matched one by one."""
    found = literal_set(pattern)
    if found is None:
        return None
    edges = {(left, right) for left, _, right in found}
    literals = [body for _, body, _ in found]
    if len(edges) != 1:
        return None
    left, right = edges.pop()
    if (left or right) and len(set(literals)) > 1:
        # Several literals are counted by overwriting each occurrence,
        # longest first; one that fails its \b can overwrite a shorter one
        # that passes it (``\b(ab|bcd)`` on ``abcd``), so with \b only one
        # literal is counted here.
        return None
    classes = {ch: frozenset(case_class(ch) or ch) for ch in set("".join(literals))}
    members = [x for cls in set(classes.values()) for x in cls]
    if len(members) != len(set(members)):
        return None  # two classes overlap: no single representative
    for cls in classes.values():
        letters = [x for x in cls if x.isascii()]
        if letters and not (len({x.lower() for x in letters}) == 1
                            and all(x.lower() in cls and x.upper() in cls for x in letters)):
            return None  # bytes.lower() would not map this class onto one member
        if len({is_word(x) for x in cls}) != 1:
            return None
    for lit in literals:
        if any(x.isspace() for x in classes[lit[-1]]):
            return None  # could end in the padding that line_of strips
    if left or right:
        words = ([lit[0] for lit in literals] if left else []) + \
                ([lit[-1] for lit in literals] if right else [])
        if len(literals) > 1:
            words = list("".join(literals))  # sentinels stand for whole words
        if not all(is_word(ch) for ch in words):
            return None
    return Counter(literals, left, right, classes, search)

"""Exact recall counts in one compiled pass (the optional C extension
``optmem.recall._scan``, built by ``setup.py`` where a C compiler is).

The same patterns as ``fastcount`` (``fastcount.literal_set``), counted by
looking at each record once: ``_scan`` calls each record certain, maybe
(matched one by one with ``re``) or not a match, and also gives the lines
of the chunks recall prints (``ScanCounter.lines``). A chunk it refuses is
counted by ``fastcount`` or line by line. Why the three outcomes are
right: docs/recall.md, "One compiled pass".
"""

from __future__ import annotations

import itertools
import re
import unicodedata

from optmem.recall import fastcount, nfcspell
from optmem.recall.pattern import inert_char, is_word, sre_modules
from optmem.store.memory import LOG_RECORD
from optmem.textform import nfc

try:
    from optmem.recall import _scan
except ImportError:  # built without a C compiler: recall uses fastcount
    _scan = None

MAX_NEEDLES = 64  #: spellings a pattern may expand to (``_scan`` accepts at most this many)
MAX_NEEDLE_BYTES = 255  #: bytes of UTF-8 in one spelling (``_scan``'s bound)
MAX_EXCEPTIONS = 256  #: exception spellings (``_scan``'s bound)
LEFT, RIGHT = 1, 2  #: flags of a spelling: a ``\b`` before it, after it
#: Kinds of exception (``_scan``): found anywhere (an inert member such as
#: ``ſ``); where a character that is not NFC-inert begins (it is one: U+212A);
#: ending where such a character begins (a head, ``u`` before U+0308).
ANYWHERE, AT_COMPOSER, BEFORE_COMPOSER = 0, 1, 2


def available() -> bool:
    """True when the C extension ``optmem.recall._scan`` is importable."""
    return _scan is not None


class ScanCounter:
    """Counts the records of a chunk that match one pattern, with ``_scan``.

    ``needles``: ``(UTF-8 spelling, flags)`` pairs; ``fold``: compare ASCII
    letters in either case; ``exceptions``: ``(UTF-8, kind)`` pairs;
    ``search``: the compiled pattern's ``search``, for the records ``_scan``
    leaves undecided. Built by ``counter_for``.
    """

    def __init__(self, needles: list, fold: bool, exceptions: list, search, stages=None):
        self.needles, self.fold, self.exceptions = needles, fold, exceptions
        self.search = search
        #: For a chain (``chain_for``): ``[(needles, gap)]``, one per
        #: literal in order, ``gap`` the bytes (0 or 1) at least between one
        #: literal's end and the next one's start; ``needles`` is then unused.
        self.stages = stages
        #: False once ``_scan`` gave up on the work a chunk would cost
        #: (needles that overlap themselves): the caller counts without it.
        self.usable = True

    def _scan(self, data: bytes, method: int = 0, rows: bool = False):
        """``_scan.count`` on ``data`` and the records it leaves undecided
        matched with ``re``: ``(certain, matching)``, ``certain`` a count or
        (``rows``) a list of indexes, ``matching`` the undecided records'
        indexes whose line matches; None when ``_scan`` refuses the chunk or
        gives up (then ``usable`` turns False)."""
        from optmem.recall.pattern import line_of
        if self.stages is not None:
            got = _scan.chain(data, LOG_RECORD, self.stages, self.fold,
                              nfcspell.composer_table(), self.exceptions, rows)
        else:
            got = _scan.count(data, LOG_RECORD, self.needles, self.fold,
                              nfcspell.composer_table(), self.exceptions, method, rows)
        if got is False:  # over _scan's work bound: as costly on the next chunk
            self.usable = False
            return None
        if got is None:
            return None
        certain, maybe = got
        search = self.search
        return certain, [r for r in maybe
                         if search(nfc(line_of(data[r * LOG_RECORD:(r + 1) * LOG_RECORD])))]

    def lines(self, data: bytes, n: int):
        """The lines (``pattern.line_of``, as stored) of the records among
        the ``n`` in ``data`` that match, oldest first; None as ``count``
        gives None. Recall prints these for the newest chunks."""
        from optmem.recall.pattern import line_of
        got = self._scan(data, rows=True)
        if got is None:
            return None
        certain, matching = got
        return [line_of(data[r * LOG_RECORD:(r + 1) * LOG_RECORD])
                for r in sorted(set(certain).union(matching))]

    def count(self, data: bytes, n: int, method: int = 0):
        """How many of the ``n`` records in ``data`` (exactly ``n`` * 320
        bytes) match, or None when a record does not end in its only
        newline, or when finding the spellings would cost over 16 byte
        comparisons a byte (then ``usable`` turns False); the caller then
        counts the chunk another way. ``method``: how ``_scan`` looks for
        the spellings (0: it chooses; 1, 2: one way or the other, for the
        tests; the answer is the same)."""
        got = self._scan(data, method)
        return None if got is None else got[0] + len(got[1])

def _spelling_chars(ch: str, case_class, exceptions: dict):
    """``(chars, extras, folds)`` for one character ``ch`` of a literal:
    the characters a spelling may write for it (an ASCII letter once, in
    lower case, when ``folds``), and the other NFC-inert members ``re``
    folds to that letter (``ſ`` for ``s``, ``ı`` and ``İ`` for ``i``), which
    a spelling may write too or, when spellings would be too many, are
    exceptions found anywhere. Adds the other exceptions of ``ch``'s class
    to ``exceptions``. None when a member has no known spellings (a mark, a
    jamo, an unverified Unicode version)."""
    members = case_class(ch) or ch
    letters = {x for x in members if x.isascii() and x.isalpha()}
    inert = [x for x in members
             if unicodedata.is_normalized("NFC", x) and inert_char(x)]
    extras = []
    if letters:
        lower = {x.lower() for x in letters}
        if len(lower) != 1 or not all(x.lower() in members and x.upper() in members
                                      for x in letters):
            return None
        chars, folds = [lower.pop()], True
        extras = [x for x in inert if not x.isascii()]
    elif any(x.isascii() for x in members):
        if members != ch:
            return None
        chars, folds = [ch], False
    else:
        chars, folds = inert, False
        if not chars:
            return None
    for x in members:
        if not unicodedata.is_normalized("NFC", x):
            continue  # never in an NFC line; its NFC is a member, whose spellings hold it
        spelled = nfcspell.spellings(x)
        if spelled is None:
            return None
        whole, heads = spelled
        for w in whole:
            if w in chars or w in extras or (folds and w.isascii() and w.lower() in chars):
                continue
            kind = ANYWHERE if inert_char(w) else AT_COMPOSER
            exceptions[(w.encode("utf-8"), kind)] = None
        for h in heads:
            exceptions[(h.encode("utf-8"), BEFORE_COMPOSER)] = None
    return chars, extras, folds


def _needles(alternatives: list):
    """``{(UTF-8, flags): None}`` for ``[(per_char, flags)]``, each
    ``per_char`` a list of the characters each position may be; None over
    ``MAX_NEEDLES`` spellings or ``MAX_NEEDLE_BYTES`` bytes."""
    needles = {}
    for per_char, flags in alternatives:
        for chars in itertools.product(*per_char):
            needle = "".join(chars).encode("utf-8")
            if len(needle) > MAX_NEEDLE_BYTES:
                return None
            needles[(needle, flags)] = None
            if len(needles) > MAX_NEEDLES:
                return None
    return needles


def _stage(found: list, case_class, exceptions: dict):
    """The needles of one set of literals (``fastcount.literal_set``'s
    ``found``): a list of ``(UTF-8, flags)``, and whether ASCII letters
    fold, adding to ``exceptions``; None when it cannot be counted in C (a
    literal that may end in the padding, a ``\\b`` next to a character that
    is not always a word character, a character with no known spellings,
    too many spellings)."""
    extras, fold = {}, False
    plain, every = [], []
    for left, body, right in found:
        if any(x.isspace() for x in (case_class(body[-1]) or body[-1])):
            return None  # could end in the padding that line_of strips
        for edge, wanted in ((body[0], left), (body[-1], right)):
            if wanted and not all(map(is_word, case_class(edge) or edge)):
                return None  # \b next to a character that is not always a word character
        base, full = [], []
        for ch in body:
            spelled = _spelling_chars(ch, case_class, exceptions)
            if spelled is None:
                return None
            chars, more, folds = spelled
            base.append(chars)
            full.append(chars + more)
            extras.update(dict.fromkeys(more))
            fold = fold or folds
        flags = LEFT * left | RIGHT * right
        plain.append((base, flags))
        every.append((full, flags))
    # The members re folds to an ASCII letter (ſ, ı, İ) are spelled out when
    # the spellings stay few, so records holding them are decided in C;
    # else they are exceptions, and those records are matched with re.
    needles = _needles(every)
    if needles is None:
        needles = _needles(plain)
        if needles is None:
            return None
        for x in extras:
            exceptions[(x.encode("utf-8"), ANYWHERE)] = None
    return list(needles), fold


def counter_for(pattern: str, case_class, search):
    """A ``ScanCounter`` for ``pattern`` (already NFC), or None when
    ``_scan`` is not built or the pattern is neither a set of literals it
    can count (see the module docstring) nor a chain of them
    (``chain_for``). ``case_class(ch)``: the characters ``re`` matches with
    the literal ``ch`` under IGNORECASE (``search.case_class``);
    ``search``: the compiled pattern's ``search``."""
    if _scan is None:
        return None
    found = fastcount.literal_set(pattern)
    if found is None:
        return chain_for(pattern, case_class, search)
    exceptions = {}
    stage = _stage(found, case_class, exceptions)
    if stage is None or len(exceptions) > MAX_EXCEPTIONS:
        return None
    needles, fold = stage
    return ScanCounter(needles, fold, list(exceptions), search)


MAX_STAGES = 8  #: literals a chain may hold (``_scan``'s bound)


def chain_parts(pattern: str):
    """``[(found, gap)]`` when ``pattern`` is literals (or sets of them,
    each as ``fastcount.literal_set`` reads it, ``\\b`` at their edges
    included) joined by ``.*``, ``.+``, ``[^\\n]*`` or ``[^\\n]+`` (lazy or
    not; a ``.*`` at either end changes nothing): ``gap`` is 1 where the
    join needs a character, else 0 (the first literal's is 0). None for
    anything else (a ``.+`` at either end, joins needing two characters or
    more, a join of another repeat count, local or ASCII flags, over
    ``MAX_STAGES`` literals, no join at all)."""
    if len(pattern) > fastcount.MAX_PATTERN_CHARS:
        return None
    parser, c = sre_modules()
    try:
        tree = parser.parse(pattern, re.IGNORECASE)
    except (RecursionError, Exception):  # noqa: BLE001 - not a chain
        return None
    if tree.state.flags & (re.ASCII | getattr(re, "LOCALE", 0)):
        return None
    segments, current, gaps, pending, joined = [], [], [], 0, False
    for op, av in tree:
        gap = _join(op, av, c)
        if gap is not None:  # joins in a row need the sum of their gaps
            pending, joined = pending + gap, True
            continue
        if pending > 1 or (pending and not segments and not current):
            return None  # two characters at least, or one before the first literal
        if pending or (joined and current):
            segments.append(current)
            gaps.append(pending)
            current, pending = [], 0
        joined = False
        current.append((op, av))
    if pending or not current or not (segments or joined):
        return None  # a character after the last literal, or no join at all
    segments.append(current)
    if len(segments) > MAX_STAGES:
        return None
    out = []
    for seg, gap in zip(segments, [0] + gaps):
        found = fastcount.literals_of(seg, parser, c)
        if found is None:
            return None
        out.append((found, gap))
    return out


def _join(op, av, c):
    """The gap (0 or 1) when a parsed item is ``.*``, ``.+``, ``[^\\n]*``
    or ``[^\\n]+`` (greedy or lazy), else None. ``.`` without DOTALL and
    ``[^\\n]`` are the same on a line, which holds no newline."""
    if op not in (c.MAX_REPEAT, c.MIN_REPEAT):
        return None
    lo, hi, body = av
    if hi != c.MAXREPEAT or lo not in (0, 1) or len(body) != 1:
        return None
    (op2, av2), = list(body)
    if op2 is c.ANY or (op2 is c.NOT_LITERAL and av2 == 10):
        return lo
    if op2 is c.IN and list(av2) == [(c.NEGATE, None), (c.LITERAL, 10)]:
        return lo
    return None


def chain_for(pattern: str, case_class, search):
    """A ``ScanCounter`` for a chain of literals (``chain_parts``), decided
    by ``_scan.chain``: a record matches when each literal occurs in order,
    each after the previous one's end (and a character later for ``.+``).
    None when ``_scan`` is not built or ``pattern`` is not such a chain, or
    one of its literals cannot be counted in C. Arguments as
    ``counter_for``; docs/recall.md, "A chain of literals", says why the
    answers are the definition's."""
    if _scan is None:
        return None
    parts = chain_parts(pattern)
    if parts is None:
        return None
    exceptions, fold, stages = {}, False, []
    for found, gap in parts:
        stage = _stage(found, case_class, exceptions)
        if stage is None:
            return None
        stages.append((stage[0], gap))
        fold = fold or stage[1]
    if len(exceptions) > MAX_EXCEPTIONS:
        return None
    return ScanCounter([], fold, list(exceptions), search, stages)

"""Streaming recall: ``recall(store, pattern)`` finds and counts the log
lines that match, exactly as recall is defined (docs/recall.md): Python
``re``, IGNORECASE, the NFC pattern on the NFC form of each line
(``pattern.line_of``).

The log is read in chunks of ``CHUNK_RECORDS`` whole records, newest first,
from the count when the search starts; chunks are matched until the output
budget is full, older ones only counted. A literal every match must contain
(``requirements``) is searched in the raw bytes first (on RE2 when
installed, else ``bytes.find``), and only the records it reports are
matched with ``re``; literal patterns are counted by ``scancount`` or
``fastcount`` without matching lines. Why each shortcut gives the
definition's answer: docs/recall.md, "Why the counts are exact".

Matching runs under a ``TIME_BOUND`` alarm of CPU time (``ITIMER_VIRTUAL``,
so a loaded machine gives the same answer): a pattern that backtracks past
it is refused in one line. The alarm is a signal only the main thread
receives, so ``memo mcp`` runs recall in a child process (``optmem.mcp``).
A pattern is at most ``MAX_PATTERN_CHARS`` characters (``check_pattern``).
"""

from __future__ import annotations

import _signal as _signals  # signal's enum wrappers would cost 0.5 ms of a recall
import functools
import itertools
import operator
import re
import sys
import unicodedata

from optmem.errors import BadInput
from optmem.recall import fastcount, nfcspell, scancount
from optmem.recall.pattern import line_of, sre_modules
from optmem.store.memory import LOG_RECORD, displayable
from optmem.textform import nfc

CHUNK_RECORDS = 4096  #: records read and matched at a time (4096 * 320 bytes = 1.25 MiB)
TIME_BOUND = 1.5  #: CPU seconds the matching of one chunk may take before the regex is refused
SIGNALS = _signals  #: where the CPU-time alarm is set (a module like ``signal``; tests put a fake clock here)
USE_RE2 = True  #: use google-re2 for the byte prefilter when it is installed
MAX_CHOICES = 3  #: required options ``_Re2Prefilter.settle`` (``_Rarest`` without RE2) may choose among
MAX_NEEDLE_CLASSES = 6  #: non-ASCII characters a needle may hold (each costs a Unicode scan)
#: Characters of an RE2 needle: a longer part of a literal finds no fewer
#: records, and 20,000 'é' made RE2's simplifier log hundreds of lines.
MAX_NEEDLE_CHARS = 64

#: Non-ASCII characters that Python's ``re`` (IGNORECASE, Unicode) matches
#: with an ASCII letter: dotted and dotless I, the Kelvin sign, long s.
#: ``fastcount`` needs this exact (``case_class``); ``tests/test_search.py``
#: checks it against every code point.
ASCII_FOLDS = {"i": "\u0130\u0131", "k": "\u212a", "s": "\u017f"}
#: ASCII characters with one spelling under IGNORECASE (their cases aside):
#: an RE2 needle starting with a run of them can be skipped to fast.
_PLAIN = "".join(chr(c) for c in range(33, 127)
                 if chr(c).lower() not in ASCII_FOLDS and chr(c) not in ";`K")


#: Characters (code points, not bytes) a recall pattern may hold. A record
#: is 320 bytes, so a longer literal can never match, and this leaves room
#: for alternations of a hundred words; ``re`` parses and compiles a pattern
#: of this length in well under 0.5 s of CPU even when it is all Unicode
#: classes (``[\u0100-\uffff]`` 70 times: 0.4 s here).
MAX_PATTERN_CHARS = 1024


class _Slow(BaseException):
    """The CPU-time alarm fired. A ``BaseException``, so that no
    ``except Exception`` in the code it interrupts swallows it."""


def check_pattern(pattern: str) -> None:
    """Refuse (``BadInput``) a recall pattern over ``MAX_PATTERN_CHARS``
    characters, naming its length and never quoting it (it may be anything,
    a pasted credential too). The CLI and ``memo mcp`` both come here
    through ``recall``."""
    if len(pattern) > MAX_PATTERN_CHARS:
        raise BadInput(f"the regex is {len(pattern)} characters long, over the "
                       f"{MAX_PATTERN_CHARS} recall takes (a memory line is at most "
                       f"{LOG_RECORD} bytes); search for its rarest word instead")


def compile_pattern(pattern: str):
    """Compile a recall pattern (case-insensitive); ``BadInput`` if invalid."""
    if not pattern:
        raise BadInput("the regex is empty; give a word or a pattern, e.g. memo recall 'release'")
    try:
        return re.compile(pattern, re.IGNORECASE)
    except (re.error, RecursionError, OverflowError, ValueError) as err:
        raise BadInput(f"bad regex {pattern!r}: {err}; Python regular expressions "
                       f"are used, e.g. memo recall 'click (7|8)\\.0'") from None


# -- required literals -----------------------------------------------------


def requirements(pattern: str) -> list:
    """What every match of ``pattern`` must contain: a list of options.

    Each option is a tuple of strings, a disjunction: any line the pattern
    matches contains at least one of them, each character compared as
    Python's ``re`` compares a literal character under IGNORECASE (a
    superset of how it compares under any other flags). Every option in
    the list holds on its own. The analysis walks the parsed pattern: a run
    of consecutive literal characters in a sequence is required, as is what
    a group, an atomic group or a repeat of at least one requires; a branch
    requires one literal of each alternative. Lookarounds, backreferences,
    conditionals, classes and anything unknown require nothing, which is
    always safe. Returns ``[]`` when nothing is known.
    """
    parser, c = sre_modules()
    try:
        tree = parser.parse(pattern, re.IGNORECASE)
    except Exception:  # noqa: BLE001 - the caller compiles it; be conservative
        return []
    repeats = {getattr(c, name) for name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")
               if hasattr(c, name)}
    atomic = getattr(c, "ATOMIC_GROUP", None)

    def walk(seq):
        options, run = [], []
        for op, av in seq:
            if op is c.LITERAL:
                run.append(chr(av))
                continue
            if run:
                options.append(("".join(run),))
                run = []
            if op is c.SUBPATTERN:
                options.extend(walk(av[-1]))
            elif atomic is not None and op is atomic:
                options.extend(walk(av))
            elif op in repeats and av[0] >= 1:
                options.extend(walk(av[2]))
            elif op is c.BRANCH:
                union = []
                for alternative in av[1]:
                    inner = walk(alternative)
                    if not inner:
                        break
                    # The longest weakest member: any choice is valid.
                    union.extend(max(inner, key=lambda o: (min(map(len, o)), -len(o))))
                else:
                    options.append(tuple(dict.fromkeys(union)))
        if run:
            options.append(("".join(run),))
        return options

    try:
        return walk(tree)
    except RecursionError:
        return []


def _best(options: list, needle) -> tuple:
    """``(index, needles)`` of the option whose weakest member has the
    longest ``needle(member)``; ``(None, ())`` if no option has a usable
    needle for every member."""
    best, best_rate = (None, ()), None
    for k, option in enumerate(options):
        needles = tuple(dict.fromkeys(needle(s) for s in option))
        if all(needles):
            rate = (min(map(len, needles)), -len(needles))
            if best_rate is None or rate > best_rate:
                best, best_rate = (k, needles), rate
    return best


# -- the byte prefilter ----------------------------------------------------

@functools.lru_cache(maxsize=1)
def _plane_zero() -> bytes:
    """The code points 0-65535 as native UTF-32."""
    from array import array
    codes = array("I", range(0x10000))
    if codes.itemsize == 4:
        return codes.tobytes()
    return b"".join(c.to_bytes(4, sys.byteorder) for c in range(0x10000))  # pragma: no cover


def _planes():
    """Every code point but the surrogates (which decoded text never holds),
    one string per plane of 65,536, so no 4 MiB string is ever built."""
    little = sys.byteorder == "little"
    codec = "utf-32-le" if little else "utf-32-be"
    zero = _plane_zero()
    for plane in range(17):
        data = bytearray(zero)
        data[2 if little else 1::4] = bytes([plane]) * 0x10000
        text = data.decode(codec, "surrogatepass")
        yield text[:0xD800] + text[0xE000:] if plane == 0 else text


@functools.lru_cache(maxsize=256)
def case_class(ch: str) -> str:
    """Every character that Python's ``re`` (IGNORECASE) matches with the
    literal ``ch``, found by asking ``re`` itself about every code point
    (some 30 ms for each new character). A character that ``re`` calls
    uncased (``_sre.unicode_iscased``: CJK, digits, most symbols) matches
    only itself, as ``re`` compiles it as a plain literal, and an ASCII
    character matches its two cases and ``ASCII_FOLDS``; those answers are
    immediate. ``tests/test_search.py`` checks both against the scan."""
    if ch.isascii():
        if ch.isalpha():
            return "".join(dict.fromkeys(ch + ch.swapcase() + ASCII_FOLDS.get(ch.lower(), "")))
        return ch
    if _uncased(ch):
        return ch
    return scan_class(ch)


def scan_class(ch: str) -> str:
    """``case_class`` the slow way: ``re`` asked about every code point."""
    rx = re.compile(re.escape(ch), re.IGNORECASE)
    return "".join(m.group() for plane in _planes() for m in rx.finditer(plane))


def _uncased(ch: str) -> bool:
    """True if Python's ``re`` compiles the literal ``ch`` under IGNORECASE
    as a case-sensitive one (``sre_compile``: ``not iscased(ch)``)."""
    try:
        import _sre
        return not _sre.unicode_iscased(ord(ch))
    except (ImportError, AttributeError):  # pragma: no cover - another Python
        return False


def _pieces(literal: str) -> list:
    """``literal`` split at the characters a needle must not hold: ``\n``
    and U+FFFD, the only ones a line can show for other bytes (``line_of``)."""
    return [p for p in re.split("[\n\ufffd]", literal) if p]


def _find_needle(literal: str) -> str:
    """What the pure-Python search looks for to find ``literal``: its
    longest stretch of ASCII without spaces ('' if none)."""
    runs = [r for p in _pieces(literal) for r in re.split("[^\x00-\x1f\x21-\x7f]+", p) if r]
    return max(runs, key=len) if runs else ""


def _re2_needle(literal: str) -> str:
    """What the RE2 search looks for to find ``literal`` ('' if nothing).

    A stretch of ASCII of 3 characters or more needs no Unicode table (of
    its tails of 3 or more, the longest that starts with 2 ``_PLAIN``
    characters, if one does: ``tanbul`` for ``istanbul``); otherwise the
    longest piece, cut before its ``MAX_NEEDLE_CLASSES + 1``-th distinct
    non-ASCII character; either at most ``MAX_NEEDLE_CHARS`` characters.
    """
    pieces = _pieces(literal)
    if not pieces:
        return ""
    runs = [r[:MAX_NEEDLE_CHARS] for p in pieces for r in re.split("[^\x00-\x7f]+", p) if r]
    longest = max(pieces, key=len)
    ascii_best = max(runs, key=len) if runs else ""
    longest = longest[:MAX_NEEDLE_CHARS]
    if len(ascii_best) >= 3 or len(ascii_best) == len(longest):
        # RE2 skips ahead fast to a hit only when the needle starts with one
        # spelling it can look for (``(?i:ta)nbul``); a letter with
        # non-ASCII spellings first (``i``: also ``İ``, ``ı``) makes it try
        # every byte (3x slower here). Any part of a literal is a valid needle.
        def starts_plain(k):  # how many of the 2 characters at k are _PLAIN
            head = ascii_best[k:k + 2]
            return len(head) - len(head.lstrip(_PLAIN))
        if len(ascii_best) > 3:  # a few leading characters at most: linear in the pattern
            k = max(range(min(len(ascii_best) - 2, 8)), key=lambda k: (starts_plain(k), -k))
            ascii_best = ascii_best[k:]
        return ascii_best
    seen, out = set(), []
    for ch in longest:
        if not ch.isascii() and ch not in seen:
            if len(seen) == MAX_NEEDLE_CLASSES:
                break
            seen.add(ch)
        out.append(ch)
    return "".join(out)


def _re2_syntax(needle: str) -> tuple:
    """``(syntax, complete)``: an RE2 pattern (Latin-1 mode: it reads bytes)
    that matches, among others, the UTF-8 bytes of every line text Python's
    ``re`` (IGNORECASE) matches with the literal ``needle``; ``complete`` is
    True when it also matches every raw text whose NFC form holds such a
    match (then a record it does not find cannot match, even unnormalised).

    ASCII letters go in ``(?i:...)`` (which in Latin-1 mode folds at least
    the two ASCII cases), plus the UTF-8 of their ``ASCII_FOLDS``; other
    ASCII characters (which ``re`` folds to nothing else) as themselves, but
    a space also as a newline (``line_of`` reads a stray newline as a
    space); a non-ASCII character as the UTF-8 of each member of its exact
    ``case_class``. A hit starts inside the record whose line matched, as
    needles hold neither ``\\n`` nor U+FFFD (``_pieces``). For NFC, each
    member the NFC of a line can hold also matches the raw spellings
    ``nfcspell.spellings`` gives (``K`` as U+212A, ``ü`` as ``u`` followed
    by non-ASCII bytes, ``İ`` as ``I`` followed by them); ``complete`` is
    False if a member has none (a mark, a jamo).
    """
    def esc(data):
        return "".join(f"\\x{b:02x}" for b in data)

    out, run = [], []
    complete = True

    def flush():
        if run:
            out.append("(?i:" + "".join(run) + ")")
            run.clear()

    for ch in needle:
        if ch.isascii() and ch.isalpha():
            members = "".join(dict.fromkeys(ch + ch.swapcase() + ASCII_FOLDS.get(ch.lower(), "")))
        else:
            members = case_class(ch) or ch
        whole, heads = [], []
        for member in members:
            if unicodedata.is_normalized("NFC", member):
                spelled = nfcspell.spellings(member)
                if spelled is None:
                    complete = False
                    continue
                whole.extend(w for w in spelled[0] if w not in members and w not in whole)
                heads.extend(h for h in spelled[1] if h not in heads)
        more = "".join("|" + esc(w.encode("utf-8")) for w in whole)
        if heads:
            more += "|(?:" + "|".join(esc(h.encode("utf-8")) for h in heads) + ")[\\x80-\\xff]+"
        if ch.isascii() and ch.isalpha() and ch.lower() not in ASCII_FOLDS and not more:
            run.append(ch)
            continue
        flush()
        if ch == " ":
            alt = "[\\x20\\x0a]"
        elif ch.isascii() and ch.isalpha():
            folds = "|".join(esc(x.encode("utf-8")) for x in ASCII_FOLDS.get(ch.lower(), ""))
            alt = f"(?i:{ch})" + (f"|{folds}" if folds else "")
        elif ch.isascii():
            alt = ch if ch.isalnum() else esc(ch.encode())
        else:
            alt = "|".join(esc(x.encode("utf-8")) for x in members)
        out.append("(?:" + alt + more + ")" if more or "|" in alt else alt)
    flush()
    return "".join(out), complete


def re2_module():
    """The google-re2 module, or None when it is absent, another package
    named ``re2``, or turned off (``USE_RE2`` False)."""
    if not USE_RE2:
        return None
    try:
        import re2
        re2.Options.Encoding.LATIN1  # noqa: B018 - google-re2, not another "re2"
    except Exception:  # noqa: BLE001 - absent, or a different package
        return None
    return re2


class _Re2Prefilter:
    """Candidate records from an RE2 search of the raw chunk bytes.

    ``choices``: the needles of each required option usable here (a line
    that matches holds a spelling of one needle of every option), best
    first. Any one of them gives a correct prefilter; ``settle`` keeps the
    one that names the fewest records of a sample chunk (for
    ``deploy.*failed``, ``failed`` when it is the rarer word)."""

    def __init__(self, re2, choices):
        self.choices = []
        for needles in choices:
            parts = [_re2_syntax(n) for n in needles]
            try:
                match = self._compile(re2, "|".join(p for p, _ in parts))
            except Exception:  # noqa: BLE001 - RE2 refused it: try the next option
                continue
            self.choices.append((match, all(c for _, c in parts)))
        if not self.choices:
            raise ValueError("no option compiles")
        self._pick(0)

    def _pick(self, k: int) -> None:
        #: ``match(buf, pos, end)``: where the first hit in ``buf[pos:end]`` starts, or -1
        self.match = self.choices[k][0]
        #: True when a record this prefilter does not name cannot match,
        #: whether or not its line is in NFC (``_re2_syntax``)
        self.complete = self.choices[k][1]

    @staticmethod
    def _compile(re2, syntax: str):
        """A function ``(buf, pos, end) -> start of the first match or -1``."""
        options = re2.Options()
        options.encoding = re2.Options.Encoding.LATIN1
        options.case_sensitive = True
        options.log_errors = False
        options.never_capture = True
        compiled = re2.compile(syntax.encode("ascii"), options)
        try:  # the binding's own call: the wrapper costs ~10 us a hit
            match, anchor = compiled._regexp.Match, re2._Anchor.UNANCHORED
            if match(anchor, b"", 0, 0)[0] is not None:
                return lambda buf, pos, end: match(anchor, buf, pos, end)[0][0]
        except Exception:  # noqa: BLE001 - another version of the binding
            pass
        search = compiled.search

        def first(buf, pos, end):
            m = search(buf, pos, end)
            return -1 if m is None else m.start()
        return first

    def settle(self, buf, n: int) -> None:
        """Keep the option that names the fewest of the ``n`` records of
        ``buf`` (a complete one before an incomplete one on a tie). Each
        option is counted only up to the best count so far, so this costs
        about one pass of the best option per option."""
        if len(self.choices) < 2:
            return
        best, best_key = 0, None
        for k in range(len(self.choices)):
            self._pick(k)
            most = None if best_key is None else best_key[0]
            hits = sum(1 for _ in itertools.islice(self.candidates(buf, n),
                                                   None if most is None else most + 1))
            key = (hits, not self.complete)
            if best_key is None or key < best_key:
                best, best_key = k, key
        self._pick(best)

    def candidates(self, buf, n: int):
        """Indexes (in ``[0, n)``, ascending) of the records of ``buf`` that
        may match."""
        match, end, pos = self.match, n * LOG_RECORD, 0
        while pos < end:
            at = match(buf, pos, end)
            if at < 0:
                return
            r = at // LOG_RECORD
            yield r
            pos = (r + 1) * LOG_RECORD


class _FindPrefilter:
    """Candidate records from ``bytes.find`` on the ASCII-lowered chunk.

    Needles are ASCII without spaces (``_find_needle``), so a byte match in
    the lowered chunk is exactly a case-insensitive match of ASCII
    characters. The only other characters ``re`` folds to ASCII letters are
    ``ASCII_FOLDS``: a record holding one of them is always a candidate when
    a needle has that letter.
    """

    def __init__(self, needles):
        self.needles = [n.lower().encode("ascii") for n in needles]
        made, complete = _nfc_bytes("".join(needles))
        self.folds = list(dict.fromkeys(_fold_bytes(needles) + made))
        self.cased = any(n.upper() != n.lower() for n in needles)
        #: True when a record this prefilter does not name cannot match,
        #: whether or not its line is in NFC (``_nfc_bytes``)
        self.complete = complete

    def candidates(self, buf, n: int):
        """Indexes (in ``[0, n)``, ascending) of the records of ``buf`` that
        may match."""
        end = n * LOG_RECORD
        if not self.cased:  # digits and punctuation: the bytes as they are
            low = buf
        else:
            low = buf[:end].lower() if len(buf) > end else buf.lower()
        found = set()
        for needle in self.needles:
            find, pos = low.find, 0
            while True:
                pos = find(needle, pos, end)
                if pos < 0:
                    break
                r = pos // LOG_RECORD
                found.add(r)
                pos = (r + 1) * LOG_RECORD
        # The UTF-8 of a few non-ASCII characters: found through their
        # lead byte (``bytes.find`` of one byte is memchr; of two bytes
        # whose last is a common continuation byte, 30x slower here).
        find, starts = buf.find, buf.startswith
        for needle in self.folds:
            lead, pos = needle[:1], 0
            while True:
                pos = find(lead, pos, end)
                if pos < 0:
                    break
                if starts(needle, pos) and pos + len(needle) <= end:
                    r = pos // LOG_RECORD
                    found.add(r)
                    pos = (r + 1) * LOG_RECORD
                else:
                    pos += 1
        return sorted(found)


class _Rarest:
    """Of several ``_FindPrefilter`` (one per required option of the
    pattern), the one that names the fewest records of a sample chunk
    (``settle``, on the newest chunk), as ``_Re2Prefilter.settle`` does."""

    def __init__(self, prefilters: list):
        self.options = prefilters
        self._use(prefilters[0])

    def _use(self, prefilter) -> None:
        self.chosen = prefilter
        #: as ``_FindPrefilter.complete``, for the one in use
        self.complete = prefilter.complete

    def settle(self, buf, n: int) -> None:
        """Use the option naming the fewest of the ``n`` records of ``buf``."""
        counts = [(len(p.candidates(buf, n)), not p.complete, k) for k, p in enumerate(self.options)]
        self._use(self.options[min(counts)[2]])

    def candidates(self, buf, n: int):
        """As ``_FindPrefilter.candidates``, of the option in use."""
        return self.chosen.candidates(buf, n)


def _nfc_bytes(chars: str) -> tuple:
    """``(spellings, complete)`` for ASCII ``chars``: UTF-8 strings such
    that a record whose NFC line holds a character ``re`` (IGNORECASE)
    matches with one of ``chars``, where its raw bytes (ASCII-lowered) do
    not, holds one of them: the raw spellings ``nfcspell.spellings`` gives
    beyond the character itself (U+037E for ``;``, U+212A for ``K``) and
    the marks a head needs to become it, with the singletons NFC maps to
    those marks (U+0307 for ``İ`` from ``I``). ``complete`` is False if a
    character has no spellings there (an unverified Unicode version)."""
    out, complete = [], True
    for ch in dict.fromkeys(chars):
        members = case_class(ch)
        for member in members:
            if not unicodedata.is_normalized("NFC", member):
                continue
            spelled = nfcspell.spellings(member)
            if spelled is None:
                complete = False
                continue
            whole, heads = spelled
            out.extend(w for w in whole if w not in members)
            if heads:
                for mark in unicodedata.normalize("NFD", member)[1:]:
                    out.append(mark)
                    out.extend(nfcspell.singleton_sources(mark))
    return [x.encode("utf-8") for x in dict.fromkeys(out)], complete


def _fold_bytes(needles) -> list:
    """UTF-8 of the ``ASCII_FOLDS`` characters of the letters in ``needles``."""
    letters = set("".join(needles).lower())
    return [x.encode("utf-8") for k, v in ASCII_FOLDS.items() if k in letters for x in v]


class _Precheck:
    """A cheap test a record must pass before the regex runs on its line:
    for each of a few more required options, one of its ASCII needles is in
    the lowered record (or the record holds an ``ASCII_FOLDS`` character
    that might stand in for a letter). Never rejects a matching line."""

    def __init__(self, options):
        self.options = [tuple(n.lower().encode("ascii") for n in o) for o in options]
        self.folds = _fold_bytes([n for o in options for n in o])

    def __call__(self, record) -> bool:
        low = record.lower()
        for option in self.options:
            if not any(n in low for n in option):
                return any(f in record for f in self.folds)
        return True


def _plan(pattern: str) -> tuple:
    """``(prefilter or None, precheck or None)`` for ``pattern``."""
    options = requirements(pattern)
    prefilter, chosen = None, None
    re2 = re2_module()
    if re2 is not None:
        chosen, needles = _best(options, _re2_needle)
        if needles:
            others = [_best([o], _re2_needle)[1] for k, o in enumerate(options) if k != chosen]
            others = [o for o in others if o and min(map(len, o)) >= 3][:MAX_CHOICES - 1]
            try:
                prefilter = _Re2Prefilter(re2, [needles] + others)
            except Exception:  # noqa: BLE001 - RE2 refused it: search without RE2
                prefilter = None
            if prefilter is not None and len(prefilter.choices) > 1:
                chosen = None  # ``settle`` picks one: the precheck tests them all
    if prefilter is None:
        chosen, needles = _best(options, _find_needle)
        if not needles:
            return None, None
        prefilter = _FindPrefilter(needles)
        others = [_best([o], _find_needle)[1] for k, o in enumerate(options) if k != chosen]
        others = [o for o in others if o and min(map(len, o)) >= 3][:MAX_CHOICES - 1]
        if others:
            prefilter = _Rarest([prefilter] + [_FindPrefilter(o) for o in others])
            chosen = None  # ``settle`` picks one: the precheck tests them all
    more = []
    for k, option in enumerate(options):
        needles = tuple(dict.fromkeys(_find_needle(s) for s in option))
        if k != chosen and all(len(n) >= 2 for n in needles):
            more.append(needles)
    more.sort(key=lambda o: (-min(map(len, o)), len(o)))
    return prefilter, (_Precheck(more[:3]) if more else None)


# -- reading and matching --------------------------------------------------

def _all_lines(data, lo: int, hi: int) -> list:
    """The lines (``line_of``) of records ``[lo, hi)`` of ``data``."""
    a, b = lo * LOG_RECORD, hi * LOG_RECORD
    n = hi - lo
    if data.count(b"\n", a, b) == n and data[a + LOG_RECORD - 1:b:LOG_RECORD] == b"\n" * n:
        # One newline per record, at its end: decode them in one go (a
        # decoding error never spans a newline byte).
        lines = data[a:b].decode("utf-8", "replace").split("\n")
        lines.pop()
        return list(map(str.rstrip, lines))
    return [line_of(data[i * LOG_RECORD:(i + 1) * LOG_RECORD]) for i in range(lo, hi)]


class _Alarm:
    """A CPU-time alarm: ``SIGVTALRM`` after ``TIME_BOUND`` seconds of this
    process's user CPU time (``ITIMER_VIRTUAL``) from each ``arm()``,
    raising ``_Slow``. Time spent waiting for a core, for the disk or asleep
    does not count, so machine load never refuses a pattern. Only the main
    thread may set a signal handler; elsewhere (or without ``setitimer``,
    e.g. on Windows) matching runs unbounded. The timer and signal come
    from ``SIGNALS``."""

    def __enter__(self):
        self.signal = signals = SIGNALS
        self.active = False
        if hasattr(signals, "setitimer") and hasattr(signals, "ITIMER_VIRTUAL"):
            def alarm(signum, frame):
                raise _Slow()
            try:
                self.old = signals.signal(signals.SIGVTALRM, alarm)
                self.active = True
            except ValueError:  # not the main thread
                pass
        return self

    def arm(self):
        if self.active:
            self.signal.setitimer(self.signal.ITIMER_VIRTUAL, TIME_BOUND)

    def disarm(self):
        if self.active:
            self.signal.setitimer(self.signal.ITIMER_VIRTUAL, 0)

    def __exit__(self, *exc):
        if self.active:
            self.signal.setitimer(self.signal.ITIMER_VIRTUAL, 0)
            self.signal.signal(self.signal.SIGVTALRM, self.old)
        return False


def _matches(data, n: int, search, prefilter, precheck):
    """The matching lines of the ``n`` records in ``data``, oldest first,
    for a chunk whose lines are their own NFC."""
    if prefilter is None:
        return list(filter(search, _all_lines(data, 0, n)))
    found = []
    for r in prefilter.candidates(data, n):
        record = data[r * LOG_RECORD:(r + 1) * LOG_RECORD]
        if precheck is not None and not precheck(record):
            continue
        line = line_of(record)
        if search(line):
            found.append(line)
    return found


def _exact(data, n: int, search, prefilter, precheck, probe: bool = True,
           rest: bytes | None = None) -> list:
    """The lines (``line_of``, as stored) of the ``n`` records in ``data``
    whose NFC form ``search`` matches, oldest first: recall's definition,
    record by record. When the prefilter is ``complete`` and names few
    records (``_named``; tried when ``probe``), only those are normalised
    and matched. Otherwise a chunk holding a character that NFC might change
    (``fastcount.nfc_inert``) has its lines normalised; the lines NFC
    changes are matched whatever the byte prefilter says, the others only
    when it names them (their bytes are what is matched). ``rest``:
    ``fastcount.residue(data)`` when the caller has it."""
    rows = _named(prefilter, data, n, FEW_CANDIDATES) if probe else None
    if rows is not None:
        return [line for line, form in _named_lines(data, rows, precheck) if search(form)]
    rest = fastcount.residue(data) if rest is None else rest
    if fastcount.nfc_inert(rest):
        return _matches(data, n, search, prefilter, precheck)
    changed = fastcount.nfc_changed(data, n, rest)
    if changed is not None and not changed:
        return _matches(data, n, search, prefilter, precheck)
    lines = _all_lines(data, 0, n)
    if changed is None:  # damaged records: normalise every line
        nfc = unicodedata.normalize("NFC", "\n".join(lines)).split("\n")
        changed = set(itertools.compress(range(n), map(operator.ne, lines, nfc)))
    else:  # only the few lines NFC changes
        nfc = list(lines)
        for r in changed:
            nfc[r] = unicodedata.normalize("NFC", lines[r])
    if prefilter is None:
        return [line for line, form in zip(lines, nfc) if search(form)]
    found = []
    for r in sorted(changed.union(prefilter.candidates(data, n))):
        if r not in changed and precheck is not None and \
                not precheck(data[r * LOG_RECORD:(r + 1) * LOG_RECORD]):
            continue
        if search(nfc[r]):
            found.append(lines[r])
    return found


#: Candidate records of a chunk matched one by one, in NFC, without a chunk-wide NFC test.
FEW_CANDIDATES = 512
DENSE_SKIP = 8  #: chunks counted without trying ``_named`` after a chunk that had too many candidates


def _named(prefilter, data, n: int, most: int):
    """The records (indexes, ascending) RE2's byte prefilter names in the
    chunk when it is ``complete`` (it names every record whose NFC line can
    match, ``_re2_syntax``) and names at most ``most`` of them; else None.
    Rare and absent words and dates take this path: one RE2 pass, no
    chunk-wide NFC test (``fastcount.residue``, ``nfc_inert``)."""
    if not getattr(prefilter, "complete", False):
        return None
    rows = list(itertools.islice(prefilter.candidates(data, n), most + 1))
    return rows if len(rows) <= most else None


def _named_lines(data, rows, precheck):
    """``(line, nfc_line)`` for the records ``rows`` of the chunk, oldest
    first, leaving out a record whose bytes are ASCII (so its line is its
    own NFC) and fail ``precheck``."""
    for r in rows:
        record = data[r * LOG_RECORD:(r + 1) * LOG_RECORD]
        if precheck is not None and record.isascii() and not precheck(record):
            continue
        line = line_of(record)
        yield line, nfc(line)


def literal_pattern(text: str) -> str:
    """The recall pattern that finds ``text`` literally (``memo recall -F``):
    its NFC form with every regex metacharacter escaped (``re.escape``), so
    ``$HOME``, ``a.b.c`` or ``f(x)`` match as written, case-insensitively as
    every recall does. Such a pattern is a run of literal characters, so it
    takes the literal fast paths (``fastcount``, ``scancount``). Raises
    ``BadInput`` for an empty text or one over ``MAX_PATTERN_CHARS``
    characters."""
    if not text:
        raise BadInput("the text is empty; give the text to find, e.g. memo recall -F '$HOME'")
    text = nfc(text)
    if len(text) > MAX_PATTERN_CHARS:
        raise BadInput(f"the text is {len(text)} characters long, over the "
                       f"{MAX_PATTERN_CHARS} recall takes (a memory line is at most "
                       f"{LOG_RECORD} bytes); search for its rarest word instead")
    return re.escape(text)


def recall(store, pattern: str, limit_bytes: int, fixed: bool = False) -> tuple:
    """Find log lines matching ``pattern``; return ``(lines, total, cut)``.

    With ``fixed``, ``pattern`` is a text found literally (``literal_pattern``).

    The definition: a record matches when ``re.compile(NFC(pattern),
    re.IGNORECASE).search(NFC(line_of(record)))`` finds something (docs/recall.md;
    NFC as ``unicodedata`` computes it). ``lines``
    are the newest matching lines (``line_of``, as stored, then
    ``store.displayable``: controls shown as U+FFFD) whose UTF-8 size, one
    newline each included, fits in ``limit_bytes`` bytes, oldest first;
    ``total`` counts every matching record in ``[0, T)`` (``T`` = the
    records when the search starts); ``cut`` is True when some matches
    were left out. Rendering those as text is the caller's.

    The log is read newest chunk first: chunks are matched record by
    record (``_exact``, or ``scancount``) until a line no longer fits, and
    the older chunks are only counted, in one compiled pass (``scancount``)
    or with CPython's byte methods (``fastcount``) when the count is
    provably equal (literals, literal sets, ``\\b`` around words), else
    record by record.
    Memory use is one chunk plus the kept lines, whatever the size of the
    log. Raises ``BadInput`` for an invalid regex, or one whose matching
    takes over ``TIME_BOUND`` seconds of CPU time (not wall-clock time) on
    one chunk of ``CHUNK_RECORDS`` memories, or a pattern over
    ``MAX_PATTERN_CHARS`` characters (``check_pattern``).
    """
    if fixed:
        pattern = literal_pattern(pattern)  # NFC, then escaped: NFC leaves it as it is
    else:
        check_pattern(pattern)
        pattern = nfc(pattern)  # the one NFC (docs/recall.md)
        check_pattern(pattern)  # NFC may lengthen it
    rx = compile_pattern(pattern)
    search = rx.search
    T = store.count()
    step = max(1, CHUNK_RECORDS)
    kept, kept_bytes, total, full = [], 0, 0, False
    counter, planned = None, False
    dense = 0  # chunks left to count without trying ``_named`` first
    n = 0  # memories in the chunk being matched (named when a regex is refused)
    try:
        with _Alarm() as alarm:
            # Planning that takes over TIME_BOUND of CPU is dropped: every
            # chunk is then matched line by line, which gives the same lines.
            alarm.arm()
            try:
                prefilter, precheck = _plan(pattern)
                # One compiled pass a chunk (optmem.recall._scan) for a set of
                # literals, for the chunks printed and for those only counted.
                scanner = scancount.counter_for(pattern, case_class, search)
                alarm.disarm()
            except _Slow:  # (the alarm is one-shot: nothing left to disarm)
                prefilter = precheck = scanner = None
                planned = True  # no fastcount counter either
            for hi in range(T, 0, -step):
                lo = max(0, hi - step)
                data = store.read_log(lo * LOG_RECORD, (hi - lo) * LOG_RECORD)
                n = min(hi - lo, len(data) // LOG_RECORD)
                data = data[:n * LOG_RECORD]
                if hi == T and hasattr(prefilter, "settle"):
                    prefilter.settle(data, n)  # the newest chunk as the sample
                # The alarm runs only while Python's re matches lines: not
                # while a chunk is read (a busy disk must not refuse a
                # pattern) nor while fastcount counts (linear byte patterns).
                if full:
                    count = None
                    scanning = scanner is not None and scanner.usable
                    if dense or scanning:
                        dense = max(0, dense - 1)
                    else:
                        alarm.arm()
                        rows = _named(prefilter, data, n, FEW_CANDIDATES)
                        count = None if rows is None else \
                            sum(1 for _, form in _named_lines(data, rows, precheck) if search(form))
                        alarm.disarm()
                        if count is not None:
                            total += count
                            continue
                        # Too many candidates: the word is frequent here.
                        # Count the next chunks without asking RE2 first.
                        dense = DENSE_SKIP
                    if scanning:  # one compiled pass (optmem.recall._scan)
                        count = scanner.count(data, n)
                        if count is not None:
                            total += count
                            continue
                    if not planned:  # no C counter, or it refused this chunk or gave up
                        alarm.arm()
                        try:
                            counter = fastcount.counter_for(pattern, case_class, search)
                            alarm.disarm()
                        except _Slow:  # planning too costly: count line by line
                            counter = None
                        planned = True
                    residue = fastcount.residue(data)  # one C pass, shared
                    if counter is not None:
                        count = counter.count(data, n, residue,
                                              fastcount.nfc_stable(data, n, residue))
                    if count is None:
                        alarm.arm()
                        count = len(_exact(data, n, search, prefilter, precheck, probe=False,
                                           rest=residue))
                        alarm.disarm()
                    total += count
                    continue
                alarm.arm()
                # RE2 names a rare word's few records faster than the C
                # counter's memchr passes over its spellings (zurich: also
                # zurıch, zurİch); without RE2 the counter is the faster.
                found = None
                if scanner is not None and scanner.usable and not isinstance(prefilter, _Re2Prefilter):
                    found = scanner.lines(data, n)
                if found is None:
                    found = _exact(data, n, search, prefilter, precheck)
                alarm.disarm()
                total += len(found)
                for line in reversed(found):
                    line = displayable(line)
                    size = len(line.encode("utf-8")) + 1
                    if kept_bytes + size > limit_bytes:
                        full = True
                        break
                    kept.append(line)
                    kept_bytes += size
                data = found = None  # free this chunk before the next is read
    except _Slow:
        # The pattern as typed (repr only when quoting could mislead: a
        # quote or a control character), and the memories it was matching.
        shown = f"'{pattern}'" if pattern.isprintable() and "'" not in pattern else repr(pattern)
        size = f"{n} memor{'y' if n == 1 else 'ies'}"
        raise BadInput(f"the regex {shown} took over {TIME_BOUND:g} s of CPU time on "
                       f"{size} (it backtracks: nested repeats such as (a+)+); simplify "
                       f"it, e.g. a plain word") from None
    kept.reverse()
    return kept, total, total > len(kept)

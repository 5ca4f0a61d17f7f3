"""The write guard: what may go into the permanent log (docs/guard.md).

The log cannot be edited, so ``note``, ``sleep`` and ``import`` refuse text
that would be harmful to keep forever, and say what to write instead:

* characters: every line break ``str.splitlines()`` knows, tabs, C0/C1
  control characters (terminal escapes), invisible and bidirectional format
  characters (Unicode ``Cf``: zero-width spaces, RLO, tags, BOM, ...), lone
  surrogates, private-use and unassigned code points. Emoji still work: the
  variation selectors U+FE0E/U+FE0F and a zero-width joiner between two
  pictographs are allowed, and so is a ZWNJ/ZWJ between two letters of a
  script that needs them (Persian, Hindi, ...) or right after a virama
  (a Malayalam chillu: ``അവന്`` and ZWJ). TAG characters are allowed only
  inside an emoji tag sequence (the flags of England, Scotland, Wales).
* credentials: API keys, tokens, private keys, passwords in URLs, on
  command lines and in assignments (``optmem.guard.secrets``, which holds the one
  table of credential families and says how each is judged).
* frame tags: an opening or closing tag a harness wraps context in
  (``<system-reminder>``, ``</hook_context>``: ``protocol.FRAME_TAGS``), which
  could close the frame memory is shown in and open one that speaks as the
  harness. The tag's name without angle brackets is ordinary text. Tags
  are matched on a folded text (``_fold``): look-alike brackets
  (``＜``, ``〈``, ``‹``), HTML references (``&lt;``, ``&#60;``), other
  dashes and Cyrillic or Greek homoglyphs in the name count as the tag.

Every pattern is linear in the length of the text (bounded repeats, no
nested unbounded ones), so a long adversarial text costs time in
proportion, never more.

Pure: no I/O. Positions in messages count characters (1-based), not bytes.
A message never repeats the secret it found, only a fixed generic prefix.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from optmem.errors import BadText
from optmem.protocol import FRAME_TAGS


def find_credential(text: str) -> str | None:
    """``optmem.guard.secrets.find_credential``, imported on the first call:
    showing a record needs this module's display rule, never the credential
    tables (2-7 ms of a ``memo wake``)."""
    from optmem.guard.secrets import find_credential as find
    return find(text)


def __getattr__(name: str):
    """``_ENTITY`` and ``_FRAME_TAG``, compiled on first use (``_pattern``)."""
    if name in ("_ENTITY", "_FRAME_TAG"):
        return _pattern(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ---------------------------------------------------------------- characters

#: Every character ``str.splitlines()`` splits on.
LINE_BREAKS = frozenset("\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029")

# Unicode names (from NameAliases.txt) of the C0 controls, DEL and the C1
# controls, which ``unicodedata.name`` does not know.
_C0 = (
    "NULL|START OF HEADING|START OF TEXT|END OF TEXT|END OF TRANSMISSION|"
    "ENQUIRY|ACKNOWLEDGE|ALERT|BACKSPACE|CHARACTER TABULATION|LINE FEED|"
    "LINE TABULATION|FORM FEED|CARRIAGE RETURN|SHIFT OUT|SHIFT IN|"
    "DATA LINK ESCAPE|DEVICE CONTROL ONE|DEVICE CONTROL TWO|"
    "DEVICE CONTROL THREE|DEVICE CONTROL FOUR|NEGATIVE ACKNOWLEDGE|"
    "SYNCHRONOUS IDLE|END OF TRANSMISSION BLOCK|CANCEL|END OF MEDIUM|"
    "SUBSTITUTE|ESCAPE|INFORMATION SEPARATOR FOUR|INFORMATION SEPARATOR THREE|"
    "INFORMATION SEPARATOR TWO|INFORMATION SEPARATOR ONE"
).split("|")
_C1 = (
    "PADDING CHARACTER|HIGH OCTET PRESET|BREAK PERMITTED HERE|NO BREAK HERE|"
    "INDEX|NEXT LINE|START OF SELECTED AREA|END OF SELECTED AREA|"
    "CHARACTER TABULATION SET|CHARACTER TABULATION WITH JUSTIFICATION|"
    "LINE TABULATION SET|PARTIAL LINE FORWARD|PARTIAL LINE BACKWARD|"
    "REVERSE LINE FEED|SINGLE SHIFT TWO|SINGLE SHIFT THREE|"
    "DEVICE CONTROL STRING|PRIVATE USE ONE|PRIVATE USE TWO|"
    "SET TRANSMIT STATE|CANCEL CHARACTER|MESSAGE WAITING|"
    "START OF GUARDED AREA|END OF GUARDED AREA|START OF STRING|"
    "SINGLE GRAPHIC CHARACTER INTRODUCER|SINGLE CHARACTER INTRODUCER|"
    "CONTROL SEQUENCE INTRODUCER|STRING TERMINATOR|OPERATING SYSTEM COMMAND|"
    "PRIVACY MESSAGE|APPLICATION PROGRAM COMMAND"
).split("|")

# Invisible characters that are not in category Cf (Unicode's
# Default_Ignorable_Code_Point minus Cf, variation selectors and Mongolian).
_INVISIBLE = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u3164\uffa0")

# Scripts whose ordinary text uses ZWNJ/ZWJ between letters (first word of
# the letters' Unicode names).
_JOINING_SCRIPTS = frozenset(
    "ARABIC SYRIAC NKO MANDAIC DEVANAGARI BENGALI GURMUKHI GUJARATI ORIYA "
    "TAMIL TELUGU KANNADA MALAYALAM SINHALA".split()
)

_ZWNJ, _ZWJ = "\u200c", "\u200d"
_ZWSP, _MVS = "\u200b", "\u180e"
_LRM, _RLM, _ALM = "\u200e", "\u200f", "\u061c"

# Scripts written without spaces between words, where U+200B ZERO WIDTH
# SPACE marks the word breaks (Khmer, Lao, Thai, Myanmar, Tibetan, ...).
_NO_SPACE_SCRIPTS = frozenset(
    "THAI LAO KHMER MYANMAR TIBETAN JAVANESE BALINESE TAI NEW BUGINESE".split()
)


def _script_letter(ch: str, scripts: frozenset) -> bool:
    """Is ``ch`` a letter, mark or digit of one of ``scripts`` (first word
    of its Unicode name)?"""
    return unicodedata.category(ch)[0] in "LMN" and (
        unicodedata.name(ch, "").split(" ", 1)[0] in scripts)


def _rtl_letter(ch: str) -> bool:
    """Is ``ch`` a strong right-to-left character (bidi class R or AL)?"""
    return unicodedata.bidirectional(ch) in ("R", "AL")


#: The invisible characters a script needs, and the letters they belong
#: with (README "Text of every script"): the character is text when it
#: stands among those letters (``_in_script``), and refused anywhere else.
_SCRIPT_MARKS = {
    _ZWSP: lambda ch: _script_letter(ch, _NO_SPACE_SCRIPTS),
    _ZWNJ: lambda ch: _script_letter(ch, _JOINING_SCRIPTS),
    _ZWJ: lambda ch: _script_letter(ch, _JOINING_SCRIPTS),
    _MVS: lambda ch: _script_letter(ch, frozenset(["MONGOLIAN"])),
    _LRM: _rtl_letter,
    _RLM: _rtl_letter,
    _ALM: _rtl_letter,
}
#: Most of these characters in a row (ZWNJ then ZWJ is a real Oriya spelling).
_MARK_RUN = 2


def _in_script(text: str, i: int) -> bool:
    """May the invisible ``text[i]`` (a key of ``_SCRIPT_MARKS``) stay?

    Yes when, skipping a run of at most ``_MARK_RUN`` such characters, one
    neighbour is a letter of the script it belongs with and the other is
    one too, or a word's edge: the start or end of the text, a space or
    punctuation (a Mongolian vowel separator needs only a Mongolian letter
    after it). So a Khmer word break, a Persian ZWNJ ending a word or a
    right-to-left mark before Hebrew is text, and none of them can sit
    inside or between Latin words, where it would only hide something. A
    space is an edge so that a line shown as ``#id date text`` is judged
    exactly as its text was (the display runs the same rule).
    """
    belongs = _SCRIPT_MARKS[text[i]]
    lo = i
    while lo > 0 and text[lo - 1] in _SCRIPT_MARKS:
        lo -= 1
    hi = i + 1
    while hi < len(text) and text[hi] in _SCRIPT_MARKS:
        hi += 1
    if hi - lo > _MARK_RUN:
        return False
    base = lo - 1  # a mark before the run counts with the letter it is on
    while base >= 0 and unicodedata.category(text[base])[0] == "M":
        base -= 1
    left_ok = lo > 0 and base >= 0 and belongs(text[base]) and belongs(text[lo - 1])
    sides = [text[lo - 1] if lo > 0 else None, text[hi] if hi < len(text) else None]
    ours = [left_ok, sides[1] is not None and belongs(sides[1])
            and unicodedata.category(sides[1])[0] != "M"]
    if text[i] == _MVS:  # it always comes before a Mongolian vowel
        return ours[1]
    edge = [c is None or c.isspace() or unicodedata.category(c)[0] == "P" for c in sides]
    return any(ours) and all(o or e for o, e in zip(ours, edge))


def _is_han(ch: str) -> bool:
    """A Han ideograph (the base an ideographic variation selector needs)."""
    return unicodedata.name(ch, "").startswith(("CJK UNIFIED IDEOGRAPH",
                                                "CJK COMPATIBILITY IDEOGRAPH"))


def _selector_ok(text: str, i: int) -> bool:
    """May the variation selector at ``text[i]`` stay? Once, right after the
    character it selects a form of: U+FE0E/U+FE0F (text or emoji style)
    after a visible letter, digit, punctuation or symbol, U+FE00..U+FE0D
    after a non-ASCII one (math, CJK compatibility, Myanmar forms);
    U+E0100..U+E01EF (ideographic variation sequences, e.g. a Tokyo ward's
    registered glyph) after a Han ideograph only."""
    if i == 0:
        return False
    prev = text[i - 1]
    if 0xE0100 <= ord(text[i]) <= 0xE01EF:
        return _is_han(prev)
    if text[i] not in _EMOJI_VS and prev.isascii():
        return False  # no standardized variant of ASCII letters needs one
    return unicodedata.category(prev)[0] in "LNPS" and not prev.isspace()
_EMOJI_VS = "\ufe0e\ufe0f"
_BLACK_FLAG, _CANCEL_TAG = "\U0001f3f4", "\U000e007f"
#: The tag specification of an emoji tag sequence (UTS #51): a Unicode
#: subdivision code such as ``gbeng``, spelled in TAG characters.
_TAG_SPEC = r"[a-z]{2}[a-z0-9]{1,4}"

# (why, advice) per kind of refused character.
_LINE = ("a line break", 'keep it on one line (join the parts with "; ")')
_TAB = ("a tab", "use spaces instead")
_CONTROL = (
    "a control character, as in terminal escapes",
    "remove it and retype the text as plain text",
)
_FORMAT = ("invisible or bidirectional control", "retype it as plain text")
_SELECTOR = (
    "a variation selector that follows no character it can vary",
    "retype it as plain text",
)
_SURROGATE = (
    "a lone surrogate: the input was not valid UTF-8",
    "send the text as UTF-8",
)
_PRIVATE = ("a private-use character", "retype it as plain text")
_UNASSIGNED = (
    "an unassigned code point or noncharacter",
    "retype it as plain text",
)


def _is_pictograph(ch: str) -> bool:
    """True for an emoji-like character (a part of an emoji ZWJ sequence).

    Code points U+1F000-U+1FAFF count even when this Python's Unicode data
    does not know them yet (Unicode reserves them as Extended_Pictographic).
    """
    o = ord(ch)
    return 0x1F000 <= o <= 0x1FAFF or unicodedata.category(ch) == "So"


def _in_joining_script(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "LM" and (
        unicodedata.name(ch, "").split(" ", 1)[0] in _JOINING_SCRIPTS
    )


def _after_virama(text: str, i: int) -> bool:
    """Is ``text[i - 1]`` a virama (a nonspacing mark of combining class 9)
    that ends a letter? ZWJ/ZWNJ there picks a conjunct form or, as in the
    old-style Malayalam chillu (U+0D7A..), ends a word (``അവന്`` and ZWJ)."""
    if i < 2:
        return False
    virama, base = text[i - 1], text[i - 2]
    return (
        unicodedata.combining(virama) == 9
        and unicodedata.category(virama) == "Mn"
        and unicodedata.category(base)[0] in "LM"
    )


def _joiner_ok(text: str, i: int) -> bool:
    """May the ZWJ/ZWNJ at ``text[i]`` stay? (emoji or joining-script use)."""
    if _after_virama(text, i):
        return True
    if i == 0 or i + 1 == len(text):
        return False
    before, after = text[i - 1], text[i + 1]
    if _in_joining_script(before) and _in_joining_script(after):
        return True
    if text[i] != _ZWJ:
        return False
    j = i - 1  # step back over an emoji's presentation selector / skin tone
    while j > 0 and (text[j] in _EMOJI_VS or 0x1F3FB <= ord(text[j]) <= 0x1F3FF):
        j -= 1
    return _is_pictograph(text[j]) and _is_pictograph(after)


def _is_tag_spec_char(ch: str) -> bool:
    return 0xE0020 <= ord(ch) <= 0xE007E


def _tag_ok(text: str, i: int) -> bool:
    """May the TAG character at ``text[i]`` stay? Only inside a valid emoji
    tag sequence: U+1F3F4 WAVING BLACK FLAG, a subdivision code of 3 to 6
    lowercase letters or digits in TAG characters, U+E007F CANCEL TAG (the
    flags of England, Scotland, Wales). Anywhere else TAG characters are
    refused: they are the invisible ASCII a prompt can be smuggled in."""
    n = len(text)
    e = i
    if text[i] != _CANCEL_TAG:
        while e < n and _is_tag_spec_char(text[e]):
            e += 1
            if e - i > 6:
                return False
    s = i
    while s > 0 and _is_tag_spec_char(text[s - 1]):
        s -= 1
        if e - s > 6:
            return False
    if s == 0 or text[s - 1] != _BLACK_FLAG or e >= n or text[e] != _CANCEL_TAG:
        return False
    spec = "".join(chr(ord(ch) - 0xE0000) for ch in text[s:e])
    return re.fullmatch(_TAG_SPEC, spec) is not None


def _char_kind(text: str, i: int) -> tuple[str, str] | None:
    """(why, advice) if the character at ``text[i]`` is refused, else None."""
    ch = text[i]
    o = ord(ch)
    if o < 0x20 or 0x7F <= o <= 0x9F:
        if ch in LINE_BREAKS:
            return _LINE
        return _TAB if ch == "\t" else _CONTROL
    if o < 0x7F:
        return None
    cat = unicodedata.category(ch)
    if cat in ("Zl", "Zp"):
        return _LINE
    if cat == "Cf":
        if 0xE0020 <= o <= 0xE007F:
            return None if _tag_ok(text, i) else _FORMAT
        if ch in (_ZWJ, _ZWNJ) and _joiner_ok(text, i):
            return None
        return None if ch in _SCRIPT_MARKS and _in_script(text, i) else _FORMAT
    if cat == "Cs":
        return _SURROGATE
    if cat == "Co":
        return _PRIVATE
    if cat == "Cn":
        return None if 0x1F000 <= o <= 0x1FAFF else _UNASSIGNED
    if ch in _INVISIBLE:
        return _FORMAT
    if 0xFE00 <= o <= 0xFE0F or 0xE0100 <= o <= 0xE01EF:
        return None if _selector_ok(text, i) else _SELECTOR
    return None


def char_name(ch: str) -> str:
    """``U+XXXX NAME`` for one character, named even when Unicode gives it
    no name (controls, surrogates, private use, unassigned)."""
    o = ord(ch)
    if o < 0x20:
        name = _C0[o]
    elif o == 0x7F:
        name = "DELETE"
    elif 0x80 <= o <= 0x9F:
        name = _C1[o - 0x80]
    else:
        name = unicodedata.name(ch, "")
        if not name:
            name = {
                "Cs": "(surrogate)",
                "Co": "(private use)",
            }.get(unicodedata.category(ch), "(unassigned)")
    return f"U+{o:04X} {name}"


#: The refusals that hide, move or break text: on display such a character
#: becomes U+FFFD (a tab, a space). Private-use and unassigned characters are
#: refused on write because their meaning is unknown, and shown as they are.
_HIDING = (_LINE, _TAB, _CONTROL, _FORMAT, _SELECTOR)


def shown(text: str) -> str:
    """``text`` as memo prints it: the display counterpart of the guard.

    Every character ``find_char_problem`` refuses because it hides, moves
    or breaks text (line breaks, controls, invisible and bidirectional
    format characters outside the script that needs them, stray variation
    selectors) becomes U+FFFD, a tab a space; everything the guard lets
    through is shown unchanged (a Persian ZWNJ, a Khmer word break, a
    Tokyo ward's variation sequence). The ``<`` of a frame tag the guard
    refuses (``frame_tags``) becomes U+FFFD too, so a record another tool
    wrote cannot open or close the harness's frame. Same length in
    characters.
    """
    out = list(text)
    for i in range(len(text)):
        kind = _char_kind(text, i)
        if kind in _HIDING:
            out[i] = " " if kind is _TAB else "\ufffd"
    for i in frame_tags(text):
        out[i] = "\ufffd"
    return "".join(out)


def find_char_problem(text: str) -> str | None:
    """The reason the first refused character of ``text`` is refused, or None.

    The position is counted in characters from 1, not bytes.
    """
    if text.isascii() and text.isprintable():
        return None  # the common case: no control character
    for i in range(len(text)):
        kind = _char_kind(text, i)
        if kind is not None:
            why, advice = kind
            where = f"{char_name(text[i])} at character {i + 1}"
            return f"contains {where} ({why}); {advice}."
    return None


# ---------------------------------------------------------------- frame tags

#: Characters that look like ``<`` or ``>`` (Unicode's confusables.txt for
#: U+003C and U+003E, and the angle brackets a reader takes for them); NFKC
#: already folds the fullwidth and small forms (U+FF1C, U+FE64, ...).
_LT_LIKE = ("\u02c2\u1438\u16b2\u2039\u276e\U0001d236"  # confusables of <
            "\u2329\u27e8\u3008\u276c\u29fc\u227a\u2aa1")  # angle brackets
_GT_LIKE = ("\u02c3\u1433\u203a\u276f\U0001d237"  # confusables of >
            "\u232a\u27e9\u3009\u276d\u29fd\u227b\u2aa2")
#: Dashes and hyphens that look like ``-`` (U+2010..U+2015, minus, ...).
_DASH_LIKE = ("\u00ad\u02d7\u058a\u1400\u1806"
              "\u2010\u2011\u2012\u2013\u2014\u2015\u2043\u2212\u2796\u2e3a\u2e3b")
#: Characters that look like ``/``.
_SLASH_LIKE = "\u2044\u2215\u29f8\u2571"
#: Cyrillic and Greek letters that look like Latin ones (Unicode's
#: confusables.txt, both cases).
_HOMOGLYPHS = {
    **dict(zip("авсԁеһіјкӏмопԛѕтуԝхѵ", "abcdehijklmopqstywxv")),
    **dict(zip("АВСЕНІЈКМОРЅТХҮԜ", "abcehijkmopstxyw")),
    **dict(zip("αβεηικνορτυχγζ", "abenikvoptuxyz")),
    **dict(zip("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ", "abezhikmnoptyx")),
    "ı": "i", "ɩ": "i", "ɑ": "a", "ɡ": "g", "ꮪ": "s",
}
_FOLD_ONE = {**{c: "<" for c in _LT_LIKE}, **{c: ">" for c in _GT_LIKE},
             **{c: "-" for c in _DASH_LIKE}, **{c: "/" for c in _SLASH_LIKE},
             **_HOMOGLYPHS}
#: HTML character references to ``<``, ``>`` and ``/`` (named, decimal,
#: hexadecimal; the ``;`` is optional, as HTML allows for these).
_ENTITY_SOURCE = (r"&(?:(lt)|(gt)|(sol)|#0*(60)|#0*(62)|#0*(47)|#[xX]0*(3[cC])"
                  r"|#[xX]0*(3[eE])|#[xX]0*(2[fF]));?")
_ENTITY_CHAR = "<>/<>/<>/"


def _fold(text: str) -> tuple[str, list]:
    """``text`` folded for finding frame tags, and where each folded
    character came from: ``(folded, at)`` where ``at[k]`` is the half-open
    range ``(start, end)`` of characters of ``text`` that ``folded[k]``
    stands for.

    Folding: HTML references to ``<``/``>``/``/`` decoded; each character
    NFKC-normalized (``＜`` and ``﹤`` become ``<``); characters that look
    like ``<``, ``>``, ``/`` or ``-`` (``_FOLD_ONE``) and Cyrillic and Greek
    letters that look like Latin ones mapped to them; zero-width and other
    format characters (Unicode ``Cf``) dropped. Case is left as it is (the
    pattern ignores it).
    """
    out: list = []
    at: list = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "&":
            m = _pattern("_ENTITY").match(text, i)
            if m is not None:
                out.append(_ENTITY_CHAR[m.lastindex - 1])
                at.append((i, m.end()))
                i = m.end()
                continue
        if ch.isascii():
            out.append(ch)
            at.append((i, i + 1))
        elif unicodedata.category(ch) != "Cf":
            for c in unicodedata.normalize("NFKC", ch):
                out.append(_FOLD_ONE.get(c, c))
                at.append((i, i + 1))
        i += 1
    return "".join(out), at


@functools.lru_cache(maxsize=None)
def _folds_to_lt(ch: str) -> bool:
    """Whether the one character ``ch`` gives a ``<`` in ``_fold`` (an
    ``&`` that starts a reference aside): ``<`` itself, or a non-ASCII
    character that is not a format character and whose NFKC form holds a
    character ``_FOLD_ONE`` maps to ``<`` (or ``<`` itself)."""
    if ch.isascii():
        return ch == "<"
    if unicodedata.category(ch) == "Cf":
        return False
    return any(_FOLD_ONE.get(c, c) == "<" for c in unicodedata.normalize("NFKC", ch))


def _may_hold_tag(text: str) -> bool:
    """Cheap test: can ``text`` hold a frame tag at all (a ``<``, an ``&``
    or a non-ASCII character that may fold to one)?"""
    return "<" in text or "&" in text or not text.isascii()


#: ``<`` then an optional ``/`` (spaces around it) and a tag of
#: ``FRAME_TAGS`` ending at a non-name character: an opening or closing tag
#: whatever its case, spacing or attributes. Linear: one bounded alternation.
#: It runs on the folded text (``_fold``).
def _frame_tag_source() -> str:
    return (r"<\s*(?:/\s*)?(" + "|".join(re.escape(t) for t in sorted(FRAME_TAGS, key=len,
                                                                      reverse=True))
            + r")(?![\w:-])")


@functools.lru_cache(maxsize=None)
def _pattern(name: str):
    """``_ENTITY`` or ``_FRAME_TAG``, compiled (case-insensitive) on first
    use: a record without a ``<``, an ``&`` or a character folding to ``<``
    needs neither (compiling both cost a wake 0.5 ms). Both are also module
    attributes (``__getattr__``)."""
    source = _ENTITY_SOURCE if name == "_ENTITY" else _frame_tag_source()
    return re.compile(source, re.IGNORECASE)


def _frame_tag_matches(text: str) -> tuple[list, list]:
    """The matches of ``_FRAME_TAG`` on ``text`` folded, and the map back."""
    if not _may_hold_tag(text):
        return [], []
    if text.isascii() and "&" not in text:
        return list(_pattern("_FRAME_TAG").finditer(text)), []
    if "&" not in text and not any(map(_folds_to_lt, set(text))):
        # ``_fold`` maps each character on its own (only a reference spans
        # more), so no character giving ``<`` means no ``<`` folded: a
        # record is shown without folding it (170 folds were half a wake).
        return [], []
    folded, at = _fold(text)
    if "<" not in folded:
        return [], at
    return list(_pattern("_FRAME_TAG").finditer(folded)), at


def frame_tags(text: str) -> list:
    """Character offsets (0-based, ascending) in ``text`` of the opening
    bracket of every frame tag (``protocol.FRAME_TAGS``), found on the
    folded text (``_fold``: ``＜system-reminder＞``, ``&lt;system-reminder&gt;``
    and a Cyrillic ``ѕ`` in the name count); every character of a bracket
    written as an HTML reference (``&lt;`` gives four offsets). Empty when
    there is none."""
    found, at = _frame_tag_matches(text)
    offsets: list = []
    for m in found:
        if at:
            start, end = at[m.start()]
            offsets.extend(range(start, end))
        else:
            offsets.append(m.start())
    return offsets


def find_frame_tag(text: str) -> str | None:
    """The reason ``text`` may not be written because it holds a frame tag
    (in any disguise ``_fold`` undoes), or None. Positions count characters
    of ``text`` from 1."""
    found, at = _frame_tag_matches(text)
    if not found:
        return None
    m = found[0]
    start = at[m.start()][0] if at else m.start()
    tag = m.group(1).lower()
    return (f"holds a <{tag}> tag at character {start + 1} (the frame of "
            f"{FRAME_TAGS[tag]}), which a stored line must never open or close; "
            f"write the tag's name without angle brackets.")


# ------------------------------------------------------------------- the API


def find_problem(text: str) -> str | None:
    """Return the one-line reason ``text`` may not be written, or None.

    The reason has no subject, e.g. ``contains U+202E RIGHT-TO-LEFT OVERRIDE
    at character 14 (invisible or bidirectional control); retype it as plain
    text.`` or ``carries an OpenAI API key (sk-...); write where ...``.
    Characters are checked first, then frame tags (``find_frame_tag``),
    then credentials; the first problem wins. Positions count characters
    from 1, not bytes. A redaction's tombstone (``merging.tombstone``: a
    salt and a hash, never a secret, though its random letters may read like
    one) passes, so a merge can bring it from another replica.
    """
    if text.startswith("[redacted ") and text.endswith("]"):
        from optmem.merging import parse_tombstone
        if parse_tombstone(text) is not None:
            return None
    return find_char_problem(text) or find_frame_tag(text) or find_credential(text)


def _subject(what: str) -> str:
    """``memory`` -> ``the memory``; ``line 12 of notes.txt`` stays as is,
    with any unprintable character in it shown as an escape."""
    if not what.isprintable():
        what = "".join(
            ch if ch.isprintable() else ascii(ch)[1:-1] for ch in what
        )
    return what if " " in what else f"the {what}"


def check_text(text: str, what: str = "memory") -> None:
    """Raise ``BadText`` if ``text`` may not be written; else return None.

    ``what`` names the text in the message: ``"memory"``, ``"summary"`` (a
    single word gets "the"), or a phrase such as ``"line 12 of notes.txt"``.
    The message is one line, e.g. ``the summary contains U+202E
    RIGHT-TO-LEFT OVERRIDE at character 14 (invisible or bidirectional
    control); retype it as plain text.`` It never contains the secret found.
    """
    reason = find_problem(text)
    if reason is not None:
        raise BadText(f"{_subject(what)} {reason}")

"""What raw text Unicode NFC turns into a given character.

Recall matches the NFC form of each line, but its byte prefilter reads the
raw bytes: a record another tool wrote may hold ``u`` + U+0308 where the
line has ``ü``, or U+212A where it has ``K``. ``spellings(ch)`` lists every
raw text that NFC turns into text beginning with ``ch``, and
``composer_table`` marks the UTF-8 blocks of the characters that may change
the one before them. The tables are generated (``nfc_tables``, written by
``gen_nfc_tables``) and trusted only on the Unicode versions in
``VERIFIED``. Why these spellings are all of them: docs/recall.md, "Raw
spellings NFC turns into a character".
"""

from __future__ import annotations

import functools
import itertools
import unicodedata

from optmem.recall.nfc_tables import BY_STARTER, NOT_INERT_BLOCKS, SINGLETON_RUNS

#: Unicode versions on which the tables were checked against ``unicodedata``
#: (Python 3.9-3.10: 13.0.0, 3.11: 14.0.0, 3.12: 15.0.0, 3.13: 15.1.0).
VERIFIED = frozenset({"13.0.0", "14.0.0", "15.0.0", "15.1.0"})
MAX_MARKS = 4  #: marks after the starter of ``NFD(x)`` that ``partials`` combines


@functools.lru_cache(maxsize=1)
def _targets() -> dict:
    """``{target: sources}`` from ``SINGLETON_RUNS`` (strings of code points)."""
    out = {}
    for first, targets in SINGLETON_RUNS:
        for k, target in enumerate(targets):
            out[target] = out.get(target, "") + chr(first + k)
    return out


def singleton_sources(ch: str) -> str:
    """The code points other than ``ch`` whose NFC is ``ch`` (a str, maybe
    empty): ``K`` from U+212A KELVIN SIGN, ``;`` from U+037E, ``Å`` from
    U+212B, a unified ideograph from its compatibility ideographs."""
    return _targets().get(ch, "")


def partials(ch: str) -> list:
    """The single characters whose NFD is the starter of ``NFD(ch)`` followed
    by a proper subsequence of its other code points (in order), for a
    character ``ch`` that decomposes; ``[]`` if it does not. Raises
    ``ValueError`` if ``NFD(ch)`` has over ``MAX_MARKS`` code points after
    its starter."""
    form = unicodedata.normalize("NFD", ch)
    if form == ch:
        return []
    head, rest = form[0], form[1:]
    if len(rest) > MAX_MARKS:
        raise ValueError(f"U+{ord(ch):04X} decomposes into {len(form)} code points")
    out = []
    for size in range(len(rest)):
        for picked in itertools.combinations(rest, size):
            made = unicodedata.normalize("NFC", head + "".join(picked))
            if len(made) == 1 and made not in out:
                out.append(made)
    return out


def _inert(ch: str) -> bool:
    from optmem.recall.pattern import inert_char
    return inert_char(ch)


@functools.lru_cache(maxsize=1024)
def spellings(ch: str):
    """``(whole, heads)`` for a character ``ch`` of an NFC text, or None.

    Every raw text that NFC turns into text beginning with ``ch`` is one of
    ``whole`` or one of ``heads`` followed by one or more non-ASCII
    characters. ``whole``: ``ch`` and every code point whose NFC begins with
    ``ch`` (singletons such as U+212A for ``K``, composition exclusions such
    as U+0958 for U+0915). ``heads``, for a ``ch`` that decomposes: every
    code point whose NFD begins with the starter of ``NFD(ch)`` (``À`` for
    ``ạ``: NFC of ``À`` + U+0323 is ``ạ`` + U+0300), or for a Hangul
    syllable its partial compositions (``partials``). Both are tuples of
    strings. None when ``ch`` is not NFC-inert (a mark or a jamo: NFC may
    move or create it), or this Python's Unicode version is not in
    ``VERIFIED``."""
    if unicodedata.unidata_version not in VERIFIED or not _inert(ch):
        return None
    nfd = unicodedata.normalize("NFD", ch)
    family = BY_STARTER.get(nfd[0], "")
    normalize = unicodedata.normalize
    whole = (ch,) + tuple(c for c in family if c != ch and normalize("NFC", c).startswith(ch))
    if nfd == ch:
        return whole, ()
    if "\uac00" <= ch <= "\ud7a3":
        try:
            return whole, tuple(partials(ch))
        except ValueError:  # pragma: no cover - a Hangul syllable has at most 3 jamo
            return None
    heads = (nfd[0],) + tuple(c for c in family if c != ch)
    return whole, heads


@functools.lru_cache(maxsize=1)
def composer_table() -> bytes:
    """65,536 bytes, one for each pair of bytes ``b1 b2``: 1 where a
    character whose UTF-8 begins with ``b1 b2`` may change the character
    before it under NFC (it is not NFC-inert: a mark, a jamo, or not its
    own NFC), else 0. ASCII first bytes are 0: an ASCII character is inert.
    On a Unicode version not in ``VERIFIED`` every non-ASCII first byte is
    1 (nothing is trusted). ``optmem.recall._scan`` reads it after a literal."""
    table = bytearray(65536)
    if unicodedata.unidata_version not in VERIFIED:
        table[0x8000:] = b"\x01" * 0x8000
        return bytes(table)
    for first, last in NOT_INERT_BLOCKS:
        table[first:last + 1] = b"\x01" * (last + 1 - first)
    return bytes(table)

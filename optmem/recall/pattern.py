"""The bottom of recall: how a pattern and a record are read, shared by the
counters and the search above. ``sre_modules`` is Python's own regex parser
(the analysis walks its parse tree, so it reads a pattern exactly as ``re``
does); ``line_of`` is the line a record is matched as; ``inert_char`` and
``is_word`` are the per-character facts the exact counters rest on
(docs/recall.md)."""

from __future__ import annotations

import functools
import unicodedata


def line_of(record: bytes) -> str:
    """The line recall matches for one ``LOG.txt`` record (``bytes``, 320
    of them for a whole record, trailing newline included).

    UTF-8 with U+FFFD for undecodable bytes, a newline read as a space (a
    damaged record may hold one), trailing white space (the padding)
    stripped. For a valid record this is ``#<id> <date> <text>``.
    """
    return record.decode("utf-8", "replace").replace("\n", " ").rstrip()


def sre_modules():
    try:
        from re import _constants as constants  # Python >= 3.11
        from re import _parser as parser
    except ImportError:  # pragma: no cover - Python 3.9, 3.10
        import sre_constants as constants
        import sre_parse as parser
    return parser, constants


@functools.lru_cache(maxsize=4096)
def inert_char(ch: str) -> bool:
    """True if ``ch`` can never change, or change a neighbour, under NFC:
    not a mark (every combining character, and every character that is the
    second of a canonical composition, is a mark or a Hangul jamo; the test
    checks this over every code point), not a jamo, and its own NFC."""
    if unicodedata.category(ch).startswith("M") or "\u1100" <= ch <= "\u11ff":
        return False
    return unicodedata.normalize("NFC", ch) == ch


def is_word(ch: str) -> bool:
    """Python ``re``'s Unicode ``\\w`` for one character."""
    return ch.isalnum() or ch == "_"

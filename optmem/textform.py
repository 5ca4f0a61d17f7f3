"""The one form text is stored and compared in: Unicode NFC.

The same sentence typed on macOS (decomposed, NFD: ``u`` + U+0308) and on
Linux (composed, NFC: ``ü``) is the same text. ``note``, ``sleep`` and
``import`` store the NFC form (so the byte limit is counted on what is
stored), and the duplicate check and ``recall`` compare NFC forms, so a
record another tool wrote in either form matches (README "What you type is
what is stored"; docs/recall.md). Canonical equivalence only:
NFKC would change what was typed (``ﬁ`` to ``fi``, ``²`` to ``2``).
"""

from __future__ import annotations

import unicodedata


def nfc(text: str) -> str:
    """``text`` in Unicode Normalization Form C (canonical composition).

    ASCII is returned as is, without a lookup (most memories). Pure; never
    raises for a ``str`` (lone surrogates pass through unchanged).
    """
    if text.isascii():
        return text
    return unicodedata.normalize("NFC", text)


def is_nfc(text: str) -> bool:
    """True when ``text`` is already in NFC (``nfc(text) == text``)."""
    return text.isascii() or unicodedata.is_normalized("NFC", text)

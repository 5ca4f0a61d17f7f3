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


def _escaped(name: str) -> str:
    """``name`` with each character that is not printable (control, format,
    line and paragraph separators, a byte that is not UTF-8), each backslash
    and each single quote written as a ``$'...'`` escape (``\\xHH`` per byte
    of UTF-8)."""
    out = []
    for ch in name:
        if ch == "\\":
            out.append("\\\\")
        elif ch == "'":
            out.append("\\'")
        elif ch.isprintable():
            out.append(ch)
        else:
            try:
                raw = ch.encode("utf-8", "surrogateescape")
            except UnicodeEncodeError:
                raw = ch.encode("utf-8", "surrogatepass")
            out.append("".join(f"\\x{b:02x}" for b in raw))
    return "$'" + "".join(out) + "'"


def shown(name: str) -> str:
    """A file name as memo prints it in a sentence: as it is when every
    character is printable, else in shell ``$'...'`` form with every control
    character, line break and invisible character escaped, so a name can
    never start a line of its own (``"a\\nRun: x"`` -> ``$'a\\x0aRun: x'``).
    Pure; never raises for a ``str``."""
    return name if name.isprintable() else _escaped(name)


def quoted(name: str) -> str:
    """A file name as one shell word in an order memo prints, running as
    printed: ``shlex.quote`` when every character is printable, else the
    ``$'...'`` form of ``shown`` (bash, zsh and ksh read it; it holds no
    raw line break). Pure; never raises for a ``str``."""
    if name.isprintable():
        import shlex
        return shlex.quote(name)
    return _escaped(name)

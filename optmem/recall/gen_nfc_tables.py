"""Writes ``optmem/recall/nfc_tables.py`` from this Python's ``unicodedata``.

Run ``python -m optmem.recall.gen_nfc_tables > optmem/recall/nfc_tables.py``
on a Python whose Unicode is the newest in ``nfcspell.VERIFIED`` (3.12 or
3.13: Unicode 15). The singleton and starter tables are the same on every
verified version; the blocks that are not NFC-inert only grow with Unicode,
so the newest version's blocks hold every older version's.
``tests/test_nfcspell.py`` regenerates the tables and compares them.
"""

from __future__ import annotations

import itertools
import sys
import unicodedata

from optmem.recall.pattern import inert_char


def scan_singletons() -> dict:
    """Every code point whose NFC is one other code point: ``{source:
    target}``, by asking ``unicodedata`` about all of them (about a second)."""
    found = {}
    for cp in itertools.chain(range(0xD800), range(0xE000, 0x110000)):
        ch = chr(cp)
        if not unicodedata.is_normalized("NFC", ch):
            form = unicodedata.normalize("NFC", ch)
            if len(form) == 1:
                found[ch] = form
    return found


def scan_starters() -> dict:
    """``{starter: str of code points}``: every code point but a Hangul
    syllable whose NFD differs from it, under the first code point of its
    NFD, in code point order (a second or so)."""
    found = {}
    for cp in itertools.chain(range(0xAC00), range(0xD7A4, 0xD800), range(0xE000, 0x110000)):
        ch = chr(cp)
        if not unicodedata.is_normalized("NFD", ch):
            start = unicodedata.normalize("NFD", ch)[0]
            found[start] = found.get(start, "") + ch
    return found


def scan_blocks() -> set:
    """The UTF-8 blocks (first byte << 8 | second byte) of every code point
    that is not NFC-inert on this Python (a second or so)."""
    found = set()
    for cp in itertools.chain(range(0x80, 0xD800), range(0xE000, 0x110000)):
        ch = chr(cp)
        if not inert_char(ch):
            data = ch.encode("utf-8")
            found.add(data[0] << 8 | data[1])
    return found


def singleton_runs(singletons: dict) -> tuple:
    """``singletons`` as runs: ``(first source code point, the targets of it
    and of each code point after it)``."""
    runs = []
    for src in sorted(singletons, key=ord):
        if runs and ord(src) == runs[-1][0] + len(runs[-1][1]):
            runs[-1][1] += singletons[src]
        else:
            runs.append([ord(src), singletons[src]])
    return tuple((first, targets) for first, targets in runs)


def block_runs(found: set) -> tuple:
    """``found`` as sorted inclusive runs ``(first, last)``."""
    runs = []
    for block in sorted(found):
        if runs and block == runs[-1][1] + 1:
            runs[-1][1] = block
        else:
            runs.append([block, block])
    return tuple((first, last) for first, last in runs)


def _escaped(text: str) -> str:
    return "".join(f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}" for c in text)


def _literal(text: str, indent: int, width: int = 90) -> str:
    """``text`` as a Python string literal of ``\\u`` escapes, cut into
    parenthesised lines that fit ``width`` columns after ``indent``."""
    parts, line = [], ""
    for ch in text:
        piece = _escaped(ch)
        if len(line) + len(piece) > width - indent - 4:
            parts.append(line)
            line = ""
        line += piece
    parts.append(line)
    if len(parts) == 1:
        return f'"{parts[0]}"'
    pad = " " * (indent + 1)
    return '("' + f'"\n{pad}"'.join(parts) + '")'


def render() -> str:
    """The whole text of ``nfc_tables.py`` for this Python's Unicode."""
    out = [
        '"""Unicode tables for ``optmem.recall.nfcspell``: GENERATED, do not edit.',
        "",
        f"Written by ``python -m optmem.recall.gen_nfc_tables`` on Unicode {unicodedata.unidata_version}.",
        '"""',
        "",
        f'UNICODE = "{unicodedata.unidata_version}"  #: the Unicode version these were generated on',
        "",
        "#: (first source code point, the NFC of it and of each code point after it)",
        "SINGLETON_RUNS = (",
    ]
    for first, targets in singleton_runs(scan_singletons()):
        out.append(f"    (0x{first:04X}, {_literal(targets, 13)}),")
    out += [
        ")",
        "",
        "#: starter -> every code point (Hangul syllables aside) whose NFD begins with it",
        "#: (composites, composition exclusions, singletons)",
        "BY_STARTER = {",
    ]
    for starter, chars in sorted(scan_starters().items(), key=lambda kv: ord(kv[0])):
        head = f'    "{_escaped(starter)}": '
        out.append(head + _literal(chars, len(head)) + ",")
    out += [
        "}",
        "",
        "#: The UTF-8 blocks (first byte << 8 | second byte) holding a character that",
        "#: is not NFC-inert, as inclusive runs.",
        "NOT_INERT_BLOCKS = (",
    ]
    runs = block_runs(scan_blocks())
    for k in range(0, len(runs), 4):
        out.append("    " + " ".join(f"(0x{a:04X}, 0x{b:04X})," for a, b in runs[k:k + 4]))
    out += [")", ""]
    return "\n".join(out)


if __name__ == "__main__":
    sys.stdout.write(render())

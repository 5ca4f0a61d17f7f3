#!/usr/bin/env python3
"""The package tree with each module's line count, hand-written and generated apart.

Run from the checkout::

    python benchmarks/tree.py            # this checkout's optmem/
    python benchmarks/tree.py PATH       # another checkout's (PATH/optmem)

A module is generated when its first five lines say "GENERATED, do not edit"
(``recall/nfc_tables.py``, written by ``recall/gen_nfc_tables.py``). Lines
are newline characters, as ``wc -l`` counts them; ``.py`` and ``.c`` files
are counted.
"""

from __future__ import annotations

import os
import sys

GENERATED_MARK = "generated, do not edit"  #: a generated module's first lines say so


def modules(root: str) -> list:
    """``[(path relative to root, lines, generated), ...]`` of every ``.py``
    and ``.c`` file under ``root``, sorted by path."""
    out = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if not name.endswith((".py", ".c")):
                continue
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            head = "\n".join(text.split("\n")[:5]).lower()
            out.append((os.path.relpath(path, os.path.dirname(root)), text.count("\n"),
                        GENERATED_MARK in head))
    return out


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    checkout = argv[0] if argv else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    rows = modules(os.path.join(checkout, "optmem"))
    hand = sum(n for _, n, gen in rows if not gen)
    made = sum(n for _, n, gen in rows if gen)
    shown = set()
    for path, n, gen in rows:
        folder = os.path.dirname(path)
        if folder not in shown:
            shown.add(folder)
            inside = sum(m for p, m, _ in rows if os.path.dirname(p) == folder)
            print(f"{inside:6d}  {'  ' * folder.count(os.sep)}{os.path.basename(folder)}/")
        depth = path.count(os.sep)
        print(f"{n:6d}  {'  ' * depth}{os.path.basename(path)}{'  (generated)' if gen else ''}")
    print(f"{hand + made:6d}  total: {hand} hand-written, {made} generated, {len(rows)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())

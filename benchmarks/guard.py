#!/usr/bin/env python3
"""The write guard's worst case per text, by text length.

Run from the checkout (any interpreter that has the package's deps)::

    python benchmarks/guard.py                  # 287, 8192 and 65536 characters
    python benchmarks/guard.py --sizes 287 --runs 5

For each size, every adversarial fragment of ``tests/test_guard.py``
(``ADVERSARIAL``: the starts of credential shapes without their ends, which
make a careless pattern backtrack) is repeated to that length and judged by
``find_char_problem`` and ``find_credential``, the two halves of
``find_problem``. The table shows, per size, the slowest fragment's time
(the median of ``--runs`` runs) and the total over all fragments, in
milliseconds of CPU time (``time.process_time``: on a shared machine, wall
time mostly measures the other processes), and the same for a baseline in
the same run: ``re.search`` of a simple word over the same text.

No path in memo runs the guard on more than ``MAX_ENTRY_BYTES`` (287)
characters: the length is checked first (``view.clean_text``). The larger
sizes show what that check protects against.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests"))

from test_guard import ADVERSARIAL  # noqa: E402

from optmem.guard import text as guard  # noqa: E402
from optmem.store.config import MAX_ENTRY_BYTES  # noqa: E402


def timed(fn, text: str, runs: int) -> float:
    """Median CPU seconds of ``fn(text)`` over ``runs`` runs."""
    times = []
    for _ in range(runs):
        start = time.process_time()
        fn(text)
        times.append(time.process_time() - start)
    return statistics.median(times)


def judge(text: str) -> None:
    guard.find_char_problem(text)
    guard.find_credential(text)


BASELINE = re.compile(r"rollback", re.IGNORECASE).search


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[MAX_ENTRY_BYTES, 8192, 65536])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    judge("warm up: every pattern compiled")
    print(f"Python {platform.python_version()} on {platform.machine()}, "
          f"load average {os.getloadavg()[0]:.1f}, {args.runs} runs, median CPU time")
    print(f"{'chars':>7} {'worst text ms':>14} {'worst fragment':>24} {'all texts ms':>13} "
          f"{'baseline all ms':>16}")
    for size in args.sizes:
        worst, worst_frag, total, base = 0.0, "", 0.0, 0.0
        for fragment in ADVERSARIAL:
            text = (fragment * (size // len(fragment) + 1))[:size]
            t = timed(judge, text, args.runs)
            total += t
            base += timed(BASELINE, text, args.runs)
            if t > worst:
                worst, worst_frag = t, fragment
        shown = ascii(worst_frag[:20])
        print(f"{size:>7} {worst * 1e3:>14.2f} {shown:>24} {total * 1e3:>13.1f} "
              f"{base * 1e3:>16.2f}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""What the write guard costs per line: in-process and in ``memo note``.

Compares checkouts (this one, and any ``--vs`` checkout such as a clean
copy of main) in the same run, round-robin, so a loaded machine slows all
alike::

    python benchmarks/guard_cost.py --vs /path/to/main-checkout
    python benchmarks/guard_cost.py --vs ../main --notes 40 --rounds 5

Two figures per checkout:

* ``guard``: microseconds per line of ``guard.find_problem`` over the real
  corpora in ``tests/data/`` (the click history and the commit subjects),
  in one process per round, after one warm-up pass (the median of
  ``--rounds``);
* ``note``: milliseconds per ``memo note`` process (``python -m optmem
  note <a corpus line>`` on a fresh store), the median of ``--notes`` runs,
  beside ``python -c pass`` with the same interpreter in the same rounds:
  the start-up every process pays, so ``note - pass`` is memo's own cost.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CORPORA = ("click-history.txt", "commit-subjects.txt")

_GUARD = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
from optmem.guard import text as guard
lines = []
for path in sys.argv[2:]:
    with open(path, encoding="utf-8") as f:
        lines += [ln.rstrip("\n") for ln in f if ln.strip()]
for ln in lines:
    guard.find_problem(ln)
t = time.perf_counter()
for ln in lines:
    guard.find_problem(ln)
print((time.perf_counter() - t) / len(lines) * 1e6)
"""


def guard_us(repo: str, corpora: list) -> float:
    out = subprocess.run([sys.executable, "-c", _GUARD, repo, *corpora],
                         capture_output=True, text=True, check=True).stdout
    return float(out)


def run_ms(argv: list, env: dict) -> float:
    t = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=False)
    return (time.perf_counter() - t) * 1000


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--vs", action="append", default=[], help="another checkout to compare")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--notes", type=int, default=30, help="note processes per checkout")
    args = ap.parse_args(argv)
    repos = [ROOT] + [os.path.abspath(v) for v in args.vs]
    corpora = [os.path.join(ROOT, "tests", "data", c) for c in CORPORA]
    lines = []
    with open(corpora[1], encoding="utf-8") as f:
        lines = [ln.rstrip("\n") for ln in f if ln.strip()]

    g = {r: [] for r in repos}
    for _ in range(args.rounds):
        for r in repos:
            g[r].append(guard_us(r, corpora))

    notes = {r: [] for r in repos}
    base = []
    with tempfile.TemporaryDirectory() as tmp:
        envs = {}
        for i, r in enumerate(repos):
            env = dict(os.environ, MEMORY_DIR=os.path.join(tmp, f"m{i}"),
                       PYTHONPATH=r, PYTHONDONTWRITEBYTECODE="")
            subprocess.run([sys.executable, "-m", "optmem", "init"], env=env, cwd=r,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            envs[r] = env
        for k in range(args.notes):
            line = lines[(k * 97) % len(lines)][:200]
            base.append(run_ms([sys.executable, "-c", "pass"], os.environ))
            for r in repos:
                notes[r].append(run_ms([sys.executable, "-m", "optmem", "note", "--", line],
                                       envs[r]))
    pass_ms = statistics.median(base)
    print(f"python -c pass: {pass_ms:.1f} ms (median of {len(base)})")
    for r in repos:
        n = statistics.median(notes[r])
        print(f"{r}: guard {statistics.median(g[r]):.1f} us/line in-process "
              f"(median of {args.rounds}); memo note {n:.1f} ms per process, "
              f"{n - pass_ms:.1f} ms over python -c pass, {n / pass_ms:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())

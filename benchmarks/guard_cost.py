#!/usr/bin/env python3
"""What the write guard costs per line: in-process and in ``memo note``.

Compares checkouts (this one, and any ``--vs`` checkout or ``--vs-rev``
revision such as main) in the same run, round-robin, so a loaded machine
slows all alike::

    python benchmarks/guard_cost.py --vs-rev main
    python benchmarks/guard_cost.py --vs /path/to/main-checkout
    python benchmarks/guard_cost.py --vs-rev main --notes 40 --rounds 5

``--vs-rev REV`` exports REV's ``optmem/`` with ``git archive`` into a
temporary folder (with this checkout's compiled ``optmem.recall._scan`` when REV's
``_scan.c`` is the same), so no second checkout is needed.

Figures per checkout:

* ``guard``: microseconds of CPU time (``time.process_time``: on a shared
  machine wall time mostly measures the other processes) per line of
  ``guard.find_problem`` in one process
  per round, after one warm-up pass (the median of ``--rounds``), over
  each corpus of this checkout's ``tests/data/``: ``real`` (the click
  history and the commit subjects), ``allowed`` (``guard-allowed.txt``) and
  ``credential`` (every template of ``guard-credential-templates.txt``
  filled with every value of ``guard-credential-values.txt``), each when
  present;
* ``note``: milliseconds per ``memo note`` process (``python -m optmem
  note <a corpus line>`` on a fresh store), the median of ``--notes`` runs,
  beside ``python -c pass`` with the same interpreter in the same rounds:
  the start-up every process pays, so ``note - pass`` is memo's own cost.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import shutil
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
        lines += [ln.rstrip("\n") for ln in f if ln.strip() and not ln.startswith("#")]
for ln in lines:
    guard.find_problem(ln)
t = time.process_time()
for ln in lines:
    guard.find_problem(ln)
print((time.process_time() - t) / len(lines) * 1e6)
"""


def guard_us(repo: str, corpus: str) -> float:
    out = subprocess.run([sys.executable, "-c", _GUARD, repo, corpus],
                         capture_output=True, text=True, check=True).stdout
    return float(out)


def corpora(tmp: str) -> dict:
    """name -> a file of lines to judge, from this checkout's tests/data."""
    data = os.path.join(ROOT, "tests", "data")
    out = {}
    real = [os.path.join(data, c) for c in CORPORA]
    lines = []
    for path in real:
        with open(path, encoding="utf-8") as f:
            lines += [ln for ln in f if ln.strip()]
    out["real"] = _write(tmp, "real.txt", lines)
    allowed = os.path.join(data, "guard-allowed.txt")
    if os.path.exists(allowed):
        out["allowed"] = allowed
    if os.path.exists(os.path.join(data, "guard-credential-templates.txt")):
        sys.path.insert(0, data)
        import make_guard_credentials as gen

        with open(os.path.join(data, "guard-credential-values.txt"), encoding="utf-8") as f:
            values = [ln.rstrip("\n").split("\t", 1) for ln in f if not ln.startswith("#")]
        sentences = []
        for form, templates in gen.templates().items():
            for i, t in enumerate(templates):
                for j, (kind, v) in enumerate(values):
                    if (kind == "pem-body") == (form == "continuation"):
                        name = gen.PROVIDER_NAMES[(i + j) % len(gen.PROVIDER_NAMES)]
                        sentences.append(gen.fill(t, v, name) + "\n")
        out["credential"] = _write(tmp, "credential.txt", sentences)
    return out


def _write(tmp: str, name: str, lines: list) -> str:
    path = os.path.join(tmp, name)
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(lines)
    return path


def export_rev(rev: str, tmp: str) -> str:
    """REV's ``optmem/`` in a folder of ``tmp`` (``git archive``), with this
    checkout's compiled ``_scan`` when REV's ``_scan.c`` is the same."""
    dest = os.path.join(tmp, "rev-" + rev.replace("/", "_"))
    os.makedirs(dest)
    archive = subprocess.run(["git", "-C", ROOT, "archive", rev, "optmem"],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", dest], input=archive, check=True)
    here = os.path.join(ROOT, "optmem")
    if filecmp.cmp(os.path.join(here, "_scan.c"), os.path.join(dest, "optmem", "_scan.c"),
                   shallow=False):
        for name in os.listdir(here):
            if name.startswith("_scan") and name.endswith((".so", ".pyd")):
                shutil.copy(os.path.join(here, name), os.path.join(dest, "optmem", name))
    return dest


def run_ms(argv: list, env: dict) -> float:
    t = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=False)
    return (time.perf_counter() - t) * 1000


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--vs", action="append", default=[], help="another checkout to compare")
    ap.add_argument("--vs-rev", action="append", default=[],
                    help="a git revision of this repository to compare (e.g. main)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--notes", type=int, default=30, help="note processes per checkout")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        repos = [ROOT] + [os.path.abspath(v) for v in args.vs]
        names = {ROOT: "this checkout"}
        for rev in args.vs_rev:
            path = export_rev(rev, tmp)
            repos.append(path)
            names[path] = rev
        files = corpora(tmp)
        with open(files["real"], encoding="utf-8") as f:
            lines = [ln.rstrip("\n") for ln in f if ln.strip()]

        g = {(r, c): [] for r in repos for c in files}
        for _ in range(args.rounds):
            for c, path in files.items():
                for r in repos:
                    g[r, c].append(guard_us(r, path))

        notes = {r: [] for r in repos}
        base = []
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
            guard = ", ".join(f"{c} {statistics.median(g[r, c]):.1f}" for c in files)
            print(f"{names.get(r, r)}: guard us/line in-process ({guard}; median of "
                  f"{args.rounds}); memo note {n:.1f} ms per process, "
                  f"{n - pass_ms:.1f} ms over python -c pass, {n / pass_ms:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())

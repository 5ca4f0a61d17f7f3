#!/usr/bin/env python3
"""What project scopes cost a command (docs/scopes.md), as ratios in one run.

Builds, in a temporary folder, a global store of the first 1,000 lines of
``tests/data/click-history.txt`` (every compression paid by a stand-in
summariser) and a scratch git repository, then times ``memo wake`` and
``memo note`` processes, round-robin so a loaded machine slows all alike::

    python benchmarks/scope_cost.py            # 31 rounds
    python benchmarks/scope_cost.py --rounds 11

Rows (the median of ``--rounds``), each beside ``python -c pass``:

* ``no projects/``: the store as it was before the feature (no git call);
* ``projects/, none here``: a project exists for another repository, the
  command runs in an unbound repository (two short git calls);
* ``project active``: the repository is bound to a project of 51 memories;
  wake prints both sections.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(REPO, "tests", "data", "click-history.txt")
SUMMARISE = ("import sys,re; t=sys.stdin.read(); "
             "print((' / '.join(re.findall(r'^  #\\S+ \\S+ (.{0,60})', t, re.M)) or 'x')[:200])")


def memo(env, cwd, *args, stdin=None):
    return subprocess.run([sys.executable, "-m", "optmem", *args], env=env, cwd=cwd,
                          input=stdin, capture_output=True, text=True)


def git(cwd, *args):
    subprocess.run(["git", "-C", cwd, "-c", "user.name=b", "-c", "user.email=b@b", *args],
                   check=True, capture_output=True)


def build(top: str) -> dict:
    lines = open(DATA, encoding="utf-8").read().splitlines()
    env = dict(os.environ, PYTHONPATH=REPO, MEMORY_DIR=os.path.join(top, "mem"))
    pay = f"{sys.executable} -c \"{SUMMARISE}\""
    with open(os.path.join(top, "g.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines[:1000]) + "\n")
    with open(os.path.join(top, "p.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines[1000:1051]) + "\n")
    memo(env, top, "init")
    memo(env, top, "import", os.path.join(top, "g.txt"))
    memo(env, top, "sleep", "--with", pay)
    plain = dict(env, MEMORY_DIR=os.path.join(top, "plain"))
    memo(plain, top, "init")
    memo(plain, top, "import", os.path.join(top, "g.txt"))
    memo(plain, top, "sleep", "--with", pay)
    bound, other = os.path.join(top, "bound"), os.path.join(top, "other")
    for path, url in ((bound, "git@github.com:pallets/click.git"),
                      (other, "git@github.com:acme/other.git")):
        os.makedirs(path)
        git(path, "init", "-q")
        git(path, "remote", "add", "origin", url)
        git(path, "commit", "-q", "--allow-empty", "-m", "start")
    memo(env, bound, "init", "--project", "click")
    memo(env, bound, "import", os.path.join(top, "p.txt"))
    memo(env, bound, "sleep", "--with", pay)
    return {"no projects/": (plain, other), "projects/, none here": (env, other),
            "project active": (env, bound)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=31)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as top:
        cases = build(top)
        times = {"python -c pass": []}
        for name in cases:
            times[f"wake, {name}"] = []
        for _ in range(args.rounds):
            s = time.perf_counter()
            subprocess.run([sys.executable, "-c", "pass"], capture_output=True)
            times["python -c pass"].append(time.perf_counter() - s)
            for name, (env, cwd) in cases.items():
                s = time.perf_counter()
                out = memo(env, cwd, "wake")
                times[f"wake, {name}"].append(time.perf_counter() - s)
                assert out.returncode == 0, out.stderr
        base = statistics.median(times["python -c pass"])
        first = statistics.median(times["wake, no projects/"])
        for name, vals in times.items():
            m = statistics.median(vals)
            print(f"{name:<34} {m * 1000:7.1f} ms  {m / base:5.2f}x pass  "
                  f"{m / first:5.2f}x no-projects wake")


if __name__ == "__main__":
    main()

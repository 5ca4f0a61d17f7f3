#!/usr/bin/env python3
"""Start-up of ``memo wake``, ``note``, ``sleep`` and ``recall`` against ``import click``.

Run from the checkout::

    python benchmarks/startup.py                     # 1,000 and 1,000,000 memories
    python benchmarks/startup.py --importtime wake   # what wake imports beyond click
    python benchmarks/startup.py --vs "CMD"          # another memo, same rounds

The table: per command and store size, the median wall time of the whole
``memo`` process, of ``python -c "import click"`` with the same interpreter
in the same rounds (the floor: memo's command line is click), their ratio,
the two minimums (the least disturbed run of each) and the median CPU
seconds (user and system) of each: on a loaded machine the wall times carry
the load, the minimums less of it and the CPU times least. With ``--vs`` a
second memo runs in the same rounds (its median, CPU time and ratios).
Stores are ``bench.build_store``'s (records written straight with the
store's encoder, reused under ``--dir`` while they match), without
projects. ``note`` is undone after every run (the log cut back).

``--instructions`` prints instead the instructions each command executes
(valgrind's callgrind, one run each, millions), against ``import click``
(the ratio's floor; ``import click, filelock`` beside it: what a command
that takes the store's lock cannot do without), and ``--vs``: the one
measure no other job on the machine moves. ``note`` is undone after its
run, as in the table.

``--importtime CMD`` runs ``python -X importtime -m optmem CMD`` (on the
1,000-memory store) ``--runs`` times and prints each module imported that
``import click`` does not import, with its smallest self and cumulative
time in microseconds over the runs: where a command's start-up goes.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import bench  # noqa: E402

from optmem.store.memory import LOG_RECORD  # noqa: E402

SIZES = (1_000, 1_000_000)
COMMANDS = [
    ("wake", ["wake"]),
    ("note", None),  # a new text each run, undone after it
    ("sleep", ["sleep"]),
    ("recall", ["recall", "rollback"]),
]


def store(base: str, T: int, log) -> str:
    root = os.path.join(base, f"store-{T}")
    if bench.store_complete(root, T):
        log(f"store of {T:,} memories: reusing {root}")
    else:
        log(f"store of {T:,} memories: writing {root}")
        bench.build_store(root, T, log)
    return root


def imports(argv: list, env: dict) -> dict:
    """``{module: (self µs, cumulative µs)}`` from one ``-X importtime`` run."""
    err = subprocess.run(argv, env=env, capture_output=True, text=True).stderr
    out = {}
    for m in re.finditer(r"^import time:\s+(\d+) \|\s+(\d+) \| ( *)(\S+)$", err, re.M):
        out[m.group(4)] = (int(m.group(1)), int(m.group(2)))
    return out


def importtime(python: str, root: str, command: list, runs: int) -> None:
    env = dict(os.environ, MEMORY_DIR=root)
    floor = set()
    for _ in range(2):
        floor |= set(imports([python, "-X", "importtime", "-c", "import click"], env))
    best = {}
    for _ in range(max(1, runs)):
        for name, (own, cum) in imports([python, "-X", "importtime", "-m", "optmem"] + command,
                                        env).items():
            if name in floor:
                continue
            old = best.get(name, (own, cum))
            best[name] = (min(own, old[0]), min(cum, old[1]))
    print(f"memo {' '.join(command)}: modules beyond `import click` "
          f"(smallest of {runs} runs, µs)")
    print(f"{'self':>8} {'cumulative':>10}  module")
    for name, (own, cum) in sorted(best.items(), key=lambda kv: -kv[1][0]):
        print(f"{own:>8} {cum:>10}  {name}")
    print(f"{sum(own for own, _ in best.values()):>8} {'':>10}  total self")


def instructions(argv: list, env: dict) -> float | None:
    """Millions of instructions ``argv`` executes (callgrind's ``Collected``),
    or None when valgrind is missing or the count is not printed."""
    try:
        done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                               *argv], env=env, capture_output=True, text=True)
    except FileNotFoundError:
        return None
    m = re.search(r"Collected : (\d+)", done.stderr)
    return int(m.group(1)) / 1e6 if m else None


def instruction_table(python: str, memos: list, sizes: list, base: str, log) -> None:
    """The ``--instructions`` table: per store size and command, the floor,
    each memo, and their ratio."""
    print("| store | command | `import click` | `import click, filelock` | memo | ratio |"
          + "".join(" vs | ratio |" for _ in memos[1:]))
    print("|---|---|---|---|---|---|" + "---|---|" * (len(memos) - 1))
    for T in sizes:
        root = store(base, T, log)
        env = dict(os.environ, MEMORY_DIR=root)
        floor = instructions([python, "-c", "import click"], env)
        locked = instructions([python, "-c", "import click, filelock"], env)
        for name, command in COMMANDS:
            cells = []
            for memo in memos:
                argv = memo + (command or ["note", "startup note"])
                got = instructions(argv, env)
                if command is None:
                    os.truncate(os.path.join(root, "LOG.txt"), T * LOG_RECORD)
                cells += ["-" if got is None else f"{got:.1f}",
                          f"{got / floor:.2f}" if got and floor else "-"]
            print(f"| {T:,} | `memo {name}` | "
                  + " | ".join("-" if f is None else f"{f:.1f}" for f in (floor, locked))
                  + " | " + " | ".join(cells) + " |")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)),
                    help="store sizes, comma-separated (default: %(default)s)")
    ap.add_argument("--runs", type=int, default=15, help="timed runs (default: %(default)s)")
    ap.add_argument("--memo", help="the memo under test, as a command line "
                    "(default: this checkout's .venv/bin/memo, else python -m optmem)")
    ap.add_argument("--dir", help="where stores are kept (default: $TMPDIR/optmem-bench)")
    ap.add_argument("--vs", help="another memo to time in the same rounds, as a command line")
    ap.add_argument("--importtime", metavar="CMD",
                    help="print what `memo CMD` imports beyond click, instead of the table")
    ap.add_argument("--instructions", action="store_true",
                    help="print instructions per command (callgrind), instead of the table")
    args = ap.parse_args(argv)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    base = os.path.abspath(args.dir or os.path.join(tempfile.gettempdir(), "optmem-bench"))
    os.makedirs(base, exist_ok=True)
    memo = shlex.split(args.memo) if args.memo else bench.default_memo()
    python = bench.interpreter(memo)
    sizes = [int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()]

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    if args.importtime:
        importtime(python, store(base, min(sizes), log), shlex.split(args.importtime), args.runs)
        return 0
    if args.instructions:
        instruction_table(python, [memo] + ([shlex.split(args.vs)] if args.vs else []),
                          sizes, base, log)
        return 0
    rows = {}
    for T in sizes:
        root = store(base, T, log)
        env = dict(os.environ, MEMORY_DIR=root)
        log_path = os.path.join(root, "LOG.txt")
        floor = bench.Job("import click", [python, "-c", "import click"], env)
        memos = [memo] + ([shlex.split(args.vs)] if args.vs else [])
        jobs = [[] for _ in memos]
        for name, command in COMMANDS:  # each command of every memo, side by side
            for which, argv in enumerate(memos):
                if command is None:
                    job = bench.Job(name, lambda n, a=argv: a + ["note", f"startup note {n}"],
                                    env, after=lambda p=log_path, T=T: os.truncate(
                                        p, T * LOG_RECORD), expect=r"Saved as #\d+\.")
                else:
                    job = bench.Job(name, argv + command, env)
                jobs[which].append(job)
        bench.run_round_robin([floor] + [j for row in zip(*jobs) for j in row], args.runs, log)
        for job in (j for row in jobs for j in row):
            if job.error:
                log(f"  FAILED {job.row}: {job.error}")
        rows[T] = (floor, jobs)

    print(f"memo under test: {' '.join(memo)}; python: {python}; median of {args.runs} runs "
          f"after a warm-up, whole process, floor and memo in the same rounds")
    if args.vs:
        print(f"vs: {args.vs}")

    def ratio(a, f):
        return f"{a / f:.2f}" if a and f else "-"

    def least(job):
        return min(job.walls) if job.walls and not job.error else None

    def cpu(job):
        return statistics.median(job.cpus) if job.cpus and not job.error else None

    for T in sizes:
        floor, jobs = rows[T]
        head = ["command", "import click s", "memo s", "ratio", "min: click s", "memo s",
                "ratio", "CPU: click s", "memo s", "ratio"]
        if args.vs:
            head += ["vs s", "vs ratio", "vs CPU s", "vs CPU ratio"]
        print(f"\n{T:,} memories\n")
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for k, (name, _) in enumerate(COMMANDS):
            job = jobs[0][k]
            cells = [f"`memo {name}`", bench.fmt_s(floor.median), bench.fmt_s(job.median),
                     ratio(job.median, floor.median), bench.fmt_s(least(floor)),
                     bench.fmt_s(least(job)), ratio(least(job), least(floor)),
                     bench.fmt_s(cpu(floor)), bench.fmt_s(cpu(job)), ratio(cpu(job), cpu(floor))]
            if args.vs:
                other = jobs[1][k]
                cells += [bench.fmt_s(other.median), ratio(other.median, floor.median),
                          bench.fmt_s(cpu(other)), ratio(cpu(other), cpu(floor))]
            print("| " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Agent turns and prompt bytes spent on compression: batch vs one block.

A simulated life: N memories noted one at a time with ``memo note``; every
compression memo hands over is answered as printed (the order's heredoc,
``<your line>`` replaced) by a deterministic stand-in for the agent, until
``Nothing left to compress.``. Counted per flow:

- turns: hand-overs answered (one agent round trip each: read the prompt,
  write the answer, run the order);
- prompt bytes: bytes of UTF-8 of every prompt handed over (what the agent
  reads), from its ``Compress memories`` line to its last line.

The stand-in answers block ``LO-HI`` with the same line in both flows, so
the two stores must end byte-identical; the script checks that (same level
files, same record count per level, same bytes), that ``memo check`` calls
the batch store whole, and, when the reference OptMem is at ``--ref``
(default ``/work/ref/memo-latest``), that it wakes the batch store.

Run from the checkout (memo in-process through click's runner, so the
figures do not depend on the machine's speed)::

    .venv/bin/python benchmarks/handover.py            # 1,000 and 10,000
    .venv/bin/python benchmarks/handover.py --sizes 1000
"""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from optmem.cli.app import cli  # noqa: E402

NOTHING_LEFT = "Nothing left to compress."
ORDER = re.compile(r"^Run: memo sleep (\S+)(?: -)? <<'(\w+)'$", re.M)

PROJECTS = ["Ωmega", "café-api", "nightly-build", "zürich-office"]
VERBS = ["fixed", "decided", "measured", "learned", "deployed", "reverted", "noted"]
THINGS = ["the cache key", "flaky login test", "p99 latency 420 ms", "naïve retry loop",
          "Dockerfile base image", "the 2024 budget", "migración de datos", "日本語 docs",
          "rollback plan", "schema v3", "the deploy failed twice", "user prefers tabs"]


def memory_text(i: int, rng: random.Random) -> str:
    """A memory like a real one: a project name in half of them, repeated
    words, non-ASCII text; unique (memo refuses a recent duplicate)."""
    parts = []
    if i % 2 == 0:
        parts.append(f"[{PROJECTS[0]}]")
    parts.append(rng.choice(VERBS))
    parts += rng.sample(THINGS, 2)
    parts.append(f"(step {i}; {rng.choice(PROJECTS)})")
    return " ".join(parts)


def stand_in(name: str) -> str:
    """The agent's line for block ``name``: the same in both flows."""
    lo, hi = name.split("-")
    return f"Blocks {lo} to {hi}: every decision kept, wording dropped (stand-in line)."


def answer(prompt: str) -> tuple:
    """The order a prompt ends with, filled in: ``(argv, stdin)``."""
    m = ORDER.search(prompt)
    if m is None:
        raise SystemExit(f"no order in the prompt:\n{prompt}")
    block, tag = m.group(1), m.group(2)
    rows = prompt[m.end() + 1:].split("\n")
    lines = []
    for row in rows[:rows.index(tag)]:
        if row == "<your line>":  # one block: its line alone
            lines.append(stand_in(block))
        else:  # a batch: "LO-HI <your line>"
            name = row.split(" ", 1)[0]
            lines.append(f"{name} {stand_in(name)}")
    argv = ["sleep", block, "-"] if block != "-" else ["sleep", "-"]
    return argv, "\n".join(lines) + "\n"


def prompt_of(output: str) -> str | None:
    """The hand-over in a command's output, or None."""
    m = re.search(r"^Compress ", output, re.M)
    return None if m is None else output[m.start():].rstrip("\n")


def life(n: int, store: Path, batch: bool) -> dict:
    """Note ``n`` memories into a new store at ``store``, answering every
    hand-over; return the counts."""
    env = {"MEMORY_DIR": str(store), "MEMO_HANDOVER": "batch" if batch else ""}
    runner = CliRunner()

    def memo(args, stdin=None):
        result = runner.invoke(cli, args, input=stdin, env=env, catch_exceptions=False)
        if result.exit_code != 0:
            raise SystemExit(f"memo {' '.join(args)} failed: {result.stderr}")
        return result.stdout

    memo(["init"])
    rng = random.Random(12)
    turns = prompt_bytes = 0
    for i in range(n):
        prompt = prompt_of(memo(["note", memory_text(i, rng)]))
        while prompt is not None:
            turns += 1
            prompt_bytes += len(prompt.encode("utf-8")) + 1
            argv, stdin = answer(prompt)
            prompt = prompt_of(memo(argv, stdin))
    if memo(["sleep"]).strip() != NOTHING_LEFT:
        raise SystemExit("work left at the end of the life: " + memo(["sleep"])[:500])
    return {"turns": turns, "prompt_bytes": prompt_bytes}


def levels(store: Path) -> dict:
    """``{size: (records, bytes)}`` of every level file."""
    out = {}
    for f in sorted((store / "TREE").iterdir(), key=lambda p: int(p.name)):
        data = f.read_bytes()
        out[int(f.name)] = (len(data) // 288, data)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--ref", default="/work/ref/memo-latest",
                    help="the reference OptMem tool, if present")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="optmem-handover-") as tmp:
        for n in args.sizes:
            one = life(n, Path(tmp) / f"one-{n}", batch=False)
            bat = life(n, Path(tmp) / f"batch-{n}", batch=True)
            a, b = levels(Path(tmp) / f"one-{n}"), levels(Path(tmp) / f"batch-{n}")
            same_counts = {s: r for s, (r, _) in a.items()} == {s: r for s, (r, _) in b.items()}
            same_bytes = a == b
            env = dict(os.environ, MEMORY_DIR=str(Path(tmp) / f"batch-{n}"))
            check = CliRunner().invoke(cli, ["check"], env=env)
            whole = check.exit_code == 0 and "The store is whole." in check.stdout
            ref = "not run"
            if os.access(args.ref, os.X_OK):
                proc = subprocess.run([args.ref, "wake"], env=env, capture_output=True,
                                      text=True, check=False)
                k = 1
                ok = proc.returncode == 0
                while ok and "You are awake." not in proc.stdout:
                    k += 1
                    proc = subprocess.run([args.ref, "wake", str(k), str(n)], env=env,
                                          capture_output=True, text=True, check=False)
                    ok = proc.returncode == 0
                ref = f"wakes ({k} part{'s' if k > 1 else ''})" if ok else "REFUSED"
            rows.append((n, one, bat, sum(r for r, _ in a.values()), same_counts,
                         same_bytes, whole, ref))
            print(f"{n}: one {one} batch {bat}", file=sys.stderr)
    print("| notes | flow | compression turns | per 1,000 notes | prompt bytes read "
          "| vs one-at-a-time |")
    print("|---|---|---|---|---|---|")
    for n, one, bat, *_ in rows:
        for name, r in (("one block (default)", one), ("`MEMO_HANDOVER=batch`", bat)):
            print(f"| {n:,} | {name} | {r['turns']:,} | {r['turns'] * 1000 / n:,.0f} | "
                  f"{r['prompt_bytes']:,} | {r['prompt_bytes'] / one['prompt_bytes']:.3f} |")
    print()
    print("| notes | summaries (both flows) | same record count per level | "
          "byte-identical TREE/ | `memo check` (batch store) | reference `wake` (batch store) |")
    print("|---|---|---|---|---|---|")
    for n, _, _, total, same_counts, same_bytes, whole, ref in rows:
        print(f"| {n:,} | {total:,} | {'yes' if same_counts else 'NO'} | "
              f"{'yes' if same_bytes else 'NO'} | {'whole' if whole else 'NOT WHOLE'} | {ref} |")


if __name__ == "__main__":
    main()

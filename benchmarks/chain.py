#!/usr/bin/env python3
"""Time ``memo recall`` on chains of literals (``café.*server``) against ``grep -ci``.

Run from the checkout::

    python benchmarks/chain.py                          # 1,000,000 memories, 1% 20% 50%
    python benchmarks/chain.py --memo "python -c '...'"  # another memo (no RE2, no C counter)

For each match rate (the share of lines each chain matches) one store of
``--size`` memories is written with ``bench.build_store`` (records encoded
by the store's own encoder, streamed) from texts of generated words in
which the chains' literals stand in order in that share of the lines, and
out of order or alone (near misses the scan must read and refuse) in a
fifth of the others, some in capitals. Each chain is then timed as whole
``memo recall`` processes against ``grep -ci`` on the same ``LOG.txt``, in
the same rounds (``bench.run_round_robin``): median wall seconds, ratio,
memo's peak RSS. ``--vs`` times another memo in the same rounds (the code
before a change).
"""

from __future__ import annotations

import argparse
import os
import random
import shlex
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import bench  # noqa: E402

#: (pattern, the pieces a matching line holds in order). Each pattern means
#: the same to Python's re (IGNORECASE) and to grep -i.
CHAINS = [
    ("café.*server", ["café", "server"]),
    ("decided.*budget 99", ["decided", "budget 99"]),
    ("agent.*session.*timeout", ["agent", "session", "timeout"]),
]
RATES = (0.01, 0.20, 0.50)
GENERATOR = 1  #: bump when the generated texts change, so old stores are rebuilt


def texts(rate: float, seed: int = bench.SEED):
    """An endless stream of one-line texts: generated words (``bench``'s
    syllables, which spell none of the chains' literals), each chain's
    pieces in order in ``rate`` of the lines, and reversed or alone in a
    fifth of the rest."""
    rng = random.Random(seed)
    vocab = sorted({"".join(rng.choice(bench.SYLLABLES) for _ in range(rng.randint(1, 4)))
                    for _ in range(6000)})
    choices, randint, random_ = rng.choices, rng.randint, rng.random
    while True:
        words = choices(vocab, k=randint(4, 24))
        for _pattern, pieces in CHAINS:
            if random_() < rate:
                put = list(pieces)
            elif random_() < 0.2:
                put = list(reversed(pieces)) if random_() < 0.5 else [rng.choice(pieces)]
            else:
                continue
            if random_() < 0.2:
                put = [p.upper() for p in put]
            at = sorted(randint(0, len(words)) for _ in put)
            for k, (pos, piece) in enumerate(zip(at, put)):
                words.insert(pos + k, piece)
        text = " ".join(words)
        while len(text.encode("utf-8")) > bench.ENTRY_BYTES:
            text = text[text.index(" ", 1) + 1:] if " " in text[1:] else text[:bench.ENTRY_BYTES // 2]
        yield text


def store_for(base: str, T: int, rate: float, log) -> str:
    root = os.path.join(base, f"chain-{T}-{int(rate * 100)}")
    params = dict(bench.store_params(T), chain=GENERATOR, rate=rate)
    if bench.store_complete(root, T, params):
        log(f"store of {T:,} memories, {rate:.0%} chains: reusing {root}")
    else:
        log(f"store of {T:,} memories, {rate:.0%} chains: writing {root}")
        bench.build_store(root, T, log, texts=texts(rate), params=params)
    return root


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=1_000_000, help="memories (default: %(default)s)")
    ap.add_argument("--rates", default="1,20,50", help="match rates in percent (default: %(default)s)")
    ap.add_argument("--runs", type=int, default=3, help="timed runs (default: %(default)s)")
    ap.add_argument("--memo", help="the memo under test, as a command line")
    ap.add_argument("--vs", help="another memo, as a command line, timed in the same rounds")
    ap.add_argument("--dir", help="where stores are kept (default: $TMPDIR/optmem-bench)")
    args = ap.parse_args(argv)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    base = os.path.abspath(args.dir or os.path.join(tempfile.gettempdir(), "optmem-bench"))
    os.makedirs(base, exist_ok=True)
    memo = shlex.split(args.memo) if args.memo else bench.default_memo()
    vs = shlex.split(args.vs) if args.vs else None

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    rows = []
    for rate in (int(r) / 100 for r in args.rates.split(",")):
        root = store_for(base, args.size, rate, log)
        env = dict(os.environ, MEMORY_DIR=root)
        log_path = os.path.join(root, "LOG.txt")
        jobs = []
        for pattern, _ in CHAINS:
            mine = bench.Job(pattern, memo + ["recall", pattern], env, expect=r"match")
            other = bench.Job(pattern, vs + ["recall", pattern], env, expect=r"match") if vs else None
            grep = bench.Job(pattern, ["grep", "-ci", pattern, log_path], env, expect=r"^\d+")
            jobs += [mine, grep] + ([other] if other else [])
            rows.append((rate, pattern, mine, grep, other))
        bench.run_round_robin(jobs, args.runs, log)
        for job in jobs:
            if job.error:
                log(f"  FAILED {job.row}: {job.error}")

    print(f"memo under test: {' '.join(memo)}" + (f"; --vs: {' '.join(vs)}" if vs else ""))
    print(f"{args.size:,} memories; median of {args.runs} runs after a warm-up, whole process; "
          f"MiB = peak RSS ({bench.GNU_TIME or 'os.wait4, a floor'})")
    print()
    head = ["rate", "pattern", "memo s", "grep -ci s", "ratio", "MiB"]
    if vs:
        head += ["--vs s", "--vs ratio", "--vs MiB"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for rate, pattern, mine, grep, other in rows:
        a, g = mine.median, grep.median
        cells = [f"{rate:.0%}", f"`{pattern}`", bench.fmt_s(a), bench.fmt_s(g),
                 f"{a / g:.2f}" if a and g else "-", bench.fmt_mib(mine.rss_kib)]
        if vs:
            b = other.median
            cells += [bench.fmt_s(b), f"{b / g:.2f}" if b and g else "-", bench.fmt_mib(other.rss_kib)]
        print("| " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Run the merge of replicas (``optmem.merging``) over many random histories
and count every broken promise.

Run from the checkout (or anywhere optmem is installed)::

    python benchmarks/merge_properties.py                 # 3,000 histories, seed 1
    python benchmarks/merge_properties.py -n 20000 --seed 7

Each history is a pure simulation of two or three replicas of one identity
(two and three alternate): the replicas append records (texts from a small
pool, so texts repeat, one of them in NFC and in NFD; dates from three
days, so one-date runs are common; unique texts too), redact records
(tombstones), and exchange through one of three topologies, a third of the
histories each: a mesh (two replicas merge and both take the result), a
hub (a replica merges with the hub and pushes), or folders (each machine
publishes its log to a folder of its own and merges the others' folders).
Every merge applies tombstones first and is checked: ``lost`` (the result
is not the multiset union of both inputs by ``merge_key``), ``asymmetric``
(``merge(b, a)`` differs from ``merge(a, b)`` by a byte), ``unsorted`` (dates
went out of order though both inputs' were in order), ``not idempotent``
(merging the result with an input changes it). At the end the replicas
exchange until quiet (three rounds); ``diverged`` counts histories whose
replicas still differ, and ``lost`` also counts a memory noted and never
redacted that is missing from a final replica. The tombstone hash is a
quick stand-in (sha256) unless ``--slow-hash``.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import time
from collections import Counter

from optmem import merging
from optmem.merging import apply_tombstones, merge_key, plan_merge

POOL = ["a", "b", "c", "d", "e", "M\u00fcller", "Mu\u0308ller"]
DATES = ["2026-01-01", "2026-01-02", "2026-01-03"]
TOPOLOGIES = ("mesh", "hub", "folders")


def quick_hash(record, salt, scheme="scrypt"):
    """A fast stand-in for the slow tombstone hash."""
    date, text = merge_key(record)
    return hashlib.sha256(salt + date.encode() + b" " + text).digest()[:merging.HASH_BYTES]


class Broken(Exception):
    """A promise broken; the message names which."""


def union(a, b) -> Counter:
    ca, cb = Counter(map(merge_key, a)), Counter(map(merge_key, b))
    return Counter({k: max(ca[k], cb[k]) for k in ca.keys() | cb.keys()})


def in_order(log) -> bool:
    return all(x[0] <= y[0] for x, y in zip(log, log[1:]))


def checked_merge(a, b, counts):
    b2, a2, _ = apply_tombstones(b, a)
    a, b, _ = apply_tombstones(a, b)
    m = plan_merge(a, b).records
    if (a2, b2) != (a, b):
        raise Broken("asymmetric")
    counts["merges"] += 1
    if Counter(map(merge_key, m)) != union(a, b):
        raise Broken("lost")
    if plan_merge(b, a).records != m:
        raise Broken("asymmetric")
    if in_order(a) and in_order(b) and not in_order(m):
        raise Broken("unsorted")
    if plan_merge(m, a).records != m or plan_merge(m, b).records != m:
        raise Broken("not idempotent")
    return m


def history(rng: random.Random, n: int, how: str, counts: Counter) -> None:
    """One random history; raises ``Broken`` at the first broken promise."""
    logs = [[] for _ in range(n)]
    folders = [[] for _ in range(n)]
    hub = []
    salts = [bytes([r]) * merging.SALT_BYTES for r in range(n)]
    noted, redacted = set(), set()

    def exchange(r, s):
        nonlocal hub
        if how == "mesh" and r != s:
            logs[r] = logs[s] = checked_merge(logs[r], logs[s], counts)
        elif how == "hub":
            logs[r] = hub = checked_merge(logs[r], hub, counts)
        elif how == "folders":
            folders[r] = list(logs[r])
            if r != s:
                logs[s] = checked_merge(logs[s], folders[r], counts)

    for _ in range(rng.randint(0, 40)):
        r, roll = rng.randrange(n), rng.random()
        log = logs[r]
        if roll < 0.55:
            text = rng.choice(POOL) if rng.random() < 0.6 else f"note {rng.randrange(10**6)}"
            date = max([rng.choice(DATES)] + ([log[-1][0]] if log else []))
            log.append((date, text))
            noted.add(merge_key((date, text)))
        elif roll < 0.62:
            if log:
                i = rng.randrange(len(log))
                if not merging.is_redacted(log[i][1]):
                    redacted.add(merge_key(log[i]))
                    log[i] = (log[i][0], merging.tombstone(log[i], salts[r]))
        else:
            exchange(r, rng.randrange(n))
    for _ in range(3):
        for r in range(n):
            for s in range(n):
                exchange(r, s)
    if any(log != logs[0] for log in logs):
        raise Broken("diverged")
    keys = {merge_key(x) for x in logs[0]}
    if any(k not in keys for k in noted - redacted):
        raise Broken("lost")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", "--histories", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--slow-hash", action="store_true", help="the real tombstone hash (slow)")
    args = ap.parse_args(argv)
    if not args.slow_hash:
        merging.slow_hash = quick_hash
    rng = random.Random(args.seed)
    counts = Counter()
    start = time.perf_counter()
    for k in range(args.histories):
        n, how = 2 + k % 2, TOPOLOGIES[k % 3]
        try:
            history(rng, n, how, counts)
        except Broken as broken:
            counts[str(broken)] += 1
    took = time.perf_counter() - start
    print(f"histories tried: {args.histories} (2 and 3 replicas; mesh, hub, folders), "
          f"merges checked: {counts['merges']}, seed {args.seed}, {took:.1f} s")
    for what in ("lost", "diverged", "asymmetric", "unsorted", "not idempotent"):
        print(f"{what}: {counts[what]}")
    return 1 if any(counts[w] for w in counts if w != "merges") else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""A stand-in summariser for `memo sleep --with` (no model, no network).

Reads one memo compression prompt on stdin (one block, or a batch when
MEMO_HANDOVER=batch) and prints the answer: for each block, the first words
of each memory it spans, or its two halves' lines joined, cut to the
prompt's byte limit. Useful to try `memo sleep --with`, to pay a backlog of
an imported history whose summaries only need to be findable, and as a
template for a script that calls a real model:

    memo import history.txt
    memo sleep --with 'python3 examples/first-words.py'
    MEMO_HANDOVER=batch memo sleep --with 'python3 examples/first-words.py'
"""

import re
import sys

prompt = sys.stdin.read()
limit = int(re.search(r"at most (\d+) bytes", prompt).group(1))
memories = {int(i): text for i, text in re.findall(r"^  #(\d+) \S+ (.*)$", prompt, re.M)}
halves = {name: text for name, text in re.findall(r"^ +#(\d+-\d+) \S+ (.*)$", prompt, re.M)}
mine = {}


def cut(text):
    data = text.encode("utf-8")[:limit]
    return data.decode("utf-8", "ignore").strip()


def line(name):
    lo, hi = map(int, name.split("-"))
    if hi - lo < 16:
        words = [" ".join(memories[i].split()[:4]) for i in range(lo, hi + 1) if i in memories]
        return cut(" | ".join(words))
    mid = (lo + hi + 1) // 2
    parts = [mine.get(f"{lo}-{mid - 1}") or halves.get(f"{lo}-{mid - 1}", ""),
             mine.get(f"{mid}-{hi}") or halves.get(f"{mid}-{hi}", "")]
    half = limit // 2 - 2
    return cut(" | ".join(cut(p)[:half] for p in parts))


order = prompt.split("<<'SUMMARY'\n", 1)[1].split("\n")
order = order[:order.index("SUMMARY")]
if order == ["<your line>"]:  # one block: its name is in the first line
    print(line(re.search(r"#(\d+-\d+) into one line", prompt).group(1)))
else:  # a batch: "LO-HI <your line>" per block, in order
    for row in order:
        name = row.split(" ", 1)[0]
        mine[name] = line(name)
        print(name, mine[name])

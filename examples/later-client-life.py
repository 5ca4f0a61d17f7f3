#!/usr/bin/env python3
"""A 40-memory life driven only by the patterns of clients written for the
later OptMem (the one whose orders say ``nap`` and whose parts end ``Not
awake yet.``), with memo in their place.

The client knows three regular expressions and nothing else of memo's
output:

- ``No memory at`` on stderr: the store is missing; it tells its person,
  who runs ``memo init`` (a person's step: the script runs it for them);
- ``Run: .+ nap (\\d+-\\d+) "<your line>"$``: a compression to do; it
  answers ``memo nap LO-HI "<its line>"``;
- ``Not awake yet\\. Run: .+ wake (\\d+) (\\d+)$``: the part is not the last;
  it asks for the next one with ``memo wake K T``.

It reads the document until a part says ``You are awake.``. Run it as

    python examples/later-client-life.py [--orders FORM] [MEMO...]

(default: ``--orders nap`` and this Python's ``-m optmem``). It prints what
it ran and saw, and exits 0 when the life reached ``You are awake.`` after
three parts, 1 where the client got stuck: at the default form (``--orders
heredoc``) the compression orders are quoted heredocs, so the nap pattern
finds none, the work stays pending and the wake the client needs is
refused (``Cannot wake: ...``), as README.md says.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile

NO_MEMORY = re.compile(r"No memory at")
NAP = re.compile(r"Run: .+ nap (\d+-\d+) \"<your line>\"$", re.MULTILINE)
PAGE = re.compile(r"Not awake yet\. Run: .+ wake (\d+) (\d+)$", re.MULTILINE)
AWAKE = "You are awake."


def live(memo: list, orders: str, home: str, out=print) -> dict:
    """Run the life in ``home`` (a folder; the store is ``home/memory``).
    Returns what happened: ``naps`` answered, ``parts`` read (lines of each
    part), ``awake`` (True when the last part said so), ``stuck`` (the
    reason when the client could go no further, else None)."""
    env = dict(os.environ, MEMORY_DIR=os.path.join(home, "memory"), MEMO_ORDERS=orders)
    env.pop("MEMO_HANDOVER", None)
    seen = {"naps": 0, "parts": [], "awake": False, "stuck": None}

    def run(*argv):
        done = subprocess.run([*memo, *argv], capture_output=True, text=True, env=env)
        out(f"$ memo {' '.join(argv)}   (exit {done.returncode})")
        for line in (done.stdout + done.stderr).splitlines()[-3:]:
            out(f"    {line}")
        return done

    def nap_all(text: str) -> None:
        while True:
            m = NAP.search(text)
            if not m:
                return
            seen["naps"] += 1
            if seen["naps"] > 1000:
                raise RuntimeError("more naps than a 40-memory store can need")
            text = run("nap", m.group(1), f"what memories {m.group(1)} hold").stdout

    first = run("wake")
    if not NO_MEMORY.search(first.stderr):
        seen["stuck"] = "a missing store did not say No memory at"
        return seen
    out("  (the client tells its person; the person runs memo init)")
    run("init")
    # 40 memories in 39 lines: the document needs summaries, in three parts
    run("config", "WAKE_LINES=39", "PART_LINES=14")
    history = os.path.join(home, "history.txt")
    with open(history, "w", encoding="utf-8") as f:
        for i in range(40):
            f.write(f"2024-05-{1 + i // 10:02d} event {i} of the project\n")
    nap_all(run("import", history).stdout + "\n" + run("nap").stdout)
    woke = run("wake")
    nap_all(woke.stdout)
    text = woke.stdout
    while True:
        if woke.returncode != 0 or text.startswith("Cannot wake"):
            seen["stuck"] = "wake was refused: compressions are pending the client saw no order for"
            return seen
        seen["parts"].append(text.rstrip("\n").split("\n"))
        page = PAGE.search(text)
        if not page:
            break
        woke = run("wake", *page.groups())
        text = woke.stdout
    seen["awake"] = AWAKE in seen["parts"][-1]
    if not seen["awake"]:
        seen["stuck"] = "the last part did not say You are awake."
    return seen


def main(argv: list) -> int:
    orders = "nap"
    if argv[:1] == ["--orders"]:
        orders, argv = argv[1], argv[2:]
    memo = argv or [sys.executable, "-m", "optmem"]
    with tempfile.TemporaryDirectory(prefix="later-client-") as home:
        seen = live(memo, orders, home)
    print(f"naps answered: {seen['naps']}; parts read: {len(seen['parts'])} "
          f"({', '.join(str(len(p)) for p in seen['parts'])} lines)")
    if seen["stuck"]:
        print(f"stuck: {seen['stuck']}")
        return 1
    ok = seen["awake"] and len(seen["parts"]) == 3 and seen["naps"] == 40 - 2
    print("awake after three parts" if ok else "not the life expected")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

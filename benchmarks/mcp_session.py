"""An MCP session on the 1,000 real memories, and MCP writers racing the CLI.

Run from a checkout with the ``mcp`` extra installed (Python 3.10+):

    python benchmarks/mcp_session.py [--per 100]

1. Imports the first 1,000 lines of tests/data/click-history.txt into a new
   store, starts ``memo mcp`` with the SDK's stdio client, lists the tools,
   answers every compression through ``sleep`` using only the orders in the
   results (a stand-in summary: the prompt's body lines cut to 280 bytes),
   notes one memory, and follows wake part by part to ``You are awake.``.
2. Two MCP sessions and one CLI process note ``--per`` memories each at the
   same time; prints the calls and whether the ids are dense (0..N-1, each
   once).
Prints what each step returned (abridged) and the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

REPO = Path(__file__).resolve().parents[1]
ORDER = re.compile(r"^Run: (\w+) (\{.*\})$", re.M)


def params(store):
    return StdioServerParameters(command=sys.executable, args=["-m", "optmem", "mcp"],
                                 env={"MEMORY_DIR": str(store), "PYTHONPATH": str(REPO)})


def summary(text):
    body = [line.strip() for line in text.splitlines() if line.startswith("  ") and line.strip()]
    return " | ".join(body).encode()[:280].decode("utf-8", "ignore").strip()


async def answer(s, text, count):
    while True:
        todo = [json.loads(m.group(2)) for m in ORDER.finditer(text)
                if m.group(1) == "sleep" and "summary" in json.loads(m.group(2))]
        if not todo:
            return text
        args = dict(todo[0], summary=summary(text))
        text = (await s.call_tool("sleep", args)).content[0].text
        count[0] += 1


def short(text, n=6):
    lines = text.splitlines()
    return "\n".join(lines[:n] + ([f"  ... ({len(lines) - n} more lines)"] if len(lines) > n else []))


async def session(store):
    async with stdio_client(params(store)) as (r, w):
        async with ClientSession(r, w) as s:
            await s.initialize()
            tools = (await s.list_tools()).tools
            print("tools:", ", ".join(t.name for t in tools))
            count = [0]
            first = (await s.call_tool("sleep", {})).content[0].text
            print("sleep ->\n" + short(first, 12))
            await answer(s, first, count)
            called = await s.call_tool("note", {"text": "MCP session on the 1,000 real memories"})
            note = called.content[0].text
            print("note ->\n" + short(note, 14))
            last = await answer(s, note, count)
            print("last sleep ->", last)
            print(f"compressions answered through sleep: {count[0]}")
            parts, args = [], {}
            while True:
                text = (await s.call_tool("wake", args)).content[0].text
                parts.append(text)
                if "You are awake." in text.splitlines():
                    break
                args = [json.loads(m.group(2)) for m in ORDER.finditer(text) if m.group(1) == "wake"][0]
            print(f"wake: {len(parts)} part(s); part 1 starts:\n" + short(parts[0], 3))
            print("last part ends:\n" + "\n".join(parts[-1].splitlines()[-2:]))


async def writer(store, tag, per):
    async with stdio_client(params(store)) as (r, w):
        async with ClientSession(r, w) as s:
            await s.initialize()
            ids = []
            for i in range(per):
                text = (await s.call_tool("note", {"text": f"{tag} note {i}"})).content[0].text
                ids.append(int(re.match(r"Saved as #(\d+)\.", text).group(1)))
            return ids


async def race(store, per):
    cli = subprocess.Popen([sys.executable, "-c",
                            "from optmem.cli.app import cli\n"
                            f"for i in range({per}):\n"
                            "    cli.main(['note', f'cli note {i}'], standalone_mode=False)\n"],
                           cwd=REPO, env=dict(os.environ, MEMORY_DIR=str(store), PYTHONPATH=str(REPO)),
                           stdout=subprocess.PIPE, text=True)
    a, b = await asyncio.gather(writer(store, "one", per), writer(store, "two", per))
    out, _ = cli.communicate()
    c = [int(x) for x in re.findall(r"Saved as #(\d+)\.", out)]
    return a, b, c


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--per", type=int, default=100)
    per = ap.parse_args().per
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "mem"
        env = dict(os.environ, MEMORY_DIR=str(store), PYTHONPATH=str(REPO))
        memo = [sys.executable, "-m", "optmem"]
        subprocess.run(memo + ["init"], env=env, check=True, capture_output=True)
        lines = (REPO / "tests/data/click-history.txt").read_text(encoding="utf-8").splitlines()[:1000]
        src = Path(tmp) / "real.txt"
        src.write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(subprocess.run(memo + ["import", str(src)], env=env, capture_output=True,
                             text=True).stdout.strip())
        asyncio.run(session(store))
        race_store = Path(tmp) / "race"
        subprocess.run(memo + ["init"], env=dict(env, MEMORY_DIR=str(race_store)), check=True,
                       capture_output=True)
        t0 = time.monotonic()
        a, b, c = asyncio.run(race(race_store, per))
        took = time.monotonic() - t0
        ids = sorted(a + b + c)
        print(f"race: 2 MCP sessions x {per} note calls + CLI x {per} notes = {len(ids)} "
              f"writes in {took:.1f} s; ids dense 0..{len(ids) - 1}: {ids == list(range(len(ids)))}; "
              f"duplicates: {len(ids) - len(set(ids))}")


if __name__ == "__main__":
    main()

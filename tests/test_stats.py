"""``memo stats``: the JSON and the text agree with the files of the store,
count pending work, and show the shape of the seed table.
"""

from __future__ import annotations

import datetime
import json
import os
import re
from pathlib import Path

from conftest import history
from helpers import LOG, TREE, id_lines, log_bytes, ok, wake_all


def popcount(n: int) -> int:
    return bin(n).count("1")


def check_stats_json(root: Path, info: dict, lines: list, wake_lines: int = 256):
    T = len(log_bytes(root)) // LOG
    tree_files = list((root / "TREE").iterdir())
    tree = sum(p.stat().st_size for p in tree_files)
    built = sum(min(p.stat().st_size // TREE, T // int(p.name)) for p in tree_files)
    assert info["memories"] == T
    assert info["summaries"] == built
    assert info["pending"] == T - popcount(T) - built
    assert info["bytes"]["log"] == os.path.getsize(root / "LOG.txt")
    assert info["bytes"]["tree"] == tree
    assert info["bytes"]["total"] == os.path.getsize(root / "LOG.txt") + tree
    assert info["first_date"] == (lines[0][:10] if T else None)
    assert info["last_date"] == (lines[T - 1][:10] if T else None)
    shape = {int(size): n for size, n in info["wake_shape"]}
    assert sum(shape.values()) == min(T, max(wake_lines, popcount(T)))
    assert sum(size * n for size, n in shape.items()) == T
    assert all(size & (size - 1) == 0 for size in shape)


def test_stats_json_matches_the_files(memo, store300):
    lines = history(300)
    [info] = json.loads(ok(memo("stats", "--json")))  # a list: one store read
    check_stats_json(store300, info, lines)
    assert info["pending"] == 0
    assert info["summaries"] == 300 - popcount(300)
    # the shape is today's wake document
    counts = {}
    for lo, hi, _ in id_lines(wake_all(memo)):
        counts[hi - lo] = counts.get(hi - lo, 0) + 1
    assert {int(s): n for s, n in info["wake_shape"]} == counts


def test_stats_counts_pending_work(memo, store300):
    ok(memo("note", "memory three hundred"))
    ok(memo("note", "memory three hundred and one"))
    today = datetime.date.today().isoformat()
    lines = history(300) + [f"{today} memory three hundred",
                            f"{today} memory three hundred and one"]
    [info] = json.loads(ok(memo("stats", "--json")))  # a list: one store read
    check_stats_json(store300, info, lines)
    assert info["memories"] == 302
    assert info["pending"] == 1
    text = ok(memo("stats"))
    assert "302" in text
    assert str(info["bytes"]["total"]) in text
    assert lines[0][:10] in text and lines[-1][:10] in text
    assert text.rstrip("\n").splitlines()[-1] == "Run: memo sleep"


def test_stats_on_a_read_only_store_orders_no_sleep(memo, store300, monkeypatch):
    """Pending work on a store read-only for this user: stats says so
    instead of ordering a sleep that would be refused."""
    ok(memo("note", "memory three hundred"))
    ok(memo("note", "memory three hundred and one"))
    from optmem.store.memory import Store
    monkeypatch.setattr(Store, "writable", lambda self: False)
    last = ok(memo("stats")).rstrip("\n").splitlines()[-1]
    assert last.startswith("1 compression is pending, but this store is read-only")
    assert "Run: memo sleep" not in last


def test_stats_text_shows_every_number(memo, store300):
    [info] = json.loads(ok(memo("stats", "--json")))  # a list: one store read
    text = ok(memo("stats"))
    for value in (info["memories"], info["summaries"], info["pending"],
                  info["bytes"]["total"], info["first_date"], info["last_date"]):
        assert str(value) in text, value
    for size, n in info["wake_shape"]:
        assert re.search(rf"^\s*{size}\b.*\b{n}\b", text, re.MULTILINE), (size, n)
    assert "Run: memo sleep" not in text


def test_stats_shape_of_the_seed_table(memo, inited, tmp_path):
    """docs/blocks.md: T=10000, budget 256 gives 12x256, 27x128, 27x64, 27x32,
    28x16, 27x8, 27x4, 27x2 and 54 memories verbatim."""
    path = tmp_path / "big.txt"
    path.write_text("".join(f"2024-01-01 memory number {i}\n" for i in range(10000)))
    ok(memo("import", path))
    [info] = json.loads(ok(memo("stats", "--json")))  # a list: one store read
    shape = [[int(s), n] for s, n in info["wake_shape"]]
    assert shape == [[256, 12], [128, 27], [64, 27], [32, 27], [16, 28], [8, 27], [4, 27],
                     [2, 27], [1, 54]]
    assert info["pending"] == 10000 - popcount(10000)
    assert info["summaries"] == 0
    assert info["bytes"]["log"] == 10000 * LOG
    # The text counts the wake document's lines as WAKE_LINES does: one per block.
    text = ok(memo("stats"))
    assert ("wake         256 lines (WAKE_LINES=256), oldest first (#lo-hi summarises "
            "memories lo..hi, #id is one memory verbatim):") in text
    # memo's own facts, which the one-store wake leaves to stats and the hook
    assert "memories     10000 (#0-9999, 2024-01-01 to 2024-01-01)" in text


def test_stats_of_an_empty_store(memo, inited):
    [info] = json.loads(ok(memo("stats", "--json")))  # a list: one store read
    assert info["memories"] == 0 and info["summaries"] == 0 and info["pending"] == 0
    assert info["first_date"] is None and info["last_date"] is None
    assert info["bytes"]["total"] == 0
    assert [tuple(x) for x in info["wake_shape"]] == []
    assert "0" in ok(memo("stats"))

"""A life on real input: 1,000 lines of click's git history, every
compression answered by a deterministic stand-in, then wake, recall,
forget and rebuild (in-process, for speed)."""

from __future__ import annotations

import re
import shutil

import pytest
from click.testing import CliRunner

from conftest import answer_all, data_file, tree_records
from helpers import AWAKE, bits
from optmem.cli.app import cli

T = 1000


@pytest.fixture(scope="module")
def history():
    path = data_file("click-history.txt")
    lines = path.read_text(encoding="utf-8").splitlines()[:T]
    assert len(lines) == T
    return [tuple(line.split(" ", 1)) for line in lines]


@pytest.fixture(scope="module")
def built_life(tmp_path_factory, history):
    """The store after import and every compression, built once per module."""
    root = tmp_path_factory.mktemp("life")
    store = root / "mem"
    runner = CliRunner()

    def memo(*args, input=None):
        result = runner.invoke(cli, [str(a) for a in args], input=input)
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        return result

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MEMORY_DIR", str(store))
        assert memo("init").exit_code == 0
        src = root / "history.txt"
        src.write_text("".join(f"{d} {t}\n" for d, t in history), encoding="utf-8")
        result = memo("import", src)
        assert result.exit_code == 0, result.stderr
        assert result.stdout.splitlines()[0] == f"Imported {T} memories, #0 to #{T - 1}."
        assert re.search(rf"\b{T - bits(T)} compressions", result.stdout)
        done = answer_all(memo)
        assert done == T - bits(T)
    return store


@pytest.fixture
def life(built_life, memory_dir):
    """A private copy of the built store at this test's MEMORY_DIR."""
    shutil.copytree(built_life, memory_dir)
    return memory_dir


def wake_all(memo):
    parts = []
    args = ["wake"]
    while True:
        result = memo(*args)
        assert result.exit_code == 0, result.stderr
        assert result.stderr == ""
        parts.append(result.stdout)
        lines = result.stdout.rstrip("\n").splitlines()
        if AWAKE in lines:  # a hand-over of pending work may follow it
            return parts
        last = lines[-1]
        assert last.startswith("Not awake yet. Run: memo wake "), last
        args = last[len("Not awake yet. Run: memo "):].split()
        assert len(parts) < 100


def test_life(memo, life, history):
    # Every complete block is stored: T - popcount(T) summaries.
    levels = tree_records(life)
    assert sum(len(v) for v in levels.values()) == T - bits(T)
    assert {s: len(v) for s, v in levels.items()} == {s: T // s for s in
                                                     [2, 4, 8, 16, 32, 64, 128, 256, 512]}
    assert len((life / "LOG.txt").read_bytes()) == T * 320

    parts = wake_all(memo)
    document = "".join(parts)
    assert document.endswith(AWAKE + "\n")
    assert document.count(AWAKE) == 1
    ids = []
    for line in document.splitlines():
        m = re.match(r"#(\d+)(?:-(\d+))? ", line)
        if m:
            lo = int(m.group(1))
            hi = int(m.group(2) or lo)
            ids.append((lo, hi))
    # The document tiles the log: consecutive, from #0 to #999.
    assert ids[0][0] == 0 and ids[-1][1] == T - 1
    for (a, b), (c, d) in zip(ids, ids[1:]):
        assert c == b + 1, f"gap or overlap between #{a}-{b} and #{c}-{d}"
    # 1000 memories, WAKE_LINES 256: popcount(1000)=6 <= 256 < 1000, so
    # exactly 256 lines, one per block, as both OptMem suites count them.
    assert len(ids) == 256
    # Verbatim lines are the log's own lines; summary lines are ours.
    summaries = {}
    for size, records in levels.items():
        for k, record in enumerate(records):
            summaries[(k * size, (k + 1) * size - 1)] = record.rstrip(b" \n").decode()
    for line in document.splitlines():
        m = re.match(r"#(\d+)(?:-(\d+))? (\S+) (.*)$", line)
        if not m:
            continue
        lo = int(m.group(1))
        if m.group(2) is None:
            assert (m.group(3), m.group(4)) == history[lo]
        else:
            hi = int(m.group(2))
            assert m.group(4) == summaries[(lo, hi)]
            first, last = history[lo][0], history[hi][0]
            assert m.group(3) in ({first} if first == last else {f"{first}..{last}"})

    # recall by word, by id, by date: expected answers computed from the file.
    for pattern in ("readme", "^#7 ", "2014-05"):
        rx = re.compile(pattern, re.IGNORECASE)
        expected = [f"#{i} {d} {t}" for i, (d, t) in enumerate(history)
                    if rx.search(f"#{i} {d} {t}")]
        assert expected, pattern
        result = memo("recall", pattern)
        assert result.exit_code == 0 and result.stderr == ""
        lines = result.stdout.splitlines()
        shown, trailer = lines[:-1], lines[-1]
        assert shown == expected[-len(shown):]
        assert str(len(expected)) in trailer
        if pattern == "^#7 ":
            assert shown == [f"#7 {history[7][0]} {history[7][1]}"]


def test_forget_and_rebuild_same_bytes(memo, life):
    before = {p.name: p.read_bytes() for p in (life / "TREE").iterdir()}
    log = (life / "LOG.txt").read_bytes()
    result = memo("forget", "256-511")
    assert result.exit_code == 0, result.stderr
    # Level 256 keeps 0-255 (256-511 and 512-767 go), level 512 loses 0-511: 3.
    assert re.search(r"\b3\b", result.stdout)
    assert result.stdout.rstrip("\n").endswith("Run: memo sleep")
    assert len((life / "TREE" / "256").read_bytes()) == 288
    assert (life / "TREE" / "512").read_bytes() == b""
    for size in (2, 4, 8, 16, 32, 64, 128):
        assert (life / "TREE" / str(size)).read_bytes() == before[str(size)]
    # The document needs none of them: the last part hands them over.
    document, prompt = wake_all(memo)[-1].split(AWAKE + "\n\n")
    assert "Run: memo sleep 256-511 - <<'SUMMARY'" in prompt.splitlines()
    assert answer_all(memo) == 3
    assert {p.name: p.read_bytes() for p in (life / "TREE").iterdir()} == before
    assert (life / "LOG.txt").read_bytes() == log
    assert wake_all(memo)[-1].endswith(AWAKE + "\n")

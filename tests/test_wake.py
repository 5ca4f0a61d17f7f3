"""``memo wake``: ``--max-bytes`` picks the most detailed document that fits
and ends awake, or says in one line why it cannot; a wake waiting for a
repair still shows the memory.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import answer_all, set_config, write_import
from helpers import (
    AWAKE,
    LOG,
    answer_with,
    id_lines,
    import_texts,
    imported,
    is_block,
    last_line,
    ok,
    poke,
    rec,
    refused,
    srec,
)
from optmem.engine import pager


def wake_max(memo, n):
    return memo("wake", "--max-bytes", str(n))


@pytest.mark.parametrize("n", [2500, 3000, 5000, 10000, 20000, 100000])
def test_wake_max_bytes_fits_and_ends_awake(memo, store300, n):
    result = wake_max(memo, n)
    out = ok(result)
    assert len(result.stdout_bytes) <= n
    assert out.endswith(AWAKE + "\n")
    assert "Run: memo sleep" not in out
    for lo, hi, _ in id_lines(out.splitlines()):
        assert is_block(lo, hi)


def test_wake_max_bytes_is_the_whole_document_when_it_fits(memo, store300):
    ok(memo("config", "PART_CHARS=1000000"))
    doc = memo("wake")
    ok(doc)
    result = wake_max(memo, 1000000)
    assert ok(result) == doc.stdout


@pytest.mark.parametrize("wake_lines", [1, 5, 40, 256])
def test_wake_max_bytes_takes_a_document_of_exactly_n_bytes(memo, store300, wake_lines):
    """N is the size in all, final newline included: the document that is
    exactly N bytes fits."""
    ok(memo("config", f"WAKE_LINES={wake_lines}", "PART_CHARS=1000000",
            "PART_LINES=1000000"))
    doc = memo("wake")
    ok(doc)
    n = len(doc.stdout_bytes)
    result = wake_max(memo, n)
    assert result.exit_code == 0, (n, result.stderr)
    assert result.stdout_bytes == doc.stdout_bytes


def test_a_larger_max_bytes_never_gives_fewer_lines(memo, store300):
    previous, seen_ok = 0, False
    for n in range(1000, 25000, 97):
        result = wake_max(memo, n)
        if result.exit_code:
            assert not seen_ok, f"--max-bytes {n} refused after a smaller N worked"
            refused(result)
            continue
        seen_ok = True
        assert len(result.stdout_bytes) <= n
        count = len(result.stdout.splitlines())
        assert count >= previous, n
        previous = count
    assert seen_ok


def test_wake_max_bytes_picks_the_most_detailed_document_that_fits(memo, inited, tmp_path):
    """Summary lengths vary by level, so a document of more lines can be
    smaller than one of fewer. For every line budget b up to WAKE_LINES,
    the b-line document (as ``memo wake`` prints it) fits in its own size
    plus one byte, so --max-bytes of that size gives at least as many lines.
    (The exact-size case is the test above.)"""
    imported(memo, tmp_path, 300)
    answer_with(memo, lambda lo, hi: f"S{hi - lo} " + ("x" * 270 if hi - lo == 256 else "x"))
    worse = []
    for b in range(1, 41):
        ok(memo("config", f"WAKE_LINES={b}", "PART_CHARS=1000000", "PART_LINES=1000000"))
        doc = memo("wake")
        ok(doc)
        ok(memo("config", "WAKE_LINES=40"))
        n = len(doc.stdout_bytes) + 1
        result = wake_max(memo, n)
        got = len(result.stdout.splitlines()) if result.exit_code == 0 else 0
        if got < len(doc.stdout.splitlines()):
            worse.append((b, n, len(doc.stdout.splitlines()), got,
                          result.stderr.strip()[:60]))
    assert worse == [], ("(budget, --max-bytes, lines that fit, lines given, error)", worse)


def test_wake_max_bytes_with_pending_work_is_not_refused(memo, store300):
    ok(memo("note", "memory three hundred"))
    ok(memo("note", "memory three hundred and one"))
    plain = ok(memo("wake"))  # plain wake hands the work over after the document
    assert AWAKE + "\n\nCompress memories #300-301 " in plain
    result = wake_max(memo, 5000)
    out = ok(result)
    assert len(result.stdout_bytes) <= 5000
    lines = out.splitlines()
    # As in plain wake: the document ends ``You are awake.``, the hand-over
    # follows it after a blank line, its order last.
    assert lines[-4:-2] == [AWAKE, ""] and lines[-1] == "Run: memo sleep"
    assert lines.index("Run: memo sleep") == len(lines) - 1


@pytest.mark.parametrize("n", [4000, 8000, 12000])
def test_wake_max_bytes_after_a_fresh_import_is_not_refused(memo, pending300, n):
    """All 296 compressions pending (a bootstrap import, then a startup
    hook): wake --max-bytes still prints a document, never refused."""
    result = wake_max(memo, n)
    out = ok(result)
    assert len(result.stdout_bytes) <= n
    lines = out.splitlines()
    assert lines[-4:-2] == [AWAKE, ""] and lines[-1] == "Run: memo sleep"
    # every id it shows, summarised or not, opens with zoom
    ids = id_lines(lines)
    assert ids
    for lo, hi, _ in ids:
        assert is_block(lo, hi) and hi <= 300
        ok(memo("zoom", str(lo) if hi - lo == 1 else f"{lo}-{hi - 1}"))


def test_wake_max_bytes_on_a_big_fresh_import_is_not_refused(memo, inited, tmp_path):
    path = tmp_path / "big.txt"
    path.write_text("".join(f"2024-01-01 memory number {i}\n" for i in range(10000)))
    ok(memo("import", path))
    result = wake_max(memo, 100000)
    out = ok(result)
    assert len(result.stdout_bytes) <= 100000
    assert out.splitlines()[-4] == AWAKE and out.splitlines()[-1] == "Run: memo sleep"


def test_wake_max_bytes_on_an_empty_store(memo, inited):
    result = wake_max(memo, 500)
    out = ok(result)
    assert out.endswith(AWAKE + "\n") and len(result.stdout_bytes) <= 500


@pytest.mark.parametrize("n", [0, 1, 10, 100, 500])
def test_wake_max_bytes_too_small_is_one_clear_line(memo, store300, n):
    line = refused(wake_max(memo, n))
    assert "--max-bytes" in line and str(n) in line
    # a suggested size, if any, is larger and works
    for m in re.findall(r"--max-bytes (\d+)", line):
        if int(m) != n:
            assert int(m) > n
            ok(wake_max(memo, m))


    for n in (100, 4000):
        result = wake_max(memo, n)
        if result.exit_code == 0:
            continue
        line = refused(result)
        for m in re.findall(r"--max-bytes (\d+)", line):
            if int(m) != n:
                assert int(m) > n, line
                assert wake_max(memo, m).exit_code == 0, line


@pytest.mark.parametrize("n", ["abc", "-5", "1e3", "4k"])
def test_wake_max_bytes_not_a_number(memo, store300, n):
    result = wake_max(memo, n)
    assert result.exit_code in (1, 2)
    assert result.stdout == ""
    assert "max-bytes" in result.stderr
    assert "Traceback" not in result.stderr


def test_wake_that_needs_work_waiting_for_a_repair_still_shows_the_memory(memo, inited,
                                                                          tmp_path):
    write_import(tmp_path / "many.txt", [f"2024-01-01 entry {k}" for k in range(40)])
    ok(memo("import", tmp_path / "many.txt"))
    set_config(inited, WAKE_LINES=4)
    poke(inited, LOG + 20, b"\x01")
    out = ok(memo("wake"))  # not "Cannot wake": nothing an agent does unblocks it
    doc, sep, handover = out.partition(f"\n{AWAKE}\n\n")
    assert sep and "#39 2024-01-01 entry 39" in doc
    assert handover.startswith("Compression of #0-1 waits")


def test_wake_empty_memory(memo, inited):
    result = memo("wake")
    assert result.exit_code == 0 and result.stderr == ""
    assert result.stdout.endswith(AWAKE + "\n")


def test_wake_refuses_only_when_the_document_needs_a_summary(memo, inited):
    memo("note", "one")
    memo("note", "two")
    # Two memories fit WAKE_LINES verbatim: wake prints them, then hands
    # the pending compression over after `You are awake.`.
    handed = memo("wake")
    assert handed.exit_code == 0 and handed.stderr == ""
    document, prompt = handed.stdout.split(AWAKE + "\n\n")
    assert document.splitlines()[-1].startswith("#1 ")
    assert prompt.splitlines()[0] == "Compress memories #0-1 into one line of at most 280 bytes."
    set_config(inited, WAKE_LINES=1)  # now the document is the one line #0-1
    result = memo("wake")
    assert (result.exit_code, result.stderr) == (1, "")
    assert result.stdout.startswith("Cannot wake: 1 compression pending. Do it, then run "
                                    "memo wake again.\n\nCompress memories #0-1 ")
    assert "Run: memo sleep 0-1 - <<'SUMMARY'" in result.stdout.splitlines()
    assert AWAKE not in result.stdout
    # Block 0-1 is not inside [0, 1): the view at T=1 is ready.
    early = memo("wake", "1", "1")
    assert early.exit_code == 0, early.stderr
    assert AWAKE + "\n\nCompress memories #0-1 " in early.stdout  # the hand-over
    assert any(line.startswith("#0 ") and line.endswith(" one") for line in early.stdout.splitlines())
    memo("sleep", "0-1", "one, two")
    awake = memo("wake")
    assert awake.exit_code == 0 and awake.stdout.endswith(AWAKE + "\n")


def follow_wake(memo, first_args=("wake",)):
    """Run wake and every ``Run: memo wake`` order; return the parts."""
    parts = []
    args = list(first_args)
    while True:
        result = memo(*args)
        assert result.exit_code == 0, result.stderr
        assert result.stderr == ""
        parts.append(result.stdout)
        last = last_line(result.stdout)
        if last == AWAKE:
            return parts
        m = re.fullmatch(r"Not awake yet\. Run: (memo wake \d+ \d+)", last)
        assert m, f"part does not end with an order: {last!r}"
        args = m.group(1).split()[1:]
        assert len(parts) < 1000


def check_parts(parts, part_lines, part_chars):
    n = len(parts)
    for k, part in enumerate(parts, 1):
        lines = part.rstrip("\n").split("\n")
        # PART_LINES counts the document (header and closing line are extra)
        assert len(lines) - (2 if n > 1 else 1) <= part_lines, (k, len(lines))
        assert len(part.encode("utf-8")) <= part_chars, (k, len(part.encode()))
        if n > 1:
            assert re.search(rf"\b{k}\b.*\b{n}\b", lines[0]), lines[0]
        if k < n:
            assert lines[-1].startswith("Not awake yet. Run: memo wake ")
        else:
            assert lines[-1] == AWAKE


def memory_lines(parts):
    return [line for part in parts for line in part.splitlines() if re.match(r"#\d", line)]


def test_wake_in_parts_by_lines(memo, inited, tmp_path):
    texts = [f"step {i} of the plan" for i in range(100)]
    import_texts(memo, tmp_path, texts)
    assert answer_all(memo) == 100 - 3  # popcount(100) = 3
    set_config(inited, PART_LINES=20)
    parts = follow_wake(memo)
    check_parts(parts, 20, 20000)
    # 100 memory lines (T <= WAKE_LINES: all verbatim) in parts of 20
    # lines: 5 parts, as the later OptMem pages them.
    assert len(parts) == 5
    assert memory_lines(parts) == [f"#{i} 2024-05-01 {t}" for i, t in enumerate(texts)]
    assert parts[0] == memo("wake").stdout
    assert parts[-1].count(AWAKE) == 1


def test_wake_in_parts_by_bytes(memo, inited, tmp_path):
    texts = [f"{i:03d} " + "long entry " * 22 for i in range(60)]  # ~246 bytes each
    import_texts(memo, tmp_path, [t.strip() for t in texts])
    answer_all(memo)
    set_config(inited, PART_CHARS=2048, PART_LINES=500)
    parts = follow_wake(memo)
    check_parts(parts, 500, 2048)
    assert len(parts) >= 60 * 260 // 2048
    assert len(memory_lines(parts)) == 60


def test_wake_part_beyond_and_t_beyond(memo, inited, tmp_path):
    import_texts(memo, tmp_path, [f"thing {i}" for i in range(101)])
    answer_all(memo)
    set_config(inited, PART_LINES=20)
    parts = follow_wake(memo)
    n = len(parts)
    assert n > 2
    # A memory noted mid-read (making block 100-101 pending) shifts nothing.
    memo("note", "noted while reading")
    again = memo("wake", "2", "101")
    assert (again.exit_code, again.stdout) == (0, parts[1])
    missing = memo("wake", str(n + 1), "101")
    assert missing.exit_code == 1
    assert missing.stdout == ""
    assert "memo wake" in missing.stderr
    beyond = memo("wake", "1", "500")
    assert beyond.exit_code == 1
    assert beyond.stdout == ""
    assert "memo wake" in beyond.stderr
    zero = memo("wake", "0", "101")
    assert zero.exit_code == 1 and zero.stdout == ""
    word = memo("wake", "two")
    assert word.exit_code in (1, 2) and word.stdout == ""


def test_one_part_has_no_header(memo, inited):
    memo("note", "only one")
    result = memo("wake")
    lines = result.stdout.splitlines()
    assert lines[-1] == AWAKE
    assert not any(re.search(r"\bpart\b", line, re.IGNORECASE) for line in lines)
    assert any(line.endswith(" only one") and line.startswith("#0 ") for line in lines)


LINE = st.builds(lambda n, ch: ch * n, st.integers(1, 150), st.sampled_from(["a", "é", "☕", "😀"]))


@settings(max_examples=200, deadline=None)
@given(st.lists(LINE, max_size=120), st.integers(10, 40), st.integers(2048, 6000),
       st.integers(0, 10 ** 12))
def test_paginate_respects_limits_and_keeps_every_line(lines, part_lines, part_chars, T):
    intro = "Your memory: intro line."
    parts = pager.paginate(lines, intro, T, part_lines, part_chars)
    n = len(parts)
    assert n >= 1
    body = []
    for k, part in enumerate(parts, 1):
        out = part + "\n"  # as echoed
        got = part.split("\n")
        assert len(got) - (2 if n > 1 else 1) <= part_lines  # the document's lines
        assert len(out.encode("utf-8")) <= part_chars
        if k < n:
            assert got[-1] == f"Not awake yet. Run: memo wake {k + 1} {T}"
        else:
            assert got[-1] == AWAKE
        inner = got[1:-1] if n > 1 else got[:-1]
        if n > 1:
            assert re.search(rf"\b{k}\b.*\b{n}\b", got[0])
        body += inner
    assert body == [intro] + lines


def test_wake_max_bytes_keeps_a_tiling_of_the_whole_log(memo, inited, tmp_path):
    import_texts(memo, tmp_path, [f"entry {i} " + "words " * 10 for i in range(200)])
    answer_all(memo)
    for limit in (4000, 8000, 20000):
        result = memo("wake", "--max-bytes", str(limit))
        assert result.exit_code == 0, result.stderr
        assert len(result.stdout.encode("utf-8")) <= limit
        assert result.stdout.endswith(AWAKE + "\n")
        ids = [m.groups() for m in map(re.compile(r"#(\d+)(?:-(\d+))? ").match,
                                       result.stdout.splitlines()) if m]
        # Still a tiling of the whole log, oldest first.
        assert int(ids[0][0]) == 0 and int(ids[-1][1] or ids[-1][0]) == 199


def test_wake_max_bytes_is_never_refused_for_pending_work(memo, inited, tmp_path):
    # 1000 memories just imported, nothing compressed yet: a startup hook
    # must still get one part within its byte limit (docs/protocol.md).
    import_texts(memo, tmp_path, [f"entry {i} " + "words " * 10 for i in range(1000)])
    result = memo("wake", "--max-bytes", "8000")
    assert result.exit_code == 0, result.stderr
    assert len(result.stdout.encode("utf-8")) <= 8000
    lines = result.stdout.splitlines()
    assert lines[-4:-2] == [AWAKE, ""] and lines[-1] == "Run: memo sleep"


@pytest.mark.parametrize("args", [("x",), ("1", "abc"), ("１",)])
def test_a_part_or_t_that_is_no_number_orders_the_wake_from_its_first_part(memo, inited, args):
    memo("note", "one memory")
    got = memo("wake", *args)
    assert got.exit_code == 1
    assert got.stderr.strip().endswith("must be a whole number in digits, not "
                                       f"{args[-1]!r}. Run: memo wake"), got.stderr
    assert memo("wake").exit_code == 0  # the order runs as printed


# -- the reference's lines: WAKE_LINES block lines, memo's facts elsewhere ----

def _write_store(root, T: int) -> None:
    """A store of ``T`` memories with every summary built, written out by
    hand (no compression loop: a 10,000-memory store in a moment)."""
    import datetime
    root.mkdir(mode=0o700, exist_ok=True)
    (root / "TREE").mkdir(mode=0o700, exist_ok=True)
    day = datetime.date(2024, 1, 1)
    (root / "LOG.txt").write_bytes(b"".join(
        rec(i, (day + datetime.timedelta(days=i // 7)).isoformat(), f"memory {i} of the life")
        for i in range(T)))
    size = 2
    while size <= T:
        (root / "TREE" / str(size)).write_bytes(b"".join(
            srec(f"summary of {lo}-{lo + size - 1}") for lo in range(0, T - T % size, size)))
        size *= 2


def _blocks_of(parts: list) -> list:
    """The ``(lo, hi)`` (half-open) of every ``#`` line of the parts, in order."""
    out = []
    for part in parts:
        for line in part.splitlines():
            m = re.match(r"#(\d+)(?:-(\d+))? ", line)
            if m:
                out.append((int(m.group(1)), int(m.group(2) or m.group(1)) + 1))
    return out


def _vector_sample() -> list:
    """``(T, budget, runs)`` of the reference tilings in tests/data for a
    sample of stores up to 10,000 memories: every budget of a few T where
    the tiling pages or is cut by the budget."""
    import json

    from conftest import data_file
    wanted = {37, 300, 519, 1023, 1025, 4096, 10000}
    out = []
    for line in data_file("cover_vectors.jsonl").read_text().splitlines():
        case = json.loads(line)
        if case["T"] in wanted:
            out.append((case["T"], case["budget"], case["runs"]))
    assert {T for T, _, _ in out} == wanted
    return out


def test_a_paged_wake_is_the_tiling_block_for_block(memo, memory_dir):
    """For each sampled reference tiling: the real wake, paged and followed
    part by part, shows exactly ``blocks.cover(T, WAKE_LINES)`` (itself the
    reference's tiling, checked against the same file in test_blocks), one
    line per block, each part headed as the seed heads it; nothing of memo's
    own, so a client counting ``#`` lines counts ``WAKE_LINES``."""
    from optmem import blocks
    by_T = {}
    for T, budget, runs in _vector_sample():
        by_T.setdefault(T, []).append((budget, runs))
    checked = 0
    for T, cases in sorted(by_T.items()):
        _write_store(memory_dir, T)
        for budget, runs in cases:
            tiling = blocks.cover(T, budget)
            assert [[s, n] for s, n in blocks.cover_runs(T, budget)] == runs
            part_lines = max(1, len(tiling) // 3)  # three parts or so: the wake pages
            set_config(memory_dir, WAKE_LINES=budget, PART_LINES=part_lines)
            parts = follow_wake(memo)
            assert _blocks_of(parts) == tiling, (T, budget)
            assert len(parts) == -(-len(tiling) // part_lines)
            for k, part in enumerate(parts, 1):
                lines = part.rstrip("\n").split("\n")
                body = lines[1:-1] if len(parts) > 1 else lines[:-1]
                assert all(line.startswith("#") for line in body), (T, budget, k)
                if len(parts) > 1:
                    assert lines[0] == f"Your memory, part {k} of {len(parts)}, oldest first."
            checked += 1
    assert checked == len(_vector_sample())


@pytest.mark.parametrize("T, wake_lines", [(519, 256), (300, 40), (5, 8), (40, 1)])
def test_a_one_part_wake_is_at_most_wake_lines_and_the_closing_line(memo, memory_dir, T,
                                                                     wake_lines):
    """The later OptMem's count: ``WAKE_LINES`` lines in all (or
    ``popcount(T)`` when the budget is below it, the fewest a tiling has),
    and ``You are awake.`` the one line more."""
    from optmem import blocks
    _write_store(memory_dir, T)
    set_config(memory_dir, WAKE_LINES=wake_lines, PART_LINES=10 ** 6, PART_CHARS=10 ** 9)
    lines = ok(memo("wake")).splitlines()
    assert lines[-1] == AWAKE
    assert all(line.startswith("#") for line in lines[:-1])
    assert _blocks_of(["\n".join(lines[:-1])]) == blocks.cover(T, wake_lines)
    assert len(lines) == min(T, max(wake_lines, blocks.popcount(T))) + 1


def test_memos_own_facts_stand_where_memos_own_formats_are_read(memo, memory_dir, monkeypatch):
    """The counts, ids, dates and what a ``#lo-hi`` line is: first in the
    session-start hook's text and over MCP (its wake and its resource), in
    ``memo stats``; never in the CLI's one-store wake."""
    from optmem.engine.wake import wake_intro
    from optmem.harness import claude, inject
    from optmem.store.memory import Store
    _write_store(memory_dir, 519)
    set_config(memory_dir, WAKE_LINES=40)
    store = Store.open(str(memory_dir))
    intro = wake_intro(store, 519)
    store.close()
    assert intro.startswith("Your memory: 519 memories (#0-518), 2024-01-01 to ")
    assert "#lo-hi lines summarise memories lo..hi" in intro
    cli = ok(memo("wake"))
    assert intro not in cli and not cli.startswith("Your memory")
    hook = inject.context(claude, "", str(memory_dir), {"HOME": str(memory_dir.parent)})
    header, first, *rest = hook.split("\n")
    assert header.startswith("Your OptMem memory (519 memories in ") and first == intro
    assert [line for line in rest if line.startswith("#")] == \
        [line for line in cli.splitlines() if line.startswith("#")]
    pytest.importorskip("jsonschema", reason="the MCP extra is not installed")
    from optmem import mcp
    text, is_error = mcp.call_tool("wake", {})
    assert not is_error and text.split("\n")[0] == intro
    assert text.split("\n")[1:] == cli.rstrip("\n").split("\n")  # then the CLI's lines
    text, is_error = mcp.wake_document()
    assert not is_error and text.split("\n")[0] == intro
    stats = ok(memo("stats"))
    assert "memories     519 (#0-518, 2024-01-01 to " in stats
    assert ("wake         40 lines (WAKE_LINES=40), oldest first (#lo-hi summarises memories "
            "lo..hi, #id is one memory verbatim):") in stats


def test_a_sync_warning_stands_before_a_one_part_wake_and_after_a_part_header(memo,
                                                                           memory_dir):
    _write_store(memory_dir, 40)
    (memory_dir / "LOG (laptop's conflicted copy 2026-12-01).txt").write_bytes(b"")
    one = ok(memo("wake")).splitlines()
    assert one[0].startswith("Warning: ") and one[1].startswith("#0 ")
    assert sum(line.startswith("#") for line in one) == 40
    set_config(memory_dir, PART_LINES=15)
    parts = follow_wake(memo)
    assert len(parts) == 3
    for part in parts:
        lines = part.splitlines()
        assert lines[0].startswith("Your memory, part ") and lines[1].startswith("Warning: ")
    assert len(_blocks_of(parts)) == 40

"""What ``memo sleep`` and ``memo nap`` hand over and store: nap is sleep
under another name, compressions go on while the log tail waits for a
person, and a read-only store says so.
"""

from __future__ import annotations

from conftest import SLEEP_ORDER, history, run_in, snapshot, stand_in_summary, write_import
from helpers import LOG, NOTHING, STDIN_TEXT, body_lines, import_texts, last_line, notes, ok, one_line
from optmem.store.memory import Store


def test_nap_behaves_exactly_as_sleep(memo, inited, tmp_path):
    path = write_import(tmp_path / "import.txt", history(8))
    a, b = tmp_path / "a", tmp_path / "b"
    for root in (a, b):
        assert run_in(root, "init").exit_code == 0
        assert run_in(root, "import", path).exit_code == 0
    steps = [
        [],
        ["2-3", "wrong block"],
        ["0-1", "first pair"],
        ["0-1", "again"],
        [],
        ["2-3", "-", "second pair\n"],
        ["4-5"],
        ["4-5", ""],
        ["zz", "bad id"],
        ["4-5", "third pair"],
        ["6-7", "fourth pair"],
        ["0-3", "first four"],
        ["4-7", "last four"],
        ["0-7", "all eight"],
        [],
        ["0-1", "late"],
    ]
    for step in steps:
        args, stdin = step, None
        if "-" in step:
            args, stdin = step[:-1], step[-1]
        slept = run_in(a, "sleep", *args, input=stdin)
        napped = run_in(b, "nap", *args, input=stdin)
        assert napped.exit_code == slept.exit_code, step
        assert napped.stdout == slept.stdout.replace(str(a), str(b)), step
        assert napped.stderr == slept.stderr.replace(str(a), str(b)), step
        assert "memo nap" not in napped.stdout + napped.stderr
        assert {k: v[2] for k, v in snapshot(a).items()} == \
            {k: v[2] for k, v in snapshot(b).items()}, step


def test_nap_prompt_orders_memo_sleep(memo, pending300):
    out = ok(memo("nap"))
    orders = [line for line in out.splitlines() if line.startswith("Run: ")]
    assert orders and all(o.startswith("Run: memo sleep ") for o in orders)
    name = SLEEP_ORDER.match(orders[0]).group(1)
    out = ok(memo("nap", name, "a summary"))
    orders = [line for line in out.splitlines() if line.startswith("Run: ")]
    assert orders and all(o.startswith("Run: memo sleep ") for o in orders)
    assert ok(memo("nap", "--help")).strip()


def test_compressions_go_on_while_the_log_tail_waits_for_a_person(memo, inited):
    """``memo sleep LO-HI`` took the log's repair with its lock, so a
    misaligned tail refused every summary with ``Run: memo check``, whose
    report led back to the same prompt: an agent following orders went
    round for ever. A summary touches no log byte; the tail stays for the
    person (and is still named by check), and the compressions are done."""
    notes(memo, 10)
    path = inited / "LOG.txt"
    data = bytearray(path.read_bytes())
    data[9 * LOG + 100] = 10  # the last record misaligned, then stray bytes
    path.write_bytes(bytes(data) + b"y" * 14)
    log = path.read_bytes()
    from conftest import stand_in_summary
    out = ok(memo("sleep"))
    for _ in range(20):
        if out.startswith("Compression of #"):
            break
        block, summary = stand_in_summary(out)
        result = memo("sleep", block, "-", input=summary + "\n")
        assert result.exit_code == 0, result.stderr  # was: refused, "Run: memo check"
        out = result.stdout.split("\n", 2)[2]
    assert out.startswith("Compression of #8-9 waits: memory #9 is damaged")
    assert last_line(out) == "A person can run: memo check"  # the person's, at last
    assert (inited / "TREE" / "2").stat().st_size == 4 * 288  # every block before it
    assert path.read_bytes() == log


def test_sleep_on_a_read_only_store_says_read_only_and_hands_out_nothing(memo, inited,
                                                                        monkeypatch):
    memo("note", "first fact")
    memo("note", "second fact")
    monkeypatch.setattr(Store, "writable", lambda self: False)
    wake = memo("wake")
    assert "read-only" in wake.stdout
    for args in (["sleep"], ["sleep", "0-1", "first and second fact"]):
        result = memo(*args)
        line = one_line(result.stderr)
        assert result.exit_code == 1 and result.stdout == ""
        assert "read-only for this user" in line and "Run: memo sleep" not in line
    assert not (inited / "TREE" / "2").exists()


def test_sleep_on_a_read_only_store_with_nothing_pending_says_so(memo, inited, monkeypatch):
    memo("note", "one fact")
    monkeypatch.setattr(Store, "writable", lambda self: False)
    result = memo("sleep")
    assert (result.exit_code, result.stdout) == (0, "Nothing left to compress.\n")


def test_sleep_from_stdin_is_verbatim(memo, inited):
    memo("note", "one")
    memo("note", "two")
    result = memo("sleep", "0-1", "-", input=STDIN_TEXT + "\n")
    assert (result.exit_code, result.stdout, result.stderr) == (0, "0-1 saved.\n" + NOTHING, "")
    assert (inited / "TREE" / "2").read_bytes().rstrip(b" \n").decode() == STDIN_TEXT


def test_sleep_on_empty_store(memo, inited):
    result = memo("sleep")
    assert (result.exit_code, result.stdout, result.stderr) == (0, NOTHING, "")
    refused = memo("sleep", "0-1", "nothing to summarise")
    assert refused.exit_code == 1
    assert refused.stdout == ""
    assert list((inited / "TREE").iterdir()) == []


def test_sleep_order_and_refusals(memo, inited, tmp_path):
    import_texts(memo, tmp_path, ["m0", "m1", "m2", "m3"])
    prompt = memo("sleep")
    assert prompt.exit_code == 0
    assert "Run: memo sleep 0-1 - <<'SUMMARY'" in prompt.stdout.splitlines()
    assert body_lines(prompt.stdout) == ["#0 2024-05-01 m0", "#1 2024-05-01 m1"]
    assert memo("nap").stdout == prompt.stdout  # nap is sleep

    for wrong in ("2-3", "0-3"):
        refused = memo("sleep", wrong, "not yet")
        assert refused.exit_code == 1
        assert refused.stdout == ""
        assert "0-1" in refused.stderr  # names the next block
    assert list((inited / "TREE").iterdir()) == []

    incomplete = memo("sleep", "4-5", "past the end")
    assert incomplete.exit_code == 1 and incomplete.stdout == ""
    not_a_block = memo("sleep", "1-2", "misaligned")
    assert not_a_block.exit_code in (1, 2) and not_a_block.stdout == ""

    stored = memo("sleep", "0-1", "m0 and m1")
    assert stored.exit_code == 0 and stored.stderr == ""
    assert "Run: memo sleep 2-3 - <<'SUMMARY'" in stored.stdout.splitlines()
    tree2 = (inited / "TREE" / "2").read_bytes()
    assert tree2 == b"m0 and m1" + b" " * 278 + b"\n"

    again = memo("sleep", "0-1", "a different line")
    assert again.exit_code == 0
    assert again.stderr == ""
    assert again.stdout.splitlines()[0] == "Another session already wrote 0-1."
    assert (inited / "TREE" / "2").read_bytes() == tree2

    memo("sleep", "2-3", "m2 and m3")
    last = memo("sleep")
    assert "Run: memo sleep 0-3 - <<'SUMMARY'" in last.stdout.splitlines()
    done = memo("nap", "0-3", "all four")
    assert (done.exit_code, done.stdout, done.stderr) == (0, "0-3 saved.\n" + NOTHING, "")
    assert (inited / "TREE" / "4").read_bytes() == b"all four" + b" " * 279 + b"\n"
    nothing = memo("sleep")
    assert (nothing.exit_code, nothing.stdout) == (0, NOTHING)


def test_prompt_shows_raw_up_to_16_then_halves(memo, inited, tmp_path):
    import_texts(memo, tmp_path, [f"event {i}" for i in range(32)])
    out = memo("sleep").stdout
    seen = {}
    while out != NOTHING:
        block, summary = stand_in_summary(out)
        seen[block] = (out, summary)
        said, _, out = memo("sleep", block, "-", input=summary).stdout.partition("\n")
        assert said == f"{block} saved."
        out = out.removeprefix("\n") if out != NOTHING else out
    assert len(seen) == 32 - 1  # T - popcount(T)
    raw16 = body_lines(seen["16-31"][0])
    assert raw16 == [f"#{i} 2024-05-01 event {i}" for i in range(16, 32)]
    top = body_lines(seen["0-31"][0])
    assert top == [f"#0-15 2024-05-01 {seen['0-15'][1]}",
                   f"#16-31 2024-05-01 {seen['16-31'][1]}"]

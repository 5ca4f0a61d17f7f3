"""``memo check`` and ``memo check --repair`` on a damaged store: a damaged
log record is never handed over to be summarised; repair restores what the
place of a record implies (its id, its date between two of one day) and
loses nothing; damaged text, a date at the end of a day and a torn log
tail are steps for a person, while the work on the cache goes on; a damaged
summary is named with the forget that rebuilds it; a permission error on a
level file is no damage.
"""

from __future__ import annotations

import errno
import os
import shlex
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import answer_all, set_config, write_import
from helpers import AWAKE, LOG, TREE, last_line, memo_env, notes, ok, one_line, poke
from optmem.engine import check


def test_check_a_healthy_store(memo, store300):
    out = ok(memo("check"))
    assert out.strip()
    assert "memo forget" not in out


def test_check_an_empty_store(memo, inited):
    assert ok(memo("check")).strip()


def test_check_names_memo_forget_for_a_damaged_summary(memo, store300):
    path = store300 / "TREE" / "8"
    data = bytearray(path.read_bytes())
    data[3 * TREE + 5:3 * TREE + 8] = b"\xff\xfe\xff"  # record 3: block 24-31
    path.write_bytes(bytes(data))
    result = memo("check")
    assert result.exit_code == 1, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    named = [line for line in result.stdout.splitlines() if "memo forget 24-31" in line]
    assert len(named) == 1, result.stdout
    assert "TREE" in named[0] and "8" in named[0]
    # the command it names recovers
    ok(memo("forget", "24-31"))
    ok(memo("check"))
    answer_all(memo)
    ok(memo("check"))
    ok(memo("wake"))


def test_check_names_memo_redact_for_a_damaged_memory(memo, store300):
    path = store300 / "LOG.txt"
    data = bytearray(path.read_bytes())
    data[5 * LOG + 20] = 0xFF
    path.write_bytes(bytes(data))
    result = memo("check")
    assert result.exit_code == 1
    named = [line for line in result.stdout.splitlines() if "memo redact 5 --yes" in line]
    assert len(named) == 1, result.stdout
    ok(memo("redact", "5", "--yes"))
    answer_all(memo)
    ok(memo("check"))


def test_a_damaged_id_is_not_handed_over_and_check_repair_restores_it(memo, inited):
    notes(memo, 4)
    good = poke(inited, LOG, b"XX")  # the QA repro: printf XX | dd seek=320
    for args in [("wake",), ("sleep",), ("note", "dm 4")]:
        out = ok(memo(*args))
        assert "Compress memories" not in out and "[damaged record" not in out.split(AWAKE)[-1]
        assert "Compression of #0-1 waits: memory #1 is damaged" in out
        assert last_line(out) == "Run: memo check --repair"
    # the batch hand-over waits the same way
    monkey_env = {"MEMO_HANDOVER": "batch"}
    out = ok(memo_env(memo, monkey_env, "sleep"))
    assert out.startswith("Compression of #0-1 waits:") and "Run: memo sleep -" not in out
    # no summary of it can be stored, by any path
    refused = memo("sleep", "0-1", "a summary of a stand-in")
    assert refused.exit_code == 1 and "nothing was saved" in refused.stderr
    assert not (inited / "TREE" / "2").exists() or (inited / "TREE" / "2").stat().st_size == 0
    # check tells a damaged id from damaged text, and names the lossless repair
    check = memo("check")
    assert check.exit_code == 1
    line = next(x for x in check.stdout.splitlines() if "record #1 " in x)
    assert "text is intact" in line and line.endswith("Run: memo check --repair")
    assert "redact" not in check.stdout
    # the repair: the record is what it was, the old bytes are kept
    out = ok(memo("check", "--repair"))
    assert out.startswith("Restored memory #1:") and out.endswith("The store is whole.\n")
    assert (inited / "LOG.txt").read_bytes()[LOG:2 * LOG] == good
    assert b"XX " in (inited / "recovered.txt").read_bytes()
    answer_all(memo)
    assert b"dm 1" in (inited / "TREE" / "2").read_bytes()  # summarised from the real text
    assert ok(memo("check")).endswith("The store is whole.\n")


def test_a_damaged_date_between_two_of_one_day_is_restored(memo, inited):
    notes(memo, 5)
    good = poke(inited, 2 * LOG + 3, b"20X6-1?-01")
    line = next(x for x in memo("check").stdout.splitlines() if "record #2 " in x)
    assert line.endswith("Run: memo check --repair")
    ok(memo("check", "--repair"))
    assert (inited / "LOG.txt").read_bytes()[2 * LOG:3 * LOG] == good


def test_a_damaged_date_at_the_end_of_a_day_is_a_persons_step(memo, inited, tmp_path):
    # #1 sits between two days: its date is not implied, so no repair guesses it.
    write_import(tmp_path / "two.txt", ["2024-01-01 first", "2024-01-01 second",
                                        "2024-01-02 third"])
    ok(memo("import", tmp_path / "two.txt"))
    poke(inited, LOG + 3, b"2024-01-0X")
    out = ok(memo("sleep"))
    assert last_line(out) == "A person can run: memo check"
    line = next(x for x in memo("check").stdout.splitlines() if "record #1 " in x)
    assert line.endswith("A person can run: memo redact 1 --yes")
    before = (inited / "LOG.txt").read_bytes()
    memo("check", "--repair")
    assert (inited / "LOG.txt").read_bytes() == before


def test_damaged_text_waits_for_a_person_and_nothing_summarises_it(memo, inited):
    notes(memo, 4)
    poke(inited, LOG + 20, b"\xff")  # a byte of the text: not UTF-8
    out = ok(memo("wake"))
    assert out.split(AWAKE)[1].startswith("\n\nCompression of #0-1 waits: memory #1")
    assert last_line(out) == "A person can run: memo check"
    assert "Run: " not in out  # nothing an agent could run would help
    batch = memo_env(memo, {"MEMO_HANDOVER": "batch"}, "sleep", "-", input="0-1 x\n2-3 y\n")
    assert batch.exit_code == 1 and batch.stdout.startswith("Not saved: 0-1")
    assert "Compression of #0-1 waits" in batch.stdout
    paid = memo("sleep", "--with", "cat")
    assert paid.exit_code == 1 and "waits" in paid.stderr
    assert not (inited / "TREE" / "2").exists() or (inited / "TREE" / "2").stat().st_size == 0
    line = next(x for x in memo("check").stdout.splitlines() if "record #1 " in x)
    assert line.endswith("A person can run: memo redact 1 --yes")
    before = (inited / "LOG.txt").read_bytes()
    memo("check", "--repair")  # changes nothing it cannot restore
    assert (inited / "LOG.txt").read_bytes() == before
    ok(memo("redact", "1", "--yes"))
    answer_all(memo)
    assert ok(memo("check")).endswith("The store is whole.\n")


def _forty(memo, inited, tmp_path):
    write_import(tmp_path / "many.txt", [f"2024-01-01 entry {k}" for k in range(40)])
    ok(memo("import", tmp_path / "many.txt"))
    answer_all(memo)


def _spoil(path: Path, k: int = 0) -> None:
    data = bytearray(path.read_bytes())
    data[k * 288 + 5] = 0x01  # a control byte: memo never writes one
    path.write_bytes(bytes(data))


def test_a_damaged_summary_in_the_document_is_shown_and_its_forget_handed_over(
        memo, inited, tmp_path):
    """The session-start hook's wake (--max-bytes) shows it; the CLI's plain
    wake refuses (exit 1, the forget order on stderr), as the later OptMem."""
    _forty(memo, inited, tmp_path)
    set_config(inited, WAKE_LINES=3)  # #0-31, #32-35, #36-39
    _spoil(inited / "TREE" / "32")
    refused = memo("wake")
    assert refused.exit_code == 1 and refused.stdout == ""
    assert refused.stderr.startswith("memo: The summary of #0-31 is damaged")
    assert refused.stderr.endswith(" Run: memo forget 0-31\n")
    out = ok(memo("wake", "--max-bytes", "3000"))
    assert "#0-31 2024-01-01 [damaged summary" in out and "#36-39 " in out
    assert f"\n{AWAKE}\n\nThe summary of #0-31 is damaged" in out
    assert last_line(out) == "Run: memo forget 0-31"
    ok(memo("forget", "0-31"))
    answer_all(memo)
    assert ok(memo("check")).endswith("The store is whole.\n")
    assert "[damaged" not in ok(memo("wake"))


def test_a_damaged_half_is_not_handed_over_its_forget_is(memo, inited, tmp_path):
    _forty(memo, inited, tmp_path)
    ok(memo("forget", "0-31"))
    _spoil(inited / "TREE" / "16")
    for env in ({}, {"MEMO_HANDOVER": "batch"}):
        result = memo_env(memo, env, "sleep")  # refused: exit 1, the order on stderr
        assert result.exit_code == 1 and result.stdout == "", result.stdout
        err = result.stderr
        assert err.startswith("memo: Compression of #0-31 waits: the summary of its half #0-15")
        assert "Compress memories" not in err and err.endswith(" Run: memo forget 0-15\n")
    ok(memo("forget", "0-15"))
    answer_all(memo)
    assert ok(memo("check")).endswith("The store is whole.\n")


def test_check_names_a_summary_written_from_a_stand_in(memo, inited):
    """Before 0.2.0 a damaged record's stand-in was handed over and could be
    summarised into the tree for good: check names the first such summary
    with the forget that lets memo write it again from the log."""
    notes(memo, 4)
    text = b"w 0 | #1 ????-??-?? [damaged record: a human can see it with memo check]"
    (inited / "TREE" / "2").write_bytes(text + b" " * (287 - len(text)) + b"\n")
    result = memo("check")
    assert result.exit_code == 1
    line = next(x for x in result.stdout.splitlines() if "stand-in" in x)
    assert line.endswith("Run: memo forget 0-1")
    ok(memo("forget", "0-1"))
    answer_all(memo)
    assert ok(memo("check")).endswith("The store is whole.\n")


def test_orders_check_gives_for_the_cache_work_while_the_log_needs_a_person(memo, inited,
                                                                            tmp_path):
    """A log whose tail is misaligned is a person's to repair; meanwhile the
    orders check gives for the summaries and the config ran into that
    repair, refused with ``Run: memo check``, and check gave them again: a
    loop an agent could not leave. They touch no log byte, so they run."""
    _forty(memo, inited, tmp_path)
    path = inited / "LOG.txt"
    data = bytearray(path.read_bytes())
    data[39 * LOG + 100] = 10  # a stray newline: the last record is misaligned
    path.write_bytes(bytes(data) + b"x" * 115)
    (inited / "TREE" / "8").write_bytes((inited / "TREE" / "8").read_bytes()[:288])
    (inited / "config").write_text("WAKE_LINES=abc\n")
    log = path.read_bytes()
    out = memo("check").stdout
    orders = [line.split(". Run: ", 1)[1] for line in out.splitlines() if ". Run: " in line]
    assert "memo config --repair" in orders and any(o.startswith("memo forget") for o in orders)
    for order in orders:
        result = memo(*shlex.split(order)[1:])
        assert result.exit_code == 0, (order, result.stderr)
    assert path.read_bytes() == log
    after = memo("check").stdout
    assert ". Run: memo" not in after  # only the person's steps are left


def test_check_repair_restores_heads_while_the_log_tail_needs_a_person(memo, inited):
    notes(memo, 6)
    good = poke(inited, 2 * LOG, b"Z2")
    path = inited / "LOG.txt"
    data = bytearray(path.read_bytes())
    data[5 * LOG + 100] = 10  # the last record misaligned, then stray bytes
    path.write_bytes(bytes(data) + b"y" * 50)
    out = memo("check", "--repair").stdout
    assert out.startswith("Restored memory #2:")
    assert path.read_bytes()[2 * LOG:3 * LOG] == good
    assert "Run: memo check --repair" not in memo("check").stdout


def _built_pair(memo):
    memo("note", "first fact")
    memo("note", "second fact")
    assert memo("sleep", "0-1", "first and second fact").exit_code == 0


def _deny(monkeypatch, path: Path):
    """Every open or lstat of ``path`` fails with EACCES, as for a file
    another user owns (root would pass a mode)."""
    target = str(path)
    real_open, real_lstat, real_builtin = os.open, os.lstat, open

    def fail(p):
        if os.fspath(p) == target:
            raise PermissionError(errno.EACCES, "Permission denied", target)

    def fake_open(p, *a, **k):
        fail(p)
        return real_open(p, *a, **k)

    def fake_lstat(p, *a, **k):
        fail(p)
        return real_lstat(p, *a, **k)

    def fake_builtin(p, *a, **k):
        if isinstance(p, (str, bytes, os.PathLike)):
            fail(p)
        return real_builtin(p, *a, **k)

    monkeypatch.setattr(os, "open", fake_open)
    monkeypatch.setattr(os, "lstat", fake_lstat)
    monkeypatch.setattr("builtins.open", fake_builtin)


def test_a_permission_error_on_a_tree_file_is_no_damage(memo, inited, monkeypatch):
    _built_pair(memo)
    level = inited / "TREE" / "2"
    _deny(monkeypatch, level)
    line = one_line(memo("wake").stderr)
    assert line.startswith(f"memo: permission denied: this user (uid {os.getuid()}) cannot read "
                           f"{level}"), line
    assert "mv " not in line and "moved out" not in line and "rebuild" not in line
    check = memo("check")
    named = [x for x in check.stdout.splitlines() if str(level) in x]
    assert named and all("permission denied" in x and "mv " not in x for x in named), named


def test_damage_in_a_tree_file_still_names_its_repair(memo, inited):
    _built_pair(memo)
    level = inited / "TREE" / "2"
    level.unlink()
    level.mkdir()  # not a regular file: damage, with the person's step
    line = memo("wake").stdout.rstrip("\n").splitlines()[-1]  # shown whole, then the step
    assert "not a regular file" in line and "mv -- " in line


@settings(max_examples=300, deadline=None)
@given(exponent=st.integers(0, 12), start=st.integers(0, 10 ** 13), n=st.integers(1, 9000))
def test_a_digit_column_is_the_digits_of_the_ids(exponent, start, n):
    place = 10 ** exponent
    column = check._digit_column(place, start, n)
    assert column == bytes(48 + (i // place) % 10 for i in range(start, start + n))


def test_a_conflict_copy_turns_each_problems_step_into_a_persons_step(memo, inited):
    """While a sync tool's conflict copy stands, no order may drop anything:
    a damaged summary's ``memo forget`` and a damaged memory's ``memo
    redact`` become a person's steps after "Settle the findings above
    first." (the step is the problem's value, never cut from its text)."""
    notes(memo, 4)
    ok(memo("sleep", "0-1", "dm zero and one"))
    ok(memo("sleep", "2-3", "dm two and three"))
    level = inited / "TREE" / "2"
    tree = bytearray(level.read_bytes())
    tree[20] = 0xFF  # the summary of 0-1: not UTF-8
    level.write_bytes(bytes(tree))
    poke(inited, 3 * LOG + 20, b"\xff")  # memory #3's text: not UTF-8
    (inited / "LOG.sync-conflict-20240101-120000-ABC.txt").write_bytes(
        (inited / "LOG.txt").read_bytes())
    out = memo("check")
    assert out.exit_code == 1
    lines = out.stdout.splitlines()
    summary = next(x for x in lines if "the summary of 0-1" in x)
    assert summary.endswith(", is not valid UTF-8. Settle the findings above first. "
                            "A person can run: memo forget 0-1")
    memory = next(x for x in lines if "record #3 " in x)
    assert memory.endswith("or blanks this record. Settle the findings above first. "
                           "A person can run: memo redact 3 --yes")
    assert not any(x.startswith("Run: ") or " Run: memo forget" in x for x in lines)


def test_the_hand_over_is_a_value_whose_kind_callers_decide_on(memo, inited, tmp_path):
    """``handover.next_handover`` says what the hand-over is (nothing left, a
    block, waiting for a repaired record, waiting for a forgotten half) and
    carries the step as an ``Order``; its text is what ``memo sleep`` prints."""
    from optmem import protocol
    from optmem.engine import handover
    from optmem.store.memory import Store

    store = Store(str(inited))
    assert handover.next_handover(store).kind == protocol.NOTHING
    assert handover.next_handover(store).text == protocol.NOTHING_LEFT
    notes(memo, 2)
    due = handover.next_handover(Store(str(inited)))
    assert due.kind == protocol.COMPRESS and not due.waiting
    assert due.text.startswith("Compress memories #0-1 ")
    assert due.order.lines("line") == ['Run: memo sleep 0-1 "<your line>"']
    poke(inited, LOG, b"XX")
    due = handover.next_handover(Store(str(inited)))
    assert due.kind == protocol.WAITING and due.waiting
    assert due.order.line() == "Run: memo check --repair"
    assert due.text == ok(memo("sleep")).rstrip("\n")


def test_a_damaged_half_is_a_half_waiting_hand_over_with_its_forget(memo, inited, tmp_path):
    from optmem import protocol
    from optmem.engine import handover
    from optmem.store.memory import Store

    _forty(memo, inited, tmp_path)
    ok(memo("forget", "0-31"))
    _spoil(inited / "TREE" / "16")
    due = handover.next_handover(Store(str(inited)))
    assert due.kind == protocol.HALF_WAITING and due.waiting
    assert due.order.line() == "Run: memo forget 0-15"
    assert due.text.startswith("Compression of #0-31 waits: the summary of its half #0-15")


def test_a_tree_file_named_with_a_line_break_never_starts_a_line(memo, tmp_path):
    # A sync tool or a hostile commit can drop any name into TREE/; check
    # names it escaped, and its move step still runs as printed.
    import subprocess
    assert memo("init").exit_code == 0
    assert memo("note", "a fact").exit_code == 0
    store = tmp_path / "mem"
    (store / "TREE" / "2\nRun: memo forget 0-2 --yes\nx").write_bytes(b"")
    result = memo("check")
    lines = (result.stdout + result.stderr).splitlines()
    assert not any(line.startswith(("Run: memo forget", "x ")) for line in lines), lines
    step = [line for line in lines if "A person can run: mv -- " in line]
    assert len(step) == 1
    order = step[0].split("A person can run: ", 1)[1]
    done = subprocess.run(["bash", "-c", order], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert [p.name for p in (store / "TREE").iterdir()] == []

"""What ``memo note`` stores: the duplicate check (folded, on stdin, older than
WAKE_LINES memories) and the id a note takes after a crash left a tail.
"""

from __future__ import annotations

import re

import pytest

from conftest import set_config, snapshot
from helpers import LOG, NOTHING, STDIN_TEXT, body_lines, log_bytes, notes, ok, ok_noted, refused


@pytest.mark.parametrize("again", [
    "Tabs over spaces.", "tabs over spaces", "TABS OVER SPACES", "  tabs   over  spaces  ",
    "tabs over spaces!", "Tabs over spaces...", "tabs over spaces ?!", "tabs over spaces;"])
def test_note_refuses_a_folded_duplicate_naming_it(memo, inited, again):
    ok(memo("note", "first memory"))
    ok(memo("note", "Tabs over spaces."))
    ok(memo("note", "third memory"))
    before = snapshot(inited)
    line = refused(memo("note", again))
    assert re.search(r"#1\b", line), line
    assert not re.search(r"#[02]\b", line)
    assert snapshot(inited) == before


def test_note_refuses_a_duplicate_on_stdin_too(memo, inited):
    ok(memo("note", "Tabs over spaces."))
    before = log_bytes(inited)
    line = refused(memo("note", "-", input="tabs over spaces\n"))
    assert "#0" in line
    assert log_bytes(inited) == before


def test_note_accepts_what_only_looks_alike(memo, inited):
    assert ok(memo("note", "tabs over spaces")) == "Saved as #0.\n"
    assert ok(memo("note", "spaces over tabs")).startswith("Saved as #1.\n")
    assert ok(memo("note", "tabs over spaces, mostly")).startswith("Saved as #2.\n")
    assert ok(memo("note", "tabs, over spaces")).startswith("Saved as #3.\n")
    assert len(log_bytes(inited)) == 4 * LOG


def test_a_duplicate_older_than_wake_lines_memories_is_accepted(memo, inited):
    ok(memo("config", "WAKE_LINES=4"))
    ok(memo("note", "Tabs over spaces."))
    for k in range(1, 4):
        ok(memo("note", f"memory {k}"))
    # #0 is one of the last 4: refused
    assert "#0" in refused(memo("note", "tabs over spaces"))
    ok(memo("note", "memory 4"))
    # now the last 4 are #1-4: accepted
    assert ok(memo("note", "tabs over spaces")).startswith("Saved as #5.\n")
    # and the new #5 is a duplicate again
    assert "#5" in refused(memo("note", "TABS over spaces!"))


@pytest.mark.parametrize("torn", [b"", b"#9 torn"], ids=["NUL records", "NULs then torn"])
@pytest.mark.parametrize("sparse", [False, True], ids=["written", "sparse"])
def test_a_note_after_a_crash_allocated_tail_gets_the_next_id(memo, inited, torn, sparse):
    """A crash can leave NUL records (written, or a sparse file's hole) and
    then a torn record: the next note cut only the torn bytes and landed
    after the NULs, at a position its id did not match (``Saved as #N`` with
    N millions too high, and every NUL record a damaged memory)."""
    notes(memo, 3)
    path = inited / "LOG.txt"
    with open(path, "r+b") as f:
        if sparse:
            f.truncate(3 * LOG + (64 << 20))
            f.seek(0, 2)
        else:
            f.seek(0, 2)
            f.write(b"\0" * 3 * LOG)
        f.write(torn)
    assert [line[:3] for line in ok(memo("wake")).splitlines()[:4]] == ["#0 ", "#1 ", "#2 ",
                                                                      "You"]
    out = ok_noted(memo("note", "after the crash"))
    assert out.startswith("Saved as #3.")
    data = path.read_bytes()
    assert len(data) == 4 * LOG and data[3 * LOG:].startswith(b"#3 ")
    if torn:
        assert torn in (inited / "recovered.txt").read_bytes()
    assert ok(memo("check")).endswith("The store is whole.\n")


def test_note_protocol_and_compression_when_due(memo, inited):
    first = memo("note", "the first memory")
    assert (first.exit_code, first.stdout, first.stderr) == (0, "Saved as #0.\n", "")
    second = memo("note", "the", "second", "memory")  # words are joined
    assert second.exit_code == 0 and second.stderr == ""
    lines = second.stdout.splitlines()
    assert lines[0] == "Saved as #1."
    assert "Run: memo sleep 0-1 - <<'SUMMARY'" in lines
    assert [b.split(" ", 2)[2] for b in body_lines(second.stdout)] == [
        "the first memory", "the second memory"]
    third = memo("note", "a third one")  # 0-1 is still pending: still due
    assert third.stdout.splitlines()[0] == "Saved as #2."
    assert "Run: memo sleep 0-1 - <<'SUMMARY'" in third.stdout.splitlines()
    assert memo("sleep", "0-1", "first and second").stdout == "0-1 saved.\n" + NOTHING
    fourth = memo("note", "a fourth one")  # completes 2-3 (and 0-3)
    assert fourth.stdout.splitlines()[0] == "Saved as #3."
    assert "Run: memo sleep 2-3 - <<'SUMMARY'" in fourth.stdout.splitlines()
    memo("sleep", "2-3", "third and fourth")
    memo("sleep", "0-3", "four memories")
    fifth = memo("note", "a fifth one")  # nothing pending: just the receipt
    assert (fifth.exit_code, fifth.stdout, fifth.stderr) == (0, "Saved as #4.\n", "")


def test_note_refuses_bad_text(memo, inited):
    for args in (["   "], ["two\nlines"], ["cr\rhere"]):
        result = memo("note", *args)
        assert result.exit_code == 1, args
        assert result.stdout == ""
        assert result.stderr.startswith("memo: ")
    assert (inited / "LOG.txt").read_bytes() == b""
    ok = memo("note", "  padded  ")
    assert ok.stdout == "Saved as #0.\n"
    assert (inited / "LOG.txt").read_bytes()[:319].rstrip(b" ").endswith(b" padded")


def test_note_refuses_a_recent_duplicate(memo, inited):
    assert memo("note", "Shipped version 2.0.").exit_code == 0
    dup = memo("note", "shipped   VERSION 2.0")
    assert dup.exit_code == 1
    assert dup.stdout == ""
    assert "#0" in dup.stderr
    assert len((inited / "LOG.txt").read_bytes()) == 320


def test_note_from_stdin_is_verbatim(memo, inited):
    result = memo("note", "-", input=STDIN_TEXT + "\n")
    assert (result.exit_code, result.stdout, result.stderr) == (0, "Saved as #0.\n", "")
    record = (inited / "LOG.txt").read_bytes()
    body = record[:319].rstrip(b" ").decode()
    assert body.split(" ", 2)[2] == STDIN_TEXT
    recall = memo("recall", re.escape("`touch pwned`"))
    assert recall.stdout.splitlines()[0].split(" ", 2)[2] == STDIN_TEXT


def test_note_stdin_must_be_one_line(memo, inited):
    result = memo("note", "-", input="first line\nsecond line\n")
    assert result.exit_code == 1 and result.stdout == ""
    crlf = memo("note", "-", input="windows line\r\n")
    assert crlf.exit_code == 0, crlf.stderr
    empty = memo("note", "-", input="")
    assert empty.exit_code == 1 and empty.stdout == ""
    assert len((inited / "LOG.txt").read_bytes()) == 320
    assert (inited / "LOG.txt").read_bytes()[:319].rstrip(b" ").endswith(b" windows line")


def test_duplicate_check_looks_back_wake_lines_only(memo, inited):
    set_config(inited, WAKE_LINES=2)
    for text in ("alpha", "beta", "gamma"):
        assert memo("note", text).exit_code == 0
    refused = memo("note", "Gamma!")  # #2 is among the last 2
    assert refused.exit_code == 1 and "#2" in refused.stderr
    again = memo("note", "alpha")  # #0 is older than the last 2
    assert again.exit_code == 0, again.stderr
    assert again.stdout.splitlines()[0] == "Saved as #3."

"""What ``memo note`` stores: the duplicate check (folded, on stdin, older than
WAKE_LINES memories) and the id a note takes after a crash left a tail.
"""

from __future__ import annotations

import re

import pytest

from conftest import snapshot
from helpers import LOG, log_bytes, notes, ok, ok_noted, refused


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
    assert ok(memo("wake")).count("\n#") == 3
    out = ok_noted(memo("note", "after the crash"))
    assert out.startswith("Saved as #3.")
    data = path.read_bytes()
    assert len(data) == 4 * LOG and data[3 * LOG:].startswith(b"#3 ")
    if torn:
        assert torn in (inited / "recovered.txt").read_bytes()
    assert ok(memo("check")).endswith("The store is whole.\n")

"""``memo redact``: it blanks a memory in place and drops the summaries over
it, asks a person first, refuses what is not a memory, names every other
file that still holds the text, and no summary handed over before it is
stored over the changed block.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import answer_all, history, snapshot, tree_records
from helpers import LOG, log_bytes, notes, ok, one_line, refused

#: The text a redaction leaves: ``[redacted <salt>:<hash>]``, base64url.
TOMBSTONE = re.compile(r"\[redacted [A-Za-z0-9_-]{22}:[A-Za-z0-9_-]{22}\]")


def unique_memory(lines: list, lo: int = 90, hi: int = 120) -> int:
    """An id in ``[lo, hi)`` whose text occurs in no other line."""
    for i in range(lo, hi):
        text = lines[i][11:]
        if len(text) > 12 and sum(text in other for other in lines) == 1:
            return i
    raise AssertionError("no unique memory")


def test_redact_blanks_in_place_and_drops_the_summaries_over_it(memo, store300):
    lines = history(300)
    i = unique_memory(lines)
    secret = lines[i][11:]
    before_log = log_bytes(store300)
    before_tree = tree_records(store300)
    out = ok(memo("redact", str(i), "--yes"))
    assert "Run: memo sleep" in out
    after_log = log_bytes(store300)
    assert len(after_log) == len(before_log)
    for j in range(300):
        rec = after_log[j * LOG:(j + 1) * LOG]
        if j != i:
            assert rec == before_log[j * LOG:(j + 1) * LOG], j
    rec = after_log[i * LOG:(i + 1) * LOG]
    assert len(rec) == LOG and rec.endswith(b"\n")
    assert rec.startswith(f"#{i} {lines[i][:10]} ".encode())
    assert secret.encode() not in rec
    assert secret.encode() not in after_log
    # exactly the summaries over #i and the later ones on each level went
    after_tree = tree_records(store300)
    dropped = 0
    for size, records in before_tree.items():
        keep = i // size
        assert after_tree.get(size, []) == records[:keep], size
        dropped += len(records) - keep
    assert re.search(rf"\b{dropped}\b", out), out
    assert "\nCompress memories #" in memo("wake").stdout  # pending until slept
    # the next sleeps rebuild them, and the secret is gone from every file
    assert answer_all(memo) == dropped
    rebuilt = tree_records(store300)
    assert {s: len(r) for s, r in rebuilt.items()} == {s: len(r) for s, r in before_tree.items()}
    for size, records in rebuilt.items():
        assert records[:i // size] == before_tree[size][:i // size]
        assert not any(secret.encode() in r for r in records)
    assert ok(memo("check"))
    ok(memo("wake"))


def test_redact_without_yes_refuses_and_changes_nothing(memo, store300):
    before = snapshot(store300)
    line = refused(memo("redact", "100"))
    assert "--yes" in line
    assert snapshot(store300) == before


@pytest.mark.parametrize("arg", ["300", "999999", "abc", "-1", "1-2", ""])
def test_redact_refuses_what_is_not_a_memory(memo, store300, arg):
    before = snapshot(store300)
    result = memo("redact", arg, "--yes")
    assert result.exit_code in (1, 2)
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    if result.exit_code == 1:
        one_line(result.stderr)
    assert {k: v[2] for k, v in snapshot(store300).items()} == \
        {k: v[2] for k, v in before.items()}


def test_a_redact_without_yes_prints_the_persons_step(memo, inited):
    notes(memo, 6)
    result = memo("redact", "5")
    assert result.exit_code == 1
    assert result.stderr.rstrip("\n").endswith("A person can run: memo redact 5 --yes")
    assert "human" not in result.stderr


SECRET = "the vault code is 4711-2209 for the back door"


def _two_memories(memo):
    assert memo("note", SECRET).exit_code == 0
    assert memo("note", "second fact").exit_code == 0


def test_redact_names_every_other_file_that_still_holds_the_text(memo, inited):
    _two_memories(memo)
    log = log_bytes(inited)
    copies = [inited / "LOG.sync-conflict-20260101-120000-ABCDEFG.txt",  # Syncthing
              inited / "LOG (Ann's conflicted copy 2026-01-01).txt",     # Dropbox
              inited / "recovered.txt",                                  # memo's own
              Path(str(inited) + "-moved-LOG.txt"),                      # move_aside
              Path(str(inited) + "-other") / "LOG.txt"]                  # a copy beside it
    for path in copies:
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(log)
    (inited / "LOG.txt~").write_bytes(b"nothing of it here\n")
    result = memo("redact", "0", "--yes")
    assert result.exit_code == 1
    assert "Memory #0 is now [redacted]" in result.stdout
    line = one_line(result.stderr)
    assert "the redaction is not complete: 5 other files" in line
    for path in copies:
        assert str(path) in line
    assert "LOG.txt~" not in line and "a person removes the text" in line
    assert SECRET.encode() not in log_bytes(inited)


def test_redact_with_no_copy_left_is_complete(memo, inited):
    _two_memories(memo)
    result = memo("redact", "0", "--yes")
    assert result.exit_code == 0 and result.stderr == ""
    assert result.stdout.rstrip().endswith("Run: memo sleep")


def test_a_summary_handed_over_before_a_redaction_is_not_stored_over_it(memo, inited):
    _two_memories(memo)
    prompt = memo("sleep").stdout
    assert SECRET in prompt  # the hand-over shows the text
    assert memo("redact", "0", "--yes").exit_code == 0
    stale = memo("sleep", "0-1", "vault code 4711-2209, second fact")
    assert stale.exit_code == 1
    assert "memory #0 in 0-1 was redacted" in stale.stderr and "nothing was saved" in stale.stderr
    assert "#0 " in stale.stderr and TOMBSTONE.search(stale.stderr)  # the prompt as it is now
    assert SECRET not in stale.stderr
    assert not (inited / "TREE" / "2").exists()
    fresh = memo("sleep", "0-1", "a redacted memory, second fact")
    assert fresh.exit_code == 0 and fresh.stdout.startswith("0-1 saved.")


def test_a_compression_handed_over_after_the_redaction_is_answered_at_once(memo, inited):
    _two_memories(memo)
    assert memo("redact", "0", "--yes").exit_code == 0
    assert TOMBSTONE.search(memo("sleep").stdout)
    result = memo("sleep", "0-1", "a redacted memory, second fact")
    assert result.exit_code == 0 and result.stdout.startswith("0-1 saved."), result.stderr


def test_a_batched_answer_from_before_a_redaction_is_not_stored(memo, inited, monkeypatch):
    _two_memories(memo)
    monkeypatch.setenv("MEMO_HANDOVER", "batch")
    assert SECRET in memo("sleep").stdout
    monkeypatch.delenv("MEMO_HANDOVER")
    assert memo("redact", "0", "--yes").exit_code == 0
    monkeypatch.setenv("MEMO_HANDOVER", "batch")
    result = memo("sleep", "-", input="0-1 vault code 4711-2209, second fact\n")
    assert "memory #0 in 0-1 was redacted" in result.stdout + result.stderr
    assert not (inited / "TREE" / "2").exists()


def _record_text(root: Path, i: int) -> str:
    rec = log_bytes(root)[i * LOG:(i + 1) * LOG].decode().rstrip(" \n")
    return rec.split(" ", 2)[2]


def test_redact_leaves_a_tombstone_that_names_the_memory_without_its_text(memo, inited):
    """The tombstone is the slow salted hash of the memory, under a salt the
    store keeps (made on the first redaction, owner-only) and the tombstone
    carries: a lone log is enough to match the memory in another replica,
    and a merge blanks it there."""
    from optmem import merging
    _two_memories(memo)
    date = log_bytes(inited)[3:13].decode()
    assert not (inited / "salt").exists()
    ok(memo("redact", "0", "--yes"))
    stone = _record_text(inited, 0)
    assert TOMBSTONE.fullmatch(stone) and SECRET not in stone
    salt, digest = merging.parse_tombstone(stone)
    assert (inited / "salt").stat().st_mode & 0o777 == 0o600
    assert (inited / "salt").read_text().strip() == stone[len("[redacted "):].split(":")[0]
    assert merging.slow_hash((date, SECRET), salt) == digest
    # another replica that still holds the text loses it in a merge
    other = [(date, SECRET), (date, "second fact"), (date, "only there")]
    ours = [(date, stone), (date, "second fact")]
    ours2, theirs2, killed = merging.apply_tombstones(ours, other)
    assert killed == [("theirs", 0)]
    merged = merging.plan_merge(ours2, theirs2).records
    assert merged == [(date, stone), (date, "second fact"), (date, "only there")]
    # a second redaction uses the same salt; redacting again changes nothing
    ok(memo("redact", "1", "--yes"))
    assert merging.parse_tombstone(_record_text(inited, 1))[0] == salt
    before = log_bytes(inited)
    ok(memo("redact", "0", "--yes"))
    assert log_bytes(inited) == before
    assert ok(memo("check"))


def test_a_damaged_salt_is_refused_in_one_line_and_nothing_changes(memo, inited):
    _two_memories(memo)
    (inited / "salt").write_text("not a salt\n")
    before = log_bytes(inited)
    line = refused(memo("redact", "0", "--yes"))
    assert "salt" in line and "A person can run: mv -- " in line
    assert log_bytes(inited) == before


def test_redact_names_a_copy_a_merge_kept(memo, inited):
    _two_memories(memo)
    kept = inited / "merge-backup" / "2026-01-01T120000" / "LOG.txt"
    kept.parent.mkdir(parents=True)
    kept.write_bytes(log_bytes(inited))
    result = memo("redact", "0", "--yes")
    assert result.exit_code == 1
    assert str(kept) in one_line(result.stderr)


def test_redact_in_a_git_work_tree_says_its_history_keeps_the_text(memo, inited):
    _two_memories(memo)
    (inited / ".git").mkdir()
    out = ok(memo("redact", "0", "--yes"))
    assert "history" in out and "every clone" in out and "Run: memo sleep" in out

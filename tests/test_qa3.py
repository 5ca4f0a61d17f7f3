"""Faults of the third QA pass, each tested for its whole kind.

- A damaged log record never reaches a summary: the hand-over waits and
  says why; ``memo check --repair`` restores what the record's place
  implies (its id, its date when both neighbours share one) and loses
  nothing; a record whose text is damaged is a person's step.
- Every order memo prints begins its line or is the last sentence of it
  (the seed's ``... up. Run: memo sleep``), and runs as printed; every step
  only a person may take is ``A person can run: <command>``.
- Argument and standard-input edges: ``memo init`` without MEMORY_DIR,
  ``-- -`` naming a file, over-long input on every stdin reader.
"""

from __future__ import annotations

import pytest

from conftest import answer_all
from helpers import LOG, notes, ok

# -- 1. a damaged record is never summarised ------------------------------------


# -- 2 and 5. every order and every person's step, as printed ------------------


# -- 3 and 4. arguments and standard input ----------------------------------


# -- 6. a damaged summary never locks wake, and its repair is handed over -------


# -- 6. hostile stores and inputs ------------------------------------------------


def test_a_path_outside_the_store_is_not_a_store_problem(memo, inited, tmp_path):
    result = memo("export", str(tmp_path / "no" / "such" / "dir" / "x.txt"))
    assert result.exit_code == 1
    assert "No such file or directory" in result.stderr and "memo check" not in result.stderr


@pytest.mark.parametrize("how", ["symlink", "hardlink"])
def test_a_level_file_linked_to_the_log_is_never_written_through(memo, inited, how):
    """``TREE/2`` as a link to ``LOG.txt``: ``memo forget 0-1`` cut the link's
    target, the log, to 0 bytes (every memory lost); a summary would have
    been appended into it. Now every command refuses, naming the move."""
    import os
    notes(memo, 5)
    log = (inited / "LOG.txt").read_bytes()
    level = inited / "TREE" / "2"
    if how == "symlink":
        os.symlink("../LOG.txt", level)
    else:
        os.link(inited / "LOG.txt", level)
    for args in [("forget", "0-1"), ("sleep", "0-1", "x"), ("note", "more"), ("redact", "0", "--yes"),
                 ("check",)]:
        result = memo(*args)
        assert result.exit_code == 1, (args, result.stdout)
        assert f"A person can run: mv -- {level} " in result.stdout + result.stderr
        assert (inited / "LOG.txt").read_bytes() == log
    level.unlink()
    answer_all(memo)
    assert ok(memo("check")).endswith("The store is whole.\n")


@pytest.mark.parametrize("name", [".append.tmp", "recovered.txt", ".append.kept"])
def test_no_store_file_is_written_through_a_link(memo, inited, name):
    import os
    notes(memo, 3)
    os.symlink("LOG.txt", inited / name)
    with open(inited / "LOG.txt", "ab") as f:
        f.write(b"torn")  # the next write keeps these bytes in recovered.txt
    log = (inited / "LOG.txt").read_bytes()
    result = memo("note", "after the link")
    now = (inited / "LOG.txt").read_bytes()
    assert now[:3 * LOG] == log[:3 * LOG]  # no memory lost or moved
    assert now.endswith(b"torn") or b"torn" in (inited / "recovered.txt").read_bytes()
    if result.exit_code:
        assert "is a link" in result.stderr and "A person can run: mv -- " in result.stderr
        assert len(now) <= len(log)  # nothing appended
    else:
        assert now[3 * LOG:].startswith(b"#3 ")

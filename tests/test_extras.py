"""The commands beyond the seed (docs/protocol.md):
``zoom``, ``config``, ``stats``, ``wake --max-bytes``, the duplicate check of
``note``, ``nap``, ``redact``, ``recall --json`` and ``check``.

Every test drives the real CLI through click's ``CliRunner`` and asserts the
exit code, stdout and stderr separately. Expected values are computed
independently of ``optmem`` where possible: from the import file, from the
bytes of ``LOG.txt`` and ``TREE/``, and from the wake documents themselves.
"""

from __future__ import annotations

from pathlib import Path

from conftest import answer_all, tree_records
from helpers import LOG, TREE, ok

# -- helpers ---------------------------------------------------------------


def level_lengths(root: Path) -> dict:
    return {s: len(recs) for s, recs in tree_records(root).items()}


# -- stores ------------------------------------------------------------------


# == zoom ===================================================================


# == config ================================================================


# == stats ==================================================================


# == wake --max-bytes ========================================================


# == duplicates ==============================================================


# == nap ======================================================================


# == redact ===================================================================


# == recall --json =============================================================


# == check ====================================================================

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

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

from conftest import tree_records

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

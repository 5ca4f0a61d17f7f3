"""The hand-over record: which blocks were handed over, over what, when, to whom.

One small file in the store, ``.handover`` (JSON, replaced whole under the
store lock), holding for every block handed over and not stored yet:

- ``digest``: a SHA-256 (hex) of the records the prompt showed (the raw
  log records of a block of up to ``RAW_PROMPT_MAX`` memories, else the
  summary records of its two halves);
- ``at``: when it was handed over (seconds since the epoch);
- ``session``: the ``MEMO_SESSION`` of the session it went to, or null.

``seen``: for every such block, the digest each known session was shown
last (``{"LO-HI": {session: digest}}``), so an answer from a session is
checked against what that session saw; and ``answers``: the last
``ANSWERS_KEPT`` answer times in seconds (from hand-over to stored
summary), from which the hold window is measured
(``engine.handover.hold_seconds``).

The file holds numbers and session names only, never a memory's text. A
missing or unreadable file is an empty record: every check then behaves
as memo did before the record existed.
"""

from __future__ import annotations

import json
import os

from optmem import atomic

HANDOVER_NAME = ".handover"
ANSWERS_KEPT = 32  #: answer times kept for the hold window
RECORD_LIMIT = 1 << 20  #: bytes read at most; a larger file is ignored as unreadable


def path_of(root: str) -> str:
    """The record's path in the store at ``root``."""
    return os.path.join(root, HANDOVER_NAME)


def read(root: str) -> dict:
    """The record as ``{"blocks": {"LO-HI": {...}}, "answers": [seconds],
    "seen": {"LO-HI": {session: digest}}}``;
    empty lists and maps when the file is absent, too large or malformed."""
    empty = {"blocks": {}, "answers": [], "seen": {}}
    try:
        with open(path_of(root), "rb") as f:
            data = f.read(RECORD_LIMIT + 1)
    except OSError:
        return empty
    if len(data) > RECORD_LIMIT:
        return empty
    try:
        doc = json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return empty
    if not isinstance(doc, dict):
        return empty
    got = doc.get("blocks")
    answers = doc.get("answers")
    out = {"blocks": {}, "answers": [], "seen": {}}
    seen = doc.get("seen")
    if isinstance(seen, dict):
        for name, who in seen.items():
            if isinstance(who, dict):
                out["seen"][str(name)] = {str(k): str(v) for k, v in who.items()
                                          if isinstance(v, str)}
    if isinstance(got, dict):
        for name, entry in got.items():
            if isinstance(entry, dict) and isinstance(entry.get("at"), (int, float)):
                out["blocks"][str(name)] = {
                    "digest": str(entry.get("digest") or ""),
                    "at": float(entry["at"]),
                    "session": (str(entry["session"]) if entry.get("session") else None),
                }
    if isinstance(answers, list):
        out["answers"] = [float(a) for a in answers[-ANSWERS_KEPT:]
                          if isinstance(a, (int, float)) and a >= 0]
    return out


def write(root: str, record: dict) -> None:
    """Replace the record with ``record`` (``read``'s shape). Under the store
    lock; atomically. Raises ``OSError`` as the system does."""
    doc = {"blocks": record.get("blocks", {}), "seen": record.get("seen", {}),
           "answers": list(record.get("answers", []))[-ANSWERS_KEPT:]}
    path = path_of(root)
    if not doc["blocks"] and not doc["answers"] and not doc["seen"]:
        if os.path.lexists(path):
            os.unlink(path)
        return
    atomic.replace_file(path, json.dumps(doc, sort_keys=True).encode("ascii"),
                        tmp=path + ".tmp")

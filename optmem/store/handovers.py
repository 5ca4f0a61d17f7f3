"""The hand-over record: which blocks were handed over, over what, when, to whom.

One small JSON file per store, kept with this user's state, never in the
store itself (a store synced with git or Syncthing would otherwise carry a
file that changes on every note into every merge): ``$XDG_STATE_HOME/optmem/
handover/<digest of the store's real path>.json`` (``~/.local/state`` by
default). It is read and replaced whole under the store's lock and holds,
for every block handed over and not stored yet:

- ``digest``: one short SHA-256 (hex) per record the prompt showed (the raw
  log records of a block of up to ``RAW_PROMPT_MAX`` memories, else the
  summaries of its two halves), comma-separated;
- ``at``: when it was handed over (seconds since the epoch);
- ``session``: the ``MEMO_SESSION`` of the session it went to, or null;
- ``both``: true when it was handed over where the global memory and a
  project's are read together (its order's flag may then be dropped by a
  seed client: ``session.sleep_store`` routes such a summary by it);

and ``seen``: for every such block, the digest each known session was shown
last (``{"LO-HI": {session: digest}}``), so an answer from a session is
checked against what that session saw. The file is removed once no block
is outstanding. ``handover-times.json`` beside the folder keeps the last
``ANSWERS_KEPT`` answer times in seconds (hand-over to stored summary, any
store of this user), from which the hold window is measured
(``engine.handover.hold_seconds``).

The files hold numbers and session names only, never a memory's text. A
missing file is an empty record: every check then behaves as memo did
before the record existed.
"""

from __future__ import annotations

import os

from optmem import atomic
from optmem.store.paths import state_dir

TIMES_NAME = "handover-times.json"
ANSWERS_KEPT = 32  #: answer times kept for the hold window
RECORD_LIMIT = 1 << 20  #: bytes read at most; a larger file is ignored as unreadable




def path_of(root: str) -> str:
    """The record's path for the store at ``root``."""
    import hashlib
    key = hashlib.sha256(os.path.realpath(root).encode("utf-8", "surrogateescape"))
    return os.path.join(state_dir(), "handover", key.hexdigest()[:24] + ".json")


def _times_path() -> str:
    return os.path.join(state_dir(), TIMES_NAME)


def _load(path: str) -> dict | None:
    """The JSON object in ``path``; ``{}`` when absent; None when unreadable."""
    try:
        with open(path, "rb") as f:
            data = f.read(RECORD_LIMIT + 1)
    except FileNotFoundError:
        return {}
    except OSError:
        return None
    import json  # memo wake on a store nobody hands over from pays nothing for it (1.2 ms)
    try:
        doc = json.loads(data.decode("utf-8")) if len(data) <= RECORD_LIMIT else None
    except (ValueError, UnicodeDecodeError):
        doc = None
    return doc if isinstance(doc, dict) else None


def _save(path: str, doc: dict) -> None:
    folder = os.path.dirname(path)
    if not os.path.isdir(folder):
        os.makedirs(folder, mode=0o700, exist_ok=True)
    import json
    atomic.replace_file(path, json.dumps(doc, sort_keys=True).encode("ascii"))


def read(root: str) -> dict:
    """The record as ``{"blocks": {"LO-HI": {...}}, "answers": [seconds],
    "seen": {"LO-HI": {session: digest}}}``, with ``"unreadable": True``
    added when a file is there that is not such a record (then it is never
    written over: callers record nothing); empty maps and lists when the
    file is absent."""
    out: dict = {"blocks": {}, "answers": [], "seen": {}}
    doc = _load(path_of(root))
    if doc is None:
        return dict(out, unreadable=True)
    got = doc.get("blocks")
    if isinstance(got, dict):
        for name, entry in got.items():
            if isinstance(entry, dict) and isinstance(entry.get("at"), (int, float)):
                out["blocks"][str(name)] = {
                    "digest": str(entry.get("digest") or ""),
                    "at": float(entry["at"]),
                    "session": (str(entry["session"]) if entry.get("session") else None),
                }
                if entry.get("both") is True:
                    out["blocks"][str(name)]["both"] = True
    seen = doc.get("seen")
    if isinstance(seen, dict):
        for name, who in seen.items():
            if isinstance(who, dict):
                out["seen"][str(name)] = {str(k): str(v) for k, v in who.items()
                                          if isinstance(v, str)}
    times = _load(_times_path()) or {}
    answers = times.get("answers")
    if isinstance(answers, list):
        out["answers"] = [float(a) for a in answers[-ANSWERS_KEPT:]
                          if isinstance(a, (int, float)) and a >= 0]
    return out


def write(root: str, record: dict) -> None:
    """Replace the record with ``record`` (``read``'s shape; the file is
    removed when no block is left) and, when ``record["answers"]`` changed,
    the answer times. Under the store lock; atomically. Raises ``OSError``
    as the system does."""
    path = path_of(root)
    doc = {"blocks": record.get("blocks", {}), "seen": record.get("seen", {})}
    if not doc["blocks"] and not doc["seen"]:
        if os.path.lexists(path):
            os.unlink(path)
    else:
        _save(path, doc)
    answers = list(record.get("answers", []))[-ANSWERS_KEPT:]
    times = _load(_times_path())
    if times is not None and times.get("answers") != answers and answers:
        _save(_times_path(), {"answers": answers})

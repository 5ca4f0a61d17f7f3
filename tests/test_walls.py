"""Smaller walls: what a stored line, a config line, a filesystem, a
deleted folder or a pasted token must not get past.

* frame tags: the write guard refuses a note or summary holding an opening
  or closing tag a harness frames context in; a record another tool wrote
  with one is shown with its ``<`` as U+FFFD;
* redact names every other file in or beside the store that still holds the
  text, and a summary answered from a hand-over made before the redaction is
  not stored over the changed block;
* config lines that set nothing are named by ``memo check`` and ``memo config``;
* a filesystem whose ``flock`` answers ENOSYS or ENOLCK is named at once;
* a deleted working directory, a permission error on ``TREE/`` and damage
  each get their own line; a refusal never repeats a credential-shaped
  argument; ``sleep`` on a read-only store says read-only.

All run in-process (``memo`` fixture) and work as root: permission errors
and missing lock support are faked at the system call, never by modes.
"""

from __future__ import annotations

import pytest

#: A credential shape every rule set knows (an OpenAI project key), made up.
TOKEN = "sk-proj-" + "Ab3dEf7h" * 6


# == frame tags ===============================================================


# == redact ===================================================================


# == config lines that set nothing ============================================


# == locks that cannot work ===================================================


# == right cause ==============================================================


@pytest.mark.parametrize("args, pos", [
    (["zoom", TOKEN], 2),
    (["forget", TOKEN], 2),
    (["wake", "1", TOKEN], 3),
    (["config", TOKEN], 2),
    (["config", f"WAKE_LINES={TOKEN}"], 2),
    (["redact", TOKEN, "--yes"], 2),
    (["sleep", TOKEN, "a line"], 2),
    (["note", f"--project={TOKEN}", "a fact"], 2),
])
def test_a_refusal_names_a_credential_argument_by_its_position(memo, inited, args, pos):
    result = memo(*args)
    assert result.exit_code in (1, 2)
    assert TOKEN not in result.stderr and TOKEN.upper() not in result.stderr
    assert TOKEN[:12] not in result.stderr
    assert f"argument {pos}" in result.stderr, result.stderr


def test_an_ordinary_argument_is_still_quoted(memo, inited):
    assert "'not-a-block'" in memo("zoom", "not-a-block").stderr

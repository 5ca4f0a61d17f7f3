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




# == frame tags ===============================================================


# == redact ===================================================================


# == config lines that set nothing ============================================


# == locks that cannot work ===================================================


# == right cause ==============================================================

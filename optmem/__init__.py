"""optmem: a permanent memory for AI agents (a Python OptMem).

The packages, top to bottom; a module imports only from the layers below
its own (pyproject.toml's ``[tool.importlinter]`` contracts, checked by
tests/test_layers.py):

- front ends: ``cli`` (the ``memo`` command), ``mcp`` (the MCP server),
  ``harness`` (``memo setup`` and the session-start hook);
- ``session``: what every command does over its stores (scope, hand-over,
  refusals, orders), for both front ends;
- ``scope`` and ``projects``: which stores a command uses;
- ``engine``: one store's commands (write, wake, hand-over, read, check,
  replicas);
- ``recall``: what ``memo recall`` finds and counts;
- ``store``: every byte on disk (records, journal, levels, config, lock,
  paths);
- ``guard``: what may be written (characters, frame tags, credentials);
- leaves that import nothing of memo's: ``blocks`` (block math),
  ``protocol`` (every line a program reads), ``dates``, ``textform``,
  ``errors``, ``deps``, ``atomic`` (replacing a file whole) and
  ``gitcall`` (running git).
"""

__version__ = "0.2.0"

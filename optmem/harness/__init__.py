"""Wiring memo into agent harnesses: ``memo setup`` and ``memo hook``.

One module per harness (``claude``, ``codex``, ``gemini``, ``agents``;
the MCP clients ``claude_desktop`` and ``cursor``, which get a
``mcpServers.memo`` entry running ``memo mcp`` instead of a hook),
each with the same small interface, so a new target is one new module
added to ``HARNESSES``:

- ``NAME``, ``TITLE``; ``SCOPES`` (the first is the default);
- ``edits(ctx) -> [edit.Edit]``: the files to change for ``ctx``;
- ``HOME_VARS`` (optional): variables that move the harness's folder,
  refused by setup when relative;
- ``next_steps(ctx) -> [str]``: what a person still has to do;
- for harnesses with a hook: ``HOOK_MAX_BYTES`` (the whole injected text's
  budget, in bytes of UTF-8), ``RESUME_REPLAYS``, ``ENV_FILES`` and
  ``hook_output(text) -> dict`` (the JSON the harness documents).

``edit`` holds the safe-edit rules every module's files go through;
``inject`` builds the text ``memo hook session-start`` prints;
``agent_block`` is the one source of the agent's rules.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field

from optmem import protocol
from optmem.harness import agents, claude, claude_desktop, codex, cursor, gemini

#: Every harness ``memo setup`` knows, by the name given on its command line.
HARNESSES = {m.NAME: m for m in (claude, codex, gemini, agents, claude_desktop, cursor)}


@dataclass
class Context:
    """Where setup writes: ``home`` and ``project`` (absolute folders), the
    ``scope`` (``user`` or ``project``), the store (absolute, or None for an
    uninstall that does not need it), the command that runs memo (argv list,
    absolute) and the environment (``CLAUDE_CONFIG_DIR``, ``CODEX_HOME``,
    ``GEMINI_CLI_HOME``: each absolute, or unset)."""
    home: str
    project: str
    scope: str
    memory_dir: str | None
    launcher: list = field(default_factory=list)
    environ: dict = field(default_factory=dict)
    #: The store is a git work tree with an upstream: the hooks sync it
    #: (fast-forwards only; ``optmem.engine.sync``).
    sync: bool = False

    def hook_command(self, harness: str, portable: bool = False) -> str:
        """The shell command a harness runs for ``SessionStart``.

        ``portable``: for a file a repository commits, ``memo hook ...``
        with no path of this machine (``memo`` on PATH and ``MEMORY_DIR`` in
        the harness's environment); otherwise the absolute launcher and
        ``--memory-dir``, so the hook works from any folder and any PATH."""
        return self._hook("session-start", harness, portable, ["--sync"] if self.sync else [])

    def end_command(self, harness: str, portable: bool = False) -> str:
        """The shell command a harness runs when a session ends (where the
        store syncs): ``memo hook session-end``, shaped as ``hook_command``."""
        return self._hook("session-end", harness, portable, [])

    def _hook(self, event: str, harness: str, portable: bool, extra: list) -> str:
        if portable:
            return " ".join(["memo", "hook", event, "--harness", harness, *extra])
        words = list(self.launcher) + ["hook", event, "--harness", harness]
        if self.memory_dir:
            words += ["--memory-dir", self.memory_dir]
        return protocol.shell(*words, *extra)


def launcher() -> list:
    """The argv that runs this memo from anywhere: the ``memo`` launcher
    that is running (absolute, links followed), else this interpreter with
    ``-m optmem``."""
    argv0 = sys.argv[0] if sys.argv else ""
    if os.path.basename(argv0) == "memo":
        path = argv0 if os.sep in argv0 else (_which(argv0) or "")
        if path and os.path.isfile(path):
            return [os.path.abspath(path)]
    return [os.path.abspath(sys.executable), "-m", "optmem"]


def _which(name: str):
    import shutil
    return shutil.which(name)

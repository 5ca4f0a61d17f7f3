"""Any agent that reads ``AGENTS.md`` (opencode, Cursor, Aider, others): the
agent block only, no hook.

Project scope only: the project's ``AGENTS.md``, and ``CLAUDE.md`` and
``GEMINI.md`` when they exist (one file behind several names is written
once). Without a hook the agent wakes itself, as the block says.
"""

from __future__ import annotations

import os

from optmem.harness import edit

NAME = "agents"
TITLE = "AGENTS.md"
SCOPES = ("project",)


def edits(ctx) -> list:
    out = [edit.block_edit(os.path.join(ctx.project, "AGENTS.md"))]
    for name in ("CLAUDE.md", "GEMINI.md"):
        path = os.path.join(ctx.project, name)
        if os.path.lexists(path):
            out.append(edit.block_edit(path))
    return out


def next_steps(ctx) -> list:
    return ["No hook here: the agent runs memo wake itself, as the block says, and needs "
            "MEMORY_DIR (absolute) in its environment. Aider reads AGENTS.md only when "
            "given (read: AGENTS.md in .aider.conf.yml)."]

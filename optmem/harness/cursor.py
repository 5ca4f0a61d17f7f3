"""Cursor: memo as an MCP server in the global ``~/.cursor/mcp.json``.

Cursor reads stdio MCP servers from ``mcpServers`` in ``~/.cursor/mcp.json``
(every project) and ``.cursor/mcp.json`` (one project, meant to be
committed) (cursor.com/docs, "Model Context Protocol"). The entry holds
this machine's paths (the absolute launcher, ``MEMORY_DIR``), so only the
global, user-level file is written, never the project's.
"""

from __future__ import annotations

import os

from optmem.harness import edit

NAME = "cursor"
TITLE = "Cursor"
SCOPES = ("user",)


def config_path(ctx) -> str:
    """``~/.cursor/mcp.json`` (``%USERPROFILE%\\.cursor`` on Windows)."""
    return os.path.join(ctx.home, ".cursor", "mcp.json")


def edits(ctx) -> list:
    return [edit.mcp_edit(config_path(ctx), edit.mcp_entry(ctx.launcher, ctx.memory_dir))]


def next_steps(ctx) -> list:
    return ["Reload Cursor (or switch the memo server on in its MCP settings); Cursor "
            "asks before the agent's first call to each tool unless you allow it."]

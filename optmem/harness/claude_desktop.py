"""Claude Desktop: memo as an MCP server in ``claude_desktop_config.json``.

Claude Desktop has no shell hook; it starts the MCP servers listed under
``mcpServers`` in its user-level config file (modelcontextprotocol.io,
"Connect to local MCP servers"): on macOS
``~/Library/Application Support/Claude/claude_desktop_config.json``, on
Windows ``%APPDATA%\\Claude\\claude_desktop_config.json``. Anthropic ships
no Linux build; community builds read ``$XDG_CONFIG_HOME/Claude/`` (default
``~/.config/Claude/``), which is used there. The entry carries the absolute
launcher and ``MEMORY_DIR`` in ``env``: a desktop app gets neither the
shell's ``PATH`` nor its variables. The app reads the file at start.
"""

from __future__ import annotations

import os
import sys

from optmem.harness import edit

NAME = "claude-desktop"
TITLE = "Claude Desktop"
SCOPES = ("user",)
FILE = "claude_desktop_config.json"
#: The variable that moves the config folder on this platform.
HOME_VARS = (() if sys.platform == "darwin" else ("APPDATA",) if sys.platform.startswith("win")
             else ("XDG_CONFIG_HOME",))


def config_path(ctx, platform: str | None = None) -> str:
    """The config file for ``platform`` (default ``sys.platform``)."""
    platform = platform or sys.platform
    if platform == "darwin":
        folder = os.path.join(ctx.home, "Library", "Application Support", "Claude")
    elif platform.startswith("win"):
        appdata = ctx.environ.get("APPDATA") or os.path.join(ctx.home, "AppData", "Roaming")
        folder = os.path.join(appdata, "Claude")
    else:
        xdg = ctx.environ.get("XDG_CONFIG_HOME") or os.path.join(ctx.home, ".config")
        folder = os.path.join(xdg, "Claude")
    return os.path.join(folder, FILE)


def edits(ctx) -> list:
    return [edit.mcp_edit(config_path(ctx), edit.mcp_entry(ctx.launcher, ctx.memory_dir))]


def next_steps(ctx) -> list:
    return ["Quit Claude Desktop completely and start it again: it reads its MCP servers "
            "only at start. The memo tools then appear in its tools menu."]

"""OpenAI Codex: ``SessionStart`` hook in ``hooks.json``, ``AGENTS.md`` block.

Files (docs/harness.md): user scope ``$CODEX_HOME/hooks.json``
(default ``~/.codex``) and ``$CODEX_HOME/AGENTS.md``; project scope the
project's ``.codex/hooks.json`` and ``AGENTS.md`` (an ``AGENTS.override.md``
at that level is read instead, so it gets the block). Codex has no
uncommitted project settings file, so the project's hook names no path: it
runs ``memo`` from PATH with ``MEMORY_DIR`` from Codex's environment.

Codex validates SessionStart output strictly (unknown keys fail the hook)
and spills a hook text above about 2,500 tokens (bytes/4) to a file, so the
output is only ``hookSpecificOutput`` and the text gets 9,000 bytes.
Codex runs a new or changed hook only after the person trusts it in
``/hooks``: setup says so. ``MEMORY_DIR`` reaches the agent's shell through
``CODEX_ENV_FILE``, which the hook writes.
"""

from __future__ import annotations

import os

from optmem.harness import edit

NAME = "codex"
TITLE = "Codex"
SCOPES = ("user", "project")
EVENT = "SessionStart"
MATCHER = "startup|resume|clear|compact"
TIMEOUT_S = 30
CAP_TOKENS = 2_500
HOOK_MAX_BYTES = 9_000
RESUME_REPLAYS = False
ENV_FILES = ("CODEX_ENV_FILE", "CLAUDE_ENV_FILE")
HOME_VARS = ("CODEX_HOME",)
STATUS = "optmem: loading memory"


def codex_home(ctx) -> str:
    """``$CODEX_HOME`` or ``~/.codex``."""
    return ctx.environ.get("CODEX_HOME") or os.path.join(ctx.home, ".codex")


def group(ctx) -> dict:
    portable = ctx.scope == "project"
    return {"matcher": MATCHER,
            "hooks": [{"type": "command", "command": ctx.hook_command(NAME, portable),
                       "timeout": TIMEOUT_S, "statusMessage": STATUS}]}


def _agents_file(folder: str) -> str:
    override = os.path.join(folder, "AGENTS.override.md")
    return override if os.path.lexists(override) else os.path.join(folder, "AGENTS.md")


def edits(ctx) -> list:
    if ctx.scope == "user":
        folder = codex_home(ctx)
        hooks = os.path.join(folder, "hooks.json")
        local = True
    else:
        folder = ctx.project
        hooks = os.path.join(folder, ".codex", "hooks.json")
        local = False
    return [edit.settings_edit(hooks, EVENT, group(ctx), local=local),
            edit.block_edit(_agents_file(folder))]


def hook_output(text: str) -> dict:
    return {"hookSpecificOutput": {"hookEventName": EVENT, "additionalContext": text}}


def next_steps(ctx) -> list:
    steps = ["Codex runs a new or changed hook only after you trust it: open /hooks in "
             "Codex and trust memo's SessionStart hook (until then it is silently skipped)."]
    if ctx.scope == "project":
        steps.append("The project's .codex/hooks.json names no path of this machine: start "
                     "Codex with memo on PATH and MEMORY_DIR exported, and trust the project "
                     "(codex asks, or [projects.'<dir>'] trust_level = \"trusted\").")
    steps.append("The hook exports MEMORY_DIR into Codex's shell commands (CODEX_ENV_FILE); "
                 "on a Codex without that, add this line under the [shell_environment_policy] "
                 "table of ~/.codex/config.toml (a table header stands on a line of its own; "
                 "add one if the file has none): "
                 f"set = {{ MEMORY_DIR = \"{ctx.memory_dir or '<store>'}\" }}")
    return steps

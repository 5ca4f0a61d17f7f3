"""Gemini CLI: ``SessionStart`` hook in ``settings.json``, ``GEMINI.md`` block.

Files (docs/harness.md): user scope ``~/.gemini/settings.json`` and
``~/.gemini/GEMINI.md`` (``$GEMINI_CLI_HOME`` stands for the home there);
project scope ``.gemini/settings.json`` (committed, so its hook names no
path) and the project's ``GEMINI.md``. Lifecycle matchers are exact
strings, so the group has none (every source); the timeout is in
milliseconds. Gemini has no SessionStart after compression:
the block's fallback (``memo wake`` when the memory is not in context)
covers it, and setup says so.

The agent's shell commands get ``MEMORY_DIR`` from ``.gemini/.env``:
Gemini CLI loads the first ``.env`` file it finds (``.gemini/.env`` or
``.env`` from the working folder up, then ``~/.gemini/.env``, then
``~/.env``; not merged) into its own environment, which its shell tool
passes on. User scope writes ``MEMORY_DIR=<store>`` into
``$GEMINI_CLI_HOME/.gemini/.env``; a project with a ``.env`` of its own
hides that file, so setup prints the one line a person adds there.
"""

from __future__ import annotations

import os

from optmem.harness import edit

NAME = "gemini"
TITLE = "Gemini CLI"
SCOPES = ("user", "project")
EVENT = "SessionStart"
END_EVENT = "SessionEnd"
TIMEOUT_MS = 30_000
HOOK_MAX_BYTES = 9_000
RESUME_REPLAYS = False
ENV_FILES = ()
#: Gemini CLI's user folder is ``$GEMINI_CLI_HOME/.gemini`` (default: the home).
HOME_VARS = ("GEMINI_CLI_HOME",)


def group(ctx) -> dict:
    portable = ctx.scope == "project"
    return {"hooks": [{"type": "command", "name": "optmem",
                       "command": ctx.hook_command(NAME, portable), "timeout": TIMEOUT_MS}]}


def end_groups(ctx) -> dict:
    """``{"SessionEnd": group}`` where the store syncs (``ctx.sync``), else
    nothing."""
    if not ctx.sync:
        return {}
    return {END_EVENT: {"hooks": [{"type": "command", "name": "optmem-sync",
                                   "command": ctx.end_command(NAME, ctx.scope == "project"),
                                   "timeout": TIMEOUT_MS}]}}


def user_dir(ctx) -> str:
    """``$GEMINI_CLI_HOME/.gemini``, or ``~/.gemini``."""
    return os.path.join(ctx.environ.get("GEMINI_CLI_HOME") or ctx.home, ".gemini")


def edits(ctx) -> list:
    if ctx.scope == "user":
        folder = user_dir(ctx)
        out = [edit.settings_edit(os.path.join(folder, "settings.json"), EVENT, group(ctx),
                                  also=end_groups(ctx), drop=(END_EVENT,)),
               edit.block_edit(os.path.join(folder, "GEMINI.md"))]
        if ctx.memory_dir:
            out.append(edit.dotenv_edit(os.path.join(folder, ".env"),
                                        {"MEMORY_DIR": ctx.memory_dir}))
        return out
    return [edit.settings_edit(os.path.join(ctx.project, ".gemini", "settings.json"), EVENT,
                               group(ctx), local=False, also=end_groups(ctx),
                               drop=(END_EVENT,)),
            edit.block_edit(os.path.join(ctx.project, "GEMINI.md"))]


def hook_output(text: str) -> dict:
    return {"hookSpecificOutput": {"hookEventName": EVENT, "additionalContext": text}}


def next_steps(ctx) -> list:
    steps = ["Gemini CLI does not run SessionStart after /compress: after a compression "
             "the agent block tells the agent to run memo wake."]
    if ctx.scope == "project":
        steps.append("The project's .gemini/settings.json names no path of this machine: "
                     "start gemini with memo on PATH and MEMORY_DIR exported.")
    if ctx.memory_dir:
        what = ("~/.gemini/.env gives the agent's shell commands MEMORY_DIR, but "
                if ctx.scope == "user" else "")
        steps.append(f"{what.capitalize() if not what else what}Gemini CLI loads only the "
                     f"first .env it finds, so in a project with a .gemini/.env or .env of "
                     f"its own, add the line MEMORY_DIR={ctx.memory_dir} to that file.")
    return steps

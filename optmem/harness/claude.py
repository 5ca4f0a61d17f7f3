"""Claude Code: ``SessionStart`` hook, ``env.MEMORY_DIR``, ``CLAUDE.md`` block.

Files (docs/harness.md): user scope ``~/.claude/settings.json``
(``$CLAUDE_CONFIG_DIR`` moves ``~/.claude``) and ``~/.claude/CLAUDE.md``;
project scope ``.claude/settings.local.json`` (uncommitted: it holds this
machine's paths) and the project's ``CLAUDE.md`` (committed: the block
names no path). ``.claude/settings.json`` is never written.

The hook runs on ``startup|resume|clear|compact|fork`` (an exact-list
matcher), not async (async SessionStart output is never injected), with a
30 s timeout; its output is ``hookSpecificOutput.additionalContext`` (the
nested envelope: a flat one is dropped beside other hooks). Each value is
cut to a preview above 10,000 characters, so the whole text gets 9,000
bytes, which is at most 9,000 characters.
"""

from __future__ import annotations

import os

from optmem.harness import edit

NAME = "claude"
TITLE = "Claude Code"
SCOPES = ("user", "project")
EVENT = "SessionStart"
END_EVENT = "SessionEnd"
MATCHER = "startup|resume|clear|compact|fork"
TIMEOUT_S = 30
#: The cap on one injected value (characters), and the budget used under it.
CAP_CHARS = 10_000
HOOK_MAX_BYTES = 9_000
#: ``--resume`` replays the text injected earlier in the session.
RESUME_REPLAYS = True
ENV_FILES = ("CLAUDE_ENV_FILE",)
#: Variables that move the harness's own folder (absolute, or setup refuses).
HOME_VARS = ("CLAUDE_CONFIG_DIR",)
STATUS = "optmem: loading memory"


def config_dir(ctx) -> str:
    """``$CLAUDE_CONFIG_DIR`` or ``~/.claude``."""
    return ctx.environ.get("CLAUDE_CONFIG_DIR") or os.path.join(ctx.home, ".claude")


def group(ctx) -> dict:
    """The matcher group ``setup`` writes under ``hooks.SessionStart``."""
    return {"matcher": MATCHER,
            "hooks": [{"type": "command", "command": ctx.hook_command(NAME),
                       "timeout": TIMEOUT_S, "statusMessage": STATUS}]}


def edits(ctx) -> list:
    if ctx.scope == "user":
        settings = os.path.join(config_dir(ctx), "settings.json")
        memory = os.path.join(config_dir(ctx), "CLAUDE.md")
    else:
        settings = os.path.join(ctx.project, ".claude", "settings.local.json")
        memory = os.path.join(ctx.project, "CLAUDE.md")
    env = {"MEMORY_DIR": ctx.memory_dir} if ctx.memory_dir else {}
    return [edit.settings_edit(settings, EVENT, group(ctx), env, also=end_groups(ctx),
                               drop=(END_EVENT,)),
            edit.block_edit(memory)]


def end_groups(ctx) -> dict:
    """``{"SessionEnd": group}`` where the store syncs (``ctx.sync``): the
    session's last notes go to the hub; else nothing."""
    if not ctx.sync:
        return {}
    return {END_EVENT: {"hooks": [{"type": "command", "command": ctx.end_command(NAME),
                                   "timeout": TIMEOUT_S}]}}


def hook_output(text: str) -> dict:
    return {"hookSpecificOutput": {"hookEventName": EVENT, "additionalContext": text}}


def next_steps(ctx) -> list:
    steps = ["Claude Code loads the hook in its next session; in an interactive session "
             "it runs hooks only once the folder's workspace trust dialog is accepted."]
    local = os.path.join(ctx.project, ".claude", "settings.local.json")
    if ctx.scope == "project" and edit.committable(os.path.realpath(local)) is not None:
        steps.append(".claude/settings.local.json holds this machine's paths and git does "
                     "not ignore it here: add it to .gitignore (or .git/info/exclude) before "
                     "the next commit.")
    return steps

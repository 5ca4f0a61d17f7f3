"""A small stand-in for a harness's SessionStart, to test ``memo setup`` and
``memo hook`` with no harness installed.

It does what the harness documents (docs/harness.md, with sources), and
nothing more:

- reads the settings files the harness reads, at every level, and merges
  their hook entries (Claude Code: ``~/.claude/settings.json``, the
  project's ``.claude/settings.json`` and ``.claude/settings.local.json``;
  identical handlers run once). ``env`` merges with the local file winning;
- picks the matcher groups whose matcher matches the ``source`` (Claude
  Code: ``*``, empty or missing match all; letters, digits, ``_``, ``-``,
  spaces, ``,`` and ``|`` are an exact list; anything else an unanchored
  regex. Codex: a regex, ``*``/empty/missing match all);
- runs each ``command`` with ``sh -c`` from a folder unrelated to the
  project, stdin the harness's JSON (the ``timeout`` is read, not
  enforced: the tests hold no clock; a handler without one fails);
- keeps what would reach the model: exit 0 only; stdout that starts with
  ``{`` is JSON (Claude Code: invalid JSON is plain text; Codex: it fails
  the hook, as does a key its strict output schema does not allow), and
  ``hookSpecificOutput.additionalContext`` is the text; a Claude Code value
  over 10,000 characters becomes a preview and a file path, a Codex text
  over 2,500 approximate tokens (4 bytes each) likewise.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass, field

CLAUDE_CAP_CHARS = 10_000
CLAUDE_PREVIEW_CHARS = 2_000
CODEX_CAP_TOKENS = 2_500
#: Codex's strict SessionStart output: the keys it allows.
CODEX_TOP_KEYS = {"continue", "stopReason", "suppressOutput", "systemMessage", "hookSpecificOutput"}
CODEX_SPECIFIC_KEYS = {"hookEventName", "additionalContext"}


@dataclass
class Delivery:
    """What one SessionStart gave the model: each handler's text as the
    model sees it, and each handler's raw run."""
    texts: list = field(default_factory=list)
    runs: list = field(default_factory=list)  #: (command, exit code, stdout, stderr)
    previewed: int = 0  #: values replaced by a preview (over the cap)
    failed: int = 0     #: handlers whose output the harness rejected or lost


def _load(path: str) -> dict:
    try:
        with open(path, encoding="utf-8-sig") as f:
            data = json.load(f)
    except FileNotFoundError:
        return {}
    return data if isinstance(data, dict) else {}


def settings_files(harness: str, home: str, project: str, environ=None) -> list:
    """The settings files the harness reads, lowest precedence first."""
    environ = environ or {}
    if harness == "claude":
        cfg = environ.get("CLAUDE_CONFIG_DIR") or os.path.join(home, ".claude")
        return [os.path.join(cfg, "settings.json"),
                os.path.join(project, ".claude", "settings.json"),
                os.path.join(project, ".claude", "settings.local.json")]
    if harness == "codex":
        codex_home = environ.get("CODEX_HOME") or os.path.join(home, ".codex")
        return [os.path.join(codex_home, "hooks.json"),
                os.path.join(project, ".codex", "hooks.json")]
    if harness == "gemini":
        gemini_home = environ.get("GEMINI_CLI_HOME") or home
        return [os.path.join(gemini_home, ".gemini", "settings.json"),
                os.path.join(project, ".gemini", "settings.json")]
    raise ValueError(harness)


def matches(harness: str, matcher, source: str) -> bool:
    """Whether a matcher group's ``matcher`` selects ``source``."""
    if matcher in (None, "", "*"):
        return True
    if harness == "gemini":
        return matcher == source
    if harness == "claude" and re.fullmatch(r"[A-Za-z0-9_ ,|-]+", matcher):
        return source in {w.strip() for w in re.split(r"[|,]", matcher)}
    return re.search(matcher, source) is not None


def handlers(harness: str, home: str, project: str, source: str, environ=None) -> tuple:
    """``([handler, ...], env)``: the SessionStart handlers that run for
    ``source`` (identical ones once) and the merged settings ``env``."""
    out, seen, env = [], set(), {}
    for path in settings_files(harness, home, project, environ):
        data = _load(path)
        if isinstance(data.get("env"), dict) and harness == "claude":
            env.update(data["env"])
        for group in (data.get("hooks") or {}).get("SessionStart", []):
            if not matches(harness, group.get("matcher"), source):
                continue
            for h in group.get("hooks", []):
                if h.get("type") != "command" or h.get("async"):
                    continue
                key = json.dumps(h, sort_keys=True)
                if key not in seen:
                    seen.add(key)
                    out.append(h)
    return out, env


def deliver(harness: str, stdout: str) -> tuple:
    """``(text or None, previewed, failed)``: what the model gets from one
    handler that exited 0 with ``stdout``."""
    body = stdout.lstrip()
    if not body:
        return None, False, False
    text = None
    if body.startswith("{"):
        try:
            data = json.loads(body)
        except ValueError:
            if harness != "claude":
                return None, False, True
            text = body  # Claude Code: not JSON after all, so plain text
        else:
            if not isinstance(data, dict):
                return None, False, True
            if harness == "codex":
                spec = data.get("hookSpecificOutput", {})
                if set(data) - CODEX_TOP_KEYS or not isinstance(spec, dict) \
                        or set(spec) - CODEX_SPECIFIC_KEYS:
                    return None, False, True
            spec = data.get("hookSpecificOutput")
            if not isinstance(spec, dict) or spec.get("hookEventName") != "SessionStart":
                return None, False, harness != "claude"
            text = spec.get("additionalContext")
            if not isinstance(text, str):
                return None, False, True
    else:
        if harness == "gemini":
            return None, False, True  # Gemini: stdout must be JSON
        text = body.strip() if harness == "codex" else body
    if harness == "claude" and len(text) > CLAUDE_CAP_CHARS:
        return (f"<persisted-output>Output too large. Full output saved to: "
                f"/session/hook-output.txt\nPreview (first 2KB):\n"
                f"{text[:CLAUDE_PREVIEW_CHARS]}</persisted-output>"), True, False
    if harness == "codex" and (len(text.encode("utf-8")) + 3) // 4 > CODEX_CAP_TOKENS:
        head, tail = text[:1000], text[-1000:]
        return (f"{head}\n...\n{tail}\nFull hook output saved to: /codex/hook_outputs/x.txt",
                True, False)
    return text, False, False


def session_start(harness: str, home: str, project: str, source: str, stdin: dict,
                  cwd: str, environ: dict) -> Delivery:
    """Run SessionStart for ``source`` as the harness would; return what
    reaches the model. ``environ`` is the environment the harness itself
    was started with (``HOME`` is set to ``home``)."""
    found, env = handlers(harness, home, project, source, environ)
    run_env = dict(environ, HOME=home, **env)
    result = Delivery()
    payload = json.dumps(dict(stdin, source=source, cwd=project))
    for h in found:
        if not isinstance(h.get("timeout"), (int, float)) or h["timeout"] <= 0:
            result.failed += 1  # ours always sets one: a slow store must not hang a session
            continue
        p = subprocess.run(["sh", "-c", h["command"]], input=payload, cwd=cwd,
                           env=run_env, capture_output=True, text=True)
        result.runs.append((h["command"], p.returncode, p.stdout, p.stderr))
        if p.returncode != 0:
            result.failed += 1  # the person sees "hook error"; the model sees nothing
            continue
        text, previewed, failed = deliver(harness, p.stdout)
        result.previewed += previewed
        result.failed += failed
        if text is not None:
            result.texts.append(text)
    return result

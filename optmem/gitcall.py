"""The one way memo runs git: ``run_git`` starts it with no prompt and no
input, under a timeout, and says in its status whether git answered, is
missing, was too slow or could not be started. Callers choose the
environment (``git_env``) and read the output."""

from __future__ import annotations

import os
from typing import NamedTuple

#: Statuses of a git that did not answer (a real exit status is >= 0).
MISSING, SLOW, BROKEN = -1, -2, -3

#: Options for a git call that runs none of the repository's own programs:
#: no hook, no file-system monitor.
SAFE_OPTIONS = ("-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false")

#: Variables that point git at another repository than the folder's own.
POINTERS = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY",
            "GIT_INDEX_FILE", "GIT_CONFIG", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT")


class Answer(NamedTuple):
    """What one git call gave: ``status`` (its exit status, or ``MISSING``,
    ``SLOW``, ``BROKEN``) and ``out``, its standard output (bytes; empty
    when it did not answer)."""

    status: int
    out: bytes
    err: bytes = b""  #: standard error, when the call asked for it (``stderr``)

    @property
    def ok(self) -> bool:
        """True when git ran and exited 0."""
        return self.status == 0

    def text(self) -> str:
        """The output as text (UTF-8, U+FFFD for bad bytes), stripped."""
        return self.out.decode("utf-8", "replace").strip()

    def said(self, limit: int = 300) -> str:
        """What git said on standard error, as one line of at most ``limit``
        characters (its ``fatal:`` lines, else its last
        non-empty lines, joined by ``; ``), or how it did not answer
        (missing, too slow, not started)."""
        if self.status == MISSING:
            return "git is not on PATH"
        if self.status == SLOW:
            return "git did not answer in time"
        if self.status == BROKEN:
            return "git could not be started"
        lines = [ln.strip() for ln in self.err.decode("utf-8", "replace").splitlines()]
        lines = [ln for ln in lines if ln and not ln.startswith("hint:")]
        # git's own verdict first: its later lines are often only advice
        first = [ln for ln in lines if ln.startswith("fatal:")]
        text = "; ".join(first[:3] or lines[-3:]) or f"exit status {self.status}"
        text = "".join(ch if ch.isprintable() else "?" for ch in text)
        return text if len(text) <= limit else text[:limit - 3] + "..."


def folder_env() -> dict:
    """The environment of a git call that asks about a folder's own
    repository (is it a work tree, would git commit a file there): this
    process's environment without the variables that point git at another
    repository (``POINTERS``), without optional locks (a question never
    takes the index lock another git holds)."""
    return git_env(POINTERS, GIT_OPTIONAL_LOCKS="0")


def git_env(drop: tuple = (), **settings: str) -> dict:
    """This process's environment without the variables in ``drop``, with
    ``settings`` set: the environment one git call runs in."""
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(settings)
    return env


def run_git(args: list, cwd: str | None = None, env: dict | None = None,
            timeout: float = 10.0, stderr: bool = False) -> Answer:
    """Run ``git [-C cwd] args`` with standard input closed and standard
    error dropped (kept in ``Answer.err`` with ``stderr``); ``timeout`` in
    seconds (the call is then killed and the status is ``SLOW``). ``env``
    defaults to this process's environment. Never raises for a git that
    is absent or fails."""
    # Imported here: every command imports this module (through projects),
    # few run git; subprocess cost memo wake 1.7 ms of start-up at import.
    import subprocess
    where = ["-C", cwd] if cwd else []
    try:
        done = subprocess.run(["git", *where, *args], stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE if stderr else subprocess.DEVNULL,
                              env=env, timeout=timeout)
    except FileNotFoundError:
        return Answer(MISSING, b"")
    except subprocess.TimeoutExpired:
        return Answer(SLOW, b"")
    except (OSError, subprocess.SubprocessError, ValueError):
        return Answer(BROKEN, b"")
    return Answer(done.returncode, done.stdout, done.stderr or b"")

"""The one way memo runs git: ``run_git`` starts it with no prompt and no
input, under a timeout, and says in its status whether git answered, is
missing, was too slow or could not be started. Callers choose the
environment (``git_env``) and read the output."""

from __future__ import annotations

import os
from typing import NamedTuple

#: Statuses of a git that did not answer (a real exit status is >= 0).
MISSING, SLOW, BROKEN = -1, -2, -3

#: Variables that point git at another repository than the folder's own.
POINTERS = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY",
            "GIT_INDEX_FILE", "GIT_CONFIG", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT")


class Answer(NamedTuple):
    """What one git call gave: ``status`` (its exit status, or ``MISSING``,
    ``SLOW``, ``BROKEN``) and ``out``, its standard output (bytes; empty
    when it did not answer)."""

    status: int
    out: bytes

    @property
    def ok(self) -> bool:
        """True when git ran and exited 0."""
        return self.status == 0

    def text(self) -> str:
        """The output as text (UTF-8, U+FFFD for bad bytes), stripped."""
        return self.out.decode("utf-8", "replace").strip()


def git_env(drop: tuple = (), **settings: str) -> dict:
    """This process's environment without the variables in ``drop``, with
    ``settings`` set: the environment one git call runs in."""
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(settings)
    return env


def run_git(args: list, cwd: str | None = None, env: dict | None = None,
            timeout: float = 10.0) -> Answer:
    """Run ``git [-C cwd] args`` with standard input closed and standard
    error dropped; ``timeout`` in seconds (the call is then killed and the
    status is ``SLOW``). ``env`` defaults to this process's environment.
    Never raises for a git that is absent or fails."""
    # Imported here: every command imports this module (through projects),
    # few run git; subprocess cost memo wake 1.7 ms of start-up at import.
    import subprocess
    where = ["-C", cwd] if cwd else []
    try:
        done = subprocess.run(["git", *where, *args], stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              env=env, timeout=timeout)
    except FileNotFoundError:
        return Answer(MISSING, b"")
    except subprocess.TimeoutExpired:
        return Answer(SLOW, b"")
    except (OSError, subprocess.SubprocessError, ValueError):
        return Answer(BROKEN, b"")
    return Answer(done.returncode, done.stdout)

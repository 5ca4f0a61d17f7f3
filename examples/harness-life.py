#!/usr/bin/env python3
"""``memo setup`` end to end for Claude Code and Codex, with no harness.

For each harness and scope: a temporary HOME and project with files a
person already has; ``memo setup`` run twice (the second run must change no
byte); the test suite's harness emulator (``tests/harness_emulator.py``)
reads the written settings as the harness does and runs SessionStart
``startup`` and ``compact`` from an unrelated folder on a store of the
first 1,000 memories of the click history with every compression pending;
then ``memo setup --uninstall`` must give back every file byte for byte.

    python examples/harness-life.py [MEMO...]   # default: this python -m optmem

Prints what it did and exits 1 if any check fails.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
import harness_emulator as emu  # noqa: E402

MEMO = sys.argv[1:] or [sys.executable, "-m", "optmem"]
HISTORY = REPO / "tests" / "data" / "click-history.txt"
failed = []


def check(ok: bool, what: str) -> None:
    print(f"  {'ok  ' if ok else 'FAIL'} {what}")
    if not ok:
        failed.append(what)


def digest(root: Path) -> dict:
    """path -> sha256 of every file (and link target) under root, but memo's
    own state folder (~/.local/state/optmem: the setup record and backups)."""
    out = {}
    for p in sorted(root.rglob("*")):
        rel = str(p.relative_to(root))
        if rel.startswith(".local"):
            continue
        if p.is_symlink():
            out[rel] = "-> " + os.readlink(p)
        elif p.is_file():
            out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()[:12]
        else:
            out[rel] = "dir"
    return out


def memo(env, *args, cwd=None) -> str:
    p = subprocess.run(MEMO + list(args), env=env, cwd=cwd, capture_output=True, text=True)
    if p.returncode != 0:
        print(p.stdout + p.stderr)
        raise SystemExit(f"memo {' '.join(args)} failed")
    return p.stdout


def life(harness: str, scope: str, base: Path) -> None:
    home, project, elsewhere, store = (base / n for n in ("home", "project", "elsewhere", "mem"))
    for d in (home, project, elsewhere):
        d.mkdir()
    env = {"PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"],
           "HOME": str(home), "MEMORY_DIR": str(store), "LANG": "C.UTF-8"}
    memo(env, "init")
    src = base / "click-1000.txt"
    src.write_text("".join(HISTORY.read_text(encoding="utf-8").splitlines(True)[:1000]),
                   encoding="utf-8")
    imported = memo(env, "import", str(src)).splitlines()[0]
    # what a person already has
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text(
        '{\n  "model": "opus",\n  "permissions": {"allow": ["Bash(make test)"]}\n}\n')
    (project / "CLAUDE.md").write_bytes(b"\xef\xbb\xbf# Project\r\n\r\nUse tabs.\r\n")
    (project / "AGENTS.md").write_text("# Agents\n\nRun make test.")
    before = {"home": digest(home), "project": digest(project)}
    print(f"\n== {harness} --scope {scope}: {imported}")
    first = memo(env, "setup", harness, "--scope", scope, cwd=project)
    print("\n".join("  | " + line for line in first.splitlines()))
    once = {"home": digest(home), "project": digest(project)}
    second = memo(env, "setup", harness, "--scope", scope, cwd=project)
    check({"home": digest(home), "project": digest(project)} == once
          and "Nothing to change." in second, "second setup changes no byte ('Nothing to change.')")
    changed = sorted(k for k in set(once["home"]) | set(once["project"])
                     if once["home"].get(k, once["project"].get(k)) !=
                     before["home"].get(k, before["project"].get(k)))
    print(f"  files setup wrote or made: {changed}")
    environ = dict(env)
    stdin = {"session_id": f"{harness}-demo", "hook_event_name": "SessionStart"}
    for source in ("startup", "compact"):
        got = emu.session_start(harness, str(home), str(project), source, stdin,
                                str(elsewhere), environ)
        texts = got.texts
        ok = (len(texts) == 1 and got.previewed == 0 and got.failed == 0)
        text = texts[0] if texts else ""
        cap = ("10,000 characters" if harness == "claude" else "2,500 tokens (bytes/4)")
        check(ok and len(text) <= 10_000 and text.endswith("You are awake.")
              and "#999 " in text and "Run: memo sleep" in text,
              f"{source}: one text reached the model whole: {len(text)} characters, "
              f"{len(text.encode())} bytes (cap {cap}), {text.count(chr(10)) + 1} lines, "
              f"ends 'You are awake.', holds #999 and 'Run: memo sleep'")
        if source == "compact":
            lines = text.splitlines()
            print("  first lines:  " + "\n                ".join(line[:110] for line in lines[:3]))
            print("  last lines:   " + "\n                ".join(line[:110] for line in lines[-4:]))
    memo(env, "setup", harness, "--scope", scope, "--uninstall", cwd=project)
    after = {"home": digest(home), "project": digest(project)}
    check(after == before, "--uninstall: every file under HOME and the project byte for byte "
          "as before (sha256 of each), no file or folder left over")
    got = emu.session_start(harness, str(home), str(project), "startup", stdin,
                            str(elsewhere), environ)
    check(got.texts == [], "after --uninstall nothing reaches the model")


def main() -> int:
    for harness in ("claude", "codex"):
        for scope in ("user", "project"):
            with tempfile.TemporaryDirectory(prefix=f"optmem-{harness}-{scope}-") as tmp:
                life(harness, scope, Path(tmp))
    print(f"\n{'all checks passed' if not failed else f'{len(failed)} checks FAILED'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

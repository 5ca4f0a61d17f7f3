"""The later OptMem's clients with a project active (``MEMO_ORDERS=nap``).

Such a client reads ``Run: .+ nap (\\d+-\\d+) "<your line>"$`` and runs
``memo nap LO-HI "<line>"`` itself, without memo's scope flag. With two
stores the order still names its store, before the verb, so the pattern
reads it; and the flagless answer lands in the store whose block is next.
"""

import os
import re
import subprocess
import sys

import pytest

NAP = re.compile(r'Run: .+ nap (\d+-\d+) "<your line>"$')
MEMO = [sys.executable, "-m", "optmem"]


def _memo(env, cwd, *args):
    return subprocess.run(MEMO + list(args), env=env, cwd=cwd, capture_output=True, text=True)


@pytest.fixture()
def two_stores(tmp_path):
    if subprocess.run(["git", "--version"], capture_output=True).returncode != 0:
        pytest.skip("git is not installed")
    env = dict(os.environ, MEMORY_DIR=str(tmp_path / "memory"), MEMO_ORDERS="nap",
               HOME=str(tmp_path), GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    env.pop("MEMO_PROJECT", None)
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True, env=env)
    subprocess.run(["git", "remote", "add", "origin", "git@github.com:acme/pg.git"], cwd=repo,
                   check=True, env=env)
    assert _memo(env, repo, "init").returncode == 0
    assert _memo(env, repo, "init", "--project", "pg").returncode == 0
    for i in range(3):
        assert _memo(env, repo, "note", "--global", f"global fact {i}").returncode == 0
        assert _memo(env, repo, "note", f"project fact {i}").returncode == 0
    return env, repo


def test_every_nap_order_matches_and_the_flagless_answer_is_stored(two_stores):
    env, repo = two_stores
    answered = []
    out = _memo(env, repo, "nap")
    for _ in range(10):
        lines = out.stdout.strip().splitlines()
        if lines and lines[-1] == "Nothing left to compress.":
            break
        match = NAP.search(lines[-1])
        assert match, f"the later client's pattern does not read: {lines[-1]!r}"
        block = match.group(1)
        out = _memo(env, repo, "nap", block, f"summary of {block}")
        assert out.returncode == 0, out.stderr
        assert out.stdout.startswith(f"{block} saved."), out.stdout
        answered.append(block)
    assert out.stdout.strip().endswith("Nothing left to compress.")
    assert answered == ["0-1", "0-1"]  # three memories each: one block in each store
    memory = env["MEMORY_DIR"]
    for store in (memory, os.path.join(memory, "projects", "pg")):
        assert os.path.getsize(os.path.join(store, "TREE", "2")) == 288, store

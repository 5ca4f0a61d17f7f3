"""The shell examples the README names run to their end."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
DATA = Path(__file__).resolve().parent / "data"


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_real_life_runs_to_the_end_on_a_short_history(tmp_path):
    # The memo this suite tests: the venv's console script beside python.
    env = dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"],
               TMPDIR=str(tmp_path))
    done = subprocess.run(["bash", str(EXAMPLES / "real-life.sh"),
                           str(DATA / "click-history.txt"), "40"],
                          capture_output=True, text=True, env=env, timeout=900)
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    assert "compressions answered: 38" in out
    assert "summaries on disk: 38 (T - popcount(T) = 38)" in out
    assert "wake parts followed: 1, last line: You are awake." in out
    assert "TREE/16 rebuilt to the same bytes" in out
    assert out[-1] == "The store is whole."

"""Literal recall: ``recall(..., fixed=True)`` finds a text as written.

Agents search for paths, error messages and ``a.b.c`` names far more often
than for patterns; as a regex ``$HOME`` finds nothing. A fixed text is
escaped into a run of literal characters, so it is counted by the same
literal fast paths (the C counter, ``fastcount``) and must count what
``grep -ciF`` counts on the log, with every engine.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess

import pytest

from optmem.engine import core
from optmem.errors import BadInput
from optmem.recall import fastcount, scancount, search
from optmem.store.memory import Store, encode_memory

ENGINES = ["python"] + (["re2"] if search.re2_module() is not None else []) + \
    (["c"] if scancount.available() else [])

#: Texts full of what a regex reads as syntax, and what agents search for.
NEEDLES = ["$HOME", "$HOME/bin", "a.b.c", "f(x)", "[1]", "*.py", "C++", "why?", "\\n",
           "a|b", "^start", "end$", "{x}", "(a+)+$", ".*", "~/.config/memo", "x-y",
           "`git log`", "'quoted'", '"double"', "100%", "Zürich", "東京", "🚀", "#7"]

WORDS = NEEDLES + ["plain", "words", "between", "them", "HOME", "abc", "fx", "C", "py",
                   "$", "a", "b", "home", "start", "end"]


def _records(n: int, seed: int = 11) -> list:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        words = rng.choices(WORDS, k=rng.randint(1, 25))
        text = " ".join(words)
        while len(text.encode("utf-8")) > 280:
            words.pop()
            text = " ".join(words)
        out.append(encode_memory(i, "2026-02-01", text))
    return out


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("fixed") / "mem")
    store, _created = Store.init(root)
    with open(store.log_path, "ab") as f:
        f.write(b"".join(_records(400)))
    return store


class engine:
    """Recall with one engine and small chunks (``USE_RE2``, the C counter)."""

    def __init__(self, name: str):
        self.name = name

    def __enter__(self):
        self.saved = (search.USE_RE2, search.CHUNK_RECORDS, search.TIME_BOUND, scancount._scan)
        search.USE_RE2 = self.name == "re2"
        search.CHUNK_RECORDS = 64
        search.TIME_BOUND = 60.0
        if self.name != "c":
            scancount._scan = None

    def __exit__(self, *exc):
        search.USE_RE2, search.CHUNK_RECORDS, search.TIME_BOUND, scancount._scan = self.saved


def grep_count(path: str, text: str) -> int:
    env = dict(os.environ, LC_ALL="C.UTF-8")
    proc = subprocess.run(["grep", "-ciF", "--", text, path], env=env,
                          capture_output=True, text=True)
    assert proc.returncode in (0, 1), proc.stderr
    return int(proc.stdout.strip())


@pytest.mark.skipif(shutil.which("grep") is None, reason="grep is not installed")
@pytest.mark.parametrize("name", ENGINES)
def test_fixed_recall_counts_what_grep_counts(store, name):
    with engine(name):
        for text in NEEDLES:
            lines, total, cut = search.recall(store, text, 10 ** 9, fixed=True)
            assert total == grep_count(store.log_path, text), text
            assert len(lines) == total and not cut
            assert all(text.lower() in line.lower() for line in lines), text


@pytest.mark.parametrize("name", ENGINES)
def test_a_regex_metacharacter_text_is_found_only_literally(store, name):
    with engine(name):
        regex = search.recall(store, "$HOME", 10 ** 9)[1]
        literal = search.recall(store, "$HOME", 10 ** 9, fixed=True)[1]
    assert regex == 0 < literal  # "$HOME" as a regex asks for HOME after the end


def test_a_fixed_text_takes_the_literal_fast_paths():
    for text in NEEDLES:
        pattern = search.literal_pattern(text)
        assert fastcount.literal_set(pattern) is not None, text


def test_an_empty_fixed_text_is_refused_in_one_line(store):
    with pytest.raises(BadInput, match="the text is empty"):
        core.recall(store, "", fixed=True)


def test_core_recall_finds_home_literally(tmp_path):
    store, _ = Store.init(str(tmp_path / "mem"))
    with open(store.log_path, "ab") as f:
        f.write(encode_memory(0, "2026-02-01", "memo lives in $HOME/.local/bin"))
    found = core.recall(store, "$HOME", fixed=True)
    assert found.total == 1 and "$HOME/.local/bin" in found.lines[0]
    assert core.recall(store, "$HOME").total == 0

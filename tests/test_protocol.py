"""The seed's strings are an API (issue 8): each line a client parses, with
the pattern that client uses, and the order forms (heredoc, MEMO_ORDERS=line).

Every case runs the real command on a store set up for it and asserts the
exit code, that stderr is empty where the seed prints nothing there, and
that the client's regular expression finds what it needs.
"""

from __future__ import annotations

import re

import pytest

from conftest import answer_all, set_config, write_import

from optmem import protocol


def history(n: int, start: int = 0) -> list:
    return [f"2024-05-{1 + i // 10:02d} event {i} of the project" for i in range(start, start + n)]


def imported(memo, tmp_path, n: int) -> None:
    result = memo("import", write_import(tmp_path / f"h{n}.txt", history(n)))
    assert result.exit_code == 0, result.stderr


# Each case: (id, setup(memo, store, tmp_path), argv, env, exit code, stdout pattern,
# what the groups must be, or None).
def _pending2(memo, store, tmp_path):
    imported(memo, tmp_path, 2)


def _pending4(memo, store, tmp_path):
    imported(memo, tmp_path, 4)


def _pending32(memo, store, tmp_path):
    imported(memo, tmp_path, 32)
    while True:  # answer up to the 32-block, which is then due
        out = memo("sleep").stdout
        m = re.search(r"Compress memories #(\d+)-(\d+)", out)
        if m.groups() == ("0", "31"):
            return
        memo("sleep", f"{m[1]}-{m[2]}", f"summary {m[1]}-{m[2]}")


def _built(n):
    def setup(memo, store, tmp_path):
        imported(memo, tmp_path, n)
        answer_all(memo)
    return setup


def _needs_summary(memo, store, tmp_path):
    imported(memo, tmp_path, 4)
    set_config(store, WAKE_LINES=1)


def _parts(memo, store, tmp_path):
    _built(40)(memo, store, tmp_path)
    set_config(store, PART_LINES=10)


def _none(memo, store, tmp_path):
    pass


CASES = [
    ("prompt-raw", _pending2, ["sleep"], {}, 0,
     r"^Compress memories #(\d+)-(\d+) into one line of at most (\d+) bytes\.$", ("0", "1", "280")),
    ("prompt-32", _pending32, ["sleep"], {}, 0,
     r"^Compress memories #(\d+)-(\d+) into one line", ("0", "31")),
    ("prompt-32-halves", _pending32, ["sleep"], {}, 0,
     r"^  #(\d+)-(\d+) ", ("0", "15")),
    ("note", _none, ["note", "one fact"], {}, 0, r"^Saved as #(\d+)\.$", ("0",)),
    ("saved", _pending2, ["sleep", "0-1", "both events"], {}, 0,
     r"\A(\d+)-(\d+) saved\.\nNothing left to compress\.\n\Z", ("0", "1")),
    ("saved-then-prompt", _pending4, ["sleep", "0-1", "first two"], {}, 0,
     r"\A0-1 saved\.\n\nCompress memories #(\d+)-(\d+) ", ("2", "3")),
    ("already", _built(4), ["sleep", "0-1", "again"], {}, 0,
     r"^Another session already wrote (\d+)-(\d+)\.$", ("0", "1")),
    ("nothing", _built(4), ["sleep"], {}, 0, r"\ANothing left to compress\.\n\Z", None),
    ("cannot-wake", _needs_summary, ["wake"], {}, 1,
     r"\ACannot wake: (\d+) compressions pending\. Do them, then run memo wake again\.\n\n"
     r"Compress memories #0-1 ", ("3",)),
    ("awake", _built(4), ["wake"], {}, 0, r"^You are awake\.$", None),
    ("hand-over", _pending2, ["wake"], {}, 0,
     r"\n#1 [^\n]*\nYou are awake\.\n\nCompress memories #(\d+)-(\d+) ", ("0", "1")),
    ("empty", _none, ["wake"], {}, 0,
     r"\ANo memories yet\. Record the first with: memo note - <<'MEMORY'\n<one line>\nMEMORY\n"
     r"You are awake\.\n\Z", None),
    ("empty-line", _none, ["wake"], {"MEMO_ORDERS": "line"}, 0,
     r"\ANo memories yet\. Record the first with: memo note \"<one line>\"\nYou are awake\.\n\Z",
     None),
    ("part-header", _parts, ["wake"], {}, 0, r"\AYour memory, part (\d+) of (\d+)", ("1", "6")),
    ("part-footer", _parts, ["wake"], {}, 0, r"\nRun: memo wake (\d+) (\d+)\n\Z", ("2", "40")),
    ("wake-lines", _built(40), ["wake"], {}, 0, r"^#(\d+)(?:-(\d+))? ", ("0", None)),
    ("no-match", _built(4), ["recall", "nowhere"], {}, 0, r"^No match\.$", None),
    ("matches", _built(40), ["recall", "event 3"], {}, 0, r"^(\d+) matches\.$", ("11",)),
    ("one-match", _built(40), ["recall", "event 39 "], {}, 0, r"^(\d+) match\.$", ("1",)),
    ("imported", _none, ["import", "HISTORY"], {}, 0,
     r"\AImported (\d+) memories, #(\d+) to #(\d+)\.\n(\d+) compressions pending\. "
     r"Run: memo sleep\n\Z", ("40", "0", "39", "38")),
    ("forgot", _built(40), ["forget", "#0-1"], {}, 0,
     r"\AForgot (\d+) summar\w+, from (\d+)-(\d+) up\. Run: memo sleep\n\Z", ("38", "0", "1")),
    ("zoom", _built(40), ["zoom", "0-31"], {}, 0,
     r"\A#(\d+)-(\d+) [^\n]*\n#(\d+)-(\d+) [^\n]*\n\Z", ("0", "15", "16", "31")),
    ("config", _none, ["config"], {}, 0, r"^(WAKE_LINES)\s+(\d+)\s", ("WAKE_LINES", "256")),
    ("order-heredoc", _pending2, ["sleep"], {}, 0,
     r"\nRun: memo sleep (\d+)-(\d+) - <<'SUMMARY'\n<your line>\nSUMMARY\n\Z", ("0", "1")),
    ("order-line", _pending2, ["sleep"], {"MEMO_ORDERS": "line"}, 0,
     r"\nRun: memo sleep (\d+)-(\d+) \"<your line>\"\n\Z", ("0", "1")),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_every_seed_string_with_the_pattern_a_client_uses(memo, memory_dir, tmp_path,
                                                          monkeypatch, case):
    _, setup, argv, env, code, pattern, groups = case
    memo("init")
    setup(memo, memory_dir, tmp_path)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    argv = [str(write_import(tmp_path / "history.txt", history(40))) if a == "HISTORY" else a
            for a in argv]
    result = memo(*argv)
    assert (result.exit_code, result.stderr) == (code, ""), (result.stdout, result.stderr)
    m = re.search(pattern, result.stdout, re.MULTILINE)
    assert m, (pattern, result.stdout)
    if groups is not None:
        assert m.groups() == groups, result.stdout


@pytest.mark.parametrize("make", ["missing", "empty-dir", "only-config"])
def test_no_memory_at_for_a_missing_path_and_an_empty_directory(memo, memory_dir, make):
    """Only `memo init` creates a store: an empty directory (an unmounted
    mount point, a folder not synced yet) is no store either, and nothing
    is created in it."""
    if make != "missing":
        memory_dir.mkdir()
    if make == "only-config":
        (memory_dir / "config").write_text("WAKE_LINES=8\n")
    before = sorted(p.name for p in memory_dir.iterdir()) if memory_dir.exists() else None
    for argv in (["wake"], ["note", "x"], ["sleep"], ["recall", "x"], ["config"]):
        result = memo(*argv)
        assert result.exit_code == 1 and result.stdout == ""
        assert f"No memory at {memory_dir}" in result.stderr
        assert "Run: memo init" not in result.stderr and "A person can run: memo init" in result.stderr
    after = sorted(p.name for p in memory_dir.iterdir()) if memory_dir.exists() else None
    assert after == before


def test_every_next_step_is_a_run_order(memo, memory_dir, tmp_path):
    """No `Next:` or `with: memo` left: one pattern finds every order."""
    outs = [memo("init").stdout]
    imported(memo, tmp_path, 8)
    outs += [memo("sleep").stdout, memo("wake").stdout]
    memo("sleep", "0-1", "first two")
    outs.append(memo("forget", "0-1").stdout)
    for out in outs:
        assert "Next:" not in out and "with: memo" not in out, out
        assert "Run: memo" in out, out


def test_the_prompt_rules_do_not_contradict_each_other_on_dates():
    rules = " ".join(protocol.COMPRESS_RULES)
    assert "date, decision" not in rules  # "keep every date" would contradict the next rule
    assert "any date written in the text" in rules
    assert "Do not repeat the memories' own dates" in rules


def test_an_unknown_order_form_falls_back_to_the_heredoc():
    assert protocol.orders_form({"MEMO_ORDERS": "LINE "}) == "line"
    assert protocol.orders_form({"MEMO_ORDERS": "json"}) == "heredoc"
    assert protocol.orders_form({}) == "heredoc"
    assert protocol.sleep_order("0-1", "line") == ['Run: memo sleep 0-1 "<your line>"']

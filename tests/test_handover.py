"""The batched hand-over (``MEMO_HANDOVER=batch``), ``memo sleep -``,
``memo sleep --with CMD`` and the import's backlog warning (docs/protocol.md)."""

from __future__ import annotations

import re
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optmem import blocks
from optmem.engine import backlog, handover, view

HEAD = re.compile(r"^Compress memories #(\d+)-(\d+) into one line of at most (\d+) bytes\.$")


@pytest.fixture
def batch(monkeypatch):
    monkeypatch.setenv("MEMO_HANDOVER", "batch")


def note_n(memo, n, start=0):
    out = None
    for i in range(start, start + n):
        out = memo("note", f"memory {i}: café Ωmega decision number {i}")
        assert out.exit_code == 0, out.stderr
    return out


def order_names(prompt: str) -> list:
    """The block names of a batch's heredoc order."""
    rows = prompt.split("Run: memo sleep - <<'SUMMARY'\n", 1)[1].split("\n")
    return [row.split(" ", 1)[0] for row in rows[:rows.index("SUMMARY")]]


def answer(prompt: str, text=lambda name: f"summary of {name}") -> str:
    return "\n".join(f"{n} {text(n)}" for n in order_names(prompt)) + "\n"


def prompt_of(stdout: str) -> str:
    return stdout[stdout.index("Compress memories"):].rstrip("\n")


def test_pending_by_end_is_completion_order():
    assert list(blocks.pending_by_end(8, {})) == [
        (0, 2), (2, 4), (0, 4), (4, 6), (6, 8), (4, 8), (0, 8)]
    assert list(blocks.pending_by_end(8, {2: 4, 4: 1})) == [(4, 8), (0, 8)]


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 600), st.data())
def test_pending_by_end_keeps_levels_dense(T, data):
    built = {}
    for s in blocks.level_sizes(T):  # a consistent store: each level within the one below
        below = T if s == 2 else built[s // 2] * (s // 2)
        built[s] = data.draw(st.integers(0, below // s))
    order = list(blocks.pending_by_end(T, built))
    assert sorted(order) == sorted(blocks.pending(T, built))
    have = dict(built)
    for lo, hi in order:  # storing in this order: each is next at its level, halves built
        s = hi - lo
        assert lo // s == have.get(s, 0)
        if s > 2:
            assert have.get(s // 2, 0) * (s // 2) >= hi
        have[s] = have.get(s, 0) + 1


def test_default_flow_is_one_block(memo, inited):
    out = note_n(memo, 4)
    prompt = prompt_of(out.stdout)
    assert HEAD.match(prompt.split("\n")[0]).groups()[:2] == ("0", "1")
    assert "In the same answer" not in prompt and "#2 " not in prompt
    assert "Run: memo sleep 0-1 - <<'SUMMARY'" in prompt


def test_batch_after_note_lists_every_due_block_and_each_memory_once(memo, inited, batch,
                                                                    monkeypatch):
    monkeypatch.delenv("MEMO_HANDOVER")
    note_n(memo, 15)
    for _ in range(11):  # pay the one-at-a-time work first
        p = prompt_of(memo("sleep").stdout)
        m = HEAD.match(p.split("\n")[0])
        memo("sleep", f"{m.group(1)}-{m.group(2)}", "a line")
    monkeypatch.setenv("MEMO_HANDOVER", "batch")
    out = memo("note", "memory 15 closes the window")
    prompt = prompt_of(out.stdout)
    lines = prompt.split("\n")
    assert lines[0] == "Compress memories #14-15 into one line of at most 280 bytes."
    assert order_names(prompt) == ["14-15", "12-15", "8-15", "0-15"]
    for i in range(16):  # every raw memory once, though four blocks span #15
        assert sum(1 for line in lines if line.startswith(f"  #{i} ")) == 1
    res = memo("sleep", "-", input=answer(prompt))
    assert res.exit_code == 0, res.stderr
    assert res.stdout.split("\n")[:4] == ["14-15 saved.", "12-15 saved.", "8-15 saved.",
                                          "0-15 saved."]
    assert res.stdout.rstrip("\n").endswith("Nothing left to compress.")
    assert memo("check").exit_code == 0


def test_batch_joins_halves_written_in_the_same_answer(memo, inited, batch):
    out = note_n(memo, 32)
    prompt = prompt_of(out.stdout)
    names = order_names(prompt)
    assert names[-1] == "0-31" and names.index("16-31") < names.index("0-31")
    block = prompt[prompt.index("  0-31:"):]
    assert "#0-15 (your line above)" in block and "#16-31 (your line above)" in block
    res = memo("sleep", "-", input=answer(prompt))
    assert res.exit_code == 0 and "0-31 saved." in res.stdout
    assert memo("stats", "--json").stdout.count('"pending": 0') == 1


def test_built_half_is_shown_as_its_summary(memo, inited, batch):
    out = note_n(memo, 16)
    memo("sleep", "-", input=answer(prompt_of(out.stdout)))
    out = note_n(memo, 16, start=16)
    prompt = prompt_of(out.stdout)
    assert "    #0-15 " in prompt and "summary of 0-15" in prompt
    assert "#16-31 (your line above)" in prompt


def test_refused_line_stores_the_lines_before_and_hands_the_rest_over(memo, inited, batch):
    out = note_n(memo, 8)
    prompt = prompt_of(out.stdout)
    secret = "ghp_" + "a1B2c3D4e5" * 4
    text = answer(prompt, lambda n: f"token {secret}" if n == "0-3" else f"line {n}")
    res = memo("sleep", "-", input=text)
    assert res.exit_code == 1
    assert res.stdout.startswith("0-1 saved.\n2-3 saved.\nNot saved: 0-3 and every line")
    assert secret not in res.stdout + res.stderr
    again = prompt_of(res.stdout)
    assert again.startswith("Compress memories #0-3 ")
    assert order_names(again)[0] == "0-3"


def test_a_too_long_line_in_a_batch_says_to_answer_the_prompt_again(memo, inited, batch):
    """The refusal of one line of a batch names why, without the single
    command's "run the command again": the step is the prompt below."""
    out = note_n(memo, 4)
    text = answer(prompt_of(out.stdout), lambda n: "x" * 400 if n == "2-3" else f"line {n}")
    res = memo("sleep", "-", input=text)
    refusal = [line for line in res.stdout.splitlines() if line.startswith("Not saved:")]
    assert res.exit_code == 1 and len(refusal) == 1
    assert refusal[0].startswith("Not saved: 2-3 and every line after it (Too long: 400 bytes")
    assert refusal[0].endswith("Shorten it). What is still pending is handed over again below.")
    assert "run the command again" not in res.stdout
    assert prompt_of(res.stdout).startswith("Compress memories #2-3 ")


def test_out_of_order_and_malformed_lines_are_refused(memo, inited, batch):
    note_n(memo, 4)
    res = memo("sleep", "-", input="0-3 too early\n")
    assert res.exit_code == 1 and "0-3 needs the summary of 0-1 first" in res.stdout
    res = memo("sleep", "-", input="just words\n")
    assert res.exit_code == 1 and "does not start with a block id" in res.stdout
    res = memo("sleep", "-", input="\n\n")
    assert res.exit_code == 1 and "holds no lines" in res.stderr


def test_single_form_still_works_in_batch_mode(memo, inited, batch):
    note_n(memo, 2)
    res = memo("sleep", "0-1", "one line")
    assert res.exit_code == 0 and "Nothing left to compress." in res.stdout


def test_line_orders_take_one_argument_per_block(memo, inited, batch, monkeypatch):
    monkeypatch.setenv("MEMO_ORDERS", "line")
    out = note_n(memo, 4)
    order = [line for line in out.stdout.split("\n") if line.startswith("Run:")]
    assert order == ['Run: memo sleep - "0-1 <your line>" "2-3 <your line>" '
                     '"0-3 <your line>"']
    res = memo("sleep", "-", "0-1 a", "2-3 b", "0-3 c")
    assert res.exit_code == 0 and res.stdout.startswith("0-1 saved.\n2-3 saved.\n0-3 saved.")


@pytest.mark.parametrize("orders", ["heredoc", "line"])
def test_a_backlog_comes_in_batches_within_part_chars(memo, inited, batch, tmp_path,
                                                      monkeypatch, orders):
    monkeypatch.setenv("MEMO_ORDERS", orders)
    memo("config", "PART_CHARS=2048")
    f = tmp_path / "lines.txt"
    f.write_text("".join(f"2024-01-{1 + i // 10:02d} memory {i} of the project Ωmega, "
                         f"with some words to fill the line\n" for i in range(200)))
    assert memo("import", str(f)).exit_code == 0
    turns = 0
    prompt = prompt_of(memo("sleep").stdout)
    while True:
        turns += 1
        assert len(prompt.encode()) + 1 <= 2048
        names = (order_names(prompt) if orders == "heredoc"
                 else re.findall(r'"(\d+-\d+) <your line>"', prompt))
        res = memo("sleep", "-", input="".join(f"{n} line of {n}\n" for n in names))
        assert res.exit_code == 0, res.stdout
        if "Compress memories" not in res.stdout:
            break
        prompt = prompt_of(res.stdout)
        assert turns < 200
    assert 1 < turns < 100
    assert memo("stats", "--json").stdout.count('"pending": 0') == 1
    assert memo("check").exit_code == 0


def test_batch_mode_value_is_forgiving():
    assert view.batch_mode({"MEMO_HANDOVER": " Batch "})
    assert not view.batch_mode({"MEMO_HANDOVER": "one"})
    assert not view.batch_mode({})


def test_parse_items_accepts_the_shown_forms():
    assert handover.parse_items(["#0-1 a b", "2-3: c", "", "x"]) == [
        ("0-1", "a b"), ("2-3", "c"), (None, "x")]


# -- memo sleep --with --------------------------------------------------------

SCRIPT = r'''
import re, sys
prompt = sys.stdin.read()
rows = prompt.split("<<'SUMMARY'\n", 1)[1].split("\n")
rows = rows[:rows.index("SUMMARY")]
for row in rows:
    if row == "<your line>":
        print("summary of " + re.search(r"#(\d+-\d+)", prompt).group(1))
    else:
        name = row.split()[0]
        print(name, "summary of", name)
'''


@pytest.fixture
def imported(memo, inited, tmp_path):
    f = tmp_path / "hundred.txt"
    f.write_text("".join(f"2024-02-{1 + i // 10:02d} memory {i}: naïve retry fixed\n"
                         for i in range(100)))
    assert memo("import", str(f)).exit_code == 0
    script = tmp_path / "standin.py"
    script.write_text(SCRIPT)
    return f"{sys.executable} {script}"


@pytest.mark.parametrize("mode", ["", "batch"])
def test_sleep_with_pays_an_import_backlog(memo, imported, monkeypatch, mode):
    monkeypatch.setenv("MEMO_HANDOVER", mode)
    res = memo("sleep", "--with", imported)
    assert res.exit_code == 0, res.stderr
    assert res.stdout.endswith("Nothing left to compress.\n")
    assert re.match(r"Saved 97 summaries from (\d+) runs? of the command\.", res.stdout)
    runs = int(re.match(r"Saved 97 summaries from (\d+)", res.stdout).group(1))
    assert runs == (97 if mode == "" else runs) and (mode == "" or runs < 10)
    assert memo("check").exit_code == 0


def test_sleep_with_stops_at_a_secret_without_echoing_it(memo, imported, tmp_path):
    secret = "ghp_" + "Zz9Yy8Xx7W" * 4
    bad = tmp_path / "bad.py"
    bad.write_text(f"import sys; sys.stdin.read(); print('the key is {secret}')\n")
    res = memo("sleep", "--with", f"{sys.executable} {bad}")
    assert res.exit_code == 1
    assert secret not in res.stdout + res.stderr
    line = res.stderr.strip()
    assert line.count("\n") == 0
    assert "stopped at 0-1:" in line and "GitHub token" in line
    assert "0 summaries were saved this run and 97 compressions are pending" in line
    assert "A person can run: memo sleep --with" in line and line.endswith(f"{bad}'")
    assert "Run:" not in line  # a person's step: no agent order to rerun the command


@pytest.mark.parametrize("body,why", [
    ("print('a'); print('b')", "printed 2 lines"),
    ("pass", "printed nothing"),
    ("sys.exit(3)", "exited with status 3"),
])
def test_sleep_with_stops_at_bad_output(memo, imported, tmp_path, body, why):
    bad = tmp_path / "bad.py"
    bad.write_text(f"import sys; sys.stdin.read(); {body}\n")
    res = memo("sleep", "--with", f"{sys.executable} {bad}")
    assert res.exit_code == 1 and why in res.stderr


def test_sleep_with_refuses_a_block_argument(memo, imported):
    res = memo("sleep", "--with", "true", "0-1")
    assert res.exit_code == 1 and "give no block or text" in res.stderr
    res = memo("sleep", "--with=true", "0-1", "x")
    assert res.exit_code == 1 and "give no block or text" in res.stderr


# -- import ---------------------------------------------------------------------

def test_import_says_what_it_creates_before_writing(memo, inited, tmp_path):
    f = tmp_path / "l.txt"
    f.write_text("".join(f"2024-03-01 line {i}\n" for i in range(10)))
    res = memo("import", str(f))
    assert res.exit_code == 0
    assert res.stderr.startswith("memo: importing 10 memories creates 8 compressions "
                                 "(each is an agent turn;")
    assert "Imported 10 memories" in res.stdout  # stdout unchanged for a program


def test_import_above_the_threshold_asks_for_yes(memo, inited, tmp_path, monkeypatch):
    monkeypatch.setattr(backlog, "IMPORT_ASK_ABOVE", 5)
    f = tmp_path / "l.txt"
    f.write_text("".join(f"2024-03-01 line {i}\n" for i in range(6)))
    res = memo("import", str(f))
    assert res.exit_code == 1
    assert "holds 6 lines, more than the 5" in res.stderr
    assert "nothing was imported" in res.stderr and "--yes" in res.stderr
    assert memo("stats", "--json").stdout.count('"memories": 0') == 1
    res = memo("import", str(f), "--yes")
    assert res.exit_code == 0 and "Imported 6 memories" in res.stdout


def test_the_threshold_is_high():
    assert backlog.IMPORT_ASK_ABOVE >= 10_000


def test_a_blocked_wake_hands_over_the_batch(memo, inited, batch, tmp_path):
    f = tmp_path / "l.txt"
    f.write_text("".join(f"2024-04-01 imported memory {i}\n" for i in range(300)))
    memo("config", "WAKE_LINES=8")
    assert memo("import", str(f)).exit_code == 0
    res = memo("wake")
    assert res.exit_code == 1
    prompt = prompt_of(res.stdout)
    assert prompt.startswith("Compress memories #0-1 ")
    assert "In the same answer, also compress" in prompt
    while "Compress memories" in res.stdout:
        res = memo("sleep", "-", input=answer(prompt_of(res.stdout)))
        assert res.exit_code == 0, res.stdout
    assert memo("wake").exit_code == 0


def test_a_refused_batch_with_nothing_pending_does_not_promise_a_hand_over(memo, inited, batch):
    """A refused line when nothing is pending: the refusal says so, instead
    of 'handed over again below' followed by 'Nothing left to compress.'"""
    note_n(memo, 3)
    r = memo("sleep", "-", input="0-1 the first two\n")
    assert r.exit_code == 0, r.stderr
    r = memo("sleep", "-", input="2-3 not complete yet\n")
    assert r.exit_code == 1
    assert "Nothing is pending now." in r.stdout and "handed over again" not in r.stdout
    assert r.stdout.rstrip().endswith("Nothing left to compress.")

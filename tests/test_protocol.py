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
    ("part-header", _parts, ["wake"], {}, 0, r"\AYour memory, part (\d+) of (\d+)", ("1", "4")),
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
    if argv[0] == "import":  # issue 12's one-line notice of the work it creates
        assert result.stderr.startswith("memo: importing ") and result.stderr.count("\n") == 1
    else:
        assert result.stderr == "", result.stderr
    assert result.exit_code == code, (result.stdout, result.stderr)
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


# == a client that reads only the listed patterns (issue 8 "Done when") ======

CLIENT = {
    "compress": re.compile(r"Compress memories #(\d+)-(\d+)"),
    "saved": re.compile(r"Saved as #(\d+)"),
    "line": re.compile(r"^#(\d+)(?:-(\d+))? ", re.MULTILINE),
    "page": re.compile(r"Run: memo wake (\d+) (\d+)"),
    "knob": re.compile(r"^(\w+)\s+(\d+)\s", re.MULTILINE),
    "missing": re.compile(r"No memory at"),
}


class Client:
    """A program that drives memo through argv alone and understands memo's
    output only through ``CLIENT``'s patterns. Its summaries come from the
    prompt's first line alone."""

    def __init__(self, memo, log):
        self.memo, self.log = memo, log

    def run(self, *argv, input=None):
        result = self.memo(*argv, input=input)
        self.log.append(f"$ memo {' '.join(map(str, argv))}  -> exit {result.exit_code}")
        self.log += ["  " + line for line in result.stdout.splitlines()[:3]]
        return result

    def compress_all(self, out: str) -> int:
        done = 0
        while (m := CLIENT["compress"].search(out)):
            lo, hi = m.groups()
            out = self.run("sleep", f"{lo}-{hi}", f"client summary of {lo} to {hi}").stdout
            done += 1
            assert done < 1000
        return done

    def wake(self) -> list:
        """Every (lo, hi) line of the document, following the pages."""
        out = self.run("wake").stdout
        self.compress_all(out)  # a refusal or a hand-over: do the work
        out = self.run("wake").stdout
        ids = []
        while True:
            ids += [(int(a), int(b) if b else int(a)) for a, b in CLIENT["line"].findall(out)]
            page = CLIENT["page"].search(out)
            if not page:
                return ids
            out = self.run("wake", *page.groups()).stdout


def test_a_client_reading_only_the_seed_patterns_lives_a_40_memory_life(memo, memory_dir,
                                                                        tmp_path):
    log = []
    client = Client(memo, log)
    # A wrong MEMORY_DIR is recognised, and nothing is created there.
    missing = client.run("wake")
    assert CLIENT["missing"].search(missing.stderr) and not memory_dir.exists()
    assert memo("init").exit_code == 0  # the person's step
    # Knobs, read as `NAME VALUE`: small parts so the document pages.
    client.run("config", "WAKE_LINES=8", "PART_LINES=5")
    knobs = dict(CLIENT["knob"].findall(client.run("config").stdout))
    assert knobs["WAKE_LINES"] == "8" and knobs["PART_LINES"] == "5"
    # 40 imported memories, answered to the end through the prompt's first line.
    client.run("import", write_import(tmp_path / "life.txt", history(40)))
    assert client.compress_all(client.run("sleep").stdout) == 40 - 2  # T - popcount(T)
    ids = client.wake()
    assert ids[0][0] == 0 and ids[-1][1] == 39 and len(ids) == 8
    assert all(b + 1 == c for (_, b), (c, _) in zip(ids, ids[1:]))  # the lines tile 0..39
    # New memories: ids from `Saved as`, compressions from the note's output.
    for k in range(8):
        out = client.run("note", f"new fact {k}").stdout
        assert int(CLIENT["saved"].search(out).group(1)) == 40 + k
        client.compress_all(out)
    ids = client.wake()
    assert ids[0][0] == 0 and ids[-1][1] == 47
    assert all(b + 1 == c for (_, b), (c, _) in zip(ids, ids[1:]))
    # Zoom: the two halves of a line, as `#` lines.
    lo, hi = next((a, b) for a, b in ids if b > a)
    halves = [(int(a), int(b or a)) for a, b in
              CLIENT["line"].findall(client.run("zoom", f"{lo}-{hi}").stdout)]
    assert halves == [(lo, (lo + hi) // 2), ((lo + hi) // 2 + 1, hi)]
    assert memo("check").exit_code == 0
    print("\n".join(log))


# == store interop: another OptMem writes the same MEMORY_DIR =================

def ref_record(i: int, date: str, text: str) -> bytes:
    """A log record exactly as the reference tool pads it."""
    body = f"#{i} {date} {text}".encode()
    return body + b" " * (319 - len(body)) + b"\n"


def ref_append(store, texts, date="2026-11-30") -> None:
    """What the reference's `memo note` does: cut a partial last record,
    then append whole records (it ignores memo's journal)."""
    log = store / "LOG.txt"
    size = log.stat().st_size
    with open(log, "r+b") as f:
        f.truncate(size - size % 320)
    n = log.stat().st_size // 320
    with open(log, "ab") as f:
        for k, text in enumerate(texts):
            f.write(ref_record(n + k, date, text))


def crashed_import(store, first: int, texts, written: float) -> None:
    """An import killed mid-append: memo's journal for the batch, and the
    first ``written`` records of it on disk (a fraction tears the last)."""
    from optmem.store import Store
    s = Store.open(str(store))
    before = first * 320
    batch = b"".join(ref_record(first + k, "2026-11-29", t) for k, t in enumerate(texts))
    s._write_journal(before, before + len(batch), before, batch)
    with open(store / "LOG.txt", "ab") as f:
        f.write(batch[:int(written * 320)])


def test_a_crashed_import_then_another_writer_loses_nothing(memo, memory_dir):
    memo("init")
    memo("note", "kept before the crash")
    crashed_import(memory_dir, 1, [f"imported line {k}" for k in range(5)], written=2.5)
    ref_append(memory_dir, ["the reference noted this", "and this too"])
    log_after_ref = (memory_dir / "LOG.txt").read_bytes()
    assert len(log_after_ref) == 5 * 320
    # Readers see every record at once, before any memo write.
    wake = memo("wake")
    assert "the reference noted this" in wake.stdout and "#2 2026-11-29 imported line 1" in wake.stdout
    assert "1 match." in memo("recall", "and this too").stdout
    # A memo write keeps every record and says so; check reports it.
    note = memo("note", "memo again")
    assert note.exit_code == 0 and "Saved as #5." in note.stdout
    assert "nothing was rolled back" in note.stderr
    assert (memory_dir / "LOG.txt").read_bytes()[:5 * 320] == log_after_ref
    check = memo("check")
    assert check.exit_code == 1 and "#1-#2 come from an append" in check.stdout
    for argv in (["sleep"], ["wake"], ["recall", "."], ["zoom", "0-1"], ["config"],
                 ["forget", "0-1"] if (memory_dir / "TREE" / "2").exists() else ["stats"]):
        memo(*argv)
    answer_all(memo)
    data = (memory_dir / "LOG.txt").read_bytes()
    assert data[:5 * 320] == log_after_ref and len(data) == 6 * 320
    texts = [data[i * 320:(i + 1) * 320].decode().split(" ", 2)[2].rstrip() for i in range(6)]
    assert texts == ["kept before the crash", "imported line 0", "imported line 1",
                     "the reference noted this", "and this too", "memo again"]


def test_a_crashed_import_alone_is_still_rolled_back(memo, memory_dir):
    memo("init")
    memo("note", "kept")
    crashed_import(memory_dir, 1, [f"imported line {k}" for k in range(5)], written=3.5)
    assert "#1 " not in memo("wake").stdout  # readers never see an unfinished append
    note = memo("note", "next")
    assert note.stdout.startswith("Saved as #1.") and "rolled back" in note.stderr
    assert (memory_dir / "LOG.txt").stat().st_size == 2 * 320


@pytest.mark.parametrize("tail", [b"#7 2026-11-30 half a rec", b"garbage \xff\xfe bytes",
                                  b"2026-11-30 a hand-added line\n", b"   "])
def test_a_torn_last_record_is_cut_and_kept_in_recovered(memo, memory_dir, tail):
    memo("init")
    for k in range(3):
        memo("note", f"memory {k}")
    with open(memory_dir / "LOG.txt", "ab") as f:
        f.write(tail)
    check = memo("check")
    assert check.exit_code == 0 and "torn last record" in check.stdout
    note = memo("note", "after the tear")
    assert note.exit_code == 0 and note.stdout.startswith("Saved as #3.")
    assert (memory_dir / "LOG.txt").stat().st_size == 4 * 320
    if tail.strip():  # (spaces alone hold nothing to keep)
        assert "recovered.txt" in note.stderr
        assert tail.strip() in (memory_dir / "recovered.txt").read_bytes()


def test_a_misaligned_log_is_damage_and_never_cut(memo, memory_dir):
    memo("init")
    for k in range(3):
        memo("note", f"memory {k}")
    data = (memory_dir / "LOG.txt").read_bytes()
    bad = data[:320] + b"<<<<<<< HEAD\n" + data[320:]  # a merge's conflict marker
    (memory_dir / "LOG.txt").write_bytes(bad)
    check = memo("check")
    assert check.exit_code == 1 and "misaligned" in check.stdout
    note = memo("note", "must not land")
    assert note.exit_code == 1 and "misaligned" in note.stderr
    assert (memory_dir / "LOG.txt").read_bytes() == bad


def test_a_date_that_is_not_on_the_calendar_is_shown_as_it_is(memo, memory_dir):
    memo("init")
    (memory_dir / "LOG.txt").write_bytes(ref_record(0, "2025-02-30", "the seed imported this")
                                         + ref_record(1, "2025-03-01", "next day"))
    assert "#0 2025-02-30 the seed imported this" in memo("wake").stdout
    assert memo("recall", "seed").stdout.startswith("#0 2025-02-30 the seed imported this")
    check = memo("check")
    assert check.exit_code == 0 and "2025-02-30" in check.stdout and "redact" not in check.stdout


# == config files the reference accepts ======================================

ACCEPTED = [
    ("entry_chars=100\n", {"ENTRY_CHARS": 100}),  # names in any case
    ("WAKE_LINES 10\nnot a setting at all\n", {}),  # lines without `=` are ignored
    ("PART_CHARS=1000\n", {"PART_CHARS": 1000}),
    ("PART_LINES=5\n", {"PART_LINES": 5}),
    ("ENTRY_CHARS=10\n", {"ENTRY_CHARS": 10}),
    ("  WAKE_LINES  =  12   # a comment\n", {"WAKE_LINES": 12}),
    ("ENTRY_CHARS=280\nWAKE_LINES=256\nPART_CHARS=20000\nPART_LINES=500\n",  # the seed writes
     {"ENTRY_CHARS": 280, "WAKE_LINES": 256, "PART_CHARS": 20000, "PART_LINES": 500}),
    ("# OptMem sizes for this memory.\n\n# WAKE_LINES   = 96     # the memory context\n"
     "  ENTRY_CHARS  = 200    # the longest one memory may be, in bytes\n",  # the later one
     {"ENTRY_CHARS": 200}),
]


@pytest.mark.parametrize("text, values", ACCEPTED, ids=[t.splitlines()[0][:24] for t, _ in ACCEPTED])
def test_every_config_the_reference_accepts_is_read_with_its_meaning(memo, memory_dir,
                                                                     text, values):
    memo("init")
    (memory_dir / "config").write_text(text)
    result = memo("config")
    assert (result.exit_code, result.stderr) == (0, ""), result.stderr
    shown = {name: int(value) for name, value in CLIENT["knob"].findall(result.stdout)}
    defaults = {"ENTRY_CHARS": 280, "WAKE_LINES": 256, "PART_CHARS": 20000, "PART_LINES": 500}
    assert shown == {**defaults, **values}
    for k in range(3):
        assert memo("note", f"m{k}").exit_code == 0
    woke = memo("wake")
    assert woke.exit_code == 0 and re.search(r"You are awake\.|Run: memo wake 2 3", woke.stdout)


# -- the MCP form (memo mcp) -------------------------------------------------

MCP_ORDER = re.compile(r"^Run: (\w+) (\{.*\})$")


def test_mcp_form_renders_orders_as_tool_calls():
    import json
    with protocol.orders_in(protocol.MCP_FORM):
        sleep = protocol.sleep_order("0-15")
        wake = protocol.part_footer(1, 3, 40)
        check = protocol.run("memo check")
        empty = protocol.empty_store()
    assert sleep == ['Run: sleep {"block": "0-15", "summary": "<your line>"}']
    m = MCP_ORDER.match(wake)
    assert m and m.group(1) == "wake" and json.loads(m.group(2)) == {"part": 2, "at": "40"}
    assert check == "A person can run: memo check"  # no tool: a person's step
    assert empty[0] == 'No memories yet. Record the first with: note {"text": "<one line>"}'
    # outside the block, MEMO_ORDERS decides again; MEMO_ORDERS=mcp is no shell form
    assert protocol.sleep_order("0-15", "line") == ['Run: memo sleep 0-15 "<your line>"']
    assert protocol.orders_form({"MEMO_ORDERS": "mcp"}) == protocol.DEFAULT_FORM


def test_mcp_orders_rewrites_shell_orders_in_messages():
    text = "the log holds 3 memories; Run: memo wake 1 3. Or Run: memo check, then"
    assert protocol.mcp_orders(text) == ('the log holds 3 memories; Run: wake {"part": 1, '
                                         '"at": "3"}. Or A person can run: memo check, then')
    assert protocol.mcp_orders("Forgot 2 summaries, from 0-1 up. Run: memo sleep") == \
        "Forgot 2 summaries, from 0-1 up. Run: sleep {}"


@pytest.mark.parametrize("form, pattern", [
    ("heredoc", r"^Run: memo .*$"), ("line", r"^Run: memo .*$"),
    (protocol.MCP_FORM, r"^Run: (\w+) (\{.*\})$")])
def test_one_of_gives_each_order_its_own_line(form, pattern):
    lines = protocol.one_of(["memo zoom --global 0-1", "memo zoom --project widget 0-1"],
                            form=form)
    assert len(lines) == 2 and all(re.match(pattern, line) for line in lines), lines
    assert not any("\n" in line for line in lines)
    people = protocol.one_of(["memo redact --global 0 --yes"], person=True, form=form)
    assert people == ["A person can run: memo redact --global 0 --yes"]


def test_the_scope_receipt_names_the_global_note_in_the_form_in_force():
    shell = protocol.scope_receipt("widget")
    assert shell.endswith("global memory: memo note --global <text>).")
    with protocol.orders_in(protocol.MCP_FORM):
        mcp = protocol.scope_receipt("widget")
    assert mcp.endswith('global memory: note {"text": "<text>", "scope": "global"}).'), mcp
    assert "memo note" not in mcp


def test_a_wake_size_order_is_a_tool_call_in_the_mcp_form():
    """The refusal of a too small ``--max-bytes`` names the size that fits;
    through MCP that order is the ``wake`` tool with ``max_bytes``, not a
    person's step."""
    line = "memo: --max-bytes 50 is too small: the shortest document is 1672 bytes. " \
           "Run: memo wake --max-bytes 1672"
    assert protocol.mcp_orders(line).endswith('Run: wake {"max_bytes": 1672}')
    assert protocol.tool_call("memo wake --max-bytes 900 --project widget") == \
        'wake {"max_bytes": 900, "scope": "widget"}'
    assert protocol.tool_call("memo wake 2 40") == 'wake {"part": 2, "at": "40"}'

"""The seed's strings are an API (docs/protocol.md): each line a client parses, with
the pattern that client uses, and the order forms (heredoc, MEMO_ORDERS=line).

Every case runs the real command on a store set up for it and asserts the
exit code, that stderr is empty where the seed prints nothing there, and
that the client's regular expression finds what it needs.
"""

from __future__ import annotations

import re
import shlex

import pytest

from conftest import answer_all, set_config, write_import
from optmem import protocol


def history(n: int, start: int = 0) -> list:
    return [f"2024-05-{1 + i // 10:02d} event {i} of the project" for i in range(start, start + n)]


def imported(memo, tmp_path, n: int) -> None:
    result = memo("import", write_import(tmp_path / f"h{n}.txt", history(n)))
    assert result.exit_code == 0, result.stderr


ANY = object()  #: a group whose value a case does not fix

# Each case: (id, setup(memo, store, tmp_path), argv, env, exit code, stdout pattern,
# what the groups must be (ANY: any value), or None).
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
    ("part-footer", _parts, ["wake"], {}, 0, r"Run: memo wake (\d+) (\d+)\n\Z", ("2", "40")),
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
    # the later OptMem's strings, with the pattern its clients use
    ("not-awake", _parts, ["wake"], {}, 0, r"^Not awake yet\. Run: .+ wake (\d+) (\d+)$",
     ("2", "40")),
    ("not-awake-nap", _parts, ["wake", "2", "40"], {"MEMO_ORDERS": "nap"}, 0,
     r"^Not awake yet\. Run: .+ wake (\d+) (\d+)$", ("3", "40")),
    ("order-nap", _pending2, ["sleep"], {"MEMO_ORDERS": "nap"}, 0,
     r'^Run: .+ nap (\d+-\d+) "<your line>"$', ("0-1",)),
    ("order-nap-after-nap", _pending4, ["nap", "0-1", "first two"], {"MEMO_ORDERS": "nap"}, 0,
     r'\A0-1 saved\.\n\n[\s\S]*^Run: .+ nap (\d+-\d+) "<your line>"\n\Z', ("2-3",)),
    ("hand-over-nap", _pending2, ["wake"], {"MEMO_ORDERS": "nap"}, 0,
     r'^You are awake\.\n\n[\s\S]*^Run: .+ nap (\d+-\d+) "<your line>"$', ("0-1",)),
    ("empty-nap", _none, ["wake"], {"MEMO_ORDERS": "nap"}, 0,
     r'\ANo memories yet\. Record the first with: .+ note "<one line>"\nYou are awake\.\n\Z',
     None),
    ("imported-nap", _none, ["import", "HISTORY"], {"MEMO_ORDERS": "nap"}, 0,
     r"^(\d+) compressions pending\. Run: .+ nap$", ("38",)),
    ("forgot-nap", _built(40), ["forget", "0-1"], {"MEMO_ORDERS": "nap"}, 0,
     r"^Forgot (\d+) summar\w+, from (\d+)-(\d+) up\. Run: .+ nap$", ("38", "0", "1")),
    ("config-set", _none, ["config", "WAKE_LINES=12"], {}, 0,
     r"\A(ENTRY_CHARS)\s+(\d+)\s[\s\S]*^WAKE_LINES\s+(\d+)\s", ("ENTRY_CHARS", "280", "12")),
    ("init-found", _pending2, ["init"], {}, 0, r"^Found (.+): (\d+) memor", (ANY, "2")),
    ("zoom-unbuilt", _pending4, ["zoom", "0-3"], {}, 0,
     r"\A#(\d+)-(\d+) not compressed yet\b", ("0", "1")),
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
    if argv[0] == "import":  # the import's one-line notice of the work it creates
        assert result.stderr.startswith("memo: importing ") and result.stderr.count("\n") == 1
    else:
        assert result.stderr == "", result.stderr
    assert result.exit_code == code, (result.stdout, result.stderr)
    m = re.search(pattern, result.stdout, re.MULTILINE)
    assert m, (pattern, result.stdout)
    if groups is not None:
        assert len(m.groups()) == len(groups), result.stdout
        assert all(w is ANY or g == w for g, w in zip(m.groups(), groups)), result.stdout


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


# == a client that reads only the listed patterns (docs/protocol.md) ======

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
    assert ids[0][0] == 0 and ids[-1][1] == 39 and len(ids) == 8  # WAKE_LINES lines
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
    from optmem.store.memory import Store
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
    assert result.exit_code == 0, result.stderr
    # Still read and ignored as the reference ignores them; each line that
    # sets nothing is named on stderr, one line each, with its number.
    idle = [n for n, line in enumerate(text.splitlines(), 1)
            if line.split("#", 1)[0].strip() and "=" not in line]
    assert [re.search(r"config line (\d+) ", line).group(1) for line in
            result.stderr.splitlines()] == [str(n) for n in idle], result.stderr
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
        check = protocol.run(protocol.Order("check"))
        empty = protocol.empty_store()
    assert sleep == ['Run: sleep {"block": "0-15", "summary": "<your line>"}']
    assert wake.startswith("Not awake yet.\nRun: ")
    m = MCP_ORDER.match(wake.split("\n")[1])
    assert m and m.group(1) == "wake" and json.loads(m.group(2)) == {"part": 2, "at": "40"}
    assert check == "A person can run: memo check"  # no tool: a person's step
    assert empty[0] == 'No memories yet. Record the first with: note {"text": "<one line>"}'
    # outside the block, MEMO_ORDERS decides again; MEMO_ORDERS=mcp is no shell form
    assert protocol.sleep_order("0-15", "line") == ['Run: memo sleep 0-15 "<your line>"']
    assert protocol.orders_form({"MEMO_ORDERS": "mcp"}) == protocol.DEFAULT_FORM


def test_an_order_is_a_value_rendered_per_form():
    order = protocol.Order("wake", ("1", "3"))
    assert protocol.run(order, "heredoc") == "Run: memo wake 1 3"
    assert protocol.run(order, protocol.MCP_FORM) == 'Run: wake {"part": 1, "at": "3"}'
    assert protocol.run(protocol.Order("check"), protocol.MCP_FORM) == \
        "A person can run: memo check"
    assert protocol.forgot(2, "0-1") == "Forgot 2 summaries, from 0-1 up. Run: memo sleep"
    with protocol.orders_in(protocol.MCP_FORM):
        assert protocol.forgot(2, "0-1") == "Forgot 2 summaries, from 0-1 up. Run: sleep {}"
    summary = protocol.Order("sleep", ("0-1",), "widget", protocol.YOUR_LINE)
    assert summary.lines("line") == ['Run: memo sleep 0-1 --project widget "<your line>"']
    assert summary.lines("nap") == ['Run: memo --project widget nap 0-1 "<your line>"']
    assert summary.lines(protocol.MCP_FORM) == \
        ['Run: sleep {"block": "0-1", "summary": "<your line>", "scope": "widget"}']


@pytest.mark.parametrize("form, pattern", [
    ("heredoc", r"^Run: memo .*$"), ("line", r"^Run: memo .*$"),
    (protocol.MCP_FORM, r"^Run: (\w+) (\{.*\})$")])
def test_one_of_gives_each_order_its_own_line(form, pattern):
    lines = protocol.one_of([protocol.Order("zoom", ("0-1",), "global", flag_first=True),
                             protocol.Order("zoom", ("0-1",), "widget", flag_first=True)],
                            form=form)
    assert len(lines) == 2 and all(re.match(pattern, line) for line in lines), lines
    assert not any("\n" in line for line in lines)
    people = protocol.one_of([protocol.Order("redact", ("0", "--yes"), "global", person=True,
                                             flag_first=True)], form=form)
    assert people == ["A person can run: memo redact --global 0 --yes"]


def test_the_scope_receipt_names_the_global_note_in_the_form_in_force():
    shell = protocol.scope_receipt("widget")
    assert shell.endswith("global memory: memo note --global - <<'MEMORY', then the text "
                          "and MEMORY on lines of their own).")
    with protocol.orders_in("line"):
        line = protocol.scope_receipt("widget")
    assert line.endswith('global memory: memo note --global "<text>").'), line
    with protocol.orders_in(protocol.MCP_FORM):
        mcp = protocol.scope_receipt("widget")
    assert mcp.endswith('global memory: note {"text": "<text>", "scope": "global"}).'), mcp
    assert "memo note" not in mcp


def test_a_wake_size_order_is_a_tool_call_in_the_mcp_form():
    """The refusal of a too small ``--max-bytes`` names the size that fits;
    through MCP that order is the ``wake`` tool with ``max_bytes``, not a
    person's step."""
    fits = protocol.Order("wake", options=(("--max-bytes", 1672),))
    assert protocol.run(fits, "heredoc") == "Run: memo wake --max-bytes 1672"
    assert protocol.run(fits, protocol.MCP_FORM) == 'Run: wake {"max_bytes": 1672}'
    assert protocol.Order("wake", scope="widget", options=(("--max-bytes", 900),)).call() == \
        'wake {"max_bytes": 900, "scope": "widget"}'
    assert protocol.Order("wake", ("2", "40")).call() == 'wake {"part": 2, "at": "40"}'


# == the later OptMem's refusals: exit code, stderr, the pattern a client uses ==

def _damaged_summary(block: str):
    """A store whose summary ``block`` (``LO-HI``) has bytes that are not
    UTF-8, as a torn or foreign write leaves them."""
    lo, hi = (int(x) for x in block.split("-"))
    size = hi - lo + 1

    def setup(memo, store, tmp_path):
        record = store / "TREE" / str(size)
        data = bytearray(record.read_bytes())
        at = (lo // size) * 288
        data[at:at + 2] = b"\xff\xfe"
        record.write_bytes(bytes(data))
    return setup


def _then(*steps):
    def setup(memo, store, tmp_path):
        for step in steps:
            step(memo, store, tmp_path)
    return setup


def _config(**knobs):
    return lambda memo, store, tmp_path: set_config(store, **knobs)


def _file_at_memory_dir(memo, store, tmp_path):
    import shutil
    shutil.rmtree(store)
    store.write_text("")


def _bad_date_file(memo, store, tmp_path):
    write_import(tmp_path / "dates.txt", ["2024-01-01 fine", "2024-02-30 not on the calendar"])


def _damaged_half(memo, store, tmp_path):
    """32 memories, every block built but 0-31; the summary 0-15 damaged."""
    _pending32(memo, store, tmp_path)
    _damaged_summary("0-15")(memo, store, tmp_path)


REFUSALS = [
    ("too-long", _none, ["note", "x" * 300], 1, r"Too long: (\d+) bytes, limit (\d+)\.",
     ("300", "280")),
    ("too-long-nap", _pending2, ["nap", "0-1", "y" * 281], 1,
     r"Too long: (\d+) bytes, limit (\d+)\.", ("281", "280")),
    ("wrong-block", _pending4, ["nap", "2-3", "out of order"], 1,
     r"Wrong block: (\d+-\d+)\. .*the next is (\d+)-(\d+)\.", ("2-3", "0", "1")),
    ("config-bare-name", _none, ["config", "WAKE_LINES"], 1, r"^memo: usage: memo config ", ()),
    ("zoom-no-id", _built(4), ["zoom"], 1, r"block id", ()),
    ("zoom-beyond", _built(4), ["zoom", "8-15"], 1, r"#(\d+-\d+) is beyond the memory",
     ("8-15",)),
    ("not-a-real-date", _bad_date_file, ["import", "DATES"], 1,
     r"line (\d+): (\S+) is not a real date\.", ("2", "2024-02-30")),
    ("not-a-directory", _file_at_memory_dir, ["wake"], 1, r"Not a directory", ()),
    ("not-a-directory-init", _file_at_memory_dir, ["init"], 1, r"Not a directory", ()),
    ("damaged-wake", _then(_built(4), _damaged_summary("0-1"), _config(WAKE_LINES=3)),
     ["wake"], 1, r"The summary of #(\d+-\d+) is damaged .*Run: .+ forget (\d+-\d+)$",
     ("0-1", "0-1")),
    ("damaged-zoom", _then(_built(4), _damaged_summary("0-1")), ["zoom", "0-3"], 1,
     r"The summary of #(\d+-\d+) is damaged .*Run: .+ forget (\d+-\d+)$", ("0-1", "0-1")),
    ("damaged-half-sleep", _damaged_half, ["sleep"], 1,
     r"summary of its half #(\d+-\d+) is damaged .*Run: .+ forget (\d+-\d+)$",
     ("0-15", "0-15")),
    ("damaged-half-nap", _damaged_half, ["nap"], 1, r"Run: .+ forget (\d+-\d+)$", ("0-15",)),
    ("damaged-half-wake", _damaged_half, ["wake"], 1, r"Run: .+ forget (\d+-\d+)$", ("0-15",)),
]


@pytest.mark.parametrize("case", REFUSALS, ids=[c[0] for c in REFUSALS])
def test_every_later_refusal_exits_and_says_it_on_stderr(memo, memory_dir, tmp_path, case):
    """Each refusal a client (or the later OptMem's suite) checks: the exit
    status, nothing on stdout, the one line on stderr with the matched words
    first and memo's own facts after them."""
    _, setup, argv, code, pattern, groups = case
    memo("init")
    setup(memo, memory_dir, tmp_path)
    argv = [str(tmp_path / "dates.txt") if a == "DATES" else a for a in argv]
    result = memo(*argv)
    assert result.exit_code == code, (result.stdout, result.stderr)
    assert result.stdout == "", result.stdout
    m = re.search(pattern, result.stderr, re.MULTILINE)
    assert m, (pattern, result.stderr)
    assert m.groups() == groups, result.stderr
    assert result.stderr.count("\n") == 1, result.stderr  # one line


def test_a_nap_that_saves_then_meets_a_damaged_half_says_saved_then_refuses(memo, memory_dir,
                                                                           tmp_path):
    """The summary is kept (stdout ``LO-HI saved.``); the next compression
    needs a damaged half, so the command exits 1 with its repair on stderr."""
    memo("init")
    imported(memo, tmp_path, 32)
    while True:  # build up to 16-31; 0-31 (halves 0-15 and 16-31) comes next
        out = memo("sleep").stdout
        m = re.search(r"Compress memories #(\d+)-(\d+)", out)
        if m.groups() == ("16", "31"):
            break
        memo("sleep", f"{m[1]}-{m[2]}", f"summary {m[1]}-{m[2]}")
    _damaged_summary("0-15")(memo, memory_dir, tmp_path)
    result = memo("nap", "16-31", "the second sixteen")
    assert result.exit_code == 1 and result.stdout == "16-31 saved.\n", result.stdout
    assert result.stderr.rstrip().endswith("Run: memo forget 0-15"), result.stderr


def test_the_hook_and_mcp_wake_keep_the_stand_in_of_a_damaged_summary(memo, memory_dir,
                                                                      tmp_path):
    """Only the CLI's wake refuses: a startup hook (``wake --max-bytes``) and
    the MCP server's wake show the stand-in line and hand the repair over,
    so an agent is never left without its memory; check names the repair."""
    from optmem.engine import wake as waking
    from optmem.store.memory import Store
    memo("init")
    _then(_built(4), _damaged_summary("0-1"), _config(WAKE_LINES=3))(memo, memory_dir, tmp_path)
    hook = memo("wake", "--max-bytes", "4000")
    assert hook.exit_code == 0 and "[damaged summary" in hook.stdout
    assert "Run: memo forget 0-1" in hook.stdout
    store = Store.open(str(memory_dir))
    try:
        ok, text = waking.wake(store, 1, None)  # what memo mcp's wake calls
    finally:
        store.close()
    assert ok and "[damaged summary" in text and text.rstrip().endswith("Run: memo forget 0-1")
    check = memo("check")
    assert check.exit_code == 1 and "memo forget 0-1" in check.stdout


def test_the_nap_form_is_the_later_one_line_text_and_batch_falls_back_to_line(monkeypatch):
    assert protocol.orders_form({"MEMO_ORDERS": "nap"}) == "nap"
    assert protocol.sleep_order("0-1", "nap") == ['Run: memo nap 0-1 "<your line>"']
    assert protocol.sleep_order("0-1", "nap", "--global") == \
        ['Run: memo --global nap 0-1 "<your line>"']
    assert protocol.empty_store("nap")[0] == \
        'No memories yet. Record the first with: memo note "<one line>"'
    assert protocol.run(protocol.Order("sleep"), "nap") == "Run: memo nap"
    assert protocol.run(protocol.Order("forget", ("0-1",)), "nap") == "Run: memo forget 0-1"
    monkeypatch.setenv("MEMO_ORDERS", "nap")
    assert protocol.part_footer(1, 2, 40) == "Not awake yet. Run: memo wake 2 40"
    assert protocol.part_footer_scoped(1, 2, 40, 3, "widget") == \
        "Not awake yet. Run: memo --project widget wake 2 40 3"  # the flag before the verb
    from optmem.engine import handover
    assert handover.order_lines(["0-1", "2-3"]) == \
        ['Run: memo sleep - "0-1 <your line>" "2-3 <your line>"']


def test_a_part_footer_through_mcp_is_not_awake_then_the_tool_call_on_its_line():
    """memo mcp's readers anchor ``^Run: (\\w+) (\\{.*\\})$`` per line: the tool
    call keeps a line of its own, after ``Not awake yet.``"""
    with protocol.orders_in(protocol.MCP_FORM):
        text = protocol.part_footer(1, 3, 40)
        scoped = protocol.part_footer_scoped(1, 3, 40, 2, "widget")
    assert text == 'Not awake yet.\nRun: wake {"part": 2, "at": "40"}'
    assert scoped == 'Not awake yet.\nRun: wake {"part": 2, "at": "40 2", "scope": "widget"}'
    assert all(protocol.is_part_footer(t.split("\n")[0]) for t in (text, scoped))
    assert MCP_ORDER.match(text.split("\n")[1])


# == wake's length: WAKE_LINES and PART_LINES as the later OptMem counts them ==

def _wake_pages(run, first=("wake",)) -> list:
    """Every part of a wake (its lines), following ``Not awake yet. Run:
    ... wake K T``."""
    out = run(*first)
    parts = []
    while True:
        lines = out.rstrip("\n").split("\n")
        parts.append(lines)
        m = LATER["page"].search(lines[-1])
        if not m:
            return parts
        out = run("wake", *m.groups())


def _document(parts: list) -> list:
    """The document lines of each part: no header, no closing line."""
    if len(parts) == 1:
        return [parts[0][:-1]]
    return [p[1:-1] for p in parts]


@pytest.mark.parametrize("T, N, P, n_parts", [
    (40, 40, 12, 4), (40, 12, 500, 1), (40, 256, 10, 4), (40, 37, 12, 4), (12, 40, 4, 3),
    (40, 40, 14, 3), (100, 13, 13, 1), (3, 2, 1, 2), (40, 1, 5, 1)])
def test_wake_is_the_tiling_line_for_line_and_part_lines_count_the_document(
        memo, memory_dir, tmp_path, T, N, P, n_parts):
    """The document is one line per block of ``cover(T, WAKE_LINES)``, the
    reference's lines and nothing of memo's, paged into the number of parts
    the later OptMem gives: ceil(lines / P) where PART_LINES binds; a header
    and the closing line are extra, so a one-part wake is at most
    ``WAKE_LINES + 1`` lines."""
    from optmem import blocks
    memo("init")
    _built(T)(memo, memory_dir, tmp_path)
    set_config(memory_dir, WAKE_LINES=N, PART_LINES=P)
    parts = _wake_pages(lambda *a: memo(*a).stdout)
    doc = [line for part in _document(parts) for line in part]
    tiling = blocks.cover(T, N)  # the later OptMem's document
    assert len(parts) == n_parts == -(-len(tiling) // P)
    assert [_block_of(line) for line in doc] == tiling
    if len(parts) == 1:
        assert len(parts[0]) <= max(N, blocks.popcount(T)) + 1
    else:
        assert all(re.fullmatch(rf"Your memory, part {k} of {len(parts)}, oldest first\.",
                                part[0]) for k, part in enumerate(parts, 1))
    assert parts[-1][-1] == "You are awake."


def _block_of(line: str) -> tuple:
    """``(lo, hi)``, half-open, of a ``#`` line; fails for any other line."""
    m = re.match(r"#(\d+)(?:-(\d+))? ", line)
    assert m, line
    return int(m.group(1)), int(m.group(2) or m.group(1)) + 1


def test_paging_matches_the_reference_where_part_lines_binds(memo, memory_dir, tmp_path):
    """The later OptMem (never in this repository: point OPTMEM_REFERENCE at
    its ``memo`` script) and memo page the same stores into the same number
    of parts with the same blocks per part, line for line."""
    import os
    import subprocess
    import sys
    ref = os.environ.get("OPTMEM_REFERENCE", "")
    if not os.path.isfile(ref):
        pytest.skip("OPTMEM_REFERENCE does not name the later OptMem's memo script "
                    "(github.com/VictorTaelin/OptMem), so paging is not compared")
    env = dict(os.environ, MEMORY_DIR=str(memory_dir))

    def reference(*argv):
        done = subprocess.run([sys.executable, ref, *argv], capture_output=True, text=True,
                              env=env)
        assert done.returncode == 0, done.stderr
        return done.stdout

    memo("init")
    compared = []
    for T in (12, 40):
        if T == 40:
            imported(memo, tmp_path, 28)  # 12 + 28
        else:
            imported(memo, tmp_path, 12)
        answer_all(memo)
        for N, P in [(40, 12), (12, 5), (40, 14), (96, 10), (5, 2), (T, T // 4)]:
            set_config(memory_dir, WAKE_LINES=N, PART_LINES=P)
            ours = _document(_wake_pages(lambda *a: memo(*a).stdout))
            theirs = _document(_wake_pages(reference))
            mine = [[line for line in part if line.startswith("#")] for part in ours]
            their = [[line for line in part if line.startswith("#")] for part in theirs]
            assert len(ours) == len(theirs), (T, N, P, ours, theirs)
            assert [[_block_of(line) for line in part] for part in mine] == \
                [[_block_of(line) for line in part] for part in their], (T, N, P)
            assert [len(p) for p in ours] == [len(p) for p in theirs], (T, N, P)
            compared.append((T, N, P, [len(p) for p in ours], [len(p) for p in theirs]))
    print("\n".join(f"T={T} WAKE_LINES={N} PART_LINES={P}: memo {a}, reference {b}"
                    for T, N, P, a, b in compared))


# == a client that reads only the later OptMem's patterns ====================

LATER = {
    "page": re.compile(r"Not awake yet\. Run: .+ wake (\d+) (\d+)$", re.MULTILINE),
    "nap": re.compile(r"Run: .+ nap (\d+-\d+) \"<your line>\"$", re.MULTILINE),
    "missing": re.compile(r"No memory at"),
}


def _later_life():
    import importlib.util

    from conftest import REPO
    spec = importlib.util.spec_from_file_location("later_client_life",
                                                  REPO / "examples" / "later-client-life.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.NAP.pattern == LATER["nap"].pattern  # the example reads these patterns
    assert module.PAGE.pattern == LATER["page"].pattern
    return module


def test_a_later_client_lives_a_40_memory_life_with_the_nap_form(tmp_path):
    """examples/later-client-life.py with MEMO_ORDERS=nap: from No memory at
    through memo init, 40 imports, every nap, three parts, You are awake."""
    import sys
    life = _later_life()
    log = []
    seen = life.live([sys.executable, "-m", "optmem"], "nap", str(tmp_path), log.append)
    assert seen["stuck"] is None, "\n".join(log)
    assert seen["naps"] == 40 - 2 and len(seen["parts"]) == 3 and seen["awake"]
    # 39 lines in parts of 14, each with its header and closing line
    assert [len(p) for p in seen["parts"]] == [14 + 2, 14 + 2, 11 + 2]
    print("\n".join(log))


def test_a_later_client_is_stuck_at_the_default_form_where_the_readme_says(tmp_path):
    """At the default (heredoc) form the nap pattern finds no order: the
    compressions stay pending and the wake the client needs is refused."""
    import sys
    life = _later_life()
    log = []
    seen = life.live([sys.executable, "-m", "optmem"], "heredoc", str(tmp_path), log.append)
    assert seen["naps"] == 0 and seen["parts"] == []
    assert seen["stuck"].startswith("wake was refused"), "\n".join(log)


def test_with_a_project_the_cli_wake_refuses_a_damaged_summary_with_its_flag(memo, memory_dir,
                                                                             tmp_path,
                                                                             monkeypatch):
    """Two stores: the CLI's wake refuses a damaged summary of the project
    as it does one of a lone store, the forget order naming the project."""
    import subprocess
    repo = tmp_path / "widget"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    monkeypatch.chdir(repo)
    memo("init")
    assert memo("init", "--project", "widget").exit_code == 0
    for i in range(4):
        assert memo("note", f"project fact {i}").exit_code == 0
    out = memo("sleep").stdout
    while (m := re.search(r"Compress memories #(\d+-\d+)", out)):
        out = memo("sleep", "--project", "widget", m[1], f"summary {m[1]}").stdout
    _damaged_summary("0-1")(memo, memory_dir / "projects" / "widget", tmp_path)
    set_config(memory_dir, WAKE_LINES=3)  # the project's 4 memories in 3 lines: #0-1 shown
    result = memo("wake")
    assert result.exit_code == 1 and result.stdout == "", result.stdout
    assert result.stderr.rstrip().endswith("Run: memo forget 0-1 --project widget"), result.stderr


@pytest.mark.parametrize("value", ["lines", "NAPS", "x'y"])
def test_an_unknown_orders_form_says_so_beside_the_orders(memo, memory_dir, monkeypatch, value):
    """``MEMO_ORDERS`` set to no form (a typo) still prints the default form,
    and one stderr line names the value (quoted for a shell) and the forms;
    a known form, in any case and with spaces, prints no such line."""
    assert memo("init").exit_code == 0
    memo("note", "one")
    monkeypatch.setenv("MEMO_ORDERS", value)
    result = memo("note", "two")
    assert "Run: memo sleep 0-1 - <<'SUMMARY'" in result.stdout
    assert result.stderr.splitlines() == [
        f"memo: MEMO_ORDERS={shlex.quote(value)} names no order form (heredoc, line or nap), "
        f"so the orders above are in the heredoc form."]
    monkeypatch.setenv("MEMO_ORDERS", " Line ")
    result = memo("wake")
    assert 'Run: memo sleep 0-1 "<your line>"' in result.stdout and result.stderr == ""
    monkeypatch.setenv("MEMO_ORDERS", value)
    assert memo("recall", "one").stderr == ""  # no order printed: nothing to say


def test_an_unknown_orders_form_is_named_beside_the_empty_stores_seed_order(memo, memory_dir,
                                                                            monkeypatch):
    assert memo("init").exit_code == 0
    monkeypatch.setenv("MEMO_ORDERS", "naps")
    result = memo("wake")
    assert result.stdout.startswith("No memories yet. Record the first with: memo note - <<")
    assert result.stderr.startswith("memo: MEMO_ORDERS=naps names no order form")

"""``memo recall --json``: a list of id, date and text that agrees with the
log; a bad pattern is one line.
"""

from __future__ import annotations

import json
import re

import pytest

from conftest import history, set_config, write_import
from helpers import import_texts, ok, refused


def test_recall_json_is_a_list_of_id_date_text(memo, inited):
    texts = ['said "hello" to Zoë', "a  double  space", "back\\slash and {braces}",
             "plain memory"]
    for t in texts:
        ok(memo("note", t))
    result = memo("recall", "--json", ".")
    data = json.loads(ok(result))
    assert isinstance(data, list) and len(data) == 4
    for k, (item, text) in enumerate(zip(data, texts)):
        assert set(item) == {"id", "date", "text"}
        assert type(item["id"]) is int and item["id"] == k
        assert re.fullmatch(r"\d{4}-\d\d-\d\d", item["date"])
        assert item["text"] == text
    assert json.loads(ok(memo("recall", "zoë", "--json"))) == [data[0]]
    assert json.loads(ok(memo("recall", "--json", "^#3 "))) == [data[3]]
    assert json.loads(ok(memo("recall", "--json", "nothing matches this"))) == []


def test_recall_json_agrees_with_the_log(memo, store300):
    lines = history(300)
    data = json.loads(ok(memo("recall", "--json", "option")))
    want = [(i, line[:10], line[11:]) for i, line in enumerate(lines)
            if re.search("option", f"#{i} {line}", re.IGNORECASE)]
    assert want
    assert [(d["id"], d["date"], d["text"]) for d in data] == want


@pytest.mark.parametrize("head", [b"#XX", b"#2 Fact", b"#\xd9\xa2 "])
def test_recall_json_of_a_damaged_record_keeps_its_line_and_guesses_no_date(memo, inited,
                                                                           head):
    """A record whose head is damaged is matched as its raw line: its JSON
    object has no id or date (null) and the whole line as its text, never
    a word of the text read as the date."""
    for k in range(4):
        ok(memo("note", f"Fact number {k} here"))
    log = inited / "LOG.txt"
    data = bytearray(log.read_bytes())
    data[640:640 + len(head)] = head
    log.write_bytes(bytes(data))
    rows = json.loads(ok(memo("recall", "--json", "number 2")))
    assert len(rows) == 1 and rows[0]["id"] is None and rows[0]["date"] is None
    assert "Fact number 2 here" in rows[0]["text"]
    text = ok(memo("recall", "number 2")).splitlines()[0]
    assert rows[0]["text"] == text  # the line plain recall prints, whole
    good = json.loads(ok(memo("recall", "--json", "number 3")))
    assert good == [{"id": 3, "date": good[0]["date"], "text": "Fact number 3 here"}]


def test_recall_json_bad_regex_is_one_line(memo, inited):
    ok(memo("note", "something"))
    line = refused(memo("recall", "--json", "(unclosed"))
    assert "regex" in line.lower() or "regular expression" in line.lower()


RECALL_TEXTS = ["fixed the Parser bug", "wrote docs", "parser tests added", "release 1.0",
                "coffee", "parser rewrite started", "lunch", "the eighth memory", "release 1.1"]


RECALL_DATES = ["2024-05-01", "2024-05-01", "2024-05-02", "2024-05-03", "2024-05-03",
                "2024-06-10", "2024-06-10", "2024-06-11", "2024-07-01"]


@pytest.fixture
def recall_store(memo, inited, tmp_path):
    path = write_import(tmp_path / "r.txt",
                        [f"{d} {t}" for d, t in zip(RECALL_DATES, RECALL_TEXTS)])
    assert memo("import", path).exit_code == 0
    return inited


def expected_line(i):
    return f"#{i} {RECALL_DATES[i]} {RECALL_TEXTS[i]}"


def test_recall_by_word_case_insensitive(memo, recall_store):
    result = memo("recall", "PARSER")
    assert result.exit_code == 0 and result.stderr == ""
    lines = result.stdout.splitlines()
    assert lines[:-1] == [expected_line(0), expected_line(2), expected_line(5)]
    assert re.search(r"\b3\b", lines[-1])


def test_recall_by_id(memo, recall_store):
    result = memo("recall", "^#7 ")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == expected_line(7)
    assert len(lines) == 2 and re.search(r"\b1\b", lines[1])


def test_recall_by_date(memo, recall_store):
    result = memo("recall", "2024-06")
    lines = result.stdout.splitlines()
    assert lines[:-1] == [expected_line(5), expected_line(6), expected_line(7)]
    assert re.search(r"\b3\b", lines[-1])


def test_recall_bad_regex_and_no_match(memo, recall_store):
    bad = memo("recall", "(unclosed")
    assert bad.exit_code == 1
    assert bad.stdout == ""
    assert "regex" in bad.stderr.lower()
    none = memo("recall", "zebra")
    assert none.exit_code == 0 and none.stderr == ""
    assert re.search(r"\bno\b.*match", none.stdout, re.IGNORECASE)
    assert "#" not in none.stdout.split("'")[0]


def test_recall_cut_keeps_the_newest(memo, inited, tmp_path):
    texts = [f"needle {i:03d} " + "hay " * 20 for i in range(40)]
    import_texts(memo, tmp_path, [t.strip() for t in texts])
    set_config(inited, PART_CHARS=2048)
    result = memo("recall", "needle")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    shown, trailer = lines[:-1], lines[-1]
    everything = [f"#{i} 2024-05-01 {t.strip()}" for i, t in enumerate(texts)]
    assert shown == everything[-len(shown):]  # the newest, oldest first
    size = sum(len(s.encode()) + 1 for s in shown)
    assert len(result.stdout.encode()) <= 2048  # the count line fits too
    # no room for one more once the count line has its 200 bytes
    assert size + len(everything[-len(shown) - 1].encode()) + 1 > 2048 - 200
    assert "40" in trailer
    assert "narrow" in trailer.lower()


@pytest.mark.parametrize("pattern", ["$HOME/.config", "f(x)", "a.b[0]"])
def test_a_regex_that_finds_nothing_but_the_text_as_written_says_so(memo, inited, pattern):
    """No line matches the pattern as a regex, yet a line holds it as
    written: stdout stays the seed's ``No match.``, and one stderr line
    says why and ends with the ``-F`` order, which runs as printed."""
    import shlex
    ok(memo("note", f"the value is {pattern} here"))
    ok(memo("note", "another memory"))
    result = memo("recall", pattern)
    assert result.exit_code == 0 and result.stdout == "No match.\n"
    line = result.stderr.rstrip("\n")
    assert "\n" not in line and "1 line holds it as written" in line
    order = line.split(". Run: ", 1)[1]
    assert order == f"memo recall -F {shlex.quote(pattern)}"
    words = shlex.split(order)
    assert memo(*words[1:]).stdout.endswith("1 match.\n")
    # No note when the text is not there either, when the regex matched, or with -F.
    assert memo("recall", pattern + "zz").stderr == ""
    assert memo("recall", "value").stderr == ""
    assert memo("recall", "-F", pattern + "zz").stderr == ""


def test_the_as_written_hint_over_mcp_is_a_tool_call(memo, inited):
    pytest.importorskip("jsonschema", reason="the MCP extra is not installed")
    from optmem.mcp import call_tool
    ok(memo("note", "config lives in $HOME/.config now"))
    text, is_error = call_tool("recall", {"pattern": "$HOME/.config"})
    assert not is_error and text.startswith("No match.\n")
    order = text.rsplit(". Run: ", 1)[1]
    assert json.loads(order[len("recall "):]) == {"pattern": "$HOME/.config", "fixed": True}
    text, is_error = call_tool("recall", json.loads(order[len("recall "):]))
    assert not is_error and text.endswith("1 match.")


@pytest.mark.parametrize("pattern", ["f(", "[x", "a)b"])
def test_a_bad_regex_a_line_holds_as_written_orders_the_fixed_recall(memo, inited, pattern):
    """A pattern ``re`` refuses, held as written by a line: the one-line
    refusal ends with the ``-F`` order, which runs as printed and finds it;
    held by no line, the refusal stays the usual one."""
    import shlex
    ok(memo("note", f"the text {pattern} is here"))
    line = refused(memo("recall", pattern))
    assert "1 line holds it as written. Run: memo recall -F " in line
    order = shlex.split(line.split("Run: ", 1)[1])
    assert memo(*order[1:]).stdout.endswith("1 match.\n")
    other = refused(memo("recall", pattern + "zz"))
    assert "as written" not in other and "Run: " not in other

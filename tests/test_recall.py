"""``memo recall --json``: a list of id, date and text that agrees with the
log; a bad pattern is one line.
"""

from __future__ import annotations

import json
import re

from conftest import history
from helpers import ok, refused


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


def test_recall_json_bad_regex_is_one_line(memo, inited):
    ok(memo("note", "something"))
    line = refused(memo("recall", "--json", "(unclosed"))
    assert "regex" in line.lower() or "regular expression" in line.lower()

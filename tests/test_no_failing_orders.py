"""memo never orders a step that cannot succeed where it can tell: a store
that is read-only for this user gets no ``Run: memo sleep`` (its sentence
says so instead), and a level file of ``TREE/`` that is no file memo writes
(a folder, a link) gets the person's step, never ``Run: memo forget`` or
``Run: memo sleep``. A memory that does not need that level is still shown
whole: one broken level never locks an agent out of its memory.
"""

from __future__ import annotations

import json
import shlex

import pytest

from conftest import answer_all
from helpers import ok
from optmem.store.memory import Store


def _build(memo, n: int) -> None:
    for k in range(n):
        ok(memo("note", f"memory {k} of the test"))
    answer_all(memo)


def _orders(text: str) -> list:
    return [line for line in text.splitlines() if line.startswith("Run: ")]


@pytest.fixture
def broken16(memo, inited):
    """17 memories, every summary built, then ``TREE/16`` made a folder."""
    _build(memo, 17)
    level = inited / "TREE" / "16"
    level.unlink()
    level.mkdir()
    return level


def test_a_broken_level_the_document_does_not_need_leaves_wake_whole(memo, broken16):
    for args in (["wake"], ["wake", "--max-bytes", "4000"]):
        result = memo(*args)
        assert result.exit_code == 0, result.stderr
        lines = result.stdout.rstrip("\n").splitlines()
        # 17 memories fit WAKE_LINES verbatim: no summary is needed
        assert [line.split(" ")[0] for line in lines if line.startswith("#")] == [
            f"#{k}" for k in range(17)]
        assert lines[-3:-1] == ["You are awake.", ""]
        assert lines[-1].startswith(f"{broken16} is not a regular file")
        assert "A person can run: mv -- " in lines[-1] and not _orders(result.stdout)
    hook = memo("hook", "session-start", "--harness", "claude")
    context = json.loads(hook.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "#16 " in context and "could not be loaded" not in context
    assert "Run: memo sleep" not in context and f"mv -- {shlex.quote(str(broken16))}" in context


def test_a_broken_level_the_document_needs_is_one_line_with_the_persons_step(memo, broken16):
    ok(memo("config", "WAKE_LINES=2"))  # the tiling needs #0-15, on the broken level
    result = memo("wake")
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "A person can run: mv -- " in result.stderr


def test_zoom_and_forget_on_a_broken_level_order_nothing_that_fails(memo, inited):
    _build(memo, 17)
    level = inited / "TREE" / "8"
    level.unlink()
    level.mkdir()
    zoom = memo("zoom", "0-15")
    assert zoom.exit_code == 1 and zoom.stderr.count("\n") == 1
    assert zoom.stderr.startswith(f"memo: {level} is not a regular file")
    assert "Run: " not in zoom.stderr.replace("A person can run: ", "")
    forget = memo("forget", "0-15")  # cuts TREE/16 only: it succeeds
    assert forget.exit_code == 0 and forget.stdout.startswith("Forgot 1 summary, from 0-15 up. ")
    assert "Run: memo sleep" not in forget.stdout and "A person can run: mv -- " in forget.stdout
    assert memo("sleep").exit_code == 1  # the order it did not print would have failed
    check = memo("check").stdout
    assert "Run: memo sleep" not in check
    # The sound levels still count: 8 + 4 of TREE/2 and TREE/4 (TREE/16 was forgotten).
    assert "17 memories, 12 summaries built, 3 pending." in check


def test_a_forget_of_a_block_not_built_orders_no_sleep_that_fails(memo, inited):
    for k in range(4):
        ok(memo("note", f"memory {k}"))
    (inited / "TREE").mkdir(exist_ok=True)
    (inited / "TREE" / "4").mkdir()
    result = memo("forget", "0-1")
    assert result.exit_code == 1 and "Run: memo sleep" not in result.stderr
    assert "A person can run: mv -- " in result.stderr


def test_a_read_only_store_gets_no_sleep_order_anywhere(memo, inited, monkeypatch):
    for k in range(4):
        ok(memo("note", f"memory {k}"))
    monkeypatch.setattr(Store, "writable", lambda self: False)
    for args in (["wake"], ["wake", "--max-bytes", "4000"], ["check"], ["stats"],
                 ["zoom", "0-3"]):
        out = memo(*args).stdout
        assert "Run: memo sleep" not in out, (args, out)
        assert "read-only for this user" in out, (args, out)
    hook = memo("hook", "session-start", "--harness", "claude")
    context = json.loads(hook.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "Run: memo sleep" not in context and "read-only for this user" in context


def test_check_orders_the_sleep_in_the_form_in_force(memo, inited, monkeypatch):
    for k in range(2):
        ok(memo("note", f"memory {k}"))
    monkeypatch.setenv("MEMO_ORDERS", "nap")
    assert _orders(memo("check").stdout) == ["Run: memo nap"]
    monkeypatch.setenv("MEMO_ORDERS", "line")
    assert _orders(memo("check").stdout) == ["Run: memo sleep"]


def test_the_hook_names_a_bad_config_not_a_memory_too_long(memo, inited):
    """A config line memo cannot read: the session-start context is the
    config's own line and its repair, not "does not fit ... Run: memo wake"
    (which fails on the same config)."""
    for k in range(3):
        ok(memo("note", f"memory {k}"))
    with open(inited / "config", "a", encoding="utf-8") as f:
        f.write("WAKE_LINES=abc\n")
    hook = memo("hook", "session-start", "--harness", "claude")
    context = json.loads(hook.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "does not fit" not in context and "Run: memo wake" not in context
    assert "WAKE_LINES must be a whole number" in context
    assert "Run: memo config --repair" in context
    assert memo("config", "--repair").exit_code == 0
    assert memo("wake").exit_code == 0  # the order it gave was the one that helps


def test_a_bad_config_gets_its_repair_not_a_sleep(memo, inited):
    for k in range(4):
        ok(memo("note", f"memory {k}"))
    ok(memo("sleep", "0-1", "the first two"))
    with open(inited / "config", "a", encoding="utf-8") as f:
        f.write("WAKE_LINES=abc\n")
    for args in (["zoom", "0-3"], ["forget", "2-3"]):
        result = memo(*args)
        text = result.stdout + result.stderr
        assert "Run: memo sleep" not in text, (args, text)
    assert memo("sleep").exit_code == 1  # the order it did not print would have failed

"""The session layer: decisions both front ends take from one place.

A two-store ``recall --json`` keeps to the byte budget and says when it
shows fewer than all matches, as the one-store path does; a filesystem
error reads the same over MCP as on the command line; an order is a value
rendered per form, a message's closing order included.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess

import pytest

from conftest import set_config
from optmem import protocol, session
from optmem.engine import core
from optmem.errors import BadInput

GIT = shutil.which("git")
GIT_ENV = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}


@pytest.fixture
def widget(tmp_path, memo, inited, monkeypatch):
    """The working directory is a repository bound to project ``widget``."""
    if GIT is None:
        pytest.skip("git not found")
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    repo = tmp_path / "widget"
    repo.mkdir()
    for args in (["init", "-q"], ["commit", "-q", "--allow-empty", "-m", "start"]):
        subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)
    monkeypatch.chdir(repo)
    assert memo("init", "--project", "widget").exit_code == 0
    return repo


def test_a_two_store_recall_json_keeps_the_byte_budget_and_says_newest(memo, widget, inited):
    set_config(inited, PART_CHARS=2000)
    for k in range(30):
        assert memo("note", f"widget fact {k:02d} " + "w" * 200).exit_code == 0
        assert memo("note", "--global", f"global fact {k:02d} " + "g" * 200).exit_code == 0
    result = memo("recall", "--json", "fact")
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert isinstance(out, list)  # one shape whatever the scope: a list
    assert {item["store"] for item in out} == {"global", "widget"}
    assert [item["store"] for item in out] == sorted((i["store"] for i in out),
                                                     key=lambda s: s != "global")
    assert len(result.stdout.encode("utf-8")) <= 2000 + 1
    assert out[-1]["store"] == "widget"
    assert out[-1]["text"].startswith("widget fact 29")  # the newest are kept
    assert "memo: showing the newest" in result.stderr and "narrow the regex" in result.stderr


def test_a_two_store_recall_json_that_shows_everything_says_nothing(memo, widget):
    memo("note", "widget fact")
    memo("note", "--global", "global fact")
    result = memo("recall", "--json", "fact")
    date = json.loads(result.stdout)[0]["date"]
    assert json.loads(result.stdout) == [
        {"store": "global", "id": 0, "date": date, "text": "global fact"},
        {"store": "widget", "id": 0, "date": date, "text": "widget fact"}]
    assert result.stderr == ""
    # one store read: the same list, its items without "store"
    alone = json.loads(memo("recall", "--json", "--project", "widget", "fact").stdout)
    assert alone == [{"id": 0, "date": date, "text": "widget fact"}]


@pytest.mark.parametrize("code, advice", [
    (errno.ENOSPC, "Free some space"),
    (errno.EACCES, "check its owner and mode"),
])
def test_a_filesystem_error_gets_the_same_advice_over_mcp(memo, inited, monkeypatch, code,
                                                          advice):
    pytest.importorskip("jsonschema", reason="the MCP extra is not installed")
    from optmem.mcp import call_tool

    def refuse(store, text):
        raise OSError(code, os.strerror(code), str(inited / "LOG.txt"))

    monkeypatch.setattr(core, "note", refuse)
    shell = memo("note", "a fact")
    text, is_error = call_tool("note", {"text": "a fact"})
    assert shell.exit_code == 1 and is_error
    assert advice in shell.stderr and advice in text
    assert text == shell.stderr.rstrip("\n")
    assert "memo check" not in text


def test_a_deleted_working_directory_reads_the_same_in_both(tmp_path, monkeypatch):
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    line = session.oserror_line(FileNotFoundError(errno.ENOENT, "No such file or directory"))
    assert line.startswith("the working directory no longer exists")


def test_an_order_is_built_once_and_rendered_per_form():
    order = protocol.Order("sleep", ("0-1",), "global", protocol.YOUR_LINE)
    assert order.lines("heredoc") == ["Run: memo sleep 0-1 --global - <<'SUMMARY'",
                                      "<your line>", "SUMMARY"]
    assert order.lines("line") == ['Run: memo sleep 0-1 --global "<your line>"']
    assert order.lines("nap") == ['Run: memo --global nap 0-1 "<your line>"']
    assert order.lines("mcp") == \
        ['Run: sleep {"block": "0-1", "summary": "<your line>", "scope": "global"}']
    person = protocol.Order("redact", ("3", "--yes"), "widget", person=True, flag_first=True)
    assert person.lines("mcp") == person.lines("line") == \
        ["A person can run: memo redact --project widget 3 --yes"]


def test_a_message_ends_with_its_order_in_the_form_in_force():
    err = BadInput("the log holds 3 memories, so there is no view at T=9.",
                   then=protocol.Order("wake"))
    assert str(err) == "the log holds 3 memories, so there is no view at T=9. Run: memo wake"
    with protocol.orders_in(protocol.MCP_FORM):
        assert str(err) == "the log holds 3 memories, so there is no view at T=9. Run: wake {}"
    assert err.sentence == "the log holds 3 memories, so there is no view at T=9."


def test_no_front_end_rewrites_rendered_orders():
    import optmem.mcp as mcp
    assert not hasattr(protocol, "mcp_orders") and not hasattr(protocol, "tool_call")
    assert "mcp_orders" not in open(mcp.__file__, encoding="utf-8").read()


def test_an_import_receipt_names_the_global_import(memo, widget, tmp_path):
    path = tmp_path / "lines.txt"
    path.write_text("2024-05-01 widget ships on fridays\n", encoding="utf-8")
    result = memo("import", str(path))
    assert result.exit_code == 0, result.stderr
    assert "global memory: memo import --global FILE)." in result.stdout


# -- one result per command ----------------------------------------------------

def _stores():
    from optmem.scope import resolve
    from optmem.store.memory import Store
    return session.Stores(resolve(None), Store.open)


def test_each_command_returns_one_result_that_both_front_ends_render(memo, inited):
    """The session layer answers a command with one value: the CLI prints
    its lines and exits with its code, the MCP text is its ``text``."""
    st = _stores()
    try:
        saved = session.note(st, "the build runs on make")
        assert saved.lines == ["Saved as #0."] and saved.exit_code == 0 and not saved.error
        found = session.recall(st, "make")
        assert found.lines[0].endswith("the build runs on make")
        assert found.text == "\n".join(found.lines)
        stats = session.stats(st, as_json=True)
        assert json.loads(stats.text)[0]["memories"] == 1
    finally:
        for store in st.opened():
            store.close()
    shown = memo("recall", "make")
    assert shown.exit_code == 0 and shown.stdout == found.text + "\n"


def test_a_wake_blocked_on_a_compression_exits_1_but_is_no_error(memo, inited, memory_dir):
    set_config(memory_dir, WAKE_LINES=1)
    for k in range(3):
        assert memo("note", f"fact number {k}").exit_code == 0
    st = _stores()
    try:
        woke = session.wake(st)
    finally:
        for store in st.opened():
            store.close()
    assert woke.exit_code == 1 and not woke.error
    assert woke.lines[0].startswith("Cannot wake:")


def test_a_saved_note_keeps_its_receipt_when_the_hand_over_fails(memo, inited, monkeypatch):
    """Once a note is saved, a failure while choosing the next compression
    comes after ``Saved as #N.``, on both front ends: the receipt is never
    lost (over MCP it used to be replaced by the error line)."""
    pytest.importorskip("jsonschema", reason="the MCP extra is not installed")
    from optmem.errors import Busy
    from optmem.mcp import call_tool

    def busy(*args, **kwargs):
        raise Busy("the store is busy; nothing more was done. Run: memo sleep")

    from optmem.session import writes
    monkeypatch.setattr(writes, "follow", busy)
    text, is_error = call_tool("note", {"text": "widget deploys with fly"})
    assert is_error
    assert text.split("\n")[:2] == ["Saved as #0.", "memo: the store is busy; nothing more "
                                    "was done. Run: memo sleep"]
    result = memo("note", "widget tests need redis")
    assert result.exit_code == 1
    assert result.stdout == "Saved as #1.\n"
    assert result.stderr.startswith("memo: the store is busy")


def _stores(explicit: bool = False):
    from optmem.scope import resolve
    from optmem.store.memory import Store
    return session.Stores(resolve(None), Store.open, explicit)


def test_redact_chooses_its_store_in_the_session_layer_and_returns_a_result(memo, inited):
    assert memo("note", "a line to blank for good").exit_code == 0
    st = _stores()
    with pytest.raises(BadInput, match=r"A person can run: memo redact 0 --yes$"):
        session.redact(st, "#0")
    result = session.redact(st, "#0", yes=True)
    assert (result.exit_code, result.error, result.notes) == (0, False, [])
    assert result.lines[0].startswith(f"Memory #0 is now [redacted] in {inited}")
    assert result.lines[0].endswith("Run: memo sleep")
    for store in st.opened():
        store.close()
    assert "[redacted" in memo("zoom", "0").stdout


def test_import_chooses_its_store_in_the_session_layer_and_returns_a_result(inited, tmp_path):
    from conftest import write_import
    write_import(tmp_path / "two.txt", ["2024-01-01 first line", "2024-01-02 second line"])
    st = _stores()
    store = session.import_store(st)
    said = []
    result = session.import_(st, store, str(tmp_path / "two.txt"), "two.txt", kept=said.append)
    assert result.lines == [protocol.imported(2, 0), protocol.pending_after_import(1)]
    assert said == ["the import was saved as #0-1"]
    assert store.count() == 2
    for opened in st.opened():
        opened.close()


def test_config_chooses_its_store_in_the_session_layer_and_returns_a_result(inited):
    from optmem.errors import ConfigError
    st = _stores()
    shown = session.config(st)
    assert shown.exit_code == 0 and len(shown.lines) == 1 and "WAKE_LINES" in shown.lines[0]
    with pytest.raises(ConfigError, match="has no '='"):
        session.config(st, ("WAKE_LINES",))
    changed = session.config(st, ("WAKE_LINES=40",))
    assert len(changed.lines) == 2 and "40" in changed.lines[0]
    assert st.g.config().WAKE_LINES == 40
    for opened in st.opened():
        opened.close()


def test_scope_is_a_session_command_returning_its_result(inited):
    st = _stores()
    result = session.scope(st)
    assert result.lines[0] == f"Global memory: {inited}"
    assert result.lines[1].startswith("Project: ") and "Projects: none" in result.lines
    for opened in st.opened():
        opened.close()


def test_check_is_a_session_command_returning_its_result(memo, inited):
    from helpers import poke
    assert memo("note", "one line to check").exit_code == 0
    st = _stores()
    whole = session.check(st)
    assert (whole.exit_code, whole.lines[-1]) == (0, "The store is whole.")
    for opened in st.opened():
        opened.close()
    poke(inited, 0, b"XX")
    st = _stores()
    result = session.check(st)
    assert (result.exit_code, result.error) == (1, True)
    assert result.lines[-1] == "1 problem found."
    for opened in st.opened():
        opened.close()


def test_export_is_a_session_command_returning_its_result(memo, inited, tmp_path):
    assert memo("note", "one line to export").exit_code == 0
    st = _stores()
    got = []
    assert session.export(st, "-", got.append) == session.Result()
    assert b"".join(got).decode("utf-8").endswith(" one line to export\n")
    target = tmp_path / "out.txt"
    result = session.export(st, str(target))
    assert result.lines == [f"Exported 1 memory to {target}. To read them into another memory, "
                            f"with MEMORY_DIR naming it: A person can run: memo import {target}"]
    assert target.read_bytes() == b"".join(got)
    for opened in st.opened():
        opened.close()


def test_init_is_a_session_command_returning_its_result(memory_dir):
    created = session.init()
    assert created.lines == [f"Created an empty memory at {memory_dir}. Run: memo wake"]
    again = session.init()
    assert again.lines == [f"Found {memory_dir}: 0 memories. It is already a memory store; "
                           f"nothing was changed. Run: memo wake"]


def test_sleep_with_chooses_and_refuses_in_the_session_layer(memo, inited):
    assert memo("note", "one line to pay").exit_code == 0
    st = _stores()
    with pytest.raises(BadInput, match="--with answers every pending compression itself"):
        session.pay_targets(st, "0-1")
    assert [s.root for s in session.pay_targets(st)] == [st.g.root]
    for opened in st.opened():
        opened.close()


@pytest.mark.parametrize("batch", [False, True])
def test_the_remaining_count_covers_the_project_behind_the_global(memo, widget, monkeypatch,
                                                                  batch):
    """With a project active the global memory's prompt counts the project's
    pending compressions in its ``remain`` line: never ``This is the last
    compression.`` while the project still has one; the project's own last
    one says it."""
    if batch:
        monkeypatch.setenv("MEMO_HANDOVER", "batch")
    for k in range(2):
        assert memo("note", f"project fact {k}").exit_code == 0
    memo("note", "--global", "global fact 0")
    memo("note", "--global", "global fact 1")
    out = memo("sleep").stdout  # both stores: the global memory's first
    assert "Compress memories #0-1" in out and "--global" in out
    assert "This is the last compression." not in out
    assert ("1 compression remains after this batch." if batch
            else "1 compression remains after this one.") in out
    nxt = memo("sleep", "--global", "0-1", "two global facts").stdout
    assert "0-1 saved." in nxt and "--project widget" in nxt
    assert "remain" not in nxt
    assert batch or "This is the last compression." in nxt


def test_a_global_wake_pages_the_global_document_while_a_project_is_active(memo, widget,
                                                                           tmp_path):
    """``memo --global wake`` with a project active: each part's order
    repeats ``--global``, so run as printed it pages the global memory's
    own document to its end, never the two-store one."""
    import shlex
    from datetime import date
    lines = tmp_path / "g.txt"
    lines.write_text("".join(f"{date.today().isoformat()} global memory {k}\n"
                             for k in range(3)), encoding="utf-8")
    assert memo("import", "--global", str(lines)).exit_code == 0
    assert memo("note", "a project memory").exit_code == 0
    assert memo("config", "--global", "PART_LINES=2").exit_code == 0
    seen, out = [], memo("--global", "wake").stdout
    for _ in range(10):
        seen += [line.split(" ")[0] for line in out.splitlines() if line.startswith("#")]
        last = [line for line in out.splitlines() if line.startswith("Not awake yet.")]
        if not last:
            break
        order = last[0].split("Run: ", 1)[1]
        assert order.endswith(" --global"), order
        out = memo(*shlex.split(order)[1:]).stdout
    assert seen == ["#0", "#1", "#2"] and "You are awake." in out


def test_a_guess_refusal_names_only_the_memories_where_the_order_succeeds(memo, widget):
    """zoom and forget without a flag while a project is active: the orders
    offered are those that succeed, and none (one line saying so) when
    neither does; a zoom only one memory can answer is answered there,
    under that memory's heading."""
    import shlex
    for k in range(4):
        assert memo("note", "--global", f"global memory {k}").exit_code == 0
    assert memo("note", "a project memory").exit_code == 0
    result = memo("zoom", "2-3")  # the project holds one memory: only the global has #2
    assert result.exit_code == 0, result.stderr
    heading, *lines = result.stdout.splitlines()
    assert heading.startswith("Global memory (") and not heading.startswith(("#", "Run:"))
    assert lines == memo("zoom", "--global", "2-3").stdout.splitlines()
    assert [line.split(" ", 1)[0] for line in lines] == ["#2", "#3"]
    both = memo("zoom", "0-1").stderr.splitlines()
    assert both[1:] == ["Run: memo zoom --global 0-1", "Run: memo zoom --project widget 0-1"]
    none = memo("zoom", "8-15")
    assert none.exit_code == 1 and none.stderr.count("\n") == 1
    assert "#8-15 is beyond both memories" in none.stderr and none.stderr.endswith(
        "Run: memo wake\n")
    gone = memo("forget", "0-1")  # built in neither yet
    assert gone.exit_code == 1 and gone.stderr.count("\n") == 1
    assert "built in neither the global memory nor project widget's" in gone.stderr
    assert memo("sleep", "--global", "0-1", "global zero and one").exit_code == 0
    one = memo("forget", "0-1").stderr.splitlines()
    assert one[1:] == ["Run: memo forget --global 0-1"]
    assert memo(*shlex.split(one[1])[2:]).stdout.startswith("Forgot 1 summary")


def test_a_dry_run_refused_for_its_scope_offers_dry_runs(memo, widget, inited):
    """``memo forget LO-HI --dry-run`` without a flag while a project is
    active: each order offered is a dry run too (run as printed it drops
    nothing)."""
    import shlex
    for k in range(2):
        assert memo("note", "--global", f"global memory {k}").exit_code == 0
    assert memo("sleep", "--global", "0-1", "the two global memories").exit_code == 0
    orders = memo("forget", "0-1", "--dry-run").stderr.splitlines()[1:]
    assert orders == ["Run: memo forget --global 0-1 --dry-run"]
    tree = inited / "TREE" / "2"
    before = tree.read_bytes()
    assert b"the two global memories" in before
    result = memo(*shlex.split(orders[0])[2:])
    assert result.exit_code == 0 and "would drop 1 summary" in result.stdout
    assert tree.read_bytes() == before


def test_a_bad_project_config_orders_the_projects_repair(memo, widget, inited):
    """A line memo cannot read in the project's config: the repair ordered
    names the project (the bare repair fixes the global config), and run as
    printed it mends the project's."""
    import shlex
    assert memo("note", "a project fact").exit_code == 0
    with open(inited / "projects" / "widget" / "config", "a", encoding="utf-8") as f:
        f.write("WAKE_LINES=abc\n")
    line = memo("note", "another project fact").stderr.rstrip("\n")
    assert line.endswith("Run: memo config --project widget --repair"), line
    assert memo(*shlex.split(line.split("Run: ", 1)[1])[1:]).exit_code == 0
    assert memo("note", "a third project fact").exit_code == 0


def test_a_projects_lost_log_is_named_not_offered_to_be_created(memo, widget, inited):
    for k in range(2):
        assert memo("note", f"project fact {k}").exit_code == 0
    assert memo("sleep", "0-1", "the two project facts").exit_code == 0
    (inited / "projects" / "widget" / "LOG.txt").unlink()
    for args in (["wake"], ["note", "a new fact"], ["init", "--project", "widget"]):
        result = memo(*args)
        assert result.exit_code == 1 and result.stderr.count("\n") == 1, result.stderr
        assert "LOG.txt is missing, though" in result.stderr, result.stderr
        assert "memo init --project" not in result.stderr
    assert not (inited / "projects" / "widget" / "LOG.txt").exists()

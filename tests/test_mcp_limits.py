"""``memo mcp`` keeps every limit ``memo`` keeps, and answers what it is asked.

Hostile inputs (a backtracking regex, a 5 MB pattern, bytes that are not
UTF-8, lone surrogates, an over-long note, a credential) get the refusal
the CLI gives; a stuck recall leaves ``ping`` and every other call
answered; cancellation follows MCP ("Cancellation"): a write cancelled
before it takes the store lock is not done and not answered, one past it
stays done and is logged on stderr, and a retried note gets its first
receipt; at the end of stdin every request not cancelled is answered and
the process exits.

The server is a subprocess (``python -m optmem mcp``), spoken to in raw
JSON-RPC bytes (what the SDK client cannot send: bytes that are not UTF-8)
and through the SDK's own client. Order, not time, is asserted: a reply
that must come first is read first; the timeouts below are only how long
a test waits before it fails.
"""

from __future__ import annotations

import asyncio
import json
import os
import queue
import subprocess
import sys
import threading

import pytest

from conftest import REPO

if sys.version_info < (3, 10):
    pytest.skip("the MCP SDK (mcp) needs Python 3.10 or newer", allow_module_level=True)
mcp = pytest.importorskip("mcp", reason="the MCP SDK is not installed (pip install "
                          "'optmem[mcp]'; the test extra installs it on Python 3.10+)")

from mcp import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

from optmem import mcp as mcp_server  # noqa: E402
from optmem.recall import search  # noqa: E402
from optmem.store.memory import Store  # noqa: E402

ENV = {"PYTHONPATH": str(REPO), "PYTHONWARNINGS": "default"}
#: How long a test waits for a reply before it fails (never asserted on).
PATIENCE = 300
#: Ordinary notes; the last words end in punctuation, so ``(\w+\s?)+$``
#: backtracks over every way to split them (2**n tries).
NOTES = [f"The deploy of version {i} went out on Friday, after the review of the "
         f"release notes by the whole team." for i in range(12)]
BACKTRACKS = r"(\w+\s?)+$"


class Wire:
    """A ``memo mcp`` subprocess spoken to in raw JSON-RPC lines; replies
    are read by a thread, so a test waits for one with a timeout."""

    def __init__(self, memory_dir, extra_path: str | None = None):
        env = dict(os.environ, **ENV, MEMORY_DIR=str(memory_dir))
        if extra_path:
            env["PYTHONPATH"] = extra_path + os.pathsep + env["PYTHONPATH"]
        self.proc = subprocess.Popen([sys.executable, "-m", "optmem", "mcp"], cwd=REPO,
                                     env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        self.replies: queue.Queue = queue.Queue()
        self.order: list = []  # ids, as the replies arrived
        self.by_id: dict = {}
        self.stderr = ""
        threading.Thread(target=self._read, daemon=True).start()
        self.send({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "wire", "version": "0"}}})
        self.wait("init")
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _read(self):
        for line in self.proc.stdout:
            self.replies.put(json.loads(line))
        self.replies.put(None)

    def send(self, message=None, raw: bytes | None = None) -> None:
        self.proc.stdin.write((raw if raw is not None else json.dumps(message).encode())
                              + b"\n")
        self.proc.stdin.flush()

    def call(self, ident, name, arguments) -> None:
        self.send({"jsonrpc": "2.0", "id": ident, "method": "tools/call",
                   "params": {"name": name, "arguments": arguments}})

    def cancel(self, ident) -> None:
        self.send({"jsonrpc": "2.0", "method": "notifications/cancelled",
                   "params": {"requestId": ident, "reason": "the test"}})

    def _take(self) -> bool:
        reply = self.replies.get(timeout=PATIENCE)
        if reply is None:
            return False
        assert "id" in reply, reply  # the server sends no notification here
        self.order.append(reply["id"])
        self.by_id[reply["id"]] = reply
        return True

    def wait(self, ident) -> dict:
        """The reply to ``ident`` (the replies before it are kept)."""
        while ident not in self.by_id:
            assert self._take(), f"stdout closed before a reply to {ident!r}"
        return self.by_id[ident]

    def text(self, ident) -> tuple:
        result = self.wait(ident)["result"]
        return result["content"][0]["text"], result["isError"]

    def close(self) -> int:
        """Close stdin; read every reply left; the exit status. A server
        still running ``PATIENCE`` seconds later is killed, and the test
        fails: it outlived its closed stdin."""
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            code = self.proc.wait(timeout=PATIENCE)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError("the server outlived its closed stdin") from None
        while self._take():
            pass
        self.stderr = self.proc.stderr.read().decode()
        return code


@pytest.fixture
def notes(inited, memo):
    for text in NOTES:
        assert memo("note", text).exit_code == 0
    return inited


def cli_refusal(memo, *args) -> str:
    result = memo(*args)
    assert result.exit_code == 1 and result.stdout == "", result.stdout
    return result.stderr.strip()


# -- a stuck recall ------------------------------------------------------------

def test_ping_and_other_calls_are_answered_while_a_backtracking_recall_runs(notes, memo):
    wire = Wire(notes)
    try:
        wire.call("slow", "recall", {"pattern": BACKTRACKS})
        wire.send({"jsonrpc": "2.0", "id": "ping", "method": "ping"})
        wire.call("stats", "stats", {})
        wire.call("wake", "wake", {"max_bytes": 100000})
        wire.call("found", "recall", {"pattern": "version 3 "})
        slow, slow_err = wire.text("slow")
    finally:
        code = wire.close()
    assert code == 0, wire.stderr
    assert wire.by_id["ping"]["result"] == {}
    # Each call sent after the stuck recall is answered before it.
    assert wire.order.index("slow") == len(wire.order) - 1, wire.order
    assert wire.text("stats")[0].startswith("memories     12")
    assert "version 3 " in wire.text("found")[0]
    assert slow_err is True
    assert slow == cli_refusal(memo, "recall", BACKTRACKS)
    assert slow.startswith("memo: the regex '(\\w+\\s?)+$' took over 1.5 s of CPU time")


def test_through_the_sdk_client_ping_comes_back_before_the_stuck_recall(notes, memo):
    params = StdioServerParameters(command=sys.executable, args=["-m", "optmem", "mcp"],
                                   env=dict(ENV, MEMORY_DIR=str(notes)), cwd=str(REPO))

    async def work():
        with open(os.devnull, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as s:
                    await s.initialize()
                    slow = asyncio.create_task(s.call_tool("recall", {"pattern": BACKTRACKS}))
                    await asyncio.sleep(0)
                    pings = 0
                    while pings < 3:
                        await asyncio.wait_for(s.send_ping(), PATIENCE)
                        pings += 1
                    recall_done_at_ping = slow.done()
                    stats = await s.call_tool("stats", {})
                    result = await asyncio.wait_for(slow, PATIENCE)
                    return recall_done_at_ping, stats, result

    done_at_ping, stats, result = asyncio.run(work())
    assert not done_at_ping
    assert stats.content[0].text.startswith("memories     12")
    assert result.is_error is True
    assert result.content[0].text == cli_refusal(memo, "recall", BACKTRACKS)


# -- the same hostile input, the same refusal ----------------------------------

SECRET = "AKIA" + "Z7Q2M4P8R1T6V3X9"
#: (what, tool, argument name, the argument as raw UTF-8-or-not bytes). The
#: CLI gets the bytes as Python reads them from argv (``os.fsdecode``); MCP
#: gets them inside a JSON string on the wire, exactly as they are.
HOSTILE = [
    ("backtracking regex", "recall", "pattern", BACKTRACKS.encode()),
    ("5 MB pattern", "recall", "pattern", b"x" * (5 << 20)),
    ("pattern over the cap", "recall", "pattern", b"ab" * 600),
    ("not UTF-8", "note", "text", b"caf\xe9 au lait"),
    ("a lone surrogate, as bytes", "note", "text", b"a\xed\xa0\x80b"),
    ("over-long note", "note", "text", ("\u00e9" * 141).encode()),
    ("credential in a note", "note", "text", f"aws id {SECRET} in use".encode()),
]


@pytest.mark.parametrize("what, tool, field, value", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_the_cli_and_mcp_refuse_the_same_input_alike(notes, memo, what, tool, field, value):
    expected = cli_refusal(memo, tool, os.fsdecode(value))
    assert "\n" not in expected and SECRET not in expected
    wire = Wire(notes)
    try:
        head = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                           "params": {"name": tool, "arguments": {field: "@"}}}).encode()
        # the value's bytes as they are, JSON-escaped where JSON asks it
        inner = json.dumps(value.decode("utf-8", "surrogateescape"),
                           ensure_ascii=False).encode("utf-8", "surrogateescape")
        wire.send(raw=head.replace(b'"@"', inner))
        text, is_error = wire.text(1)
    finally:
        wire.close()
    assert is_error is True
    assert text == expected
    log = (notes / "LOG.txt").read_bytes()
    assert len(log) == 320 * len(NOTES)  # nothing stored, by either


def test_a_lone_surrogate_escape_is_refused_as_the_cli_refuses_the_character(inited, memo):
    expected = cli_refusal(memo, "note", "a\ud800b")
    wire = Wire(inited)
    try:
        wire.send(raw=b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": '
                      b'{"name": "note", "arguments": {"text": "a\\ud800b"}}}')
        text, is_error = wire.text(1)
    finally:
        wire.close()
    assert is_error and text == expected
    assert "U+D800" in text


def test_bytes_that_are_not_utf8_are_never_stored_as_replacement_characters(inited, memo):
    wire = Wire(inited)
    try:
        wire.send(raw=b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": '
                      b'{"name": "note", "arguments": {"text": "na\xefve \xff"}}}')
        text, is_error = wire.text(1)
        wire.call(2, "note", {"text": "plain text after it"})
        after, _ = wire.text(2)
    finally:
        wire.close()
    assert is_error and "not valid UTF-8" in text
    assert after == "Saved as #0."
    assert "\ufffd" not in memo("recall", ".").stdout


# -- cancellation ----------------------------------------------------------------

def test_notes_cancelled_before_the_store_lock_are_not_done_nor_answered(inited, memo):
    """The store lock is held (as another memo would hold it) while 30
    notes and a summary arrive and are cancelled; once it is free, none is
    stored and none answered, and the server goes on."""
    from filelock import FileLock
    for text in ("the first fact", "the second fact"):
        assert memo("note", text).exit_code == 0
    lock = FileLock(Store(str(inited)).lock_path)
    wire = Wire(inited)
    lock.acquire()
    try:
        for k in range(30):
            wire.call(f"n{k}", "note", {"text": f"cancelled fact {k}"})
        wire.call("s0", "sleep", {"block": "0-1", "summary": "a summary"})
        for k in range(30):
            wire.cancel(f"n{k}")
        wire.cancel("s0")
        # Every line above is read before this reply is written.
        wire.send({"jsonrpc": "2.0", "id": "ping", "method": "ping"})
        wire.wait("ping")
    finally:
        lock.release()
    try:
        wire.call("after", "note", {"text": "a fact after the cancelled ones"})
        after, err = wire.text("after")
    finally:
        code = wire.close()
    assert code == 0, wire.stderr
    assert after.startswith("Saved as #2.\n") and not err
    assert set(wire.order) == {"init", "ping", "after"}  # none of the 31 answered
    assert (inited / "LOG.txt").stat().st_size == 3 * 320  # only "after" was added
    assert "summaries    0 of 1 built" in memo("stats").stdout  # 0-1 was not summarised
    assert "cancelled" not in wire.stderr


#: Loaded by the server (sitecustomize) in the next test: each append, once
#: written, waits until the test creates the file ``$MEMO_TEST_GO`` (after it
#: told ``$MEMO_TEST_AT`` that the append is done).
HOLD_AFTER_APPEND = '''
import os, time
import optmem.store.memory as store
_append = store.Store.append
def append(self, *args, **kwargs):
    out = _append(self, *args, **kwargs)
    open(os.environ["MEMO_TEST_AT"], "a").close()
    while not os.path.exists(os.environ["MEMO_TEST_GO"]):
        time.sleep(0.01)
    return out
store.Store.append = append
'''


def test_a_note_cancelled_after_the_lock_stays_and_its_retry_gets_the_receipt(
        inited, tmp_path, monkeypatch, memo):
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(HOLD_AFTER_APPEND)
    at, go = tmp_path / "at", tmp_path / "go"
    monkeypatch.setenv("MEMO_TEST_AT", str(at))
    monkeypatch.setenv("MEMO_TEST_GO", str(go))
    wire = Wire(inited, extra_path=str(hook))
    try:
        wire.call("first", "note", {"text": "the release moved to Tuesday"})
        for _ in range(PATIENCE * 100):  # the note is written and holds the lock
            if at.exists():
                break
            threading.Event().wait(0.01)
        assert at.exists()
        wire.cancel("first")
        wire.send({"jsonrpc": "2.0", "id": "ping", "method": "ping"})
        wire.wait("ping")  # the cancel was read
        go.touch()
        wire.call("retry", "note", {"text": "the release moved to Tuesday"})
        retry, retry_err = wire.text("retry")
        wire.call("again", "note", {"text": "The release moved to Tuesday."})
        again, _ = wire.text("again")
        wire.call("stats", "stats", {})
        stats, _ = wire.text("stats")
    finally:
        go.touch()
        code = wire.close()
    assert code == 0, wire.stderr
    assert "first" not in wire.order  # cancelled: never answered
    assert (retry, retry_err) == ("Saved as #0.", False)  # its receipt, not a refusal
    assert again == "Saved as #0."  # the duplicate check's folding: the same note
    assert stats.startswith("memories     1 ")
    logged = [line for line in wire.stderr.splitlines() if "cancelled" in line]
    assert logged == ["memo: note was cancelled by the client after it took the store "
                      "lock, so it was done: Saved as #0."]
    assert memo("recall", "Tuesday").stdout.count("Tuesday") == 1


def test_a_cancelled_recall_is_not_answered_and_the_next_one_is(notes):
    wire = Wire(notes)
    try:
        wire.call("slow", "recall", {"pattern": BACKTRACKS})
        wire.cancel("slow")
        wire.call("next", "recall", {"pattern": "version 7 "})
        text, err = wire.text("next")
    finally:
        code = wire.close()
    assert code == 0
    assert not err and "version 7 " in text
    assert "slow" not in wire.order


# -- the end of stdin ------------------------------------------------------------

def test_every_call_read_before_stdin_closed_is_answered_then_the_server_exits(notes):
    wire = Wire(notes)
    for k in range(10):
        wire.call(f"n{k}", "note", {"text": f"a fact noted just before the end {k}"})
    wire.call("slow", "recall", {"pattern": BACKTRACKS})
    wire.call("r", "recall", {"pattern": "noted just before"})
    wire.send({"jsonrpc": "2.0", "id": "ping", "method": "ping"})
    code = wire.close()
    assert code == 0, wire.stderr
    assert set(wire.order) == {"init", "ping", "slow", "r"} | {f"n{k}" for k in range(10)}
    ids = sorted(int(wire.text(f"n{k}")[0].split("#")[1].split(".")[0]) for k in range(10))
    assert ids == list(range(12, 22))
    assert wire.text("slow")[1] is True and "took over" in wire.text("slow")[0]
    assert not wire.text("r")[1]


# -- the gate, in-process ------------------------------------------------------------

def test_the_gate_stops_a_call_cancelled_before_the_lock_and_lets_one_past_it_finish(
        inited, monkeypatch):
    gate = mcp_server.Gate()
    gate.cancel.set()
    assert mcp_server.call_tool("note", {"text": "never"}, gate=gate) == ("", False)
    assert gate.cancelled and not gate.passed
    assert (inited / "LOG.txt").stat().st_size == 0

    real = Store.append
    gate = mcp_server.Gate()

    def append(self, *args, **kwargs):  # the cancel arrives during the write
        out = real(self, *args, **kwargs)
        gate.cancel.set()
        return out

    monkeypatch.setattr(Store, "append", append)
    text, err = mcp_server.call_tool("note", {"text": "kept"}, gate=gate)
    assert (text, err) == ("Saved as #0.", False)
    assert gate.passed and not gate.cancelled


def test_a_pattern_over_the_cap_is_refused_by_the_cli_without_quoting_it(inited, memo):
    pattern = "secret" * (search.MAX_PATTERN_CHARS // 6 + 1)
    line = cli_refusal(memo, "recall", pattern)
    assert line == (f"memo: the regex is {len(pattern)} characters long, over the "
                    f"{search.MAX_PATTERN_CHARS} recall takes (a memory line is at most "
                    f"320 bytes); search for its rarest word instead")
    assert memo("recall", "s" * search.MAX_PATTERN_CHARS).exit_code == 0

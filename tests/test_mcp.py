"""``memo mcp`` driven by the MCP SDK's own client over stdio.

The server runs as a subprocess (``python -m optmem mcp``), started by the
SDK's ``stdio_client``, exactly as Claude Desktop or Cursor starts it; the
tests use only what the results say (the orders' tool calls) to go on. A
few tests speak raw JSON-RPC on the pipes, for what the SDK client cannot
send (a lone surrogate) and to see every byte of stdout.

The SDK needs Python 3.10+: on 3.9 (or without the ``mcp`` extra) the whole
module skips with that reason.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys

import pytest

from conftest import REPO, cut_utf8, data_file, set_config

if sys.version_info < (3, 10):
    pytest.skip("the MCP SDK (mcp) needs Python 3.10 or newer", allow_module_level=True)
mcp = pytest.importorskip("mcp", reason="the MCP SDK is not installed (pip install "
                          "'optmem[mcp]'; the test extra installs it on Python 3.10+)")

from mcp import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

from optmem import protocol  # noqa: E402

TOOLS = ["wake", "note", "sleep", "recall", "zoom", "forget", "stats"]
#: How a client reads an order in an MCP result (protocol.py, ``mcp`` form).
ORDER = re.compile(r"^Run: (\w+) (\{.*\})$", re.M)
ENV = {"PYTHONPATH": str(REPO), "PYTHONWARNINGS": "default"}


def server(memory_dir, **extra) -> StdioServerParameters:
    env = dict(ENV, **extra)
    if memory_dir is not None:
        env["MEMORY_DIR"] = str(memory_dir)
    return StdioServerParameters(command=sys.executable, args=["-m", "optmem", "mcp"],
                                 env=env, cwd=str(REPO))


def run(coro):
    return asyncio.run(coro)


async def session_do(params, work):
    """Open one client session on a new server; ``await work(session)``."""
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await work(session)


async def call(session, name, args=None) -> tuple:
    """``(text, is_error)`` of one tool call, checked for the MCP rules: one
    text block, no heredoc, no ``Run: memo`` line."""
    result = await session.call_tool(name, args or {})
    assert len(result.content) == 1 and result.content[0].type == "text"
    text = result.content[0].text
    assert "Run: memo" not in text and "<<'" not in text, text
    return text, bool(result.is_error)


def orders(text: str) -> list:
    """The orders of a result, as ``(tool, arguments)``."""
    return [(m.group(1), json.loads(m.group(2))) for m in ORDER.finditer(text)]


def summary_for(text: str, limit: int = 280) -> str:
    """A stand-in agent's summary: the indented body lines of the prompt."""
    body = [line.strip() for line in text.splitlines() if line.startswith("  ") and line.strip()]
    assert body, text
    return cut_utf8(" | ".join(body), limit).strip()


async def answer_all(session, text: str, log: list) -> str:
    """Answer every compression a result hands over, through ``sleep``, using
    only the orders; return the last result (``Nothing left to compress.``,
    or a text without a pending compression)."""
    for _ in range(10_000):
        todo = [(t, a) for t, a in orders(text) if t == "sleep" and "summary" in a]
        if not todo:
            return text
        (tool, args), = todo
        args = dict(args, summary=summary_for(text))
        text, err = await call(session, tool, args)
        assert not err, text
        log.append(args["block"])
    raise AssertionError("compressions never ended")


async def wake_to_end(session, first_args=None) -> list:
    """Follow wake part by part through the orders; return the parts."""
    parts = []
    text, err = await call(session, "wake", first_args)
    assert not err, text
    while True:
        parts.append(text)
        if protocol.AWAKE in text.splitlines():
            return parts
        nxt = [a for t, a in orders(text) if t == "wake"]
        assert len(nxt) == 1, text
        text, err = await call(session, "wake", nxt[0])
        assert not err, text


# -- the session ---------------------------------------------------------------

def test_tools_listed_with_descriptions_and_schemas(inited):
    import jsonschema

    async def work(s):
        return await s.list_tools(), s.initialize_result

    tools, init = run(session_do(server(inited), work))
    assert [t.name for t in tools.tools] == TOOLS
    for tool in tools.tools:
        assert len(tool.description) > 40, tool.name
        jsonschema.Draft202012Validator.check_schema(tool.input_schema)
        assert tool.input_schema["type"] == "object"
        assert tool.input_schema.get("additionalProperties") is False
    by = {t.name: t.input_schema for t in tools.tools}
    assert set(by["wake"]["properties"]) == {"part", "at", "max_bytes", "scope"}
    assert all(by[name]["properties"]["scope"]["type"] == "string" for name in by)
    assert by["note"]["required"] == ["text"]
    assert set(by["sleep"]["properties"]) >= {"block", "summary"}
    assert by["recall"]["required"] == ["pattern"]
    rules = init.instructions
    assert "do not wake again" in rules and "never create" in rules
    assert "not instructions to obey" in rules


def test_a_life_of_40_notes_through_tool_calls_only(inited):
    set_config(inited, PART_LINES=6, WAKE_LINES=8)
    words = ["optmem", "Zürich", "東京", "deploy", "café", "Ωmega"]
    done = []

    async def work(s):
        ids = []
        for i in range(40):
            text, err = await call(s, "note", {"text": f"memory {i}: {words[i % 6]} "
                                                       f"decision {i * 7}"})
            assert not err, text
            m = re.match(r"Saved as #(\d+)\.", text)
            ids.append(int(m.group(1)))
            await answer_all(s, text, done)
        parts = await wake_to_end(s)
        recall, err = await call(s, "recall", {"pattern": "Zürich"})
        assert not err
        zoom, err = await call(s, "zoom", {"block": "0-31"})
        assert not err
        stats, err = await call(s, "stats")
        assert not err
        nothing, _ = await call(s, "sleep")
        return ids, parts, recall, zoom, stats, nothing

    ids, parts, recall, zoom, stats, nothing = run(session_do(server(inited), work))
    assert ids == list(range(40))
    assert len(done) == 40 - bin(40).count("1")  # every complete block, once
    assert len(parts) > 1
    for k, part in enumerate(parts, 1):
        assert part.startswith(protocol.part_header(k, len(parts)))
    assert parts[-1].rstrip().endswith(protocol.AWAKE)
    assert re.search(r"^#\d+-\d+ ", "\n".join(parts), re.M)  # summaries the test wrote
    assert recall.splitlines()[-1] == protocol.matches(7)
    assert [line.split(" ")[0] for line in zoom.splitlines()] == ["#0-15", "#16-31"]
    assert "memories     40" in stats
    assert nothing == protocol.NOTHING_LEFT


def test_wake_at_keeps_the_snapshot_and_max_bytes_is_one_part(inited):
    set_config(inited, PART_LINES=3)

    async def work(s):
        for i in range(6):
            text, _ = await call(s, "note", {"text": f"fact {i}"})
            await answer_all(s, text, [])
        first, _ = await call(s, "wake")
        (tool, args), = [o for o in orders(first) if o[0] == "wake"]
        await call(s, "note", {"text": "a later fact"})  # the log moves on
        second, err = await call(s, "wake", args)
        one, err2 = await call(s, "wake", {"max_bytes": 4000})
        both, err3 = await call(s, "wake", {"max_bytes": 4000, "part": 2})
        return args, second, err, one, err2, both, err3

    args, second, err, one, err2, both, err3 = run(session_do(server(inited), work))
    assert args == {"part": 2, "at": "6"}
    assert not err and "a later fact" not in second
    assert not err2 and "a later fact" in one and protocol.AWAKE in one
    assert err3 and "max_bytes" in both


def test_empty_store_and_blocked_wake_are_steps_not_errors(inited):
    async def work(s):
        empty = await call(s, "wake")
        await call(s, "note", {"text": "one"})
        await call(s, "note", {"text": "two"})
        set_config(inited, WAKE_LINES=1)
        blocked = await call(s, "wake")
        return empty, blocked

    (empty, e1), (blocked, e2) = run(session_do(server(inited), work))
    assert not e1 and empty.splitlines()[-1] == protocol.AWAKE
    assert orders(empty) == [] and 'note {"text": "<one line>"}' in empty
    assert not e2 and blocked.startswith("Cannot wake: 1 compression pending.")
    assert orders(blocked) == [("sleep", {"block": "0-1", "summary": protocol.YOUR_LINE})]


def test_forget_and_its_order(inited):
    async def work(s):
        for i in range(4):
            text, _ = await call(s, "note", {"text": f"f{i}"})
            await answer_all(s, text, [])
        return await call(s, "forget", {"block": "0-1"})

    text, err = run(session_do(server(inited), work))
    assert not err
    assert re.match(r"Forgot \d+ summaries, from 0-1 up\.", text)
    assert text.endswith(" Run: sleep {}")


def test_the_wake_resource(inited):
    async def work(s):
        await call(s, "note", {"text": "resource fact"})
        listed = await s.list_resources()
        read = await s.read_resource("memo://wake")
        return listed, read

    listed, read = run(session_do(server(inited), work))
    assert [str(r.uri) for r in listed.resources] == ["memo://wake"]
    text = read.contents[0].text
    assert "resource fact" in text and protocol.AWAKE in text.splitlines()


# -- refusals: error results, the server still answering ---------------------

BAD_CALLS = [
    ("note", {}),                                  # missing field
    ("note", {"text": 5}),                         # wrong type
    ("note", {"text": "x", "extra": 1}),           # unknown field
    ("note", {"text": "two\nlines"}),              # the write guard
    ("note", {"text": "é" * 141}),                 # 282 bytes > ENTRY_CHARS
    ("note", {"text": "x" * (5 << 20)}),           # 5 MB
    ("recall", {"pattern": "("}),                  # bad regex
    ("wake", {"part": "two"}),
    ("wake", {"part": 0}),
    ("wake", {"part": 9}),
    ("wake", {"at": "99"}),
    ("sleep", {"block": "0-1"}),                   # no summary
    ("sleep", {"block": "nope", "summary": "x"}),
    ("zoom", {"block": "5-6"}),                    # past the end
    ("forget", {"block": "0-1"}),                  # nothing to forget
    ("nosuchtool", {}),
]


def test_refusals_are_error_results_and_the_server_stays_up(inited):
    async def work(s):
        out = []
        for name, args in BAD_CALLS:
            text, err = await call(s, name, args)
            out.append((name, text, err))
            alive, e = await call(s, "stats")
            assert not e and "memories     0" in alive
        return out

    async def big(s):
        return await call(s, "recall", {"pattern": "x" * (5 << 20)})

    text, err = run(session_do(server(inited), big))  # answered, as the CLI answers it
    assert text.splitlines()[-1] in (protocol.NO_MATCH, text) and len(text) < 1000
    for name, text, err in run(session_do(server(inited), work)):
        assert err, (name, text)
        assert text.startswith("memo: ") and "\n" not in text, text
        assert len(text) < 1000
    assert (inited / "LOG.txt").stat().st_size == 0  # nothing was written


def test_a_refused_credential_is_not_echoed(inited):
    secret = "AKIA" + "Z7Q2M4P8R1T6V3X9"

    async def work(s):
        return await call(s, "note", {"text": f"aws id {secret} in use"})

    text, err = run(session_do(server(inited), work))
    assert err and secret not in text and "Z7Q2M4P8" not in text


@pytest.mark.parametrize("value, why", [
    ("missing", "No memory at"),
    ("relative/path", "relative path"),
    ("", "MEMORY_DIR is not set"),
])
def test_no_store_is_an_error_result_for_every_tool_and_nothing_is_created(
        tmp_path, value, why):
    path = tmp_path / value if value == "missing" else value

    async def work(s):
        out = []
        for name in TOOLS:
            args = {"note": {"text": "x"}, "recall": {"pattern": "x"},
                    "zoom": {"block": "0-1"}, "forget": {"block": "0-1"}}.get(name, {})
            out.append(await call(s, name, args))
        out.append((await s.read_resource("memo://wake")).contents[0].text)
        return out

    results = run(session_do(server(path, **({"HOME": str(tmp_path)})), work))
    for text, err in results[:-1]:
        assert err and why in text, text
        if value == "missing":
            assert f"No memory at {path}" in text
            assert "Run: " not in text  # never an order to create a store
    assert why in results[-1]
    assert not (tmp_path / "missing").exists()
    assert not (REPO / "relative").exists()


# -- the wire ------------------------------------------------------------------

class Raw:
    """A server spoken to in raw JSON-RPC lines (stdout kept whole)."""

    def __init__(self, memory_dir):
        env = dict(os.environ, **ENV, MEMORY_DIR=str(memory_dir))
        self.proc = subprocess.Popen([sys.executable, "-m", "optmem", "mcp"], cwd=REPO,
                                     env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        self.next_id = 0
        self.lines = []
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "raw", "version": "0"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message, raw: str | None = None):
        self.proc.stdin.write((raw or json.dumps(message)).encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, method, params, raw_params: str | None = None) -> dict:
        self.next_id += 1
        if raw_params is None:
            self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method,
                       "params": params})
        else:
            self.send(None, f'{{"jsonrpc": "2.0", "id": {self.next_id}, "method": '
                            f'"{method}", "params": {raw_params}}}')
        while True:
            line = self.proc.stdout.readline()
            assert line, self.proc.stderr.read().decode()
            self.lines.append(line)
            message = json.loads(line)
            if message.get("id") == self.next_id:
                return message

    def tool(self, name, args) -> dict:
        return self.request("tools/call", {"name": name, "arguments": args})["result"]

    def close(self) -> int:
        self.proc.stdin.close()
        rest = self.proc.stdout.read()
        self.lines += rest.splitlines(keepends=True)
        self.stderr = self.proc.stderr.read().decode()
        return self.proc.wait()


def test_stdout_carries_only_json_rpc_and_lone_surrogates_are_errors(inited):
    raw = Raw(inited)
    try:
        bad = raw.request("tools/call", None,
                          raw_params='{"name": "note", "arguments": {"text": "a\\ud800b"}}')
        ok = raw.tool("note", {"text": "after the surrogate"})
        raw.tool("wake", {})
        raw.request("tools/list", {})
        raw.request("resources/read", {"uri": "memo://wake"})
    finally:
        code = raw.close()
    assert code == 0, raw.stderr
    # The SDK may refuse the text before the tool runs (a JSON-RPC error) or
    # the tool refuses it (an error result); either way nothing is stored.
    assert "error" in bad or bad["result"]["isError"] is True
    assert ok["content"][0]["text"] == "Saved as #0."
    for line in raw.lines:
        assert json.loads(line)["jsonrpc"] == "2.0", line


#: Lines that are no JSON-RPC message, and the error code each gets (JSON-RPC
#: 2.0 "Error object"; the id is null unless the line carries a valid one).
NOT_MESSAGES = [
    (b"garbage", -32700), (b"[]", -32600), (b"\xff\xfe", -32700), (b'{"x": 1}', -32600),
    (b"5", -32600), (b'"text"', -32600), (b"{", -32700), (b"[" * 100_000, -32700),
    (b'[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]', -32600),
    (b'{"jsonrpc": "2.0", "id": true, "method": "ping"}', -32600),
    (b'{"jsonrpc": "2.0", "id": null, "method": "ping"}', -32600),
    (b'{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}', -32600),
    (b'{"jsonrpc": "2.0", "method": 5}', -32600),
    (b'{"jsonrpc": "2.0", "method": "notifications/x", "params": [1]}', -32600),
    (b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"a": NaN}}', -32700),
]


def test_lines_that_are_no_message_get_json_rpc_errors_and_the_server_stays_up(inited):
    """Over a raw pipe: a line that is not JSON gets a parse error (-32700,
    id null); JSON that is no JSON-RPC message an invalid-request error
    (-32600, with its id when it has a valid one); a request before
    ``initialize`` an error reply with its id. The server answers
    everything after, and stdout holds JSON-RPC only."""
    env = dict(os.environ, **ENV, MEMORY_DIR=str(inited))
    proc = subprocess.Popen([sys.executable, "-m", "optmem", "mcp"], cwd=REPO, env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    script = [line for line, _ in NOT_MESSAGES] + [b"", b"   ", b'{"id": "no-version", '
              b'"method": "ping"}', json.dumps({"jsonrpc": "2.0", "id": "early", "method":
              "tools/call", "params": {"name": "note", "arguments": {"text": "too early"}}}
              ).encode()]
    hello = [{"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": "after", "method": "tools/call",
         "params": {"name": "note", "arguments": {"text": "after the noise"}}}]
    proc.stdin.write(b"\n".join(script + [json.dumps(m).encode() for m in hello]) + b"\n")
    proc.stdin.flush()
    replies = []
    while not replies or replies[-1].get("id") != "after":
        line = proc.stdout.readline()
        assert line, proc.stderr.read().decode()
        replies.append(json.loads(line))
    proc.stdin.close()
    replies += [json.loads(line) for line in proc.stdout.read().splitlines()]
    stderr = proc.stderr.read().decode()
    assert proc.wait() == 0, stderr
    assert "Traceback" not in stderr
    assert all(r["jsonrpc"] == "2.0" for r in replies)
    by_id = {r["id"]: r for r in replies if r["id"] is not None}
    nulls = [r["error"]["code"] for r in replies if r["id"] is None]
    expected = [code for _, code in NOT_MESSAGES]
    assert sorted(nulls) == sorted(expected), replies  # one reply per line, none for blanks
    assert all(r["error"]["message"] in ("Parse error", "Invalid Request")
               for r in replies if r["id"] is None)
    assert by_id["no-version"]["error"]["code"] == -32600
    assert "error" in by_id["early"], by_id["early"]  # before initialize: refused, answered
    assert by_id["init"]["result"]["serverInfo"]["name"] == "memo"
    assert by_id["after"]["result"]["content"][0]["text"] == "Saved as #0."
    assert set(by_id) == {"no-version", "early", "init", "after"}
    # the early call wrote nothing; the one after initialize is #0
    out = subprocess.run([sys.executable, "-m", "optmem", "recall", "early|noise"],
                         cwd=REPO, env=env, capture_output=True, text=True).stdout
    assert "too early" not in out and "after the noise" in out


@pytest.mark.parametrize("line, code", NOT_MESSAGES)
def test_screen_names_the_code_and_never_quotes_the_line(line, code):
    from optmem.mcp import screen
    passed, error = screen(line.decode("utf-8", "replace"))
    assert passed is None and error["code"] == code
    assert error["id"] is None and error["data"].startswith("memo: ")
    assert len(error["data"]) < 300 and "garbage" not in error["data"]


def test_screen_passes_messages_and_keeps_a_valid_id():
    from optmem.mcp import screen
    for message in ({"jsonrpc": "2.0", "id": 1, "method": "ping"},
                    {"jsonrpc": "2.0", "id": "a", "method": "tools/call", "params": {}},
                    {"jsonrpc": "2.0", "method": "notifications/initialized"},
                    {"jsonrpc": "2.0", "id": 3, "result": {"roots": []}},
                    {"jsonrpc": "2.0", "id": 3, "error": {"code": -1, "message": "no"}}):
        line = json.dumps(message) + "\n"
        assert screen(line) == (line, None)
    assert screen("\n") == (None, None)
    _, error = screen('{"jsonrpc": "1.0", "id": "x", "method": "ping"}')
    assert error["id"] == "x" and error["code"] == -32600
    _, error = screen('{"jsonrpc": "2.0", "id": 4, "result": {}, "error": {}}')
    assert error["id"] == 4 and error["code"] == -32600
    _, error = screen('{"jsonrpc": "2.0", "id": 5}')
    assert error["id"] == 5 and error["code"] == -32600


def test_a_thousand_calls_keep_memory_flat(inited):
    raw = Raw(inited)
    status = f"/proc/{raw.proc.pid}/status"

    def rss_kb() -> int:
        with open(status) as f:
            return int(next(line for line in f if line.startswith("VmRSS")).split()[1])

    try:
        for i in range(200):
            raw.tool("note" if i % 4 == 0 else "recall",
                     {"text": f"warm {i}"} if i % 4 == 0 else {"pattern": "warm"})
        before = rss_kb()
        for i in range(800):
            raw.tool("note" if i % 4 == 0 else "recall",
                     {"text": f"more {i}"} if i % 4 == 0 else {"pattern": "more"})
        after = rss_kb()
    finally:
        raw.close()
    assert after - before < 8 * 1024, (before, after)  # KiB


def test_a_client_that_disconnects_mid_call_leaves_the_store_whole(inited, memo):
    for _ in range(5):
        raw = Raw(inited)
        raw.send({"jsonrpc": "2.0", "id": 99, "method": "tools/call",
                  "params": {"name": "note", "arguments": {"text": "cut " * 50}}})
        raw.proc.kill()
        raw.proc.wait()
        for stream in (raw.proc.stdin, raw.proc.stdout, raw.proc.stderr):
            try:
                stream.close()
            except OSError:
                pass
    result = memo("check")
    assert result.exit_code == 0, result.stdout + result.stderr
    ids = [int(m) for m in re.findall(r"^#(\d+) ", memo("recall", "cut").stdout, re.M)]
    assert ids == list(range(len(ids)))


def test_two_servers_and_the_cli_write_at_once(inited):
    per = 40

    async def writer(tag):
        async def work(s):
            got = []
            for i in range(per):
                text, err = await call(s, "note", {"text": f"{tag} {i}"})
                assert not err, text
                got.append(int(re.match(r"Saved as #(\d+)\.", text).group(1)))
            return got
        return await session_do(server(inited), work)

    async def both():
        cli = subprocess.Popen(
            [sys.executable, "-c",
             "import sys\nfrom optmem.cli.app import cli\n"
             f"for i in range({per}):\n"
             "    cli.main(['note', f'cli {i}'], standalone_mode=False)\n"],
            cwd=REPO, env=dict(os.environ, **ENV, MEMORY_DIR=str(inited)),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        a, b = await asyncio.gather(writer("one"), writer("two"))
        out, err = cli.communicate()
        assert cli.returncode == 0, err
        return a, b, [int(x) for x in re.findall(r"Saved as #(\d+)\.", out)]

    a, b, c = run(both())
    assert sorted(a + b + c) == list(range(3 * per))  # no id lost, none twice


# -- without the SDK ---------------------------------------------------------------

def test_without_the_sdk_one_line_and_exit_1(tmp_path):
    block = tmp_path / "block"
    block.mkdir()
    (block / "sitecustomize.py").write_text(
        "import sys\n"
        "class _NoMCP:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'mcp' or name.startswith('mcp.'):\n"
        "            raise ImportError('blocked for the test')\n"
        "sys.meta_path.insert(0, _NoMCP())\n")
    env = dict(os.environ, PYTHONPATH=f"{block}{os.pathsep}{REPO}")
    proc = subprocess.run([sys.executable, "-m", "optmem", "mcp"], cwd=REPO, env=env,
                          input=b"", capture_output=True)
    assert proc.returncode == 1
    assert proc.stdout == b""
    line = proc.stderr.decode()
    assert line.count("\n") == 1 and "pip install" in line
    assert line.rstrip("\n").split(". A person can run: ")[1].endswith("[mcp]'")


def test_on_python_39_the_line_names_the_version():
    from optmem import mcp as mcp_server
    line = mcp_server.sdk_problem(version=(3, 9, 18))
    assert "Python 3.10 or newer" in line and "3.9.18" in line
    assert line.endswith("A person can run: python3.12 -m pip install 'optmem[mcp]'")
    assert "\n" not in line


# -- a session on the 1,000 real memories (the "Done when") -----------

def test_a_session_on_1000_real_memories(inited, memo, tmp_path):
    lines = data_file("click-history.txt").read_text(encoding="utf-8").splitlines()[:1000]
    imp = tmp_path / "real.txt"
    imp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert memo("import", imp).exit_code == 0
    done = []

    async def work(s):
        names = [t.name for t in (await s.list_tools()).tools]
        text, _ = await call(s, "sleep")
        await answer_all(s, text, done)
        note, _ = await call(s, "note", {"text": "MCP session on the 1,000 real memories"})
        await answer_all(s, note, done)
        parts = await wake_to_end(s)
        return names, note, parts

    names, note, parts = run(session_do(server(inited), work))
    assert names == TOOLS
    assert note.startswith("Saved as #1000.")
    assert len(done) == 1001 - bin(1001).count("1")
    assert parts[-1].splitlines()[-1] == protocol.AWAKE


def test_the_batched_hand_over_through_sleep_batch(inited):
    async def work(s):
        for i in range(7):
            await call(s, "note", {"text": f"batch fact {i}"})
        text, _ = await call(s, "note", {"text": "batch fact 7"})
        (tool, args), = orders(text)
        items = [item.replace(protocol.YOUR_LINE, f"summary of {item.split()[0]}")
                 for item in args["batch"]]
        reply, err = await call(s, "sleep", {"batch": items})
        return args, reply, err

    params = server(inited, MEMO_HANDOVER="batch")
    args, reply, err = run(session_do(params, work))
    assert args["batch"] == [f"{n} {protocol.YOUR_LINE}" for n in
                             ["0-1", "2-3", "0-3", "4-5", "6-7", "4-7", "0-7"]]
    assert not err and reply.splitlines()[-1] == protocol.NOTHING_LEFT
    assert "0-7 saved." in reply


def test_the_wake_resource_holds_every_part_and_no_order_for_the_next(inited):
    """The resource is the whole document: each part as wake prints it,
    without the closing ``Run: wake {...}`` that asks for the next part
    (the resource holds it already), and one ``You are awake.`` at its end."""
    set_config(inited, PART_LINES=3)

    async def work(s):
        for i in range(6):
            text, _ = await call(s, "note", {"text": f"fact {i}"})
            await answer_all(s, text, [])
        parts = await wake_to_end(s)
        read = await s.read_resource("memo://wake")
        return parts, read.contents[0].text

    parts, text = run(session_do(server(inited), work))
    assert len(parts) > 1
    assert not [line for line in text.splitlines() if line.startswith("Run: ")]
    assert text.splitlines().count(protocol.AWAKE) == 1 and text.rstrip().endswith(protocol.AWAKE)
    for k in range(1, len(parts) + 1):
        assert protocol.part_header(k, len(parts)) in text
    for i in range(6):
        assert f"fact {i}" in text


def test_a_damaged_record_through_mcp_is_no_prompt_and_its_repair_a_persons_step(inited):
    """Through MCP the damaged record's hand-over is no compression; ``memo
    check --repair`` is no tool, so it reads ``A person can run: ...``, and
    a summary of the block is refused (an error result)."""
    async def work(s):
        for i in range(4):
            await call(s, "note", {"text": f"m{i}"})
        path = inited / "LOG.txt"
        data = bytearray(path.read_bytes())
        data[320:322] = b"XX"
        path.write_bytes(bytes(data))
        return (await call(s, "wake"), await call(s, "sleep"),
                await call(s, "sleep", {"block": "0-1", "summary": "a stand-in"}))

    (wake, e1), (nxt, e2), (stored, e3) = run(session_do(server(inited), work))
    assert not e1 and not e2 and e3
    for text in (wake, nxt):
        assert "Compress memories" not in text and "Compression of #0-1 waits" in text
        assert text.splitlines()[-1] == "A person can run: memo check --repair"
        assert orders(text) == []
    assert "nothing was saved" in stored

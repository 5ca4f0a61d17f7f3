"""The JSON-RPC wire under the SDK: each line from the client screened
(``screen``: bytes that are no UTF-8, ids, envelopes), the requests in
flight and their cancellation (``Flight``), the client's workspace roots
(``Roots``), and the end of stdin answered before the SDK sees it."""

from __future__ import annotations

import json
import re
import threading

from optmem.mcp.tools import has_surrogate, root_folder


def _clean(value):
    """``value`` (parsed JSON) with each lone surrogate as U+FFFD."""
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    if isinstance(value, list):
        return [_clean(v) for v in value]
    if isinstance(value, dict):
        return {_clean(k): _clean(v) for k, v in value.items()}
    return value


#: JSON-RPC 2.0's error codes for a line that is no message.
PARSE_ERROR, INVALID_REQUEST = -32700, -32600


def _valid_id(value) -> bool:
    """An MCP request id: a string or an integer (never null, a boolean
    or a fraction; MCP "Requests")."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _envelope_problem(message) -> str | None:
    """Why the parsed JSON ``message`` is no JSON-RPC 2.0 message MCP
    accepts (one short sentence), or None. A request has a string
    ``method``, a valid id and object ``params`` if any; a notification
    the same without ``id``; a response an id and exactly one of
    ``result``/``error``. Batches (arrays) are not part of MCP."""
    if isinstance(message, list):
        return "a batch (JSON array) is not accepted; send one message per line"
    if not isinstance(message, dict):
        return "a message is a JSON object"
    if message.get("jsonrpc") != "2.0":
        return 'a message carries "jsonrpc": "2.0"'
    if "id" in message and not _valid_id(message["id"]):
        return "an id is a string or an integer"
    if "method" in message:
        if not isinstance(message["method"], str):
            return "a method is a string"
        if message.get("params") is not None and not isinstance(message["params"], dict):
            return "params is a JSON object"
        if "result" in message or "error" in message:
            return "a request has no result or error"
        return None
    if "id" not in message or ("result" in message) == ("error" in message):
        return "a message has a method (a request or notification) or an id with a " \
               "result or an error (a response)"
    return None


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def screen(line: str, held: dict | None = None, flight=None):
    """One line from the client, checked before the SDK reads it.

    Returns ``(line, None)`` to pass on (a lone surrogate escape replaced,
    see ``Lines``), or ``(None, error)`` when the line gets a JSON-RPC
    error reply instead: ``error`` is ``{"id", "code", "message", "data"}``
    with ``PARSE_ERROR`` (-32700, id null) for a line that is not JSON, and
    ``INVALID_REQUEST`` (-32600, the message's id when it has a valid one,
    else null) for JSON that is no JSON-RPC message (JSON-RPC 2.0 "Error
    object"; MCP: an id is never null). ``data`` says why, in one line
    that never quotes the line. A blank line is ``(None, None)``: no
    message, no reply. ``held``: the parameters as sent of a request whose
    text was cleaned, by id.

    Bytes that were not UTF-8 reach here as lone surrogates (the server
    reads stdin with ``surrogateescape``, as Python reads ``memo``'s argv):
    like a ``\\ud800`` escape, they are kept in ``held`` for the tool, which
    refuses such text as ``memo note`` refuses the same bytes.
    ``flight``: the ``Flight`` told of each message passed on.
    """
    if not line.strip():
        return None, None
    try:
        message = json.loads(line, parse_constant=_no_constant)
    except (ValueError, RecursionError) as err:
        why = "nested too deeply" if isinstance(err, RecursionError) else str(err)
        return None, {"id": None, "code": PARSE_ERROR, "message": "Parse error",
                      "data": f"memo: the line is not JSON ({why[:200]}); send one JSON-RPC "
                              f"message per line"}
    problem = _envelope_problem(message)
    if problem is None:
        import mcp_types as types
        try:
            types.jsonrpc_message_adapter.validate_python(_clean(message), by_name=False)
        except Exception:
            problem = "the message does not match the JSON-RPC schema of MCP"
    if problem is not None:
        ident = message.get("id") if isinstance(message, dict) else None
        return None, {"id": ident if _valid_id(ident) else None, "code": INVALID_REQUEST,
                      "message": "Invalid Request", "data": f"memo: {problem}"}
    if flight is not None:
        flight.read(message)
    if (Lines.ESCAPE.search(line) or has_surrogate(line)) and \
            has_surrogate(json.dumps(message, ensure_ascii=False)):
        if "id" in message and held is not None:
            held[message["id"]] = message.get("params")
        return json.dumps(_clean(message), ensure_ascii=False) + "\n", None
    return line, None


class Lines:
    """The client's lines, for the SDK's reader, each screened first
    (``screen``).

    A line that is not a JSON-RPC message gets its error reply here,
    written through the SDK's write stream (``attach``), and the SDK never
    sees it: the SDK drops such a line unanswered, where JSON-RPC asks for
    a reply. A blank line is skipped.

    JSON allows a lone surrogate escape (``"\\ud800"``), which no UTF-8 text
    holds; the SDK's strict parser drops such a request unanswered. Such a
    line is passed on with each lone surrogate as U+FFFD, and the request's
    parameters as sent are kept in ``held`` by request id, so the tool sees
    the text exactly and refuses it as ``memo note`` does (an error result).
    """

    ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")

    def __init__(self, lines, held: dict, flight=None):
        import anyio
        self.lines, self.held, self.flight = lines, held, flight
        self.replies, self.ready = None, anyio.Event()

    def attach(self, write_stream) -> None:
        """Where error replies go: the SDK's stream of outgoing messages."""
        self.replies = write_stream
        self.ready.set()

    def __aiter__(self):
        return self

    async def __anext__(self) -> str:
        while True:
            try:
                line = await self.lines.__anext__()
            except StopAsyncIteration:
                # The client closed stdin: answer what it asked first, then
                # let the SDK see the end (it would cancel those calls).
                if self.flight is not None:
                    await self.flight.drain()
                raise
            passed, error = screen(line, self.held, self.flight)
            if passed is not None:
                return passed
            if error is not None:
                await self._reply(error)

    async def _reply(self, error: dict) -> None:
        import anyio
        import mcp_types as types
        from mcp.shared.message import SessionMessage
        await self.ready.wait()
        reply = types.JSONRPCError(jsonrpc="2.0", id=error["id"], error=types.ErrorData(
            code=error["code"], message=error["message"], data=error["data"]))
        try:
            await self.replies.send(SessionMessage(reply))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass  # the server is closing; nothing more goes out


#: How long a tool call waits for the client's answer to ``roots/list``
#: before it goes on with the server's working directory (seconds).
ROOTS_TIMEOUT = 5.0


class Roots:
    """The client's workspace folder (the MCP roots capability), asked once
    and kept until the client says its roots changed.

    ``folder(session)`` returns ``root_folder`` of the client's roots, or
    None (use the server's working directory) when the client declared no
    ``roots`` capability at initialize, gives no usable root, answers with
    an error or a malformed result, or does not answer within ``timeout``
    seconds: a tool call never waits longer than that. Any of these answers
    is kept until ``changed()`` (``notifications/roots/list_changed``);
    asks are serialised, so concurrent calls make one request.
    ``session``: the SDK's ``ServerSession`` of the call.
    """

    def __init__(self, timeout: float = ROOTS_TIMEOUT):
        import anyio
        self.timeout = timeout
        self.known = False
        self.answer = None
        self.generation = 0
        self.asking = anyio.Lock()

    def changed(self) -> None:
        """Forget the kept answer: the next call asks again."""
        self.generation += 1
        self.known, self.answer = False, None

    async def folder(self, session) -> str | None:
        caps = getattr(session, "client_capabilities", None)
        if caps is None or getattr(caps, "roots", None) is None:
            return None
        async with self.asking:
            if self.known:
                return self.answer
            generation = self.generation
            answer = await self._ask(session)
            if generation == self.generation:  # no change arrived meanwhile
                self.known, self.answer = True, answer
            return answer

    async def _ask(self, session) -> str | None:
        import warnings

        import anyio
        from mcp.shared.exceptions import MCPDeprecationWarning
        try:
            with anyio.fail_after(self.timeout):
                with warnings.catch_warnings():
                    # roots is deprecated as of the 2026-07-28 protocol, and still
                    # what clients send today; the warning is raised at the call
                    warnings.simplefilter("ignore", MCPDeprecationWarning)
                    pending = session.list_roots()
                result = await pending
            return root_folder(root.uri for root in result.roots)
        except Exception:  # an error, a malformed answer, no answer in time
            return None


class Flight:
    """The client's requests this server has read and not yet answered,
    and the cancellation of each tool call (MCP "Cancellation").

    ``read(message)`` is told of every message the client sent, as it is
    read (``screen``), before the SDK sees it: a request opens its id; a
    ``notifications/cancelled`` closes the id it names (a cancelled request
    gets no answer) and sets that tool call's ``cancel`` event, which its
    ``Gate`` checks. ``answered(id)`` is told of each response the server
    writes. ``drain()`` returns once every open request is answered or
    cancelled: at the end of stdin the server answers what it was asked
    before it exits. ``running`` counts the tool calls and resource reads
    under way (``started``, ``ended``). Ids are compared as the SDK compares
    them (``"7"`` is ``7``). Runs in the event loop's thread only.
    """

    def __init__(self):
        import anyio
        self.open: dict = {}  # id -> requests with that id read and not settled
        self.cancels: dict = {}  # id -> threading.Event, for tools/call
        self.running = 0
        self.changed = anyio.Event()

    def started(self) -> None:
        """A tool call or resource read begins."""
        self.running += 1

    def ended(self) -> None:
        """A tool call or resource read is over (answered or not)."""
        self.running -= 1
        self.changed.set()

    @staticmethod
    def key(ident):
        """A request id as the SDK correlates it: a string of digits is
        that integer (the SDK's ``coerce_request_id``)."""
        if isinstance(ident, str):
            try:
                return int(ident)
            except ValueError:
                return ident
        return ident

    def read(self, message: dict) -> None:
        """Take note of one message from the client (a parsed JSON-RPC
        object that ``screen`` passes on)."""
        method = message.get("method")
        if method is None:
            return  # a response to a request of the server's
        if "id" in message:
            key = self.key(message["id"])
            self.open[key] = self.open.get(key, 0) + 1
            if method == "tools/call":
                self.cancels[key] = threading.Event()
        elif method == "notifications/cancelled":
            params = message.get("params") or {}
            key = self.key(params.get("requestId"))
            if key in self.open:
                self._settle(key)
                if key in self.cancels:
                    self.cancels[key].set()

    def answered(self, ident) -> None:
        """The server wrote its response (a result or an error) to ``ident``."""
        key = self.key(ident)
        if key in self.open:
            self._settle(key)

    def _settle(self, key) -> None:
        self.open[key] -= 1
        if not self.open[key]:
            del self.open[key]
        self.changed.set()

    def cancel_event(self, ident) -> threading.Event:
        """The ``cancel`` event of the tool call ``ident`` (a fresh one,
        never set, when the call is unknown)."""
        return self.cancels.get(self.key(ident)) or threading.Event()

    def done(self, ident) -> None:
        """The tool call ``ident`` has ended: forget its event."""
        self.cancels.pop(self.key(ident), None)

    async def drain(self) -> None:
        """Wait until no request is open; or, as a safety net, until
        ``DRAIN_IDLE`` seconds pass with requests open but no call running
        and nothing answered (a request the SDK dropped unanswered)."""
        import anyio
        while self.open:
            self.changed = anyio.Event()
            with anyio.move_on_after(DRAIN_IDLE) as waited:
                await self.changed.wait()
            if waited.cancelled_caught and not self.running:
                return


class Sent:
    """The SDK's stream of outgoing messages, telling ``Flight`` of each
    response once it is handed to the writer."""

    def __init__(self, inner, flight: Flight):
        self.inner, self.flight = inner, flight

    async def send(self, item) -> None:
        """Pass ``item`` (the SDK's ``SessionMessage``) on; then, for a
        response, tell ``Flight``."""
        await self.inner.send(item)
        message = getattr(item, "message", None)
        ident = getattr(message, "id", None)
        if ident is not None and getattr(message, "method", None) is None:
            self.flight.answered(ident)

    def close(self) -> None:
        self.inner.close()

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def __aenter__(self):
        await self.inner.__aenter__()
        return self

    async def __aexit__(self, *exc):
        return await self.inner.__aexit__(*exc)

    def __getattr__(self, name):
        return getattr(self.inner, name)


#: Seconds the end of stdin waits on requests still open while no call runs
#: and nothing is answered (``Flight.drain``); each such wait is a request
#: the SDK dropped, which no amount of waiting answers.
DRAIN_IDLE = 60.0

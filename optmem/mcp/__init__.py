r"""``memo mcp``: the memory as a Model Context Protocol server over stdio.

A second thin front end beside ``optmem.cli`` (docs/protocol.md, clients):
each tool call opens the store(s) ``optmem.scope.resolve`` picks
(``MEMORY_DIR`` from the server's environment; the ``scope`` argument, or
the project of the client's first workspace root when the client offers
the roots capability, else of the server's working directory, docs/scopes.md),
calls the session layer's function of the same name (``optmem.session``),
which the command of that name calls too, and returns its ``Result``: the
text the command prints, and ``isError``. Orders in that text are rendered
by ``optmem.protocol`` in its ``mcp`` form (``Run: sleep {"block": "0-15", "summary": "<your line>"}``):
no heredoc and no ``Run: memo`` line reaches a client.

Layers, top-down:

- ``main()``: the one place that imports the optional SDK (``mcp``, the
  ``optmem[mcp]`` extra, Python 3.10+); without it, one line on stderr with
  the install command, exit 1.
- ``call_tool(name, arguments) -> (text, is_error)``: the tools, pure of the
  SDK (arguments checked against ``TOOLS``' schemas with ``jsonschema``, a
  dependency of the SDK). A refused call is an error result; the server
  stays up.
- ``wake_document()``: the ``memo://wake`` resource.

Tool calls run one at a time in a worker thread (the store lock serialises
writers across processes; this server's own lock serialises its calls), so
the event loop keeps reading while a call waits for the store lock. Nothing
but JSON-RPC is written to stdout: the SDK points file descriptor 1 at
stderr while it serves, and warnings and logs go to stderr.

The limits ``memo`` keeps hold here too:

- Recall runs in a child process (``Matchers``, ``serve_matcher``), in its
  main thread, where ``search``'s CPU-time alarm works and refuses a
  backtracking pattern with the CLI's own line. In a worker thread it could
  not: the alarm is a signal, which only a main thread receives, and
  Python's ``re`` holds the interpreter lock for the whole of one match, so
  ``(\w+\s?)+$`` over ordinary notes stopped every thread of the server,
  ``ping`` included, for good. A bound checked inside the matching loop was
  no answer either: it cannot interrupt the one ``re.search`` call that
  backtracks. A child is started at the first recall and kept (at most
  ``MATCHERS``). Measured over raw JSON-RPC on 33 memories, on a machine
  with 2 cores at load 8: the first recall took 0.61 s (the child starting;
  0.13 s in a thread), then a recall of a word 1.4 ms (median of 50; 2.0 ms
  in a thread, which also waits for the server's lock), and ``ping`` during
  a stuck recall at most 30 ms, where in a thread it was never answered.
  A cancelled recall kills its child (a recall writes nothing). Patterns
  over ``search.MAX_PATTERN_CHARS`` characters are refused, as by the CLI.
- Bytes that are not UTF-8 in a line are read as lone surrogates (as
  Python reads them in ``memo``'s argv) and reach the tool as such
  (``screen``), so ``note`` refuses them with the CLI's line instead of
  storing U+FFFD.
- Cancellation (MCP "Cancellation"): ``Flight`` reads each
  ``notifications/cancelled`` before the SDK does and sets the call's
  event; a ``note``, ``sleep`` or ``forget`` it reaches before the call
  takes the store lock stops there (``Gate``) and gets no answer; one past
  the lock finishes, unanswered, and one line on stderr says it was done.
  A ``note`` repeated within ``session.RETRY_SECONDS`` gets the first
  receipt.
- At the end of stdin every request read before it is answered (cancelled
  ones aside) before the SDK sees the end (it would cancel them), then the
  server and its children exit.
"""

from __future__ import annotations

from optmem.mcp.matchers import (  # noqa: F401 - the server's names
    MATCHER_ANSWER_BYTES,
    MATCHERS,
    Matchers,
    serve_matcher,
)
from optmem.mcp.server import (  # noqa: F401 - the server's names
    CANCEL_WAIT,
    build_server,
    main,
)
from optmem.mcp.tools import (  # noqa: F401 - the server's names
    CALLS,
    INSTRUCTIONS,
    SDK_MIN_PYTHON,
    SDK_REQUIREMENT,
    SERVER_NAME,
    TOOLS,
    WAKE_URI,
    Gate,
    call_tool,
    root_folder,
    sdk_problem,
    wake_document,
    wants_folder,
)
from optmem.mcp.wire import (  # noqa: F401 - the server's names
    DRAIN_IDLE,
    ROOTS_TIMEOUT,
    Flight,
    Lines,
    Roots,
    Sent,
    screen,
)

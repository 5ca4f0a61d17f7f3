"""Recall in child processes of the server (``Matchers``, ``serve_matcher``),
where the CPU-time bound on a backtracking pattern can stop it."""

from __future__ import annotations

import json
import os
import sys

from optmem.mcp.tools import call_tool

#: How the server starts a recall process: ``-I`` so that nothing in the
#: working directory (a repository the client opened) or the environment
#: is imported, then the server's own ``sys.path`` (``argv[1]``).
_MATCHER = ("import sys, json; sys.path[:] = json.loads(sys.argv[1]); "
            "from optmem.mcp import serve_matcher; sys.exit(serve_matcher())")
#: Recall processes running at once; a further recall waits for one.
MATCHERS = 2
#: Most bytes of one answer from a recall process (a result is at most
#: ``PART_CHARS`` bytes of text, JSON-escaped).
MATCHER_ANSWER_BYTES = 64 << 20


class Matchers:
    """Recall, run in child processes of this server (``serve_matcher``).

    Python's ``re`` holds the interpreter lock for as long as one match
    runs, and the CPU-time alarm that stops a backtracking pattern
    (``search.TIME_BOUND``) is a signal only a main thread receives: run in
    a worker thread of the server, ``(\\w+\\s?)+$`` held every thread for
    good, ``ping`` included. A child runs ``call_tool("recall", ...)`` in
    its main thread, so the CLI's bound holds there, with the CLI's words,
    and the server's event loop goes on answering. Up to ``MATCHERS``
    children, each kept for the next recall; a recall whose call is
    cancelled kills its child (a recall writes nothing). Without a child
    (it cannot be started), recall runs in a thread as every other tool.
    """

    def __init__(self, most: int = MATCHERS):
        import anyio
        self.limiter = anyio.Semaphore(most)
        self.idle: list = []

    async def _start(self):
        import anyio
        from anyio.streams.buffered import BufferedByteReceiveStream
        proc = await anyio.open_process(
            [sys.executable, "-I", "-c", _MATCHER, json.dumps(sys.path)], stderr=None)
        return proc, BufferedByteReceiveStream(proc.stdout)

    async def recall(self, arguments, root: str | None) -> tuple:
        """``(text, is_error)`` of a recall, as ``call_tool`` gives it."""
        import anyio
        job = (json.dumps({"arguments": arguments, "root": root}) + "\n").encode("utf-8")
        async with self.limiter:
            try:
                child = self.idle.pop() if self.idle else await self._start()
            except Exception:  # noqa: BLE001 - no child here: a thread, unbounded
                return await anyio.to_thread.run_sync(call_tool, "recall", arguments, root)
            kept = False
            try:
                await child[0].stdin.send(job)
                answer = json.loads(await child[1].receive_until(b"\n", MATCHER_ANSWER_BYTES))
                kept = True
                return str(answer["text"]), bool(answer["is_error"])
            except (anyio.EndOfStream, anyio.IncompleteRead, anyio.BrokenResourceError,
                    anyio.ClosedResourceError, anyio.DelimiterNotFound, OSError,
                    ValueError, KeyError, TypeError):
                await self._stop(child)
                child = None
                return ("memo: recall stopped: the process matching the regex ended without "
                        "an answer; nothing was written. Try a simpler regex, e.g. a plain "
                        "word"), True
            finally:
                if kept:
                    self.idle.append(child)
                elif child is not None:
                    await self._stop(child)

    async def _stop(self, child) -> None:
        import anyio
        with anyio.CancelScope(shield=True):
            proc = child[0]
            try:
                proc.kill()
            except (OSError, ProcessLookupError):
                pass
            await proc.aclose()

    async def aclose(self) -> None:
        """End every idle child (each exits at the end of its stdin)."""
        import anyio
        with anyio.CancelScope(shield=True):
            while self.idle:
                proc = self.idle.pop()[0]
                try:
                    await proc.stdin.aclose()
                    await proc.wait()
                except Exception:  # noqa: BLE001 - it is gone already
                    pass


def serve_matcher() -> int:
    """A recall process (``Matchers``): read one job a line on stdin,
    ``{"arguments": {...}, "root": str or null}``, run ``call_tool("recall",
    ...)`` in this main thread and write ``{"text", "is_error"}`` as one
    line on stdout; exit 0 at the end of stdin. File descriptors 0 and 1
    point elsewhere (the null device, stderr) while it runs, so nothing but
    answers reaches the pipe."""
    jobs = os.fdopen(os.dup(0), "rb")
    answers = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(2, 1)
    try:
        for line in jobs:
            job = json.loads(line)
            text, is_error = call_tool("recall", job.get("arguments"), job.get("root"))
            answers.write(json.dumps({"text": text, "is_error": is_error}).encode("utf-8")
                          + b"\n")
            answers.flush()
    except (KeyboardInterrupt, BrokenPipeError):
        return 1
    return 0

"""Streaming recall (DESIGN.md "Commands", recall).

The log is read in chunks of whole records up to a fixed end (the record
count when the search starts, so a memory noted mid-scan shifts nothing).
Each record is matched as the line ``#<id> <date> <text>`` (padding
stripped) with Python's ``re``, case-insensitive, Unicode. Only the newest
matches that fit the output budget are kept, so memory stays flat however
large the log is. A pattern that backtracks catastrophically is stopped
after ``TIME_BOUND`` seconds on one chunk and refused with a clear message.
"""

from __future__ import annotations

import re
from collections import deque

from .errors import BadInput
from .store import LOG_RECORD

CHUNK_RECORDS = 8192  #: records read and matched at a time (2.5 MiB)
TIME_BOUND = 1.5  #: seconds one chunk may take before the regex is refused


class _Slow(Exception):
    pass


def compile_pattern(pattern: str):
    """Compile a recall pattern (case-insensitive); ``BadInput`` if invalid."""
    if not pattern:
        raise BadInput("the regex is empty; give a word or a pattern, e.g. memo recall 'release'")
    try:
        return re.compile(pattern, re.IGNORECASE)
    except (re.error, RecursionError, OverflowError, ValueError) as err:
        raise BadInput(f"bad regex {pattern!r}: {err}; Python regular expressions "
                       f"are used, e.g. memo recall 'click (7|8)\\.0'") from None


def _bounded(func, *args):
    """Run ``func(*args)``, raising ``_Slow`` after ``TIME_BOUND`` seconds.

    Uses ``SIGALRM`` (Python's ``re`` checks signals while it backtracks);
    where that is not available (other threads, other systems) it runs
    unbounded.
    """
    import signal
    import threading
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        return func(*args)

    def alarm(signum, frame):
        raise _Slow()

    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, TIME_BOUND)
    try:
        return func(*args)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _lines(data: bytes, n: int) -> list:
    """The ``n`` records in ``data`` as lines without padding."""
    text = data.decode("utf-8", "replace")
    lines = text.split("\n")
    if len(lines) == n + 1 and not lines[-1]:
        lines.pop()
        return list(map(str.rstrip, lines))
    # A damaged record holds a stray newline: cut by position instead.
    return [data[i * LOG_RECORD:(i + 1) * LOG_RECORD].decode("utf-8", "replace")
            .replace("\n", " ").rstrip() for i in range(n)]


def recall(store, pattern: str, limit_bytes: int) -> tuple:
    """Find log lines matching ``pattern``; return ``(lines, total, cut)``.

    ``lines`` are the newest matches whose UTF-8 size (newline included)
    fits in ``limit_bytes``, oldest first; ``total`` counts every match;
    ``cut`` is True when some matches were left out. Raises ``BadInput``
    for an invalid or pathologically slow regex.
    """
    rx = compile_pattern(pattern)
    T = store.count()
    kept = deque()
    kept_bytes = 0
    total = 0
    search = rx.search
    for start in range(0, T, CHUNK_RECORDS):
        n = min(CHUNK_RECORDS, T - start)
        lines = _lines(store.read_log(start * LOG_RECORD, n * LOG_RECORD), n)
        try:
            found = _bounded(lambda: list(filter(search, lines)))
        except _Slow:
            raise BadInput(f"the regex {pattern!r} took over {TIME_BOUND:g} s on "
                           f"{n} memories (it backtracks: nested repeats such as (a+)+); "
                           f"simplify it, e.g. a plain word") from None
        total += len(found)
        for line in found:
            kept.append(line)
            kept_bytes += len(line.encode("utf-8")) + 1
            while kept_bytes > limit_bytes and kept:
                kept_bytes -= len(kept.popleft().encode("utf-8")) + 1
    return list(kept), total, total > len(kept)

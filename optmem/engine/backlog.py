"""Backlogs: warn before an import creates one, and pay one with a command.

Every compression is an agent turn. An import of N memories creates about
N of them at once (``N - popcount`` more), and ``memo wake`` refuses while
the ones its document needs are pending, so a large import handed to an
agent is a long detour. Two ways through:

- ``memo import`` says on stderr, before writing, how many compressions it
  creates, and above ``IMPORT_ASK_ABOVE`` memories asks a person to confirm
  with ``--yes`` (``check_import_size``).
- ``memo sleep --with CMD`` (``pay``): a person names a command that reads a
  prompt on stdin and prints the answer (an LLM CLI, a script); memo runs
  it in the foreground once per hand-over (one block, or one batch with
  ``MEMO_HANDOVER=batch``), stores each answer through the same checks as
  ``memo sleep`` (the write guard included) and stops at the first answer
  it refuses, saying which block, why, and how to go on. memo itself never
  calls a model and never runs in the background.
"""

from __future__ import annotations

import os
import subprocess

from optmem import blocks, protocol
from optmem.engine import core, handover, view
from optmem.errors import BadInput, MemoError

#: An import of more memories than this asks for ``--yes``. High on purpose
#: (the issue asks for at least 10,000): an import a program runs as part
#: of an ordinary setup is never stopped; a log of a whole project's history
#: (200,000 lines: 199,994 agent turns) is, before anything is written.
IMPORT_ASK_ABOVE = 10_000

#: Most bytes read from one run of the command: far more than any answer.
OUTPUT_LIMIT = 1 << 20


def count_lines(path: str) -> int:
    """Non-blank lines of ``path`` (a quick count before the checked pass).

    Lines are read at most ``core.IMPORT_LINE_LIMIT`` bytes at a time, so a
    file of one endless line costs no more memory than that (the import
    then refuses the line). Returns 0 when the file cannot be read (the
    import itself then names the problem)."""
    import stat
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return 0  # a device or a pipe may never end: the import refuses it
        with open(path, "rb") as f:
            return sum(1 for line in iter(lambda: f.readline(core.IMPORT_LINE_LIMIT), b"")
                       if line.strip())
    except OSError:
        return 0


def check_import_size(path: str, shown_as: str, yes: bool, scope: str | None = None) -> None:
    """Raise ``BadInput`` when ``path`` holds more than ``IMPORT_ASK_ABOVE``
    memories and ``yes`` is false; nothing is written. ``shown_as`` is the
    name the person gave (a path, or ``-`` for standard input); ``scope``
    (``Order.scope``) the scope the import was given, which the person's
    ``memo import --yes`` repeats."""
    if yes:
        return
    n = count_lines(path)
    if n > IMPORT_ASK_ABOVE:
        stdin = shown_as == "-"
        again = ("with the lines on standard input again, " if stdin else "")
        raise BadInput(
            f"{'standard input' if stdin else shown_as} holds {n:,} lines, more "
            f"than the {IMPORT_ASK_ABOVE:,} memo imports without asking: they would create "
            f"about {n:,} compressions, each an agent turn, and nothing was imported. To "
            f"import them all, {again}a person confirms with --yes, then pays the "
            f"compressions with memo sleep --with CMD (see memo sleep --help). "
            f"{_import_yes(shown_as, scope).line()}")


def _import_yes(shown_as: str, scope: str | None) -> protocol.Order:
    """The person's ``memo import --yes`` of ``shown_as`` (``-``: stdin)."""
    words = ("--yes", "-") if shown_as == "-" else ("--yes", "--", protocol.Value(shown_as))
    return protocol.Order("import", words, scope, person=True, flag_first=True)


def import_warning(count: int, created: int) -> str | None:
    """The stderr line an import prints before writing, or None when it
    creates no compression."""
    if created == 0:
        return None
    each = "it is an agent turn" if created == 1 else "each is an agent turn"
    return (f"memo: importing {count:,} {'memory' if count == 1 else 'memories'} creates "
            f"{created:,} {'compression' if created == 1 else 'compressions'} ({each}; "
            f"{view.MODE_ENV}=batch hands many over at once, and a person can pay them "
            f"with memo sleep --with CMD)")


class Stopped(BadInput):
    """``pay`` stopped at an answer it refused (or a command that failed).

    ``str()`` is one line: the block, why, what was saved, how to go on. It
    never holds the command's output, so a secret the guard refused is not
    echoed."""


class Paid:
    """What ``pay`` did: ``runs`` of the command and ``saved`` summaries."""

    __slots__ = ("runs", "saved")

    def __init__(self, runs: int, saved: int):
        self.runs, self.saved = runs, saved


def _run(command: str, prompt: str) -> tuple:
    """Run ``command`` through ``/bin/sh -c`` with ``prompt`` on stdin.

    Returns ``(lines, None)`` with the output's non-blank lines, or
    ``(None, why)``. The command's stderr goes to memo's stderr, so the
    person sees its own messages."""
    try:
        proc = subprocess.run(command, shell=True, input=prompt.encode("utf-8"),
                              stdout=subprocess.PIPE, check=False)
    except OSError as err:
        return None, f"the command could not be started ({err.strerror})"
    if proc.returncode != 0:
        how = (f"was stopped by signal {-proc.returncode}" if proc.returncode < 0
               else f"exited with status {proc.returncode}")
        return None, f"the command {how}"
    data = proc.stdout[:OUTPUT_LIMIT]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        return None, f"the command printed bytes that are not UTF-8 (byte {err.start + 1})"
    lines = [line.rstrip("\r") for line in text.split("\n") if line.strip()]
    if not lines:
        return None, "the command printed nothing"
    return lines, None


def pay(store, command: str, progress=None, scope: str | None = None) -> Paid:
    """Answer every pending compression with ``command``, in the foreground.

    Each hand-over (``handover.compression``: one block, or a batch with
    ``MEMO_HANDOVER=batch``) is written to the command's stdin; its stdout
    must be the answer: one line for a block, ``LO-HI <line>`` lines for a
    batch. Answers go through ``core.sleep`` / ``handover.store_batch``, so
    they are checked exactly as an agent's are. ``progress(saved, total)``
    is called after each run (``total``: pending work when it started).
    Raises ``Stopped`` at the first failure (what was stored stays stored),
    naming the person's ``memo sleep --with CMD`` that goes on, with
    ``scope`` (``Order.scope``: the scope the run was given).
    """
    T = store.count()
    total = blocks.pending_count(T, store.built(T))
    saved = runs = 0
    batch = view.batch_mode()
    again = protocol.Order("sleep", ("--with", protocol.Value(command)), scope, person=True,
                           flag_first=True)

    def stop(name, why):
        left = blocks.pending_count(store.count(), store.built(store.count()))
        where = f" at {name}" if name else ""
        raise Stopped(f"stopped{where}: {why.rstrip('.')}. {saved:,} "
                      f"{'summary was' if saved == 1 else 'summaries were'} saved this run and "
                      f"{left:,} {'compression is' if left == 1 else 'compressions are'} "
                      f"pending; nothing was lost. An agent can answer them by hand with "
                      f"memo sleep instead. To go on, fix the command. {again.line()}")

    while True:
        due = handover.next_handover(store)
        prompt = due.text
        if due.kind == protocol.NOTHING:
            return Paid(runs, saved)
        if due.waiting:  # a damaged record: no command may summarise it
            raise Stopped(f"stopped: {prompt.splitlines()[0]} {saved:,} "
                          f"{'summary was' if saved == 1 else 'summaries were'} saved this "
                          f"run; nothing was lost. {prompt.splitlines()[-1]}")
        T = store.count()
        built = store.built(T)
        block = (next(blocks.pending_by_end(T, built)) if batch
                 else view.next_pending(store, T, built))
        first = blocks.block_name(*block)
        runs += 1
        lines, why = _run(command, prompt)
        if why is not None:
            stop(first, why)
        if batch:
            result = handover.store_batch(store, handover.parse_items(lines))
            saved += len(result.saved)
            if result.refused is not None:
                name, why, order = result.refused
                stop(name or first, why if order is None else f"{why} {order.line()}")
            if not result.saved:
                stop(first, "the answer stored nothing new")
        else:
            if len(lines) != 1:
                stop(first, f"the command printed {len(lines)} lines; a summary is "
                            f"one line")
            try:
                core.sleep(store, first, lines[0])
            except Stopped:
                raise
            except MemoError as err:
                stop(first, str(err))
            saved += 1
        if progress is not None:
            progress(saved, total)

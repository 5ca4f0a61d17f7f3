"""The agent block: the one source of the rules an agent reads about memo.

``memo setup`` writes ``BODY`` between ``BEGIN`` and ``END`` into the
memory file a harness reads (``CLAUDE.md``, ``AGENTS.md``, ``GEMINI.md``);
``AGENTS.snippet.md`` at the repository root is this same text for people
who paste it by hand (``tests/test_harness.py`` checks they agree;
``python -m optmem.harness.agent_block > AGENTS.snippet.md`` rewrites it).

The text holds no path of this machine: it names ``$MEMORY_DIR`` only, so
it may go into a file a repository commits (docs/harness.md).
"""

from __future__ import annotations

from optmem import protocol

#: The first and last line of the block ``memo setup`` manages. ``v1`` is
#: the block's format, not its wording: the wording may change freely.
BEGIN = "<!-- optmem:begin v1 (written by memo setup; memo setup --uninstall removes it) -->"
END = "<!-- optmem:end -->"

#: Sentences that identify a hand-pasted block: ours (``AGENTS.snippet.md``)
#: and the OptMem README's. A ``## Memory``-style section holding one of
#: them is the legacy block ``memo setup`` replaces instead of adding a
#: second one.
LEGACY_MARKS = (
    "You have a permanent memory: the `memo` command",
    "Your memory is OptMem:",
)

#: The header line ``memo hook`` puts above the memory it injects; the
#: block tells the agent to look for it.
HOOK_HEADER_START = "Your OptMem memory"

#: The orders the block shows, rendered by ``optmem.protocol`` in its
#: default form (the block is read by agents in a shell).
_NEXT_PART = protocol.Order("wake", ("<k>", "<T>")).line(protocol.DEFAULT_FORM)
_A_REPAIR = protocol.Order("forget", ("<lo>-<hi>",)).line(protocol.DEFAULT_FORM)

BODY = f"""\
## Memory

You have a permanent memory: the `memo` command, with its files in
`$MEMORY_DIR`. It outlives this session, every context compaction and any
change of model or vendor. Without it you do not know what was already
decided, tried or learned here.

**Wake first.** Where `memo setup` installed a hook, your memory is already
in your context at session start and again after every compaction, under a
line that begins `{HOOK_HEADER_START}`. If it is there, do any compression
it orders, then work. If it is not there, before any other tool call run
`memo wake`. It prints your memory in numbered parts; each part that is not
the last ends with a `{_NEXT_PART}` line. Run each one exactly as
printed until a part says `You are awake.` Do not stop early: the first
part is your distant past, the last part is the recent days. Its lines run
oldest first: `#<id> <date> <text>` is one memory word for word, and
`#<lo>-<hi> <dates> <summary>` is one line summarising memories `<lo>` to
`<hi>` (`memo stats` gives the counts, ids and dates). A compression
printed after `You are awake.` is yours to do now (below). If wake refuses
(`Cannot wake: ...`), do the compressions it prints and run `memo wake`
again. If memo says `No memory at ...`, stop and tell the person: never run
`memo init` unless they ask, or you would start a second, empty identity.

**Note what lasts.** Record a memory with a quoted heredoc, so your shell
never expands `$HOME`, backticks or `$(...)` inside it:

    memo note - <<'MEMORY'
    <one line>
    MEMORY

Note at the moment it happens, and only what is new to you and will still
matter later: durable facts, decisions with their reason, root causes, what
the user prefers or teaches you, work of yours that lands. Not status
updates, PR numbers or commit hashes on their own (in 3,084 real sessions
almost every note was such a transient marker), never your own steps, never
a secret (memo refuses keys and tokens: write where the secret lives
instead). One line, at most `ENTRY_CHARS` bytes of UTF-8 (280 unless
`memo config` says otherwise). A memory cannot be edited: to correct one,
note the correction.

**Compress when handed work.** When `memo note`, `memo sleep` or `memo wake`
prints a compression, do it before your next action: write one line that
keeps every name, number, decision and outcome (and any date written in the
text), and run the `Run:` order it ends with, putting your line where it
says `<your line>`. Keep going until
`Nothing left to compress.` If memo says instead that another session is
compressing a block, nothing is needed from you: go on with your work.
Before your context ends, run `memo sleep` and do the same.

**A batch is one answer.** When the prompt says `In the same answer, also
compress ...` (your person set `MEMO_HANDOVER=batch`), it lists the memories
once and then every block due: write one line per block, in the order given,
each summarising exactly the memories of its own range (a larger block joins
its two halves' lines, yours from a moment ago included). Put each line after
its `LO-HI` in the order, in place of `<your line>`, keep the ids, and run the
order once. If a line is refused, the lines before it are saved and the rest
is handed over again: answer that prompt the same way.

**Global or this project's.** If a person created a project memory for
this repository (`memo scope` says so), `memo wake` shows two sections, the
global memory and the project's, and `memo note` goes to the project. A fact
that names a file, module, command, endpoint or convention of this
repository is the project's: note it as usual. A fact that would still be
true in a repository you have never seen (about the person, their tools,
their way of working) is global: the same heredoc with the flag before the
`-` (`memo note --global - <<'MEMORY'`). When you tell the person you noted
something, say where it went: with a project memory, the line after
`Saved as #<id>.` names it; without one, every note is global. Only a
person creates a project; never run `memo init` yourself.

**Look closer when vague.** `memo recall <regex>` searches every memory word
for word (ids and dates too: `memo recall '^#42 '`, `memo recall 2026-11`).
It reads a regular expression: for text holding `$ ( ) . [ ] * + ? \\ |`
(paths, error messages, `a.b.c` names) use `memo recall -F '<text>'`, which
finds the text as written. `memo zoom <lo>-<hi>` opens one summary line of
wake into its two halves. `memo forget <lo>-<hi>` drops that summary and
every one built on it or after it at those sizes, each a compression to redo:
`memo forget <lo>-<hi> --dry-run` says how many first.

**Only memo writes.** Never create, edit or delete anything in
`$MEMORY_DIR` yourself, and never run `memo redact` (it is a person's step).
Every line memo prints that begins `{protocol.RUN} ` is yours: run it exactly as
printed (a repair such as `{_A_REPAIR}` too). A line that
begins `{protocol.PERSON} ` is your person's step, never yours: tell them
what it says, and go on with your work without it.

**Subagents never run memo.** Parallel sessions on this machine are you and
may all use memo. A subagent is not you: it cannot tell what is already
known, so its notes would be duplicated and at the wrong grain. Begin every
brief you hand to one with: `You are a subagent. Do not run memo.` If your
own first message is a brief from another agent, you are that subagent:
ignore this section.
"""


def block() -> str:
    """The managed block as written: ``BEGIN``, ``BODY``, ``END``, with
    ``\\n`` line ends and a final newline (the file's own line ends are
    applied when it is written)."""
    return f"{BEGIN}\n{BODY}{END}\n"


if __name__ == "__main__":  # python -m optmem.harness.agent_block > AGENTS.snippet.md
    import sys
    sys.stdout.write(BODY)

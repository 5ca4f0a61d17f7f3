"""Every store command of ``memo`` as one row (docs/where-a-change-goes.md).

A row holds what the front ends make a command from: its name, its help,
its parameters on the command line, and, for a command that is also an MCP
tool, the tool's description and arguments and which word of an order each
argument is. ``optmem.cli.table`` builds the click command from the row,
``optmem.mcp`` the tool and its input schema, ``optmem.protocol`` reads from
it how an order becomes a tool call; what a command does is its session
function (``optmem.session``). A command that is also a tool is therefore
declared once: here.

Pure data, importing nothing: every command reads it at start-up.
"""

from __future__ import annotations

#: The help of the scope flags every store command takes (docs/scopes.md).
PROJECT_HELP = ("Use project NAME's memory (default: this repository's project, if a person "
                "created one).")
GLOBAL_HELP = "Use the global memory (not the project's)."


class Param:
    """One parameter of a command on the command line.

    ``name``: the callback's keyword; ``kind``: ``"argument"``, ``"option"``
    (takes a value) or ``"flag"``; ``decls``: an option's names
    (``("-F", "--fixed")``); ``metavar``, ``required``, ``nargs`` as click
    takes them; ``path``: an argument that is a file name (``"file"``: no
    folder; ``"any"``), ``-`` allowed for a stream; ``help``: an option's
    help line."""

    __slots__ = ("name", "kind", "decls", "help", "metavar", "required", "nargs", "path")

    def __init__(self, name: str, kind: str = "argument", decls: tuple = (), help: str = "",
                 metavar: str | None = None, required: bool = False, nargs: int = 1,
                 path: str | None = None):
        self.name, self.kind, self.decls, self.help = name, kind, decls, help
        self.metavar, self.required, self.nargs, self.path = metavar, required, nargs, path


class ToolArg:
    """One argument of an MCP tool: ``name``, its JSON Schema ``schema``,
    ``required``, and ``word``: how an order memo prints carries it, so the
    order's tool call is built from its words (``protocol.Order.call``):
    ``"word"`` (the next positional word), ``"rest"`` (the remaining
    positional words, joined by spaces: ``wake``'s ``at``), ``"text"`` (the
    order's text placeholder), an option's name (``"--max-bytes"``, its
    value) or a flag's (``"-F"``: true), or None (only the tool has it)."""

    __slots__ = ("name", "schema", "required", "word")

    def __init__(self, name: str, schema: dict, required: bool = False,
                 word: str | None = None):
        self.name, self.schema, self.required, self.word = name, schema, required, word


class Row:
    """One command: ``name``; ``help`` (its ``--help`` text, the first
    paragraph its line in ``memo --help``) and ``short_help``; ``params``
    (``Param``), before the scope flags when ``scoped``; ``grammar``: how
    its words are read (``"plain"``, ``"text"``: free text after the
    options, ``heads`` positional words before it, ``one_word`` for a text
    of one word; ``"file"``: a FILE that may be ``-``); ``cli``: where its
    click callback lives (``"module:attribute"`` under ``optmem.cli``);
    ``tool``: the MCP tool's description, or None when it is no tool, and
    ``tool_args`` (``ToolArg``), every tool also taking ``scope``;
    ``same_as``: the command this one is another name of."""

    __slots__ = ("name", "help", "short_help", "params", "grammar", "heads", "one_word",
                 "scoped", "cli", "tool", "tool_args", "same_as")

    def __init__(self, name: str, help: str, params: tuple = (), grammar: str = "plain",
                 cli: str = "", tool: str | None = None, tool_args: tuple = (),
                 scoped: bool = True, heads: int = 0, one_word: bool = False,
                 short_help: str | None = None, same_as: str | None = None):
        self.name, self.help, self.params, self.grammar = name, help, params, grammar
        self.cli, self.tool, self.tool_args, self.scoped = cli, tool, tool_args, scoped
        self.heads, self.one_word, self.short_help, self.same_as = heads, one_word, short_help, \
            same_as


#: The ``scope`` argument every tool takes (the CLI's scope flags).
SCOPE_ARG = ToolArg("scope", {
    "type": "string", "description": "Which memory: \"global\" or a project's name "
    "(default: the project of the working directory, if a person created one; else the "
    "global memory). Orders give it where it matters."})

_BLOCK = {"type": "string", "pattern": r"^#?\d+(-\d+)?$",
          "description": "A block as LO-HI (inclusive ids, as wake and the orders show it)."}

_SLEEP_HELP = """Compress: show the next compression, or store LO-HI's summary TEXT.

Answer each prompt until it prints `Nothing left to compress.`
`memo nap` is the same command. TEXT `-` reads the line from stdin.
`memo sleep -` answers a batched hand-over (MEMO_HANDOVER=batch): one
`LO-HI <line>` per block on stdin, or one quoted argument each.

With --with CMD memo runs CMD once per prompt (per batch with
MEMO_HANDOVER=batch), prompt on its stdin; CMD prints the answer, which
is checked like any summary. It stops at the first answer refused.

With a project active the global memory's work comes first, then the
project's; each order carries its --global or --project flag."""

_SLEEP_PARAMS = (
    Param("block"),
    Param("text", nargs=-1),
    Param("with_cmd", "option", ("--with",), metavar="CMD",
          help="For a person paying a backlog: run CMD (through sh) on each prompt, in the "
               "foreground, and store what it prints."),
)

ROWS = (
    Row("wake", """Print your memory: part PART (default 1) of the document at T memories.

Run every part, as each one orders, until one prints `You are awake.`
With a project active, T and TP are the global and project snapshots.""",
        (Param("part"), Param("t", metavar="[T]"), Param("tp", metavar="[TP]"),
         Param("max_bytes", "option", ("--max-bytes",), metavar="N",
               help="One part of at most N bytes, never refused for pending work (for "
                    "startup hooks that cannot page).")),
        cli="wake_cmd:wake",
        tool="Read your memory, oldest first. Call it first in every session (unless the "
             "memory is already in your context) and follow every part: a part ends with the "
             "call for the next part, the last one with \"You are awake.\". If it hands you a "
             "compression, answer it with sleep.",
        tool_args=(
            ToolArg("part", {"type": "integer", "minimum": 1,
                             "description": "The part to read (default 1)."}, word="word"),
            ToolArg("at", {"type": "string", "description": "The continuation exactly as the "
                           "previous part gave it (opaque; keeps every part on one "
                           "snapshot)."}, word="rest"),
            ToolArg("max_bytes", {"type": "integer", "minimum": 1, "description": "The whole "
                                  "memory as one part of at most this many bytes of UTF-8, "
                                  "never refused for pending compressions (no part or at with "
                                  "it)."}, word="--max-bytes"))),
    Row("note", """Record one memory: one line, at most ENTRY_CHARS bytes (`-` reads stdin).

With a project active the memory goes to the project; --global sends a
fact that would be true in any repository to the global memory.""",
        (Param("text", nargs=-1, required=True),), grammar="text", cli="note_cmd:note",
        tool="Record one memory: a durable fact (decision, name, number, outcome, a person's "
             "request), one line of at most ENTRY_CHARS bytes of UTF-8 (280 by default). Not "
             "for status. Answers \"Saved as #N.\", then any compression that is due (answer "
             "it with sleep).",
        tool_args=(ToolArg("text", {"type": "string", "description": "The memory: one line."},
                           required=True, word="text"),)),
    Row("sleep", _SLEEP_HELP, _SLEEP_PARAMS, grammar="text", heads=1, cli="sleep_cmds:sleep",
        tool="Compress. Without arguments: the next compression to do, or \"Nothing left to "
             "compress.\". With block and summary: store your one-line summary of that block, "
             "exactly as the compression's last line gives the call; the next one follows. "
             "With batch: answer a batched hand-over, one item per block.",
        tool_args=(
            ToolArg("block", _BLOCK, word="word"),
            ToolArg("summary", {"type": "string", "description": "Your summary: one line."},
                    word="text"),
            ToolArg("batch", {"type": "array", "minItems": 1, "items": {"type": "string"},
                              "description": "The answer to a batched hand-over "
                              "(MEMO_HANDOVER=batch): one \"LO-HI <line>\" per block, as its "
                              "order lists them."}))),
    Row("nap", "Another name for `memo sleep` (the later OptMem's word).", _SLEEP_PARAMS,
        grammar="text", heads=1, cli="sleep_cmds:nap", short_help="Another name for sleep.",
        same_as="sleep"),
    Row("recall", """Search the raw log (Python regex, case-insensitive) for detail a summary lost.

Each line `#id date text` is matched, so ids and dates can be searched
too: memo recall '^#7 ', memo recall '2024-05'. With -F the text is
found as written: memo recall -F '$HOME'. With a project active,
both memories are searched, each in its own headed section.""",
        (Param("pattern", required=True),
         Param("as_json", "flag", ("--json",),
               help="A JSON list of {id, date, text} (each naming its store where both "
                    "memories are read)."),
         Param("fixed", "flag", ("-F", "--fixed"),
               help="Find PATTERN as written, not as a regex ($HOME, a.b.c, f(x)).")),
        grammar="text", one_word=True, cli="recall_cmd:recall",
        tool="Search every memory verbatim with a regular expression (Python syntax, case-"
             "insensitive) over lines \"#id date text\": for a detail a summary lost. Ends "
             "with the number of matches.",
        tool_args=(
            ToolArg("pattern", {"type": "string", "description": "The regex."}, required=True,
                    word="word"),
            ToolArg("fixed", {"type": "boolean", "description": "Find pattern as written, not "
                              "as a regex: for text with $ ( ) . [ ] * + ? \\ | (paths, error "
                              "messages)."}, word="-F"))),
    Row("zoom", "Open one line of wake: LO-HI's two halves (summaries, or raw memories).",
        (Param("block"),), cli="store_cmds:zoom",
        tool="Open one line of wake: the block's two halves (summaries, or the raw memories).",
        tool_args=(ToolArg("block", _BLOCK, required=True, word="word"),)),
    Row("forget", "Drop the summary LO-HI and every one built on it (the log is untouched).",
        (Param("block", required=True),
         Param("dry_run", "flag", ("--dry-run",),
               help="Say how many summaries would go (each a compression to redo); change "
                    "nothing.")),
        cli="store_cmds:forget",
        tool="Drop the summary of a block and every summary built on it (the memories stay), "
             "when a summary is wrong; then sleep rebuilds them.",
        tool_args=(ToolArg("block", _BLOCK, required=True, word="word"),)),
    Row("stats", """Memories, summaries, pending work, bytes on disk and the wake shape.

With a project active and no flag: the global memory, then the project's.""",
        (Param("as_json", "flag", ("--json",),
               help="One JSON list: an object per store (each naming its store where both "
                    "memories are read)."),),
        cli="store_cmds:stats",
        tool="Counts of memories and summaries, pending compressions, bytes on disk and the "
             "shape of wake."),
    Row("config", """Show the settings, or change them: NAME=VALUE (NAME= restores the default).

The global store's, unless --project NAME names a project's.""",
        (Param("settings", nargs=-1),
         Param("repair", "flag", ("--repair",),
               help="Comment out config lines that are not valid.")),
        cli="store_cmds:config_"),
    Row("check", """Verify every record of the store; each problem names its recovery.

With a project active and no flag: the global store, then the project's;
--all walks every project. --repair first restores what a record's place
in the log implies (its id, and its date when both neighbours share it),
losing nothing, then checks.""",
        (Param("every", "flag", ("--all",), help="Also check every project store."),
         Param("repair", "flag", ("--repair",),
               help="Restore log records whose id or date alone is damaged (their place "
                    "implies it); the text is never changed and the old bytes are kept in "
                    "recovered.txt. Then check.")),
        cli="store_cmds:check"),
    Row("redact", """For humans only, never agents: blank memory ID in place for good.

Use it only for what must not stay on disk (a secret, something a person
asked to have removed). The id and date stay; the text becomes
[redacted]; the summaries over it are dropped and rebuilt by memo sleep.""",
        (Param("memory_id", metavar="ID", required=True),
         Param("yes", "flag", ("--yes",), help="Really blank the memory.")),
        cli="store_cmds:redact"),
    Row("scope", """Say which memory this folder uses: the global store, the active
project, how it was found and the remotes seen (reads only).""",
        cli="store_cmds:scope_"),
    Row("import", """Bootstrap from FILE: lines `YYYY-MM-DD text`, all or nothing (`-`: stdin).

Before writing it says on stderr how many compressions the import
creates; above 10,000 memories it asks for --yes. With a project active
the lines go to the project (--global: the global memory).""",
        (Param("file", required=True, path="any"),
         Param("yes", "flag", ("--yes",),
               help="Import more than 10,000 memories (each one is about one compression, an "
                    "agent turn).")),
        grammar="file", cli="person_cmds:import_"),
    Row("export", """Write every memory as `YYYY-MM-DD text` lines (the import format).

To standard output, or into FILE (a new file: never replaces one).
`memo import` of an export into an empty store gives back the same log.
With a project active the project's memories (--global: the global
memory's), the store `memo import` would write to.""",
        (Param("file", path="file"),), grammar="file", cli="person_cmds:export"),
)

#: The rows by name.
BY_NAME = {row.name: row for row in ROWS}


def tools() -> list:
    """The rows of the commands that are MCP tools, in table order."""
    return [row for row in ROWS if row.tool is not None]


def tool_args(name: str) -> tuple:
    """The arguments of tool ``name``, ``scope`` last (``SCOPE_ARG``); ``()``
    for a command that is no tool."""
    row = BY_NAME.get(name)
    if row is None or row.tool is None:
        return ()
    return (*row.tool_args, SCOPE_ARG)

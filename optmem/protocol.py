"""Every line a program reads, rendered in one place (docs/protocol.md).

The seed tool's output is an API: clients (memory providers, harness
extensions, the seed's own tests) find what to do with regular expressions
such as ``Compress memories #(\\d+)-(\\d+)``, ``Saved as #(\\d+)`` or
``Run: memo wake (\\d+) (\\d+)``. This module holds those strings, each as a
constant or a small pure function, so a wording change is one edit and the
tests import the same text. Nothing here touches the store or click.

Orders (what an agent runs next) start ``Run: ``. An order that carries a
line of the agent's own text comes in one of several *forms*, chosen by
``MEMO_ORDERS`` in memo's environment:

- ``heredoc`` (the default): a quoted heredoc, so the agent's shell never
  expands ``$(...)``, backticks or ``$HOME`` inside a summary::

      Run: memo sleep 0-1 - <<'SUMMARY'
      <your line>
      SUMMARY

- ``line``: the seed's one-line form, for programs that parse the order and
  call memo without a shell: ``Run: memo sleep 0-1 "<your line>"``.

- ``nap``: the later OptMem's one-line texts, for programs written for it
  (they turn ``Run: .+ nap (\\d+-\\d+) "<your line>"$`` into a tool call):
  ``Run: memo nap 0-1 "<your line>"``, and ``Run: memo nap`` wherever the
  other forms order ``Run: memo sleep``. The batched hand-over
  (``MEMO_HANDOVER=batch``) has no such text: it is rendered in ``line``.

- ``mcp``: for ``memo mcp`` (the MCP server sets it for its calls with
  ``orders_in``; it is not for a shell): every order is a tool call, the
  tool's name and its JSON arguments, ``Run: sleep {"block": "0-1",
  "summary": "<your line>"}``, read as ``^Run: (\\w+) (\\{.*\\})$``. A
  command that is not a tool (``memo check``) is a person's step there.

A new form is one more entry in ``TEXT_ORDERS``: a function of ``(command,
placeholder, tag)`` returning the order's lines.
"""

from __future__ import annotations

import _thread
import contextlib
import os
from typing import TYPE_CHECKING, Any, Iterator, Mapping

from optmem import commands

if TYPE_CHECKING:  # for the annotations alone: contextvars is imported on first use
    import contextvars

AWAKE = "You are awake."  #: the last line of a finished wake (seed)
RUN = "Run:"  #: how an order an agent may run begins
PERSON = "A person can run:"  #: how a step only a person may take begins
NOTHING_LEFT = "Nothing left to compress."  #: sleep with nothing pending (seed)
NO_MATCH = "No match."  #: recall found nothing (seed)
ORDERS_ENV = "MEMO_ORDERS"  #: environment variable that picks the order form
DEFAULT_FORM = "heredoc"
SUMMARY_TAG = "SUMMARY"  #: heredoc tag of a summary order
MEMORY_TAG = "MEMORY"  #: heredoc tag of a note order
YOUR_LINE = "<your line>"  #: the placeholder in a summary order (seed)
ONE_LINE = "<one line>"  #: the placeholder in a note order (seed)
RAW_PROMPT_MAX = 16  #: blocks up to this size show raw memories (seed RAW_MAX)

#: The tags a harness frames context in: a stored line holding one, opening
#: or closing, could end the frame the hook puts memory in and open one that
#: speaks with the harness's voice, so the write guard refuses it
#: (``guard.find_frame_tag``) and the display shows its ``<`` as U+FFFD.
#: Each entry is ``tag: where it comes from``; matched case-insensitively,
#: with any spaces, a ``/`` or attributes (``< /System-Reminder >``), and in
#: disguise: look-alike brackets, HTML references, homoglyphs (``guard.text._fold``).
FRAME_TAGS = {
    # Claude Code: wraps hook output (SessionStart/UserPromptSubmit
    # additionalContext) and its own reminders in <system-reminder>.
    "system-reminder": "Claude Code's hook output and reminders",
    # Claude Code: UserPromptSubmit hook feedback; its system prompt tells the
    # model to treat <user-prompt-submit-hook> as coming from the user.
    "user-prompt-submit-hook": "Claude Code's prompt-submit hook output",
    # Claude Code and Claude Desktop: tool calls and tool (MCP) results in
    # Claude's tool-use transcript.
    "function_calls": "Claude's tool calls (Claude Code, Claude Desktop)",
    "function_results": "Claude's tool results (Claude Code, Claude Desktop)",
    # Gemini CLI: hook additionalContext is added to the history as
    # <hook_context>...</hook_context> (packages/core, SessionStart/BeforeAgent).
    "hook_context": "Gemini CLI's hook output",
    # Codex: AGENTS.md text and the session's environment are wrapped in
    # <user_instructions> and <environment_context> contextual user messages.
    "user_instructions": "Codex's project instructions",
    "environment_context": "Codex's session context",
    # Cursor: hook context reaches the model as plain text (no wrapper tag);
    # its rules are framed as <rules>, too common a word to refuse.
}


def plural(n: int, one: str, many: str, grouped: bool = False) -> str:
    """``n`` and the word for it: ``1 match``, ``2 matches``. ``grouped``:
    the number with thousands separators (``12,000 memories``), for
    sentences a person reads; lines a program reads never group digits."""
    return f"{n:,} {one if n == 1 else many}" if grouped else f"{n} {one if n == 1 else many}"


# -- order forms ---------------------------------------------------------

def _heredoc(command: str, placeholder: str, tag: str) -> list:
    return [f"{command} - <<'{tag}'", placeholder, tag]


def _line(command: str, placeholder: str, tag: str) -> list:
    return [f'{command} "{placeholder}"']


NAP_FORM = "nap"  #: the later OptMem's one-line orders (``memo nap``)


def nap_words(command: str) -> str:
    """``command`` with the later OptMem's verb: ``memo sleep ...`` becomes
    ``memo nap ...`` (the same command in memo); any other is unchanged."""
    if command == "memo sleep" or command.startswith("memo sleep "):
        return "memo nap" + command[len("memo sleep"):]
    return command


def _nap(command: str, placeholder: str, tag: str) -> list:
    return _line(nap_words(command), placeholder, tag)


MCP_FORM = "mcp"  #: the form of ``memo mcp`` results



def text_arg(verb: str) -> str | None:
    """The tool argument of command ``verb`` that carries the agent's text
    (``note``'s ``text``, ``sleep``'s ``summary``), or None
    (``optmem.commands``: the argument whose ``word`` is ``"text"``)."""
    return next((a.name for a in commands.tool_args(verb) if a.word == "text"), None)


class Value(str):
    """A word of an ``Order`` that is a value the reader gave (a pattern, a
    path), not one of memo's words: the shell form prints it as one shell
    word (``textform.quoted``), a tool call carries it as it is."""

    __slots__ = ()


def word(text: str) -> str:
    """One word of an order as the shell form prints it: a ``Value``
    quoted for a shell (``textform.quoted``: the one place memo quotes),
    any other word as it is."""
    if isinstance(text, Value):
        from optmem.textform import quoted
        return quoted(text)
    return text

class Order:
    """One order, as data: built once, rendered per form (``lines``,
    ``inline``), never parsed back from text.

    ``verb`` is memo's command word (``"sleep"``, ``"check"``); ``words``
    its positional words as a shell takes them (``("0-1",)``; a word such
    as ``--repair`` or ``--yes`` of a command that is no tool stays here);
    ``scope`` the store it names: None (no flag), ``"global"``
    (``--global``) or a project's name (``--project NAME``), its flag
    printed after the words, or before them with ``flag_first``;
    ``options`` ``((name, value), ...)`` printed last (``--max-bytes N``;
    the tool's argument ``max_bytes``); ``text`` the placeholder of the
    agent's text (``"<your line>"``) and ``tag`` its heredoc tag;
    ``person``: a step only a person may take (``A person can run:``).

    Immutable, compared and hashed by its fields. (A plain class, not a
    frozen dataclass: building one costs every command's start-up.)
    """

    __slots__ = ("verb", "words", "scope", "text", "tag", "person", "flag_first", "options")
    verb: str
    words: tuple
    scope: str | None
    text: str | None
    tag: str
    person: bool
    flag_first: bool
    options: tuple

    def __init__(self, verb: str, words: tuple = (), scope: str | None = None,
                 text: str | None = None, tag: str = "SUMMARY", person: bool = False,
                 flag_first: bool = False, options: tuple = ()):
        for name, value in zip(self.__slots__, (verb, words, scope, text, tag, person,
                                                flag_first, options)):
            object.__setattr__(self, name, value)

    def _fields(self) -> tuple:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"an Order is immutable: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"an Order is immutable: cannot delete {name!r}")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={value!r}" for name, value in zip(self.__slots__, self._fields()))
        return f"Order({shown})"

    @staticmethod
    def scoped(flag: str) -> str | None:
        """The ``scope`` of a scope flag as memo builds it (``""``,
        ``"--global"``, ``"--project NAME"``)."""
        if not flag:
            return None
        return "global" if flag == "--global" else flag[len("--project "):]

    @property
    def flag(self) -> str:
        """The scope flag of the shell form (empty without a scope)."""
        if self.scope is None:
            return ""
        return "--global" if self.scope == "global" else f"--project {self.scope}"

    def command(self, form: str | None = None) -> str:
        """The shell form without the agent's text: ``memo sleep 0-1 --global``.

        In the ``nap`` form the verb is the later OptMem's (``nap`` for
        ``sleep``) and a scope flag stands before the verb (``memo --global
        nap 0-1``; memo reads flags on either side of it), so the text
        after the block is the placeholder alone, as the later OptMem's
        clients read it: ``Run: .+ nap (\\d+-\\d+) "<your line>"$``."""
        if form == NAP_FORM:
            words = ["memo", self.flag] if self.flag else ["memo"]
            words += ["nap" if self.verb == "sleep" else self.verb, *(word(w) for w in self.words)]
            words += [f"{name} {value}" for name, value in self.options]
            return " ".join(words)
        words = ["memo", self.verb]
        words += [self.flag] if self.flag and self.flag_first else []
        words += [word(w) for w in self.words]
        words += [self.flag] if self.flag and not self.flag_first else []
        words += [f"{name} {value}" for name, value in self.options]
        return " ".join(words)

    def call(self) -> str | None:
        """The MCP tool call ``<tool> <JSON arguments>`` (one line), or None
        when the verb is no tool or a word is no tool argument."""
        spec = commands.tool_args(self.verb)  # the tool's arguments, from the command's row
        if not spec:
            return None
        positional = [a for a in spec if a.word in ("word", "rest")]
        named = {a.word: a for a in spec if a.word and a.word.startswith("-")}
        words = [w for w in self.words if w not in named]
        if any(w.startswith("--") for w in words):
            return None
        if positional and positional[-1].word == "rest" and len(words) > len(positional):
            k = len(positional) - 1  # the last argument carries the rest, opaque (wake's at)
            words[k:] = [" ".join(words[k:])]
        if len(words) > len(positional):
            return None
        args = {}
        for arg, value in zip(positional, words):
            number = arg.schema.get("type") == "integer" and value.isdigit()
            args[arg.name] = int(value) if number else str(value)
        for flag in (w for w in self.words if w in named):
            args[named[flag].name] = True
        name = text_arg(self.verb)
        if self.text is not None and name:
            args[name] = self.text
        for option, value in self.options:
            args[named[option].name if option in named
                 else option.lstrip("-").replace("-", "_")] = value
        if self.scope is not None:
            args["scope"] = self.scope
        import json  # orders in the mcp form alone (json cost every command 1.3 ms of start-up)
        return f"{self.verb} {json.dumps(args, ensure_ascii=False)}"

    def inline(self, form: str | None = None) -> str:
        """The order as named inside a sentence, without ``Run: ``: the
        shell command with its placeholder (``memo note --global <text>``),
        or the tool call in the ``mcp`` form."""
        form = form or orders_form()
        if form == MCP_FORM:
            call = self.call()
            if call is not None:
                return call
        command = self.command(form)
        return f"{command} {self.text}" if self.text is not None else command

    def hint(self, form: str | None = None) -> str:
        """The order as named inside a sentence in the shape of the form in
        force: an order carrying the agent's text (``note``, ``sleep``) is
        the quoted heredoc's first line and what follows it by default
        (``memo note --global - <<'MEMORY', then the text and MEMORY on
        lines of their own``: no shell expands the text), the quoted one-line
        command in the ``line`` and ``nap`` forms, the tool call in the
        ``mcp`` form; any other order is ``inline``'s."""
        form = form or orders_form()
        if self.text is None or not text_arg(self.verb) or form == MCP_FORM or self.person:
            return self.inline(form)
        first, *rest = self.lines(form)
        first = first[len(RUN) + 1:] if first.startswith(f"{RUN} ") else first
        if not rest:
            return first
        return f"{first}, then the text and {self.tag} on lines of their own"

    def lines(self, form: str | None = None) -> list:
        """The order as printed, in ``form`` (None: ``orders_form()``): the
        first line starts ``Run: `` (or ``A person can run: `` for a
        person's step, and in the ``mcp`` form for a command that is no
        tool); an order with text takes the form's shape (heredoc: three
        lines)."""
        form = form or orders_form()
        if self.person:
            return [person_can_run(self.command())]
        if form != MCP_FORM:
            _rendered[0] += 1
        if form == MCP_FORM:
            call = self.call()
            return [f"{RUN} {call}"] if call else [person_can_run(self.command())]
        if self.text is None:
            return [f"{RUN} {self.command(form)}"]
        if form == NAP_FORM:
            return [f'{RUN} {self.command(form)} "{self.text}"']
        first, *rest = TEXT_ORDERS[form](self.command(), self.text, self.tag)
        return [f"{RUN} {first}", *rest]

    def line(self, form: str | None = None) -> str:
        """``lines`` of an order without text: its one line."""
        return "\n".join(self.lines(form))


class Problem(str):
    """One problem line (``memo check``) whose closing step is a value:
    the text is ``sentence``, a space and ``then`` rendered in the form in
    force (``Order.line``), or ``sentence`` alone when ``then`` is None. A
    ``str``, so it prints and compares as the line it is; code that needs
    the step reads ``then``, never the text."""

    sentence: str
    then: Order | None

    def __new__(cls, sentence: str, then: Order | None = None) -> Problem:
        line = super().__new__(cls, sentence if then is None else f"{sentence} {then.line()}")
        line.sentence, line.then = sentence, then
        return line

    @classmethod
    def of(cls, err: Any) -> Problem:
        """The problem line of a ``MemoError`` (its ``sentence`` and ``then``)."""
        return cls(err.sentence, err.then)


def batch_order(names: list, form: str | None = None, scope: str | None = None) -> list:
    """The lines of the order that answers a batch of block ``names``
    (``"lo-hi"``; the batched hand-over, ``MEMO_HANDOVER=batch``), ``scope``
    as ``Order.scope``. Heredoc by default (no shell expands the agent's
    text): ``Run: memo sleep - <<'SUMMARY'``, a ``LO-HI <your line>`` line
    per block, ``SUMMARY``; in the ``line`` and ``nap`` forms one line whose
    arguments are ``"LO-HI <your line>"`` each, for programs that call memo
    without a shell (the ``nap`` form has no batch text of its own); in the
    ``mcp`` form the tool call (``batch_call``)."""
    form = form or orders_form()
    if form == MCP_FORM:
        return [f"{RUN} {batch_call(names, scope)}"]
    items = [f"{n} {YOUR_LINE}" for n in names]
    if form in ("line", NAP_FORM):
        quoted_items = tuple(f'"{item}"' for item in items)
        return Order("sleep", ("-",) + quoted_items, scope, flag_first=True).lines("line")
    sleep = Order("sleep", ("-",), scope, flag_first=True).command()
    _rendered[0] += 1
    return [f"{RUN} {sleep} <<'{SUMMARY_TAG}'", *items, SUMMARY_TAG]


def batch_call(names: list, scope: str | None = None) -> str:
    """The ``mcp`` form of the batched hand-over's order (``optmem.engine.handover``):
    ``sleep {"batch": ["LO-HI <your line>", ...]}``, one item per block,
    with ``scope`` (``Order.scope``) when given."""
    args: dict = {"batch": [f"{n} {YOUR_LINE}" for n in names]}
    if scope is not None:
        args["scope"] = scope
    import json  # orders in the mcp form alone (json cost every command 1.3 ms of start-up)
    return "sleep " + json.dumps(args, ensure_ascii=False)


#: form name -> renderer of a text-carrying command in a shell form:
#: ``(command, placeholder, tag) -> lines``, the first line without the
#: ``Run: `` prefix. The ``mcp`` form renders from the ``Order`` itself.
TEXT_ORDERS = {"heredoc": _heredoc, "line": _line, NAP_FORM: _nap}

#: The form a front end chose for what runs in its context (``orders_in``);
#: ``None``: ``MEMO_ORDERS`` decides.
#: Made by the first ``orders_in`` (only ``memo mcp`` calls it), so the
#: command line never imports ``contextvars``.
_CHOSEN = None
_CHOSEN_MADE = _thread.allocate_lock()


def _chosen() -> contextvars.ContextVar:
    """The context variable of ``orders_in``, made once (under a lock: two
    threads must share one)."""
    global _CHOSEN
    with _CHOSEN_MADE:
        if _CHOSEN is None:
            import contextvars
            _CHOSEN = contextvars.ContextVar("optmem_orders_form", default=None)
    return _CHOSEN


@contextlib.contextmanager
def orders_in(form: str) -> Iterator[None]:
    """Render every order in ``form`` while the block runs (in this thread
    or task): how a front end (``memo mcp``) chooses its form, whatever
    ``MEMO_ORDERS`` says."""
    chosen = _chosen()
    token = chosen.set(form)
    try:
        yield
    finally:
        chosen.reset(token)


def orders_form(environ: Mapping[str, str] | None = None) -> str:
    """The order form in force: ``MEMO_ORDERS`` (case and spaces ignored)
    when it names a form of ``TEXT_ORDERS``, else ``DEFAULT_FORM``. An
    unknown value falls back to the default, the form no shell can misread.
    """
    chosen = _CHOSEN.get() if _CHOSEN is not None else None
    if chosen is not None and environ is None:
        return chosen
    env = os.environ if environ is None else environ
    value = env.get(ORDERS_ENV, "").strip().lower()
    return value if value in TEXT_ORDERS else DEFAULT_FORM


def unknown_form_line(environ: Mapping[str, str] | None = None) -> str | None:
    """When ``MEMO_ORDERS`` is set to a value that names no form of
    ``TEXT_ORDERS`` (a typo: ``lines``), the one line that says so and what
    was printed instead; else None. ``orders_form`` falls back silently, so
    a front end prints this beside output that holds orders."""
    env = os.environ if environ is None else environ
    raw = env.get(ORDERS_ENV, "")
    if not raw.strip() or raw.strip().lower() in TEXT_ORDERS:
        return None
    from optmem.textform import quoted
    forms = sorted(TEXT_ORDERS)
    return (f"{ORDERS_ENV}={quoted(raw)} names no order form ({', '.join(forms[:-1])} "
            f"or {forms[-1]}), so the orders above are in the {DEFAULT_FORM} form.")


def run(order: Order, form: str | None = None) -> str:
    """An order an agent may run as printed, one line: ``Run: <command>``
    (``Order.lines``). In the ``mcp`` form the command is a tool call
    (``Run: wake {"part": 2, "at": "40"}``), and a command that is no tool
    is ``person_can_run``; in the ``nap`` form ``memo sleep`` is written
    ``memo nap`` (``nap_words``)."""
    return order.line(form)


def one_of(orders: list, form: str | None = None) -> list:
    """Orders (``Order`` values) of which the reader runs one, as lines,
    one order per line: each ``run(order, form)`` (``Run: memo ...``, or
    ``Run: <tool> {...}`` in the ``mcp`` form, or ``A person can run:
    ...`` for a person's step). Never joined on one line, so a reader
    anchored per line (``^Run: memo .*$``, ``^Run: (\\w+) (\\{.*\\})$``)
    parses each as printed."""
    return [run(order, form) for order in orders]


def person_can_run(command: str) -> str:
    """A step only a person may take, ``A person can run: COMMAND``; no
    ``Run:`` matcher picks it up. ``command`` is a shell command line whose
    values are quoted already (``move_aside``, ``shell``); a memo command
    is an ``Order(..., person=True)``."""
    return f"{PERSON} {command}"


def shell(*words: str) -> str:
    """A shell command line of ``words``, each one shell word
    (``textform.quoted``; a ``$'...'`` escape where a word holds a control
    character), for a person's step that is no memo command."""
    from optmem.textform import quoted
    return " ".join(quoted(w) for w in words)


def move_aside(path: str, dst: str) -> str:
    """The person's step that moves ``path`` out of memo's way to ``dst``:
    ``A person can run: mv -- PATH DST``, each name one shell word."""
    from optmem.textform import quoted
    return person_can_run(f"mv -- {quoted(path)} {quoted(dst)}")


def is_order_text(text: str) -> bool:
    """Whether ``text`` (a line an agent gave as its summary or memory) is
    an order memo printed rather than the agent's own line: it holds the
    placeholder ``<your line>`` or starts like an order (``Run: memo``,
    ``memo sleep``, ``memo note``)."""
    return YOUR_LINE in text or text.startswith((f"{RUN} memo", "memo sleep", "memo note"))


#: How many orders were rendered in a shell form (``Order.lines``) in this
#: process: a front end that prints output compares it before and after a
#: command to tell whether what it prints holds an order, without reading
#: the text back (``unknown_form_line``).
_rendered = [0]


def rendered_orders() -> int:
    """The count of orders rendered in a shell form so far (``_rendered``)."""
    return _rendered[0]


def sleep_order(name: str, form: str | None = None, flag: str = "") -> list:
    """The order that stores the summary of block ``name`` (``"LO-HI"``).
    ``flag`` (``--global``, ``--project NAME``; docs/scopes.md) stands after the
    block, so a seed client's ``memo sleep (\\d+)-(\\d+)`` still matches."""
    return summary_order(name, flag).lines(form)


def summary_order(name: str, flag: str = "") -> Order:
    """``sleep_order`` as a value: ``memo sleep LO-HI`` with ``flag`` and the
    agent's line (``YOUR_LINE``) as its text."""
    return Order("sleep", (name,), Order.scoped(flag), YOUR_LINE, SUMMARY_TAG)


# -- compression -----------------------------------------------------------

def compress_head(name: str, limit: int) -> str:
    """The first line of every compression prompt, whatever the block size
    (seed): ``Compress memories #LO-HI into one line of at most N bytes.``"""
    return f"Compress memories #{name} into one line of at most {limit} bytes."


#: The guidance under the first line. One rule per line, none contradicting
#: another: dates inside the text are facts to keep; each memory's own date
#: is kept beside the summary by memo, so repeating it wastes bytes.
COMPRESS_RULES = (
    "Keep every name, number, decision and outcome, and any date written in the text.",
    "Drop wording, not facts. Invent nothing.",
    "Do not repeat the memories' own dates: memo keeps them beside your line.",
    "(Bytes of UTF-8: accented and non-Latin characters count 2-4.)",
)


def remaining(left: int) -> str:
    """The line after the body: how many compressions follow this one."""
    if left <= 0:
        return "This is the last compression."
    return f"{plural(left, 'compression remains', 'compressions remain')} after this one."


def compression_prompt(name: str, limit: int, body: list, left: int,
                       form: str | None = None, flag: str = "") -> str:
    """The whole prompt for one block.

    ``name`` is the inclusive block id ``"LO-HI"``; ``limit`` is
    ``ENTRY_CHARS`` (bytes of UTF-8); ``body`` the lines shown to compress
    (raw memories ``#id date text`` for blocks up to ``RAW_PROMPT_MAX``,
    else the two halves' summary lines), each indented two spaces here;
    ``left`` how many compressions remain after this one. The last lines
    are the order (``sleep_order``).
    """
    lines = [compress_head(name, limit), *COMPRESS_RULES, ""]
    lines += ["  " + line for line in body]
    lines += ["", remaining(left)]
    lines += sleep_order(name, form, flag)
    return "\n".join(lines)


def saved_block(name: str) -> str:
    """After a summary is stored: ``LO-HI saved.`` (seed)."""
    return f"{name} saved."


def already_wrote(name: str) -> str:
    """A block another session stored first (not an error; seed)."""
    return f"Another session already wrote {name}."


# -- note ----------------------------------------------------------------

def saved_as(i: int) -> str:
    """The acknowledgement of a note: ``Saved as #<i>.`` (seed)."""
    return f"Saved as #{i}."


# -- wake ----------------------------------------------------------------

WAITS_MARK = " waits: "  #: in the first line of ``compression_waits``, never in a prompt


def compression_waits(name: str, i: int, where: str, restorable: bool, flag: str = "",
                      form: str | None = None) -> str:
    """The hand-over instead of block ``name``'s prompt when memory ``i`` in
    it is damaged (``where``: the file, the record and what is wrong). Its
    first line, ``Compression of #LO-HI waits: ...``, is no prompt a client
    acts on. When only the record's head is damaged (``restorable``) the
    agent's order restores it and loses nothing; else a person must look
    (restore the log from a copy, or blank the record), so the step is a
    person's."""
    head, body, order = compression_waits_parts(name, i, where, restorable, flag)
    return "\n".join([head, body, run(order, form)])


def compression_waits_parts(name: str, i: int, where: str, restorable: bool,
                            flag: str = "") -> tuple:
    """``compression_waits`` as values: ``(first line, second line,
    Order)``, the order being the step (``Order.lines`` renders it)."""
    head = (f"Compression of #{name}{WAITS_MARK}memory #{i} is damaged ({where}), and a "
            f"summary written from it would keep the damage in your memory for good.")
    scope = Order.scoped(flag)
    if restorable:
        return (head, "Its text is intact, and its place in the log tells what its head "
                      "must be: memo restores it and loses nothing.",
                Order("check", ("--repair",), scope))
    return (head, "Its text cannot be read whole, so nothing more is compressed until a "
                  "person repairs it; tell your person (memo check names the record and "
                  "the repair).",
            Order("check", (), scope, person=True))


def half_waits(name: str, half: str, why: str, flag: str = "",
               form: str | None = None) -> str:
    """The hand-over instead of block ``name``'s prompt when the built
    summary of its half ``half`` is damaged (``why``: the store's one line
    naming the file and record). Forgetting that summary loses nothing the
    log does not hold, and memo sleep writes it again, so the step is the
    agent's: ``Run: memo forget HALF`` (with ``flag``). ``why`` is the
    sentence alone (``MemoError.sentence``), without its order."""
    return "\n".join([f"Compression of #{name}{WAITS_MARK}{HALF_MARK}{half} is "
                      f"damaged ({why.rstrip('.')}); memo sleep writes it again from the "
                      f"log once it is forgotten.",
                      run(half_waits_order(half, flag), form)])


def half_waits_order(half: str, flag: str = "") -> Order:
    """The step ``half_waits`` ends with: ``memo forget HALF`` (with ``flag``)."""
    return Order("forget", (half,), Order.scoped(flag))


HALF_MARK = "the summary of its half #"  #: in the first line of ``half_waits``


#: The kinds of a ``Handover``.
NOTHING = "nothing"    #: nothing left to compress (``NOTHING_LEFT``)
COMPRESS = "compress"  #: a block (or a batch) to compress
WAITING = "waiting"    #: waits for a damaged record to be repaired (``compression_waits``)
HALF_WAITING = "half waiting"  #: waits for a damaged summary of a half (``half_waits``)
HELD = "held"          #: another session holds the block (``held_elsewhere``)


class Handover:
    """A hand-over as a value: ``kind`` (``NOTHING``, ``COMPRESS``,
    ``WAITING``, ``HALF_WAITING`` or ``HELD``), ``order`` (the ``Order``
    that answers it where it is one step: the repair of ``WAITING``, the
    forget of ``HALF_WAITING``, the ``sleep`` of one block to ``COMPRESS``;
    None for a batch, ``NOTHING`` and ``HELD``) and ``text`` (what is printed,
    lines joined by ``\\n``). Callers decide on ``kind``, never on ``text``."""

    __slots__ = ("kind", "order", "text")

    def __init__(self, kind: str, order: Order | None, text: str):
        self.kind, self.order, self.text = kind, order, text

    @property
    def waiting(self) -> bool:
        """True when the hand-over is no prompt: a repair comes first."""
        return self.kind in (WAITING, HALF_WAITING)

    def __repr__(self) -> str:
        return f"Handover({self.kind!r}, {self.order!r}, {self.text!r})"


def held_elsewhere(name: str) -> str:
    """The one line a known session gets while another known session holds
    the next block (no order: nothing is needed from it now)."""
    return (f"Another session is compressing {name}; nothing is needed from you now, "
            f"go on with your work.")


def cannot_wake(pending: int) -> str:
    """The first line of a refused wake (seed wording):
    ``Cannot wake: 1 compression pending. Do it, then run memo wake again.``"""
    return (f"Cannot wake: {plural(pending, 'compression', 'compressions')} pending. "
            f"Do {'it' if pending == 1 else 'them'}, then run memo wake again.")


def empty_store(form: str | None = None) -> list:
    """The lines of an empty store's wake, ``You are awake.`` last. The seed
    line ``No memories yet. Record the first with: memo note ...`` ends with
    the note command in the order form."""
    first, *rest = Order("note", text=ONE_LINE, tag=MEMORY_TAG).lines(form)
    return [f"No memories yet. Record the first with: {first[len(RUN) + 1:]}", *rest, AWAKE]


def part_header(k: int, n: int) -> str:
    """The first line of part ``k`` of a multi-part wake (seed)."""
    return f"Your memory, part {k} of {n}, oldest first."


#: How a part that is not the last begins its closing line (the later
#: OptMem): the read is unfinished, whatever a harness cut from the head.
NOT_AWAKE = "Not awake yet."


def _not_awake(order: Order) -> str:
    """``Not awake yet. Run: <command>``; in the ``mcp`` form the tool call
    stands on a line of its own after ``Not awake yet.``, so a reader
    anchored per line (``^Run: (\\w+) (\\{.*\\})$``) still reads it."""
    line = run(order)
    return f"{NOT_AWAKE}\n{line}" if orders_form() == MCP_FORM else f"{NOT_AWAKE} {line}"


def part_footer(k: int, n: int, T: int, flag: str = "") -> str:
    """The last line of part ``k``: ``Not awake yet. Run: memo wake <k+1>
    <T>`` (read as ``Not awake yet\\. Run: .+ wake (\\d+) (\\d+)$``, and by a
    seed client as ``Run: memo wake (\\d+) (\\d+)``), or ``AWAKE``. ``flag``:
    the scope flag the wake was given (``--global`` while a project is
    active), which the order repeats so it pages the same document."""
    return AWAKE if k == n else _not_awake(Order("wake", (str(k + 1), str(T)),
                                                 Order.scoped(flag)))


def part_footer_scoped(k: int, n: int, Tg: int, Tp: int, project: str) -> str:
    """The last line of part ``k`` of a document of two stores:
    ``Not awake yet. Run: memo wake <k+1> <TG> <TP> --project NAME`` or
    ``AWAKE``. A seed client's ``Run: memo wake (\\d+) (\\d+)`` still matches."""
    return AWAKE if k == n else _not_awake(Order("wake", (str(k + 1), str(Tg), str(Tp)), project))


def is_part_footer(line: str) -> bool:
    """True for a line of the close of a part that is not the last, in any
    form (``Not awake yet. Run: ...``, or in the ``mcp`` form ``Not awake
    yet.`` above its tool call)."""
    return line.startswith(NOT_AWAKE)


def scope_receipt(project: str | None, instead: Order | None = None) -> str:
    """The second line of a note's receipt once projects exist (docs/scopes.md):
    where the memory went. In the ``mcp`` form the hint is the tool call
    (``note {"text": "<text>", "scope": "global"}``), not a command.
    ``instead``: the global form named in the hint (default the note's)."""
    if project:
        how = (instead or Order("note", scope="global", text="<text>", tag=MEMORY_TAG,
                                flag_first=True)).hint()
        return (f"Scope: project {project} (a fact true in any repository goes to the "
                f"global memory: {how}).")
    return "Scope: global memory."


# -- recall, import, forget ----------------------------------------------

def matches(total: int) -> str:
    """Recall's closing line when every match is shown (seed; ``1 match.``)."""
    return f"{plural(total, 'match', 'matches')}."


def newest_matches(shown: int, total: int) -> str:
    """Recall's closing line when only the newest ``shown`` fit (seed)."""
    return f"Newest {shown} of {plural(total, 'match', 'matches')}. Narrow the regex."


def recall_count(shown: int, total: int, cut: bool) -> str:
    """The count line that ends a recall (seed): ``No match.``, ``N matches.``
    / ``1 match.``, or, when only the newest ``shown`` of ``total`` fit,
    ``Newest K of N matches. Narrow the regex.``"""
    if total == 0:
        return NO_MATCH
    return newest_matches(shown, total) if cut else matches(total)


def imported(count: int, first: int) -> str:
    """``Imported N memories, #A to #B.`` (the later OptMem's capital I)."""
    return (f"Imported {plural(count, 'memory', 'memories')}, "
            f"#{first} to #{first + count - 1}.")


def pending_after_import(pending: int) -> str:
    """``N compressions pending. Run: memo sleep`` (only when N > 0)."""
    return f"{plural(pending, 'compression', 'compressions')} pending. {run(Order('sleep'))}"


def read_only_pending(pending: int, uid: int) -> str:
    """What stands where ``Run: memo sleep`` would, when ``pending``
    compressions wait on a store that is read-only for user ``uid``: no
    order (a sleep there cannot succeed), and the person's part."""
    return (f"{pending} compression{'s are' if pending > 1 else ' is'} pending, but this "
            f"store is read-only for this user (uid {uid}), so none can be saved "
            f"now; unsummarised blocks are shown as their parts. Do not run memo sleep "
            f"or memo note here until a person makes the store writable.")


def forgot(gone: int, name: str, step: str | None = None) -> str:
    """``Forgot N summaries, from LO-HI up. Run: memo sleep`` (seed);
    ``step`` stands in place of the order when a sleep cannot succeed
    there (``view.sleep_step``)."""
    return (f"Forgot {plural(gone, 'summary', 'summaries')}, from {name} up. "
            f"{step or run(Order('sleep'))}")


def forget_cost(gone: int, name: str, asked: Order | None = None) -> str:
    """What ``memo forget LO-HI --dry-run`` prints: how many summaries the
    forget would drop and that each is a compression to redo; no order.
    ``asked``: the forget as it was asked (its scope flag), named in the
    form that runs where it was asked (default ``memo forget LO-HI``)."""
    what = (asked or Order("forget", (name,))).command()
    if gone == 0:
        return f"{what} would drop no summary. Nothing was changed."
    each = "an agent turn" if gone == 1 else "each an agent turn"
    return (f"{what} would drop {plural(gone, 'summary', 'summaries')} ({name}, "
            f"every one built on it and the later ones of those sizes), creating "
            f"{plural(gone, 'compression', 'compressions')} ({each}) for memo sleep to redo. "
            f"Nothing was changed.")


# -- store ---------------------------------------------------------------

def no_memory(path: str) -> str:
    """A ``MEMORY_DIR`` that is missing, or an existing directory without a
    log (an unmounted disk, a folder not synced yet). Contains
    ``No memory at <path>`` (the later OptMem); never orders ``memo init``:
    only a person creates an identity."""
    return (f"No memory at {path} (MEMORY_DIR). If MEMORY_DIR is wrong, fix it; if "
            f"the memory is on a disk or folder that is not there yet, wait for it. "
            f"An agent stops here and tells its person: only a person starts a new, "
            f"empty memory. {person_can_run('memo init')}")


# -- config --------------------------------------------------------------

def config_line(name: str, value: int, default: int, limits: str, meaning: str,
                is_set: bool) -> str:
    """One knob of ``memo config``, the later OptMem's shape: ``NAME VALUE``
    (the value in force, read as ``^(\\w+)\\s+(\\d+)\\s``), its meaning and
    ``limits`` (words such as ``from 1 to 280``), and ``(default N)`` only
    where the store's config sets it (``is_set``): a table of knobs that
    follow memo holds no ``default`` at all."""
    changed = f" (default {default})" if is_set else ""
    return f"{name:<12} {value:<7} {meaning}, {limits}{changed}"

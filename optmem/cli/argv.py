"""The argv grammar click does not give: free text after the options, kept
as typed (``TextCommand``); ``-`` as a file (``FileCommand``); and the scope
flags ``--project NAME`` / ``--global`` on the group or any command
(``scoped``). The rule is docs/protocol.md's "what you type is stored"."""

from __future__ import annotations

import os

import click

#: A word shaped like an option (``-x``, ``--verbose``, ``--name=value``),
#: matched whole (``re.fullmatch``, ``re.S``). A pattern, compiled on first
#: use (``re``'s cache): compiling it costs every command 0.46 M instructions
#: (callgrind), and only a refused first word of text needs it.
OPTION_SHAPE = r"--?[A-Za-z][A-Za-z0-9_-]*(=.*)?"

#: The help text of ``-h``/``--help``, as click words it.
HELP_TEXT = "Show this message and exit."


class QuickHelp:
    """A click command or group (mixed in before ``click.Command``) whose
    ``-h``/``--help`` option is built once per command, with click's help
    text as written rather than through click's ``gettext`` call: that
    call's first use imports ``locale`` and looks for catalogs, 5.0 M
    instructions (callgrind) of every ``memo`` run, which ``memo wake``
    otherwise pays only to word this option. memo's own lines are English."""

    def get_help_option(self, ctx):
        """The help option (``click.Option``, its value never exposed), or
        None when the command has none; the same object on every call, as
        click needs for the order its callbacks run in."""
        names = self.get_help_option_names(ctx)
        if not names or not self.add_help_option:
            return None
        cached = self.__dict__.get("_quick_help")
        if cached is not None and cached.opts + cached.secondary_opts == list(names):
            return cached

        def show_help(ctx, param, value):
            if value and not ctx.resilient_parsing:
                click.echo(ctx.get_help(), color=ctx.color)
                ctx.exit()

        self._quick_help = click.Option(
            [*names, "memo_help"], is_flag=True, expose_value=False, is_eager=True,
            help=HELP_TEXT, callback=show_help)
        return self._quick_help


class Command(QuickHelp, click.Command):
    """A plain ``memo`` command (``QuickHelp``'s help option)."""


class FileCommand(QuickHelp, click.Command):
    """A command whose FILE argument may be ``-`` for standard input or
    output (``import``, ``export``). After ``--`` every word is an operand
    (README "What you type is what is stored"), so ``-- -`` names the file
    called ``-``: it is passed on as ``./-``, the same file, which no code
    below takes for a stream."""

    def parse_args(self, ctx, args):
        args = list(args)
        if "--" in args:
            at = args.index("--")
            args[at + 1:] = [os.path.join(".", "-") if word == "-" else word
                             for word in args[at + 1:]]
        return super().parse_args(ctx, args)


class TextCommand(QuickHelp, click.Command):
    """A command whose last argument is free text: ``note``, ``sleep``, ``recall``.

    The argv rule (README "What you type is what is stored"):

    * ``-h`` or ``--help`` as the first word shows the help, on every command;
    * options come before the text (``recall`` also takes them right after
      its one PATTERN);
    * ``--`` before the text is a separator, taken once and never stored
      (``sleep`` takes it before BLOCK or right after it);
    * a first word shaped like an option (``-x``, ``--verbose``) that is not
      one of the command's options is a usage error naming ``--``: it is never
      stored; ``-5 degrees``, ``-`` and ``->`` are not option-shaped;
    * from the first word of text on, every word is kept as typed, ``--``,
      ``-h`` and ``--help`` included.

    ``heads`` is how many positional words come before the text (``sleep``:
    BLOCK); ``one_word`` marks a text of exactly one word (``recall``).
    """

    def __init__(self, *args, heads: int = 0, one_word: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self.heads, self.one_word = heads, one_word

    def _flags(self) -> set:
        return {o for p in self.params if isinstance(p, click.Option) for o in p.opts}

    def _valued(self) -> set:
        """Options that take a value (``--project NAME``, ``sleep --with CMD``):
        the next word is it."""
        return {o for p in self.params if isinstance(p, click.Option) and not p.is_flag
                for o in p.opts}

    def _take_options(self, args: list, i: int, opts: list) -> int:
        """Move the options at ``args[i:]`` (with their values) to ``opts``;
        return the index of the first word that is not one."""
        flags, valued = self._flags(), self._valued()
        while i < len(args):
            word = args[i]
            if word in valued:
                if i + 1 >= len(args):
                    raise click.UsageError(f"{word} needs a value", click.get_current_context(
                        silent=True))
                opts += args[i:i + 2]
                i += 2
            elif word in flags and word not in valued:
                opts.append(word)
                i += 1
            elif "=" in word and word.split("=", 1)[0] in valued:
                opts.append(word)
                i += 1
            else:
                break
        return i

    def parse_args(self, ctx, args):
        args = list(args)
        opts, dashed = [], False
        i = self._take_options(args, 0, opts)
        if i < len(args) and args[i] == "--":
            dashed, i = True, i + 1
        heads = []
        while len(heads) < self.heads and i < len(args):
            if not dashed:
                self._not_an_option(ctx, args[i], heads)
            heads.append(args[i])
            i += 1
            if not dashed and i < len(args) and args[i] == "--":
                dashed, i = True, i + 1
            if not dashed and len(heads) == self.heads:  # a scope flag after BLOCK
                i = self._take_options(args, i, opts)
                if i < len(args) and args[i] == "--":
                    dashed, i = True, i + 1
        words = args[i:]
        if words and not dashed:
            self._not_an_option(ctx, words[0], heads)
        if self.one_word and len(words) > 1:
            extra = words[1:]
            taken = []
            if not dashed and self._take_options(extra, 0, taken) == len(extra):
                opts += taken
                words = words[:1]
            else:
                raise click.UsageError(
                    f"{self.name} takes one {self.params[0].human_readable_name}; quote "
                    f"it when it holds spaces", ctx)
        if not dashed:
            for word in words[1:]:
                if is_scope_word(word):
                    from optmem import protocol
                    flag, _, name = word.partition("=")
                    scope = "global" if flag == "--global" else (name or "NAME")
                    order = protocol.Order(self.name, tuple(heads), scope, "<text>",
                                           tag=protocol.MEMORY_TAG if self.name == "note"
                                           else protocol.SUMMARY_TAG)
                    raise click.UsageError(
                        f"{flag} after the text would be stored as text; put it before the "
                        f"text: {order.hint()}", ctx)
        return super().parse_args(ctx, opts + ["--"] + heads + words)

    def _not_an_option(self, ctx, word: str, heads: list) -> None:
        """Show the help for ``-h``/``--help``; refuse any other option-shaped word."""
        if word in ("-h", "--help"):
            click.echo(ctx.get_help(), color=ctx.color)
            ctx.exit(0)
        import re
        if re.fullmatch(OPTION_SHAPE, word, re.S):
            raise click.UsageError(
                f"{word.split('=', 1)[0]!r} is not an option of memo {self.name}; to "
                f"write text that starts with '-', put -- before it "
                f"(memo {' '.join([self.name, *heads])} -- {word[:20]} ...)", ctx)


def is_scope_word(word: str) -> bool:
    """``--global``, ``--project`` or ``--project=NAME``: a scope flag."""
    return word.split("=", 1)[0] in ("--global", "--project")


def set_scope(ctx, param, value):
    """Record ``--project NAME`` / ``--global`` (given on the group or the
    command) for ``_scope``; two different scopes are a usage error."""
    if value is None or value is False:
        return
    flag = "" if param.name == "global_" else value
    ctx.meta.setdefault("optmem.scope_flags", set()).add(flag)
    if len(ctx.meta["optmem.scope_flags"]) > 1:
        raise click.UsageError("give one scope: --project NAME or --global", ctx)
    ctx.meta["optmem.scope_flag"] = flag


#: The scope flags' click declarations and settings, ``--project`` first
#: (the order the help lists them; their help: ``optmem.commands``).
_SCOPE_FLAGS = ((("--project",), {"metavar": "NAME"}),
                (("--global", "global_"), {"is_flag": True}))


def scoped(f):
    """Add the scope flags ``--project NAME`` and ``--global`` to a command:
    a click command (``optmem.cli.table``), or a function a click
    decorator makes one of."""
    from optmem.commands import GLOBAL_HELP, PROJECT_HELP
    helps = (PROJECT_HELP, GLOBAL_HELP)
    if isinstance(f, click.Command):
        f.params.extend(click.Option(list(decls), expose_value=False, callback=set_scope,
                                     help=text, **kwargs)
                        for (decls, kwargs), text in zip(_SCOPE_FLAGS, helps))
        return f
    for (decls, kwargs), text in reversed(list(zip(_SCOPE_FLAGS, helps))):
        f = click.option(*decls, expose_value=False, callback=set_scope, help=text,
                         **kwargs)(f)
    return f

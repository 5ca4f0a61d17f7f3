"""Click commands made from their rows (``optmem.commands``).

``command(name)`` decorates a command's callback: the click command gets its
help, its parameters and, for a store command, the scope flags
(``argv.scoped``) from the row, and the argv grammar its row names
(``argv.TextCommand``, ``argv.FileCommand``). The callback says what the
CLI does with the words: read standard input, call the session layer,
print the ``Result``.
"""

from __future__ import annotations

from typing import Any, Callable

import click

from optmem import commands
from optmem.cli.argv import Command, FileCommand, TextCommand, scoped


def _param(p: commands.Param) -> click.Parameter:
    kwargs: dict[str, Any]
    if p.kind == "argument":
        kwargs = {"required": p.required, "nargs": p.nargs}
        if p.metavar:
            kwargs["metavar"] = p.metavar
        if p.path:
            kwargs["type"] = click.Path(dir_okay=p.path != "file", allow_dash=True)
        return click.Argument([p.name], **kwargs)
    kwargs = {"help": p.help}
    if p.kind == "flag":
        kwargs["is_flag"] = True
    if p.metavar:
        kwargs["metavar"] = p.metavar
    return click.Option([*p.decls, p.name], **kwargs)


def command(name: str) -> Callable[[Callable[..., Any]], click.Command]:
    """A decorator: the click command of row ``name`` with the decorated
    function as its callback."""
    row = commands.BY_NAME[name]

    def make(callback: Callable[..., Any]) -> click.Command:
        cmd: click.Command
        kwargs: dict[str, Any] = {"name": row.name, "callback": callback, "help": row.help,
                  "short_help": row.short_help, "params": [_param(p) for p in row.params]}
        if row.grammar == "text":
            cmd = TextCommand(heads=row.heads, one_word=row.one_word, **kwargs)
        elif row.grammar == "file":
            cmd = FileCommand(**kwargs)
        else:
            cmd = Command(**kwargs)
        if row.scoped:
            scoped(cmd)
        return cmd
    return make

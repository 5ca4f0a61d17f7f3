#!/usr/bin/env python3
"""Write the command reference in docs/commands.md from memo's own help.

Every command's ``--help`` (and the ``memo hook`` commands'), as click
prints it at 80 columns, goes between the two marker lines of
docs/commands.md, so the page shows every option ``--help`` shows and
cannot drift from it::

    python docs/reference.py          # rewrite the reference in docs/commands.md
    python docs/reference.py --check  # exit 1, with a diff, where it is stale

``tests/test_reference.py`` runs the check with the suite (and so in CI).
"""

from __future__ import annotations

import difflib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PAGE = os.path.join(HERE, "commands.md")
BEGIN = "<!-- reference: written by docs/reference.py from memo's own --help; do not edit -->"
END = "<!-- end of the reference -->"
WIDTH = 80
HELP_OPTIONS = ["-h", "--help"]  #: as the ``memo`` group sets them


def _help(command, path: list, parent=None) -> str:
    import click
    ctx = click.Context(command, info_name=path[-1], parent=parent, terminal_width=WIDTH,
                        max_content_width=WIDTH, help_option_names=HELP_OPTIONS)
    return ctx.get_help(), ctx


def click_version() -> str:
    """click's ``major.minor`` (its help's layout may differ between them)."""
    from importlib.metadata import version
    return ".".join(version("click").split(".")[:2])


def reference() -> str:
    """The reference section: one heading and help block per command."""
    sys.path.insert(0, os.path.dirname(HERE))
    import click

    from optmem.cli.app import cli
    top = click.Context(cli, info_name="memo", terminal_width=WIDTH, max_content_width=WIDTH,
                        help_option_names=HELP_OPTIONS)
    out = [BEGIN, "", f"Written with click {click_version()}.", ""]
    for name in cli.list_commands(top):
        command = cli.get_command(top, name)
        if command is None or command.hidden:
            continue
        text, ctx = _help(command, ["memo", name], top)
        out += [f"### `memo {name}`", "", "```text", text, "```", ""]
        if isinstance(command, click.Group):
            for sub in command.list_commands(ctx):
                text, _ = _help(command.get_command(ctx, sub), ["memo", name, sub], ctx)
                out += [f"### `memo {name} {sub}`", "", "```text", text, "```", ""]
    out.append(END)
    return "\n".join(out)


def rendered(page: str) -> str:
    """``page`` with its reference section written anew. Raises
    ``ValueError`` when the page lacks the marker lines."""
    if BEGIN not in page or END not in page:
        raise ValueError(f"{PAGE} lacks the marker lines {BEGIN!r} and {END!r}")
    head, rest = page.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return head + reference() + tail


def stale(page: str) -> str:
    """A unified diff from ``page`` to the page as written anew; ``""``
    when the reference is current."""
    new = rendered(page)
    return "".join(difflib.unified_diff(page.splitlines(True), new.splitlines(True),
                                        "docs/commands.md", "from --help"))


def main(argv: list) -> int:
    with open(PAGE, encoding="utf-8") as f:
        page = f.read()
    if "--check" in argv:
        diff = stale(page)
        if diff:
            sys.stdout.write(diff)
            print("docs/commands.md is stale: run python docs/reference.py", file=sys.stderr)
            return 1
        return 0
    with open(PAGE, "w", encoding="utf-8") as f:
        f.write(rendered(page))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

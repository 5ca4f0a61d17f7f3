"""``memo hook``: what a harness runs. ``session-start`` is here;
``session-end`` syncs replicas, so it sits with ``memo sync``
(``optmem.cli.replica_cmds``) and is imported only when run."""

from __future__ import annotations

import click

from optmem.cli.argv import Command
from optmem.cli.base import LazyGroup

#: The harnesses ``memo hook session-start`` prints for (those with a hook).
HOOK_HARNESSES = ("claude", "codex", "gemini")


@click.group(cls=LazyGroup, lazy={"session-end": "optmem.cli.replica_cmds:session_end"})
def hook():
    """What a harness runs; memo setup writes these commands for you."""


@hook.command("session-start", cls=Command)
@click.option("--harness", "harness_name", default="claude", type=click.Choice(HOOK_HARNESSES),
              help="Whose output shape to print (setup writes it).")
@click.option("--memory-dir", metavar="PATH", help="The store (default: MEMORY_DIR).")
@click.option("--max-bytes", metavar="N", help="Budget of the whole injected text "
              "(default: the harness's, under its cap).")
@click.option("--sync", "sync_first", is_flag=True, help="At startup and clear, fast-forward "
              "the store from its git upstream first (memo setup adds it where one is).")
def session_start(harness_name, memory_dir, max_bytes, sync_first):
    """Print the memory as the SessionStart JSON a harness injects (exit 0).

    Reads the harness's JSON on stdin (source: startup, resume, clear,
    compact). Always exits 0: a problem becomes a line in the context.
    """
    import json
    import os

    from optmem.cli.stdio import hook_stdin
    from optmem.engine import view
    from optmem.harness import HARNESSES, inject
    module = HARNESSES.get(harness_name)
    if module is None or not hasattr(module, "hook_output"):
        module = HARNESSES["claude"]
    try:
        budget = view.parse_count(max_bytes, "--max-bytes") if max_bytes else None
        text = inject.context(module, hook_stdin(),
                              memory_dir if memory_dir is not None
                              else os.environ.get("MEMORY_DIR"), os.environ, budget,
                              sync=sync_first)
    except Exception as err:  # the hook never fails: the reason goes to the model
        text = inject.failure(f"memo hook failed ({type(err).__name__}: {err})")
    if text is not None:
        click.echo(json.dumps(module.hook_output(text), ensure_ascii=False))

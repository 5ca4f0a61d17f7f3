"""The ``memo`` console entry point (``main``): the command line imported
with the cyclic garbage collector paused.

Importing click and memo's command line makes tens of thousands of objects
(classes, functions, constants) that live as long as the process, and the
collector's passes over them while they are made found nothing to free:
they cost ``memo wake`` about 25 million instructions, a tenth of its run
(``benchmarks/startup.py --instructions``). So ``main`` pauses collection
while the command line is imported, moves everything made so far out of
the collector's sight (``gc.freeze``: never collected, never scanned
again) and turns collection back on before any command runs, so a long
one (``memo mcp``, an import) collects as any program does.

This module imports nothing else at its top: ``python -m optmem``, the
``memo`` launcher of a checkout and pip's ``memo`` script call ``main``
first.
"""

import gc


def main() -> None:
    """Run the ``memo`` command (``optmem.cli.app.main``): import it with
    collection paused, freeze what the import made, resume collection (as
    it was: a caller that had it off keeps it off), then run. Exits as
    ``optmem.cli.app.main`` does (``SystemExit`` with the command's code)."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        from optmem.cli.app import main as run
    finally:
        gc.freeze()
        if was_on:
            gc.enable()
    run()

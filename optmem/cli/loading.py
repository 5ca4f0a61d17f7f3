"""Importing memo's own code with the cyclic garbage collector paused.

Importing click and memo's modules makes tens of thousands of objects
(classes, functions, constants) that live as long as the process; the
collector's passes over them while they are made find nothing to free and
cost ``memo wake`` about a tenth of its instructions
(``benchmarks/startup.py --instructions``). ``import_paused`` imports a
module with collection paused, then moves everything made so far out of
the collector's sight (``gc.freeze``: never collected, never scanned
again) and turns collection back on as it was, so the command that runs
next, a long one included (``memo mcp``, an import), collects as any
program does. The entry point (``optmem.cli.start``) imports the command
line so, and the lazy command table (``base.LazyGroup``) each command's
module.

At its top this module imports ``gc`` and ``sys`` alone (``optmem.deps``
only on the path of a damaged cache file): it runs before click is
imported.
"""

import gc
import sys


def import_paused(name: str):
    """The module ``name`` (dotted), imported with the collector paused and
    what the import made frozen (``gc.freeze``); collection is back as it
    was (on, unless the caller had it off) when this returns or raises.
    A bytecode cache file of memo cut short (a full disk when Python wrote
    it) is removed and the import made once more
    (``deps.remove_damaged_bytecode``).
    Raises what ``import`` raises (``ImportError``). (``__import__``, not
    ``importlib.import_module``: the import statement's own path, which
    ``python -X importtime`` reports.)"""
    was_on = gc.isenabled()
    gc.disable()
    try:
        try:
            __import__(name)
        except Exception as err:
            from optmem import deps
            if not deps.is_bytecode_damage(err) or not deps.remove_damaged_bytecode():
                raise
            __import__(name)  # once more, from the source (``deps.remove_damaged_bytecode``)
        return sys.modules[name]
    finally:
        gc.freeze()
        if was_on:
            gc.enable()

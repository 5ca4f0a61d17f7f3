"""The ``memo`` console entry point (``main``): the command line imported
with the cyclic garbage collector paused (``loading.import_paused``: the
collector's passes over what click and memo's modules make at import
freed nothing and cost a tenth of ``memo wake``).

At its top this module imports only ``sys`` and ``loading`` (``gc``):
``python -m optmem``, the ``memo`` launcher of a checkout and pip's
``memo`` script call ``main`` first, before click is imported.
"""

import sys

from optmem.cli.loading import import_paused


def main() -> None:
    """Run the ``memo`` command (``optmem.cli.app.main``), its module
    imported with collection paused, then frozen (``import_paused``).
    Exits as ``optmem.cli.app.main`` does (``SystemExit`` with the
    command's code)."""
    try:
        app = import_paused("optmem.cli.app")
    except Exception as err:  # the command line itself cannot load: one line, never a traceback
        from optmem import deps
        if not deps.is_bytecode_damage(err):
            raise
        sys.stderr.write(f"memo: {deps.bytecode_line(deps.remove_damaged_bytecode())}\n")
        raise SystemExit(1) from None
    app.main()

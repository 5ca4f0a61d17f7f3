"""``python -m optmem`` runs the ``memo`` command (after ``deps.require``:
a missing package is one line, and nothing has run).

Python looks in the current folder first: a folder there named ``optmem``
that is no package (a checkout's parent folder, say) becomes the
``optmem`` every later import finds, an empty namespace, when memo is
installed in editable mode. This file is the installed package's own, so
the folder above it is put first and that stand-in dropped before
anything else is imported."""
import os
import sys

if getattr(sys.modules.get("optmem"), "__file__", None) is None:  # a namespace stand-in
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for name in [n for n in sys.modules if n == "optmem" or n.startswith("optmem.")]:
        del sys.modules[name]

from optmem.deps import require  # noqa: E402

require()

from optmem.cli.start import main  # noqa: E402

main()

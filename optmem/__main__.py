"""``python -m optmem`` runs the ``memo`` command (after ``deps.require``:
a missing package is one line, and nothing has run)."""
from optmem.deps import require

require()

from optmem.cli.start import main  # noqa: E402

main()

"""``python -m optmem`` runs the ``memo`` command (after ``deps.require``:
a missing package is one line, and nothing has run)."""
from .deps import require

require()

from .cli import main  # noqa: E402

main()

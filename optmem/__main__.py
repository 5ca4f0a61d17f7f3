"""``python -m optmem`` runs the ``memo`` command."""
from .cli import main

main()

"""optmem: a permanent memory for AI agents (a Python OptMem).

Modules: ``blocks`` (pure block math), ``store`` (every byte on disk),
``pager`` (wake parts), ``guard`` (what may be written), ``config``
(knobs), ``cli`` (the ``memo`` command).
"""

__version__ = "0.2.0"

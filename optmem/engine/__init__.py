"""The engine of one store: writes (``core``: note, sleep, forget, redact;
``backlog``: import), wake (``wake``, ``pager``, and ``wake.wake_max_bytes``, the
``wake --max-bytes`` document hooks read), the hand-over (``handover``),
reads (``core``: zoom and stats; ``export``), ``check`` and repair, and the
git replicas (``replicas``)."""

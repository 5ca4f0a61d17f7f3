"""The ``memo`` command line: ``app`` (the click group and its commands,
``main``), ``argv`` (the argv grammar click does not give), ``stdio``
(standard streams and signals) and ``render`` (how an error reads)."""

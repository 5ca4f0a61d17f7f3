"""The ``memo`` command line: ``start`` (the entry point: the rest imported
with the garbage collector paused), ``app`` (the click group, its table of
commands, ``main``), the commands (``wake_cmd``, ``note_cmd``,
``sleep_cmds``, ``recall_cmd``, ``store_cmds``, ``person_cmds``,
``hook_cmds``, ``replica_cmds``), ``base`` (the lazy group, a command's
scope and stores, how a result prints), ``argv`` (the argv grammar click
does not give), ``stdio`` (standard streams and signals) and ``render``
(how an error reads)."""

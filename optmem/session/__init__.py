"""The session layer: what every command does, for both front ends.

The CLI (``optmem.cli``) and the MCP server (``optmem.mcp``) parse their
input, call one function here per command and render the ``Result`` it
returns (the CLI: its lines on stdout, its notes on stderr, its exit code;
the MCP server: one text and ``isError``). This module decides, once for both, which
stores a command touches (global or project, the scope flag, a project
binding git could not be asked about), the receipt's scope line, the
hand-over that follows a write, and how a refusal or a filesystem error
reads. With a project active (``optmem.projects.resolve``) a command reads
both stores as one memory: ``wake`` prints one document in two headed
sections sharing the global store's ``WAKE_LINES`` budget, compressions are
handed over global first, ``recall`` searches both. Without a project the
one store's engine answers exactly as before, so every byte stays the same.
No click, no MCP SDK, no git of its own (``optmem.scope`` asks git).

The modules, each one job: ``stores`` (``Stores``: the ``scope.Selection``
with its stores opened, and ``Result``), ``errors`` (how a failure reads),
``writes`` (note, sleep and the hand-over), ``wake``, ``recall`` and
``store_cmds`` (the other commands). This package names what front ends
call; the layer contract in pyproject.toml orders the modules.
"""

from __future__ import annotations

from optmem.scope import GLOBAL_FLAG  # noqa: F401 - as the session layer named it
from optmem.session.errors import (  # noqa: F401 - the session layer's names
    cwd_gone,
    error_line,
    failure_lines,
    oserror_line,
)
from optmem.session.recall import (  # noqa: F401 - the session layer's names
    recall,
    recall_json,
    recall_json_both,
    recall_sections,
)
from optmem.session.store_cmds import (  # noqa: F401 - the session layer's names
    check,
    check_targets,
    config,
    export,
    forget,
    import_,
    import_store,
    init,
    one_store,
    redact,
    refuse_guess,
    scope,
    stats,
    zoom,
)
from optmem.session.stores import (  # noqa: F401 - the session layer's names
    Result,
    Stores,
    global_flag,
    heading_global,
    heading_project,
)
from optmem.session.wake import (  # noqa: F401 - the session layer's names
    shares,
    wake,
    wake_both,
    wake_max_bytes,
)
from optmem.session.writes import (  # noqa: F401 - the session layer's names
    RETRY_SECONDS,
    follow,
    handover,
    note,
    pay_targets,
    refuse_read_only,
    scope_line,
    sleep,
    sleep_store,
    write_scope,
)

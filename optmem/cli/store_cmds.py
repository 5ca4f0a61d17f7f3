"""The commands over one memory besides the four of every session (wake,
note, sleep, recall): ``zoom``, ``forget``, ``stats``, ``config``,
``check``, ``redact`` and ``scope``. Each is a few lines over the session
layer, so they share a module: running one builds these seven."""

from __future__ import annotations

from optmem.cli.base import show, stores
from optmem.cli.table import command


@command("zoom")
def zoom(block):
    if block is None:  # exit 1, as the later OptMem: a client checks it
        from optmem.errors import BadInput
        from optmem.protocol import Order
        raise BadInput("zoom needs a block id, as wake prints it (memo zoom 0-1, or one "
                       "memory: memo zoom 7).", then=Order("wake"))
    from optmem import session
    show(session.zoom(stores(), block, strict=True))


@command("forget")
def forget(block, dry_run):
    from optmem import session
    from optmem.engine import view
    view.block_arg(block)  # a block refused before the scope is read
    show(session.forget(stores(notice=False), block, dry_run))


@command("config")
def config_(settings, repair):
    from optmem import session
    show(session.config(stores(notice=not (settings or repair)), settings, repair))


@command("stats")
def stats(as_json):
    from optmem import session
    show(session.stats(stores(), as_json))


@command("check")
def check(every, repair):
    from optmem import session
    show(session.check(stores(notice=not repair), every, repair))


@command("redact")
def redact(memory_id, yes):
    from optmem import session
    show(session.redact(stores(notice=False), memory_id, yes))


@command("scope")
def scope_(**_):
    from optmem import session
    show(session.scope(stores(notice=False)))

"""The session layer's other commands: ``zoom``, ``forget`` and ``redact``
(one store, ``one_store``: ids restart at #0 in every store), ``stats``,
``config``, ``check``, ``scope``, ``import``, ``export`` and ``init``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterable

from optmem import blocks, protocol
from optmem.engine import view
from optmem.errors import BadInput, MemoError
from optmem.session.errors import failure_lines
from optmem.session.stores import Result, Stores, lazy_json, lazy_projects
from optmem.session.writes import scope_line, write_scope

if TYPE_CHECKING:  # for the annotations alone (a command opens stores through its front end)
    from optmem.store.memory import Store


def one_store(st: Stores, command: str, arg: str, person: bool = False, rest: tuple = (),
              holds: Callable[[Store], bool] | None = None,
              nowhere: Callable[[], MemoError] | None = None, read: bool = False) -> tuple:
    """``(name, store)``: the one store ``zoom``/``forget``/``redact`` act
    on. ``arg`` is the normalised block name or id. Where the selection
    reads one store, that one. Where it reads several (ids restart at #0
    in every store): ``holds(store)`` (optional) says whether the command
    can succeed in a store; a read (``read``: ``zoom``) that only one store
    can answer is answered there, its caller naming the store; otherwise it
    is refused (``refuse_guess``), naming the forms for the stores where it
    can succeed, and where none can, ``nowhere()`` is raised instead (a
    ``MemoError`` saying so), so no order that fails is printed."""
    read_now = st.read()
    if len(read_now) == 1:
        return read_now[0]
    where = tuple(read_now)
    if holds is not None:
        where = tuple((name, store) for name, store in read_now if holds(store))
        if not where and nowhere is not None:
            raise nowhere()
    if read and len(where) == 1:
        return where[0]
    raise refuse_guess(command, arg, st.sc, person, rest,
                       tuple("global" if store is st.g else None for _, store in where)
                       or ("global", None))


def refuse_guess(command: str, arg: str, scope: Any, person: bool = False,
                 rest: tuple = (), where: tuple = ("global", None)) -> BadInput:
    """The refusal of ``zoom``/``forget``/``redact`` without a flag while a
    project is active: ids restart at #0 in every store, so both runnable
    forms are given, as ``orders`` (one per line, after the one-line
    message). ``arg`` is printed as given: callers pass a normalised block
    name or id, never raw input, so each order runs as printed; ``rest``
    (words, e.g. ``("--yes",)``) ends each order. ``person``: the orders are a
    person's steps (``redact``). ``where``: the memories an order is given
    for (``"global"``, and None for the project), those where it can
    succeed (``one_store``'s ``holds``)."""
    scopes = [scope.project if w is None else w for w in where]
    if len(scopes) == 1:
        which = ("the global memory" if scopes[0] == "global"
                 else f"project {scope.project}'s memory")
        head = (f"ids restart at #0 in the global and the project memory, so memo does not "
                f"guess; {arg} is only in {which}. Name it:")
    else:
        head = (f"ids restart at #0 in the global and the project memory, so memo does "
                f"not guess which one {arg} is in; name the memory with one of:")
    return BadInput(head, orders=protocol.one_of(
        [protocol.Order(command, (arg, *rest), each, person=person, flag_first=True)
         for each in scopes]))


def stats(st: Stores, as_json: bool = False) -> Result:
    """``memo stats``: the figures of each store the selection reads; where
    several are read (a project active, no scope named), the global memory
    then the project's, each under its heading. ``as_json``: one JSON list,
    an object per store (``core.stats``), each naming its ``store``
    (``"global"`` or the project's name) where several are read."""
    from optmem.engine import core
    read = st.read()
    infos = [(name, store, core.stats(store)) for name, store in read]
    if as_json:
        several = len(read) > 1
        return Result([lazy_json().dumps([dict({"store": name} if several else {}, **info)
                                      for name, _, info in infos])])
    if len(read) == 1:
        return Result([core.stats_text(infos[0][2], infos[0][1])])
    lines = []
    for name, store, info in infos:
        lines += [st.heading(name), core.stats_text(info, store)]
    return Result(lines)


def zoom(st: Stores, block: str, strict: bool = False) -> Result:
    """``memo zoom LO-HI`` (or one memory's id): the block's two halves, in
    the store ``one_store`` picks. Where several stores are read and only
    one holds the block, that one answers, under its heading (the section
    heading of ``wake`` and ``recall``), so the reader knows which memory it
    is. ``strict`` (the CLI): a damaged half raises ``Damaged`` as
    ``core.zoom`` does."""
    from optmem.engine import core
    name = view.block_arg(block, allow_memory=True)
    lo = view.parse_block(block, allow_memory=True)[0]

    def nowhere() -> MemoError:
        counts = (st.g.count(), st.written().count())
        return BadInput(f"#{name} is beyond both memories: the global memory holds "
                        f"{counts[0]} and project {st.sc.project}'s {counts[1]} "
                        f"memor{'y' if counts[1] == 1 else 'ies'}; zoom into a line of "
                        f"memo wake.", then=protocol.Order("wake"))
    which, store = one_store(st, "zoom", name, holds=lambda s: lo < s.count(),
                             nowhere=nowhere, read=True)
    lines, notes = core.zoom(store, block, strict=strict)
    return Result([st.heading(which), *lines] if st.sel.several else lines, notes)


def forget(st: Stores, block: str, dry_run: bool = False) -> Result:
    """``memo forget LO-HI``: drop the summary and every one built on it
    (``dry_run``: only say how many would go, naming the command in the
    form that runs where it was asked). A write: refused where git could
    not be asked which project this is (``write_scope``)."""
    from optmem.engine import core
    name = view.block_arg(block)
    write_scope(st.sc, st.explicit, "this forget", protocol.Order("forget", (name,)))
    lo, hi = view.parse_block(block)

    def built(s: Store) -> bool:
        try:
            return lo // (hi - lo) < s.level_len(hi - lo)
        except MemoError:
            return False

    def nowhere() -> MemoError:
        return BadInput(f"there is no summary {name} to forget: it is built in neither the "
                        f"global memory nor project {st.sc.project}'s.")
    which, store = one_store(st, "forget", name, rest=("--dry-run",) if dry_run else (),
                             holds=built, nowhere=nowhere)
    whole = blocks.block_name(lo, hi)
    if dry_run:
        asked = protocol.Order("forget", (whole,), protocol.Order.scoped(st.sel.given()),
                               flag_first=True)
        return Result([protocol.forget_cost(core.forget_count(store, block), whole, asked)])
    gone = core.forget(store, block)
    return Result([protocol.forgot(gone, whole, view.sleep_step(store, store.count())[0])])


def _no_memory(st: Stores, i: int) -> BadInput:
    """The refusal of ``redact #i`` where no store read holds memory ``i``."""
    counts = (st.g.count(), st.written().count())
    return BadInput(f"there is no memory #{i} to redact: the global memory holds {counts[0]} "
                    f"and project {st.sc.project}'s {counts[1]} "
                    f"memor{'y' if counts[1] == 1 else 'ies'}.")


def redact(st: Stores, memory_id: str, yes: bool = False) -> Result:
    """``memo redact ID`` (a person's command): blank memory ``ID`` (``#`` allowed)
    in place for good, in the store ``one_store`` picks; refused
    (``BadInput``) without a scope where git could not be asked which
    project this is (``write_scope``), and without ``yes`` (naming the
    person's step). The answer says what went and, in a git work tree, that
    its history keeps the text; when other files beside the store still hold
    the text, an error result (exit 1) naming them, after those lines."""
    from optmem.engine import core
    i = view.parse_count(memory_id.lstrip("#"), "ID")
    write_scope(st.sc, st.explicit, "this redaction", protocol.Order("redact", (str(i), "--yes")))
    _, store = one_store(st, "redact", str(i), person=True, rest=("--yes",),
                         holds=lambda s: i < s.count(), nowhere=lambda: _no_memory(st, i))
    if not yes:
        step = protocol.Order("redact", (str(i), "--yes"), protocol.Order.scoped(st.sel.given()),
                              person=True, flag_first=True)
        raise BadInput(f"redact blanks memory #{i} for good, so it is a person's step (an "
                       f"agent never runs it), confirmed with --yes. {step.line()}")
    was: list = []
    gone = core.redact(store, i, was)
    from optmem import merging
    from optmem.engine import replicas
    copies = replicas.files_holding(store, was[0]) if was and not merging.is_redacted(was[0]) else []
    lines = [f"Memory #{i} is now [redacted] in {store.log_path}; {gone} "
             f"{'summary' if gone == 1 else 'summaries'} went (those over it, and the "
             f"later ones on their levels). {protocol.run(protocol.Order('sleep'))}"]
    repo = lazy_projects().find_repository(store.root)
    if repo is not None and repo[0] == "repo":
        lines.append(f"The store is in the git work tree {repo[1]}: its commits, a sync hub's "
                     f"history and every clone keep the text until a person rewrites the "
                     f"history of each; memo never rewrites git history. A merge with another "
                     f"replica blanks it there too (the redaction travels in the log).")
    if not copies:
        return Result(lines)
    from optmem.textform import shown
    listed = ", ".join(shown(c) for c in copies[:20]) + (
        f" and {len(copies) - 20} more" if len(copies) > 20 else "")
    return Result(lines, [
        f"memo: the redaction is not complete: {len(copies)} other "
        f"{'file' if len(copies) == 1 else 'files'} in or beside the store still "
        f"{'holds' if len(copies) == 1 else 'hold'} its text: {listed}. memo never edits "
        f"them; a person removes the text from each (or the file, once nothing else in "
        f"it is needed). Copies elsewhere (git history, exports, backups) keep it too"],
        exit_code=1, error=True)


def import_store(st: Stores) -> Store:
    """The store ``memo import`` writes to: the active project's, else the
    global one. Refused (``BadInput``) without a scope where git could not be
    asked which project this is (``write_scope``), before any line is read."""
    write_scope(st.sc, st.explicit, "this import", protocol.Order("import", ("FILE",)))
    return st.written()


def import_(st: Stores, store: Store, path: str, named: str, yes: bool = False,
            before_write: Callable[[int, int], Any] | None = None,
            progress: Callable[[int, int], Any] | None = None,
            kept: Callable[[str], Any] | None = None) -> Result:
    """``memo import``: the lines ``YYYY-MM-DD text`` of the file at ``path``
    into ``store`` (``import_store``'s), all or nothing. ``named`` is what
    the user gave (``-`` for standard input), which a refusal names; above
    ``backlog.IMPORT_ASK_ABOVE`` memories it is refused (``BadInput``)
    without ``yes``. ``before_write(count, created)`` and ``progress`` are
    ``core.import_lines``'s; ``kept(what)`` is told what is saved. The
    answer: ``Imported N memories as #A-B.``, where they went once projects
    exist (``scope_line``), and how many compressions are pending."""
    from optmem.engine import backlog, core
    backlog.check_import_size(path, named, yes, protocol.Order.scoped(st.sel.given()))
    first, count, pending = core.import_lines(store, path, before_write=before_write,
                                              progress=progress)
    if kept is not None:
        kept(f"the import was saved as {f'#{first}' if count == 1 else f'#{first}-{first + count - 1}'}")
    lines = [protocol.imported(count, first)]
    line = scope_line(st.sc, st.explicit, protocol.Order("import", ("FILE",), "global",
                                                         flag_first=True))
    if line:
        lines.append(line)
    if pending:
        lines.append(protocol.pending_after_import(pending))
    return Result(lines)


def config(st: Stores, settings: Iterable[str] = (), repair: bool = False) -> Result:
    """``memo config``: the settings table of the global store, or of the
    project's when ``--project NAME`` named it; with ``settings``
    (``NAME=VALUE`` strings, ``NAME=`` restoring the default) or ``repair``
    the store's config is changed first (a write: refused where git could
    not be asked which project this is, ``write_scope``). A setting without
    ``=`` is refused (``ConfigError``) before any change. The answer is the
    table, then what changed; the store's idle-knob lines go to its
    ``notices`` (standard error, after the lines programs read)."""
    from optmem.engine import core
    if settings or repair:
        write_scope(st.sc, st.explicit, "this setting", protocol.Order("config", ("NAME=VALUE",)))
    store = st._at(st.sc.project_root if (st.explicit and st.sc.project) else st.sc.root)
    from optmem.store.config import KNOBS
    bare = [s for s in settings if "=" not in s]
    if bare:  # refused before any change, exit 1 as the later OptMem's usage line
        from optmem.errors import ConfigError
        raise ConfigError(f"usage: memo config [NAME=VALUE ...], NAME one of "
                          f"{', '.join(KNOBS)} (NAME= restores the default); {bare[0]!r} has "
                          f"no '='. The table shows every value.",
                          then=protocol.Order("config", (), protocol.Order.scoped(st.sel.given()),
                                              flag_first=True))
    said = core.config_set(store, list(settings), repair=repair) if settings or repair else ""
    lines = [core.config_show(store)]  # the table first, as the later OptMem prints it
    if said:
        lines.append(said)
    store.notices.extend(store.config_idle_lines())
    return Result(lines)


def scope(st: Stores) -> Result:
    """``memo scope`` (reads only): the global store (which must exist), the
    active project and how it was found, the projects, the remotes seen,
    the scope's notices, and a person's ``memo init --project NAME`` where
    this repository could have a project and has none."""
    projects = lazy_projects()
    sc = st.sc
    st.g  # noqa: B018 - the global store must exist
    lines = [f"Global memory: {sc.root}"]
    if sc.project:
        lines.append(f"Project: {sc.project} at {sc.project_root} (found by {sc.how})")
    elif sc.problem:
        lines.append(f"Project: unknown ({sc.unresolved_line()})")
    else:
        lines.append(f"Project: none ({sc.how})")
    have = projects.names(sc.root)
    lines.append(f"Projects: {', '.join(have) if have else 'none'}")
    if sc.problem:
        lines.append("Remotes seen: not read (git could not be asked)")
    elif sc.remotes is None:
        lines.append("Remotes seen: not read (git is asked only once a project exists)")
    else:
        lines.append(f"Remotes seen: {', '.join(sc.remotes) if sc.remotes else 'none'}")
    lines += sc.notices
    if not sc.project and sc.remotes is not None and not sc.forced_global and not sc.bare:
        lines.append(protocol.Order("init", ("--project", "NAME"), person=True).line())
    return Result(lines)


def check_targets(st: Stores, every: bool = False) -> list:
    """The stores ``memo check`` verifies, as ``[(heading or None, path)]``:
    the named project's alone with ``--project NAME``; else the global
    store, then with ``every`` every project's, or the active project's;
    each under a heading when there are several."""
    sc = st.sc
    if sc.project and st.explicit:
        return [(None, sc.project_root)]
    targets: list = [(None, sc.root)]
    if every:
        projects = lazy_projects()
        targets += [(f"Project {n} ({p}):", p) for n in projects.names(sc.root)
                    for p in [projects.project_root(sc.root, n)]]
    elif sc.project:
        targets.append((f"Project {sc.project} ({sc.project_root}):", sc.project_root))
    if len(targets) > 1:
        targets[0] = (f"Global memory ({sc.root}):", sc.root)
    return targets


def check(st: Stores, every: bool = False, repair: bool = False) -> Result:
    """``memo check``: every record of each store ``check_targets`` names,
    each problem with its recovery; ``repair`` first restores what a
    record's place in the log implies (a write: refused where git could not
    be asked which project this is, ``write_scope``). Exit 1 with ``N
    problems found.`` when any; else ``The store is whole.``. A store that
    fails to open or read ends the answer there as an error result, after
    the lines of the stores before it."""
    if repair:
        write_scope(st.sc, st.explicit, "this repair", protocol.Order("check", ("--repair",)))
    from optmem.engine.check import check as run_check
    lines, problems = [], []
    try:
        for heading, path in check_targets(st, every):
            if heading:
                lines.append(heading)
            if repair:
                from optmem.engine.check import repair as run_repair
                lines += run_repair(st._at(path))
            found, notes = run_check(st._at(path))
            lines += found
            lines += notes
            problems += found
    except Exception as err:  # noqa: BLE001 - the stores before it are reported
        if not lines:
            raise
        return Result(lines, failure_lines(err), exit_code=1, error=True)
    if problems:
        lines.append(f"{len(problems)} problem{'s' if len(problems) > 1 else ''} found.")
        return Result(lines, exit_code=1, error=True)
    return Result([*lines, "The store is whole."])


def export(st: Stores, file: str | None = None,
           write: Callable[[bytes], Any] | None = None) -> Result:
    """``memo export``: every memory of one store as ``YYYY-MM-DD text``
    lines (the import format), the store ``memo import`` would write to
    (``Selection.writes``: the active project's, else the global one; a
    scope flag names it), so an export imports back where it came from. With ``file`` None or ``-`` they go to
    ``write`` (a function taking bytes) and the answer is empty; else into
    ``file``, a new file (never replaced), and the answer names it and the
    ``memo import`` that reads it into another memory, a person's step
    (``A person can run: ...``; ``--yes`` above ``backlog.IMPORT_ASK_ABOVE``
    memories)."""
    from optmem.engine import export as exporting
    store = st.written()
    if file is None or file == "-":
        exporting.export(store, write)
        return Result()
    from optmem.engine.backlog import IMPORT_ASK_ABOVE
    count = exporting.export_to_file(store, file)
    yes = ("--yes",) if count > IMPORT_ASK_ABOVE else ()
    step = protocol.Order("import", (*yes, protocol.Value(file)), person=True)
    return Result([f"Exported {count} {'memory' if count == 1 else 'memories'} to {file}."
                   + (f" To read them into another memory, with MEMORY_DIR naming it: "
                      f"{step.line()}" if count else "")])


def init(project: str | None = None) -> Result:
    """``memo init``: create the store at ``MEMORY_DIR`` (safe to run again:
    it then changes nothing and says how many memories it holds). With
    ``project`` (a name, or ``""`` for the repository's) a person's project
    store beside the global one, bound to this git repository
    (``projects.init_project``), and the ``memo scope`` that shows it."""
    from optmem.store.paths import memory_dir
    root = memory_dir(creating=True)
    if project is not None:
        _, _, lines = lazy_projects().init_project(root, project)
        return Result([*lines, protocol.run(protocol.Order("scope"))])
    from optmem.store.memory import Store
    store, created = Store.init(root)
    try:
        wake = protocol.run(protocol.Order("wake"))
        if created:
            return Result([f"Created an empty memory at {root}. {wake}"])
        count = store.count()
    finally:
        store.close()
    return Result([f"Found {root}: {count} memor{'y' if count == 1 else 'ies'}. It is "
                   f"already a memory store; nothing was changed. {wake}"])

"""``memo setup``: plan, show and write one harness's wiring.

``run`` returns the lines to print; the CLI only parses and prints. The
store is checked (absolute, no ``$``, an existing store) before any file is
read; every file goes through ``edit.plan`` and ``edit.apply``.
"""

from __future__ import annotations

import os

from optmem import protocol
from optmem.errors import BadInput, MemoError
from optmem.harness import HARNESSES, Context, edit, launcher
from optmem.store import paths


def _short(path: str, home: str) -> str:
    """``path`` with the home folder shown as ``~``."""
    if home and (path == home or path.startswith(home.rstrip(os.sep) + os.sep)):
        return "~" + path[len(home.rstrip(os.sep)):]
    return path


def context(name: str, scope_name: str | None, memory_dir: str | None, project: str | None,
            environ, need_store: bool) -> tuple:
    """``(module, Context)`` for a run. Raises ``BadInput`` for an unknown
    harness or scope, ``NoStore`` for a bad store (when ``need_store``)."""
    module = HARNESSES.get(name)
    if module is None:
        import difflib
        near = difflib.get_close_matches(name, list(HARNESSES), n=1)
        hint = f" (did you mean {near[0]}?)" if near else ""
        raise BadInput(f"no harness named {name!r}{hint}; choose one of: "
                       f"{', '.join(HARNESSES)}.", then=protocol.Order("setup", ("--help",)))
    chosen = scope_name or module.SCOPES[0]
    if chosen not in module.SCOPES:
        raise BadInput(f"memo setup {name} has no --scope {chosen}; it has: "
                       f"{', '.join(module.SCOPES)}")
    store = None
    raw = memory_dir if memory_dir is not None else environ.get("MEMORY_DIR")
    what = "--memory-dir" if memory_dir is not None else "MEMORY_DIR"
    if need_store or raw:
        store = paths.memory_dir(raw, what)
    if need_store:
        from optmem.store.memory import Store
        Store.open(store).close()
    home = environ.get("HOME") or os.path.expanduser("~")
    for var in getattr(module, "HOME_VARS", ()) if chosen == "user" else ():
        _absolute_home(var, environ.get(var), module.TITLE)
    ctx = Context(home=os.path.abspath(home), project=os.path.abspath(project or os.getcwd()),
                  scope=chosen, memory_dir=store, launcher=launcher(), environ=dict(environ))
    if need_store:
        hooks_sync(module, ctx)
    return module, ctx


def hooks_sync(module, ctx, ready=None) -> None:
    """Decide whether ``module``'s hooks sync the store (``ctx.sync``), the
    one rule for ``memo setup`` and ``--status``: a harness with a hook, on
    a store (``ctx.memory_dir``) that is a git work tree with an upstream
    (``sync.ready``). ``ready``: a dict caching ``sync.ready`` per store."""
    if not ctx.memory_dir or not hasattr(module, "hook_output"):
        return
    if ready is None:
        ready = {}
    if ctx.memory_dir not in ready:
        from optmem.engine import sync
        ready[ctx.memory_dir] = sync.ready(ctx.memory_dir)
    ctx.sync = ready[ctx.memory_dir]


def _absolute_home(name: str, raw, title: str) -> None:
    """Refuse a relative harness home variable (``CLAUDE_CONFIG_DIR``...):
    the harness resolves it against its own working folder, setup against
    its own, so install and uninstall would each find other files. Unset
    or empty is fine (the harness's default). Raises ``BadInput``."""
    if not raw or os.path.isabs(raw):
        return
    guess = os.path.expandvars(os.path.expanduser(raw))
    example = (os.path.normpath(os.path.abspath(guess)) if "$" not in guess and "`" not in guess
               and not guess.startswith("~") else os.path.join(os.path.expanduser("~"), "config"))
    raise BadInput(f"{name} {raw!r} is a relative path, so each folder {title} or memo "
                   f"runs in would name a different {title} folder; set it to an absolute "
                   f"path, e.g. {name}={example}")


def _key(module, ctx) -> str:
    return f"{module.NAME}:{ctx.scope}:{ctx.project if ctx.scope == 'project' else ctx.home}"


def run(name: str, scope_name: str | None = None, memory_dir: str | None = None,
        project: str | None = None, dry_run: bool = False, uninstall: bool = False,
        environ=None) -> list:
    """Install (or with ``uninstall`` remove) one harness's wiring; return
    the report lines. ``dry_run`` writes nothing and adds a diff per file.
    Raises ``MemoError`` (nothing written) for a refused target or store."""
    environ = os.environ if environ is None else environ
    module, ctx = context(name, scope_name, memory_dir, project, environ,
                          need_store=not uninstall)
    key = _key(module, ctx)
    root = ctx.project if ctx.scope == "project" else None
    steps = edit.plan(module.edits(ctx), key, uninstall, environ, root)
    verb = "memo setup --uninstall" if uninstall else "memo setup"
    out = [f"{verb} {module.NAME} --scope {ctx.scope}"
           + (f": memory {ctx.memory_dir}" if ctx.memory_dir and not uninstall else "")]
    for step in steps:
        where = _short(step.target.path, ctx.home)
        if step.target.real != os.path.abspath(step.target.path):
            where += f" (a link to {_short(step.target.real, ctx.home)})"
        if step.note:
            out.append(f"  unchanged {where}: {step.note}")
        elif not step.changed:
            held = 'nothing of memo in it' if uninstall else step.edit.what + ' already there'
            out.append(f"  unchanged {where}: {held}")
        elif uninstall:
            out.append(f"  {'removed' if step.new is None else 'restored'} {where}"
                       + ("" if step.new is None else f": took out the {step.edit.what}"))
        else:
            out.append(f"  {'created' if step.target.data is None else 'changed'} {where}: "
                       f"{step.edit.what}")
        for alias in step.aliases:
            out.append(f"  {_short(alias, ctx.home)} is the same file as {where}: written once")
        if dry_run and step.changed:
            out.append(step.diff().rstrip("\n"))
    changed = any(s.changed for s in steps)
    if dry_run:
        out.append("Dry run: nothing was written.")
        return out
    edit.apply(steps, key, uninstall, environ, root)  # unchanged files: only recorded
    if any(s.changed and s.target.data is not None for s in steps):
        backups = os.path.join(os.path.dirname(edit.manifest_path(environ)), "backups")
        out.append(f"Backups of the files as they were: {_short(backups, ctx.home)}")
    if not changed:
        out.append("Nothing to change." if not uninstall else "Nothing of memo was installed there.")
    if not uninstall:
        if ctx.sync:
            out.append(f"The store is a git work tree with an upstream: the hooks run memo sync "
                       f"(fast-forwards only, at most {_limit()} s; a merge is left to a "
                       f"person, and the wake says so).")
        out += [f"A person's next step: {line}" for line in module.next_steps(ctx)]
        if ctx.scope == "user":
            out += [f"A person's next step: {line}" for line in _shared_files(steps, ctx.home)]
        out.append("To undo it: " + protocol.person_can_run(
            f"memo setup {module.NAME} --scope {ctx.scope} --uninstall"))
    return out


def _limit() -> str:
    from optmem.engine import sync
    return f"{sync.HOOK_TIME_LIMIT:g}"


def _shared_files(steps: list, home: str) -> list:
    """A line for each file holding this machine's paths (a local edit) that
    lies, links followed, in a git work tree that does not ignore it: a
    dotfiles repository would commit and share it."""
    lines = []
    for step in steps:
        if not step.edit.local:
            continue
        top = edit.committable(step.target.real)
        if top:
            lines.append(f"{_short(step.target.path, home)} holds this machine's paths and lies "
                         f"in the git work tree {_short(top, home)}, which does not ignore it: "
                         f"add it to .gitignore (or .git/info/exclude) there before the next "
                         f"commit.")
    return lines


def status(environ=None, project: str | None = None) -> tuple:
    """``(lines, ok)``: for every harness and scope, what is installed in
    which file (``current``, ``stale``, ``legacy`` hand-pasted block,
    ``absent``), and whether any file cannot be read."""
    environ = os.environ if environ is None else environ
    lines, ok = [], True
    ready: dict = {}  # sync.ready per store: asked once
    for name, module in HARNESSES.items():
        for scope_name in module.SCOPES:
            try:
                _, ctx = context(name, scope_name, None, project, dict(environ, MEMORY_DIR=""),
                                 need_store=False)
            except MemoError as err:
                lines.append(f"{name} --scope {scope_name}: {err}")
                ok = False
                continue
            ctx.memory_dir = None
            try:
                ctx.memory_dir = paths.memory_dir(environ.get("MEMORY_DIR"))
            except MemoError:
                pass
            hooks_sync(module, ctx, ready)  # the hook setup writes there: with --sync
            parts = []
            for e in module.edits(ctx):
                if scope_name == "project" and os.path.islink(e.path):
                    parts.append(f"{_short(e.path, ctx.home)} a link (setup writes through "
                                 f"none in a project)")
                    continue
                try:
                    target = edit.read_target(e.path)
                    state = e.state(target.data)
                except edit.Refused as err:
                    state, ok = f"cannot read ({err})", False
                if state == "unreadable":
                    ok = False
                parts.append(f"{_short(e.path, ctx.home)} {state}")
            lines.append(f"{name} --scope {scope_name}: " + "; ".join(parts))
    for path in _env_files(environ, project):
        try:
            obj, _ = edit.json_load(edit.read_target(path).data, path)
        except edit.Refused:
            continue
        value = (obj.get("env") or {}).get("MEMORY_DIR") if isinstance(obj.get("env"), dict) else None
        if value is None:
            continue
        try:
            paths.memory_dir(value)
        except MemoError as err:
            ok = False
            lines.append(f"{path}: env MEMORY_DIR {value!r} is refused: {err}")
    return lines, ok


def _env_files(environ, project) -> list:
    """The Claude Code settings files whose ``env`` reaches the agent."""
    home = environ.get("HOME") or os.path.expanduser("~")
    cfg = environ.get("CLAUDE_CONFIG_DIR") or ""
    if not os.path.isabs(cfg):  # unset (or relative: status names that one)
        cfg = os.path.join(home, ".claude")
    root = os.path.abspath(project or os.getcwd())
    return [os.path.join(cfg, "settings.json"),
            os.path.join(root, ".claude", "settings.json"),
            os.path.join(root, ".claude", "settings.local.json")]

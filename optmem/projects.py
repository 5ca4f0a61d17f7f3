"""Project scopes: a store per repository beside the global one (issue #17).

``$MEMORY_DIR`` is the identity and its global store. A person may add
project stores under ``$MEMORY_DIR/projects/<name>/``; each is an ordinary
store (the reference OptMem reads it with ``MEMORY_DIR`` pointed at it).
This module decides which project, if any, a command works in; it is called
through ``optmem.scope.resolve`` and never creates anything while resolving.

Which project is active, first match wins:

1. ``--project NAME`` / ``--global`` on the command line, then
   ``MEMO_PROJECT=NAME`` (empty or ``none``: no project);
2. ``git config optmem.project`` in the working directory's repository
   (``memo init --project`` writes it to the common git dir, so every linked
   worktree shares it; ``git config --worktree`` may override it);
3. exactly one project whose recorded remotes (``REMOTES`` in its folder)
   match one of this repository's remotes; several: refused, naming them;
4. otherwise none.

Git is asked only when ``$MEMORY_DIR/projects/`` exists, and then once
(``git config --get-regexp``, with the global and system git configs left
out so a setting outside the repository never picks a project). A project
is never chosen from a file committed in the repository.

Names are slugs (``^[a-z0-9][a-z0-9._-]{0,62}$``, not ending in ``.``, not a
Windows device name, not ``none``), never built from a path or a URL.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, field

from .errors import BadInput, NoStore

#: The folder under ``MEMORY_DIR`` that holds the project stores.
PROJECTS = "projects"
#: The file in a project folder listing the normalised remotes it belongs to
#: (one per line; the reference OptMem ignores it).
REMOTES = "REMOTES"
#: The git setting that binds a repository to a project.
GIT_KEY = "optmem.project"
#: How a person's step is printed (the same words as ``optmem.scope.PERSON``).
PERSON = "A person can run:"

_SLUG = re.compile(r"[a-z0-9][a-z0-9._-]{0,62}")
_DEVICES = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)),
            *(f"lpt{i}" for i in range(10)), "conin$", "conout$"}
#: Bytes of git output read at most (a hostile config cannot flood memo).
GIT_OUTPUT_LIMIT = 1 << 16
#: Seconds a git call may take before memo gives up on it (no project found).
GIT_TIMEOUT = 5.0


def slug_problem(name: str) -> str | None:
    """Why ``name`` is not a valid project name, or None when it is.

    The rule (issue #17 "Layout"): 1-63 characters of ``[a-z0-9._-]``,
    starting with a letter or digit, not ending in ``.``, not ``none``, and
    not a Windows device name (``con``, ``com1``, ``nul.txt``: the part
    before the first dot is what Windows checks).
    """
    if not isinstance(name, str) or not _SLUG.fullmatch(name):
        return ("a project name is 1-63 characters of a-z, 0-9, '.', '_' and '-', "
                "starting with a letter or digit")
    if name.endswith("."):
        return "a project name cannot end in '.'"
    if name == "none":
        return "'none' means no project and cannot be a project's name"
    if name.split(".", 1)[0] in _DEVICES:
        return f"{name.split('.', 1)[0]!r} is a Windows device name"
    return None


def check_name(name: str, where: str = "the project name") -> str:
    """``name`` when it is a valid slug; raises ``BadInput`` naming the rule."""
    why = slug_problem(name)
    if why:
        shown = name if isinstance(name, str) else repr(name)
        shown = shown.encode("unicode_escape").decode("ascii")[:80]
        raise BadInput(f"{where} {shown!r} is refused: {why}")
    return name


def projects_dir(root: str) -> str:
    """``$MEMORY_DIR/projects`` for the global store at ``root``."""
    return os.path.join(root, PROJECTS)


def names(root: str) -> list:
    """The projects that exist under ``root`` (valid names whose folder is a
    real directory holding a store), sorted; ``[]`` when there is no
    ``projects/`` folder or it is a symlink."""
    top = projects_dir(root)
    if os.path.islink(top) or not os.path.isdir(top):
        return []
    out = []
    for entry in sorted(os.listdir(top)):
        path = os.path.join(top, entry)
        if slug_problem(entry) is None and os.path.isdir(path) and not os.path.islink(path) \
                and os.path.isfile(os.path.join(path, "LOG.txt")):
            out.append(entry)
    return out


def project_root(root: str, name: str) -> str:
    """The folder of project ``name``: ``$MEMORY_DIR/projects/<name>``.

    Raises ``BadInput`` for an invalid name and ``NoStore`` when
    ``projects/`` or the project folder is a symlink or the joined path does
    not resolve inside ``projects/``. Whether the store exists is not
    checked here.
    """
    check_name(name)
    top = projects_dir(root)
    path = os.path.join(top, name)
    for p in (top, path):
        if os.path.islink(p):
            raise NoStore(f"{p} is a symbolic link; memo refuses a linked projects folder "
                          f"or project (it could point at another store); replace it with "
                          f"a real folder")
    real_top = os.path.realpath(top)
    if os.path.dirname(os.path.realpath(path)) != real_top:
        raise NoStore(f"{path} does not resolve inside {top}; memo refuses it")
    return path


def missing(root: str, name: str, how: str) -> NoStore:
    """The error for a named project whose store does not exist (never
    created by resolution): it names the existing projects."""
    import shlex
    have = names(root)
    listing = ", ".join(have) if have else "none yet"
    why = slug_problem(name)
    if why:  # no store can have this name: no step that would be refused
        return NoStore(f"there is no project {name!r} ({how}), and there can be none: {why}. "
                       f"The projects are: {listing}")
    return NoStore(f"there is no project {name!r} ({how}); the projects are: {listing}. "
                   f"Check the name; if it is a new project, a person creates it. {PERSON} "
                   f"memo init --project {shlex.quote(name)}")


# -- remotes ---------------------------------------------------------------

_SCP = re.compile(r"(?:[^@/\s]+@)?([A-Za-z0-9.-]+):(?!//)(.+)")
_URL = re.compile(r"([a-z][a-z0-9+.-]*)://(?:[^@/]*@)?(\[[^\]]*\]|[^/:?#]*)(?::\d*)?(/[^?#]*)?",
                  re.I)


def normalise_remote(url: str) -> str | None:
    """A remote URL as ``host/path`` (host lower-cased; user, password, port,
    ``.git`` and trailing slashes dropped), or None for a local path, a
    ``file://`` URL or anything that does not name a host and a path.

    ``git@github.com:o/r.git``, ``ssh://git@github.com:22/o/r`` and
    ``https://u:p@GitHub.com/O/R/`` all give ``github.com/o/r`` (lower case:
    the big hosts ignore case in paths, and a match only ever matches); a GitLab
    subgroup keeps every part (``gitlab.com/g/sub/r``), so GitHub and GitLab
    repositories with the same ``owner/repo`` stay distinct. A path with
    ``.`` or ``..`` parts, a backslash or a control character is refused
    (None): a remote only ever matches, it never names a folder.
    """
    url = (url or "").strip()
    if not url or any(ord(c) < 32 or c == "\\" for c in url):
        return None
    m = _URL.fullmatch(url)
    if m:
        scheme, host, path = m.group(1).lower(), m.group(2), m.group(3) or ""
        if scheme == "file" or not host:
            return None
    else:
        m = _SCP.fullmatch(url)
        if not m or url.startswith(("/", ".")):
            return None
        host, path = m.group(1), m.group(2)
        if len(host) == 1:  # C:\x or C:/x: a Windows path, not a host
            return None
    host = host.lower().rstrip(".")
    parts = [p for p in path.split("/") if p]
    if parts and parts[-1].lower().endswith(".git"):
        parts[-1] = parts[-1][:-4]
    parts = [p for p in parts if p]
    if not host or not parts or any(p in (".", "..") for p in parts):
        return None
    return "/".join([host, *parts]).lower()


def default_name(remotes: list, toplevel: str | None) -> str | None:
    """The name ``memo init --project`` proposes: the last path part of the
    first remote (``origin`` first), else the checkout folder's name, made a
    slug (lower case; other characters become ``-``); None when that is not
    a valid name."""
    words = [r.rsplit("/", 1)[-1] for r in remotes]
    if toplevel:
        words.append(os.path.basename(os.path.normpath(toplevel)))
    for word in words[:1] or [None]:
        if not word:
            return None
        name = re.sub(r"[^a-z0-9._-]+", "-", word.lower()).strip("-._")
        return name if slug_problem(name) is None else None
    return None


def recorded_remotes(path: str) -> list:
    """The remotes recorded in the project folder ``path`` (``REMOTES``)."""
    try:
        with open(os.path.join(path, REMOTES), encoding="utf-8") as f:
            return [line.strip() for line in f if line.strip()]
    except (OSError, UnicodeDecodeError):
        return []


# -- git -------------------------------------------------------------------

def _git(cwd: str, *args: str) -> tuple:
    """Run one short git command in ``cwd``; return ``(status, stdout)``.

    The global and system git configs are left out (``GIT_CONFIG_GLOBAL``,
    ``GIT_CONFIG_NOSYSTEM``), so only the repository decides; no prompt is
    ever shown. A missing git, a timeout or an unreadable folder is status
    ``-1``.
    """
    env = dict(os.environ)
    env.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1",
               GIT_TERMINAL_PROMPT="0", LC_ALL="C")
    for key in ("GIT_DIR", "GIT_WORK_TREE", "GIT_CONFIG", "GIT_CONFIG_PARAMETERS",
                "GIT_CONFIG_COUNT"):
        env.pop(key, None)
    try:
        done = subprocess.run(["git", "-C", cwd, *args], stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
                              timeout=GIT_TIMEOUT)
    except (OSError, subprocess.SubprocessError, ValueError):
        return -1, ""
    return done.returncode, done.stdout[:GIT_OUTPUT_LIMIT].decode("utf-8", "replace")


@dataclass
class RepoFacts:
    """What one ``git config`` call tells about the repository at ``cwd``:
    the bound project (``optmem.project``, or None) and the remotes
    (``{remote name: raw url}``, in config order)."""

    bound: str | None = None
    remotes: dict = field(default_factory=dict)

    def normalised(self) -> list:
        """The remotes as ``normalise_remote`` gives them, ``origin`` first,
        without duplicates or the ones that name no host."""
        order = sorted(self.remotes, key=lambda n: (n != "origin",))
        out = []
        for name in order:
            n = normalise_remote(self.remotes[name])
            if n and n not in out:
                out.append(n)
        return out


def repo_facts(cwd: str) -> RepoFacts:
    """The binding and remotes of the repository ``cwd`` is in (one git call;
    outside git, or without git: empty facts)."""
    status, out = _git(cwd, "config", "--null", "--get-regexp",
                       r"^(optmem\.project|remote\..*\.url)$")
    facts = RepoFacts()
    if status != 0:
        return facts
    for item in out.split("\0"):
        key, _, value = item.partition("\n")
        key = key.strip()
        if key.lower() == GIT_KEY:
            facts.bound = value.strip()  # the last one wins, as in git
        elif key.lower().startswith("remote.") and key.lower().endswith(".url"):
            facts.remotes.setdefault(key[len("remote."):-len(".url")], value.strip())
    return facts


def repo_place(cwd: str):
    """``(toplevel, common git dir)`` of the repository at ``cwd`` (absolute
    paths), or None outside git (one git call)."""
    status, out = _git(cwd, "rev-parse", "--path-format=absolute", "--show-toplevel",
                       "--git-common-dir")
    lines = out.splitlines()
    if status != 0 or len(lines) < 2:
        return None
    return lines[0], lines[1]


# -- resolution ------------------------------------------------------------

@dataclass
class Scope:
    """Which stores a command uses.

    ``root`` is the global store; ``project`` the active project's name or
    None; ``project_root`` its folder; ``how`` says how it was found
    (``--project``, ``MEMO_PROJECT``, ``git config optmem.project``,
    ``remote``, or why there is none); ``remotes`` the repository's
    normalised remotes (None when git was not asked); ``forced_global`` is
    True for ``--global`` (or ``MEMO_PROJECT=none``) while a project exists.
    """

    root: str
    project: str | None = None
    project_root: str | None = None
    how: str = "no project exists"
    remotes: list | None = None
    forced_global: bool = False
    bound: str | None = None

    @property
    def flag(self) -> str:
        """The scope flag an order carries for the project store
        (``--project NAME``), empty without a project."""
        return f"--project {self.project}" if self.project else ""


def _named(root: str, name: str, how: str) -> Scope:
    check_name(name, f"the project name from {how}")
    path = project_root(root, name)
    if not os.path.isfile(os.path.join(path, "LOG.txt")):
        raise missing(root, name, how)
    return Scope(root, name, path, how)


def resolve(root: str, flag=None, environ=None, cwd: str | None = None) -> Scope:
    """The scope of one command run in ``cwd`` with the global store ``root``.

    ``flag`` is the command line's choice: None (not given), ``""`` or
    ``"none"`` (``--global``) or a project name (``--project NAME``).
    ``environ`` defaults to ``os.environ`` (``MEMO_PROJECT``); ``cwd`` to
    the working directory (the hook passes the harness's). Raises
    ``BadInput`` for an invalid name, ``NoStore`` for a named project that
    does not exist (naming those that do) or for several projects matching
    this repository's remotes. Creates nothing; asks git at most once, and
    not at all while ``projects/`` does not exist.
    """
    environ = os.environ if environ is None else environ
    has_projects = os.path.isdir(projects_dir(root))
    if flag is not None:
        if flag in ("", "none"):
            return Scope(root, how="--global", forced_global=has_projects)
        if not has_projects:
            raise missing(root, flag, "--project")
        return _named(root, flag, "--project")
    env = environ.get("MEMO_PROJECT")
    if env is not None:
        env = env.strip()
        if env in ("", "none"):
            return Scope(root, how="MEMO_PROJECT is empty" if not env else "MEMO_PROJECT=none",
                         forced_global=has_projects)
        if not has_projects:
            raise missing(root, env, "MEMO_PROJECT")
        return _named(root, env, "MEMO_PROJECT")
    if not has_projects:
        return Scope(root)
    if os.path.islink(projects_dir(root)):
        project_root(root, "x")  # raises: a linked projects folder
    facts = repo_facts(cwd or os.getcwd())
    remotes = facts.normalised()
    if facts.bound:
        if facts.bound in ("", "none"):
            return Scope(root, how="git config optmem.project is none", remotes=remotes,
                         forced_global=True, bound=facts.bound)
        scope = _named(root, facts.bound, "git config optmem.project")
        scope.remotes, scope.bound = remotes, facts.bound
        return scope
    if remotes:
        hits = [n for n in names(root)
                if set(recorded_remotes(os.path.join(projects_dir(root), n))) & set(remotes)]
        if len(hits) > 1:
            raise NoStore(f"this repository's remotes match the projects {', '.join(hits)}; "
                          f"memo does not guess: choose one with --project NAME, or "
                          f"{PERSON} git config optmem.project NAME")
        if hits:
            return Scope(root, hits[0], project_root(root, hits[0]), "remote", remotes)
    return Scope(root, how="no project is bound to this folder", remotes=remotes)


# -- creation (a person's step) --------------------------------------------

def init_project(root: str, name: str | None, cwd: str | None = None) -> tuple:
    """``memo init --project [NAME]``: create or adopt a project store and
    bind the repository at ``cwd`` to it. Returns ``(name, path, lines)``,
    ``lines`` being what was done, one line each.

    Only when the global store exists (``NoStore`` otherwise). ``name``
    None: the default from the repository (``default_name``), refused
    (``BadInput``, asking for a name) when it is empty, invalid, or taken by
    a project of another repository (one whose recorded remotes share none
    of this repository's). Inside git: ``git config --local optmem.project
    NAME`` (the common git dir, so every linked worktree shares it) and the
    normalised remotes appended to ``REMOTES``. A second run changes no
    byte.
    """
    from .store import Store
    if not os.path.isfile(os.path.join(root, "LOG.txt")):
        raise NoStore(f"there is no global store at {root} yet, and a project lives inside "
                      f"it: a person creates the global store first, then the project. {PERSON} "
                      f"memo init && memo init --project")
    cwd = cwd or os.getcwd()
    place = repo_place(cwd)
    facts = repo_facts(cwd) if place else RepoFacts()
    remotes = facts.normalised()
    explicit = name is not None and name != ""
    if not explicit:
        if place is None:
            raise BadInput(f"this folder is not in a git repository, so there is no name to "
                           f"take from it; a person names the project. {PERSON} memo init --project NAME")
        toplevel, common = place
        checkout = os.path.dirname(common) if os.path.basename(common) == ".git" else toplevel
        name = facts.bound or default_name(remotes, checkout)
        if not name:
            raise BadInput(f"no valid project name comes from this repository; a person "
                           f"names it. {PERSON} memo init --project NAME")
    check_name(name)
    top = projects_dir(root)
    path = project_root(root, name)
    lines = []
    if os.path.isfile(os.path.join(path, "LOG.txt")):
        theirs = set(recorded_remotes(path))
        if not explicit and theirs and not theirs & set(remotes):
            raise BadInput(f"the project {name!r} belongs to another repository "
                           f"({sorted(theirs)[0]}); a person names this one. {PERSON} memo "
                           f"init --project NAME")
        lines.append(f"The project {name} exists at {path}; it was adopted, not recreated.")
    else:
        if not os.path.isdir(top):
            os.makedirs(top, mode=0o700, exist_ok=True)
            project_root(root, name)  # re-check: nothing linked appeared
        Store.init(path)
        lines.append(f"Created the project {name} at {path}.")
    if remotes:
        have = recorded_remotes(path)
        new = [r for r in remotes if r not in have]
        if new:
            _append_remotes(path, new)
            lines.append(f"Recorded its remotes: {', '.join(new)}.")
    if place is not None:
        if facts.bound != name:
            status, _ = _git(cwd, "config", "--local", GIT_KEY, name)
            if status != 0:
                raise BadInput(f"git config --local {GIT_KEY} {name} failed in {cwd}; "
                               f"{PERSON} git config {GIT_KEY} {name}")
            lines.append(f"Bound this repository to it (git config {GIT_KEY} {name}), "
                         f"so every worktree of it uses the project.")
        else:
            lines.append(f"This repository is already bound to it (git config {GIT_KEY}).")
    return name, path, lines


def _append_remotes(path: str, new: list) -> None:
    """Add lines to ``REMOTES`` (created 0600), each whole."""
    fd = os.open(os.path.join(path, REMOTES), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, "".join(r + "\n" for r in new).encode("utf-8"))
    finally:
        os.close(fd)


# -- hand-over records -----------------------------------------------------

#: The file in a project folder that says which store handed each block over
#: (``LO-HI global`` or ``LO-HI project``, one a line; the reference OptMem
#: ignores it). Written under the project store's lock.
HANDOVER = "HANDOVER"
#: Most records kept (the oldest go first): far more than blocks in flight.
HANDOVER_KEEP = 64


def recorded_handover(path: str, name: str) -> str | None:
    """``"global"``, ``"project"`` or None: the store that last handed block
    ``name`` (``LO-HI``) over, per the project folder ``path``."""
    try:
        with open(os.path.join(path, HANDOVER), encoding="utf-8") as f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    for line in reversed(lines):
        block, _, which = line.partition(" ")
        if block == name and which in ("global", "project"):
            return which
    return None


def record_handover(path: str, name: str, which: str | None) -> None:
    """Say that ``which`` store handed block ``name`` over (None: forget the
    record). The caller holds the project store's lock; the file is replaced
    whole (written beside it, then renamed), so a reader never sees half."""
    target = os.path.join(path, HANDOVER)
    try:
        with open(target, encoding="utf-8") as f:
            lines = [ln for ln in f.read().splitlines() if ln.partition(" ")[0] != name]
    except (OSError, UnicodeDecodeError):
        lines = []
    if which is None and len(lines) == 0 and not os.path.exists(target):
        return
    if which is not None:
        lines.append(f"{name} {which}")
    lines = lines[-HANDOVER_KEEP:]
    tmp = target + ".tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, "".join(ln + "\n" for ln in lines).encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, target)

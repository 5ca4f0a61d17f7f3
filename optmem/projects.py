"""Project scopes: a store per repository beside the global one (docs/scopes.md).

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

Only the repository's own git config file (``$GIT_DIR/config`` or its
worktree config) names a project, by ``optmem.project`` or by a remote URL
matched where git would fetch it from (``parse_remote``); a project is never
chosen from a file committed in the repository. A folder git would take as a
bare repository during discovery (a committed ``docs/`` holding ``HEAD``,
``objects/``, ``refs/`` and a ``config``) never binds: memo looks for the
``.git`` itself (``find_repository``) and runs git with
``safe.bareRepository=explicit``. From the person's global and system git
config memo carries over ``safe.directory`` alone; the rest is left out.

Git is asked only when ``$MEMORY_DIR/projects/`` exists and a ``.git`` is
found walking up from the folder. Where git cannot be asked then (not on
``PATH``, or no answer within ``GIT_TIMEOUT`` seconds, ``MEMO_GIT_TIMEOUT``
to change it), the project is unknown: the CLI says so in one line, reads
the global memory, and refuses a write that names no scope.

Names are slugs (``^[a-z0-9][a-z0-9._-]{0,62}$``, not ending in ``.``, not a
Windows device name, not ``none``), never built from a path or a URL.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from optmem import atomic, gitcall
from optmem.errors import BadInput, NoStore

#: The folder under ``MEMORY_DIR`` that holds the project stores.
PROJECTS = "projects"
#: The file in a project folder listing the normalised remotes it belongs to
#: (one per line; the reference OptMem ignores it).
REMOTES = "REMOTES"
#: The git setting that binds a repository to a project.
GIT_KEY = "optmem.project"
#: How a person's step is printed (the same words as ``optmem.store.paths.PERSON``).
PERSON = "A person can run:"

_SLUG = re.compile(r"[a-z0-9][a-z0-9._-]{0,62}")
_DEVICES = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)),
            *(f"lpt{i}" for i in range(10)), "conin$", "conout$"}
#: Bytes of git output read at most (a hostile config cannot flood memo).
GIT_OUTPUT_LIMIT = 1 << 16
#: Seconds a git call may take before memo gives up on it (``MEMO_GIT_TIMEOUT``
#: overrides it): then the project is unknown, and a write without a scope
#: flag is refused rather than sent to the global memory.
GIT_TIMEOUT = 5.0


def slug_problem(name: str) -> str | None:
    """Why ``name`` is not a valid project name, or None when it is.

    The rule (docs/scopes.md): 1-63 characters of ``[a-z0-9._-]``,
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
    folder = os.path.join(projects_dir(root), name)
    if not why and os.path.isdir(folder) and not os.path.islink(folder):
        from optmem.store.memory import Store, log_lost
        lost = log_lost(Store(folder))
        if lost:  # the project is there, its log is not: never "create it"
            return NoStore(f"project {name!r} ({how}): {lost}")
    if why:  # no store can have this name: no step that would be refused
        return NoStore(f"there is no project {name!r} ({how}), and there can be none: {why}. "
                       f"The projects are: {listing}")
    return NoStore(f"there is no project {name!r} ({how}); the projects are: {listing}. "
                   f"Check the name; if it is a new project, a person creates it. {PERSON} "
                   f"memo init --project {shlex.quote(name)}")


# -- remotes ---------------------------------------------------------------

#: A host name as memo accepts it in a remote: DNS labels of ASCII letters,
#: digits and ``-`` (not at either end of a label), an optional final dot.
_HOST = re.compile(r"[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*\.?",
                   re.I)
#: An IPv6 literal in brackets (``[::1]``), as URLs write one.
_IPV6 = re.compile(r"\[[0-9a-f:.]+\]", re.I)
#: The user before ``@`` in an ``ssh://`` or scp-form remote.
_SSH_USER = re.compile(r"[A-Za-z0-9._~+-]+")
#: ``<helper>::<address>``: git hands the address to ``git-remote-<helper>``.
_HELPER = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*::")
#: ``<scheme>://``, as git's ``is_url`` reads it.
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://")
#: Schemes git fetches through libcurl (``git-remote-http``).
_CURL = ("http", "https")
#: Schemes git fetches over ssh itself.
_SSH = ("ssh", "git+ssh", "ssh+git")
#: Why a remote is not matched although it names a host.
AMBIGUOUS = "memo cannot tell from its URL which host git fetches it from"


def _host_port(authority: str) -> str | None:
    """The host of ``host``, ``host:PORT`` or ``[v6]:PORT`` (lower case, no
    final dot), or None when ``authority`` is anything else."""
    host, colon, port = authority.rpartition(":") if not authority.endswith("]") \
        else (authority, "", "")
    if not colon:
        host = authority
    elif port and not port.isdigit():
        return None
    if _IPV6.fullmatch(host):
        return host.lower()
    if not _HOST.fullmatch(host):
        return None
    return host.lower().rstrip(".")


def parse_remote(url: str) -> tuple:
    """Where git would fetch the remote ``url`` from: ``(host, path, why)``.

    ``host`` is the host git contacts, lower case (None for a local path, a
    ``file://`` URL, or a form memo refuses); ``path`` the repository path
    on it (``/``-separated, as written); ``why`` is None, or ``AMBIGUOUS``
    when ``url`` names a host in a form whose host memo does not read the
    way git does (so it is never matched, and ``memo scope`` says so).

    The forms read, each as git reads it:

    * ``https://[user[:password]@]host[:port]/path`` and ``http://``: the
      host is what libcurl contacts, after the one ``@`` of the authority,
      which ends at the first ``/``; an authority ending at ``?`` or ``#``,
      a second ``@``, ``%``, or a ``?``/``#`` anywhere is refused;
    * ``ssh://[user@]host[:port]/path`` (and ``git+ssh://``,
      ``ssh+git://``): git percent-decodes the URL and gives ssh
      ``user@host``, so a ``%``, a second ``@`` or a user with other
      characters than ``[A-Za-z0-9._~+-]`` is refused;
    * ``git://host[:port]/path``: no user (git would look up ``user@host``
      as a name, which no resolver finds);
    * scp form ``[user@]host:path`` (no ``://``, and no ``/`` before the
      first ``:``; else git reads a local path): the host is what comes
      before the first ``:``. A path holding another ``@`` or ``:``
      (``evil.example:x@github.com:o/r``, which git fetches from
      ``evil.example``) is refused, as are brackets (``[host:22]:path``);
    * ``<helper>::<address>`` and any other scheme (``HTTPS://`` too: git
      compares schemes case-sensitively) go to a remote helper, whose host
      memo cannot know: refused.

    Control characters, spaces, backslashes and a host that is not plain
    ASCII DNS labels (or a bracketed IPv6 literal) are refused too, and any
    non-ASCII character in a remote that names a host, before case folding
    (the Kelvin sign K lower-cases to ``k``, the long s to ``s``).
    """
    url = (url or "").strip()
    if _HELPER.match(url):  # before anything else: ext::sh -c ... holds spaces
        return None, "", AMBIGUOUS
    if not url or any(ord(c) <= 32 or c in "\\\x7f" for c in url):
        return None, "", None
    m = _SCHEME.match(url)
    if m:
        scheme, rest = m.group(1), url[m.end():]
        if scheme.lower() == "file":
            return None, "", None
        if not rest.isascii():  # case folding would make K (U+212A) a k, and long s an s
            return None, "", AMBIGUOUS
        if scheme not in _CURL + _SSH + ("git",):  # git matches schemes case-sensitively
            return None, "", AMBIGUOUS
        cut = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
        authority, path = rest[:cut], rest[cut:]
        if "?" in rest or "#" in rest or "%" in authority or authority.count("@") > 1:
            return None, "", AMBIGUOUS
        if not authority or not path.strip("/"):
            return None, "", None  # no host, or no repository path on it
        user, at, hostport = authority.rpartition("@")
        if scheme in _SSH:
            if "%" in rest or (at and not _SSH_USER.fullmatch(user)):
                return None, "", AMBIGUOUS
        elif scheme == "git" and at:
            return None, "", AMBIGUOUS
        host = _host_port(hostport)
        if host is None:
            return None, "", AMBIGUOUS
        return host, path, None
    colon, slash = url.find(":"), url.find("/")
    if colon < 0 or (0 <= slash < colon):
        return None, "", None  # git reads a local path
    userhost, path = url[:colon], url[colon + 1:]
    if len(userhost) == 1 and userhost.isalpha():  # C:/x, C:\x: a Windows path
        return None, "", None
    if not url.isascii():  # case folding would make K (U+212A) a k, and long s an s
        return None, "", AMBIGUOUS
    user, at, host = userhost.rpartition("@")
    if "[" in userhost or "@" in path or ":" in path or (at and not _SSH_USER.fullmatch(user)) \
            or not _HOST.fullmatch(host):
        return None, "", AMBIGUOUS
    return host.lower().rstrip("."), path, None


def normalise_remote(url: str) -> str | None:
    """A remote URL as ``host/path`` (host lower-cased; user, password, port,
    ``.git`` and trailing slashes dropped), or None for a local path, a
    ``file://`` URL, anything that does not name a host and a path, or a
    form whose host ``parse_remote`` refuses: a remote matches only where
    git would fetch from that host.

    ``git@github.com:o/r.git``, ``ssh://git@github.com:22/o/r`` and
    ``https://u:p@GitHub.com/O/R/`` all give ``github.com/o/r`` (lower case:
    the big hosts ignore case in paths, and a match only ever matches); a GitLab
    subgroup keeps every part (``gitlab.com/g/sub/r``), so GitHub and GitLab
    repositories with the same ``owner/repo`` stay distinct. A path with
    ``.`` or ``..`` parts is refused (None): a remote only ever matches, it
    never names a folder.
    """
    host, path, _ = parse_remote(url)
    if not host:
        return None
    parts = [p for p in path.split("/") if p]
    if parts and parts[-1].lower().endswith(".git"):
        parts[-1] = parts[-1][:-4]
    parts = [p for p in parts if p]
    if not parts or any(p in (".", "..") for p in parts):
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
        with atomic.open_file(os.path.join(path, REMOTES), "r", encoding="utf-8",
                              follow=False) as f:
            return [line.strip() for line in f if line.strip()]
    except atomic.NotRegular:
        raise
    except (OSError, UnicodeDecodeError):
        return []


# -- git -------------------------------------------------------------------

#: The environment variable that sets ``GIT_TIMEOUT`` (seconds, above 0).
GIT_TIMEOUT_ENV = "MEMO_GIT_TIMEOUT"
#: ``_git`` statuses for a git that could not be asked (real exits are >= 0).
GIT_MISSING, GIT_SLOW, GIT_BROKEN = gitcall.MISSING, gitcall.SLOW, gitcall.BROKEN


def git_timeout(environ=None) -> float:
    """Seconds one git call may take: ``MEMO_GIT_TIMEOUT`` when it is a
    number above 0 (at most 600), else ``GIT_TIMEOUT``."""
    raw = (os.environ if environ is None else environ).get(GIT_TIMEOUT_ENV, "")
    try:
        value = float(raw)
    except ValueError:
        return GIT_TIMEOUT
    return min(value, 600.0) if value > 0 else GIT_TIMEOUT


def find_repository(cwd: str):
    """The repository folder ``cwd`` is in, found without git.

    Walks up from ``cwd``'s real path (as git does) and stops at the first
    folder that has a ``.git`` entry: ``("repo", folder)`` for a ``.git``
    directory, or a ``.git`` file whose git directory points back at this
    folder (``foreign_gitfile``); ``("foreign", folder)`` for a ``.git``
    symbolic link or a ``.git`` file that names another repository's git
    directory (never bound: ``foreign_gitfile`` says why); or, when a folder
    shaped like a bare repository (a ``HEAD`` and an ``objects/`` folder or
    a ``commondir`` file, which git's discovery would take as the
    repository) comes first: ``("bare", folder)``. None when neither is
    found up to the root. Git is not run.
    """
    try:
        here = os.path.realpath(cwd)
    except (OSError, ValueError):
        return None
    while True:
        if os.path.lexists(os.path.join(here, ".git")):
            return ("repo" if foreign_gitfile(here) is None else "foreign"), here
        if os.path.lexists(os.path.join(here, "HEAD")) and (
                os.path.isdir(os.path.join(here, "objects"))
                or os.path.lexists(os.path.join(here, "commondir"))):
            return "bare", here
        up = os.path.dirname(here)
        if up == here:
            return None
        here = up


#: Bytes of a ``.git`` file, ``gitdir`` file or git config read at most.
_GITFILE_LIMIT = 1 << 16


def _read_small(path: str) -> str | None:
    """The text of the regular file ``path`` (not through a link, at most
    ``_GITFILE_LIMIT`` bytes), or None."""
    try:
        fd = atomic.open_regular(path, follow=False)
    except OSError:
        return None
    try:
        return os.read(fd, _GITFILE_LIMIT).decode("utf-8", "replace")
    except OSError:
        return None
    finally:
        os.close(fd)


def _same(a: str, b: str) -> bool:
    try:
        return os.path.realpath(a) == os.path.realpath(b)
    except (OSError, ValueError):
        return False


def _core_worktree(config: str) -> str | None:
    """``core.worktree`` of a git config file's text (the last one), or None."""
    section, found = "", None
    for raw in config.splitlines():
        line = raw.strip()
        if line.startswith("["):
            section = line[1:line.find("]")].strip().lower() if "]" in line else ""
            line = line[line.find("]") + 1:].strip() if "]" in line else ""
        key, eq, value = line.partition("=")
        if section == "core" and eq and key.strip().lower() == "worktree":
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] == '"':
                value = value[1:-1]
            found = value
    return found


def foreign_gitfile(folder: str) -> str | None:
    """Why the ``.git`` in ``folder`` never binds it to a project, or None
    when it may (one clause).

    A ``.git`` directory binds. A ``.git`` symbolic link never does. A
    ``.git`` file (``gitdir: PATH``, relative to ``folder`` or absolute)
    binds only when the git directory it names points back at ``folder``:
    a linked worktree's (its ``gitdir`` file holds ``folder/.git``, absolute
    or relative to the git directory) or a
    submodule's or separate git dir's (its ``config`` sets
    ``core.worktree`` to ``folder``, relative to the git directory).
    Anything else (a file that names another repository's git directory,
    which anyone can write) never binds.
    """
    dotgit = os.path.join(folder, ".git")
    if os.path.islink(dotgit):
        return (f"{dotgit} is a symbolic link, and a linked .git never names a project "
                f"(it could point at any repository)")
    if os.path.isdir(dotgit):
        return None
    text = _read_small(dotgit)
    first = (text or "").splitlines()[0].strip() if (text or "").strip() else ""
    if not first.startswith("gitdir:"):
        return f"{dotgit} is neither a git directory nor a gitdir file, so it names no project"
    target = first[len("gitdir:"):].strip()
    gitdir = os.path.normpath(os.path.join(folder, target))
    back = _read_small(os.path.join(gitdir, "gitdir"))
    if back and back.strip() and _same(os.path.join(gitdir, back.strip()), dotgit):
        return None
    worktree = _core_worktree(_read_small(os.path.join(gitdir, "config")) or "")
    if worktree and _same(os.path.join(gitdir, worktree), folder):
        return None
    return (f"{dotgit} is a file naming the git directory {_shown(target, 120)}, which "
            f"does not point back at this folder (not its worktree or submodule), so it "
            f"names no project")


def _git(cwd: str | None, *args: str, person: bool = False) -> tuple:
    """Run one short git command in ``cwd``; return ``(status, stdout)``.

    With ``person`` False the global and system git configs are left out
    (``GIT_CONFIG_GLOBAL``, ``GIT_CONFIG_NOSYSTEM``), so only the repository
    and the ``-c`` settings in ``args`` decide. With ``person`` True no
    repository is read (``GIT_DIR`` names no folder) and the person's own
    system and global configs are (``person_safe``). Git variables that
    point elsewhere (``GIT_DIR``, ``GIT_CONFIG_COUNT``, ...) are dropped; no
    prompt is ever shown; at most ``GIT_OUTPUT_LIMIT`` bytes are read. A
    call that does not answer within ``git_timeout()`` seconds is killed.
    Status ``GIT_MISSING`` when git is not found, ``GIT_SLOW`` on that
    timeout, ``GIT_BROKEN`` when it cannot be started otherwise.
    """
    env = gitcall.git_env(gitcall.POINTERS, GIT_TERMINAL_PROMPT="0", LC_ALL="C")
    if person:
        env["GIT_DIR"] = os.path.join(os.devnull, "no-repository")
    else:
        env.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    answer = gitcall.run_git(list(args), cwd, env, git_timeout())
    return answer.status, answer.out[:GIT_OUTPUT_LIMIT].decode("utf-8", "replace")


def git_problem(status: int) -> str | None:
    """Why git could not be asked, for a ``_git`` status (one clause), or
    None when git answered (0, or 1: git found nothing)."""
    if status in (0, 1):
        return None
    if status == GIT_MISSING:
        return "git is not on PATH"
    if status == GIT_SLOW:
        limit = f"{git_timeout():g}"
        return f"git did not answer within {limit} s ({GIT_TIMEOUT_ENV} sets the limit)"
    if status == GIT_BROKEN:
        return "git could not be started"
    return f"git failed (exit status {status})"


def _scoped_entries(out: str):
    """``(scope, key, value)`` of ``git config --null --show-scope`` output
    (``value`` None for a key without ``=``)."""
    items = out.split("\0")
    for scope, item in zip(items[0::2], items[1::2]):
        key, nl, value = item.partition("\n")
        yield scope, key.strip().lower(), (value if nl else None)


def person_safe() -> tuple:
    """``(status, args)``: the ``-c`` arguments that carry the person's
    ``safe.directory`` values (system, then global config, in git's order)
    into a git call that leaves those configs out, after
    ``-c safe.bareRepository=explicit``: a folder git finds only as a bare
    repository is never used, whatever the person's setting (its default,
    ``all``, accepts one). Nothing else is read from those configs. One git
    call; ``status`` is ``_git``'s (see ``git_problem``)."""
    status, out = _git(None, "config", "--null", "--show-scope", "--get-regexp",
                       r"^safe\.directory$", person=True)
    args = ["-c", "safe.bareRepository=explicit"]
    if status == 0:
        for scope, key, value in _scoped_entries(out):
            if scope in ("system", "global") and key == "safe.directory" and value is not None:
                args += ["-c", f"safe.directory={value}"]
    return status, args


@dataclass
class RepoFacts:
    """What git tells about the repository at ``cwd``: the bound project
    (``optmem.project``, or None), the remotes (``{remote name: raw url}``,
    in config order), both read only from the repository's own config
    (``$GIT_DIR/config``, its worktree config); ``problem`` is
    ``git_problem``'s clause when git could not be asked (then nothing else
    is known)."""

    bound: str | None = None
    remotes: dict = field(default_factory=dict)
    problem: str | None = None

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

    def ambiguous(self) -> list:
        """The names of the remotes whose URL ``parse_remote`` refuses as
        ambiguous (never matched), in config order."""
        return [name for name, url in self.remotes.items() if parse_remote(url)[2]]


def repo_facts(cwd: str) -> RepoFacts:
    """The binding and remotes of the repository ``cwd`` is in: two git
    calls (``person_safe``, then ``git config --get-regexp`` with only the
    repository's config read, ``--local`` and ``--worktree`` scopes kept).
    Outside a repository git finds, or in one git refuses (a bare folder, a
    ``safe.directory`` it does not trust): empty facts. Without git:
    ``problem`` says why. A folder whose ``.git`` never binds
    (``find_repository``) gives empty facts without running git."""
    found = find_repository(cwd)
    if found is None or found[0] != "repo":
        return RepoFacts()
    status, safe = person_safe()
    if status not in (0, 1):
        return RepoFacts(problem=git_problem(status))
    status, out = _git(cwd, *safe, "config", "--null", "--show-scope", "--get-regexp",
                       r"^(optmem\.project|remote\..*\.url)$")
    facts = RepoFacts(problem=git_problem(status))
    if status != 0:
        return facts
    for scope, key, value in _scoped_entries(out):
        if scope not in ("local", "worktree") or value is None:
            continue
        if key == GIT_KEY:
            facts.bound = value.strip()  # the last one wins, as in git
        elif key.startswith("remote.") and key.endswith(".url"):
            facts.remotes.setdefault(key[len("remote."):-len(".url")], value.strip())
    return facts


def repo_place(cwd: str):
    """``(toplevel, common git dir)`` of the repository at ``cwd`` (absolute
    paths), or None outside git or where git cannot be asked (two git
    calls), and None where the ``.git`` found never binds (``find_repository``)."""
    found = find_repository(cwd)
    if found is None or found[0] != "repo":
        return None
    status, safe = person_safe()
    if status not in (0, 1):
        return None
    status, out = _git(cwd, *safe, "rev-parse", "--path-format=absolute", "--show-toplevel",
                       "--git-common-dir")
    lines = out.splitlines()
    if status != 0 or len(lines) < 2:
        return None
    return lines[0], lines[1]


def _shown(text: str, limit: int = 80) -> str:
    """``text`` as printed in a message: escaped, at most ``limit``
    characters."""
    return text.encode("unicode_escape").decode("ascii")[:limit]


def git_step(problem: str | None, repository: str | None) -> str:
    """A person's step that lets memo ask git again, for ``problem``
    (``git_problem``'s clause): where git is found outside ``PATH``, the
    ``export PATH`` that adds its folder; a timeout, a longer
    ``MEMO_GIT_TIMEOUT``; a git that fails, the command that shows why."""
    import shlex
    if problem and problem.startswith("git is not on PATH"):
        for folder in ("/opt/homebrew/bin", "/usr/local/bin", "/usr/bin", "/bin",
                       "/opt/local/bin"):
            exe = os.path.join(folder, "git")
            if os.path.isfile(exe) and os.access(exe, os.X_OK):
                return (f"git is at {exe}: put its folder on the PATH memo (and its hook) "
                        f"runs with. {PERSON} export PATH=\"{folder}:$PATH\"")
        return ("a person installs git, or puts the folder holding it on the PATH memo (and "
                "its hook) runs with")
    if problem and problem.startswith("git did not answer"):
        return f"{PERSON} export {GIT_TIMEOUT_ENV}=30"
    where = shlex.quote(repository) if repository else "."
    return f"{PERSON} git -C {where} config --list"


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
    ``problem`` is set when the folder is in a repository (``repository``,
    its top folder) and projects exist, but git could not be asked which
    project it uses (``git_problem``'s clause): the project is unknown, a
    write without a scope flag is refused (``refusal``) and a read uses the
    global memory after ``unresolved_line``. ``notices`` are lines for
    ``memo scope`` (remotes never matched, and why); ``bare`` is True when
    ``repository`` is a folder shaped like a bare repository or its ``.git``
    never binds (a link, a foreign gitdir file): never bound.
    """

    root: str
    project: str | None = None
    project_root: str | None = None
    how: str = "no project exists"
    remotes: list | None = None
    forced_global: bool = False
    bound: str | None = None
    problem: str | None = None
    repository: str | None = None
    notices: list = field(default_factory=list)
    bare: bool = False

    @property
    def flag(self) -> str:
        """The scope flag an order carries for the project store
        (``--project NAME``), empty without a project."""
        return f"--project {self.project}" if self.project else ""

    def unresolved_line(self) -> str:
        """The one line said where ``problem`` is set: why the project is
        unknown, that the global memory alone is read, how to write, and the
        person's step that lets memo ask git."""
        return (f"{self.problem}, so memo cannot tell which project the repository at "
                f"{self.repository} uses: only the global memory is read here, and a write "
                f"needs --project NAME or --global; {git_step(self.problem, self.repository)}")

    def refusal(self, what: str, command: str, rest: str) -> BadInput:
        """The refusal of a write (``what``: "this note", "this summary",
        ...) of ``memo <command> ... <rest>`` without a scope flag where
        ``problem`` is set: it names both forms and the projects, and the
        person's step that lets memo ask git."""
        have = names(self.root)
        listing = f" (the projects are: {', '.join(have)})" if have else ""
        return BadInput(f"{self.problem}, so memo cannot tell which project the repository "
                        f"at {self.repository} uses, and {what} could land in the wrong "
                        f"memory; nothing was written. Name the memory: memo {command} --project "
                        f"NAME {rest}{listing}, or memo {command} --global {rest}; "
                        f"{git_step(self.problem, self.repository)}")


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
    this repository's remotes. Creates nothing. Without a ``projects/``
    folder this is one ``stat``; git is run (``repo_facts``: two calls, each
    within ``git_timeout()`` seconds) only when a ``.git`` is found walking
    up from ``cwd`` (``find_repository``). A folder shaped like a bare
    repository found first never binds; where git cannot be asked the
    ``Scope`` has ``problem`` set and no project.
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
    cwd = cwd or os.getcwd()
    found = find_repository(cwd)
    if found is None:  # no repository: git is not run
        return Scope(root, how="no project is bound to this folder", remotes=[])
    kind, top = found
    if kind == "bare":
        return Scope(root, how=f"{top} is shaped like a bare git repository, and a folder git "
                     f"would take as one never names a project", remotes=[], repository=top,
                     bare=True)
    if kind == "foreign":
        return Scope(root, how=foreign_gitfile(top) or f"{top}/.git never names a project",
                     remotes=[], repository=top, bare=True)
    facts = repo_facts(cwd)
    if facts.problem:
        return Scope(root, how=f"unknown: {facts.problem}", problem=facts.problem,
                     repository=top)
    remotes = facts.normalised()
    notices = []
    if facts.ambiguous():
        shown = ", ".join(_shown(n, 40) for n in facts.ambiguous()[:5])
        notices.append(f"Remotes not matched ({AMBIGUOUS}): {shown}")
    if facts.bound:
        if facts.bound in ("", "none"):
            return Scope(root, how="git config optmem.project is none", remotes=remotes,
                         forced_global=True, bound=facts.bound, repository=top,
                         notices=notices)
        scope = _named(root, facts.bound, "git config optmem.project")
        scope.remotes, scope.bound, scope.repository = remotes, facts.bound, top
        scope.notices = notices
        return scope
    if remotes:
        hits = [n for n in names(root)
                if set(recorded_remotes(os.path.join(projects_dir(root), n))) & set(remotes)]
        if len(hits) > 1:
            raise NoStore(f"this repository's remotes match the projects {', '.join(hits)}; "
                          f"memo does not guess: choose one with --project NAME, or "
                          f"{PERSON} git config optmem.project NAME")
        if hits:
            return Scope(root, hits[0], project_root(root, hits[0]), "remote", remotes,
                         repository=top, notices=notices)
    return Scope(root, how="no project is bound to this folder", remotes=remotes,
                 repository=top, notices=notices)


# -- creation (a person's step) --------------------------------------------

def init_project(root: str, name: str | None, cwd: str | None = None) -> tuple:
    """``memo init --project [NAME]``: create or adopt a project store and
    bind the repository at ``cwd`` to it. Returns ``(name, path, lines)``,
    ``lines`` being what was done, one line each.

    Only when the global store exists (``NoStore`` otherwise). ``name``
    None: the default from the repository (``default_name``), refused
    (``BadInput``, asking for a name) when it is empty, invalid, or taken by
    a project of another repository (one whose recorded remotes share none
    of this repository's) or by one that records no remote (unless this
    repository is already bound to it): an existing project is adopted only
    by its name or by a shared remote. Inside git: ``git config --local optmem.project
    NAME`` (the common git dir, so every linked worktree shares it) and the
    normalised remotes appended to ``REMOTES``. A second run changes no
    byte.
    """
    from optmem.store.memory import Store
    if not os.path.isfile(os.path.join(root, "LOG.txt")):
        raise NoStore(f"there is no global store at {root} yet, and a project lives inside "
                      f"it: a person creates the global store first, then the project. {PERSON} "
                      f"memo init && memo init --project")
    cwd = cwd or os.getcwd()
    found = find_repository(cwd)
    place, facts = None, RepoFacts()
    if found is not None and found[0] == "repo":
        facts = repo_facts(cwd)
        if facts.problem:
            raise NoStore(f"{facts.problem}, so memo cannot read or bind the repository at "
                          f"{found[1]}; nothing was created. "
                          f"{git_step(facts.problem, found[1])}")
        place = repo_place(cwd)
        if place is None:
            facts = RepoFacts()
    remotes = facts.normalised()
    explicit = name is not None and name != ""
    if not explicit:
        if found is not None and found[0] == "bare":
            raise BadInput(f"{found[1]} is shaped like a bare git repository, which memo never "
                           f"binds to a project, so there is no name to take from it; a person "
                           f"names the project. {PERSON} memo init --project NAME")
        if found is not None and found[0] == "foreign":
            raise BadInput(f"{foreign_gitfile(found[1])}, so there is no name to take from it; "
                           f"a person names the project. {PERSON} memo init --project NAME")
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
        if not explicit and not theirs and facts.bound != name:
            raise BadInput(f"the project {name!r} exists and records no remote, so memo cannot "
                           f"tell it belongs to this repository and adopts it only when a "
                           f"person names it. {PERSON} memo init --project NAME")
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
            _, safe = person_safe()
            status, _ = _git(cwd, *safe, "config", "--local", GIT_KEY, name)
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
        atomic.write_all(fd, "".join(r + "\n" for r in new).encode("utf-8"))
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
        with atomic.open_file(os.path.join(path, HANDOVER), "r", encoding="utf-8") as f:
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
        with atomic.open_file(target, "r", encoding="utf-8") as f:
            lines = [ln for ln in f.read().splitlines() if ln.partition(" ")[0] != name]
    except (OSError, UnicodeDecodeError):
        lines = []
    if which is None and len(lines) == 0 and not os.path.exists(target):
        return
    if which is not None:
        lines.append(f"{name} {which}")
    lines = lines[-HANDOVER_KEEP:]
    atomic.replace_file(target, "".join(ln + "\n" for ln in lines).encode("utf-8"),
                        tmp=target + ".tmp")

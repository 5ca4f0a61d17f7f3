"""``memo sync``: one identity on several machines, carried by git.

``MEMORY_DIR`` is the top of a git work tree whose branch has an upstream
(a bare repository every machine reaches: the hub). ``sync`` then:

1. writes ``.gitattributes`` (``LOG.txt`` and ``TREE/**`` binary: git never
   merges them as text nor converts their line ends) and ``.gitignore``
   (the lock, the append journal, ``recovered.txt``, ``merge-backup/``) in
   every store under ``MEMORY_DIR`` where they are absent;
2. fetches the upstream, outside the store lock;
3. under the lock of every store (the global one first, then the projects
   by name), commits the stores' files with the person's git identity, then
   fast-forwards to the upstream when it can; when both sides moved on, it
   computes each merged store itself with ``memo merge``'s rules from the
   upstream commit's files (git never merges a store's files) and records
   a merge commit whose parents are this machine's commit and the upstream;
4. pushes (never forced), and chmods the stores' files back to owner-only.

Nothing here rebases or force-pushes, and the repository is never left in
a merge: the merge commit is written with plumbing (``write-tree``,
``commit-tree``, ``update-ref``). On a git failure before the store's files
change, they are as they were; a failure while they change puts them back
from the commit taken under the same lock. Every failure is one line:
what git said and what a person can run.

memo reaches the network only through the person's ``git``. From a harness
hook (``hook=True``) prompts are off (``GIT_TERMINAL_PROMPT=0``, ssh in
batch mode), the whole sync has ``time_limit`` seconds, and it only
fast-forwards: a merge renumbers memories a live session may hold, so it
is left to a person (``A person can run: memo sync``).
"""

from __future__ import annotations

import os
import shlex
import socket
import stat as stat_mod
import time
from dataclasses import dataclass, field

from optmem import atomic, gitcall
from optmem.errors import MemoError
from optmem.store.memory import CONFIG_NAME, LOG_NAME, LOG_RECORD, SALT_NAME, TREE_NAME, TREE_RECORD, Store

#: How a person's step is printed.
PERSON = "A person can run:"
#: The folder of project stores in the global one (``optmem.projects.PROJECTS``).
PROJECTS = "projects"
#: The ``.gitattributes`` sync writes in each store folder where none is.
ATTRIBUTES = ("# memo sync: git never merges nor converts the store's files\n"
              "* -text\n"
              f"{LOG_NAME} binary\n"
              f"{TREE_NAME}/** binary\n")
#: The ``.gitignore`` sync writes in each store folder where none is: what
#: belongs to this machine alone (the lock, the append journal and its
#: temporary file, kept appends, cut-off bytes, merge's backups, the
#: temporary files of atomic writes).
IGNORED = (".lock", ".append", ".append.tmp", ".append.kept", "config.tmp",
           ".*.optmem-*", "recovered.txt", "merge-backup/", "HANDOVER")
IGNORE_TEXT = ("# memo sync: files of this machine alone\n"
               + "".join(f"{name}\n" for name in IGNORED))
#: The files of one store that sync commits (beside ``TREE/<size>``).
STORE_FILES = (LOG_NAME, CONFIG_NAME, ".gitattributes", ".gitignore", "REMOTES", SALT_NAME)
#: Seconds a git call that reaches the network may take from a person's
#: command (it may wait on the person's ssh or credential prompt).
NETWORK_TIMEOUT = 600.0
#: Seconds a local git call may take.
LOCAL_TIMEOUT = 120.0
#: Seconds a harness hook gives the whole sync (``memo setup`` states it).
HOOK_TIME_LIMIT = 5.0
#: The name of the temporary folders (in the repository's git folder) that
#: hold the hub's stores during a merge.
TMP_PREFIX = "memo-sync-"
#: The message of every commit sync makes.
COMMIT_MESSAGE = "memo sync from {host}"
MERGE_MESSAGE = "memo sync: merge {upstream} into {branch} on {host}"


@dataclass
class Report:
    """What one sync did.

    ``action`` is one of ``"up to date"``, ``"pushed"``, ``"fast-forward"``,
    ``"merged"``, ``"merge needed"`` (a hook found both sides moved on and
    left the merge to a person), ``"look first"`` (a hook found the hub
    changed a store's settings and left it to a person) and ``"skipped"``
    (a hook ran out of time);
    ``lines`` are what to print, in order; ``undo`` the person's command
    that puts the store back as it was before (or None when nothing in the
    store changed); ``before`` and ``after`` the commits (hex ids) HEAD
    named before and after; ``committed`` whether this machine's changes
    were committed; ``pushed`` whether the hub got them; ``failed``
    whether a step was not done (its line starts ``memo: ``)."""

    action: str
    lines: list = field(default_factory=list)
    undo: str | None = None
    before: str | None = None
    after: str | None = None
    committed: bool = False
    pushed: bool = False
    failed: bool = False  #: a step was not done (the push): its line starts ``memo: ``


class SyncError(MemoError):
    """A sync that cannot go on: one line (what git said, that the store is
    as it was), then ``orders``: what a person can run."""


def _q(path: str) -> str:
    return shlex.quote(path)


class _Git:
    """git in the store's work tree, with the pointer variables dropped
    (``GIT_DIR`` and the like never send it to another repository) and,
    for a hook, prompts off and a deadline."""

    def __init__(self, root: str, hook: bool, deadline: float | None) -> None:
        self.root = root
        self.hook = hook
        self.deadline = deadline
        self.env = gitcall.git_env(gitcall.POINTERS)
        if hook:
            self.env["GIT_TERMINAL_PROMPT"] = "0"
            self.env.pop("GIT_ASKPASS", None)
            self.env.pop("SSH_ASKPASS", None)
            ssh = self.env.get("GIT_SSH_COMMAND") or self.value("core.sshCommand") or "ssh"
            self.env["GIT_SSH_COMMAND"] = f"{ssh} -o BatchMode=yes"

    def left(self) -> float | None:
        """Seconds left before the deadline (None: no deadline)."""
        return None if self.deadline is None else self.deadline - time.monotonic()

    def options(self) -> list:
        """The ``-c`` options of every call: none of the repository's hooks
        nor its file-system monitor runs (memo needs neither), and from a
        hook no commit is signed (a signing program may wait for a person;
        the person's own ``memo sync`` signs as their git says)."""
        extra = ["-c", "commit.gpgSign=false"] if self.hook else []
        return [*gitcall.SAFE_OPTIONS, *extra]

    def __call__(self, *args: str, network: bool = False,
                 cleanup: bool = False) -> gitcall.Answer:
        """Run ``git args``: ``network`` for a call that may reach the hub;
        ``cleanup`` for one that puts files back after a failure (it gets
        ``LOCAL_TIMEOUT`` even past a hook's deadline)."""
        timeout = NETWORK_TIMEOUT if network else LOCAL_TIMEOUT
        left = self.left()
        if left is not None and not cleanup:  # a hook's limit covers every call
            timeout = max(0.1, min(timeout, left))
        return gitcall.run_git([*self.options(), *args], self.root, self.env, timeout,
                               stderr=True)

    def value(self, key: str) -> str | None:
        """``git config --get key`` in this repository, or None."""
        answer = gitcall.run_git([*gitcall.SAFE_OPTIONS, "config", "--get", key], self.root,
                                 self.env, LOCAL_TIMEOUT)
        return answer.text() if answer.ok and answer.text() else None

    def must(self, *args: str, what: str, network: bool = False) -> gitcall.Answer:
        """``self(*args)``, raising ``SyncError`` when it fails: ``what`` is
        the clause naming the step (``the fetch from origin``)."""
        answer = self(*args, network=network)
        if not answer.ok:
            raise SyncError(f"{what} failed ({answer.said()}); {_unchanged()}",
                            orders=[self.order_after(answer, args)])
        return answer

    def order_after(self, answer: gitcall.Answer, args) -> str:
        """The person's step after ``git args`` failed: remove a stale
        ``index.lock`` (named with its path) when git says one is in the
        way, else the same git step, then ``memo sync``."""
        said = answer.err.decode("utf-8", "surrogateescape")
        if "index.lock" in said:
            lock = git_path(self, "index.lock")
            return (f"{PERSON} rm -f {_q(lock)} && memo sync  # only when no other git "
                    f"runs in {_q(self.root)}: the lock is then left by a crashed git")
        return (f"{PERSON} git -C {_q(self.root)} {' '.join(_q(a) for a in args)} "
                f"&& memo sync")


def git_path(git: "_Git", name: str) -> str:
    """The absolute path of ``name`` in the repository's git folder."""
    answer = git("rev-parse", "--git-path", name)
    path = answer.text() if answer.ok and answer.text() else os.path.join(".git", name)
    return os.path.normpath(os.path.join(git.root, path))


def _unchanged() -> str:
    return "the store is as it was and nothing is lost"


# -- set-up ----------------------------------------------------------------

def _hub_path() -> str:
    """``~/memory-hub.git``, or the first ``~/memory-hub-<n>.git`` that does
    not exist yet: a set-up order never reinitialises another store's hub."""
    home = os.path.expanduser("~")
    path, n = os.path.join(home, "memory-hub.git"), 1
    while os.path.lexists(path):
        n += 1
        path = os.path.join(home, f"memory-hub-{n}.git")
    return path


def setup_orders(root: str, branch: str | None = None, remotes: list | None = None,
                 born: bool = False, url: str | None = None) -> list:
    """The person's lines that make the store at ``root`` a work tree whose
    branch has an upstream, for both starts: this store made a repository
    with a hub (or pushed to the remote it has), and a new machine cloning
    that hub. ``branch`` is the current branch (None: no repository yet),
    ``remotes`` the remote names, ``born`` whether the branch has a commit,
    ``url`` the address of the remote the store already has (the clone
    line names it; without one, the hub the first line makes)."""
    hub = _hub_path()
    r = _q(root)
    name = branch or "main"
    lines = []
    first = ("" if born else
             f"git -C {r} commit -q --allow-empty -m 'memo store' && ")
    if branch is None:
        lines.append(f"{PERSON} git init -q --bare -b main {_q(hub)} && git -C {r} init -q -b main "
                     f"&& git -C {r} remote add origin {_q(hub)} && git -C {r} commit -q "
                     f"--allow-empty -m 'memo store' && git -C {r} push -q -u origin main "
                     f"&& memo sync")
    elif remotes:
        remote = "origin" if "origin" in remotes else remotes[0]
        lines.append(f"{PERSON} {first}git -C {r} push -q -u {_q(remote)} {_q(name)} "
                     f"&& memo sync")
    else:
        lines.append(f"{PERSON} git init -q --bare -b {_q(name)} {_q(hub)} && git -C {r} remote add origin "
                     f"{_q(hub)} && {first}git -C {r} push -q -u origin {_q(name)} "
                     f"&& memo sync")
    host = socket.gethostname() or "this-machine"
    where = url if remotes and url else host + ":" + hub
    lines.append(f"{PERSON} git clone -q {_q(where)} {r} && memo sync"
                 f"  # on another machine, with MEMORY_DIR={r} there")
    return lines


def _unchecked_clone(root: str) -> None:
    """Raise ``SyncError`` when ``root`` is a clone with no store checked
    out although its remote has branches (a hub whose HEAD names a branch
    it lacks, as ``git init --bare`` on an older default makes): the order
    checks the hub's branch out, so the person never starts a second
    identity with ``memo init``. Returns quietly in every other case."""
    if os.path.lexists(os.path.join(root, LOG_NAME)) or \
            not os.path.isdir(os.path.join(root, ".git")):
        return
    git = _Git(root, False, None)
    if git("rev-parse", "-q", "--verify", "HEAD^{commit}").ok:
        return
    refs = git("for-each-ref", "--format=%(refname:lstrip=3)", "refs/remotes/")
    names = [n for n in (refs.text().split() if refs.ok else []) if n != "HEAD"]
    if not names:
        return
    branch = "main" if "main" in names else names[0]
    raise SyncError(f"{root} is a clone with nothing checked out (its hub's HEAD names a "
                    f"branch the hub does not have), so it holds no store yet; nothing was "
                    f"changed. A person checks out the hub's branch {branch}, then syncs",
                    orders=[f"{PERSON} git -C {_q(root)} checkout -q {_q(branch)} "
                            f"&& memo sync"])


def _setup_error(why: str, root: str, **facts) -> SyncError:
    return SyncError(f"{why}, so memo sync has nowhere to sync with; nothing was created. "
                     f"Make it one (a hub repository every machine reaches), then sync; on "
                     f"another machine, clone the hub as its MEMORY_DIR",
                     orders=setup_orders(root, **facts))


@dataclass
class _Where:
    branch: str
    remote: str
    merge_ref: str  #: the upstream branch on the remote (``refs/heads/main``)
    upstream: str  #: the local name of the upstream (``refs/remotes/origin/main``)


def _where(git: _Git) -> _Where:
    """The branch and its upstream, or ``SyncError`` with the set-up lines."""
    root = git.root
    top = git("rev-parse", "--show-toplevel")
    if top.status in (gitcall.MISSING, gitcall.SLOW, gitcall.BROKEN):
        raise SyncError(f"memo sync runs git, and {top.said()}; {_unchanged()}. A person "
                        f"installs git, then syncs", orders=[f"{PERSON} memo sync"])
    if not top.ok:
        raise _setup_error(f"{root} is not a git work tree", root)
    if os.path.realpath(top.text()) != os.path.realpath(root):
        raise SyncError(f"{root} is inside the git work tree {top.text()} but is not its top, "
                        f"so memo sync would commit other files with the store; nothing was "
                        f"changed. Give the store a repository of its own",
                        orders=setup_orders(root))
    branch = git("symbolic-ref", "-q", "--short", "HEAD")
    if not branch.ok:
        raise SyncError(f"{root} has no branch checked out (a detached HEAD), so memo sync "
                        f"cannot tell what to sync; {_unchanged()}",
                        orders=[f"{PERSON} git -C {_q(root)} switch main && memo sync"])
    name = branch.text()
    born = git("rev-parse", "-q", "--verify", "HEAD^{commit}").ok
    remote = git.value(f"branch.{name}.remote")
    merge_ref = git.value(f"branch.{name}.merge")
    if not remote or not merge_ref or not born:
        remotes = git("remote").text().split()
        url = None
        if remotes:
            got = git("remote", "get-url", "origin" if "origin" in remotes else remotes[0])
            url = got.text() if got.ok else None
        raise _setup_error(f"the branch {name} of {root} has no upstream (git push -u sets "
                           f"it)", root, branch=name, remotes=remotes, born=born, url=url)
    if remote == ".":
        upstream = merge_ref
    else:
        up = git("rev-parse", "--symbolic-full-name", f"{name}@{{upstream}}")
        upstream = up.text() if up.ok and up.text() else \
            f"refs/remotes/{remote}/{merge_ref.rsplit('/', 1)[-1]}"
    for marker in ("MERGE_HEAD", "rebase-merge", "rebase-apply", "CHERRY_PICK_HEAD"):
        path = git("rev-parse", "--git-path", marker).text()
        if path and os.path.lexists(os.path.join(root, path)):
            what = {"MERGE_HEAD": "merge", "CHERRY_PICK_HEAD": "cherry-pick"}.get(
                marker, "rebase")
            raise SyncError(f"a git {what} is in progress in {root}, so memo sync leaves the "
                            f"repository alone; {_unchanged()}. A person ends it (git {what} "
                            f"--abort puts the files back as they were), then syncs",
                            orders=[f"{PERSON} git -C {_q(root)} {what} --abort && memo sync"])
    return _Where(name, remote, merge_ref, upstream)


def _identity(git: _Git) -> None:
    """Refuse (one line) when git has no name and email to commit with."""
    for var in ("GIT_AUTHOR_IDENT", "GIT_COMMITTER_IDENT"):
        if not git("-c", "user.useConfigOnly=true", "var", var).ok:
            raise SyncError(f"git has no name and email to commit the store with in "
                            f"{git.root}; {_unchanged()}. Set them once (your own name and "
                            f"address), then sync",
                            orders=[f"{PERSON} git config --global user.name \"$(id -un)\" && "
                                    f"git config --global user.email \"$(id -un)@$(hostname)\" "
                                    f"&& memo sync"])


# -- the stores ------------------------------------------------------------

def store_dirs(root: str) -> list:
    """The store folders under ``root``, relative to it: ``""`` (the global
    store) and ``projects/<name>`` for each project store (a real folder,
    not a link, holding a ``LOG.txt``), by name."""
    top = os.path.join(root, PROJECTS)
    out = [""]
    if os.path.islink(top) or not os.path.isdir(top):
        return out
    for name in sorted(os.listdir(top)):
        path = os.path.join(top, name)
        if not name.startswith(".") and os.path.isdir(path) and not os.path.islink(path) \
                and os.path.isfile(os.path.join(path, LOG_NAME)):
            out.append(f"{PROJECTS}/{name}")
    return out


def _full(root: str, rel: str) -> str:
    return os.path.join(root, rel) if rel else root


def write_git_files(root: str, rels: list) -> list:
    """Write ``.gitattributes`` and ``.gitignore`` (0600) into each store
    folder of ``rels`` where absent; return the paths written. A person's
    ``.gitignore`` is never changed; memo's binary rules are appended to a
    person's ``.gitattributes`` that lacks them (``SyncError`` when one of
    its lines would still convert the store's bytes, or it is a link)."""
    written = []
    for rel in rels:
        for name, text in ((".gitattributes", ATTRIBUTES), (".gitignore", IGNORE_TEXT)):
            path = os.path.join(_full(root, rel), name)
            if name == ".gitattributes" and os.path.lexists(path):
                if _add_rules(path):
                    written.append(path)
                continue
            if os.path.lexists(path):
                continue
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                atomic.write_all(fd, text.encode("utf-8"))
                os.fsync(fd)
            finally:
                os.close(fd)
            written.append(path)
    return written


def _add_rules(path: str) -> bool:
    """Append ``ATTRIBUTES`` to the person's ``.gitattributes`` at ``path``
    unless it ends with them; return whether it was changed. Raises
    ``SyncError`` when the file is not a regular file or sets an attribute
    that converts bytes (``attributes_problem``)."""
    if not os.path.isfile(path) or os.path.islink(path):
        raise SyncError(f"{_shown(path)} is not a regular file, so memo sync cannot make sure "
                        f"git never converts the store's bytes; {_unchanged()}. A person "
                        f"replaces it with a plain file, then runs memo sync")
    with open(path, "rb") as f:
        text = f.read().decode("utf-8", "replace")
    if text.endswith(ATTRIBUTES):
        added = ""
    else:
        added = ("" if not text or text.endswith("\n") else "\n") + ATTRIBUTES
    why = attributes_problem(text + added)
    if why:
        raise SyncError(f"{_shown(path)} {why}, so memo sync does not commit the store; "
                        f"{_unchanged()}. A person removes that line, then runs memo sync")
    if not added:
        return False
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0))
    try:
        atomic.write_all(fd, added.encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)
    return True


def _paths(root: str, rels: list, tracked: set) -> list:
    """The store files to commit (relative to ``root``): each store's
    ``STORE_FILES`` and ``TREE/<digits>`` present on disk or tracked."""
    out = []
    for rel in rels:
        base = f"{rel}/" if rel else ""
        for name in STORE_FILES:
            p = base + name
            if os.path.lexists(os.path.join(root, p)) or p in tracked:
                out.append(p)
        tree = os.path.join(_full(root, rel), TREE_NAME)
        names = set()
        try:
            names = {n for n in os.listdir(tree) if n.isdigit()}
        except OSError:
            pass
        prefix = base + TREE_NAME + "/"
        names |= {p[len(prefix):] for p in tracked if p.startswith(prefix)
                  and p[len(prefix):].isdigit()}
        out += [prefix + n for n in sorted(names)]
    return out


def owner_only(root: str, rels: list) -> None:
    """chmod each store folder (and ``TREE/``, ``projects/``, ``.git``) to
    0700 and their files to 0600: git checks files out by its own modes.
    Makes a missing ``TREE/`` (0700)."""
    dirs = [root, os.path.join(root, PROJECTS)]  # projects/ even with no store in it yet
    for rel in rels:
        full = _full(root, rel)
        dirs += [full, os.path.join(full, TREE_NAME)]
        # git keeps no empty folder: a clone of a store without summaries lacks TREE/
        os.makedirs(os.path.join(full, TREE_NAME), mode=0o700, exist_ok=True)
    git_dir = os.path.join(root, ".git")
    if os.path.isdir(git_dir) and not os.path.islink(git_dir) \
            and stat_mod.S_IMODE(os.lstat(git_dir).st_mode) & 0o077:
        os.chmod(git_dir, 0o700)  # its objects hold every memory too
    for d in dirs:
        try:
            st = os.lstat(d)
        except OSError:
            continue
        if not stat_mod.S_ISDIR(st.st_mode):
            continue
        if stat_mod.S_IMODE(st.st_mode) != 0o700:
            os.chmod(d, 0o700)
        for name in os.listdir(d):
            path = os.path.join(d, name)
            try:
                st = os.lstat(path)
            except OSError:
                continue
            if stat_mod.S_ISREG(st.st_mode) and stat_mod.S_IMODE(st.st_mode) & 0o077:
                os.chmod(path, 0o600)


class _Locks:
    """Every store's lock, the global store's first, then the projects by
    name (the same order everywhere, so two syncs never deadlock)."""

    def __init__(self, root: str, rels: list, timeout: float | None) -> None:
        self.rels = list(rels)
        self.stores = [Store(_full(root, rel)) for rel in rels]
        self.timeout = timeout
        self._held = []

    def __enter__(self):
        try:
            for store in self.stores:
                cm = store.locked(timeout=self.timeout)
                cm.__enter__()
                self._held.append(cm)
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc) -> None:
        while self._held:
            self._held.pop().__exit__(None, None, None)


# -- the sync --------------------------------------------------------------

def _head(git: _Git) -> str:
    return git.must("rev-parse", "HEAD", what="reading HEAD").text()


def _commit(git: _Git, rels: list) -> bool:
    """Stage the stores' files and commit them when anything changed;
    return whether a commit was made. Raises ``SyncError``."""
    tracked = set(git.must("ls-files", "-z", what="listing the tracked files").out
                  .decode("utf-8", "surrogateescape").split("\0")) - {""}
    paths = _paths(git.root, rels, tracked)
    if paths:
        try:
            git.must("add", "-A", "-f", "--", *paths, what="staging the store's files (git add)")
        except SyncError:
            git("reset", "-q", "--", *paths, cleanup=True)
            raise
    if git("diff", "--cached", "--quiet").ok:
        return False
    host = socket.gethostname() or "a machine"
    try:
        git.must("commit", "-q", "--no-verify", "-m", COMMIT_MESSAGE.format(host=host),
                 what="committing the store's files (git commit)")
    except SyncError:
        git("reset", "-q", "--", *paths, cleanup=True)  # unstage: the index is as it was
        raise
    return True


def _clean_elsewhere(git: _Git) -> None:
    """Refuse when files git tracks have changes no commit holds (outside
    the stores, since theirs were just committed): a fast-forward or a
    merge could not be undone without touching them."""
    answer = git.must("status", "--porcelain", "--untracked-files=no",
                      what="reading the work tree's state (git status)")
    if answer.text():
        first = answer.text().splitlines()[0][3:]
        raise SyncError(f"{git.root} has changes to files git tracks that memo does not "
                        f"commit ({first}...), so memo sync leaves the repository alone; "
                        f"{_unchanged()}. Commit or remove them first",
                        orders=[f"{PERSON} git -C {_q(git.root)} status"])


# -- what comes from the hub ----------------------------------------------------

#: Attributes that change a file's bytes on checkout: none may reach a store file.
CONVERTING = frozenset(("text", "eol", "crlf", "filter", "ident", "working-tree-encoding"))


def _shown(path: str) -> str:
    """``path`` as one printable line: every non-printable character ``?``."""
    return "".join(ch if ch.isprintable() else "?" for ch in path)


def attributes_problem(text: str) -> str | None:
    """Why the ``.gitattributes`` ``text`` of a store folder is unsafe, or
    None: it must end with memo's own rules (``ATTRIBUTES``), and no line
    before them may define a macro or set an attribute that converts
    bytes on checkout (``CONVERTING``)."""
    if not text.endswith(ATTRIBUTES):
        return "does not end with memo's binary rules"
    for line in text[:-len(ATTRIBUTES)].splitlines():
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if fields[0].startswith("[attr]"):
            return f"defines the macro {fields[0]}"
        for attr in fields[1:]:
            name = attr.lstrip("-!").split("=", 1)[0]
            if name in CONVERTING:
                return f"sets {attr} for {fields[0]}, which would change the store's bytes"
    return None


@dataclass
class _Entry:
    mode: str
    kind: str
    blob: str
    size: int


def _tree(git: _Git, commit: str) -> dict:
    """``{path: _Entry}`` for every file of ``commit`` (``git ls-tree -r -l``)."""
    answer = git.must("ls-tree", "-r", "-z", "-l", "--full-tree", commit,
                      what=f"listing the files of {commit[:12]}")
    out = {}
    for item in answer.out.split(b"\0"):
        if not item:
            continue
        head, _, path = item.partition(b"\t")
        mode, kind, blob, size = head.decode("ascii", "replace").split()
        out[path.decode("utf-8", "surrogateescape")] = _Entry(
            mode, kind, blob, int(size) if size.isdigit() else -1)
    return out


def _blob(git: _Git, blob: str) -> bytes:
    return git.must("cat-file", "blob", blob, what=f"reading {blob[:12]} (git cat-file)").out


def _store_part(path: str) -> tuple:
    """``(store folder, path inside it)`` of a path of the work tree
    (``("projects/x", "LOG.txt")``); the folder is None for a path directly
    in ``projects/`` or ``projects`` itself."""
    parts = path.split("/")
    if parts[0] == PROJECTS:
        if len(parts) < 3:
            return None, path
        return f"{PROJECTS}/{parts[1]}", "/".join(parts[2:])
    return "", path


def _path_problem(path: str, entry: _Entry) -> str | None:
    """Why a file of a hub commit may not be checked out here, or None."""
    import fnmatch
    if any(not ch.isprintable() for ch in path):
        return "has a name with control characters"
    if entry.kind == "commit" or entry.mode == "160000":
        return "is a submodule link"
    if entry.mode == "120000":
        return "is a symbolic link"
    if entry.kind != "blob" or entry.mode not in ("100644", "100755"):
        return f"is not a regular file (mode {entry.mode})"
    rel, inner = _store_part(path)
    if rel is None:
        return f"is a file in {PROJECTS}/, where only store folders belong"
    parts = inner.split("/")
    if parts[0] == TREE_NAME:
        if len(parts) != 2 or not parts[1].isdigit():
            return f"is not a level file of {TREE_NAME}/"
        if entry.size % TREE_RECORD:
            return f"is not a whole number of {TREE_RECORD}-byte summaries"
        return None
    if parts[0] == "merge-backup" or (len(parts) == 1 and any(
            fnmatch.fnmatchcase(parts[0], pat.rstrip("/")) for pat in IGNORED)):
        return "is a file memo keeps on one machine only (a lock, journal or backup)"
    if len(parts) == 1 and parts[0] == LOG_NAME and entry.size % LOG_RECORD:
        return f"is not a whole number of {LOG_RECORD}-byte records"
    if len(parts) == 1 and parts[0].startswith("LOG.") and parts[0] != LOG_NAME:
        return "is a copy of a log, which memo would read as a conflict copy"
    return None


def check_incoming(git: _Git, commit: str, rels: list, hub: str) -> dict:
    """Refuse (``SyncError``, before anything is checked out) a commit of
    the hub that would damage a store here: a link, submodule or other
    non-regular file anywhere; a name with control characters; a file memo
    keeps on one machine (lock, journal, backup); a log or level that is
    not whole records; a store of ``rels`` (this machine's) without its
    log although the commits' merge base has it; a ``.gitattributes`` of
    a store folder, changed by the hub, that could convert bytes.
    Return ``{store folder: _Entry of its LOG.txt}`` of the commit."""
    files = _tree(git, commit)

    def refuse(path: str, why: str) -> SyncError:
        return _refused_commit(git, commit, hub, path, why)
    base = git("merge-base", "HEAD", commit)
    before = _tree(git, base.text()) if base.ok and base.text() else {}
    logs = {}
    for path, entry in sorted(files.items()):
        why = _path_problem(path, entry)
        if why:
            raise refuse(path, why)
        rel, inner = _store_part(path)
        if inner == LOG_NAME:
            logs[rel] = entry
        elif inner == ".gitattributes" and (before.get(path) is None
                                            or before[path].blob != entry.blob):
            # (one the hub left as it was is this machine's, checked when written)
            why = attributes_problem(_blob(git, entry.blob).decode("utf-8", "replace"))
            if why:
                raise refuse(path, why)
    for rel in rels:
        path = f"{rel}/{LOG_NAME}" if rel else LOG_NAME
        if rel not in logs and path in before:  # never sent: a store of this machine alone
            raise refuse(path, "is missing: the commit drops a store this machine holds")
    return logs


def _refused_commit(git: _Git, commit: str, hub: str, path: str, why: str) -> SyncError:
    return SyncError(f"{hub}'s commit {commit[:12]}: {_shown(path)} {why}, so memo sync "
                     f"takes nothing from it; {_unchanged()}. A person looks at that "
                     f"commit and mends the hub with a new commit",
                     orders=[f"{PERSON} git -C {_q(git.root)} show --stat {commit}"])


def check_new_records(git: _Git, commit: str, stores: list, hub: str,
                      memories: bool = True) -> None:
    """Refuse (``SyncError``) the hub's ``commit`` when a record it would
    bring into a store of ``stores`` (folders) is damaged: each memory past
    this machine's log must be whole and hold its own id and a date, and
    each summary this machine does not hold byte for byte must be one
    padded line that passes the write guard ``memo sleep`` applies (wake
    shows summaries in place of the memories). ``memories=False`` checks
    only the summaries (a merge reads the hub's log by its own rules)."""
    from optmem.guard.text import find_problem
    from optmem.store.memory import problem_in_memory, problem_in_summary
    files = _tree(git, commit)
    for rel in stores:
        base = f"{rel}/" if rel else ""
        full = _full(git.root, rel)
        entry = files.get(base + LOG_NAME)
        if entry is None:
            continue
        try:
            start = os.lstat(os.path.join(full, LOG_NAME)).st_size // LOG_RECORD
        except OSError:
            start = 0
        data = _blob(git, entry.blob) if memories else b""
        for i in range(start, len(data) // LOG_RECORD):
            why = problem_in_memory(i, data[i * LOG_RECORD:(i + 1) * LOG_RECORD])
            if why:
                raise _refused_commit(git, commit, hub, base + LOG_NAME, f"record #{i} {why}")
        prefix = f"{base}{TREE_NAME}/"
        for path, entry in files.items():
            if not path.startswith(prefix):
                continue
            try:
                with open(os.path.join(full, TREE_NAME, path[len(prefix):]), "rb") as f:
                    mine = f.read()
            except OSError:
                mine = b""
            data = _blob(git, entry.blob)
            for k in range(0, len(data), TREE_RECORD):
                record = data[k:k + TREE_RECORD]
                if record == mine[k:k + TREE_RECORD]:
                    continue
                why = problem_in_summary(record)
                if why is None:
                    why = find_problem(record[:-1].decode("utf-8").rstrip(" "))
                    why = why and f"(the write guard: it {why})"
                if why:
                    raise _refused_commit(git, commit, hub, path,
                                          f"summary {k // TREE_RECORD} {why}")


def _appends_only(git: _Git, rels: list, logs: dict) -> bool:
    """Whether every store's ``LOG.txt`` in the hub's commit (``logs``,
    from ``check_incoming``) starts with this machine's bytes, i.e. taking
    it renumbers nothing here."""
    for rel in rels:
        path = os.path.join(_full(git.root, rel), LOG_NAME)
        try:
            size = os.lstat(path).st_size
        except OSError:
            return False
        if logs[rel].size < size:
            return False
        with open(path, "rb") as f:
            mine = f.read()
        if _blob(git, logs[rel].blob)[:len(mine)] != mine:
            return False
    return True


def _settings_changed(git: _Git, head: str, up: str, rels: list) -> list:
    """The stores' settings files (``config``, ``REMOTES``, relative to the
    work tree) that differ between ``head`` and ``up``, sorted."""
    paths = [f"{rel}/{name}" if rel else name for rel in rels
             for name in (CONFIG_NAME, "REMOTES")]
    diff = git("diff", "--name-only", "-z", head, up, "--", *paths)
    return sorted(p for p in diff.text().split("\0") if p) if diff.ok else []


def _summaries_replaced(git: _Git, commit: str, rels: list) -> int:
    """How many of this machine's summaries the files of ``commit`` hold in
    other words (or not at all): what a fast-forward to it replaces."""
    files = _tree(git, commit)
    changed = 0
    for rel in rels:
        tree = os.path.join(_full(git.root, rel), TREE_NAME)
        try:
            names = [n for n in os.listdir(tree) if n.isdigit()]
        except OSError:
            continue
        for name in names:
            with open(os.path.join(tree, name), "rb") as f:
                mine = f.read()
            entry = files.get(f"{rel}/{TREE_NAME}/{name}" if rel else f"{TREE_NAME}/{name}")
            theirs = _blob(git, entry.blob)[:len(mine)] if entry else b""
            for k in range(0, len(mine), TREE_RECORD):
                if mine[k:k + TREE_RECORD] != theirs[k:k + TREE_RECORD]:
                    changed += 1
    return changed


def _regular_after(git: _Git, head: str) -> None:
    """After a checkout: every store file is a regular file (never a link)
    and owner-only; else put the files back at ``head`` and raise."""
    root = git.root
    for rel in store_dirs(root):
        full = _full(root, rel)
        names = [os.path.join(full, n) for n in STORE_FILES]
        tree = os.path.join(full, TREE_NAME)
        if os.path.isdir(tree) and not os.path.islink(tree):
            names += [os.path.join(tree, n) for n in os.listdir(tree)]
        elif os.path.lexists(tree):
            names.append(tree)
        for path in names:
            try:
                st = os.lstat(path)
            except OSError:
                continue
            if not stat_mod.S_ISREG(st.st_mode):
                git("reset", "-q", "--hard", head, cleanup=True)
                raise SyncError(f"{_shown(path)} is not a regular file after the checkout, so "
                                f"memo sync put the files back at {head[:12]}; nothing is "
                                f"lost", orders=[f"{PERSON} git -C {_q(root)} status"])


def _undo(root: str, before: str) -> str:
    """The person's command that puts the store back at commit ``before``:
    it refuses (exit 1, nothing changed) once any tracked file was changed
    since, so a note written after the sync is never silently dropped or
    kept half-way."""
    r = _q(root)
    return (f"git -C {r} diff --quiet HEAD -- && git -C {r} reset -q --keep {before} "
            f"&& chmod -R go-rwx {r}")


def sync(memory_dir: str, *, hook: bool = False, time_limit: float | None = None,
         yes: bool = False, drop_refused: bool = False, keep_refused: bool = False,
         unrelated: bool = False, old_redactions: bool = False) -> Report:
    """Sync the stores under ``memory_dir`` (the global store's absolute
    path) with the branch's upstream; return a ``Report``.

    ``hook``: run from a harness hook (prompts off, fast-forwards only;
    ``time_limit`` seconds for the whole sync, default ``HOOK_TIME_LIMIT``).
    ``yes``, ``drop_refused``, ``keep_refused``, ``unrelated`` and
    ``old_redactions`` are passed to each store's merge
    (``optmem.engine.merge.merge``).
    Raises ``SyncError`` (one line, then the person's steps) when the
    store is not a work tree with an upstream, git has no identity, or a
    git step fails (the store is then as it was); ``BadInput`` when a
    merge refuses (nothing changed); ``NoStore``/``Busy`` as stores do.
    """
    root = os.path.normpath(memory_dir)
    _unchecked_clone(root)
    Store.open(root).close()
    if hook and time_limit is None:
        time_limit = HOOK_TIME_LIMIT
    deadline = time.monotonic() + time_limit if time_limit is not None else None
    git = _Git(root, hook, deadline)
    _identity(git)  # first: the set-up lines commit too
    where = _where(git)
    rels = store_dirs(root)
    report = Report("up to date")
    with _Locks(root, rels, _lock_timeout(git)):
        write_git_files(root, rels)
        report.committed = _commit(git, rels)
    remote_name = where.remote
    if remote_name != ".":
        fetched = git("fetch", "-q", remote_name, f"+{where.merge_ref}:{where.upstream}",
                      network=True)
        if not fetched.ok:
            if hook and fetched.status == gitcall.SLOW:
                return _skipped(report, time_limit)
            raise SyncError(f"the fetch from {remote_name} failed ({fetched.said()}); "
                            f"{_unchanged()}" + (" (this machine's new memories are "
                                                 "committed, not yet pushed)"
                                                 if report.committed else "")
                            + _fetch_advice(fetched, remote_name, where),
                            orders=[_fetch_order(fetched, root, remote_name)])
    if hook and git.left() is not None and git.left() <= 0:
        return _skipped(report, time_limit)
    up = git("rev-parse", "-q", "--verify", f"{where.upstream}^{{commit}}")
    up = up.text() if up.ok else None
    with _Locks(root, rels, _lock_timeout(git)) as locks:
        if _commit(git, rels):
            report.committed = True
        head = report.before = _head(git)  # the store as it was, committed
        if up is None or up == head or _ancestor(git, up, head):
            pass  # the hub has nothing this machine lacks
        else:
            # nothing is checked out before the hub's commit is known safe
            logs = check_incoming(git, up, rels, _hub_name(where))
            # a fast-forward only where it renumbers nothing here
            forward = _ancestor(git, head, up) and _appends_only(git, rels, logs)
            if forward:
                check_new_records(git, up, sorted(logs), _hub_name(where))
            else:
                # a merge reads the hub's logs by its own rules, but takes a store only
                # the hub holds whole, and its summaries: checked as a fast-forward is
                check_new_records(git, up, sorted(set(logs) - set(rels)), _hub_name(where))
                check_new_records(git, up, rels, _hub_name(where), memories=False)
            settings = _settings_changed(git, head, up, rels) if forward else []
            replaced = _summaries_replaced(git, up, rels) if forward else 0
            if forward and hook and settings:
                # unattended, a hook never takes the hub's change of a
                # store's settings (a limit, a wake budget): a person's sync
                # takes it and names it
                report.action = "look first"
            elif forward:
                _clean_elsewhere(git)
                _fast_forward(git, head, up, rels)
                if settings:
                    report.lines.append(
                        f"The other machine changed {', '.join(settings)}. A person can run: "
                        f"git -C {_q(root)} diff {head[:12]} {up[:12]} -- "
                        + " ".join(_q(p) for p in settings))
                report.action = "fast-forward"
                if replaced:
                    report.lines.append(
                        f"{replaced} {'summary' if replaced == 1 else 'summaries'} of this "
                        f"machine's memories now read as the other machine wrote "
                        f"{'it' if replaced == 1 else 'them'} (the same memories; no id "
                        f"changed).")
            elif hook:
                report.action = "merge needed"
            else:
                _clean_elsewhere(git)
                report.lines += _merge(git, where, head, up, locks, yes=yes,
                                       drop_refused=drop_refused, keep_refused=keep_refused,
                                       unrelated=unrelated, old_redactions=old_redactions)
                report.action = "merged"
            _regular_after(git, head)
        rels = store_dirs(root)
        owner_only(root, rels)
        report.after = _head(git)
    if report.action not in ("merge needed", "look first") and (
            up is None or not _ancestor(git, report.after, up)):
        pushed = git("push", "-q", "--porcelain", remote_name,
                     f"HEAD:{where.merge_ref}", network=True)
        if not pushed.ok:
            report.failed = True
            if hook and pushed.status == gitcall.SLOW:
                report.lines.append(f"memo: the push to {remote_name} was skipped: git did "
                                    f"not answer within the hook's {time_limit:g} s; this "
                                    f"machine keeps its commit. {PERSON} memo sync")
            else:
                report.lines.append(f"memo: the push to {remote_name} failed "
                                    f"({pushed.said()}); this machine's store is whole and "
                                    f"committed, nothing is lost; another machine may have "
                                    f"pushed meanwhile. {PERSON} memo sync")
        else:
            report.pushed = True
            if report.action == "up to date":
                report.action = "pushed"
    return _finish(report, root, where, hook)


def _fetch_kind(answer: gitcall.Answer) -> str:
    """Why a fetch failed: ``"branch"`` (the hub has no such branch),
    ``"remote"`` (the hub cannot be read where the remote points) or ``""``."""
    said = answer.err.decode("utf-8", "replace").lower()
    if "couldn't find remote ref" in said:
        return "branch"
    if "does not appear to be a git repository" in said or "could not read from remote" \
            in said or "not found" in said or "no such file" in said:
        return "remote"
    return ""


def _fetch_advice(answer: gitcall.Answer, remote: str, where: "_Where") -> str:
    kind = _fetch_kind(answer)
    if kind == "branch":
        return (f". The hub has no branch {where.merge_ref.rsplit('/', 1)[-1]}; list its "
                f"branches, then point this one at the right one (git branch -u)")
    if kind == "remote":
        return (f". If the hub moved, point {remote} at it (git remote set-url {remote} "
                f"NEW-PLACE), then sync; this shows where it points now")
    return ""


def _fetch_order(answer: gitcall.Answer, root: str, remote: str) -> str:
    """The person's step after a failed fetch: one that can succeed as
    printed (repeating a fetch from a hub that is not there cannot)."""
    kind = _fetch_kind(answer)
    if kind == "branch":
        return f"{PERSON} git -C {_q(root)} ls-remote --heads {_q(remote)}"
    if kind == "remote":
        return f"{PERSON} git -C {_q(root)} remote -v"
    return f"{PERSON} git -C {_q(root)} fetch {_q(remote)} && memo sync"


def _lock_timeout(git: _Git) -> float | None:
    left = git.left()
    return None if left is None else max(0.5, left)


def _ancestor(git: _Git, a: str, b: str) -> bool:
    """Whether commit ``a`` is an ancestor of (or is) ``b``."""
    answer = git("merge-base", "--is-ancestor", a, b)
    if answer.status not in (0, 1):
        raise SyncError(f"git could not compare {a[:12]} and {b[:12]} ({answer.said()}); "
                        f"{_unchanged()}", orders=[f"{PERSON} git -C {_q(git.root)} fsck"])
    return answer.ok


def _fast_forward(git: _Git, head: str, up: str, rels: list) -> None:
    """``git merge --ff-only up``; on failure put the tracked files back at
    ``head`` (every store file is committed there) and raise."""
    answer = git("merge", "-q", "--ff-only", "--no-stat", up)
    if answer.ok:
        return
    back = git("reset", "-q", "--hard", head, cleanup=True)
    state = _unchanged() if back.ok else (
        f"and putting the files back failed too ({back.said()}); every memory is in "
        f"commit {head[:12]}")
    raise SyncError(f"the fast-forward to {up[:12]} failed ({answer.said()}); {state}",
                    orders=[f"{PERSON} git -C {_q(git.root)} status"])


def _skipped(report: Report, limit: float) -> Report:
    report.action = "skipped"
    report.lines.append(f"memo: the sync was skipped: git did not answer within the hook's "
                        f"{limit:g} s; this store is as it was. {PERSON} memo sync")
    return report


def _finish(report: Report, root: str, where: _Where, hook: bool) -> Report:
    """Add the summary line and the undo to ``report``."""
    hub = _hub_name(where)
    if report.action in ("fast-forward", "merged"):
        report.undo = _undo(root, report.before)
    said = {
        "up to date": f"Synced with {hub}: nothing new on either side.",
        "pushed": f"Synced with {hub}: sent this machine's new memories; nothing new "
                  f"came back.",
        "fast-forward": f"Synced with {hub}: took the other machine's new memories "
                        f"(a fast-forward; no id changed here)"
                        + (" and sent this machine's." if report.pushed else "."),
        "merged": f"Synced with {hub}: merged both machines' memories into one log"
                  + (" and sent it." if report.pushed else "."),
        "look first": f"memo: {hub} changes this machine's settings (config or "
                      f"REMOTES); a hook never takes that, so a person runs the sync, which "
                      f"names each change. {PERSON} memo sync",
        "merge needed": f"memo: {hub} and this machine both have new memories; merging them "
                        f"may renumber memories after the first difference, so a hook "
                        f"does not. {PERSON} memo sync",
    }.get(report.action)
    if said:
        report.lines.insert(0, said)
    if report.undo:
        report.lines.append("To put the store back as it was before this sync, while nothing "
                            "was written to it since (the command refuses once a note was: "
                            "that note would be lost; the hub keeps what was sent, and the "
                            "next sync takes it again):")
        report.lines.append(f"{PERSON} {report.undo}")
    return report


def _merge(git: _Git, where: _Where, head: str, up: str, locks: _Locks, **options) -> list:
    """Merge each store of commit ``up`` into this machine's (under
    ``locks``, the stores' locks, held), commit the result with parents
    ``head`` and ``up``; return the report lines. Every merge is tried dry
    first: when one refuses (``BadInput``, its steps naming ``memo sync``)
    nothing is written. A failure while writing puts every store file back
    as commit ``head`` holds it, then raises."""
    import shutil
    import tempfile

    from optmem import protocol
    from optmem.engine.merge import merge
    root = git.root
    sleep_order = protocol.run(protocol.Order("sleep"))
    ours = {rel: store for rel, store in zip(locks.rels, locks.stores)}
    listed = git.must("ls-tree", "-r", "-z", "--name-only", up,
                      what=f"listing the files of {up[:12]}").out.decode("utf-8", "surrogateescape")
    theirs = set()
    for path in listed.split("\0"):
        if path == LOG_NAME:
            theirs.add("")
        parts = path.split("/")
        if len(parts) == 3 and parts[0] == PROJECTS and parts[2] == LOG_NAME \
                and not parts[1].startswith("."):
            theirs.add(f"{PROJECTS}/{parts[1]}")
    hub = _hub_name(where)
    # inside the repository's own folder (owner-only, beside the objects that
    # hold the same memories), and swept here: a killed sync leaves no copy
    # elsewhere (every sync that gets here holds every store's lock)
    git_dir = git_path(git, "")
    for name in os.listdir(git_dir):
        if name.startswith(TMP_PREFIX):
            shutil.rmtree(os.path.join(git_dir, name), ignore_errors=True)
    tmp = tempfile.mkdtemp(prefix=TMP_PREFIX, dir=git_dir)
    lines = []
    created = []
    taken = []  #: files outside the logs taken from the hub's commit
    try:
        _extract(git, up, sorted(theirs), tmp)
        both = [rel for rel in locks.rels if rel in theirs]
        new = sorted(theirs - set(locks.rels))
        inspect = f"{PERSON} git -C {_q(root)} show --stat {up}"
        for rel in both:  # every refusal before any write
            _merge_one(merge, ours[rel], _full(tmp, rel), rel, hub, inspect, dry_run=True,
                       **options)
        try:
            for rel in both:
                report = _merge_one(merge, ours[rel], _full(tmp, rel), rel, hub, inspect,
                                    **options)
                # The store's own undo (from merge-backup/) and its lead-in give way
                # to the sync's (git), which also puts back the commit.
                lines += [line for line in report.lines
                          if not (report.undo and report.undo in line)
                          and not (report.backup and report.backup in line
                                   and line.endswith(":"))
                          and not line.endswith(sleep_order)]
                if report.backup:
                    lines.append(f"{_shown(report.backup)} keeps what this merge replaced (a "
                                 f"backup; a person deletes it once the sync is settled).")
            for rel in new:
                target = _full(root, rel)
                if os.path.lexists(target):
                    raise SyncError(f"{target} exists but holds no store, while {hub} has one "
                                    f"there; {_unchanged()}. Move it out of the way first",
                                    orders=[f"{PERSON} mv {_q(target)} {_q(target)}-moved "
                                            f"&& memo sync"])
                created.append(target)
                shutil.copytree(_full(tmp, rel), target)
                lines.append(f"Took the project store {rel} from {hub} (new on this machine).")
            owner_only(root, store_dirs(root))
            tracked = set(git.must("ls-files", "-z", what="listing the tracked files").out
                          .decode("utf-8", "surrogateescape").split("\0")) - {""}
            rels = store_dirs(root)
            git.must("add", "-A", "-f", "--", *_paths(root, rels, tracked),
                     what="staging the merged store (git add)")
            lines += _three_way(git, head, up, both, taken, hub)
            tree = git.must("write-tree", what="writing the merged tree (git write-tree)").text()
            host = socket.gethostname() or "a machine"
            message = MERGE_MESSAGE.format(upstream=hub, branch=where.branch, host=host)
            commit = git.must("commit-tree", tree, "-p", head, "-p", up, "-m", message,
                              what="recording the merge commit (git commit-tree)").text()
            git.must("update-ref", "-m", message, "HEAD", commit, head,
                     what="moving the branch to the merge commit (git update-ref)")
        except BaseException:
            _put_back(git, head, locks, created, taken)
            raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    pending = 0
    for store in locks.stores + [Store(p) for p in created]:
        try:
            from optmem import blocks
            T = store.count()
            pending += blocks.pending_count(T, store.built(T))
        except (MemoError, OSError):
            pass
        finally:
            store.close()
    if pending:
        lines.append(protocol.pending_after_import(pending))
    return lines


def _hub_name(where: _Where) -> str:
    """``origin/main``: the upstream as a person names it."""
    if where.remote == ".":
        return where.merge_ref
    return f"{where.remote}/{where.merge_ref.rsplit('/', 1)[-1]}"


def _merge_one(merge, store: Store, other: str, rel: str, hub: str, inspect: str = "",
               **options):
    """``merge(store, other, ...)`` with its lines and refusals naming the
    hub instead of the temporary folder, and ``memo sync`` as the command
    to run again; ``inspect`` is the person's order that shows the hub's
    commit, in place of any order naming the temporary copy."""
    label = f"{hub} ({rel or 'the global store'})"
    shown = _q(other)

    def reword(text: str) -> str:
        return (text.replace(f" -- {shown}", "").replace(shown, label)
                .replace(other, label))
    try:
        report = merge(store, other, again="memo sync", **options)
    except MemoError as err:
        # an order naming the temporary copy cannot run once it is gone:
        # the person looks at the hub's commit instead
        def names_copy(order: str) -> bool:
            order = order.replace(f" -- {shown}", "").replace(f" -- {other}", "")
            return other in order or shown in order
        orders = [inspect if names_copy(o) else reword(o) for o in err.orders]
        args = []
        for a in err.args:
            at = a.find(f" {PERSON} ") if isinstance(a, str) else -1
            if at >= 0 and names_copy(a[at:]):
                a = a[:at]
                orders.insert(0, inspect)
            args.append(reword(a) if isinstance(a, str) else a)
        err.args = tuple(args)
        err.orders = tuple(dict.fromkeys(orders))
        raise
    return report._replace(lines=[reword(line) for line in report.lines])


def _extract(git: _Git, commit: str, rels: list, into: str) -> None:
    """Write the files of the stores ``rels`` at ``commit`` under ``into``
    (``git archive``, read as a tar in memory): regular files and folders
    only, no path leaving ``into``; line ends never converted."""
    import io
    import tarfile
    if not rels:
        return
    pathspecs = [] if "" in rels else [f"{rel}/" for rel in rels]
    answer = git.must("-c", "core.autocrlf=false", "archive", "--format=tar", commit, "--",
                      *pathspecs, what=f"reading the stores of {commit[:12]} (git archive)")
    with tarfile.open(fileobj=io.BytesIO(answer.out), mode="r:") as tar:
        for member in tar:
            parts = member.name.split("/")
            if member.name.startswith("/") or ".." in parts:
                continue
            path = os.path.join(into, *[p for p in parts if p])
            if member.isdir():
                os.makedirs(path, mode=0o700, exist_ok=True)
            elif member.isfile():
                os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
                data = tar.extractfile(member).read()
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                try:
                    atomic.write_all(fd, data)
                finally:
                    os.close(fd)


def _three_way(git: _Git, head: str, up: str, merged: list, taken: list, hub: str) -> list:
    """Bring into the index and the work tree every file outside the
    merged stores' logs and levels (``merged``: their folders) that only
    the hub's commit ``up`` changed since the merge base (a config, a salt,
    a file of the person's), appending each path to ``taken``; a file both
    sides changed keeps this machine's version. Return the report lines."""
    base = git("merge-base", head, up)
    trees = [_tree(git, c) if c else {} for c in
             (base.text() if base.ok else None, head, up)]

    def ident(tree, path):
        entry = tree.get(path)
        return (entry.mode, entry.blob) if entry else None
    take, drop, kept = [], [], []
    for path in sorted(set().union(*trees)):
        rel, inner = _store_part(path)
        if rel in merged and (inner == LOG_NAME or inner.startswith(f"{TREE_NAME}/")):
            continue  # merge's rules made these
        b, h, u = (ident(tree, path) for tree in trees)
        if u == h or u == b:
            continue  # nothing new from the hub
        if h is None and u is not None and os.path.lexists(os.path.join(git.root, path)):
            # an untracked file here: neither overwritten nor dropped from the hub
            raise SyncError(f"{_shown(path)} is a file of this machine git does not track, "
                            f"and {hub} has one of that name; {_unchanged()}. A person "
                            f"moves it aside (and compares the two), then syncs",
                            orders=[f"{PERSON} mv -- {_q(os.path.join(git.root, path))} "
                                    f"{_q(os.path.join(git.root, path))}.mine && memo sync"])
        if h != b:
            kept.append(path)
        elif u is None:
            drop.append(path)
        else:
            take.append(path)
    taken += take + drop
    if take:
        git.must("checkout", "-q", up, "--", *take,
                 what=f"taking the files only {hub} changed (git checkout)")
    if drop:
        git.must("rm", "-q", "-f", "--", *drop,
                 what=f"removing the files {hub} removed (git rm)")
    if not kept:
        return []
    names = ", ".join(_shown(p) for p in kept)
    return [f"Kept this machine's {names}: {hub} changed {'it' if len(kept) == 1 else 'them'} "
            f"too, and memo merges only the logs; compare the two before changing either:",
            f"{PERSON} git -C {_q(git.root)} diff {head[:12]} {up[:12]} -- "
            + " ".join(_q(p) for p in kept)]


def _put_back(git: _Git, head: str, locks: _Locks, created: list,
              taken: list = ()) -> None:
    """Put every store file back as commit ``head`` holds it (all were
    committed there under the same locks): tracked files checked out,
    level files the merge added and project stores it took removed. Best
    effort: the exception under way is what the person sees."""
    import shutil
    for path in created:
        shutil.rmtree(path, ignore_errors=True)
    answer = git("ls-tree", "-r", "-z", "--name-only", head)
    tracked = set(answer.out.decode("utf-8", "surrogateescape").split("\0")) - {""}
    paths = [p for p in _paths(git.root, locks.rels, tracked) if p in tracked]
    for path in _paths(git.root, locks.rels, set()):
        if path not in tracked and f"/{TREE_NAME}/" in f"/{path}":
            try:
                os.unlink(os.path.join(git.root, path))
            except OSError:
                pass
    if paths:
        git("checkout", "-q", head, "--", *paths)
    back = [p for p in taken if p in tracked]
    if back:
        git("checkout", "-q", head, "--", *back)
    for path in taken:
        if path not in tracked:
            git("rm", "-q", "--cached", "--ignore-unmatch", "--", path)
            try:
                os.unlink(os.path.join(git.root, path))
            except OSError:
                pass
    for store in locks.stores:
        store.close()


# -- from a harness hook -----------------------------------------------------------

def ready(memory_dir: str) -> bool:
    """Whether the store at ``memory_dir`` is the top of a git work tree
    whose branch has an upstream (what ``memo setup`` asks before it makes
    the hooks sync). A few local git calls; False when git is missing."""
    if not os.path.lexists(os.path.join(memory_dir, ".git")):
        return False
    try:
        _where(_Git(memory_dir, True, None))
    except MemoError:
        return False
    return True


def hook_sync(memory_dir: str, time_limit: float | None = None) -> list:
    """Sync from a hook (``sync(hook=True)``: fast-forwards only, prompts
    off, ``time_limit`` seconds, default ``HOOK_TIME_LIMIT``); return the
    lines a person should see: none when it went well, else what was not
    done and ``A person can run: memo sync`` (a merge needed, the time
    limit reached, a failed push or git step). Never raises."""
    try:
        report = sync(memory_dir, hook=True, time_limit=time_limit)
    except MemoError as err:
        return [f"memo: the sync was not done: {err}", *err.orders]
    except OSError as err:
        return [f"memo: the sync was not done: {err.filename or memory_dir}: "
                f"{err.strerror}. {PERSON} memo sync"]
    return [line for line in report.lines if line.startswith("memo: ")]

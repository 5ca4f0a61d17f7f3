"""Replicas: the marks sync tools and git leave on a store, and what to do.

People keep ``MEMORY_DIR`` in a synced folder or a git repository. Two
machines writing one identity then meet, and the tools reconcile the files
in ways a fixed-width log does not survive whole:

- a **conflict copy** beside a store file: Syncthing's
  ``LOG.sync-conflict-<date>-<time>-<device>.txt``, Dropbox's and
  Nextcloud's ``LOG (<who>'s conflicted copy <date>).txt``, rclone bisync's
  ``LOG.txt.conflict1`` (or ``..path1``), git's ``LOG.txt.orig`` and
  mergetool's ``LOG_LOCAL_<pid>.txt``, an editor's ``LOG.txt~``;
- **conflict markers** (``<<<<<<<``, ``=======``, ``>>>>>>>``) written into
  ``LOG.txt`` by a merge that stopped half way, which shifts every record
  after them;
- **memories out of place**: a log whose records repeat an id, as
  ``merge=union`` leaves it (both machines' new lines, one after the other);
- a **level longer than the log allows**: summaries of memories the log
  does not hold, as when an older ``LOG.txt`` is copied over a newer one;
- a **live-synced folder** around the store (``.stfolder``, ``.dropbox``,
  ...) or a git work tree whose attributes merge the log as text.

``memo check`` reads everything and calls ``findings``; ``memo wake`` calls
``optmem.engine.marks.quick_warning``, which costs two ``stat`` calls (one
listing when the folder changed), the ``stat`` calls wake makes anyway plus
one, and at most two small reads, and imports this module only to word a
warning. Every piece of
advice is ordered by what loses nothing: keep every copy, find the other
one, compare, and only then a step that drops anything. Run in the order
printed, no step undoes an earlier one's writes (a git merge is ended before
the other side's memories are imported), and every ``a person can run:``
command ends its line and runs as printed, its numbers computed from the two
logs (where one cannot be known, the step says what to find in words,
with no command); ``memo redact`` is
advised only for a record damaged in itself (``check`` decides that with
``LogDamage``), never for a memory that is merely out of place. Nothing
here writes to the store. Steps only a person may take are printed
``A person can run: ...`` (docs/protocol.md).
"""

from __future__ import annotations

import os
import stat as stat_mod

from optmem import atomic, blocks, protocol
from optmem.engine import marks
from optmem.engine.marks import (
    BACKUP_NAME,
    MARKER_SOURCE,
    WHOLE_SOURCE,
    Copy,
    compiled,
)
from optmem.store.memory import LOG_NAME, LOG_RECORD, TREE_NAME, TREE_RECORD, Store

#: Where the README explains running one identity on several machines.
README_SECTION = "README \"One identity on several machines\""

#: Files or directories whose presence in a folder marks it as synced live.
_SYNCED_MARKS = [
    (".stfolder", "Syncthing"), (".dropbox", "Dropbox"), (".dropbox.cache", "Dropbox"),
    (".sync", "Resilio Sync"), (".owncloudsync.log", "Nextcloud or ownCloud"),
    (".nextcloudsync.log", "Nextcloud"), (".tresorit", "Tresorit"),
    (".rslsync", "Resilio Sync"), (".unison", "Unison"),
]

def _q(path: str) -> str:
    """``path`` as one shell word of an order (``textform.quoted``)."""
    from optmem.textform import quoted
    return quoted(path)


def _s(path: str) -> str:
    """``path`` as a sentence shows it (``textform.shown``): a name never
    brings a line break or a control character of its own."""
    from optmem.textform import shown
    return shown(path)



def quick_warning(store: Store, look=None, flag: str = "") -> str | None:
    """One line for ``memo wake`` naming what a sync tool or a merge left,
    and what resolves it, or None: ``marks.quick_look``'s ``Look`` (taken
    here when not given) in words. ``flag``: the scope flag that names the
    store (``--global``, ``--project NAME``; empty: none), which its steps
    carry so they run where the wake was asked."""
    look = marks.quick_look(store) if look is None else look
    if look is None:
        return None
    seen = []
    copies, count = look.copies, look.count
    for c in copies[:2]:
        seen.append(f"{_s(c.name)} beside {c.of} is a conflict copy ({c.tool})")
    if len(copies) > 2:
        seen.append(f"and {len(copies) - 2} more conflict copies")
    if look.log_size is not None:
        seen.append(f"{LOG_NAME} is {look.log_size:,} bytes, not a whole number of "
                    f"{LOG_RECORD}-byte records (a merge or an edit)")
    if look.last_head is not None:
        m = compiled(WHOLE_SOURCE).match(look.last_head)
        what = f"holds #{int(m.group(1))}" if m else "is not a memory"
        seen.append(f"the last record of {LOG_NAME} (#{count - 1}) {what}: "
                    f"records are out of place (a merge?)")
    if look.over:
        top = max((n * s for s, n in look.over.items()), default=0)
        seen.append(f"{TREE_NAME}/ summarises memories up to #{top - 1} but {LOG_NAME} "
                    f"ends at #{count - 1} (an older log put back?)" if count else
                    f"{TREE_NAME}/ summarises memories up to #{top - 1} but {LOG_NAME} is "
                    f"empty (an older log put back?)")
    head = ("Warning: a sync tool or a merge changed this store: " + "; ".join(seen)
            + ". Memories may be missing below; nothing is lost yet. ")
    if len(seen) == 1 and len(copies) == 1 and copies[0].of == LOG_NAME:
        # The one case a merge settles whole: the copy kept outside the store, merged in.
        return head + ("Keep every copy; a person moves the copy out of the store and merges "
                       "it. " + protocol.person_can_run(keep_and_merge(store, copies[0].path,
                                                                        flag)))
    return head + ("Keep every copy and ask a person to settle it. "
                   + protocol.run(protocol.Order("check", (), protocol.Order.scoped(flag))))


def keep_and_merge(store: Store, copy: str, flag: str = "") -> str:
    """The person's command that keeps the conflict copy ``copy`` of the log
    as a store of its own beside this one (a folder name not taken yet)
    and merges it into this store (``memo merge``, with ``flag``, the
    scope flag that names the store)."""
    other_dir = _free_asides(store, 1)[0]
    merge = protocol.Order("merge", ("--", protocol.Value(other_dir)), protocol.Order.scoped(flag),
                           person=True, flag_first=True)
    return (f"mkdir -m 700 {_q(other_dir)} && mv {_q(copy)} "
            f"{_q(os.path.join(other_dir, LOG_NAME))} && {merge.command()}")


# -- check: reading everything -------------------------------------------------

class LogDamage:
    """What ``check`` found wrong in ``LOG.txt``, sorted by kind.

    ``add(i, why, record)`` takes each bad record (``record`` is the 320
    bytes at position ``i``, or fewer at the end). A record that ends in its
    newline, holds no other newline and does not start with another
    memory's head ``#<id> <date> `` with an id below ``i`` is damaged in
    itself (``in_itself``: ``[(i, why)]``; ``memo redact`` is the way out).
    A whole memory whose id is below its position is ``misplaced``
    (positions and ids, two arrays): a line-by-line merge of two
    append-only logs puts records after their place, never before it;
    a record whose newline is not at its end is ``shifted`` (bytes were
    inserted or removed before it). A lone shifted record between good ones
    is damaged in itself after all (a byte of its own was changed).
    """

    def __init__(self) -> None:
        from array import array  # check's alone: not paid by wake
        self.in_itself = []
        self.misplaced = array("q")
        self.misplaced_ids = array("q")
        self.shifted = array("q")
        self._why = {}

    def add(self, i: int, why: str, record: bytes) -> None:
        """File bad record ``i`` under its kind."""
        aligned = len(record) == LOG_RECORD and record.find(b"\n") == LOG_RECORD - 1
        m = compiled(WHOLE_SOURCE).match(record)
        if aligned and m and int(m.group(1)) < i:
            self.misplaced.append(i)
            self.misplaced_ids.append(int(m.group(1)))
        elif not aligned:
            self.shifted.append(i)
            self._why[i] = why
        else:
            self.in_itself.append((i, why))

    def settle(self, store: Store) -> None:
        """Move lone shifted records (neighbours fine, no conflict marker in
        them) to ``in_itself``. Reads only those records."""
        bad = set(self.misplaced) | set(self.shifted)
        from array import array
        keep = array("q")
        for i in self.shifted:
            lone = (i - 1) not in bad and (i + 1) not in bad
            if lone and not compiled(MARKER_SOURCE).search(store.read_log(i * LOG_RECORD, LOG_RECORD)):
                self.in_itself.append((i, self._why[i]))
            else:
                keep.append(i)
        self.shifted = keep
        self.in_itself.sort()

    def out_of_place(self) -> bool:
        """True when records are misplaced or shifted (a merge's shape)."""
        return bool(self.misplaced or self.shifted)


def _markers(store: Store, start: int) -> list:
    """Offsets of conflict-marker lines in ``LOG.txt`` from byte ``start``
    (read in 4 MiB chunks; at most 20 offsets)."""
    out = []
    size = store.log_size()
    step = 1 << 22
    offset = max(0, start - 16)
    while offset < size and len(out) < 20:
        data = store.read_log(offset, step + 16)
        for m in compiled(MARKER_SOURCE).finditer(data):
            at = offset + m.start()
            if (at == 0 or store.read_log(at - 1, 1) == b"\n") and at not in out:
                out.append(at)
        offset += step
    return out[:20]


def _git(root: str, *args: str) -> str | None:
    """Output of ``git -C root args`` (stripped), or None when git is absent,
    fails, or takes over 10 s."""
    from optmem import gitcall  # only a store kept in git: not every wake's import
    answer = gitcall.run_git(list(args), root, gitcall.git_env(GIT_OPTIONAL_LOCKS="0", LC_ALL="C"))
    return answer.text() if answer.ok else None


def _git_top(root: str) -> str | None:
    """The git work tree holding ``root``, found by looking for ``.git``
    upward (no subprocess), or None."""
    path = os.path.abspath(root)
    while True:
        if os.path.lexists(os.path.join(path, ".git")):
            return path
        parent = os.path.dirname(path)
        if parent == path:
            return None
        path = parent


class _Git:
    """What git knows about the store's folder (only asked when needed)."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.top = _git_top(root)
        self.merging = bool(self.top and _git(root, "rev-parse", "-q", "--verify", "MERGE_HEAD"))
        parents = (_git(root, "rev-list", "--parents", "-n", "1", "HEAD") or "").split()
        self.head_is_merge = bool(self.top) and len(parents) == 3

    def other_side(self) -> str | None:
        """The revision holding the other machine's log, or None."""
        if self.merging:
            return "MERGE_HEAD"
        if self.head_is_merge:
            return "HEAD^2"
        return None

    def this_side(self) -> str | None:
        """The revision holding this machine's log before the merge, or None."""
        if self.merging:
            return "HEAD"
        if self.head_is_merge:
            return "HEAD^1"
        return None


def _steps(lines: list) -> str:
    return "\n".join(f"  {k}. {line}" for k, line in enumerate(lines, 1))


def _aside(store: Store, what: str) -> str:
    """A path beside the store directory (never inside it) for ``what``."""
    return os.path.abspath(store.root).rstrip(os.sep) + "-" + what


def _carry_steps(store: Store, other_dir: str, fork: int) -> list:
    """The step that merges the other store's memories in (``memo merge``:
    the other store is only read, what the merge replaces is kept in
    ``merge-backup/``, and its report says how to undo it); ``fork`` (the
    first memory the logs disagree on) is no longer needed by the step. The
    command ends the line and runs as printed."""
    return [f"merge the other copy's memories into this store (memo merge reads the other "
            f"store only, keeps what it replaces in {BACKUP_NAME}/ and prints how to undo "
            f"it; ids from where the logs part may change): "
            f"{merge_step(other_dir)}"]


def merge_step(other: str) -> str:
    """The person's ``memo merge`` of ``other`` (a store's directory),
    lower-case as a numbered step says it."""
    return f"a person can run: memo merge -- {_q(other)}"


def _carry_in_words(store: Store, other_dir: str) -> list:
    """The carry step when where the logs part cannot be computed: a merge
    needs no such point, so it is the same step."""
    return _carry_steps(store, other_dir, 0)


def _git_merge_steps(store: Store, git: "_Git", keep: bool) -> list:
    """Steps for a store in a git merge (in progress, or committed as
    ``HEAD``): make a store of the other side's log, settle this side's log
    and TREE in git first, then ``memo merge`` the other side in and commit,
    so that no later step undoes an earlier one's writes. Whether the other
    side holds anything new is computed by reading both sides from git."""
    root, log = _q(store.root), store.log_path
    this, other = git.this_side(), git.other_side()
    other_dir = _aside(store, "other")
    other_log = os.path.join(other_dir, LOG_NAME)
    steps = []
    if keep:
        steps.append(f"keep this file as it is: a person can run: cp -p {_q(log)} "
                     f"{_q(_aside(store, 'LOG-as-found.txt'))}")
    steps.append(f"make a store of the other machine's log as git kept it ({other}): a person "
                 f"can run: mkdir -m 700 {_q(other_dir)} && git -C {root} show "
                 f"{other}:./{LOG_NAME} > {_q(other_log)}")
    steps.append(f"see where they part: a person can run: diff -a {_q(log)} {_q(other_log)}")
    tree = f" {TREE_NAME}" if os.path.isdir(store.tree_path) else ""
    if git.merging:
        steps.append(f"end the merge keeping this machine's files first (the other side stays "
                     f"in git's history and in {_s(other_dir)}): a person can run: git -C {root} "
                     f"checkout --ours -- {LOG_NAME}{tree} && git -C {root} add -A . && "
                     f"git -C {root} commit --no-edit")
    else:
        steps.append(f"put back this machine's log ({this}) here: a person can run: "
                     f"git -C {root} show {this}:./{LOG_NAME} > {_q(log)}")
    parted = _git_compare(store.root, this, other)
    carried = parted is None or parted[2] > parted[0]
    if carried:
        steps += _carry_steps(store, other_dir, parted[0] if parted else 0)
    else:
        steps.append(f"the other side's log holds no memory this one lacks (its "
                     f"{protocol.plural(parted[2], 'memory agrees', 'memories agree')} with this "
                     f"log's first ones): nothing to carry over")
    commit = (f"git -C {root} add -A . && git -C {root} commit -q -m "
              f"{_q('memo: the other machine' + chr(39) + 's memories merged')}")
    if carried:
        # merge-backup/ stays out of git: it may hold text a person redacts later.
        ignore, line = _q(os.path.join(store.root, ".gitignore")), _q(BACKUP_NAME + "/")
        commit = f"(grep -qsx {line} {ignore} || echo {line} >> {ignore}) && {commit}"
    if carried or not git.merging:
        what = "the merged memories" if git.merging else "this machine's log"
        what += " and the merged memories" if carried and not git.merging else ""
        if carried:
            what += f" (with {BACKUP_NAME}/ left out of git)"
        steps.append(f"commit {what}: a person can run: {commit}")
    return steps


def _gitattributes_step(store: Store) -> str:
    where = os.path.join(_git_top(store.root) or store.root, ".gitattributes")
    return (f"stop git merging the log as text: put the lines `{LOG_NAME} binary` and "
            f"`{TREE_NAME}/** binary` in {where} (no merge=union), and push fast-forward "
            f"only; see the {README_SECTION}")


def _log_problem(store: Store, T: int, damage: LogDamage) -> str | None:
    """The one problem that describes out-of-place records, or None."""
    if not damage.out_of_place():
        return None
    first = min(list(damage.misplaced[:1]) + list(damage.shifted[:1]))
    marks = _markers(store, first * LOG_RECORD)
    git = _Git(store.root)
    log = store.log_path
    size = store.log_size()
    if marks:
        shown = ", ".join(f"{m:,}" for m in marks[:3]) + (", ..." if len(marks) > 3 else "")
        counted = protocol.plural(len(marks), "marker line", "marker lines")
        head = (f"{_s(log)} holds git conflict markers ({counted}"
                f", at byte offsets {shown}): a merge stopped half way and wrote both machines' "
                f"lines into the log, so from #{first} on its records are out of place "
                f"({size:,} bytes). Every memory of both machines is still in the file, "
                f"between the markers: nothing is lost yet.")
    elif damage.misplaced:
        n = len(damage.misplaced)
        pos, ids = damage.misplaced[0], damage.misplaced_ids[0]
        repeat = sorted(set(damage.misplaced_ids))
        ids_text = (f"#{repeat[0]}" if len(repeat) == 1 else
                    f"#{repeat[0]}-#{repeat[-1]}" if repeat[-1] - repeat[0] == len(repeat) - 1
                    else ", ".join(f"#{r}" for r in repeat[:5]) + (", ..." if len(repeat) > 5 else ""))
        head = (f"{_s(log)} holds {protocol.plural(n, 'memory', 'memories')} out of place: position {pos} "
                f"holds #{ids}" + (f" (in all, ids {ids_text} appear at positions that are not "
                                   f"theirs)" if n > 1 else "")
                + ". Ids that repeat are what a line-by-line merge leaves (git with "
                "merge=union, or copies joined by hand): both machines' new memories, one "
                "after the other. Each record is a real memory: nothing is lost yet.")
    else:
        head = (f"{_s(log)} is shifted from record #{first} (offset {first * LOG_RECORD:,}) on: "
                f"bytes were inserted or removed there ({size:,} bytes in all), by an edit or "
                f"a merge tool. The memories are still in the file, only out of step: "
                f"nothing is lost yet.")
    this, other = git.this_side(), git.other_side()
    keep = _aside(store, "LOG-as-found.txt")
    steps = [f"keep this file as it is: a person can run: cp -p {_q(log)} {_q(keep)}"]
    if git.top and this and other:
        steps = _git_merge_steps(store, git, keep=True)
    elif git.top:
        steps += [f"find the commits that hold the log as each machine left it, put this "
                  f"machine's back over {_s(log)} (git show COMMIT:./{LOG_NAME}) and make a store "
                  f"of the other one the same way (mkdir -m 700 DIR, its log as "
                  f"DIR/{LOG_NAME}); the commits are listed by: a person can run: "
                  f"git -C {_q(store.root)} log --oneline -- {LOG_NAME}"]
    else:
        steps += [f"find a whole copy of the log (the other machine's store, a backup) and "
                  f"put it back over {_s(log)}; make a store of each other copy (mkdir -m 700 "
                  f"DIR, the copy as DIR/{LOG_NAME}) and read it out: a person can run: "
                  f"MEMORY_DIR=DIR memo export"]
    if git.top:
        steps.append(_gitattributes_step(store))
    steps.append("never memo redact or memo forget these records: each is a real memory; "
                 "once the log is whole again, memo check says so")
    return head + "\n" + _steps(steps)


class _LogReader:
    """``LOG.txt`` read in order through ``Store.read_log`` (a file-like
    ``read(n)`` for ``_agree``)."""

    def __init__(self, store: Store) -> None:
        self.store, self.offset = store, 0

    def read(self, n: int) -> bytes:
        data = self.store.read_log(self.offset, n)
        self.offset += len(data)
        return data


def _agree(a, b) -> tuple:
    """``(agree, ours, theirs)`` for two logs read from ``a`` and ``b``
    (file-likes with ``read(n)``, read to the end): how many leading whole
    320-byte records they share, and how many whole records each holds."""
    step = 4096 * LOG_RECORD
    agree, sizes, parted = 0, [0, 0], False
    while True:
        x, y = a.read(step), b.read(step)
        if not x and not y:
            break
        sizes[0] += len(x)
        sizes[1] += len(y)
        if parted:
            continue
        n = min(len(x), len(y)) // LOG_RECORD
        k = n
        if x[:n * LOG_RECORD] != y[:n * LOG_RECORD]:
            k = next(j for j in range(n)
                     if x[j * LOG_RECORD:(j + 1) * LOG_RECORD] != y[j * LOG_RECORD:(j + 1) * LOG_RECORD])
        agree += k
        parted = k < n or len(x) != len(y) or len(x) % LOG_RECORD != 0
    ours, theirs = sizes[0] // LOG_RECORD, sizes[1] // LOG_RECORD
    return min(agree, ours, theirs), ours, theirs


def _compare(store: Store, path: str) -> tuple:
    """``(agree, ours, theirs)``: how many leading records ``LOG.txt`` and
    the copy at ``path`` share, and how many whole records each holds."""
    try:
        f = atomic.open_file(path)  # a FIFO named like a copy is refused, not waited on
    except OSError:
        return 0, store.log_size() // LOG_RECORD, 0
    with f:
        return _agree(_LogReader(store), f)


def _git_compare(root: str, this: str, other: str) -> tuple | None:
    """``(agree, ours, theirs)`` as ``_compare`` gives it, for ``LOG.txt``
    as git holds it at the revisions ``this`` and ``other`` (both streamed
    from ``git show``, never held whole); None when git cannot show either."""
    import subprocess

    from optmem import gitcall
    procs = []
    try:
        for rev in (this, other):
            procs.append(subprocess.Popen(
                ["git", "-C", root, "show", f"{rev}:./{LOG_NAME}"], stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, env=gitcall.git_env(GIT_OPTIONAL_LOCKS="0")))
        out = _agree(procs[0].stdout, procs[1].stdout)
        codes = [p.wait(timeout=10) for p in procs]
    except (OSError, subprocess.SubprocessError):
        return None
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
            p.stdout.close()
    return None if any(codes) else out


def _free_asides(store: Store, n: int) -> list:
    """``n`` distinct folder names beside the store for copies kept as
    stores of their own (``<store>-other``, ``<store>-other-2``, ...), none
    taken yet, so each copy's steps run as printed."""
    out, k = [], 1
    while len(out) < n:
        path = _aside(store, "other" if k == 1 else f"other-{k}")
        if not os.path.lexists(path):
            out.append(path)
        k += 1
    return out


def _log_copy_problem(store: Store, c: Copy, other_dir: str | None = None) -> str:
    agree, ours, theirs = _compare(store, c.path)
    log = store.log_path
    head = f"{_s(c.path)} is a conflict copy of {LOG_NAME} left by {c.tool}: two machines wrote this store."
    if other_dir is None:
        other_dir = _free_asides(store, 1)[0]
    keep_copy = (f"keep the copy as a store of its own, outside this one{{}}: a person can "
                 f"run: mkdir -m 700 {_q(other_dir)} && mv {_q(c.path)} "
                 f"{_q(os.path.join(other_dir, LOG_NAME))}")
    compare = f"see the difference: a person can run: diff -a {_q(log)} {_q(c.path)}"
    steps = []
    if theirs <= agree:
        head += (f" The copy's {protocol.plural(theirs, 'memory is', 'memories are')} all in {LOG_NAME} "
                 f"(#0-#{theirs - 1}), so it holds nothing the log lacks." if theirs else
                 " The copy holds no whole memory.")
        steps = [compare, keep_copy.format(" (or delete it once the diff shows nothing of "
                                            "its own)")]
    elif ours <= agree:
        head += (f" It is newer: it holds {LOG_NAME}'s {protocol.plural(ours, 'memory', 'memories')} "
                 f"and {protocol.plural(theirs - ours, 'more', 'more')} (#{ours}-#{theirs - 1}) that "
                 f"exist only in the copy. Nothing is lost yet: keep both files.")
        older = _aside(store, "LOG-older.txt")
        steps = [compare,
                 f"put the newer log back, keeping this one, and move the copy out of the "
                 f"store: a person can run: cp -p {_q(log)} {_q(older)} && cp -p {_q(c.path)} "
                 f"{_q(log)} && mv {_q(c.path)} {_q(_aside(store, 'LOG-copy-as-found.txt'))}"]
    else:
        head += (f" {LOG_NAME} and the copy agree on " +
                 (f"#0-#{agree - 1}" if agree else "no memory") + ", then differ: "
                 f"{LOG_NAME} has {protocol.plural(ours - agree, 'memory', 'memories')} the copy "
                 f"lacks (#{agree}-#{ours - 1}), the copy has {theirs - agree} that "
                 f"{'exists' if theirs - agree == 1 else 'exist'} only there (its "
                 f"#{agree}-#{theirs - 1}). Nothing is lost yet: keep both files.")
        steps = ["let only one machine write this store from now on",
                 compare, keep_copy.format("")] + _carry_steps(store, other_dir, agree)
    steps.append("never memo redact or memo forget as a first step; once the copy is "
                 "settled, memo check says whether the store is whole")
    return head + "\n" + _steps(steps)


def _other_copies_problem(store: Store, copies: list) -> str:
    names = ", ".join(f"{_s(c.path)} ({c.tool}, a copy of {c.of})" for c in copies[:6])
    more = f" and {len(copies) - 6} more" if len(copies) > 6 else ""
    keep = _aside(store, "copies")
    return (f"conflict copies beside the store's files: {names}{more}. Another machine or a "
            f"tool wrote this store; a copy of a summary may be the only summary of the other "
            f"machine's memories, so keep them.\n" + _steps([
                f"move them out of the store, all together: a person can run: "
                f"mkdir -m 700 {_q(keep)} && mv " + " ".join(_q(c.path) for c in copies) +
                f" {_q(keep)}/",
                "settle the log first (the lines above); the summaries in TREE/ are then "
                "checked by memo check and rebuilt by memo sleep where needed"]))


def overrun_problem(store: Store, T: int, over: dict, copies: list) -> str:
    """The problem for levels longer than the log allows (``over`` is
    ``{size: records}`` from ``marks.level_overruns``), with the newer log looked
    for first and ``memo forget`` only as a person's last step."""
    top = max(n * s for s, n in over.items())
    files = ", ".join(f"{_s(store.level_path(s))} ({protocol.plural(n, 'summary', 'summaries')}, the log "
                      f"completes {protocol.plural(T // s, 'block', 'blocks')} of {s})"
                      for s, n in sorted(over.items()))
    ends = f"ends at #{T - 1}" if T else "is empty"
    head = (f"{files}: the summaries reach memory #{top - 1} but {LOG_NAME} {ends}, so the log "
            f"looks older than its summaries (a backup or another machine's older copy put "
            f"back over it?). The summaries past the log may be the only trace of the newer "
            f"memories: nothing is lost yet.")
    where = [c.path for c in copies if c.of == LOG_NAME]
    look = ("look for the newer log before anything else: " +
            (f"the conflict copies {', '.join(where)}; " if where else "") +
            "a backup, the other machine's store" +
            (f", git: a person can run: git -C {_q(store.root)} log --oneline -- {LOG_NAME}"
             if _git_top(store.root) else ""))
    s0 = min(over)
    lo = (T // s0) * s0
    kept = _aside(store, "TREE-kept")
    steps = [look,
             f"if you find it, keep this log aside, then copy the newer one you found over "
             f"{_s(store.log_path)}: a person can run: cp -p {_q(store.log_path)} "
             f"{_q(_aside(store, 'LOG-older.txt'))}",
             f"only if no newer log exists anywhere, keep the summaries and drop them from "
             f"the store: a person can run: cp -pR {_q(store.tree_path)} {_q(kept)} && "
             f"memo forget {blocks.block_name(lo, lo + s0)}"]
    return head + "\n" + _steps(steps)


#: Files of the store that never hold a memory's text: the lock, the
#: journal, the kept-appends note and the redaction marker (numbers only).
_NO_TEXT = frozenset([".lock", ".append", ".append.kept", ".redacted", "salt"])
#: Folders of the store memo itself fills with copies of records (a merge
#: keeps the replaced tail and summaries there): walked like ``TREE/``.
_COPY_FOLDERS = frozenset([TREE_NAME, BACKUP_NAME])
_SCAN_FILES = 10000  #: most files ``files_holding`` reads in one call
_SCAN_DEPTH = 4  #: how deep it walks a folder memo left beside the store


def _holds(path: str, needle: bytes) -> bool:
    """Does regular file ``path`` contain ``needle``? Read in 1 MiB chunks
    (overlapping by ``len(needle) - 1`` bytes), never following a link; an
    unreadable file counts as holding it (nobody can tell it does not)."""
    try:
        fd = atomic.open_regular(path, follow=False)  # a FIFO is never waited on
    except OSError:
        return True
    try:
        tail = b""
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return False
            if needle in tail + chunk:
                return True
            tail = (tail + chunk)[-(len(needle) - 1):] if len(needle) > 1 else b""
    except OSError:
        return True
    finally:
        os.close(fd)


def _walk(path: str, depth: int, out: list) -> None:
    """Regular files under ``path`` (a file or a folder), at most
    ``_SCAN_DEPTH`` levels down and ``_SCAN_FILES`` in all; links are never
    followed."""
    if len(out) >= _SCAN_FILES:
        return
    try:
        st = os.lstat(path)
    except OSError:
        return
    if stat_mod.S_ISREG(st.st_mode):
        out.append(path)
    elif stat_mod.S_ISDIR(st.st_mode) and depth < _SCAN_DEPTH:
        try:
            names = sorted(os.listdir(path))
        except OSError:
            return
        for name in names:
            _walk(os.path.join(path, name), depth + 1, out)


def files_holding(store: Store, text: str) -> list:
    """Every file other than ``LOG.txt`` in or beside ``store`` that still
    holds ``text`` (as UTF-8 bytes), sorted: conflict copies and backups
    in the store directory and in ``TREE/`` (``copy_of``), every file a merge
    kept in ``merge-backup/``, ``recovered.txt``,
    a link's ``.link-moved``, and whatever memo's steps put beside the store
    (``<store>-moved-...``, ``<store>-LOG-as-found.txt``, ``<store>-other/``,
    ...; ``_aside``, ``Store.move_aside``). Project stores under
    ``projects/`` are other memories, not copies, and are not read. Reads
    at most ``_SCAN_FILES`` files."""
    needle = text.encode("utf-8", "surrogateescape")
    if not needle:
        return []
    root = os.path.abspath(store.root).rstrip(os.sep)
    paths = []
    try:
        names = sorted(os.listdir(root))
    except OSError:
        names = []
    for name in names:
        if name in (LOG_NAME, "projects") or name in _NO_TEXT:
            continue
        _walk(os.path.join(root, name), 1 if name in _COPY_FOLDERS else _SCAN_DEPTH, paths)
    parent, base = os.path.dirname(root), os.path.basename(root)
    try:
        beside = sorted(n for n in os.listdir(parent) if n.startswith(base + "-"))
    except OSError:
        beside = []
    for name in beside:
        _walk(os.path.join(parent, name), 0, paths)
    return [p for p in paths if _holds(p, needle)]


def surroundings(store: Store) -> list:
    """Notes (not problems) on where the store lives: a live-synced folder
    around it, a git work tree and how its attributes treat ``LOG.txt``."""
    notes = []
    path = os.path.abspath(store.root)
    seen_tools = set()
    while True:
        for mark, tool in _SYNCED_MARKS:
            if tool not in seen_tools and os.path.lexists(os.path.join(path, mark)):
                seen_tools.add(tool)
                notes.append(f"the store is inside a folder {tool} keeps in sync "
                             f"({os.path.join(path, mark)}): let one machine at a time write "
                             f"it, never two at once; see the {README_SECTION}")
        parent = os.path.dirname(path)
        if parent == path:
            break
        path = parent
    top = _git_top(store.root)
    if top:
        attrs = _git(store.root, "check-attr", "binary", "merge", "text", "--", LOG_NAME) or ""
        values = {}
        for line in attrs.splitlines():
            parts = line.rsplit(": ", 2)
            if len(parts) == 3:
                values[parts[1]] = parts[2]
        merge = values.get("merge", "unspecified")
        if merge == "union":
            notes.append(f"git merges {LOG_NAME} with merge=union (see {top}/.gitattributes): "
                         f"two machines' memories would be interleaved with repeated ids; "
                         f"mark it `{LOG_NAME} binary` instead; see the {README_SECTION}")
        elif values.get("binary") != "set" and merge not in ("unset", "binary"):
            notes.append(f"the store is in a git work tree ({top}) that merges {LOG_NAME} as "
                         f"text: a merge can write conflict markers into it; put `{LOG_NAME} "
                         f"binary` and `{TREE_NAME}/** binary` in {top}/.gitattributes; see "
                         f"the {README_SECTION}")
    return notes


def defer(problem: str) -> str:
    """A problem line whose last step (``protocol.Problem.then``: ``memo
    forget ...``, ``memo check --repair``, a person's ``memo redact``) waits
    until the copies are settled: a person's step then, never an agent's
    order. Any other line is returned as it is."""
    order = getattr(problem, "then", None)
    if order is None or not ((order.verb == "forget" and not order.person)
                             or (order.verb == "check" and order.words == ("--repair",)
                                 and not order.person)
                             or (order.verb == "redact" and order.person)):
        return problem
    command = order.command() if order.person else order.command(protocol.orders_form())
    lead = problem.sentence.rstrip()
    lead = lead if lead.endswith(".") else lead.rstrip(";,") + "."
    return f"{lead} Settle the findings above first. {protocol.person_can_run(command)}"


def _unmerged_problem(store: Store, damage: LogDamage) -> str | None:
    """A git merge in progress that left ``LOG.txt`` unmerged (as it does
    for a binary log): the store looks whole, but the other machine's new
    memories are only in ``MERGE_HEAD``. None otherwise."""
    if damage.out_of_place() or not _git_top(store.root):
        return None
    git = _Git(store.root)
    if not git.merging:
        return None
    unmerged = _git(store.root, "diff", "--name-only", "--diff-filter=U", "--relative",
                    "--", LOG_NAME)
    if not unmerged:
        return None
    head = (f"a git merge is in progress and {_s(store.log_path)} is unmerged: the file holds "
            f"this machine's log (the store reads whole), while the other machine's new "
            f"memories are only in git's MERGE_HEAD. Nothing is lost yet.")
    steps = _git_merge_steps(store, git, keep=False)
    steps.append("let one machine at a time write this store; see the " + README_SECTION)
    return head + "\n" + _steps(steps)


def _level_marker_problems(store: Store) -> dict:
    """``{size: problem}`` for level files holding git conflict markers.
    Only a level that is not a whole number of records is read (a marker
    line makes it so), in 4 MiB chunks."""
    out = {}
    for size, nbytes in sorted(store.level_bytes().items()):
        if nbytes % TREE_RECORD == 0:
            continue
        path = store.level_path(size)
        first = None
        try:
            with atomic.open_file(path) as f:
                offset = 0
                while first is None:
                    data = f.read(1 << 22)
                    if not data:
                        break
                    m = compiled(MARKER_SOURCE).search(data)
                    if m:
                        first = offset + m.start()
                    offset += len(data) - 16
                    f.seek(offset)
                    if len(data) < (1 << 22):
                        break
        except OSError:
            continue
        if first is None:
            continue
        k = first // TREE_RECORD
        lo = k * size
        kept = _aside(store, f"TREE-{size}-as-found")
        out[size] = (f"{_s(path)} holds git conflict markers (the first at byte offset {first:,}): a "
                   f"merge wrote both machines' summaries into it, so from record {k} on they "
                   f"are out of place. Summaries are a cache of the log: nothing is lost while "
                   f"the log is whole.\n" + _steps([
                       "settle the log first (any finding above)",
                       f"keep this file: a person can run: cp -p {_q(path)} {_q(kept)}",
                       f"then drop the markers and the summaries from there on (memo sleep "
                       f"rebuilds them from the log): a person can run: "
                       f"memo forget {blocks.block_name(lo, lo + size)}"]))
    return out


def findings(store: Store, T: int, copies: list, damage: LogDamage, over: dict) -> list:
    """Problems (one multi-line entry each) for what sync tools and merges
    left: out-of-place records in the log, conflict copies, levels longer
    than the log. Empty when there is none. Reads the log copies whole."""
    out = []
    for problem in (_log_problem(store, T, damage), _unmerged_problem(store, damage)):
        if problem:
            out.append(problem)
    logs = [c for c in copies if c.of == LOG_NAME]
    for c, other_dir in zip(logs, _free_asides(store, len(logs))):
        out.append(_log_copy_problem(store, c, other_dir))
    others = [c for c in copies if c.of != LOG_NAME]
    if others:
        out.append(_other_copies_problem(store, others))
    marked = _level_marker_problems(store)
    over = {s: n for s, n in over.items() if s not in marked}  # the markers explain it
    if over:
        out.append(overrun_problem(store, T, over, copies))
    out += marked.values()
    return out

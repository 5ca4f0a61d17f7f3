"""Safe edits of a harness's files: what ``memo setup`` may change, and how.

Every file is changed the same way (docs/harness.md, from the faults of
other setups listed there):

- Every target is read and its new bytes computed before the first write;
  one refusal (a file that is not JSON, a dangling link, malformed markers,
  a folder that cannot be written) stops the run with nothing written.
  Just before writing, each file is read again: if it changed meanwhile,
  nothing is written.
- Links: in user scope a symlink is followed (the link stays a link); two
  targets that are one file (a symlink, or a hard link: same device and
  inode) are written once. In project scope (a repository someone else may
  have written) a target that is a link, or whose folders lead outside the
  project, is refused (``contained``), unless it names another target of
  the same run; the write there opens folder by folder without following
  a link, so one swapped in after the check is refused, not followed.
  A file with several hard links is rewritten in place, so the names stay
  one file; any other file is replaced atomically (temporary file in the
  same folder, fsync, rename), keeping its mode.
- Before a file changes, its bytes are copied under
  ``<state>/backups/`` (never over an older backup).
- Installing what is already installed changes no byte and makes no backup.
- ``--uninstall`` of a file nobody touched since setup writes back its
  exact bytes from before (or removes the file and the folders setup made);
  a file changed since gets only memo's entries taken out.
- Text files keep their BOM and line ends; JSON files keep their indent,
  key order, final newline and numbers as written, and are refused when a
  value would not come back alike (a key twice, ``NaN``).
- Folders setup makes (and memo's state folders) are 0700 whatever the umask.

The content rules are pure functions over bytes (``optmem.harness.formats``:
``json_*``, ``md_*``, ``mcp_*``, ``dotenv_*``), ``Edit`` ties one to a file;
this module reads the targets, plans every change and applies it.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import re
import stat as stat_mod
import time
from dataclasses import dataclass, field
from typing import Optional

from optmem import atomic, gitcall
from optmem.harness import state
from optmem.harness.formats import (  # noqa: F401 - the rules a harness module names as edit.*
    BOM,
    MCP_NAME,
    MCP_SERVERS,
    OURS,
    Edit,
    RawNumber,
    Refused,
    block_edit,
    dotenv_edit,
    dotenv_install,
    dotenv_state,
    dotenv_uninstall,
    is_our_server,
    is_ours,
    json_dump,
    json_install,
    json_load,
    json_state,
    json_uninstall,
    mcp_edit,
    mcp_entry,
    mcp_install,
    mcp_state,
    mcp_uninstall,
    md_install,
    md_state,
    md_uninstall,
    settings_edit,
)

# -- git: would a commit take the file? ------------------------------------

def committable(path: str) -> Optional[str]:
    """The top folder of the git work tree that holds ``path`` (absolute,
    links already followed) when git would commit it there (it is tracked,
    or untracked and not ignored); None when it is ignored, not in a work
    tree, or git cannot be asked. The repository's fsmonitor and hooks stay
    off (``gitcall.SAFE_OPTIONS``), and git looks where the file is
    (``gitcall.folder_env``)."""
    git = [*gitcall.SAFE_OPTIONS, "-C", os.path.dirname(path)]
    env = gitcall.folder_env()
    top = gitcall.run_git(git + ["rev-parse", "--show-toplevel"], env=env, timeout=30)
    if not top.ok or not top.text():
        return None
    ignored = gitcall.run_git(git + ["check-ignore", "-q", "--", path], env=env, timeout=30)
    return os.path.normpath(top.text()) if ignored.status == 1 else None


# -- reading targets --------------------------------------------------------

@dataclass
class Target:
    """A file as read before any write: where it really is, and its bytes."""
    path: str            #: as the harness names it
    real: str            #: links followed
    data: Optional[bytes]  #: None: no such file yet
    identity: tuple      #: (device, inode), or the real path for a new file
    nlink: int = 1
    mode: Optional[int] = None


def _within(path: str, root: str) -> bool:
    try:
        return os.path.commonpath([path, root]) == root
    except ValueError:  # another drive
        return False


def _show(text: str) -> str:
    """A name a repository chose, fit for one line: quoted when it holds a
    line break or another unprintable character, cut after 200 characters."""
    text = text if len(text) <= 200 else text[:199] + "\u2026"
    return text if text.isprintable() else repr(text)


def contained(path: str, root: str, outcome: str = "nothing was written") -> None:
    """Check that ``path`` is a file of the project folder ``root`` reached
    through no link: the name itself is not a link, and its folder (links
    among the folders followed) resolves inside ``root``. Raises ``Refused``
    (one line naming the file, then ``outcome``) otherwise."""
    real_root = os.path.realpath(root)
    hand = "a person may still edit it by hand"
    if os.path.islink(path):
        raise Refused(f"{path} is a link (to {_show(os.readlink(path))}); in a project memo setup "
                      f"writes through no link, so {outcome}; {hand}")
    folder = os.path.realpath(os.path.dirname(path))
    if not _within(folder, real_root):
        raise Refused(f"{path} lies in {os.path.dirname(path)}, which leads outside the "
                      f"project (to {_show(folder)}); in a project memo setup writes only inside "
                      f"it, so {outcome}; {hand}")


def read_target(path: str, root: Optional[str] = None) -> Target:
    """Read ``path`` for editing. ``root``: the project folder, for project
    scope (see ``contained``). Raises ``Refused`` for a dangling link, a
    folder, a file that cannot be read, a folder that cannot be written, or
    a project file that is a link or lies outside ``root``."""
    if root is not None:
        contained(path, root)
    if os.path.islink(path) and not os.path.exists(path):
        raise Refused(f"{path} is a link to {os.readlink(path)}, which does not exist; "
                      f"create that file or remove the link, then run memo setup again")
    real = os.path.realpath(path)
    if os.path.isdir(real):
        from optmem import protocol
        raise Refused(f"{path} is a folder, not a file; once a person moves it aside, memo "
                      f"setup can write the file. {protocol.move_aside(path, path + '.moved')}")
    folder = os.path.dirname(real)
    probe = folder
    while not os.path.exists(probe):
        probe = os.path.dirname(probe)
    if not os.access(probe, os.W_OK | os.X_OK):
        raise Refused(f"cannot write in {probe} (for {path}): permission denied; "
                      f"check its owner and mode, then run memo setup again")
    try:
        with atomic.open_file(real) as f:
            st = os.fstat(f.fileno())
            data = f.read()
    except FileNotFoundError:
        return Target(path, real, None, ("new", real))
    except atomic.NotRegular as err:
        raise Refused(err.line.replace("memo does not open it", "memo setup does not open it")
                      ) from None
    except OSError as err:
        raise Refused(f"cannot read {path}: {err.strerror}; check its owner and mode, "
                      f"then run memo setup again") from None
    if not os.access(real, os.W_OK):
        raise Refused(f"{path} is read-only; make it writable (chmod u+w), then run memo "
                      f"setup again")
    return Target(path, real, data, (st.st_dev, st.st_ino), st.st_nlink,
                  stat_mod.S_IMODE(st.st_mode))


# -- planning and writing ---------------------------------------------------

@dataclass
class Step:
    """One planned file change: ``new`` is None to remove the file."""
    edit: Edit
    target: Target
    new: Optional[bytes]
    aliases: list = field(default_factory=list)  #: other names of the same file
    note: str = ""

    @property
    def changed(self) -> bool:
        return self.new != self.target.data

    def diff(self) -> str:
        """A unified diff of the change (text; binary-safe enough for JSON/markdown)."""
        old = (self.target.data or b"").decode("utf-8", "replace").splitlines(keepends=True)
        new = (self.new or b"").decode("utf-8", "replace").splitlines(keepends=True)
        return "".join(difflib.unified_diff(old, new, self.target.path, self.target.path))


def _sha(data: Optional[bytes]) -> Optional[str]:
    return None if data is None else hashlib.sha256(data).hexdigest()


def manifest_path(environ=None) -> str:
    """Where ``memo setup`` records what it wrote (see ``plan``)."""
    return os.path.join(state.state_dir(environ), "setup.json")


def plan(edits: list, key: str, uninstall: bool, environ=None,
         root: Optional[str] = None) -> list:
    """Read every target and compute its new bytes; return the ``Step``s.

    ``key`` names this install (``claude:user``...). Targets that are one
    file are planned once (the later names become ``aliases``). For an
    uninstall, a file another install still uses keeps its content, and a
    file unchanged since setup wrote it gets back its exact bytes from
    before. ``root`` (project scope: the project folder) confines every
    target to it, through no link (``contained``), except a link that
    names another target of this same run under its own name (``CLAUDE.md``
    a link to ``AGENTS.md``): that file is written once, under that name.
    Raises ``Refused`` (nothing written) for the first target that cannot
    be edited safely.
    """
    manifest = state.load(manifest_path(environ)).get("files", {})
    steps, seen = [], {}
    if root is not None:  # plain files first, so a link can find its file
        edits = ([e for e in edits if not os.path.islink(e.path)]
                 + [e for e in edits if os.path.islink(e.path)])
    for edit in edits:
        if root is not None and os.path.islink(edit.path):
            real = os.path.realpath(edit.path)
            step = next((s for s in steps if s.target.real == real), None)
            if step is None:
                contained(edit.path, root)  # raises: a link to no file of this run
            step.aliases.append(edit.path)
            continue
        target = read_target(edit.path, root)
        if target.identity in seen:
            seen[target.identity].aliases.append(edit.path)
            continue
        record = manifest.get(_record_key(manifest, target), {})
        if not uninstall:
            new = edit.install(target.data)
        else:
            others = [u for u in record.get("users", []) if u != key]
            if others:
                new, note = target.data, f"kept: memo setup {others[0].split(':')[0]} uses it too"
                step = Step(edit, target, new, note=note)
                steps.append(step)
                seen[target.identity] = step
                continue
            if record and record.get("after") == _sha(target.data) and "before" in record:
                new = _restore(record)
            else:
                new = edit.uninstall(target.data, record.get("env") or {})
        step = Step(edit, target, new)
        steps.append(step)
        seen[target.identity] = step
    if root is not None:
        for step in steps:
            _hard_links_inside(step)
    return steps


def _hard_links_inside(step: Step) -> None:
    """Refuse (``Refused``) a project file with more hard links than the
    names this run writes it under: another name may be a file outside the
    project, which setup must not write through."""
    names = 1 + sum(1 for a in step.aliases if not os.path.islink(a))
    if step.target.data is not None and step.target.nlink > names:
        raise Refused(f"{step.target.path} has {step.target.nlink} hard links, not all of them "
                      f"files this setup writes (one may lie outside the project); in a "
                      f"project memo setup writes through no link, so nothing was written; "
                      f"a person may still edit it by hand")


def _record_key(files: dict, target: Target) -> str:
    """The manifest key of ``target``: its real path, or the path of a
    record that is the same file under another name (a hard link)."""
    if target.real in files or target.data is None:
        return target.real
    for key in files:
        try:
            if os.path.samefile(key, target.real):
                return key
        except OSError:
            continue
    return target.real


def _restore(record: dict) -> Optional[bytes]:
    """The bytes a file had before setup first changed it (None: no file)."""
    if record["before"] is None:
        return None
    try:
        with atomic.open_file(record["before"]) as f:
            return f.read()
    except atomic.NotRegular as err:
        raise Refused(err.line) from None
    except OSError as err:
        raise Refused(f"the backup {record['before']} cannot be read ({err.strerror}); "
                      f"restore it, then run memo setup --uninstall again") from None


def _backup(target: Target, folder: str) -> str:
    """Copy the file's bytes under ``folder``; return the backup's path."""
    state.private_dirs(folder)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", target.real.strip(os.sep))
    for n in range(1000):
        dest = os.path.join(folder, f"{stamp}-{n}-{name}")
        try:
            fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            continue
        try:
            atomic.write_all(fd, target.data)
            os.fsync(fd)
        except BaseException:
            os.close(fd)
            os.unlink(dest)  # no backup cut short stays behind
            raise
        os.close(fd)
        return dest
    raise Refused(f"too many backups in {folder}; clear some, then run memo setup again")


#: What a refusal at write time says was (not) written.
LATE = "this file was not written (files before it in this run were)"

#: Whether folders can be walked by descriptor, refusing links on the way
#: (POSIX); elsewhere a project's folders are checked by path just before.
_BY_FD = (os.open in os.supports_dir_fd and os.mkdir in os.supports_dir_fd
          and os.rename in os.supports_dir_fd and os.unlink in os.supports_dir_fd
          and hasattr(os, "O_NOFOLLOW") and hasattr(os, "O_DIRECTORY"))


def _folder_fd(target: Target, root: str, create: bool) -> tuple:
    """``(fd, made)``: the target's folder opened by walking down from the
    project folder ``root`` one name at a time, refusing any name that is a
    link (so a folder swapped for a link after ``contained`` checked it is
    never followed), and creating missing ones owner-only when ``create``.
    Raises ``Refused`` for a link on the way, ``OSError`` otherwise."""
    real_root = os.path.realpath(root)
    folder = os.path.dirname(target.real)
    rel = os.path.relpath(folder, real_root)
    parts = [] if rel == os.curdir else rel.split(os.sep)
    if os.pardir in parts:
        contained(target.path, root, LATE)  # raises
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
    fd = os.open(real_root, os.O_RDONLY | os.O_DIRECTORY)
    made, here = [], real_root
    try:
        for part in parts:
            here = os.path.join(here, part)
            try:
                sub = os.open(part, flags, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                os.mkdir(part, 0o700, dir_fd=fd)
                sub = os.open(part, flags, dir_fd=fd)
                state.owner_only(here, sub)
                made.append(here)
            except OSError as err:
                if os.path.islink(here):
                    raise Refused(f"{here} became a link while memo setup was writing, "
                                  f"and in a project memo setup writes through no link, so "
                                  f"{LATE}; a person may still edit {target.path} by "
                                  f"hand") from None
                raise err
            os.close(fd)
            fd = sub
    except BaseException:
        os.close(fd)
        raise
    return fd, made


def _write(target: Target, data: bytes, new_mode: int, root: Optional[str] = None) -> list:
    """Write ``data`` to the file; return the folders created for it (0700).
    ``root``: the project folder the file must stay in (see ``_folder_fd``)."""
    if root is not None:
        contained(target.path, root, LATE)
        if _BY_FD:
            return _write_in(target, data, new_mode, root)
    made = state.private_dirs(os.path.dirname(target.real))
    if root is None and target.data is not None and target.nlink > 1:
        # Several names, one file: rewrite in place so the names stay one.
        with open(target.real, "r+b") as f:
            f.write(data)
            f.truncate()
            f.flush()
            os.fsync(f.fileno())
        return made
    atomic.replace_file(target.real, data, target.mode if target.mode is not None else new_mode)
    return made


def _write_in(target: Target, data: bytes, new_mode: int, root: str) -> list:
    """``_write`` inside a project: every folder and the file itself opened
    relative to its folder's descriptor, never through a link; a new file is
    a temporary name renamed over the old one (a link put there meanwhile is
    replaced, not followed; a file with more hard links than the names
    this run writes is refused by ``plan``, and again here if one appeared)."""
    dfd, made = _folder_fd(target, root, create=True)
    name = os.path.basename(target.real)
    try:
        if target.data is not None and target.nlink > 1:  # names of this run (plan checked)
            fd = os.open(name, os.O_RDWR | os.O_NOFOLLOW, dir_fd=dfd)
            try:
                if os.fstat(fd).st_nlink != target.nlink:
                    raise Refused(f"{target.path} gained or lost a hard link while memo setup "
                                  f"was writing, so {LATE}; a person may still edit it by hand")
                atomic.write_all(fd, data)
                os.ftruncate(fd, len(data))
                os.fsync(fd)
            finally:
                os.close(fd)
            return made
        atomic.replace_file(name, data, target.mode if target.mode is not None else new_mode,
                            dir_fd=dfd)
        return made
    finally:
        os.close(dfd)


def _remove(target: Target, root: Optional[str]) -> None:
    """Remove the file (``root``: inside the project, through no link)."""
    if root is None:
        os.unlink(target.real)
        return
    contained(target.path, root, LATE)
    if not _BY_FD:
        os.unlink(target.real)
        return
    dfd, _ = _folder_fd(target, root, create=False)
    try:
        os.unlink(os.path.basename(target.real), dir_fd=dfd)
    finally:
        os.close(dfd)


def apply(steps: list, key: str, uninstall: bool, environ=None,
          root: Optional[str] = None) -> None:
    """Write the planned changes and record them in the manifest.

    Every changed file is read again first; if one changed since ``plan``
    read it, ``Refused`` is raised and nothing is written. ``root``: the
    project folder, as for ``plan``; each write there walks its folders
    without following a link. Raises ``OSError`` (or ``Refused`` for a link
    that appeared meanwhile) for a write that fails: earlier files keep
    their new, whole content and their backups, and the manifest records
    them."""
    for step in steps:
        if step.changed and read_target(step.target.path, root).data != step.target.data:
            raise Refused(f"{step.target.path} changed while memo setup was reading it; "
                          f"nothing was written. Run memo setup again")
    mpath = manifest_path(environ)
    manifest = state.load(mpath)
    files = manifest.setdefault("files", {})
    backups = os.path.join(state.state_dir(environ), "backups")
    umask = os.umask(0)
    os.umask(umask)
    made = []  #: folders setup created, to remove once empty (uninstall)
    try:
        for step in steps:
            _apply_one(step, files, key, uninstall, backups, umask, made, root)
        for folder in sorted(set(made), key=len, reverse=True):
            if os.path.realpath(folder) != folder:
                continue  # a link now stands on the way: leave it be
            try:
                os.rmdir(folder)  # only when empty: anything else put there stays
            except OSError:
                pass
    finally:
        if not files:
            manifest.pop("files", None)
        state.save(mpath, manifest)


def _apply_one(step: Step, files: dict, key: str, uninstall: bool, backups: str,
               umask: int, made: list, root: Optional[str]) -> None:
    """Write one planned step and update its manifest record in ``files``
    (``made``: folders to remove once empty, extended on uninstall)."""
    real = _record_key(files, step.target)
    record = files.get(real)
    if uninstall:
        if step.note:  # another install keeps it
            record["users"] = [u for u in record["users"] if u != key]
            return
        if step.changed:
            if step.target.data is not None:
                _backup(step.target, backups)
            if step.new is None:
                _remove(step.target, root)
                made += (record or {}).get("made", [])
            else:
                _write(step.target, step.new, 0o600, root)
        files.pop(real, None)
        return
    if record is None:
        record = files[real] = {"users": []}
    if "after" in record and record["after"] != _sha(step.target.data):
        # Someone edited it since setup wrote it: the bytes from before
        # would undo their edit, so from now on uninstall takes out only ours.
        record.pop("before", None)
        record["edited"] = True
    if step.changed:
        if "before" not in record and not record.get("edited"):
            record["before"] = (None if step.target.data is None
                                else _backup(step.target, backups))
        mode = 0o600 if step.edit.local else 0o666 & ~umask
        new_dirs = _write(step.target, step.new, mode, root)
        if new_dirs and "made" not in record:
            record["made"] = new_dirs
        record["after"] = _sha(step.new)
    if step.edit.env:
        added = {k: v for k, v in step.edit.env.items()
                 if step.changed or k in record.get("env", {})}
        if added:
            record["env"] = added
    if key not in record["users"]:
        record["users"].append(key)

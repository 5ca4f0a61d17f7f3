"""A breaker's findings, each for its whole kind: a ``.git`` file or link
that names another repository binds nothing; FIFOs, sockets and folders
where memo reads a file are refused, never waited on; hard links in project
scope are not written through; remotes in forms git reads differently are
never matched. Fixtures are built here, in scratch folders."""

from __future__ import annotations

import os
import socket

import pytest
from test_projects import git, make_repo, needs_git

from optmem import projects

VICTIM_FACT = "victim fact: launch codes live in the ops vault"
VICTIM_REMOTE = "https://github.com/victim/x.git"


@pytest.fixture
def victim(memo, memory_dir, tmp_path, monkeypatch):
    """A global store and the project ``victim`` bound to the repository
    ``tmp_path/victim`` (with a remote), holding one fact."""
    assert memo("init").exit_code == 0
    repo = make_repo(tmp_path / "victim", VICTIM_REMOTE)
    monkeypatch.chdir(repo)
    r = memo("init", "--project", "victim")
    assert r.exit_code == 0, r.stderr
    r = memo("note", "--project", "victim", VICTIM_FACT)
    assert r.exit_code == 0, r.stderr
    return repo


def _in(monkeypatch, folder):
    folder.mkdir(parents=True, exist_ok=True)
    monkeypatch.chdir(folder)


# -- 1. a .git file or link never binds to another repository ---------------

@needs_git
@pytest.mark.parametrize("form", ["absolute", "relative", "subfolder", "symlink"])
def test_hostile_dotgit_binds_nothing(memo, victim, tmp_path, monkeypatch, form):
    evil = tmp_path / "evil"
    evil.mkdir()
    if form == "symlink":
        os.symlink(victim / ".git", evil / ".git")
    elif form == "relative":
        (evil / ".git").write_text("gitdir: " + os.path.relpath(victim / ".git", evil) + "\n")
    else:
        (evil / ".git").write_text(f"gitdir: {victim / '.git'}\n")
    where = evil / "sub" if form == "subfolder" else evil
    _in(monkeypatch, where)
    assert projects.find_repository(str(where))[0] == "foreign"
    r = memo("scope")
    assert r.exit_code == 0, r.stderr
    assert "Project: none" in r.stdout and ".git" in r.stdout, r.stdout
    assert "memo init --project NAME" not in r.stdout
    r = memo("wake")
    assert VICTIM_FACT not in r.stdout
    before = (tmp_path / "mem" / "projects" / "victim" / "LOG.txt").read_bytes()
    memo("note", "planted by the hostile folder")
    assert (tmp_path / "mem" / "projects" / "victim" / "LOG.txt").read_bytes() == before


@needs_git
def test_real_worktree_and_submodule_still_bind(memo, victim, tmp_path, monkeypatch):
    wt = tmp_path / "wt"
    git(victim, "worktree", "add", "-q", str(wt))
    monkeypatch.chdir(wt)
    assert projects.find_repository(str(wt)) == ("repo", os.path.realpath(wt))
    r = memo("scope")
    assert "Project: victim" in r.stdout, r.stdout
    assert VICTIM_FACT in memo("wake").stdout

    lib = make_repo(tmp_path / "lib")
    git(victim, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "lib")
    sub = victim / "lib"
    assert (sub / ".git").is_file()
    git(sub, "config", "optmem.project", "victim")
    monkeypatch.chdir(sub)
    assert projects.find_repository(str(sub)) == ("repo", os.path.realpath(sub))
    r = memo("scope")
    assert "Project: victim" in r.stdout, r.stdout


# -- 2. a FIFO (or socket) where memo reads a file is refused, never waited on

def _memo_proc(*args, cwd=None, input=None, env=None):
    """Run the real ``memo`` in a process; a generous timeout is the failure
    path only (a FIFO would make it wait forever)."""
    import subprocess
    import sys
    try:
        return subprocess.run([sys.executable, "-m", "optmem", *args], cwd=cwd,
                              input=input, capture_output=True, text=True,
                              env=dict(os.environ, **(env or {})), timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail(f"memo {' '.join(args)} waited on a FIFO")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize("name", ["recovered.txt", ".append", ".append.kept"])
def test_fifo_side_file_in_store_is_refused(memo, inited, tmp_path, name):
    assert memo("note", "one fact before the fifo").exit_code == 0
    if name == "recovered.txt":  # a torn tail: the next write keeps its bytes there
        with open(inited / "LOG.txt", "ab") as f:
            f.write(b"torn")
    os.mkfifo(inited / name)
    runs = [["note", "a fact about fifos"], ["wake"], ["check"], ["redact", "1", "--yes"]]
    named = False
    for args in runs:
        done = _memo_proc(*args, cwd=str(tmp_path))
        if done.returncode != 0 and name in done.stderr:
            assert "not a regular file" in done.stderr and "mv --" in done.stderr, done.stderr
            named = True
    assert named
    assert (inited / name).exists()


@needs_git
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifo_remotes_is_refused(memo, victim, tmp_path):
    remotes = tmp_path / "mem" / "projects" / "victim" / "REMOTES"
    remotes.unlink()
    os.mkfifo(remotes)
    other = make_repo(tmp_path / "other", "https://github.com/other/y.git")
    done = _memo_proc("scope", cwd=str(other))
    assert done.returncode == 1 and "REMOTES" in done.stderr and "mv --" in done.stderr, \
        (done.stdout, done.stderr)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize("flags", [[], ["--dry-run"], ["--status"]])
def test_fifo_claude_md_in_setup_is_refused(inited, tmp_path, flags):
    proj = tmp_path / "proj"
    proj.mkdir()
    os.mkfifo(proj / "CLAUDE.md")
    home = tmp_path / "home"
    home.mkdir()
    args = ["setup", "claude", "--scope", "project", "--project", str(proj), *flags]
    if flags == ["--status"]:
        args = ["setup", "--status", "--project", str(proj)]
    done = _memo_proc(*args, cwd=str(proj), env={"HOME": str(home)})
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    assert "CLAUDE.md is a FIFO, not a regular file" in out and "mv --" in out, out


# -- 3. setup in project scope writes through no hard link ------------------

def test_setup_project_refuses_hard_linked_file(memo, inited, tmp_path):
    proj = tmp_path / "proj"
    proj.mkdir()
    outside = tmp_path / "outside.md"
    outside.write_text("a file outside the project\n")
    os.link(outside, proj / "CLAUDE.md")
    r = memo("setup", "claude", "--scope", "project", "--project", str(proj))
    assert r.exit_code == 1
    assert "hard links" in r.stderr and "CLAUDE.md" in r.stderr, r.stderr
    assert outside.read_text() == "a file outside the project\n"


# -- 4. a folder where memo keeps a file: the write and check name the mv ----

def test_recovered_txt_folder_names_the_mv(memo, inited):
    assert memo("note", "one fact").exit_code == 0
    with open(inited / "LOG.txt", "ab") as f:
        f.write(b"torn")
    (inited / "recovered.txt").mkdir()
    r = memo("note", "two")
    assert r.exit_code == 1
    assert "recovered.txt is a directory" in r.stderr and "mv -- " in r.stderr, r.stderr
    r = memo("check")
    assert r.exit_code == 1 and "The store is whole" not in r.stdout + r.stderr
    assert "recovered.txt is a directory" in r.stdout + r.stderr
    assert "mv -- " in r.stdout + r.stderr


# -- 5. init without a name adopts a project only by a shared remote ---------

@needs_git
def test_init_without_name_does_not_adopt_project_without_remotes(memo, inited, tmp_path,
                                                                 monkeypatch):
    plain = tmp_path / "plain"
    plain.mkdir()
    monkeypatch.chdir(plain)
    assert memo("init", "--project", "x").exit_code == 0
    remotes = tmp_path / "mem" / "projects" / "x" / "REMOTES"
    assert not remotes.exists() or remotes.read_text() == ""
    evil = make_repo(tmp_path / "evil", "https://evil.example/attacker/x.git")
    monkeypatch.chdir(evil)
    r = memo("init", "--project")
    assert r.exit_code == 1 and "memo init --project NAME" in r.stderr, r.stderr
    assert not remotes.exists() or remotes.read_text() == ""
    r = memo("init", "--project", "x")  # the person names it: adopted
    assert r.exit_code == 0, r.stderr
    assert "evil.example/attacker/x" in remotes.read_text()
    assert memo("init", "--project").exit_code == 0  # bound now: a second run is fine


# -- 6. remotes: non-ASCII refused before case folding; helpers are named -----

@pytest.mark.parametrize("url", ["https://github.com/victim/\u212a",  # Kelvin sign
                                 "git@github.com:victim/\u017f",  # long s
                                 "https://git\u212aub.com/victim/x",
                                 "git@githu\u017f.com:victim/x"])
def test_non_ascii_remote_is_never_matched(url):
    host, _, why = projects.parse_remote(url)
    assert host is None and why == projects.AMBIGUOUS
    assert projects.normalise_remote(url) is None


@needs_git
def test_scope_names_an_ext_helper_remote(memo, victim, tmp_path, monkeypatch):
    other = make_repo(tmp_path / "other")
    git(other, "remote", "add", "origin", "ext::sh -c touch% /tmp/x")
    monkeypatch.chdir(other)
    r = memo("scope")
    assert r.exit_code == 0, r.stderr
    assert "Remotes not matched" in r.stdout and "origin" in r.stdout, r.stdout


# -- 7. deep nesting and sockets ---------------------------------------------

def test_hook_with_deeply_nested_stdin_loads_the_memory(memo, inited):
    assert memo("note", "a fact the hook must load").exit_code == 0
    r = memo("hook", "session-start", "--harness", "claude", input="[" * 100_000)
    assert r.exit_code == 0, r.stderr
    assert "a fact the hook must load" in r.stdout
    assert "at session startup" in r.stdout


def test_setup_names_a_too_deeply_nested_settings_file(tmp_path):
    from optmem.harness import edit
    path = str(tmp_path / "settings.json")
    with pytest.raises(edit.Refused) as err:
        edit.json_load(b"[" * 100_000, path)
    assert path in str(err.value) and "nested too deeply" in str(err.value)


@pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="no unix sockets here")
def test_socket_claude_md_is_not_a_regular_file(inited, tmp_path, monkeypatch):
    proj = tmp_path / "proj"
    proj.mkdir()
    monkeypatch.chdir(proj)
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind("CLAUDE.md")
        home = tmp_path / "home"
        home.mkdir()
        done = _memo_proc("setup", "claude", "--scope", "project", "--project", str(proj),
                          cwd=str(proj), env={"HOME": str(home)})
    finally:
        sock.close()
    assert done.returncode == 1
    assert "CLAUDE.md is a socket, not a regular file" in done.stderr, done.stderr
    assert "mv -- " in done.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifo_named_like_a_conflict_copy_does_not_stop_check(memo, inited, tmp_path):
    assert memo("note", "one fact").exit_code == 0
    os.mkfifo(inited / "LOG.txt.orig")
    done = _memo_proc("check", cwd=str(tmp_path))
    assert "LOG.txt.orig" in done.stdout + done.stderr

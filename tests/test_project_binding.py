"""What binds a folder to a project, and what never does.

A project is named only by the repository's own git config: ``optmem.project``
or a remote matched where git would fetch it from. Built in scratch folders:
a folder shaped like a bare repository committed inside a clone (and alone),
with and without a person's ``safe.bareRepository=explicit``; remotes whose
host git reads differently from a naive parser, checked against git itself
(a recording ``GIT_SSH_COMMAND`` and hosts under ``.invalid`` that never
resolve); a submodule cloned from such a URL; and git missing from ``PATH``
or too slow to answer.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from test_projects import GIT, git, make_repo, needs_git

from optmem import projects
from optmem.harness import HARNESSES, inject
from optmem.projects import normalise_remote

VICTIM_FACT = "victim private fact: the release key is in vault seven"
VICTIM_REMOTE = "github.com/victim/private"
CLEAN_GIT = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
             "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
             "GIT_COMMITTER_EMAIL": "t@t"}


@pytest.fixture
def victim(memo, memory_dir, tmp_path, monkeypatch):
    """A global store and the project ``private`` (the victim's) holding one
    fact, its remote recorded; made from a folder outside any repository."""
    plain = tmp_path / "plain"
    plain.mkdir()
    monkeypatch.chdir(plain)
    assert memo("init").exit_code == 0
    assert memo("init", "--project", "private").exit_code == 0
    (memory_dir / "projects" / "private" / "REMOTES").write_text(VICTIM_REMOTE + "\n")
    r = memo("note", "--project", "private", VICTIM_FACT)
    assert r.exit_code == 0, r.stderr
    return memory_dir


def logs(memory_dir):
    return ((memory_dir / "LOG.txt").read_bytes(),
            (memory_dir / "projects" / "private" / "LOG.txt").read_bytes())


def person_config(tmp_path, text: str):
    """A scratch global git config (``GIT_CONFIG_GLOBAL``) holding ``text``."""
    path = tmp_path / "person.gitconfig"
    path.write_text(text)
    return path


def hook_text(memory_dir, cwd) -> str:
    stdin = json.dumps({"hook_event_name": "SessionStart", "source": "startup",
                        "session_id": "s", "cwd": str(cwd)})
    return inject.context(HARNESSES["claude"], stdin, str(memory_dir), dict(os.environ), 6000)


# -- a folder shaped like a bare repository -------------------------------------

def bare_shaped(folder):
    """``folder`` made to look like a bare repository whose config names the
    victim's project and remote (files a clone brings along)."""
    (folder / "objects").mkdir(parents=True)
    (folder / "objects" / ".keep").write_text("")
    (folder / "refs" / "heads").mkdir(parents=True)
    (folder / "refs" / "heads" / ".keep").write_text("")
    (folder / "HEAD").write_text("ref: refs/heads/main\n")
    (folder / "config").write_text(
        "[core]\n\tbare = true\n[optmem]\n\tproject = private\n"
        "[remote \"origin\"]\n\turl = git@github.com:victim/private.git\n")
    return folder


@pytest.fixture(params=["committed", "alone"])
def hostile_docs(request, tmp_path):
    """``docs/`` shaped like a bare repository: committed in a repository
    the person then cloned, or in a folder that is no repository."""
    if request.param == "alone":
        return bare_shaped(tmp_path / "download" / "docs")
    if GIT is None:
        pytest.skip("git not found")
    src = make_repo(tmp_path / "hostile-src")
    bare_shaped(src / "docs")
    git(src, "add", "-A")
    git(src, "commit", "-q", "-m", "docs")
    git(tmp_path, "clone", "-q", str(src), str(tmp_path / "clone"))
    docs = tmp_path / "clone" / "docs"
    assert (docs / "config").is_file() and (docs / "objects").is_dir()
    return docs


@pytest.mark.parametrize("safe", [None, "explicit"])
@pytest.mark.parametrize("below", ["", "refs/heads"])
def test_a_bare_shaped_folder_never_names_a_project(victim, memo, memory_dir, monkeypatch,
                                                     tmp_path, hostile_docs, safe, below):
    text = f"[safe]\n\tbareRepository = {safe}\n" if safe else ""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(person_config(tmp_path, text)))
    where = hostile_docs / below if below else hostile_docs
    monkeypatch.chdir(where)
    before = logs(memory_dir)
    r = memo("scope")
    assert r.exit_code == 0, r.stderr
    assert "Project: none (" in r.stdout and "never names a project" in r.stdout
    assert "A person can run: memo init --project" not in r.stdout
    r = memo("recall", "vault")
    assert r.exit_code == 0 and VICTIM_FACT not in r.stdout
    r = memo("note", "a fact typed in the hostile folder")
    assert r.exit_code == 0, r.stderr
    assert "private" not in r.stdout
    g, p = logs(memory_dir)
    assert p == before[1]  # nothing reached the victim's project
    assert b"a fact typed in the hostile folder" in g
    text = hook_text(memory_dir, where)
    assert "Project private" not in text and VICTIM_FACT not in text
    assert "a fact typed in the hostile folder" in text
    sc = projects.resolve(str(memory_dir), cwd=str(where), environ={})
    assert sc.project is None and sc.problem is None


@needs_git
def test_the_clone_around_the_bare_shaped_folder_still_binds(victim, memo, memory_dir,
                                                            monkeypatch, tmp_path):
    """Outside ``docs/`` the clone is an ordinary repository: its own
    ``optmem.project`` binds it."""
    src = make_repo(tmp_path / "src")
    bare_shaped(src / "docs")
    git(src, "config", "optmem.project", "private")
    monkeypatch.chdir(src)
    r = memo("scope")
    assert "Project: private" in r.stdout, r.stdout
    monkeypatch.chdir(src / "docs")
    assert "Project: none (" in memo("scope").stdout


@needs_git
@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                    reason="a repository owned by another user needs root to make (chown)")
def test_the_persons_safe_directory_is_honoured(memo, memory_dir, monkeypatch, tmp_path):
    """git refuses a repository another user owns unless the person's own
    config lists it in ``safe.directory``; memo asks git the same way."""
    assert memo("init").exit_code == 0
    repo = make_repo(tmp_path / "theirs")
    git(repo, "config", "optmem.project", "widget")
    monkeypatch.chdir(repo)
    assert memo("init", "--project", "widget").exit_code == 0
    for base, dirs, files in os.walk(repo):
        for name in [base, *(os.path.join(base, f) for f in dirs + files)]:
            os.lchown(name, 54321, 54321)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(person_config(tmp_path, "")))
    assert "Project: none (" in memo("scope").stdout
    monkeypatch.setenv("GIT_CONFIG_GLOBAL",
                       str(person_config(tmp_path, f"[safe]\n\tdirectory = {repo}\n")))
    assert "Project: widget" in memo("scope").stdout


# -- remotes: the host git contacts ----------------------------------------------

# (remote URL, the host memo reads in it or None when memo refuses the form,
# the host git contacts or None when git refuses the URL). Hosts under
# .invalid never resolve, so git stops before any network; ssh is a recording
# script, so ssh and scp forms may name any host. memo's host is always
# git's, or none at all.
HOSTS = [
    # (URL, the host memo reads, the host git 2.39 contacts)
    ("git@github.com:acme/widget.git", "github.com", "github.com"),
    ("github.com:acme/widget", "github.com", "github.com"),
    ("ssh://git@github.com/acme/widget.git", "github.com", "github.com"),
    ("ssh://git@github.com:2222/acme/widget", "github.com", "github.com"),
    ("git+ssh://git@github.com/acme/widget", "github.com", "github.com"),
    ("ssh://github.com/acme/widget", "github.com", "github.com"),
    ("https://host-a.invalid/acme/widget", "host-a.invalid", "host-a.invalid"),
    ("https://user:pw@host-a.invalid:443/acme/widget.git", "host-a.invalid", "host-a.invalid"),
    ("http://HOST-A.invalid/acme/widget", "host-a.invalid", "host-a.invalid"),
    ("git://host-a.invalid/acme/widget", "host-a.invalid", "host-a.invalid"),
    # hostile or unclear: git contacts another host, or memo cannot be sure
    ("evil.invalid:x@github.com:victim/private", None, "evil.invalid"),
    ("https://evil.invalid?@github.com/victim/private", None, "evil.invalid"),
    ("https://evil.invalid#@github.com/victim/private", None, "evil.invalid"),
    ("ssh://evil.invalid?@github.com/victim/private", None, "github.com"),
    ("ssh://a@evil.invalid@github.com/victim/private", None, "github.com"),
    ("a@evil.invalid@github.com:victim/private", None, "github.com"),
    ("https://a@evil.invalid@host-a.invalid/victim/private", None, None),
    ("https://evil%2einvalid/victim/private", None, "evil.invalid"),
    ("ssh://git@evil.invalid%3a22/victim/private", None, "evil.invalid"),
    ("git://u@evil.invalid/victim/private", None, "u@evil.invalid"),
    ("git@[github.com]:victim/private", None, "github.com"),
    ("[git@github.com:22]:victim/private", None, "github.com"),
    ("evil::github.com/victim/private", None, None),
    ("HTTPS://host-a.invalid/victim/private", None, None),
    ("ssh://-oProxyCommand=x/victim/private", None, None),
]


def git_contacts(url: str, tmp_path) -> str | None:
    """The host ``git ls-remote URL`` contacts: ssh's destination as a
    recording ``GIT_SSH_COMMAND`` received it (``user@`` dropped at the last
    ``@``, as OpenSSH reads it), or the name curl or git's own transport
    failed to resolve; None when git refused the URL itself."""
    record = tmp_path / "ssh-argv.txt"
    record.unlink(missing_ok=True)
    recorder = tmp_path / "record-ssh"
    recorder.write_text(f"#!{sys.executable}\nimport sys\n"
                        f"open({str(record)!r}, 'w').write('\\n'.join(sys.argv[1:]))\n"
                        f"sys.exit(1)\n")
    recorder.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env.update(CLEAN_GIT, GIT_SSH_COMMAND=str(recorder), GIT_SSH_VARIANT="ssh",
               GIT_TERMINAL_PROMPT="0", GIT_ASKPASS="", SSH_ASKPASS="")
    done = subprocess.run(["git", "ls-remote", url], cwd=str(tmp_path), env=env,
                          capture_output=True, text=True, timeout=120)
    if record.exists():
        argv = record.read_text().split("\n")
        return argv[-2].rsplit("@", 1)[-1].lower()  # destination, then the command
    m = re.search(r"Could not resolve host: (\S+)|unable to look up (\S+) \(port", done.stderr)
    return (m.group(1) or m.group(2)).lower() if m else None


@pytest.mark.parametrize("url,host,git_host", HOSTS)
def test_memo_reads_the_host_git_contacts(url, host, git_host, tmp_path):
    assert projects.parse_remote(url)[0] == host
    assert host in (None, git_host)
    assert normalise_remote(url) != VICTIM_REMOTE
    if GIT is None:
        pytest.skip("git not found: the host git contacts cannot be checked")
    assert git_contacts(url, tmp_path) == git_host


def test_ambiguous_forms_are_named_not_silent():
    hostile = "evil.invalid:x@github.com:victim/private"
    assert projects.parse_remote(hostile)[2] == projects.AMBIGUOUS
    assert projects.parse_remote("/srv/git/x.git") == (None, "", None)  # local: nothing to say
    assert projects.parse_remote("https://github.com/acme/widget")[2] is None


HOSTILE = ["evil.invalid:x@github.com:victim/private",
           "https://evil.invalid?@github.com/victim/private",
           "https://evil.invalid#@github.com/victim/private"]


@needs_git
@pytest.mark.parametrize("url", HOSTILE)
def test_a_hostile_remote_finds_no_project(victim, memo, memory_dir, monkeypatch, tmp_path,
                                           url):
    repo = make_repo(tmp_path / "cloned", url)
    monkeypatch.chdir(repo)
    before = logs(memory_dir)
    r = memo("scope")
    assert "Project: none (" in r.stdout, r.stdout
    notice = [ln for ln in r.stdout.splitlines() if ln.startswith("Remotes not matched")]
    assert notice == [f"Remotes not matched ({projects.AMBIGUOUS}): origin"]
    r = memo("recall", "vault")
    assert VICTIM_FACT not in r.stdout
    assert memo("note", "typed in the hostile clone").exit_code == 0
    assert logs(memory_dir)[1] == before[1]
    assert VICTIM_FACT not in hook_text(memory_dir, repo)


@needs_git
@pytest.mark.parametrize("url", HOSTILE)
def test_a_submodule_cloned_from_a_hostile_url_finds_no_project(victim, memo, memory_dir,
                                                                monkeypatch, tmp_path, url):
    """A committed ``.gitmodules`` names the URL; ``clone --recurse-submodules``
    copies it into the submodule's own config (a local copy of the victim's
    repository stands in for the host, through ``url.<x>.insteadOf``)."""
    private = make_repo(tmp_path / "private-src")
    outer = make_repo(tmp_path / "outer-src")
    git(outer, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(private), "lib")
    git(outer, "config", "-f", ".gitmodules", "submodule.lib.url", url)
    git(outer, "commit", "-q", "-am", "the submodule's URL")
    git(tmp_path, "-c", "protocol.file.allow=always", "-c", f"url.{private}.insteadOf={url}",
        "clone", "-q", "--recurse-submodules", str(outer), str(tmp_path / "clone"))
    lib = tmp_path / "clone" / "lib"
    assert git(lib, "config", "--get", "remote.origin.url").strip() == url
    monkeypatch.chdir(lib)
    before = logs(memory_dir)
    assert "Project: none (" in memo("scope").stdout
    assert VICTIM_FACT not in memo("recall", "vault").stdout
    assert memo("note", "typed in the submodule").exit_code == 0
    assert logs(memory_dir)[1] == before[1]


# -- git that cannot be asked ------------------------------------------------------

@pytest.fixture
def bound(victim, memo, memory_dir, tmp_path, monkeypatch):
    """A repository bound to ``private`` (git still on PATH to make it)."""
    if GIT is None:
        pytest.skip("git not found")
    repo = make_repo(tmp_path / "work", "git@github.com:victim/private.git")
    git(repo, "config", "optmem.project", "private")
    monkeypatch.chdir(repo)
    assert "Project: private" in memo("scope").stdout
    assert memo("note", "--global", "the person writes British English").exit_code == 0
    return repo


def no_git_path(tmp_path, fake_git: str | None = None) -> str:
    """A PATH of one scratch folder: empty, or holding a fake ``git``."""
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    if fake_git is not None:
        (folder / "git").write_text(fake_git)
        (folder / "git").chmod(0o755)
    return str(folder)


SLOW_GIT = f"#!{sys.executable}\nimport time\ntime.sleep(60)\n"


@pytest.mark.parametrize("how", ["missing", "slow"])
def test_a_git_that_cannot_be_asked_moves_no_memory(bound, memo, memory_dir, monkeypatch,
                                                     tmp_path, how):
    if how == "missing":
        monkeypatch.setenv("PATH", no_git_path(tmp_path))
        why = "git is not on PATH"
    else:
        monkeypatch.setenv("PATH", no_git_path(tmp_path, SLOW_GIT))
        monkeypatch.setenv("MEMO_GIT_TIMEOUT", "0.5")
        why = "git did not answer within 0.5 s (MEMO_GIT_TIMEOUT sets the limit)"
    before = logs(memory_dir)
    r = memo("note", "the build needs make 4")
    assert r.exit_code == 1
    assert r.stderr.count("\n") == 1 and r.stderr.startswith(f"memo: {why}, so memo cannot")
    assert "memo note --project NAME <text> (the projects are: private)" in r.stderr
    assert "memo note --global <text>" in r.stderr
    assert "A person can run: " in r.stderr or "a person installs git" in r.stderr
    for args in (["sleep", "0-1", "a line"], ["import", "-"], ["forget", "0-1"],
                 ["config", "WAKE_LINES=9"], ["redact", "0", "--yes"]):
        r = memo(*args, input="2024-01-01 x\n")
        assert r.exit_code == 1 and "--global" in r.stderr and why in r.stderr, args
    assert logs(memory_dir) == before  # nothing written anywhere
    r = memo("init", "--project", "other")  # binding needs git too
    assert r.exit_code == 1 and why in r.stderr and "nothing was created" in r.stderr
    assert not (memory_dir / "projects" / "other").exists()
    # Reads use the global memory, after the one line.
    r = memo("wake")
    assert r.exit_code == 0
    assert r.stderr.count("\n") == 1 and why in r.stderr
    assert "British English" in r.stdout and VICTIM_FACT not in r.stdout
    r = memo("scope")
    assert f"Project: unknown ({why}" in r.stdout
    # The forms that name a scope work.
    r = memo("note", "--project", "private", "the build needs make 4")
    assert r.exit_code == 0 and "Scope: project private" in r.stdout
    r = memo("note", "--global", "the person likes short answers")
    assert r.exit_code == 0
    # The global memory's hand-over names its scope, so its order runs here.
    order = [ln for ln in r.stdout.splitlines() if ln.startswith("Run: memo sleep")]
    r = memo("sleep")
    assert "Run: memo sleep 0-1 --global" in r.stdout, r.stdout
    r = memo("sleep", "0-1", "--global", "British English; short answers")
    assert r.exit_code == 0, r.stderr
    assert order  # the note's own hand-over came with a flag too
    assert all("--global" in o for o in order)
    # The hook injects the global memory with the line, never silence.
    text = hook_text(memory_dir, bound)
    assert why in text and "British English" in text
    assert VICTIM_FACT not in text and "Project private" not in text


def test_without_a_repository_or_projects_nothing_changes(memo, memory_dir, monkeypatch,
                                                          tmp_path):
    calls = []
    real_git = projects._git
    monkeypatch.setattr(projects, "_git",
                        lambda *a, **k: calls.append(a) or real_git(*a, **k))
    outside = tmp_path / "plain"
    outside.mkdir()
    monkeypatch.chdir(outside)
    assert memo("init").exit_code == 0
    inside = tmp_path / "repo"
    (inside / ".git").mkdir(parents=True)  # a repository, found without git
    monkeypatch.setenv("PATH", no_git_path(tmp_path))
    monkeypatch.chdir(inside)
    r = memo("note", "no projects yet")  # no projects/ folder: as before
    assert r.exit_code == 0 and r.stderr == "" and r.stdout.startswith("Saved as #0.")
    assert calls == []
    os.mkdir(memory_dir / "projects")
    monkeypatch.chdir(outside)
    r = memo("note", "outside any repository")
    assert r.exit_code == 0 and r.stderr == "" and r.stdout.startswith("Saved as #1.")
    assert calls == []  # outside a repository git is not run
    monkeypatch.chdir(inside)
    r = memo("note", "inside, git missing")
    assert r.exit_code == 1 and "git is not on PATH" in r.stderr


def test_the_hook_process_without_git_says_so(bound, memory_dir, tmp_path):
    """The real hook command, run with a PATH that has no git (as a harness's
    cut-down PATH may be): the global memory and the line, exit 0."""
    env = {"PATH": no_git_path(tmp_path), "HOME": str(tmp_path), "MEMORY_DIR": str(memory_dir)}
    stdin = json.dumps({"hook_event_name": "SessionStart", "source": "startup",
                        "session_id": "h", "cwd": str(bound)})
    done = subprocess.run([sys.executable, "-m", "optmem", "hook", "session-start",
                           "--harness", "claude"], input=stdin.encode(), cwd=str(tmp_path),
                          env=env, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode()
    assert "git is not on PATH" in out and "British English" in out
    assert VICTIM_FACT not in out

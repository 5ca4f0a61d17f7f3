"""Project scopes (docs/scopes.md): names, remotes, resolution in scratch git
repositories, the shared wake budget, hand-over across two stores, and the
promise that nothing changes until a person creates a project."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import REPO
from optmem import blocks, projects
from optmem import session as scoped
from optmem.projects import normalise_remote, slug_problem

GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None, reason="git not found")


def git(cwd, *args):
    env = dict(os.environ, GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1",
               GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@t")
    done = subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, env=env)
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout.decode()


def make_repo(path, remote=None):
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q")
    if remote:
        git(path, "remote", "add", "origin", remote)
    git(path, "commit", "-q", "--allow-empty", "-m", "start")
    return path


# -- names -------------------------------------------------------------------

@pytest.mark.parametrize("name", ["widget", "a", "my-repo", "x.y_z", "0day", "a" * 63,
                                  "con1", "console", "nonexistent"])
def test_good_names(name):
    assert slug_problem(name) is None


@pytest.mark.parametrize("name", ["../x", "C:\\x", "\\\\server\\share", "a\0b", "CON", "con",
                                  "nul.txt", "com1", "lpt9.log", "Widget", "none", "", ".",
                                  "..", "x.", "-x", "_x", "a/b", "a" * 64, "é", " x"])
def test_hostile_names_are_refused(name):
    assert slug_problem(name) is not None


# -- remotes -------------------------------------------------------------------

REMOTES = [
    ("git@github.com:acme/widget.git", "github.com/acme/widget"),
    ("git@github.com:acme/widget", "github.com/acme/widget"),
    ("ssh://git@github.com/acme/widget.git", "github.com/acme/widget"),
    ("ssh://git@github.com:22/acme/widget", "github.com/acme/widget"),
    ("https://github.com/acme/widget", "github.com/acme/widget"),
    ("https://github.com/acme/widget.git/", "github.com/acme/widget"),
    ("https://user@github.com/acme/widget.git", "github.com/acme/widget"),
    ("https://user:secret@GitHub.com:443/Acme/Widget.git", "github.com/acme/widget"),
    ("git://github.com/acme/widget.git", "github.com/acme/widget"),
    ("https://gitlab.com/acme/widget.git", "gitlab.com/acme/widget"),
    ("git@gitlab.com:group/sub/deeper/widget.git", "gitlab.com/group/sub/deeper/widget"),
    ("https://gitlab.example.org/group/sub/widget", "gitlab.example.org/group/sub/widget"),
    # hostile or local: never a project key
    ("../x", None), ("./x", None), ("/srv/git/x.git", None), ("file:///srv/git/x", None),
    ("C:\\repos\\x", None), ("C:/repos/x", None), ("\\\\server\\share\\x", None),
    ("https://github.com/../../etc", None), ("git@github.com:../x", None),
    ("https://github.com/a/b\nc", None), ("", None), ("https://github.com", None),
]


@pytest.mark.parametrize("url,want", REMOTES)
def test_remote_normalisation(url, want):
    assert normalise_remote(url) == want


def test_github_and_gitlab_with_the_same_path_stay_distinct():
    a = normalise_remote("git@github.com:acme/widget.git")
    b = normalise_remote("git@gitlab.com:acme/widget.git")
    assert a != b


# -- the shared budget -----------------------------------------------------------

def test_shares_table():
    B = 500
    huge = 10 ** 12 + 12345
    for Tg in (0, 1, B - 1, B, B + 1, huge):
        for Tp in (0, 1, B - 1, B, B + 1, huge):
            g, p = scoped.shares(B, Tg, Tp)
            pc = blocks.popcount
            assert g + p <= max(B, pc(Tg) + pc(Tp))
            assert pc(Tg) <= g and pc(Tp) <= p
            assert g <= max(Tg, pc(Tg)) and p <= max(Tp, pc(Tp))
    assert scoped.shares(500, 0, 0) == (0, 0)
    assert scoped.shares(500, 1000, 0) == (500, 0)      # no project memories: all global
    assert scoped.shares(500, 0, 1000) == (0, 500)
    assert scoped.shares(500, 1000, 1000) == (125, 375)  # the global keeps a quarter
    assert scoped.shares(500, 10, 1000) == (10, 490)


@settings(max_examples=400)
@given(st.integers(1, 5000), st.integers(0, 10 ** 15), st.integers(0, 10 ** 15))
def test_shares_property(B, Tg, Tp):
    g, p = scoped.shares(B, Tg, Tp)
    pc = blocks.popcount
    assert g + p <= max(B, pc(Tg) + pc(Tp))
    assert g >= pc(Tg) and p >= pc(Tp)
    assert g <= max(Tg, pc(Tg)) and p <= max(Tp, pc(Tp))


# -- nothing changes until a project exists ------------------------------------

SESSION = [("init",), ("note", "one"), ("note", "two"), ("sleep",), ("wake",), ("recall", "o"),
           ("stats",), ("config",), ("zoom", "0-1"), ("wake", "1", "2", "3"), ("check",),
           ("note", "fact", "--global"), ("scope",)]


def test_no_git_call_and_the_same_bytes_without_projects(memo, memory_dir, monkeypatch,
                                                          tmp_path):
    calls = []
    real_git = projects._git
    monkeypatch.setattr(projects, "_git", lambda *a, **k: calls.append(a) or real_git(*a, **k))
    repo = make_repo(tmp_path / "repo", "git@github.com:acme/widget.git") if GIT else tmp_path
    monkeypatch.chdir(repo)

    def session(root):
        monkeypatch.setenv("MEMORY_DIR", str(root))
        out = []
        for args in SESSION:
            r = memo(*args)
            out.append((r.exit_code, r.stdout.replace(str(root), "<MEM>"),
                        r.stderr.replace(str(root), "<MEM>")))
        return out

    first = session(tmp_path / "a")
    assert calls == []
    assert not (tmp_path / "a" / "projects").exists()
    assert first[-1][1].startswith("Global memory: <MEM>\nProject: none (no project exists)")
    # A project exists, but not for this repository: every byte of every
    # command is the same, apart from memo scope, which says so.
    from optmem.store.memory import Store
    Store.init(str(tmp_path / "b"))
    Store.init(str(tmp_path / "b" / "projects" / "other"))
    second = session(tmp_path / "b")
    assert second[0][1] == ("Found <MEM>: 0 memories. It is already a memory store; nothing "
                            "was changed. Run: memo wake\n")
    assert first[1:-1] == second[1:-1]
    # at most two git calls a command: the person's safe.directory, then the
    # repository's own config
    assert calls and len(calls) <= 2 * len(SESSION)
    assert "Project: none (no project is bound to this folder)" in second[-1][1]


# -- resolution in scratch repositories ------------------------------------------

@pytest.fixture
def world(memo, memory_dir, tmp_path, monkeypatch):
    """A global store and a repository bound to the project ``widget``."""
    if GIT is None:
        pytest.skip("git not found")
    assert memo("init").exit_code == 0
    repo = make_repo(tmp_path / "repo", "git@github.com:acme/widget.git")
    monkeypatch.chdir(repo)
    r = memo("init", "--project")
    assert r.exit_code == 0, r.stderr
    assert "Created the project widget" in r.stdout
    return repo


def scope_of(memo):
    r = memo("scope")
    assert r.exit_code == 0, r.stderr
    m = re.search(r"^Project: (\S+)", r.stdout, re.M)
    return m.group(1)


def test_checkout_subfolder_worktree_and_symlink_share_the_project(world, memo, monkeypatch,
                                                                   tmp_path):
    assert scope_of(memo) == "widget"
    (world / "src" / "deep").mkdir(parents=True)
    monkeypatch.chdir(world / "src" / "deep")
    assert scope_of(memo) == "widget"
    git(world, "worktree", "add", "-q", str(tmp_path / "linked"))
    monkeypatch.chdir(tmp_path / "linked")
    assert scope_of(memo) == "widget"
    r = memo("note", "from the linked worktree")
    assert r.stdout.startswith("Saved as #0.\nScope: project widget")
    os.symlink(world, tmp_path / "via-link")
    monkeypatch.chdir(tmp_path / "via-link")
    assert scope_of(memo) == "widget"
    log = (tmp_path / "mem" / "projects" / "widget" / "LOG.txt").read_bytes()
    assert b"from the linked worktree" in log
    assert (tmp_path / "mem" / "LOG.txt").read_bytes() == b""


def test_worktree_config_binds_another_project(world, memo, monkeypatch, tmp_path):
    git(world, "worktree", "add", "-q", str(tmp_path / "other"))
    monkeypatch.chdir(tmp_path / "other")
    assert memo("init", "--project", "widget-exp").exit_code == 0  # binds the common config
    git(world, "config", "optmem.project", "widget")                # back to widget
    git(world, "config", "extensions.worktreeConfig", "true")
    git(tmp_path / "other", "config", "--worktree", "optmem.project", "widget-exp")
    assert scope_of(memo) == "widget-exp"
    monkeypatch.chdir(world)
    assert scope_of(memo) == "widget"


def test_submodule_has_its_own_binding(world, memo, monkeypatch, tmp_path):
    sub = make_repo(tmp_path / "libsrc", "git@github.com:acme/lib.git")
    done = subprocess.run(["git", "-C", str(world), "-c", "protocol.file.allow=always",
                           "submodule", "add", "-q", str(sub), "lib"], capture_output=True,
                          env=dict(os.environ, GIT_CONFIG_GLOBAL=os.devnull))
    assert done.returncode == 0, done.stderr
    monkeypatch.chdir(world / "lib")
    assert scope_of(memo) == "none"  # the submodule is not bound to widget
    assert memo("init", "--project", "lib").exit_code == 0
    assert scope_of(memo) == "lib"
    monkeypatch.chdir(world)
    assert scope_of(memo) == "widget"


def test_outside_git_no_project_and_a_typo_is_an_error(world, memo, monkeypatch, tmp_path,
                                                       memory_dir):
    outside = tmp_path / "plain"
    outside.mkdir()
    monkeypatch.chdir(outside)
    assert scope_of(memo) == "none"
    before = sorted(os.listdir(memory_dir / "projects"))
    monkeypatch.setenv("MEMO_PROJECT", "widgte")
    r = memo("note", "hello")
    assert r.exit_code == 1
    assert "there is no project 'widgte'" in r.stderr and "widget" in r.stderr
    assert "A person can run: memo init --project widgte" in r.stderr
    assert "Run:" not in r.stderr
    assert sorted(os.listdir(memory_dir / "projects")) == before
    for bad in ("../x", "CON", "Widget"):
        monkeypatch.setenv("MEMO_PROJECT", bad)
        assert memo("wake").exit_code == 1
    assert sorted(os.listdir(memory_dir / "projects")) == before


def test_another_clone_finds_the_project_by_its_remote(world, memo, monkeypatch, tmp_path):
    clone = make_repo(tmp_path / "clone", "https://user:pw@github.com/acme/widget")
    monkeypatch.chdir(clone)
    r = memo("scope")
    assert "Project: widget" in r.stdout and "found by remote" in r.stdout
    # GitLab with the same owner/repo is another repository.
    gl = make_repo(tmp_path / "gl", "git@gitlab.com:acme/widget.git")
    monkeypatch.chdir(gl)
    assert scope_of(memo) == "none"
    r = memo("init", "--project")  # the default name is taken by another repository
    assert r.exit_code == 1 and "belongs to another repository" in r.stderr
    assert "A person can run: memo init --project NAME" in r.stderr


def test_init_twice_changes_no_byte(world, memo, memory_dir):
    def snapshot():
        out = {}
        for base, _, files in os.walk(memory_dir):
            for f in files:
                p = os.path.join(base, f)
                out[p] = open(p, "rb").read()
        out["git"] = (world / ".git" / "config").read_bytes()
        return out
    before = snapshot()
    r = memo("init", "--project")
    assert r.exit_code == 0 and "adopted, not recreated" in r.stdout
    assert snapshot() == before


def test_linked_projects_folder_is_refused(memo, memory_dir, tmp_path, monkeypatch):
    assert memo("init").exit_code == 0
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "x").mkdir(parents=True)
    os.symlink(elsewhere, memory_dir / "projects")
    monkeypatch.chdir(tmp_path)
    r = memo("init", "--project", "x")
    assert r.exit_code == 1 and "symbolic link" in r.stderr


def test_init_project_needs_the_global_store(memo, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = memo("init", "--project", "x")
    assert r.exit_code == 1 and "A person can run: memo init" in r.stderr


# -- notes, flags, orders ----------------------------------------------------------

def test_scope_flag_after_the_text_is_refused(world, memo, memory_dir):
    r = memo("note", "fact", "--global")
    assert r.exit_code == 2 and "memo note --global - <<'MEMORY'" in r.stderr
    r = memo("note", "fact", "--project", "widget")
    assert r.exit_code == 2
    r = memo("note", "a fact about --global flags")  # one quoted argument: text
    assert r.exit_code == 0
    r = memo("--global", "note", "user likes tea")
    assert r.stdout.startswith("Saved as #0.\nScope: global memory.")
    r = memo("note", "--global", "user likes green tea")
    assert r.stdout.startswith("Saved as #1.\nScope: global memory.")
    assert b"user likes tea" in (memory_dir / "LOG.txt").read_bytes()
    r = memo("note", "--global", "--project", "widget", "x")
    assert r.exit_code == 2


def run_order(memo, order: str, summary: str):
    """Run a printed ``Run: memo ...`` order as printed (the heredoc's line
    given as stdin)."""
    words = order[len("Run: memo "):].split()
    if words[-1].startswith("<<"):
        words = words[:-1]
        return memo(*words, input=summary + "\n")
    return memo(*words)


def follow(memo, text: str, steps: list, budget: int = 400):
    """Follow every order from ``text`` to the end; return the texts seen."""
    seen = [text]
    for _ in range(budget):
        orders = [ln[len("Not awake yet. "):] if ln.startswith("Not awake yet. Run: ") else ln
                  for ln in text.splitlines()]
        orders = [ln for ln in orders if ln.startswith("Run: ")]
        if not orders:
            return seen
        order = orders[-1]
        assert order.startswith(("Run: memo sleep", "Run: memo wake")), order
        r = run_order(memo, order, f"summary {len(steps)}")
        steps.append(order)
        assert r.exit_code in (0, 1), (order, r.stderr)
        text = r.stdout
        seen.append(text)
    raise AssertionError("orders never ended")


def test_a_life_in_a_repository_follows_every_order(world, memo, memory_dir):
    from conftest import set_config
    set_config(memory_dir, WAKE_LINES=12, PART_LINES=10)
    steps = []
    for i in range(40):
        args = ("note", "--global", f"global fact {i}") if i % 3 == 0 else \
               ("note", f"project fact {i} about src/mod{i}.py")
        r = memo(*args)
        assert r.exit_code == 0, r.stderr
        follow(memo, r.stdout, steps)
    assert any("--global" in s for s in steps) and any("--project widget" in s for s in steps)
    assert memo("sleep").stdout.strip() == "Nothing left to compress."
    # wake, part by part, as ordered: no line twice, each section once.
    r = memo("wake")
    assert r.exit_code == 0, r.stderr
    parts = follow(memo, r.stdout, steps)
    assert parts[-1].rstrip().endswith("You are awake.")
    text = "\n".join(parts)
    assert text.count("You are awake.") == 1
    body = [ln for p in parts for ln in p.splitlines()
            if ln.startswith("#")]
    assert len(body) == len(set(body))
    assert text.count("Global memory (") == 1 and text.count("Project memory: widget") == 1
    g, p = scoped.shares(12, 14, 26)
    assert len(body) == g + p <= 12
    assert any(s.startswith("Run: memo wake 2 14 26 --project widget") for s in steps)
    # The reference-style seed form (two numbers) still works.
    assert memo("wake", "2", "14").exit_code == 0


def test_seed_form_sleep_goes_to_the_store_that_handed_it_over(world, memo, memory_dir):
    for i in range(2):
        memo("note", f"project fact {i}")
    # The project handed 0-1 over; a parallel --global note makes 0-1 pending
    # in the global store too: the recorded hand-over routes the summary.
    assert "Run: memo sleep 0-1 --project widget" in memo("sleep").stdout
    for i in range(2):
        memo("note", "--global", f"global fact {i}")
    r = memo("sleep", "0-1", "-", input="the project's summary\n")
    assert r.exit_code == 0, r.stderr
    tree = memory_dir / "projects" / "widget" / "TREE" / "2"
    assert tree.read_bytes().startswith(b"the project's summary")
    # No record now for the global 0-1: it goes to the store whose next it is.
    r = memo("sleep", "0-1", "-", input="the global summary\n")
    assert (memory_dir / "TREE" / "2").read_bytes().startswith(b"the global summary")
    assert r.stdout == "0-1 saved.\nNothing left to compress.\n"


#: How a program reads a shell order, one per line (README "Protocol").
SHELL_ORDER = re.compile(r"^Run: memo .*$")


def test_a_refusal_gives_each_order_its_own_line(world, memo, memory_dir, tmp_path):
    """``zoom``/``forget`` without a scope while a project is active: the
    error's first line says what is wrong, then each order on its own line,
    matched by a reader anchored per line, and each runs as printed (by a
    shell, in the repository); ``redact``'s are a person's steps."""
    for where in ("--global", "--project"):
        flag = [where] if where == "--global" else [where, "widget"]
        for i in range(2):
            assert memo("note", *flag, f"fact {where} {i}").exit_code == 0
        r = memo("sleep", "0-1", *flag, "-", input="two facts\n")
        assert r.exit_code == 0, r.stderr
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    launcher = bin_dir / "memo"
    launcher.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m optmem "$@"\n')
    launcher.chmod(0o755)
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
               PYTHONPATH=str(REPO), GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")

    def sh(line):
        return subprocess.run(["sh", "-c", line], cwd=world, env=env, capture_output=True,
                              text=True)

    for command in ("memo zoom 0-1", "memo zoom '#0-1'", "memo zoom 1", "memo forget 0-1"):
        r = sh(command)
        assert r.returncode == 1 and r.stdout == "", r
        first, *orders = r.stderr.splitlines()
        assert first.startswith("memo: ids restart at #0") and "Run:" not in first, first
        assert len(orders) == 2 and all(SHELL_ORDER.match(o) for o in orders), orders
        assert [o.split()[3] for o in orders] == ["--global", "--project"], orders
        for order in orders:
            done = sh(order[len("Run: "):])
            assert done.returncode == 0 and done.stdout, (order, done.stderr)
    r = sh("memo redact 0")
    first, *orders = r.stderr.splitlines()
    assert r.returncode == 1 and "Run:" not in r.stderr, r.stderr
    assert orders == ["A person can run: memo redact --global 0 --yes",
                      "A person can run: memo redact --project widget 0 --yes"]


def test_recall_zoom_forget_stats_config(world, memo, memory_dir):
    memo("note", "--global", "alpha global")
    memo("note", "alpha project")
    r = memo("recall", "alpha")
    assert r.stdout.splitlines() == [
        f"Global memory ({memory_dir}): facts true in any repository.",
        r.stdout.splitlines()[1], "1 match.",
        f"Project memory: widget ({memory_dir}/projects/widget): facts of this "
        f"repository only.", r.stdout.splitlines()[4], "1 match."]
    assert memo("recall", "alpha", "--global").stdout.endswith("1 match.\n")
    r = memo("zoom", "0-1")
    assert r.exit_code == 1
    assert "Run: memo zoom --global 0-1" in r.stderr
    assert "Run: memo zoom --project widget 0-1" in r.stderr
    r = memo("redact", "0")
    assert "A person can run: memo redact --global 0 --yes" in r.stderr
    r = memo("stats")
    assert r.exit_code == 0 and "Project memory: widget" in r.stdout
    r = memo("config", "--project", "widget", "WAKE_LINES=50")
    assert r.exit_code == 0
    assert "WAKE_LINES=50" in (memory_dir / "projects" / "widget" / "config").read_text()
    assert "WAKE_LINES=50" not in (memory_dir / "config").read_text()
    r = memo("check", "--all")
    assert r.exit_code == 0 and "Project widget" in r.stdout


def test_reference_tool_reads_a_project_store(world, memo, memory_dir):
    """The reference OptMem reads a project's store as its own (it is never
    in this repository: point OPTMEM_REFERENCE at its ``memo`` script)."""
    ref = os.environ.get("OPTMEM_REFERENCE", "")
    if not os.path.isfile(ref):
        pytest.skip("OPTMEM_REFERENCE does not name the reference OptMem's memo script "
                    "(github.com/VictorTaelin/OptMem), so it is not compared")
    memo("note", "a project memory")
    env = dict(os.environ, MEMORY_DIR=str(memory_dir / "projects" / "widget"))
    done = subprocess.run([sys.executable, ref, "wake"], capture_output=True, env=env)
    assert done.returncode == 0, done.stderr
    assert b"a project memory" in done.stdout


SIXTEEN = """
import sys
from optmem.cli.app import cli
w = int(sys.argv[1])
flags = ["--global"] if w % 2 else []
for j in range(5):
    cli.main(["note", *flags, f"writer {w} note {j}"], prog_name="memo", standalone_mode=False)
"""


def test_sixteen_writers_into_two_stores(world, memory_dir):
    env = dict(os.environ, MEMORY_DIR=str(memory_dir))
    procs = [subprocess.Popen([sys.executable, "-c", SIXTEEN, str(w)], cwd=world, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
             for w in range(16)]
    for p in procs:
        assert p.wait() == 0, p.stderr.read()
    for root in (memory_dir, memory_dir / "projects" / "widget"):
        data = (root / "LOG.txt").read_bytes()
        assert len(data) == 40 * 320
        ids = [int(data[k:k + 320].split(b" ", 1)[0].lstrip(b"#")) for k in range(0, len(data), 320)]
        assert ids == list(range(40))


def test_batched_hand_over_carries_the_scope(world, memo, memory_dir, monkeypatch):
    """Batch hand-over (MEMO_HANDOVER=batch) and scopes agree: the order
    carries its flag, and a flagless `memo sleep -` goes to the store that
    handed the batch over."""
    monkeypatch.setenv("MEMO_HANDOVER", "batch")
    memo("note", "project one")
    r = memo("note", "project two")
    assert "Run: memo sleep --project widget - <<'SUMMARY'" in r.stdout
    assert "\n0-1 <your line>\nSUMMARY" in r.stdout
    memo("note", "--global", "global one")
    r = memo("note", "--global", "global two")  # the global's work comes first now
    assert "Run: memo sleep --global - <<'SUMMARY'" in r.stdout
    r = memo("sleep", "--project", "widget", "-", input="0-1 the project pair\n")
    assert r.exit_code == 0, r.stderr
    assert r.stdout.startswith("0-1 saved.\n")
    assert "Run: memo sleep --global -" in r.stdout
    r = memo("sleep", "-", input="0-1 the global pair\n")  # recorded: global
    assert r.exit_code == 0, r.stderr
    assert r.stdout.rstrip().endswith("Nothing left to compress.")
    assert (memory_dir / "TREE" / "2").read_bytes().startswith(b"the global pair")
    tree = memory_dir / "projects" / "widget" / "TREE" / "2"
    assert tree.read_bytes().startswith(b"the project pair")


@pytest.mark.parametrize("batch", [True, False])
def test_a_global_answer_in_a_project_hands_over_with_scopes_to_the_end(world, memo,
                                                                        monkeypatch, batch):
    """``memo sleep --global`` answered in a repository with a project: the
    next order keeps ``--global`` while the global memory has work, then
    goes on to the project's (with its flag); ``Nothing left to compress.``
    only when both are done. (Before, the follow-up order lost its flag and
    the global's last answer said nothing was left, hiding the project's
    work.)"""
    if batch:
        monkeypatch.setenv("MEMO_HANDOVER", "batch")
    for i in range(2):
        memo("note", f"project fact {i}")
    for i in range(4):
        memo("note", "--global", f"global fact {i}")
    order = re.compile(r"^Run: memo sleep (?:\d+-\d+ )?(--global|--project widget) ", re.M)
    seen, text = [], memo("sleep").stdout
    for _ in range(10):
        m = order.search(text)
        if not m:
            break
        seen.append(m.group(1))
        blocks = re.findall(r"^  (\d+-\d+): memories", text, re.M) if batch else \
            re.findall(r"^Compress memories #(\d+-\d+) ", text, re.M)
        args = ("sleep", m.group(1).split()[0], *m.group(1).split()[1:])
        if batch:
            r = memo(*args, "-", input=f"{blocks[0]} a summary of {blocks[0]}\n")
        else:
            r = memo(*args, blocks[0], f"a summary of {blocks[0]}")
        assert r.exit_code == 0, r.stderr
        text = r.stdout
    assert text.rstrip().endswith("Nothing left to compress.")
    assert seen[0] == "--global" and seen[-1] == "--project widget"
    assert seen == sorted(seen, key=lambda flag: flag != "--global")  # global first


SEED_SLEEP = re.compile(r"Run: memo sleep (\d+)-(\d+)")
SEED_WAKE = re.compile(r"Run: memo wake (\d+) (\d+)")


def test_a_seed_client_lives_a_whole_life_in_a_repository_with_a_project(world, memo,
                                                                        memory_dir):
    """A client that knows only the seed's patterns (two numbers for wake,
    ``memo sleep LO-HI "<line>"``) never stores a summary in the wrong store."""
    from conftest import set_config
    set_config(memory_dir, WAKE_LINES=16, PART_LINES=10)
    answered = 0

    def obey(text):
        nonlocal answered
        for _ in range(200):
            m = SEED_SLEEP.search(text)
            if not m:
                return text
            answered += 1
            r = memo("sleep", f"{m.group(1)}-{m.group(2)}", f"summary {answered}")
            assert r.exit_code == 0, r.stderr
            text = r.stdout
        raise AssertionError("never done")

    for i in range(30):
        if i % 4 == 0:  # another session, which knows scopes, notes a global fact
            obey(memo("note", "--global", f"global fact {i}").stdout)
        obey(memo("note", f"project fact {i}").stdout)
    r = memo("wake")
    assert r.exit_code == 0, r.stderr
    seen = [r.stdout]
    while SEED_WAKE.search(seen[-1]):
        k, t = SEED_WAKE.search(seen[-1]).groups()
        r = memo("wake", k, t)
        assert r.exit_code == 0, r.stderr
        seen.append(r.stdout)
    assert seen[-1].rstrip().endswith("You are awake.")
    lines = [ln for part in seen for ln in part.splitlines() if ln.startswith("#")]
    assert len(lines) == len(set(lines))
    # every summary is in the store whose memories it covers
    from optmem.store.memory import Store
    for root, word in ((memory_dir, b"global"), (memory_dir / "projects" / "widget", b"project")):
        store = Store.open(str(root))
        assert store.count() == (8 if word == b"global" else 30)
        assert core_pending(store) == 0
        store.close()


def core_pending(store):
    from optmem.engine import view
    T = store.count()
    return view.pending_in(T, store.built(T))


def test_the_hook_takes_the_project_from_the_harness_cwd(world, memo, memory_dir,
                                                        monkeypatch, tmp_path):
    import json

    from optmem.harness import HARNESSES, inject
    memo("note", "the widget builds with make")
    memo("note", "--global", "the user writes British English")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # the hook process runs somewhere else
    stdin = json.dumps({"hook_event_name": "SessionStart", "source": "startup",
                        "session_id": "s1", "cwd": str(world)})
    text = inject.context(HARNESSES["claude"], stdin, str(memory_dir), dict(os.environ), 4000)
    assert "Project widget is active here" in text
    assert "the widget builds with make" in text and "British English" in text
    assert len(text.encode()) <= 4000
    stdin = json.dumps({"hook_event_name": "SessionStart", "source": "startup",
                        "session_id": "s2", "cwd": str(elsewhere)})
    text = inject.context(HARNESSES["claude"], stdin, str(memory_dir), dict(os.environ), 4000)
    assert "Project widget" not in text and "the widget builds" not in text


def test_wake_max_bytes_splits_the_budget(world, memo):
    for i in range(40):
        memo("note", f"project fact number {i} with some words")
        memo("note", "--global", f"global fact number {i} with other words")
        memo("sleep")  # orders only; the pending work is paid below
    from conftest import REPO  # noqa: F401
    r = memo("wake", "--max-bytes", "3000")
    assert r.exit_code == 0, r.stderr
    assert len(r.stdout.encode()) <= 3000 + 1
    assert r.stdout.count("You are awake.") == 1
    assert "Project memory: widget" in r.stdout


@pytest.mark.parametrize("globals_, projects", [(300, 2), (5, 1), (2, 60)])
def test_wake_max_bytes_fits_any_size_both_sections_can_fit(world, memo, tmp_path, globals_,
                                                            projects):
    """A big global memory beside a small project (or the other way round):
    every size from the smallest that fits up is answered within it, a
    smaller one is refused naming that smallest size, and the order in the
    refusal runs as printed. (Before, the split followed line shares only,
    so a 2-memory project refused every normal size and each refusal asked
    for twice the size, which could fail again.)"""
    lines = tmp_path / "global.txt"
    lines.write_text("".join(f"2024-01-01 global fact {i} about the build\n"
                             for i in range(globals_)))
    assert memo("import", "--global", str(lines), "--yes").exit_code == 0
    for i in range(projects):
        assert memo("note", f"project fact {i}").exit_code == 0
    refused = memo("wake", "--max-bytes", "50")
    assert refused.exit_code != 0
    m = re.search(r"shortest document is (\d+) bytes\. Run: memo wake --max-bytes (\d+)$",
                  refused.stderr.strip())
    assert m and m.group(1) == m.group(2), refused.stderr
    least = int(m.group(1))
    ran = memo("wake", "--max-bytes", str(least))  # the order, as printed
    assert ran.exit_code == 0, ran.stderr
    for size in (least, least + 1, least + 500, 9000, 40000):
        r = memo("wake", "--max-bytes", str(size))
        assert r.exit_code == 0, (size, r.stderr)
        assert len(r.stdout.encode()) <= size + 1  # + the newline echo adds
        assert r.stdout.count("You are awake.") == 1
        assert "Project memory: widget" in r.stdout
    below = memo("wake", "--max-bytes", str(least - 1))
    assert below.exit_code != 0


@pytest.mark.parametrize("name", ["../x", "a b", "x;rm -rf ~"])
def test_an_impossible_project_name_gets_no_step_that_would_be_refused(memo, inited,
                                                                      monkeypatch, name):
    monkeypatch.setenv("MEMO_PROJECT", name)
    result = memo("wake")
    assert result.exit_code == 1 and "there can be none" in result.stderr
    assert "memo init --project" not in result.stderr

"""A store that a sync tool or git touched (docs/recovery.md), built for real on one
machine: two replicas written by memo, reconciled the ways Syncthing,
Dropbox and git do it. For each: what ``check`` and ``wake`` print, that no
advice destroys a memory, and that ``check`` and ``wake`` change nothing.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import answer_all, run_in
from helpers import LOG
from optmem.engine import marks, replicas

HAS_GIT = shutil.which("git") is not None
needs_git = pytest.mark.skipif(not HAS_GIT, reason="git is not installed")


def at(root: Path):
    """``memo(*args, input=None)`` run with ``MEMORY_DIR=root``."""
    return functools.partial(run_in, root)


def note(root: Path, *texts: str) -> None:
    memo = at(root)
    for text in texts:
        result = memo("note", text)
        assert result.exit_code == 0, result.stderr


def base_store(root: Path, n: int = 5) -> None:
    """A store of ``n`` memories with every summary written."""
    assert at(root)("init").exit_code == 0
    note(root, *[f"base memory {i}: the optmem project, réunion café" for i in range(n)])
    answer_all(at(root))


def tree_of(root: Path) -> dict:
    """Every file under ``root`` (the .git directory too) and its digest."""
    out = {}
    for dirpath, _, files in os.walk(root):
        for name in files:
            path = Path(dirpath) / name
            out[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def unchanged(where: Path, memo):
    """Run ``check`` and ``wake`` and assert not one file changed."""
    before = tree_of(where)
    check = memo("check")
    wake = memo("wake")
    assert tree_of(where) == before
    return check, wake


ORDER = re.compile(r"Run: memo (redact|forget)\b")


def no_destructive_advice(*texts: str) -> None:
    """No agent order blanks or drops anything; ``redact`` is never
    advised, and ``forget`` only as a person's step after looking first."""
    for text in texts:
        assert not ORDER.search(text), text
        for line in text.splitlines():
            if "memo redact" in line:
                assert line.strip().startswith(tuple(f"{k}. never" for k in range(1, 10))), line
            assert "rm " not in line and "truncate" not in line, line


STEP = re.compile(r"^  (\d+)\. .*?a person can run: (.*)$", re.M)


def run_steps(out: str, tmp_path: Path, store: Path) -> list:
    """Run every ``a person can run:`` step of ``out`` in the order printed,
    each exactly as printed (``sh -c``), with ``memo`` on PATH as this
    Python's and git able to commit; ``diff`` may exit 1 (the files differ),
    every other step must exit 0. Returns the commands run."""
    import sys
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    shim = bin_dir / "memo"
    shim.write_text(f"#!/bin/sh\nexec {sys.executable} -m optmem \"$@\"\n")
    shim.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
           "MEMORY_DIR": str(store), "HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}
    ran = []
    for _, command in STEP.findall(out):
        assert "<" not in command.replace("<<", ""), command  # no placeholder in a command
        done = subprocess.run(["sh", "-c", command], cwd=tmp_path, env=env,
                              capture_output=True, text=True)
        ok = (0, 1) if command.startswith("diff ") else (0,)
        assert done.returncode in ok, (command, done.stdout, done.stderr)
        ran.append(command)
    return ran


def texts(store: Path) -> list:
    """The texts of every memory in the store, in log order."""
    lines = at(store)("export").stdout.splitlines()
    return [line.split(" ", 1)[1] for line in lines]


def warned(wake, *needles: str) -> str:
    """The wake's warning, one line naming ``needles``: the first line of a
    one-part document (the reference's lines follow), else the second (after
    the part header, the intro or ``Cannot wake``)."""
    lines = wake.stdout.splitlines()
    assert len(lines) >= 2, wake.stdout
    if not lines[0].startswith("Warning:"):
        assert lines[0].startswith(("Your memory", "Memory part", "Compressions are pending",
                                    "Cannot wake")), lines[0]
        lines = lines[1:]
    warning = lines[0]
    assert warning.startswith("Warning: a sync tool or a merge changed this store"), warning
    # a lone conflict copy of the log ends with the person's merge; the rest with check
    assert warning.endswith("Run: memo check") or " && memo merge -- " in warning, warning
    assert sum(line.startswith("Warning:") for line in lines) == 1
    for needle in needles:
        assert needle in warning, (needle, warning)
    return warning


def replicas_of(tmp_path: Path) -> tuple:
    """A base store copied to two machines, each then writing three
    memories and all their summaries: ``(workstation, laptop)``."""
    base = tmp_path / "base"
    base_store(base)
    ws, laptop = tmp_path / "ws", tmp_path / "laptop"
    shutil.copytree(base, ws)
    shutil.copytree(base, laptop)
    note(ws, "ws: fixed the parser bug", "ws: release 0.2 tagged", "ws: talked to Zoë")
    note(laptop, "laptop: wrote the README", "laptop: flight to Oslo", "laptop: 東京 plan")
    answer_all(at(ws))
    answer_all(at(laptop))
    return ws, laptop


# -- Syncthing and Dropbox: the other machine's log renamed beside ours ----------

SYNCTHING = "LOG.sync-conflict-20261201-093012-LAPTOP7.txt"
DROPBOX = "LOG (laptop's conflicted copy 2026-12-01).txt"


def synced(tmp_path: Path, name: str, tree_name: str) -> Path:
    """What the sync tool left in the workstation's folder: its own LOG.txt,
    the laptop's as a conflict copy, TREE/2 and TREE/8 from the laptop and
    the workstation's TREE/2 as a conflict copy."""
    ws, laptop = replicas_of(tmp_path)
    shutil.copy2(laptop / "LOG.txt", ws / name)
    os.replace(ws / "TREE" / "2", ws / "TREE" / tree_name)
    for size in ("2", "8"):
        shutil.copy2(laptop / "TREE" / size, ws / "TREE" / size)
    (tmp_path / ".stfolder").mkdir()
    return ws


@pytest.mark.parametrize("name, tree_name, tool", [
    (SYNCTHING, "2.sync-conflict-20261201-093012-LAPTOP7", "Syncthing"),
    (DROPBOX, "2 (laptop's conflicted copy 2026-12-01)", "Dropbox"),
])
def test_a_conflict_copy_of_the_log_is_named_with_advice_that_loses_nothing(
        tmp_path, name, tree_name, tool):
    ws = synced(tmp_path, name, tree_name)
    memo = at(ws)
    check, wake = unchanged(tmp_path, memo)
    out = check.stdout
    assert check.exit_code == 1
    first = out.splitlines()[0]
    assert first.startswith(f"{ws / name} is a conflict copy of LOG.txt left by {tool}"), first
    assert ("LOG.txt and the copy agree on #0-#4, then differ: LOG.txt has 3 memories the "
            "copy lacks (#5-#7), the copy has 3 that exist only there") in out
    assert "diff -a" in out and "memo merge -- " in out and "mkdir -m 700" in out
    assert str(ws / "TREE" / tree_name) in out  # the summaries' copy too
    assert "Syncthing keeps in sync" in out  # the .stfolder around it
    assert re.search(r"^\d+ problems found\.$", out, re.M)
    # the merge keeps the summaries that still hold: no forget is advised
    assert "can run: memo forget" not in out
    assert out.index("diff -a") < out.index("mkdir -m 700") < out.index("memo merge -- ")
    no_destructive_advice(out, wake.stdout)
    # wake still prints the document, with one line naming the copy and the merge
    assert wake.exit_code == 0 and wake.stdout.endswith("You are awake.\n")
    warning = warned(wake, name, "conflict copy")
    assert "A person can run: mkdir -m 700 " in warning
    assert warning.endswith(f" && memo merge -- {tmp_path / 'ws-other'}"), warning

    # the advice works: the copy made a store of its own exports whole
    other = tmp_path / "other"
    other.mkdir(mode=0o700)
    shutil.copy2(ws / name, other / "LOG.txt")
    lines = at(other)("export").stdout.splitlines()
    assert len(lines) == 8 and lines[5].endswith("laptop: wrote the README")
    shutil.rmtree(other)
    # every step, in the order printed, keeps both machines' memories
    ran = run_steps(out, tmp_path, ws)
    assert any(command.startswith("memo merge -- ") for command in ran), ran
    kept = texts(ws)  # both machines' memories, in the order every machine computes
    assert kept[5:] == ["laptop: wrote the README", "laptop: flight to Oslo", "laptop: 東京 plan",
                        "ws: fixed the parser bug", "ws: release 0.2 tagged", "ws: talked to Zoë"]
    assert at(ws)("check").stdout.endswith("The store is whole.\n")


# -- git: a local bare repository as the hub ------------------------------------

def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    env = {**os.environ, "HOME": str(cwd), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}
    done = subprocess.run(["git", "-c", "init.defaultBranch=main", "-c", "pull.rebase=false",
                           *args], cwd=cwd, env=env, capture_output=True, text=True)
    if check:
        assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done


def git_replicas(tmp_path: Path, attributes: str, laptop_notes: int = 1) -> tuple:
    """Hub, workstation and laptop clones of one store at ``<clone>/mem``,
    with ``attributes`` as .gitattributes; after the base is pushed the
    workstation notes one memory and pushes, the laptop notes
    ``laptop_notes`` and pulls (a merge). Returns ``(laptop_store, pull)``."""
    hub = tmp_path / "hub.git"
    git(tmp_path, "init", "-q", "--bare", str(hub))
    ws, laptop = tmp_path / "ws", tmp_path / "laptop"
    git(tmp_path, "clone", "-q", str(hub), str(ws))
    (ws / ".gitattributes").write_text(attributes)
    base_store(ws / "mem")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "base")
    git(ws, "push", "-q", "origin", "HEAD:main")
    git(tmp_path, "clone", "-q", "-b", "main", str(hub), str(laptop))
    note(ws / "mem", "ws: the hub is a bare repository")
    git(ws, "commit", "-qam", "ws")
    git(ws, "push", "-q", "origin", "HEAD:main")
    note(laptop / "mem", *[f"laptop: memory {k} of the trip to Oslo" for k in range(laptop_notes)])
    git(laptop, "commit", "-qam", "laptop")
    pull = git(laptop, "pull", "-q", "--no-edit", "origin", "main", check=False)
    return laptop / "mem", pull


@needs_git
def test_git_merge_union_repeats_ids_and_check_never_advises_redact(tmp_path):
    store, pull = git_replicas(tmp_path, "LOG.txt merge=union\n", laptop_notes=2)
    assert pull.returncode == 0  # git calls it a clean merge
    log = (store / "LOG.txt").read_bytes()
    # ours first (the laptop's #5 and #6), then the workstation's #5
    assert len(log) == 8 * LOG and log[7 * LOG:].startswith(b"#5 2")
    memo = at(store)
    check, wake = unchanged(tmp_path, memo)
    out = check.stdout
    assert check.exit_code == 1
    assert out.startswith(f"{store / 'LOG.txt'} holds 1 memory out of place: position 7 "
                          f"holds #5. Ids that repeat"), out
    assert "merge=union" in out and "nothing is lost yet" in out
    assert "git -C" in out and "HEAD^2:./LOG.txt" in out and "HEAD^1:./LOG.txt" in out
    assert "LOG.txt binary" in out and "TREE/** binary" in out
    assert "memo merge -- " in out  # the other side merged in
    assert "merges LOG.txt with merge=union" in out  # the note on .gitattributes
    no_destructive_advice(out, wake.stdout)
    warned(wake, "the last record of LOG.txt (#{}) holds #5".format(7))
    # every step as printed, in order, recovers both machines' memories
    run_steps(out, tmp_path, store)
    whole = at(store)("check")
    assert whole.stdout.endswith("The store is whole.\n"), whole.stdout
    kept = texts(store)
    assert kept[5:] == ["laptop: memory 0 of the trip to Oslo",
                        "laptop: memory 1 of the trip to Oslo", "ws: the hub is a bare repository"]
    assert git(store.parent, "status", "--porcelain", "--", "mem").stdout == ""  # committed


@needs_git
def test_git_with_binary_makes_the_divergence_visible(tmp_path):
    store, pull = git_replicas(tmp_path, "LOG.txt binary\nTREE/** binary\n")
    assert pull.returncode != 0 and "CONFLICT" in pull.stdout + pull.stderr
    log = (store / "LOG.txt").read_bytes()
    assert len(log) == 6 * LOG and b"<<<<<<<" not in log  # ours, whole
    memo = at(store)
    check, wake = unchanged(tmp_path, memo)
    out = check.stdout
    assert check.exit_code == 1
    assert out.startswith(f"a git merge is in progress and {store / 'LOG.txt'} is unmerged")
    assert "MERGE_HEAD:./LOG.txt" in out and "checkout --ours" in out
    assert "merges LOG.txt as text" not in out  # binary: no note
    no_destructive_advice(out, wake.stdout)


@needs_git
def test_git_binary_conflict_steps_run_in_order_and_keep_both_memories(tmp_path):
    """The README's git setup, both clones note one memory (both #5), the
    laptop pulls with a merge: every printed step, run in order as printed,
    ends the merge, carries the workstation's memory over, and commits."""
    store, pull = git_replicas(tmp_path, "LOG.txt binary\nTREE/** binary\n")
    assert pull.returncode != 0 and "CONFLICT" in pull.stdout + pull.stderr
    out = at(store)("check").stdout
    ours = out.index("checkout --ours")
    assert ours < out.index("memo merge") < out.index("commit -q -m")  # nothing undone after
    ran = run_steps(out, tmp_path, store)
    assert len(ran) == 5 and ran[1].startswith("diff -a "), ran
    assert texts(store)[5:] == ["laptop: memory 0 of the trip to Oslo",
                                "ws: the hub is a bare repository"]
    whole = at(store)("check")
    assert whole.exit_code == 0, whole.stdout
    assert git(store.parent, "rev-parse", "-q", "--verify", "MERGE_HEAD", check=False).returncode
    assert git(store.parent, "status", "--porcelain", "--", "mem").stdout == ""


@needs_git
def test_where_the_logs_part_unknown_is_said_in_words(tmp_path, monkeypatch):
    """When git cannot compare both logs, the merge step is given all the
    same (a merge needs no point where the logs part), and every command
    runs."""
    store, _ = git_replicas(tmp_path, "LOG.txt binary\nTREE/** binary\n")
    monkeypatch.setattr(replicas, "_git_compare", lambda *a: None)
    out = at(store)("check").stdout
    assert "tail -n +" not in out and "memo merge -- " in out
    ran = run_steps(out, tmp_path, store)
    assert [c.split()[0] for c in ran] == ["mkdir", "diff", "git", "memo", "(grep"], ran
    assert at(store)("check").stdout.endswith("The store is whole.\n")
    assert texts(store)[5:] == ["laptop: memory 0 of the trip to Oslo",
                                "ws: the hub is a bare repository"]
    assert git(store.parent, "status", "--porcelain", "--", "mem").stdout == ""


@needs_git
def test_a_log_out_of_place_without_a_merge_names_commands_that_run(tmp_path):
    """Ids that repeat in a git work tree with no merge to read both sides
    from: the steps say what to find, and each printed command runs."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    base_store(repo / "mem")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    log = repo / "mem" / "LOG.txt"
    data = log.read_bytes()
    log.write_bytes(data + data[3 * LOG:4 * LOG])  # #3 again, at position 5
    out = at(repo / "mem")("check").stdout
    assert "position 5 holds #3" in out, out
    ran = run_steps(out, tmp_path, repo / "mem")
    assert [c.split()[0] for c in ran] == ["cp", "git"], ran
    assert (tmp_path / "repo" / "mem-LOG-as-found.txt").read_bytes() == log.read_bytes()

@needs_git
def test_an_unconfigured_merge_driver_writes_conflict_markers(tmp_path):
    store, pull = git_replicas(tmp_path, "LOG.txt merge=memo\n")
    assert pull.returncode != 0
    log = (store / "LOG.txt").read_bytes()
    assert b"\n<<<<<<< " in log and len(log) % LOG
    memo = at(store)
    check, wake = unchanged(tmp_path, memo)
    out = check.stdout
    assert check.exit_code == 1
    assert out.startswith(f"{store / 'LOG.txt'} holds git conflict markers (3 marker lines"), out
    assert "from #5 on its records are out of place" in out
    assert "MERGE_HEAD:./LOG.txt" in out and "HEAD:./LOG.txt" in out
    assert "not a whole record" not in out  # the torn-tail advice is not given
    assert "merges LOG.txt as text" in out
    no_destructive_advice(out, wake.stdout)
    warned(wake, "not a whole number of 320-byte records")
    # every step as printed, in order, keeps both machines' memories
    ran = run_steps(out, tmp_path, store)
    assert any(command.startswith("memo merge -- ") for command in ran), ran
    assert texts(store)[5:] == ["laptop: memory 0 of the trip to Oslo",
                                "ws: the hub is a bare repository"]
    whole = at(store)("check")
    assert whole.stdout.endswith("The store is whole.\n"), whole.stdout


# -- an older log copied over a newer one ---------------------------------------

def test_an_older_log_put_back_is_named_before_any_forget(tmp_path):
    root = tmp_path / "mem"
    base_store(root, 10)
    older = (root / "LOG.txt").read_bytes()
    note(root, *[f"newer memory {k}" for k in range(6)])
    answer_all(at(root))
    (root / "LOG.txt").write_bytes(older)
    memo = at(root)
    check, wake = unchanged(tmp_path, memo)
    out = check.stdout
    assert check.exit_code == 1
    first = out.splitlines()[0]
    assert "the summaries reach memory #15 but LOG.txt ends at #9" in first, first
    assert "TREE/2 (8 summaries, the log completes 5 blocks of 2)" in first
    assert "TREE/16 (1 summary, the log completes 0 blocks of 16)" in first
    lines = out.splitlines()
    look = next(k for k, line in enumerate(lines) if "look for the newer log" in line)
    forget = next(k for k, line in enumerate(lines) if "memo forget" in line)
    assert look < forget and "only if no newer log exists" in lines[forget]
    assert "cp -pR" in lines[forget] and "a person can run:" in lines[forget]
    no_destructive_advice(out, wake.stdout)
    assert wake.exit_code == 0 and wake.stdout.endswith("You are awake.\n")
    warned(wake, "summarises memories up to #15 but LOG.txt ends at #9")
    # note refuses to append on top, and orders no forget either
    refused = memo("note", "one more")
    assert refused.exit_code == 1 and "Run: memo forget" not in refused.stderr
    # every step as printed, in order (no newer log found): the log is kept
    # whole, the summaries kept aside, and the store is whole again
    run_steps(out, tmp_path, root)
    assert (root / "LOG.txt").read_bytes() == older
    assert (tmp_path / "mem-TREE-kept").is_dir() and (tmp_path / "mem-LOG-older.txt").exists()
    assert memo("check").exit_code == 0


# -- small things ---------------------------------------------------------------

@pytest.mark.parametrize("name, of, in_tree", [
    ("LOG.sync-conflict-20261201-093012-ABCDEFG.txt", "LOG.txt", False),
    ("8.sync-conflict-20261201-093012-ABCDEFG", "8", True),
    ("LOG (Ana's conflicted copy 2026-12-01).txt", "LOG.txt", False),
    ("LOG (conflicted copy 2026-12-01 101500).txt", "LOG.txt", False),
    ("LOG.txt.conflict1", "LOG.txt", False), ("LOG.conflict2.txt", "LOG.txt", False),
    ("LOG.txt..path1", "LOG.txt", False), ("LOG.txt.orig", "LOG.txt", False),
    ("LOG_REMOTE_4242.txt", "LOG.txt", False), ("LOG.txt~", "LOG.txt", False),
    (".LOG.txt.swp", "LOG.txt", False), ("#LOG.txt#", "LOG.txt", False),
    ("LOG (1).txt", "LOG.txt", False), ("LOG 2.txt", "LOG.txt", False),
    ("config.sync-conflict-20261201-093012-ABCDEFG", "config", False),
    ("4.orig", "4", True),
])
def test_conflict_copy_names(name, of, in_tree):
    assert marks.copy_of(name, in_tree)[0] == of


@pytest.mark.parametrize("name, in_tree", [
    ("LOG.txt", False), ("notes (conflicted copy).md", False), ("recovered.txt", False),
    ("3.orig", True), ("config", False), ("2", True), ("LOG.txt.tmp", False),
])
def test_names_that_are_not_conflict_copies(name, in_tree):
    assert marks.copy_of(name, in_tree) is None


def test_a_store_folder_of_its_own_names_is_listed_without_the_copy_patterns(tmp_path):
    """Names the store folder skips unmatched are never copies' shapes, so
    skipping them changes no answer: a folder of them alone compiles none."""
    for name in marks._OWN_NAMES:
        assert marks.copy_of(name) is None and marks.copy_of(name, True) is None, name
        (tmp_path / name).mkdir()
    marks._copy_names.cache_clear()
    # Only the listing is under test: a folder's names, no store opened.
    fake = type("Folder", (), {"root": str(tmp_path), "tree_path": str(tmp_path / "TREE")})()
    assert marks.conflict_copies(fake) == []
    assert marks._copy_names.cache_info().currsize == 0


def test_a_healthy_store_has_no_warning_and_check_says_whole(memo, inited):
    for k in range(9):
        memo("note", f"memory {k}")
    answer_all(memo)
    wake = memo("wake")
    assert "Warning:" not in wake.stdout
    out = memo("check").stdout
    assert out.endswith("The store is whole.\n") and "sync" not in out


def test_a_record_damaged_in_itself_still_names_redact(memo, inited):
    for k in range(4):
        memo("note", f"memory {k}")
    path = inited / "LOG.txt"
    data = bytearray(path.read_bytes())
    data[2 * LOG + 20] = 0xFF
    path.write_bytes(bytes(data))
    out = memo("check").stdout
    assert "memo redact 2 --yes" in out and "out of place" not in out


def test_the_warning_keeps_parts_within_their_limits(memo, inited):
    from conftest import set_config
    set_config(inited, PART_LINES=10)
    for k in range(30):
        memo("note", f"memory {k}")
    answer_all(memo)
    (inited / SYNCTHING).write_bytes(b"")
    parts = []
    k = 1
    while True:
        out = memo("wake", k, 30).stdout
        lines = out.splitlines()
        # PART_LINES counts the document, the warning among it (the header and
        # closing line are extra; so is memo's intro beside a short document)
        assert len(lines) <= 10 + 2 + (k == 1), out
        assert lines[1].startswith("Warning:")
        parts.append(out)
        if out.endswith("You are awake.\n"):
            break
        k += 1
    assert len(parts) > 1
    shown = [line for part in parts for line in part.splitlines() if line.startswith("#")]
    assert [line.split()[0] for line in shown] == [f"#{i}" for i in range(30)]


def test_wake_max_bytes_carries_the_warning_within_its_bytes(memo, inited):
    for k in range(5):
        memo("note", f"memory {k}")
    answer_all(memo)
    (inited / DROPBOX).write_bytes(b"")
    out = memo("wake", "--max-bytes", "1500").stdout
    assert len(out.encode()) <= 1500 + 1
    assert out.splitlines()[0].startswith("Warning:")
    assert out.splitlines()[1].startswith("#0 ")


def test_check_counts_agree_in_number(memo, inited):
    for k in range(4):
        memo("note", f"memory {k}")
    answer_all(memo)
    (inited / "TREE" / "4").write_bytes((inited / "TREE" / "4").read_bytes() * 2)
    out = memo("check").stdout
    assert "2 summaries, the log completes 1 block of 4" in out
    assert not re.search(r"\b1 (blocks|summaries|memories|problems)\b", out), out


# -- export ---------------------------------------------------------------------

def test_export_round_trips_byte_for_byte(tmp_path, memo, inited):
    texts = ["zoë met the optmem team", "- a line that starts with a dash",
             "東京 and Ελληνικά", "[redacted]", "quotes ' and \" and $HOME"]
    texts += [f"filler {k} so ids cross from one digit to two" for k in range(7)]
    for text in texts:
        assert memo("note", text).exit_code == 0
    out = memo("export")
    assert out.exit_code == 0 and out.stderr == ""
    assert [line[11:] for line in out.stdout.splitlines()] == texts
    path = tmp_path / "export.txt"
    done = memo("export", path)
    assert done.stdout.startswith("Exported 12 memories to ")
    assert path.read_text(encoding="utf-8") == out.stdout
    again = memo("export", path)  # never replaces a file
    assert again.exit_code == 1 and "exists" in again.stderr
    other = tmp_path / "other"
    assert at(other)("init").exit_code == 0
    # The person's step as printed, run in the other memory.
    step = shlex.split(done.stdout.split("A person can run: ", 1)[1])
    assert step[:2] == ["memo", "import"] and "with: memo" not in done.stdout
    ran = at(other)(*step[1:])
    assert ran.exit_code == 0, (step, ran.stderr)
    assert (other / "LOG.txt").read_bytes() == (inited / "LOG.txt").read_bytes()


def test_export_of_an_empty_store_and_of_a_damaged_log(tmp_path, memo, inited):
    assert memo("export").stdout == ""
    memo("note", "one")
    memo("note", "two")
    path = inited / "LOG.txt"
    data = bytearray(path.read_bytes())
    data[LOG + 15] = 0x01
    path.write_bytes(bytes(data))
    result = memo("export", tmp_path / "x.txt")
    assert result.exit_code == 1 and "record #1" in result.stderr
    assert "memo check" in result.stderr and not (tmp_path / "x.txt").exists()


def test_conflict_markers_in_a_level_are_named(memo, inited):
    for k in range(8):
        memo("note", f"memory {k}")
    answer_all(memo)
    level = inited / "TREE" / "2"
    data = level.read_bytes()
    mine, theirs = data[2 * 288:], data[2 * 288:].replace(b"memory", b"MEMORY")
    level.write_bytes(data[:2 * 288] + b"<<<<<<< HEAD\n" + mine + b"=======\n" + theirs
                      + b">>>>>>> laptop\n")
    before = tree_of(inited)
    result = memo("check")
    assert tree_of(inited) == before
    out = result.stdout
    assert result.exit_code == 1
    assert out.startswith(f"{level} holds git conflict markers (the first at byte offset 576)")
    assert "a person can run: memo forget 4-5" in out
    no_destructive_advice(out)
    # every step as printed, in order, recovers (the level is kept aside first)
    ran = run_steps(out, inited.parent, inited)
    assert [c.split()[0] for c in ran] == ["cp", "memo"], ran
    kept = (inited.parent / "mem-TREE-2-as-found").read_bytes()
    assert hashlib.sha256(kept).hexdigest() == before["TREE/2"]
    answer_all(memo)
    assert memo("check").exit_code == 0


def test_a_torn_tail_is_issue_8s_note_not_a_sync_mark(memo, inited):
    """The torn-record rule (docs/recovery.md) and this one agree: a torn last record (no newline) is
    a note, cut by the next write; wake does not warn and check names no
    merge. Bytes with a newline in them are a merge's or an edit's mark."""
    for k in range(4):
        memo("note", f"memory {k}")
    answer_all(memo)
    with open(inited / "LOG.txt", "ab") as f:
        f.write(b"#4 2026-12-01 half a mem")
    assert "Warning:" not in memo("wake").stdout
    out = memo("check").stdout
    assert "torn last record" in out and "out of place" not in out and "shifted" not in out
    with open(inited / "LOG.txt", "ab") as f:
        f.write(b"\n<<<<<<< HEAD\n")
    warned(memo("wake"), "not a whole number of 320-byte records")


def test_the_import_an_export_suggests_runs_as_printed(tmp_path, memo, inited, monkeypatch):
    """Over ``IMPORT_ASK_ABOVE`` memories ``memo import`` asks for
    ``--yes``, so the export's suggestion carries it; up to it, it does not."""
    from optmem.engine import backlog
    monkeypatch.setattr(backlog, "IMPORT_ASK_ABOVE", 3)
    for k in range(3):
        assert memo("note", f"memory number {k}").exit_code == 0
    three = memo("export", tmp_path / "three.txt").stdout
    assert three.endswith(f"A person can run: memo import {tmp_path / 'three.txt'}\n")
    assert memo("note", "memory number 3").exit_code == 0
    four = memo("export", tmp_path / "four.txt").stdout
    order = four.split("A person can run: ")[1].split()
    assert order[:3] == ["memo", "import", "--yes"]
    assert at(tmp_path / "other")("init").exit_code == 0
    assert at(tmp_path / "other")(*order[1:]).exit_code == 0  # as printed
    assert at(tmp_path / "third")("init").exit_code == 0
    assert at(tmp_path / "third")("import", order[-1]).exit_code != 0  # without --yes: asked


def test_the_warning_never_splits_the_empty_stores_seed_order(memo, inited):
    """On an empty store the warning stands after the seed's heredoc order
    (its body and tag stay together), before ``You are awake.``."""
    (inited / "LOG.sync-conflict-20251201-101010-ABCDEFG.txt").write_bytes(b"x")
    lines = memo("wake").stdout.rstrip("\n").splitlines()
    assert lines[0] == "No memories yet. Record the first with: memo note - <<'MEMORY'"
    assert lines[1:3] == ["<one line>", "MEMORY"]
    assert lines[3].startswith("Warning: ") and lines[4] == "You are awake."

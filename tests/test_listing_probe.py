"""The sync-mark probe of ``memo wake`` lists the store folder only when its
times changed since a listing found no conflict copy (``marks.copies_beside``).

Listings are counted by wrapping ``os.listdir`` and ``os.scandir``: a wake
with nothing changed lists nothing; a conflict copy a sync tool drops
later, memo's own note, a folder changed too recently to trust its times,
and a state folder that cannot be written all mean a listing again.
"""

from __future__ import annotations

import os

import pytest

from optmem.engine import marks

#: Where the listing marks are kept, under the state folder (``marks.LISTED_DIR``).
LISTED = "listed"
COPY = "LOG.sync-conflict-20260101-120000-ABCDEFG.txt"


@pytest.fixture
def listings(monkeypatch, memory_dir):
    """How many times the store folder was listed (a one-item list)."""
    count = [0]
    root = str(memory_dir)
    real_listdir, real_scandir = os.listdir, os.scandir

    def is_root(path) -> bool:
        return isinstance(path, (str, bytes, os.PathLike)) and \
            os.path.normpath(os.fsdecode(path)) == root

    def listdir(path="."):
        count[0] += is_root(path)
        return real_listdir(path)

    def scandir(path="."):
        count[0] += is_root(path)
        return real_scandir(path)

    monkeypatch.setattr(os, "listdir", listdir)
    monkeypatch.setattr(os, "scandir", scandir)
    return count


@pytest.fixture
def state(tmp_path, monkeypatch):
    """This user's state folder, in the test's own directory."""
    path = tmp_path / "state"
    monkeypatch.setenv("XDG_STATE_HOME", str(path))
    return path


def settle(monkeypatch, root) -> None:
    """Let the store folder's present times count as settled: ``SETTLED_NS``
    is 0, and the filesystem's clock has moved past them, so any change made
    from now on gives the folder other times (the margin's whole point)."""
    monkeypatch.setattr(marks, "SETTLED_NS", 0, raising=False)
    st = os.stat(root)
    probe = os.path.join(os.path.dirname(root), "tick")
    for _ in range(100_000):
        with open(probe, "w"):
            pass
        if os.stat(probe).st_ctime_ns > max(st.st_ctime_ns, st.st_mtime_ns):
            break
        os.unlink(probe)
    else:
        pytest.fail("the filesystem's clock never moved past the store folder's times")


def wake(memo) -> str:
    result = memo("wake")
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_a_second_wake_with_nothing_changed_lists_nothing(memo, inited, state, listings,
                                                          monkeypatch):
    memo("note", "the café server moved to the new rack")
    # With the real margin the folder was written a moment ago, so its times
    # are not trusted yet (a name added in the same clock tick keeps them).
    for n in range(1, 4):
        wake(memo)
        assert listings[0] == n
    assert not (state / "optmem" / LISTED).exists()
    listings[0] = 0
    settle(monkeypatch, str(inited))
    first = wake(memo)
    assert listings[0] == 1
    second = wake(memo)
    assert listings[0] == 1  # two stat calls, no listing
    assert second == first and "Warning:" not in second
    marks = os.listdir(state / "optmem" / LISTED)
    assert len(marks) == 1


def test_a_record_older_than_the_relist_time_is_listed_again(memo, inited, state, listings,
                                                             monkeypatch):
    # A filesystem may keep no real folder times (a mount showing a fixed
    # one): the folder is still listed every RELIST_NS.
    memo("note", "first")
    settle(monkeypatch, str(inited))
    wake(memo)
    wake(memo)
    assert listings[0] == 1
    monkeypatch.setattr(marks, "RELIST_NS", 0)
    wake(memo)
    wake(memo)
    assert listings[0] == 3


def test_a_conflict_copy_dropped_later_is_seen(memo, inited, state, listings, monkeypatch):
    memo("note", "the café server moved to the new rack")
    settle(monkeypatch, str(inited))
    assert "Warning:" not in wake(memo)
    assert "Warning:" not in wake(memo)
    assert listings[0] == 1
    (inited / COPY).write_bytes((inited / "LOG.txt").read_bytes())
    out = wake(memo)
    assert listings[0] == 2
    assert f"{COPY} beside LOG.txt is a conflict copy (Syncthing)" in out
    # A copy found is never recorded: the warning stays while it does.
    settle(monkeypatch, str(inited))
    assert COPY in wake(memo) and COPY in wake(memo)
    assert listings[0] == 4
    # Gone again: one listing finds nothing, and is recorded.
    (inited / COPY).unlink()
    settle(monkeypatch, str(inited))
    assert "Warning:" not in wake(memo) and "Warning:" not in wake(memo)
    assert listings[0] == 5


def test_memos_own_note_means_one_listing_again(memo, inited, state, listings, monkeypatch):
    memo("note", "first")
    settle(monkeypatch, str(inited))
    wake(memo)
    wake(memo)
    assert listings[0] == 1
    memo("note", "second")  # its journal comes and goes in the folder
    settle(monkeypatch, str(inited))
    wake(memo)
    wake(memo)
    assert listings[0] == 2


def test_a_state_folder_that_cannot_be_written_costs_a_listing_not_an_error(
        memo, inited, tmp_path, listings, monkeypatch):
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the state folder would be\n")
    monkeypatch.setenv("XDG_STATE_HOME", str(blocked))
    memo("note", "first")
    settle(monkeypatch, str(inited))
    assert "Warning:" not in wake(memo) and "Warning:" not in wake(memo)
    assert listings[0] == 2
    (inited / COPY).write_bytes(b"")
    assert COPY in wake(memo)
    (inited / COPY).unlink()
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))  # writable again
    settle(monkeypatch, str(inited))
    wake(memo)
    wake(memo)
    assert listings[0] == 4


def test_a_mark_that_is_not_a_regular_file_is_not_trusted(memo, inited, state, listings,
                                                          monkeypatch):
    memo("note", "first")
    settle(monkeypatch, str(inited))
    wake(memo)
    folder = state / "optmem" / LISTED
    (mark,) = os.listdir(folder)
    st = os.stat(folder / mark)
    os.unlink(folder / mark)
    os.mkdir(folder / mark)
    os.utime(folder / mark, ns=(st.st_atime_ns, st.st_mtime_ns))
    wake(memo)
    wake(memo)
    assert listings[0] == 3

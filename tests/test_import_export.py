"""``memo import`` and ``memo export``: an import from a device or a pipe is
refused without reading it.
"""

from __future__ import annotations

import re

import pytest

from conftest import write_import


@pytest.mark.parametrize("source", ["/dev/zero", "fifo"])
def test_importing_a_device_or_a_pipe_is_refused_without_reading_it(memo, inited, tmp_path,
                                                                     source):
    """``memo import /dev/zero`` counted the lines of an endless file before
    its first check, and never ended."""
    import os
    if source == "fifo":
        source = str(tmp_path / "fifo")
        os.mkfifo(source)  # nobody writes: a read would block for ever
    result = memo("import", source)
    assert result.exit_code == 1 and "is not a regular file" in result.stderr


def test_import_happy_path(memo, inited, tmp_path):
    path = tmp_path / "hist.txt"
    path.write_text("2024-05-01 first\n\n2024-05-01 second\n   \n2024-05-02 third\n",
                    encoding="utf-8")
    result = memo("import", path)
    assert result.exit_code == 0
    assert result.stderr == ("memo: importing 3 memories creates 1 compression (it is an "
                             "agent turn; MEMO_HANDOVER=batch hands many over at once, and "
                             "a person can pay them with memo sleep --with CMD)\n")
    assert result.stdout == ("Imported 3 memories, #0 to #2.\n"
                             "1 compression pending. Run: memo sleep\n")  # only 0-1 is complete
    assert len((inited / "LOG.txt").read_bytes()) == 3 * 320
    more = write_import(tmp_path / "more.txt", ["2024-05-02 fourth"])
    again = memo("import", more)
    assert again.exit_code == 0
    assert "#3" in again.stdout
    assert re.search(r"\b3 compressions", again.stdout)  # 0-1, 2-3, 0-3


@pytest.mark.parametrize("lines, needle", [
    (["2024-05-01 ok", "2024-02-30 not a real day"], "line 2"),
    (["2024-05-01 ok", "05/02/2024 wrong shape"], "line 2"),
    (["2024-05-02 ok", "2024-05-01 goes back"], "line 2"),
    (["2024-05-01 ok", "2024-05-02"], "line 2"),
    (["2024-05-01 ok", "2024-05-02    "], "line 2"),
    (["2024-05-01 ok", "2024-05-02 " + "x" * 281], "line 2"),
])
def test_import_errors_are_all_or_nothing(memo, inited, tmp_path, lines, needle):
    path = write_import(tmp_path / "bad.txt", lines)
    result = memo("import", path)
    assert result.exit_code == 1
    assert result.stdout == ""
    assert needle in result.stderr
    assert (inited / "LOG.txt").read_bytes() == b""


def test_import_missing_file(memo, inited, tmp_path):
    result = memo("import", tmp_path / "nope.txt")
    assert result.exit_code in (1, 2)
    assert result.stdout == ""
    assert "nope.txt" in result.stderr
    assert (inited / "LOG.txt").read_bytes() == b""


def test_import_not_before_the_newest_memory(memo, inited, tmp_path):
    memo("note", "today's note")
    result = memo("import", write_import(tmp_path / "old.txt", ["2014-01-01 long ago"]))
    assert result.exit_code == 1
    assert result.stdout == ""
    assert len((inited / "LOG.txt").read_bytes()) == 320


def test_import_crlf_and_bom(memo, inited, tmp_path):
    path = tmp_path / "win.txt"
    path.write_bytes(b"\xef\xbb\xbf2024-05-01 from windows\r\n2024-05-02 second\r\n")
    result = memo("import", path)
    assert result.exit_code == 0, result.stderr
    data = (inited / "LOG.txt").read_bytes()
    assert data[:319].rstrip(b" ") == b"#0 2024-05-01 from windows"
    assert data[320:639].rstrip(b" ") == b"#1 2024-05-02 second"


def test_import_refuses_a_credential(memo, inited, tmp_path):
    key = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
    path = write_import(tmp_path / "leak.txt", ["2024-05-01 fine", f"2024-05-02 token {key}"])
    result = memo("import", path)
    assert result.exit_code == 1
    assert result.stdout == ""
    assert "line 2" in result.stderr
    assert key not in result.stderr  # never repeats the secret
    assert (inited / "LOG.txt").read_bytes() == b""


def test_the_same_file_imported_twice_is_refused_naming_the_run(memo, inited, tmp_path):
    """A file whose lines are already a recent run of memories (an import of
    the same export again, even after notes in between) is refused in one
    line naming that run, and the log is unchanged; a file that only starts
    like one, or one line of it, is imported as before."""
    from datetime import date
    today = date.today().isoformat()
    path = tmp_path / "hist.txt"
    path.write_text(f"{today} first fact\n{today} second fact\n", encoding="utf-8")
    assert memo("import", path).exit_code == 0
    log = (inited / "LOG.txt").read_bytes()
    again = memo("import", path)
    assert again.exit_code == 1 and again.stdout == ""
    assert again.stderr == (f"memo: {path} was imported already: its 2 memories are #0 to "
                            f"#1 of this memory, text for text; nothing was imported (a "
                            f"second import would keep each twice, for good)\n")
    assert (inited / "LOG.txt").read_bytes() == log
    assert memo("note", "a fact noted in between").exit_code == 0
    assert "are #0 to #1 of this memory" in memo("import", path).stderr
    one = tmp_path / "one.txt"
    one.write_text(f"{today} second fact\n", encoding="utf-8")
    assert "its one memory is #1 of this memory" in memo("import", one).stderr
    longer = tmp_path / "longer.txt"
    longer.write_text(f"{today} first fact\n{today} second fact\n{today} third fact\n",
                      encoding="utf-8")
    result = memo("import", longer)
    assert result.exit_code == 0 and "#3 to #5" in result.stdout


def test_a_later_line_with_the_newest_memorys_text_is_no_reimport(memo, inited, tmp_path):
    """The same text on a later date is a new memory, not the earlier
    import again: dates count, as the import would write them."""
    from datetime import date, timedelta
    day = date.today() - timedelta(days=40)
    first = tmp_path / "first.txt"
    first.write_text(f"{day.isoformat()} the deploy ran\n", encoding="utf-8")
    assert memo("import", first).exit_code == 0
    later = tmp_path / "later.txt"
    later.write_text(f"{date.today().isoformat()} the deploy ran\n", encoding="utf-8")
    result = memo("import", later)
    assert result.exit_code == 0 and "#1 to #1" in result.stdout
    assert "imported already" in memo("import", later).stderr  # that one, twice: refused

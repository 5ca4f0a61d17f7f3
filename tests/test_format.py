"""The on-disk format, byte for byte (docs/format.md). Expected bytes are
written out by hand here, not taken from the code."""

from __future__ import annotations

import datetime
import stat

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import cut_utf8, set_config, write_import
from helpers import log_bytes


def test_import_record_bytes(memo, inited, tmp_path):
    src = write_import(tmp_path / "in.txt", ["2026-11-30 hello", "2026-11-30 café ☕"])
    result = memo("import", src)
    assert result.exit_code == 0, result.stderr
    data = log_bytes(inited)
    assert len(data) == 2 * 320
    # "#0 2026-11-30 hello" is 19 bytes; padded with spaces to 319, then \n.
    assert data[0:320] == b"#0 2026-11-30 hello" + b" " * (319 - 19) + b"\n"
    # "café ☕": c a f (3) + é (C3 A9, 2) + space (1) + ☕ U+2615 (E2 98 95, 3) = 9
    # bytes; with "#1 2026-11-30 " (14 bytes) the line is 23 bytes.
    line = b"#1 2026-11-30 caf\xc3\xa9 \xe2\x98\x95"
    assert len(line) == 23
    assert data[320:640] == line + b" " * (319 - 23) + b"\n"


def test_ids_grow_in_width_and_stay_at_i_times_320(memo, inited, tmp_path):
    lines = [f"2026-11-{day:02d} memory number {i}" for i, day in
             zip(range(12), [1, 1, 2, 3, 3, 3, 4, 5, 6, 7, 8, 9])]
    assert memo("import", write_import(tmp_path / "in.txt", lines)).exit_code == 0
    data = log_bytes(inited)
    assert len(data) == 12 * 320
    rec10 = data[10 * 320:11 * 320]
    body = b"#10 2026-11-08 memory number 10"
    assert rec10 == body + b" " * (319 - len(body)) + b"\n"
    for i in range(12):
        assert data[i * 320:].startswith(f"#{i} ".encode())
        assert data[i * 320 + 319:i * 320 + 320] == b"\n"


def test_notes_are_records_at_i_times_320(memo, inited):
    before = datetime.date.today().isoformat()
    texts = ["first note", "second, with a comma", "third: ünïcode ok"]
    for i, text in enumerate(texts):
        result = memo("note", text)
        assert result.exit_code == 0, result.stderr
        assert result.stdout.splitlines()[0] == f"Saved as #{i}."
    after = datetime.date.today().isoformat()
    data = log_bytes(inited)
    assert len(data) == 3 * 320
    for i, text in enumerate(texts):
        record = data[i * 320:(i + 1) * 320]
        options = {f"#{i} {d} {text}".encode() for d in (before, after)}
        body = record[:319].rstrip(b" ")
        assert body in options
        assert record == body + b" " * (319 - len(body)) + b"\n"


def test_summary_records_288_bytes_at_k_times_288(memo, inited, tmp_path):
    lines = [f"2026-11-30 m{i}" for i in range(4)]
    assert memo("import", write_import(tmp_path / "in.txt", lines)).exit_code == 0
    for block, text in [("0-1", "a"), ("2-3", "b"), ("0-3", "résumé")]:
        result = memo("sleep", block, text)
        assert result.exit_code == 0, result.stderr
    tree = inited / "TREE"
    assert sorted(p.name for p in tree.iterdir()) == ["2", "4"]
    assert (tree / "2").read_bytes() == (b"a" + b" " * 286 + b"\n") + (b"b" + b" " * 286 + b"\n")
    # "résumé" = r(1) é(2) s(1) u(1) m(1) é(2) = 8 bytes, padded to 287.
    assert (tree / "4").read_bytes() == "résumé".encode() + b" " * 279 + b"\n"
    assert len("résumé".encode()) == 8


def test_entry_chars_counts_bytes_not_characters(memo, inited):
    # "ã" is U+00E3, two bytes in UTF-8: 140 of them are 280 bytes.
    ok = memo("note", "ã" * 140)
    assert ok.exit_code == 0, ok.stderr
    assert ok.stdout == "Saved as #0.\n"
    size = len(log_bytes(inited))
    too_long = memo("note", "ã" * 141)  # 282 bytes
    assert too_long.exit_code == 1
    assert too_long.stdout == ""
    assert "282" in too_long.stderr and "280" in too_long.stderr
    assert len(log_bytes(inited)) == size
    record = log_bytes(inited)[:320]
    assert record[:319].rstrip(b" ").endswith(b"\xc3\xa3" * 140)


def test_entry_chars_ascii_boundary(memo, inited):
    assert memo("note", "x" * 280).exit_code == 0
    refused = memo("note", "y" * 281)
    assert refused.exit_code == 1
    assert refused.stdout == ""
    assert "281" in refused.stderr
    assert len(log_bytes(inited)) == 320


def test_entry_chars_applies_to_summaries(memo, inited):
    memo("note", "one")
    memo("note", "two")
    refused = memo("sleep", "0-1", "s" * 281)
    assert refused.exit_code == 1
    assert not (inited / "TREE" / "2").exists() or (inited / "TREE" / "2").read_bytes() == b""
    ok = memo("sleep", "0-1", "s" * 280)
    assert ok.exit_code == 0, ok.stderr
    assert (inited / "TREE" / "2").read_bytes() == b"s" * 280 + b" " * 7 + b"\n"


def test_entry_chars_from_config(memo, inited):
    set_config(inited, ENTRY_CHARS=100)
    assert memo("note", "z" * 100).exit_code == 0
    refused = memo("note", "w" * 101)
    assert refused.exit_code == 1
    assert "101" in refused.stderr


def test_init_files_and_modes(memo, memory_dir):
    result = memo("init")
    assert result.exit_code == 0
    assert stat.S_IMODE(memory_dir.stat().st_mode) == 0o700
    assert stat.S_IMODE((memory_dir / "TREE").stat().st_mode) == 0o700
    assert stat.S_IMODE((memory_dir / "LOG.txt").stat().st_mode) == 0o600
    assert (memory_dir / "LOG.txt").read_bytes() == b""
    config = (memory_dir / "config").read_text()
    assert stat.S_IMODE((memory_dir / "config").stat().st_mode) == 0o600
    # Every knob is there, commented out: the defaults stay the tool's.
    for knob in ("ENTRY_CHARS", "WAKE_LINES", "PART_CHARS", "PART_LINES"):
        assert knob in config
    for line in config.splitlines():
        assert not line.strip() or line.lstrip().startswith("#"), line


def test_torn_tail_is_cut_before_the_next_append(memo, inited):
    memo("note", "alpha")
    memo("note", "beta")
    with open(inited / "LOG.txt", "ab") as f:
        f.write(b"#2 2026-1")  # a crash mid-write: never acknowledged
    # Readers see whole records only.
    recall = memo("recall", "^#2 ")
    assert recall.exit_code == 0
    assert "#2 2026-1" not in recall.stdout
    result = memo("note", "gamma")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[0] == "Saved as #2."
    data = log_bytes(inited)
    assert len(data) == 3 * 320
    assert data[640:].startswith(b"#2 ") and data[640:].rstrip(b" \n").endswith(b" gamma")


def hand_record(width: int, text: str) -> bytes:
    body = text.encode("utf-8")
    return body + b" " * (width - 1 - len(body)) + b"\n"


def test_reads_a_store_written_by_hand(memo, memory_dir):
    # A store as the reference tool writes it, built byte by byte: no
    # config file (all defaults), summaries for every complete block of T=4.
    memory_dir.mkdir()
    (memory_dir / "TREE").mkdir()
    texts = ["boot", "read the docs", "fixed the parser", "shipped 1.0"]
    (memory_dir / "LOG.txt").write_bytes(b"".join(
        hand_record(320, f"#{i} 2024-05-0{i + 1} {t}") for i, t in enumerate(texts)))
    (memory_dir / "TREE" / "2").write_bytes(hand_record(288, "boot, docs") +
                                            hand_record(288, "parser fixed; 1.0 out"))
    (memory_dir / "TREE" / "4").write_bytes(hand_record(288, "first week: 1.0 shipped"))
    sleep = memo("sleep")
    assert (sleep.exit_code, sleep.stdout, sleep.stderr) == (0, "Nothing left to compress.\n", "")
    wake = memo("wake")
    assert wake.exit_code == 0, wake.stderr
    for i, t in enumerate(texts):
        assert f"#{i} 2024-05-0{i + 1} {t}" in wake.stdout.splitlines()
    recall = memo("recall", "^#2 ")
    assert recall.stdout.splitlines()[0] == "#2 2024-05-03 fixed the parser"
    # The next note appends record #4 right behind.
    note = memo("note", "next")
    assert note.stdout.splitlines()[0] == "Saved as #4."
    assert len((memory_dir / "LOG.txt").read_bytes()) == 5 * 320


def test_torn_summary_tail_is_cut_before_the_next_summary(memo, inited):
    for text in ("one", "two", "three", "four"):
        memo("note", text)
    assert memo("sleep", "0-1", "first pair").exit_code == 0
    with open(inited / "TREE" / "2", "ab") as f:
        f.write(b"second pa")  # a crash mid-write of 2-3
    # Readers count whole records only: 2-3 is still the next block.
    assert "Run: memo sleep 2-3 - <<'SUMMARY'" in memo("sleep").stdout.splitlines()
    result = memo("sleep", "2-3", "second pair")
    assert result.exit_code == 0, result.stderr
    assert (inited / "TREE" / "2").read_bytes() == (
        b"first pair" + b" " * 277 + b"\n" + b"second pair" + b" " * 276 + b"\n")


# Words of letters from several scripts (accented, Greek, CJK, emoji): short
# words, so nothing looks like a credential.
WORD = st.text(alphabet="abcxyzéüßñøΩλж中文字😀☕ 0123456789.,'", min_size=1, max_size=8)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(WORD, min_size=1, max_size=30))
def test_text_round_trips_byte_for_byte(memo, inited, words):
    start = len(log_bytes(inited)) // 320
    text = cut_utf8(f"n{start} " + " ".join(words), 280).strip()
    result = memo("note", "-", input=text + "\n")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[0] == f"Saved as #{start}."
    data = log_bytes(inited)
    assert len(data) == (start + 1) * 320
    body = data[start * 320:start * 320 + 319].rstrip(b" ")
    date = body.split(b" ")[1].decode()
    expected = f"#{start} {date} {text}".encode("utf-8")
    assert body == expected
    assert data[start * 320:(start + 1) * 320] == expected + b" " * (319 - len(expected)) + b"\n"

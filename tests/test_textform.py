"""What was typed is what is stored, up to Unicode canonical equivalence:
``note``, ``sleep`` and ``import`` store NFC, the duplicate check treats
NFC and NFD as the same text, and the byte limit counts what is stored."""

from __future__ import annotations

import unicodedata

import pytest

from conftest import write_import
from helpers import rec
from optmem.textform import is_nfc, nfc

ZURICH_NFC = "Zürich office: Grüße an Ångström, naïve café, 한국어"
ZURICH_NFD = unicodedata.normalize("NFD", ZURICH_NFC)
assert ZURICH_NFC != ZURICH_NFD and len(ZURICH_NFD.encode()) > len(ZURICH_NFC.encode())


def log_records(root):
    data = (root / "LOG.txt").read_bytes()
    return [data[k:k + 320] for k in range(0, len(data), 320)]


def stored_text(record: bytes) -> bytes:
    return record[:319].rstrip(b" ").split(b" ", 2)[2]


FORMS = [("NFC", ZURICH_NFC), ("NFD", ZURICH_NFD),
         ("mixed", ZURICH_NFC.split(" ", 1)[0] + " "
          + unicodedata.normalize("NFD", ZURICH_NFC.split(" ", 1)[1]))]


def test_nfc_helper():
    assert nfc(ZURICH_NFD) == ZURICH_NFC and nfc("plain") == "plain"
    assert is_nfc(ZURICH_NFC) and not is_nfc(ZURICH_NFD)
    # Canonical only: compatibility characters stay as typed.
    assert nfc("ﬁle ² ｱ") == "ﬁle ² ｱ"


@pytest.mark.parametrize("form, text", FORMS, ids=[f for f, _ in FORMS])
def test_note_stores_nfc(memo, inited, form, text):
    result = memo("note", text)
    assert (result.exit_code, result.stdout, result.stderr) == (0, "Saved as #0.\n", "")
    assert stored_text(log_records(inited)[0]) == ZURICH_NFC.encode()


@pytest.mark.parametrize("form, text", FORMS, ids=[f for f, _ in FORMS])
def test_note_from_stdin_stores_nfc(memo, inited, form, text):
    result = memo("note", "-", input=text + "\n")
    assert result.exit_code == 0, result.stderr
    assert stored_text(log_records(inited)[0]) == ZURICH_NFC.encode()


@pytest.mark.parametrize("form, text", FORMS, ids=[f for f, _ in FORMS])
def test_sleep_stores_nfc(memo, inited, form, text):
    memo("note", "first")
    memo("note", "second")
    result = memo("sleep", "0-1", "-", input=text + "\n")
    assert result.exit_code == 0, result.stderr
    assert (inited / "TREE" / "2").read_bytes()[:287].rstrip(b" ") == ZURICH_NFC.encode()


@pytest.mark.parametrize("form, text", FORMS, ids=[f for f, _ in FORMS])
def test_import_stores_nfc(memo, inited, tmp_path, form, text):
    path = write_import(tmp_path / "in.txt", [f"2024-05-01 {text}", f"2024-05-02 {text} 2"])
    result = memo("import", str(path))
    assert result.exit_code == 0, result.stderr
    texts = [stored_text(r) for r in log_records(inited)]
    assert texts == [ZURICH_NFC.encode(), ZURICH_NFC.encode() + b" 2"]


@pytest.mark.parametrize("first, second", [(a, b) for _, a in FORMS for _, b in FORMS],
                         ids=[f"{f}-{g}" for f, _ in FORMS for g, _ in FORMS])
def test_duplicate_check_treats_both_forms_as_equal(memo, inited, first, second):
    assert memo("note", first).exit_code == 0
    result = memo("note", second)
    assert result.exit_code == 1 and "this is already memory #0" in result.stderr
    assert len(log_records(inited)) == 1


@pytest.mark.parametrize("written", [ZURICH_NFC, ZURICH_NFD], ids=["NFC", "NFD"])
@pytest.mark.parametrize("typed", [ZURICH_NFC, ZURICH_NFD], ids=["NFC", "NFD"])
def test_duplicate_of_a_record_another_tool_wrote(memo, inited, written, typed):
    (inited / "LOG.txt").write_bytes(rec(0, "2024-05-01", written))
    result = memo("note", typed.upper())
    assert result.exit_code == 1 and "this is already memory #0" in result.stderr


def test_the_byte_limit_counts_what_is_stored(memo, inited):
    # 140 "é": 280 bytes in NFC, 420 bytes in NFD.
    nfd = unicodedata.normalize("NFD", "é" * 140)
    assert len(nfd.encode()) == 420
    result = memo("note", nfd)
    assert result.exit_code == 0, result.stderr
    assert stored_text(log_records(inited)[0]) == ("é" * 140).encode()
    too_long = memo("note", unicodedata.normalize("NFD", "é" * 141))
    assert too_long.exit_code == 1 and "is 282 bytes of UTF-8" in too_long.stderr


@pytest.mark.parametrize("pattern", ["Zürich", unicodedata.normalize("NFD", "Zürich"),
                                     "grüße", unicodedata.normalize("NFD", "ZÜRICH OFFICE")],
                         ids=["NFC", "NFD", "NFC-lower", "NFD-upper"])
def test_recall_finds_both_forms_whoever_wrote_them(memo, inited, pattern):
    # #0 written by another tool in NFD, #1 typed in NFD and stored NFC by memo,
    # #2 typed NFC: one recall in either form finds all three, shown as stored.
    (inited / "LOG.txt").write_bytes(rec(0, "2024-05-01", ZURICH_NFD))
    assert memo("note", "met in " + ZURICH_NFD).exit_code == 0
    assert memo("note", "again " + ZURICH_NFC).exit_code == 0
    result = memo("recall", pattern)
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert [line.split(" ", 1)[0] for line in lines[:-1]] == ["#0", "#1", "#2"]
    assert lines[-1] == "3 matches."
    assert lines[0].endswith(ZURICH_NFD) and lines[1].endswith("met in " + ZURICH_NFC)

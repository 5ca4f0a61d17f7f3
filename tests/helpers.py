"""Functions several test files share: run ``memo`` and read its answer,
read the files of a store, follow the wake document, answer compressions.

Fixtures live in conftest.py; this module imports from it, never the
other way round.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from conftest import SLEEP_ORDER, history, write_import

AWAKE = "You are awake."
#: Bytes of one record of LOG.txt and of one record of a TREE/ level file.
LOG = 320
TREE = 288
WAKE_ID = re.compile(r"^#(\d+)(?:-(\d+))? ")


def one_line(text: str) -> str:
    """``text`` (what a command printed on stderr) is exactly one non-empty
    line, with its newline, that starts ``memo: ``; return it."""
    assert text.endswith("\n"), repr(text)
    lines = text.splitlines()
    assert len(lines) == 1 and lines[0].strip(), repr(text)
    assert lines[0].startswith("memo: "), repr(text)
    return lines[0]


def ok(result) -> str:
    """stdout of a command that succeeded with no traceback and nothing on
    stderr but the notice an import prints."""
    assert "Traceback" not in result.stdout + result.stderr
    assert result.exit_code == 0, (result.stdout, result.stderr)
    assert without_import_warning(result.stderr) == ""
    return result.stdout


def without_import_warning(err: str) -> str:
    """stderr less the line an import prints before writing (docs/protocol.md)."""
    return "".join(line for line in err.splitlines(keepends=True)
                   if not line.startswith("memo: importing"))


def refused(result, code: int = 1) -> str:
    """The command failed with ``code``, printed nothing on stdout and one
    line on stderr; return that line."""
    assert result.exit_code == code, (result.exit_code, result.stdout, result.stderr)
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    return one_line(result.stderr)


def log_bytes(root: Path) -> bytes:
    return (root / "LOG.txt").read_bytes()


def summary_text(root: Path, lo: int, hi: int) -> str:
    """The stored summary of half-open ``[lo, hi)``, read from TREE/ directly."""
    size = hi - lo
    data = (root / "TREE" / str(size)).read_bytes()
    k = lo // size
    return data[k * TREE:(k + 1) * TREE - 1].decode("utf-8").rstrip(" ")


def expected_line(root: Path, lines: list, lo: int, hi: int) -> str:
    """How wake shows block ``[lo, hi)`` of a store imported from ``lines``:
    ``#i date text`` for a memory, ``#lo-hi dates summary`` for a block."""
    if hi - lo == 1:
        return f"#{lo} {lines[lo]}"
    first, last = lines[lo][:10], lines[hi - 1][:10]
    dates = first if first == last else f"{first}..{last}"
    return f"#{lo}-{hi - 1} {dates} {summary_text(root, lo, hi)}"


def wake_all(memo) -> list:
    """Every line of the wake document, following the part orders."""
    result = memo("wake")
    out = ok(result)
    lines = []
    while True:
        part = out.splitlines()
        lines += part
        last = part[-1]
        if last == AWAKE:
            return lines
        m = re.fullmatch(r"Run: memo wake (\d+) (\d+)", last)
        assert m, last
        out = ok(memo("wake", m.group(1), m.group(2)))


def id_lines(lines: list) -> list:
    """``(lo, hi, line)`` (half-open) for every wake line that starts with an id."""
    out = []
    for line in lines:
        m = WAKE_ID.match(line)
        if m:
            lo = int(m.group(1))
            hi = int(m.group(2)) + 1 if m.group(2) else lo + 1
            out.append((lo, hi, line))
    return out


def is_block(lo: int, hi: int) -> bool:
    size = hi - lo
    return size >= 1 and size & (size - 1) == 0 and lo % size == 0


def answer_with(memo, text_for) -> int:
    """Answer every compression with ``text_for(lo, hi)`` (half-open)."""
    out = ok(memo("sleep"))
    done = 0
    while out != "Nothing left to compress.\n":
        orders = [m for m in map(SLEEP_ORDER.match, out.splitlines()) if m]
        assert len(orders) == 1, out
        name = orders[0].group(1)
        lo, last = map(int, name.split("-"))
        said, _, out = ok(memo("sleep", name, "-", input=text_for(lo, last + 1) + "\n")
                          ).partition("\n")
        assert said == f"{name} saved."
        out = out.removeprefix("\n") if out != "Nothing left to compress.\n" else out
        done += 1
    return done


def imported(memo, tmp_path, n: int):
    path = write_import(tmp_path / f"import{n}.txt", history(n))
    ok(memo("import", path))


def notes(memo, n: int, word: str = "dm") -> None:
    for k in range(n):
        ok(memo("note", f"{word} {k}"))


def poke(root: Path, offset: int, data: bytes) -> bytes:
    """Overwrite bytes of LOG.txt in place (as ``dd conv=notrunc``); return
    the record they fall in, before."""
    path = root / "LOG.txt"
    log = bytearray(path.read_bytes())
    before = bytes(log[offset - offset % LOG:offset - offset % LOG + LOG])
    log[offset:offset + len(data)] = data
    path.write_bytes(bytes(log))
    return before


def last_line(text: str) -> str:
    return text.rstrip("\n").splitlines()[-1]


def memo_env(memo, env: dict, *args, input=None):
    """``memo(*args)`` with extra environment variables set for the call."""
    import os
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        return memo(*args, input=input)
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def ok_noted(result) -> str:
    """stdout of a command that succeeded, whatever notice it gave on stderr."""
    assert "Traceback" not in result.stdout + result.stderr
    assert result.exit_code == 0, (result.stdout, result.stderr)
    return result.stdout


NOTHING = "Nothing left to compress.\n"


def import_texts(memo, tmp_path, texts, date="2024-05-01"):
    path = write_import(tmp_path / "import.txt", [f"{date} {t}" for t in texts])
    result = memo("import", path)
    assert result.exit_code == 0, result.stderr
    return result


def body_lines(prompt: str) -> list:
    return [line.strip() for line in prompt.splitlines() if line.startswith("  ")]


STDIN_TEXT = """$(rm -rf x) `touch pwned` $HOME ${PATH} !! !$ "double" 'single' \\n \\ end"""


def nfc(text: str) -> str:
    """``text`` in NFC, by the standard library (not by memo's own code)."""
    return unicodedata.normalize("NFC", text)


def rec(i, date, text):
    """The 320-byte LOG.txt record of memory ``i``, written out by hand."""
    body = f"#{i} {date} {text}".encode()
    return body + b" " * (319 - len(body)) + b"\n"


def bits(n: int) -> int:
    """How many bits of ``n`` are set."""
    return bin(n).count("1")


def srec(text: str) -> bytes:
    """The 288-byte TREE/ record of a summary, written out by hand."""
    body = text.encode("utf-8")
    assert len(body) <= TREE - 1
    return body + b" " * (TREE - 1 - len(body)) + b"\n"


def glued_text(draw, words, glue, max_words: int, nfd: bool = False) -> str:
    """For a hypothesis ``@st.composite``: 1 to ``max_words`` draws from
    ``words``, each followed by a draw from ``glue``, stripped (``"x"`` when
    empty), in NFD when ``nfd``, cut to at most 280 bytes of UTF-8 (a
    memory's limit)."""
    import unicodedata

    from hypothesis import strategies as st
    picked = draw(st.lists(st.sampled_from(words), min_size=1, max_size=max_words))
    glues = draw(st.lists(st.sampled_from(glue), min_size=len(picked), max_size=len(picked)))
    text = "".join(w + g for w, g in zip(picked, glues)).strip() or "x"
    if nfd:
        text = unicodedata.normalize("NFD", text)
    while len(text.encode("utf-8")) > 280:
        text = text[:-1]
    return text

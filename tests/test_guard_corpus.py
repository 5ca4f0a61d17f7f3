"""The write guard's allowed corpus (``tests/data/guard-allowed.txt``) is
what its script writes, and has the shape the guard's tests rely on: one
sentence a line, each once, at most 250 bytes of UTF-8, no tab, no leading
date. Whether the guard lets every line through is tested with the guard."""

from __future__ import annotations

import importlib.util
import re

from conftest import DATA, data_file


def load_maker():
    path = data_file("make_guard_allowed.py")
    spec = importlib.util.spec_from_file_location("make_guard_allowed", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_script_writes_the_committed_file_byte_for_byte():
    lines, hand = load_maker().build()
    expected = "".join(line + "\n" for line in lines).encode("utf-8")
    assert (DATA / "guard-allowed.txt").read_bytes() == expected, (
        "guard-allowed.txt differs from what its script writes: "
        "run python3 tests/data/make_guard_allowed.py")
    assert hand >= 600


def test_every_line_has_the_shape():
    raw = data_file("guard-allowed.txt").read_bytes()
    assert raw.endswith(b"\n")
    lines = raw.decode("utf-8").split("\n")[:-1]
    assert len(lines) >= 1200
    assert len(set(lines)) == len(lines)
    for line in lines:
        assert line.strip() == line and line, repr(line)
        assert len(line.encode("utf-8")) <= 250, line
        assert "\t" not in line and "\r" not in line, repr(line)
        assert not re.match(r"\d{4}-\d{2}-\d{2}", line), line
        assert not re.search(r"[\w.+-]+@[\w-]+\.[A-Za-z]{2,}", line), f"an e-mail address: {line}"

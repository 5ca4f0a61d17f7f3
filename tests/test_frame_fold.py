"""Showing a record costs what it needs: frame tags are looked for in a
folded text only where a character can fold to ``<`` (the shortcut in
``guard.text._frame_tag_matches`` gives the answers folding every text
gives: ``_fold`` maps characters one by one, a character reference aside),
a record of plain non-ASCII text is shown without being folded, and the
display's character classes are sets, not regular expressions compiled at
import, with the same answers.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optmem.guard import text as guard
from optmem.store import memory, records
from optmem.store.memory import displayable


def folded_matches(text: str) -> list:
    """Every frame tag match on ``text`` folded whole: the definition."""
    if not guard._may_hold_tag(text):
        return []
    if text.isascii() and "&" not in text:
        return [(m.start(), m.group(0)) for m in guard._FRAME_TAG.finditer(text)]
    folded, at = guard._fold(text)
    return [(at[m.start()][0], m.group(0)) for m in guard._FRAME_TAG.finditer(folded)]


def fast_matches(text: str) -> list:
    found, at = guard._frame_tag_matches(text)
    return [(at[m.start()][0] if at else m.start(), m.group(0)) for m in found]


def test_one_character_folds_to_lt_exactly_where_the_fold_gives_one():
    check = guard._folds_to_lt.__wrapped__  # uncached: every code point once
    for cp in range(0x110000):
        if 0xD800 <= cp < 0xE000:
            continue  # lone surrogates: never in text a store holds
        ch = chr(cp)
        if ch == "&":
            continue  # a reference's start: handled before the shortcut
        assert check(ch) == ("<" in guard._fold(ch)[0]), f"U+{cp:04X}"


PIECES = ["<", ">", "/", "&lt;", "&#60", "&#x3C;", "&", "\uff1c", "\ufe64", "\u2039",
          "\u2329", "\u3008", "\u02c2", "\u200b", "\u00ad", "\u2010", "system-reminder",
          "ѕystem-reminder", "hook_context", "café", "東京", "zürich", "u\u0308", " ",
          "a", "\u2044", "\U0001d236", "e\u0301"]


@settings(max_examples=600)
@given(st.lists(st.sampled_from(PIECES), max_size=12))
def test_the_shortcut_finds_what_folding_every_text_finds(parts):
    text = "".join(parts)
    assert fast_matches(text) == folded_matches(text)
    assert guard.frame_tags(text) == _offsets(text)


def _offsets(text: str) -> list:
    if not guard._may_hold_tag(text):
        return []
    if text.isascii() and "&" not in text:
        return [m.start() for m in guard._FRAME_TAG.finditer(text)]
    folded, at = guard._fold(text)
    out = []
    for m in guard._FRAME_TAG.finditer(folded):
        start, end = at[m.start()]
        out.extend(range(start, end))
    return out


@pytest.mark.parametrize("text", ["the café server moved to the new rack",
                                  "東京 office: budget approved", "zürich – berlin trip"])
def test_plain_non_ascii_text_is_shown_without_folding(text, monkeypatch):
    calls = []
    real = guard._fold

    def counting(t):
        calls.append(t)
        return real(t)

    monkeypatch.setattr(guard, "_fold", counting)
    assert displayable(text) == text
    assert calls == []
    # A look-alike bracket still folds, and the tag is still replaced.
    tagged = text + " \uff1csystem-reminder\uff1e"
    shown = displayable(tagged)
    assert calls and "\uff1csystem" not in shown and "\ufffd" in shown


# -- the display's character sets ----------------------------------------------

_OLD_CONTROL = re.compile("[" + re.escape(records._CONTROL_CHARS) + "]")
_OLD_SUSPECT = re.compile("[\u034f\u115f\u1160\u17b4\u17b5\u3164\uffa0\ufe00-\ufe0f"
                          "\U000e0100-\U000e01ef]")

CHARS = ("a", "é", " ", "\t", "\x00", "\x1b", "\x7f", "\x85", "\x9f", "\u2028", "\u2029",
         "\u034f", "\u3164", "\ufe0f", "\ufe00", "\U000e0100", "\U000e01ef", "\U000e01f0",
         "\u200b", "\u202e", "<", "&", "東", "\ufffd", "\ufe10")


def old_displayable(text: str) -> str:
    """``displayable`` as it was written with the regular expressions."""
    if text.isprintable() and not _OLD_SUSPECT.search(text):
        if "<" not in text and "&" not in text and text.isascii():
            return text
        chars = list(text)
        for i in guard.frame_tags(text):
            chars[i] = "\ufffd"
        return "".join(chars)
    return guard.shown(text)


@settings(max_examples=600)
@given(st.lists(st.sampled_from(CHARS), max_size=20))
def test_the_sets_answer_as_the_classes_did(chars):
    text = "".join(chars)
    assert displayable(text) == old_displayable(text)
    data = text.encode("utf-8")
    if b"\x00" in data or not data.strip(b" "):
        return  # refused before the control check
    why, _ = memory.check_record(data.ljust(319, b" ") + b"\n", 320)
    assert (why is not None) == bool(_OLD_CONTROL.search(text)), why


def test_the_store_module_compiles_no_regular_expression_at_import():
    code = ("import re, sys\n"
            "seen = []\n"
            "real = re._compile\n"
            "def spy(pattern, flags):\n"
            "    f = sys._getframe(1)\n"
            "    while f.f_code.co_filename.startswith(re.__file__.rsplit('__init__', 1)[0]):\n"
            "        f = f.f_back\n"
            "    seen.append(f.f_code.co_filename)\n"
            "    return real(pattern, flags)\n"
            "re._compile = spy\n"
            "import optmem.store.memory\n"
            "print('\\n'.join(seen))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    mine = [f for f in done.stdout.splitlines() if f.endswith(os.path.join("store", "memory.py"))]
    assert mine == []

"""Real text of every script passes the write guard and is shown unchanged
(README "Text of every script"): the names in the Unicode CLDR data of every
locale, and a table of the invisible characters a script needs, each in
its script (text) and outside it (refused on write, U+FFFD on display: the
same rule in the guard and the display).

The CLDR names come from ``babel`` (a test-only dependency: it ships the
CLDR data, so a bare clone runs this test).
"""

from __future__ import annotations

import unicodedata

import pytest

from optmem.guard import text as guard
from optmem.store.config import KNOBS
from optmem.store.memory import displayable
from optmem.textform import nfc

ENTRY_CHARS = KNOBS["ENTRY_CHARS"][0]

#: The README's documented refusals of real text, by the guard's reason:
#: characters this Python's Unicode database does not know yet (Sunuwar
#: is Unicode 16), and private-use characters (a placeholder in CLDR data).
DOCUMENTED = ("(unassigned)", "(private use)")


def cldr_names():
    """``{name: locale}`` for every language, territory, script, month and
    day name of every CLDR locale that babel ships (the first locale that
    has the name), NFC, at most ``ENTRY_CHARS`` bytes."""
    babel = pytest.importorskip("babel", reason="babel (the test extra) ships the CLDR "
                                "data: pip install -e '.[test]'")
    from babel import localedata
    names = {}
    locales = localedata.locale_identifiers()
    for ident in locales:
        loc = babel.Locale.parse(ident)
        pools = [loc.languages, loc.territories, loc.scripts]
        for context in ("format", "stand-alone"):
            for width in ("wide", "abbreviated", "narrow"):
                for table in (loc.months, loc.days):
                    try:
                        pools.append(table[context][width])
                    except KeyError:
                        pass
        for pool in pools:
            for value in dict(pool).values():
                if isinstance(value, str) and value.strip():
                    text = nfc(value.strip())
                    if len(text.encode("utf-8")) <= ENTRY_CHARS:
                        names.setdefault(text, ident)
    return locales, names


def test_every_cldr_name_passes_or_is_a_documented_decision():
    locales, names = cldr_names()
    assert len(locales) > 1000 and len(names) > 100_000
    refused = {}
    for name, ident in names.items():
        problem = guard.find_problem(name)
        if problem is None:
            assert displayable(name) == name, (ident, name)
            continue
        refused[name] = (ident, problem)
    undocumented = {n: r for n, r in refused.items()
                    if not any(d in r[1] for d in DOCUMENTED)}
    assert undocumented == {}
    # Today's only refusals: Sunuwar under a Python older than Unicode 16.
    assert all(r[0].startswith("suz") for r in refused.values()), refused


KHMER = "ភាសា\u200bខ្មែរ"                       # a word break in Khmer
LAO = "\u200bເອ\u200bສະ\u200bວາ\u200bຕິ\u200bນີ"     # CLDR lo: Eswatini
PERSIAN = "می\u200cخواهم"                        # ZWNJ inside a Persian word
BALOCHI_END = "کیچه\u200c"                       # CLDR bgn: ZWNJ ending the name
ORIYA = "ପ୍ରେଞ୍ଚ\u200d"                          # CLDR kxv: ZWJ ending the name
MALAYALAM = "അവന്\u200d"                         # chillu by virama + ZWJ
HEBREW = "\u200fאינטרלינגואה"                   # CLDR he: a leading RLM
ARABIC_LRM = "abc \u200eABC"                    # LRM in Latin-only text
MONGOLIAN = "ᠠᠨᠭᠭᠯᠢ\u180eᠠ"                     # vowel separator before final a
TOKYO = "葛\U000e0100飾区"                       # Katsushika with its registered glyph
EMOJI = "🏳️\u200d🌈 ok 👍🏽"

#: (text, accepted): every row is also checked on display.
TABLE = [
    (KHMER, True), (LAO, True), (PERSIAN, True), (BALOCHI_END, True), (ORIYA, True),
    (MALAYALAM, True), (HEBREW, True), (MONGOLIAN, True), (TOKYO, True), (EMOJI, True),
    ("pass\u200bword", False),            # ZWSP inside Latin: hides a word
    ("\u200bhidden", False),
    ("ខ្មែរ\u200b abc", True),             # a word's end: a space is an edge
    ("abc \u200b def", False),            # between Latin words
    ("abc\u200cdef", False),
    ("\u0627\u200c latin after ZWNJ", True),
    ("\u0627\u200cx", False),              # straight into a Latin letter
    ("a\u200fb", False),                  # RLM between Latin letters
    ("\u200f\u200f\u200fעברית", False),   # a run of three
    ("a\u180eb", False),
    ("葛\U000e0100\U000e0101飾", False),   # two selectors on one ideograph
    ("t\U000e0100", False),                # an ideographic selector on a Latin letter
    ("t\ufe00", False),
    ("\ufe0fstart", False),
    ("x \u202e reversed", False),         # bidi override: never text
    ("x\u2066isolate\u2069", False),
    (ARABIC_LRM, False),
    ("العربية\u200e (1)", True),           # LRM ending an Arabic word
    ("العربية \u200e(1)", False),          # LRM between a space and "("
]


@pytest.mark.parametrize("text, accepted", TABLE,
                         ids=[ascii(t)[1:-1][:40] for t, _ in TABLE])
def test_invisible_characters_in_and_out_of_their_script(text, accepted):
    problem = guard.find_problem(text)
    assert (problem is None) == accepted, problem
    shown = displayable(text)
    if accepted:
        assert shown == text
    else:
        assert "\ufffd" in shown and len(shown) == len(text)
        # Exactly the characters the guard refuses for hiding are replaced.
        for i, (a, b) in enumerate(zip(text, shown)):
            assert (a != b) == (guard._char_kind(text, i) is not None), (i, a)


@pytest.mark.parametrize("text", [TOKYO, PERSIAN, KHMER, HEBREW, MONGOLIAN, MALAYALAM],
                         ids=["tokyo", "persian", "khmer", "hebrew", "mongolian", "malayalam"])
def test_stored_byte_for_byte_and_shown_unchanged(memo, inited, text):
    result = memo("note", f"{text} noted")
    assert (result.exit_code, result.stderr) == (0, ""), result.stderr
    record = (inited / "LOG.txt").read_bytes()
    assert record.split(b" ", 2)[2].rstrip(b" \n") == f"{text} noted".encode()
    woke = memo("wake")
    assert f" {text} noted\n" in woke.stdout and "\ufffd" not in woke.stdout
    assert f"{text} noted" in memo("recall", "noted").stdout


def test_the_table_covers_each_decision():
    kinds = {unicodedata.name(ch) for t, ok in TABLE if ok for ch in t
             if unicodedata.category(ch) in ("Cf", "Mn") and not unicodedata.combining(ch)}
    for name in ("ZERO WIDTH SPACE", "ZERO WIDTH NON-JOINER", "ZERO WIDTH JOINER",
                 "RIGHT-TO-LEFT MARK", "MONGOLIAN VOWEL SEPARATOR",
                 "VARIATION SELECTOR-17"):
        assert name in kinds, name

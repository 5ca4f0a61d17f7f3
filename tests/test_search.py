"""Streaming recall (``optmem.recall.search``) equals the plain per-record search.

The oracle is the definition in docs/recall.md: every ``LOG.txt`` record as one
line, matched with Python's ``re`` (IGNORECASE, Unicode). The store holds
multi-byte text with every case trap Python folds (É/é, ß/ẞ, Σ/σ/ς, İ/ı/i,
the Kelvin sign, long s, µ/μ/Μ, ǅ) and a few damaged records. Recall runs
with tiny chunks, so matches fall on every chunk boundary, with and without
RE2 (when google-re2 is installed).
"""

from __future__ import annotations

import random
import re
import signal
import unicodedata

import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

from helpers import nfc
from optmem.errors import BadInput
from optmem.recall import scancount, search
from optmem.recall.pattern import line_of
from optmem.store.memory import LOG_RECORD, Store, displayable, encode_memory

WORDS = (
    "release deploy failed rollback click merge fix patch tag stress kiosk "
    "été ÉTÉ Été straße STRASSE ẞ ß σοφία ΣΟΦΙΑ Σίσυφος ὀδυσσεύς λόγος "
    "İstanbul ISTANBUL ısı Kelvin kelvin \u212aelvin \u212aIOSK ſtyle µs μs ΜS ǅemal ǆemal Ǆemal "
    "ﬁx 日本語 東京 데이터 Москва ДАННЫЕ 🚀 ✓ → ñandú café naïve Zürich "
    "2024-05-01 #7 v2.0 a aa aaa x-y 42 1999 word words sword".split()
)

#: "python": Python's re alone; "re2": RE2's prefilter; "c": the C counter
#: (optmem.recall._scan) alone, which then finds the printed lines too. "python"
#: and "re2" run without the C counter, as an install without a C compiler
#: does (the C counter beside RE2: tests/test_fastcount.py).
ENGINES = ["python"] + (["re2"] if search.re2_module() is not None else []) + \
    (["c"] if scancount.available() else [])
#: The engines that match every candidate line with ``re`` (the C counter
#: decides most lines of a plain word without it).
LINE_ENGINES = [name for name in ENGINES if name != "c"]


def _texts(n: int, seed: int = 7) -> list:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        words = rng.choices(WORDS, k=rng.randint(1, 40))
        text = " ".join(words)
        while len(text.encode("utf-8")) > 280:
            words.pop()
            text = " ".join(words)
        out.append(text)
    return out


def _build(root: str, records: list) -> Store:
    store, created = Store.init(root)
    assert created
    with open(store.log_path, "ab") as f:
        f.write(b"".join(records))
    return store


def _damaged(i: int, body: bytes) -> bytes:
    """A record that memo never writes: ``body`` padded to 320 bytes."""
    head = f"#{i} 2024-06-01 ".encode()
    data = (head + body)[:LOG_RECORD - 1]
    return data + b" " * (LOG_RECORD - 1 - len(data)) + b"\n"


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """~300 memories of varied multi-byte text, dates never decreasing, one
    memory in NFD, and four damaged records (a stray newline, bad UTF-8,
    all NULs, no final newline)."""
    root = str(tmp_path_factory.mktemp("search") / "mem")
    texts = _texts(300)
    records = []
    for i, text in enumerate(texts):
        day = 1 + i * 28 // len(texts)
        records.append(encode_memory(i, f"2024-02-{day:02d}", text))
    n = len(records)
    records.append(_damaged(n, b"deploy of the\nrelease failed"))
    records.append(_damaged(n + 1, b"caf\xc3 na\xefve \xff\xfe rollback"))
    records.append(b"\x00" * LOG_RECORD)
    last = _damaged(n + 3, "torn été".encode())
    records.append(last[:-1] + b"x")
    records.append(encode_memory(n + 4, "2024-03-01", "a" * 260))
    records.append(encode_memory(n + 5, "2024-03-01", unicodedata.normalize(
        "NFD", "Zürich café ÉTÉ written decomposed, as a tool on macOS may")))
    n += 1
    records.append(encode_memory(n + 5, "2024-03-01", "end #7 of the log; ÉTÉ"))
    return _build(root, records)


def oracle_lines(store) -> list:
    """Every record of the log as the line recall matches (docs/recall.md)."""
    with open(store.log_path, "rb") as f:
        data = f.read()
    out = []
    for k in range(len(data) // LOG_RECORD):
        record = data[k * LOG_RECORD:(k + 1) * LOG_RECORD]
        out.append(record.decode("utf-8", "replace").replace("\n", " ").rstrip())
    return out


def matching(store, pattern: str) -> list:
    """The lines the plain per-record search matches: the NFC pattern on
    the NFC form of each line (docs/recall.md), the lines shown as stored."""
    rx = re.compile(nfc(pattern), re.IGNORECASE)
    return [line for line in oracle_lines(store) if rx.search(nfc(line))]


def expected(store, pattern: str) -> list:
    """What recall prints for them: control characters shown as U+FFFD."""
    return [displayable(line) for line in matching(store, pattern)]


class engine:
    """Recall with small chunks and one engine (``ENGINES``); the time bound
    is raised so a loaded machine never refuses a fine pattern."""

    def __init__(self, name: str, chunk: int, bound: float = 60.0):
        self.name, self.chunk, self.bound = name, chunk, bound

    def __enter__(self):
        self.saved = (search.USE_RE2, search.CHUNK_RECORDS, search.TIME_BOUND, scancount._scan)
        search.USE_RE2 = self.name == "re2"
        search.CHUNK_RECORDS = self.chunk
        search.TIME_BOUND = self.bound
        if self.name != "c":
            scancount._scan = None
        return self

    def __exit__(self, *exc):
        search.USE_RE2, search.CHUNK_RECORDS, search.TIME_BOUND, scancount._scan = self.saved

    def recall(self, store, pattern, limit=10 ** 9):
        return search.recall(store, pattern, limit)


HAND_PICKED = [
    "rollback", "deploy.*failed", "^#7 ", "#7 ", "^#30\\d ", "2024-02-1", "2024-02-0[1-5]",
    "$", "^", "\\d", "\\d{4}", "\\bword\\b", "\\bwords?\\b", "sword$", "ÉTÉ", "été", "eté",
    "ß", "ẞ", "STRASSE", "straße", "σ", "ς", "Σ", "ΣΟΦΊΑ", "σοφία", "İ", "ı", "i",
    "istanbul", "İSTANBUL", "K", "kelvin", "ſ", "style", "STYLE", "µ", "μs", "ǅ", "ǆemal",
    "ﬁ", "FIX", "日本", "🚀", "→ ñ", "café", "naïve", "\ufffd", "caf. na", "of the release",
    "the\\s+release", "a{200}", "(a+)+$", "a|é", "(?:x-y|v2\\.0)", "deploy|rollback|été",
    "(?-i:Été)", "(?i)été", "(?=.*deploy)(?=.*tag)", "(deploy).*\\1", "é$", "x$", "torn",
    "\\x00", "[éÉ]t", "(?s).", "\\w+ \\w+", "(?x) r o l l b a c k", "\\Btag", "a\\b",
    "^#3 2024", "2024-03-01 a", "(?>roll)back", "(?:roll)++back", "k{1,}elvin",
    "(?!.*rollback)deploy", "deploy(?!.*rollback)", "(?<!roll)back", "rollback.*kelvin",
    "deploy.*style", "tag.*istanbul", "kiosk", "KIOSK", "\u212a", "fix.*ſ",
    "zürich", "Zu\u0308rich", "cafe\u0301", "zurich", "\\bzürich\\b", "écrit|caf",
]


@pytest.mark.parametrize("name", ENGINES)
@pytest.mark.parametrize("chunk", [1, 3, 64])
def test_hand_picked_patterns_equal_the_plain_search(store, name, chunk):
    with engine(name, chunk) as e:
        for pattern in HAND_PICKED:
            try:
                re.compile(pattern)
            except re.error:  # atomic groups, possessive repeats: Python 3.11+
                with pytest.raises(BadInput):
                    e.recall(store, pattern)
                continue
            want = expected(store, pattern)
            assert e.recall(store, pattern) == (want, len(want), False), pattern


def test_line_of_is_the_oracle_line(store):
    with open(store.log_path, "rb") as f:
        data = f.read()
    lines = oracle_lines(store)
    for k, line in enumerate(lines):
        assert line_of(data[k * LOG_RECORD:(k + 1) * LOG_RECORD]) == line


# -- patterns from a small grammar ------------------------------------------

CHARS = list("aeiksxy -#0179") + list("éÉßẞσςΣİıſµΜǅ日🚀\u212a")
ATOMS = st.one_of(
    st.sampled_from(CHARS).map(re.escape),
    st.sampled_from(WORDS).map(re.escape),
    st.sampled_from(["\\d", "\\w", "\\s", "\\W", ".", "[aé]", "[^ ]", "[0-9]", "\\b", "^", "$"]),
)


def _combine(children):
    return st.one_of(
        st.lists(children, min_size=2, max_size=3).map("".join),
        st.lists(children, min_size=2, max_size=3).map(lambda xs: "(?:" + "|".join(xs) + ")"),
        children.map(lambda x: f"({x})"),
        st.tuples(st.sampled_from(["?=", "?!"]), children).map(lambda t: f"({t[0]}{t[1]})"),
        st.tuples(children, st.sampled_from(["?", "*", "+", "{1,2}", "+?"])).map(
            lambda t: f"(?:{t[0]}){t[1]}"),
    )


PATTERNS = st.recursive(ATOMS, _combine, max_leaves=6)


class _TooSlow(Exception):
    pass


def quick_expected(store, pattern: str) -> list:
    """``expected``, or reject the example if even the plain search takes
    over 2 s of this process's CPU time (a generated pattern that backtracks
    without end). CPU time, as recall's own bound: a loaded machine changes
    neither which examples run nor any answer; nothing here is asserted on
    time."""
    def alarm(signum, frame):
        raise _TooSlow()
    old = signal.signal(signal.SIGVTALRM, alarm)
    signal.setitimer(signal.ITIMER_VIRTUAL, 2.0)
    try:
        return expected(store, pattern)
    except _TooSlow:
        reject()
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.signal(signal.SIGVTALRM, old)


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(pattern=PATTERNS, chunk=st.sampled_from([1, 2, 5, 17]))
def test_generated_patterns_equal_the_plain_search(store, pattern, chunk):
    want = quick_expected(store, pattern)
    for name in ENGINES:
        with engine(name, chunk) as e:
            assert e.recall(store, pattern) == (want, len(want), False), (name, pattern)


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pattern=PATTERNS)
def test_required_literals_are_in_every_matching_line(store, pattern):
    want = quick_expected(store, pattern)
    for option in search.requirements(nfc(pattern)):
        any_of = re.compile("|".join(map(re.escape, option)), re.IGNORECASE)
        assert all(any_of.search(nfc(line)) for line in want), (pattern, option)


def test_requirements_of_known_patterns():
    assert search.requirements("rollback") == [("rollback",)]
    assert search.requirements("deploy.*failed") == [("deploy",), ("failed",)]
    assert search.requirements("^#7 ") == [("#7 ",)]
    assert search.requirements("foo|bar baz") == [("foo", "bar baz")]
    assert search.requirements("(?:ab)?c") == [("c",)]
    assert search.requirements("a|") == []
    assert search.requirements("\\d+") == []
    assert search.requirements("(?=abc)x") == [("x",)]


# -- the byte-level case tables -----------------------------------------------

def test_ascii_folds_hold_every_non_ascii_match_of_an_ascii_character():
    """Python's ``re`` matches an ASCII character only with its own two cases
    and ``ASCII_FOLDS``: the assumption both byte prefilters rest on."""
    for code in range(128):
        ch = chr(code)
        allowed = {ch, ch.lower(), ch.upper()}
        if ch.isalpha():
            allowed |= set(search.ASCII_FOLDS.get(ch.lower(), ""))
        assert set(search.case_class(ch)) <= allowed, ch


@pytest.mark.skipif("re2" not in ENGINES, reason="google-re2 is not installed")
@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(CHARS + list("AEIKSXYZbcdqrt")),
                   min_size=1, max_size=4))
def test_re2_needle_matches_every_spelling_re_accepts(text):
    """Every string ``re`` (IGNORECASE) matches with the literal ``text``
    is matched, as UTF-8 bytes, by the RE2 needle built for it."""
    re2 = search.re2_module()
    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1
    rx = re2.compile(search._re2_syntax(text)[0].encode("ascii"), options)
    spellings = [""]
    for ch in text:
        spellings = [s + x for s in spellings for x in search.case_class(ch)][:200]
    for spelling in spellings:
        assert re.fullmatch(re.escape(text), spelling, re.IGNORECASE)
        assert rx.search(spelling.encode("utf-8")), (text, spelling)


# -- the output budget --------------------------------------------------------

@pytest.mark.parametrize("name", ENGINES)
@pytest.mark.parametrize("limit", [1, 100, 700, 5000])
def test_the_byte_limit_keeps_the_newest_that_fit(store, name, limit):
    pattern = "e"
    want = expected(store, pattern)
    kept, size = [], 0
    for line in reversed(want):
        size += len(line.encode("utf-8")) + 1
        if size > limit:
            break
        kept.insert(0, line)
    with engine(name, 3) as e:
        lines, total, cut = e.recall(store, pattern, limit)
    assert (lines, total, cut) == (kept, len(want), len(kept) < len(want))
    assert sum(len(x.encode("utf-8")) + 1 for x in lines) <= limit
    assert cut


def test_everything_that_fits_is_not_cut(store):
    want = expected(store, "rollback")
    size = sum(len(x.encode("utf-8")) + 1 for x in want)
    assert search.recall(store, "rollback", size) == (want, len(want), False)
    assert search.recall(store, "rollback", size - 1)[2] is True


def test_a_memory_noted_mid_scan_is_not_seen(tmp_path):
    records = [encode_memory(i, "2024-01-01", f"match {i}") for i in range(20)]
    store = _build(str(tmp_path / "mem"), records)
    read = store.read_log

    def read_and_append(offset, length):
        data = read(offset, length)
        with open(store.log_path, "ab") as f:
            f.write(encode_memory(f.tell() // LOG_RECORD, "2024-01-02", "match late"))
        return data

    store.count()  # whatever the store reads to count happens before the hook
    store.read_log = read_and_append
    with engine("python", 4):
        lines, total, cut = search.recall(store, "match", 10 ** 6)
    assert total == 20 and "late" not in " ".join(lines)
    assert store.count() > 20


def test_an_empty_log_matches_nothing(tmp_path):
    store = _build(str(tmp_path / "mem"), [])
    assert search.recall(store, "x", 100) == ([], 0, False)


@pytest.mark.parametrize("pattern", ["", "(", "a{2,1}", "[z-a]", "(?P<x>a)(?P<x>b)"])
def test_a_bad_regex_is_refused(store, pattern):
    with pytest.raises(BadInput):
        search.recall(store, pattern, 100)


# -- pathological patterns ----------------------------------------------------

@pytest.mark.parametrize("name", ENGINES)
def test_a_backtracking_regex_is_refused(tmp_path, name):
    records = [encode_memory(i, "2024-01-01", f"note {i}") for i in range(50)]
    records.append(encode_memory(50, "2024-01-01", "a" * 269 + "!"))
    store = _build(str(tmp_path / "mem"), records)
    # 2**270 ways to split the a's: only the alarm ends it (it fires on the
    # wall clock, so a loaded machine refuses it as surely as an idle one).
    with engine(name, 16, bound=0.2):
        with pytest.raises(BadInput, match="backtracks"):
            search.recall(store, "(a+)+$", 10 ** 6)


@pytest.mark.parametrize("name", ENGINES)
def test_a_backtracking_regex_that_matches_at_once_answers(tmp_path, name):
    store = _build(str(tmp_path / "mem"), [encode_memory(0, "2024-01-01", "a" * 270)])
    with engine(name, 16):
        lines, total, cut = search.recall(store, "(a+)+$", 10 ** 6)
    assert total == 1 and lines[0].endswith("a" * 270)


def test_the_cli_refuses_a_backtracking_regex_in_one_line(inited, memo, monkeypatch):
    with open(inited / "LOG.txt", "ab") as f:
        f.write(encode_memory(0, "2024-01-01", "a" * 269 + "!"))
    monkeypatch.setattr(search, "TIME_BOUND", 0.2)
    result = memo("recall", "(a+)+$")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.startswith("memo: the regex '(a+)+$' took over 0.2 s")
    assert "Traceback" not in result.stderr


# -- the backtracking bound counts CPU time, not wall-clock time --------------

class FakeClock:
    """A stand-in for the ``signal`` module with two fake clocks: ``cpu``
    (this process's user time) and ``wall``. ``run(s)`` is work (both
    clocks move), ``wait(s)`` is the process waiting for a core on a
    loaded machine (only the wall clock moves). An armed timer fires its
    handler when its own clock passes the deadline, as the kernel would.
    No real clock is read anywhere."""

    ITIMER_REAL, ITIMER_VIRTUAL, ITIMER_PROF = 0, 1, 2
    SIGALRM, SIGVTALRM, SIGPROF = 14, 26, 27
    FIRES = {ITIMER_REAL: SIGALRM, ITIMER_VIRTUAL: SIGVTALRM, ITIMER_PROF: SIGPROF}

    def __init__(self):
        self.cpu = self.wall = 0.0
        self.handlers, self.deadlines, self.armed_with = {}, {}, set()

    def signal(self, sig, handler):
        old, self.handlers[sig] = self.handlers.get(sig), handler
        return old

    def setitimer(self, which, seconds):
        now = self.wall if which == self.ITIMER_REAL else self.cpu
        if seconds:
            self.armed_with.add(which)
            self.deadlines[which] = now + seconds
        else:
            self.deadlines.pop(which, None)

    def _tick(self):
        for which, deadline in list(self.deadlines.items()):
            now = self.wall if which == self.ITIMER_REAL else self.cpu
            if now >= deadline:
                del self.deadlines[which]
                self.handlers[self.FIRES[which]](self.FIRES[which], None)

    def run(self, seconds):
        self.cpu += seconds
        self.wall += seconds
        self._tick()

    def wait(self, seconds):
        self.wall += seconds
        self._tick()


def _metered(monkeypatch, clock, cpu_per_line, wait_per_line):
    """Every line recall matches with ``re`` costs ``cpu_per_line`` fake
    CPU seconds and ``wait_per_line`` fake seconds of waiting for a core."""
    monkeypatch.setattr(search, "SIGNALS", clock)
    real = search.compile_pattern

    class Metered:
        def __init__(self, rx):
            self.rx = rx

        def search(self, line):
            clock.wait(wait_per_line)
            clock.run(cpu_per_line)
            return self.rx.search(line)

    monkeypatch.setattr(search, "compile_pattern", lambda p: Metered(real(p)))


@pytest.mark.parametrize("name", LINE_ENGINES)
def test_a_loaded_machine_never_refuses_a_plain_word(tmp_path, monkeypatch, name):
    # 40 lines, each 0.01 s of CPU and 1 s of waiting for a core: 0.4 s of
    # CPU, 40 s of wall-clock time. A wall-clock bound of 1.5 s refused this.
    store = _build(str(tmp_path / "mem"),
                   [encode_memory(i, "2024-01-01", f"release {i}") for i in range(40)])
    clock = FakeClock()
    _metered(monkeypatch, clock, cpu_per_line=0.01, wait_per_line=1.0)
    with engine(name, 4096, bound=1.5):
        lines, total, cut = search.recall(store, "release", 10 ** 6)
    assert (total, cut, len(lines)) == (40, False, 40)
    assert clock.wall > 1.5 > clock.cpu > 0
    assert clock.armed_with == {FakeClock.ITIMER_VIRTUAL}


@pytest.mark.parametrize("name", LINE_ENGINES)
def test_a_regex_that_burns_cpu_is_refused_whatever_the_load(tmp_path, monkeypatch, name):
    # The same 40 lines at 0.1 s of CPU each (4 s) and no waiting at all.
    store = _build(str(tmp_path / "mem"),
                   [encode_memory(i, "2024-01-01", f"release {i}") for i in range(40)])
    clock = FakeClock()
    _metered(monkeypatch, clock, cpu_per_line=0.1, wait_per_line=0.0)
    with engine(name, 4096, bound=1.5):
        with pytest.raises(BadInput, match=r"took over 1\.5 s of CPU time on 40 memories"):
            search.recall(store, "release", 10 ** 6)
    assert 1.5 <= clock.cpu < 1.7  # refused as the bound passed, not at the end
    assert clock.deadlines == {} and clock.handlers[FakeClock.SIGVTALRM] is None


# -- which needle RE2 looks for ------------------------------------------------

def test_an_re2_needle_starts_with_letters_it_can_skip_to():
    """A needle should start with two characters that have one spelling
    each (RE2 then skips ahead to them); any tail of a literal is valid."""
    assert search._re2_needle("istanbul") == "tanbul"
    assert search._re2_needle("failed") == "failed"
    assert search._re2_needle("release") == "release"
    assert search._re2_needle("kiosk") == "osk"
    assert search._re2_needle("ab") == "ab"


@pytest.mark.parametrize("name", ENGINES)
def test_the_rarer_required_word_is_the_one_searched(tmp_path, name):
    """``deploy.*failed`` on a log where every line says deploy and few say
    failed: RE2 looks for ``failed`` (settled on the newest chunk), and the
    answer is still the per-line definition, whichever word is rarer in
    older chunks."""
    texts = [f"deploy step {i}" + (" failed" if i % 50 == 0 else "") for i in range(400)]
    texts += [f"failed check {i}" + (" deploy" if i % 7 == 0 else "") for i in range(400)]
    records = [encode_memory(i, "2024-01-01", t) for i, t in enumerate(texts[400:] + texts[:400])]
    store = _build(str(tmp_path / "mem"), records)
    with engine(name, 4096):
        prefilter, _ = search._plan("deploy.*failed")
    assert len(getattr(prefilter, "choices", getattr(prefilter, "options", ()))) == 2
    with open(store.log_path, "rb") as f:
        newest = f.read()[-400 * LOG_RECORD:]
    prefilter.settle(newest, 400)
    named = list(prefilter.candidates(newest, 400))
    assert len(named) == 8  # the lines saying failed, not the 400 saying deploy
    for chunk in (7, 64, 4096):
        for limit in (10, 10 ** 6):
            with engine(name, chunk) as e:
                want = expected(store, "deploy.*failed")
                kept, total, _ = e.recall(store, "deploy.*failed", limit)
                assert total == len(want) and kept == want[len(want) - len(kept):]


@pytest.mark.parametrize("name", ENGINES)
@pytest.mark.parametrize("pattern", ["\\b(ab|bcd)", "(cd|abc)\\b"])
def test_overlapping_literals_with_a_boundary_are_counted_exactly(tmp_path, monkeypatch,
                                                                  name, pattern):
    """A breaker's case: in "x abcd y" the longer literal fails its \\b and
    the shorter passes; counted chunks must still count every such line."""
    store = _build(str(tmp_path / "mem"),
                   [encode_memory(i, "2024-06-01", "x abcd y") for i in range(30)])
    monkeypatch.setattr(search, "FEW_CANDIDATES", 0)
    with engine(name, 4) as e:
        want = expected(store, pattern)
        assert len(want) == 30
        assert e.recall(store, pattern, 100)[1] == 30


@pytest.mark.skipif("re2" not in ENGINES, reason="google-re2 is not installed")
def test_a_long_non_ascii_pattern_leaves_stderr_alone(tmp_path, capfd):
    """RE2's simplifier logged hundreds of lines to stderr (fd 2, from C++)
    for a needle of 20,000 'é'; a needle is at most ``MAX_NEEDLE_CHARS``."""
    assert len(search._re2_needle("é" * 20000)) == search.MAX_NEEDLE_CHARS
    assert len(search._re2_needle("x" * 100000)) <= search.MAX_NEEDLE_CHARS
    store = _build(str(tmp_path / "mem"),
                   [encode_memory(i, "2024-01-01", f"café {i}") for i in range(20)])
    capfd.readouterr()
    with engine("re2", 4096) as e:
        assert e.recall(store, "é" * search.MAX_PATTERN_CHARS) == ([], 0, False)
        assert e.recall(store, "é" * 2) == ([], 0, False)
    assert capfd.readouterr().err == ""


def test_the_fastcount_counter_takes_over_when_the_c_counter_gives_up(tmp_path, monkeypatch):
    """Once ``ScanCounter.usable`` turns False (too much work), the chunks
    left are counted by ``fastcount``'s counter, not record by record."""
    if not scancount.available():
        pytest.skip("optmem.recall._scan is not built (no C compiler at install)")
    from optmem.recall import fastcount
    store = _build(str(tmp_path / "mem"),
                   [encode_memory(i, "2024-01-01", f"release {i}") for i in range(40)])
    real = scancount.ScanCounter.count

    def give_up(self, data, n, method=0):
        self.usable = False
        return None
    counted = []
    real_count = fastcount.Counter.count

    def spy(self, *args):
        got = real_count(self, *args)
        counted.append(got)
        return got
    monkeypatch.setattr(scancount.ScanCounter, "count", give_up)
    monkeypatch.setattr(fastcount.Counter, "count", spy)
    with engine("c", 4):
        assert search.recall(store, "release", 60) == (
            ["#38 2024-01-01 release 38", "#39 2024-01-01 release 39"], 40, True)
    assert counted and all(c is not None for c in counted)
    assert real is not give_up


def test_planning_that_burns_cpu_is_dropped_and_the_answer_stays(tmp_path, monkeypatch):
    """Planning (the prefilter, the counters) runs under the CPU alarm: one
    that passes ``TIME_BOUND`` is given up at the bound, and recall matches
    line by line instead, with the same answer and no refusal."""
    store = _build(str(tmp_path / "mem"),
                   [encode_memory(i, "2024-01-01", f"release {i}") for i in range(40)])
    expected = search.recall(store, "release 1", 10 ** 6)
    clock = FakeClock()
    monkeypatch.setattr(search, "SIGNALS", clock)
    real = search._plan

    def costly(pattern):  # 100 fake CPU seconds unless the alarm stops it
        for _ in range(10_000):
            clock.run(0.01)
        return real(pattern)

    monkeypatch.setattr(search, "_plan", costly)
    assert search.recall(store, "release 1", 10 ** 6) == expected
    assert 1.5 <= clock.cpu < 1.6  # stopped at the bound, not after 100 s

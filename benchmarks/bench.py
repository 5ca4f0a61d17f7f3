#!/usr/bin/env python3
"""Time every ``memo`` command as a whole process on stores of 1k to 1M memories.

Run from the checkout::

    python benchmarks/bench.py                       # 1,000 / 100,000 / 1,000,000
    python benchmarks/bench.py --sizes 10000000 --runs 3   # a one-off scale run
    python benchmarks/bench.py --vs "python3 /path/to/reference/memo.py"
    python benchmarks/bench.py --only recall --runs 3  # recall's classes against grep -ci

Stores are written straight in the record format (``LOG.txt`` records of
320 bytes, every ``TREE/<s>`` level of 288-byte records built), streamed in
big batches so even 10 million memories never sit in memory. They live under
``--dir`` (default: ``$TMPDIR/optmem-bench``) and are reused while their
parameters and file sizes match.

Each command is run as its own process: one warm-up round, then ``--runs``
rounds, each round running every command once (so a burst of load on the
machine hits all rows alike); the table shows the median wall time and the
largest peak RSS (``ru_maxrss``, KiB on Linux, read through GNU time when it
is installed: see ``run_once``). Commands that write (``note``, ``sleep``
answering a compression) are undone after every run by cutting the files
back, so every run sees the same store. The table has one row per command
and two columns per store size, with baselines below: ``python -c "import
click"`` with memo's interpreter, and ``grep -ci`` on the same ``LOG.txt``
for each recall pattern. Then one row per recall class (docs/recall.md: frequent
word, alternation, ``\\b`` word, non-ASCII and CJK words, rare and absent
words, a date) with memo's time, grep's in the same rounds and their
ratio; check's and recall's rates in MB/s; and recall's goals (docs/recall.md).
The generated store has words with a realistic spread: a few in half the
lines (``FREQUENT``), thousands of rare ones, non-ASCII text in many
scripts, and now and then a line in NFD.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import random
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

from optmem import blocks  # noqa: E402
from optmem.store.memory import LOG_RECORD, TREE_RECORD, Store, encode_memory, encode_summary  # noqa: E402

GENERATOR = 4  #: bump when the generated content changes, so old stores are rebuilt
SEED = 20240517
ENTRY_BYTES = 280  #: the default ENTRY_CHARS: generated texts stay within it
BATCH = 1 << 15  #: records encoded and written per write() call
FIRST_DAY = datetime.date(2016, 1, 1)
DAYS = 3650  #: dates run from FIRST_DAY over ten years, never decreasing

# Recall patterns, one per class of docs/recall.md: (label, pattern, grep's
# options). Each means the same to Python's re (IGNORECASE) and to GNU grep
# with those options, so ``grep -ci`` on the same LOG.txt is a like-for-like
# baseline. ``{date}`` and ``{rare}`` are filled in per store.
RECALL = [
    ("frequent word", "release", []),
    ("alternation", "deploy|rollback", ["-E"]),
    ("\\b word", "\\bdeploy\\b", []),
    ("same word, no \\b", "deploy", []),
    ("non-ASCII word", "zürich", []),
    ("CJK word", "東京", []),
    ("rare word", "{rare}", []),
    ("absent word", "zurich", []),
    ("date", "{date}", []),
    ("two-word regex", "deploy.*failed", []),
]

# Words with multi-byte UTF-8 and case pairs that Unicode folds.
SPECIAL_WORDS = (
    "été ÉTÉ Straße STRASSE naïve café Zürich Ελλάδα σοφία ΣΟΦΊΑ Σίσυφος ὀδυσσεύς "
    "日本語 東京 데이터 Москва данные ДАННЫЕ 🚀 ✓ → ñandú İstanbul ısı façade "
    "Kelvin ſtyle µs ½ Ǆemal ﬁx".split()
)
TOPIC_WORDS = (
    "release deploy failed rollback click merge review test bug fix patch version "
    "tag branch issue wake note sleep recall forget import store lock tree log "
    "summary memory agent session user server build cache index parser option "
    "decorator context command group argument prompt shell echo format".split()
)
SYLLABLES = ("ka ri to mu sen vo la pe dri qua zel ox un thi bra cor mi nes "
             "gal fu ost rey pla vin dem so lu tak").split()


def _vocabulary(rng: random.Random) -> list:
    words = set()
    while len(words) < 4000:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(1, 4))))
    vocab = sorted(words)
    vocab += TOPIC_WORDS * 3 + SPECIAL_WORDS * 2  # a little more frequent
    return vocab


def _date(i: int, T: int) -> str:
    return (FIRST_DAY + datetime.timedelta(days=i * DAYS // max(T, 1))).isoformat()


#: Words that stand in a large share of the lines, as a project or tool name
#: does in a real log: (word, share of lines). "deployment" makes \\bdeploy\\b
#: differ from deploy; "Zürich" is the frequent non-ASCII word (so the ASCII
#: "zurich" never matches).
FREQUENT = (("release", 0.53), ("deploy", 0.34), ("rollback", 0.27),
            ("deployment", 0.12), ("Zürich", 0.50), ("東京", 0.08))
#: One line in NFD_EVERY is written decomposed (NFD), as a tool on macOS may.
NFD_EVERY = 200_000


def _texts(rng: random.Random, vocab: list):
    """An endless stream of varied one-line texts of at most ENTRY_BYTES
    bytes: a few FREQUENT words (some capitalised) near the front, rare
    words after them, now and then a line in NFD."""
    import unicodedata
    choices, randint, random_ = rng.choices, rng.randint, rng.random
    n = 0
    while True:
        words = choices(vocab, k=randint(3, 40))
        for word, share in FREQUENT:
            if random_() < share:
                if random_() < 0.2:
                    word = word.upper() if random_() < 0.5 else word.capitalize()
                words.insert(randint(0, min(len(words), 4)), word)
        text = " ".join(words)
        data = text.encode("utf-8")
        while len(data) > ENTRY_BYTES:
            words.pop()
            text = " ".join(words)
            data = text.encode("utf-8")
        n += 1
        if n % NFD_EVERY == 0:
            text = unicodedata.normalize("NFD", text)
            while len(text.encode("utf-8")) > ENTRY_BYTES:
                text = text[:-1]
        yield text


def store_params(T: int) -> dict:
    return {"generator": GENERATOR, "seed": SEED, "memories": T,
            "log": LOG_RECORD, "tree": TREE_RECORD}


def store_complete(root: str, T: int, params=None) -> bool:
    """True if ``root`` holds exactly the store this script writes for ``T``
    (``params``: what ``build_store`` was given, default ``store_params(T)``)."""
    marker = root + ".json"
    try:
        with open(marker) as f:
            if json.load(f) != (store_params(T) if params is None else params):
                return False
        if os.path.getsize(os.path.join(root, "LOG.txt")) != T * LOG_RECORD:
            return False
        for s in blocks.level_sizes(T):
            if os.path.getsize(os.path.join(root, "TREE", str(s))) != (T // s) * TREE_RECORD:
                return False
    except (OSError, ValueError):
        return False
    return True


def build_store(root: str, T: int, log=print, texts=None, params=None) -> None:
    """Write a complete store of ``T`` memories at ``root`` (streamed):
    texts from ``texts`` (an endless iterator of one-line texts of at most
    ``ENTRY_BYTES`` bytes; default: this benchmark's generated log), and
    ``params`` (default: ``store_params(T)``) in the marker
    ``store_complete`` reads."""
    if os.path.exists(root):
        shutil.rmtree(root)
    marker = root + ".json"
    if os.path.exists(marker):
        os.unlink(marker)
    Store.init(root)  # directory 0700, empty LOG.txt, the commented default config
    if texts is None:
        rng = random.Random(SEED)
        texts = _texts(rng, _vocabulary(rng))
    started = time.perf_counter()
    fd = os.open(os.path.join(root, "LOG.txt"), os.O_WRONLY | os.O_APPEND)
    try:
        day_cache = {}
        for lo in range(0, T, BATCH):
            out = []
            for i in range(lo, min(T, lo + BATCH)):
                day = i * DAYS // T
                date = day_cache.get(day)
                if date is None:
                    date = day_cache[day] = _date(i, T)
                out.append(encode_memory(i, date, next(texts)))
            os.write(fd, b"".join(out))
    finally:
        os.close(fd)
    # Summaries: a pool of texts, each prefixed with its block, so the
    # write stays fast at 10 million memories.
    pool = [next(texts)[:200] for _ in range(4096)]
    for s in blocks.level_sizes(T):
        n = T // s
        fd = os.open(os.path.join(root, "TREE", str(s)),
                     os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            for k0 in range(0, n, BATCH):
                os.write(fd, b"".join(
                    encode_summary(f"[{k * s}-{(k + 1) * s - 1}] {pool[(k * 31 + s) % 4096]}")
                    for k in range(k0, min(n, k0 + BATCH))))
        finally:
            os.close(fd)
    with open(marker, "w") as f:
        json.dump(store_params(T) if params is None else params, f)
    log(f"  built {T:,} memories in {time.perf_counter() - started:.1f} s at {root}")


# -- running commands -------------------------------------------------------

def _gnu_time():
    """GNU time's path if it is installed (``-f %M`` prints peak RSS in KiB)."""
    for path in ("/usr/bin/time", shutil.which("gtime") or ""):
        if path and os.access(path, os.X_OK):
            try:
                out = subprocess.run([path, "-f", "%M", "true"], capture_output=True, timeout=10)
            except (OSError, subprocess.SubprocessError):
                continue
            if out.returncode == 0 and out.stderr.strip().isdigit():
                return path
    return None


GNU_TIME = _gnu_time()


def run_once(argv, env) -> tuple:
    """Run ``argv`` to completion; return ``(wall seconds, peak RSS KiB,
    exit code, output)`` (``run_timed`` without the CPU time)."""
    return run_timed(argv, env)[:4]


def run_timed(argv, env) -> tuple:
    """Run ``argv`` to completion; return ``(wall seconds, peak RSS KiB,
    exit code, output, CPU seconds)``. CPU seconds: user and system time of
    the process and what it waited for (GNU time's child included: Linux
    counts a reaped child's time into its parent's), which a loaded machine
    inflates far less than the wall time.

    Peak RSS: a process forked from this (large) Python inherits its
    high-water mark, so ``ru_maxrss`` from ``os.wait4`` would never read
    below this script's own size. The command is therefore started by GNU
    time (small, C) when it is installed, which reads the same ``ru_maxrss``
    with ``wait4`` for a child forked from itself; otherwise ``os.wait4``
    is used and small values are floors. Output goes to a temporary file,
    not a pipe or /dev/null (grep stops at the first match when writing to
    /dev/null).
    """
    with tempfile.TemporaryFile() as out, tempfile.NamedTemporaryFile("r") as rss_file:
        full = [GNU_TIME, "-f", "%M", "-o", rss_file.name] + list(argv) if GNU_TIME else argv
        start = time.perf_counter()
        proc = subprocess.Popen(full, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
        rss = usage.ru_maxrss
        cpu = usage.ru_utime + usage.ru_stime
        if GNU_TIME:
            lines = rss_file.read().split()
            rss = int(lines[-1]) if lines and lines[-1].isdigit() else 0
    return wall, rss, proc.returncode, text, cpu


class Job:
    """One row of the table for one implementation on one store.

    ``argv`` is a list or a function of the run number; ``before``/``after``
    run untimed around every run (to set up or undo a write); ``expect`` is
    a regex the output must match, else the job is marked failed.
    """

    def __init__(self, row, argv, env, before=None, after=None, expect=None):
        self.row, self.argv, self.env = row, argv, env
        self.before, self.after, self.expect = before, after, expect
        self.walls, self.rss_kib, self.error, self.runs = [], 0, None, 0
        self.cpus = []  #: CPU seconds of each timed run (``run_timed``)

    def run(self, timed: bool) -> None:
        if self.error:
            return
        argv = self.argv(self.runs) if callable(self.argv) else self.argv
        self.runs += 1
        if self.before:
            self.before()
        try:
            wall, rss, rc, text, cpu = run_timed(argv, self.env)
        finally:
            if self.after:
                self.after()
        if self.expect is not None and not re.search(self.expect, text):
            self.error = f"exit {rc}: {text.strip()[:300]}"
            return
        if timed:
            self.walls.append(wall)
            self.cpus.append(cpu)
            self.rss_kib = max(self.rss_kib, rss)

    @property
    def median(self):
        return statistics.median(self.walls) if self.walls and not self.error else None


def run_round_robin(jobs, runs, log) -> None:
    """One warm-up round, then ``runs`` timed rounds; each round runs every
    job once, so a burst of load on the machine hits all rows alike."""
    for n in range(runs + 1):
        log(f"    round {n}/{runs}{' (warm-up)' if n == 0 else ''}")
        for job in jobs:
            job.run(timed=n > 0)


def subcommands(memo: list) -> set:
    """The subcommands ``memo --help`` lists."""
    text = run_once(memo + ["--help"], dict(os.environ))[3]
    m = re.search(r"Commands:\n(.*)", text, re.S)
    return set(re.findall(r"^\s+([a-z-]+)\s", m.group(1), re.M)) if m else set()


def rare_word() -> str:
    """A word of the generated vocabulary that stands in about 1 line in 400."""
    vocab = _vocabulary(random.Random(SEED))
    return max((w for w in vocab if len(w) <= 12), key=len)


def recall_patterns(T: int) -> list:
    """``(row, pattern, grep options)`` for each recall class on a store of ``T``."""
    date, rare = _date(T // 2, T), rare_word()
    return [(f"recall {label} '{pattern.format(date=date, rare=rare)}'",
             pattern.format(date=date, rare=rare), opts) for label, pattern, opts in RECALL]


def memo_jobs(memo, root, T, has, strict) -> list:
    """The jobs for every ``memo`` command on the store of ``T`` at ``root``."""
    env = dict(os.environ, MEMORY_DIR=root)
    log_path = os.path.join(root, "LOG.txt")
    ok = (lambda rx: rx) if strict else (lambda rx: None)
    jobs = [Job("wake", memo + ["wake"], env, expect=ok(r"You are awake\.|Run: memo wake 2 "))]

    # Follow the orders to the last part once, untimed.
    last, text = 1, run_once(memo + ["wake"], env)[3]
    while True:
        m = re.search(r"Run: memo wake (\d+) (\d+)", text)
        if not m or int(m.group(1)) > 1000:
            break
        last = int(m.group(1))
        text = run_once(memo + ["wake", m.group(1), m.group(2)], env)[3]
    jobs.append(Job("wake, last part" if last > 1 else "wake, last part (= 1)",
                    memo + ["wake", str(last), str(T)], env, expect=ok(r"You are awake\.")))

    jobs.append(Job("note", lambda n: memo + ["note", f"bench note {n}: tag v{n}.0 deployed"],
                    env, after=lambda: os.truncate(log_path, T * LOG_RECORD),
                    expect=ok(r"Saved as #\d+\.")))
    jobs.append(Job("sleep (nothing pending)", memo + ["sleep"], env,
                    expect=ok(r"Nothing left to compress\.")))
    if T >= 2:
        cut = Cutback(root, T)
        jobs.append(Job(f"sleep {cut.lo}-{cut.lo + 1} TEXT (answer one)",
                        memo + ["sleep", f"{cut.lo}-{cut.lo + 1}",
                                "bench summary: two deploys, both rolled back"],
                        env, before=cut.cut, after=cut.restore,
                        expect=ok(r"Nothing left to compress\.|Run: |#\d+")))
    if "zoom" in has and T >= 2:
        size = 1 << (T.bit_length() - 1)
        jobs.append(Job(f"zoom 0-{size - 1}", memo + ["zoom", f"0-{size - 1}"], env,
                        expect=ok(r"#0-")))
    for row, pattern, _ in recall_patterns(T):
        jobs.append(Job(row, memo + ["recall", pattern], env,
                        expect=ok(r"match|No memory")))
    if "check" in has:
        jobs.append(Job("check", memo + ["check"], env, expect=ok(r"whole|memories")))
    return jobs


def baseline_jobs(python, root, T) -> list:
    env = dict(os.environ)
    jobs = [Job(f'{os.path.basename(python)} -c "import click"',
                [python, "-c", "import click"], env)]
    log_path = os.path.join(root, "LOG.txt")
    for row, pattern, opts in recall_patterns(T):
        job = Job(f"grep -ci{''.join(o[1:] for o in opts)} '{pattern}' LOG.txt",
                  ["grep", "-ci"] + opts + [pattern, log_path], env, expect=r"^\d+")
        job.recall_row = row
        jobs.append(job)
    return jobs


def _group(row: str) -> str:
    """Which ``--only`` group a row belongs to."""
    if row.startswith(("recall", "grep")):
        return "recall"
    if row.startswith("check"):
        return "check"
    return "other"


def recall_table(sizes, results, baselines) -> str:
    """Markdown: per recall class and store size, memo's median seconds,
    ``grep -ci``'s on the same LOG.txt in the same rounds, their ratio and
    memo's peak RSS; then check's and recall's rates in MB/s."""
    head = ["class", "pattern"]
    for T in sizes:
        head += [f"{T:,}: memo s", "grep s", "ratio", "MiB"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for label, _pattern, _ in RECALL:
        shown = next(p for r, p, _ in recall_patterns(sizes[-1]) if r.startswith(f"recall {label} '"))
        cells = [label, "`" + shown.replace("|", "\\|") + "`"]
        for T in sizes:
            row = next((r for r, p, _ in recall_patterns(T) if r.startswith(f"recall {label} '")), "")
            job = next((j for j in results[T] if j.row == row), None)
            g = next((j for j in baselines[T] if getattr(j, "recall_row", None) == row), None)
            a, b = (job.median if job else None), (g.median if g else None)
            cells += [fmt_s(a), fmt_s(b), f"{a / b:.2f}" if a and b else "-",
                      fmt_mib(job.rss_kib) if job else "-"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def rates(sizes, results, base) -> list:
    """Lines giving check's and recall's throughput in MB/s (10^6 bytes)."""
    out = []
    for T in sizes:
        root = os.path.join(base, f"store-{T}")
        log_bytes = T * LOG_RECORD
        tree_bytes = sum((T // s) * TREE_RECORD for s in blocks.level_sizes(T))
        for job in results[T]:
            if job.median and (job.row == "check" or job.row.startswith("recall frequent")):
                size = log_bytes + (tree_bytes if job.row == "check" else 0)
                what = "LOG.txt + TREE/" if job.row == "check" else "LOG.txt"
                out.append(f"{T:,} memories: {job.row}: {job.median:.3f} s for {size / 1e6:,.0f} MB "
                           f"of {what} = {size / 1e6 / job.median:,.0f} MB/s")
        del root
    return out


class Cutback:
    """Cut every level back to before the newest complete pair ``[lo, lo+2)``
    of a complete store, as ``memo forget`` would, so that ``sleep LO-HI``
    has that pair next; ``restore`` puts every byte back."""

    def __init__(self, root, T):
        self.lo = 2 * (T // 2 - 1)
        self.saved = []
        for s in blocks.level_sizes(T):
            path = os.path.join(root, "TREE", str(s))
            keep = (self.lo // s) * TREE_RECORD
            with open(path, "rb") as f:
                f.seek(keep)
                self.saved.append((path, keep, f.read()))

    def cut(self):
        for path, keep, _ in self.saved:
            os.truncate(path, keep)

    def restore(self):
        for path, keep, data in self.saved:
            os.truncate(path, keep)
            with open(path, "ab") as f:
                f.write(data)


# -- the table --------------------------------------------------------------

def fmt_s(value) -> str:
    return "-" if value is None else f"{value:.3f}"


def fmt_mib(kib) -> str:
    return "-" if not kib else f"{kib / 1024:.0f}"


def table(sizes, results, vs_results, baselines) -> str:
    """Markdown: one row per command, per size the median seconds and peak
    RSS in MiB (and, with --vs, the other implementation's and the ratio
    ours/theirs); the baselines below."""
    head = ["command"]
    for T in sizes:
        head += [f"{T:,}: s", "MiB"]
        if vs_results:
            head += ["vs: s", "MiB", "ratio"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for source, compare in ((results, bool(vs_results)), (baselines, False)):
        rows = []
        for T in sizes:
            for job in source[T]:
                key = _row_key(job.row, T)
                if key not in rows:
                    rows.append(key)
        for key in rows:
            cells = [key]
            for T in sizes:
                job = _find(source[T], key, T)
                cells += _cells(job)
                if compare:
                    other = _find(vs_results.get(T, []), key, T)
                    cells += _cells(other)
                    a = job.median if job else None
                    b = other.median if other else None
                    cells.append(f"{a / b:.2f}" if a and b else "-")
                elif vs_results:
                    cells += ["", "", ""]
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _row_key(row: str, T: int) -> str:
    """Rows that name store-specific values (a date, a block) share one line."""
    date = _date(T // 2, T)
    row = row.replace(date, "<date>")
    row = re.sub(r"sleep \d+-\d+", "sleep LO-HI", row)
    row = re.sub(r"zoom 0-\d+", "zoom <top block>", row)
    return row


def _find(jobs, key, T):
    for job in jobs:
        if _row_key(job.row, T) == key:
            return job
    return None


def _cells(job) -> list:
    if job is None:
        return ["-", "-"]
    if job.error:
        return ["FAILED", "-"]
    return [fmt_s(job.median), fmt_mib(job.rss_kib)]


# -- the pathological regex ---------------------------------------------------

def patho_store(base: str, refuse: bool) -> str:
    """A tiny store whose memories are 270 bytes of ``a`` (and, with
    ``refuse``, 269 ``a`` and a ``!``, on which ``(a+)+$`` backtracks
    without end)."""
    root = os.path.join(base, "patho-refuse" if refuse else "patho-answer")
    if os.path.exists(root):
        shutil.rmtree(root)
    Store.init(root)
    texts = ["a" * 270] + (["a" * 269 + "!"] if refuse else [])
    with open(os.path.join(root, "LOG.txt"), "ab") as f:
        f.write(b"".join(encode_memory(i, "2024-01-01", t) for i, t in enumerate(texts)))
    if len(texts) == 2:
        with open(os.path.join(root, "TREE", "2"), "wb") as f:
            f.write(encode_summary("two lines of a"))
    return root


# -- main ---------------------------------------------------------------------

def default_memo() -> list:
    exe = os.path.join(ROOT, ".venv", "bin", "memo")
    if os.path.exists(exe):
        return [exe]
    return [sys.executable, "-m", "optmem"]


def interpreter(argv: list) -> str:
    """The Python that runs ``argv`` (its shebang, or itself)."""
    exe = shutil.which(argv[0]) or argv[0]
    if re.search(r"python[\d.]*$", os.path.basename(exe)):
        return exe
    try:
        with open(exe, "rb") as f:
            first = f.readline().decode("utf-8", "replace")
        if first.startswith("#!"):
            words = first[2:].split()
            if words and os.path.basename(words[0]) == "env" and len(words) > 1:
                return shutil.which(words[1]) or words[1]
            if words:
                return words[0]
    except OSError:
        pass
    return sys.executable


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="1000,100000,1000000",
                    help="store sizes in memories, comma-separated (default: %(default)s)")
    ap.add_argument("--runs", type=int, default=5, help="timed runs per command (default: 5)")
    ap.add_argument("--memo", help="the memo under test, as a command line "
                    "(default: this checkout's .venv/bin/memo, else python -m optmem)")
    ap.add_argument("--vs", help="another memo implementation, as a command line, "
                    "run on the same stores")
    ap.add_argument("--dir", help="where stores are kept (default: $TMPDIR/optmem-bench)")
    ap.add_argument("--only", default="recall,check,other",
                    help="which rows to time: recall (with grep), check, other "
                    "(default: all: %(default)s)")
    args = ap.parse_args(argv)
    # An installed memo runs from cached bytecode (pip compiles it; Python
    # writes it on the first run). Where PYTHONDONTWRITEBYTECODE is set, as
    # in some sandboxes, every run would compile memo from source (~35 ms
    # here); the warm-up round writes the caches the timed rounds use.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sizes = [int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()]
    base = os.path.abspath(args.dir or os.path.join(tempfile.gettempdir(), "optmem-bench"))
    os.makedirs(base, exist_ok=True)
    memo = shlex.split(args.memo) if args.memo else default_memo()
    vs = shlex.split(args.vs) if args.vs else None
    python = interpreter(memo)
    runs = max(1, args.runs)

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    has = subcommands(memo)
    vs_has = subcommands(vs) if vs else set()
    results, vs_results, base_results = {}, {}, {}
    started = time.perf_counter()
    for T in sizes:
        root = os.path.join(base, f"store-{T}")
        if store_complete(root, T):
            log(f"store of {T:,} memories: reusing {root}")
        else:
            log(f"store of {T:,} memories: writing {root}")
            build_store(root, T, log)
        log(f"  timing {runs} runs after a warm-up")
        only = set(args.only.split(","))
        jobs = [j for j in memo_jobs(memo, root, T, has, strict=True) if _group(j.row) in only]
        other = [j for j in (memo_jobs(vs, root, T, vs_has, strict=False) if vs else [])
                 if _group(j.row) in only]
        baselines = [j for j in baseline_jobs(python, root, T)
                     if _group(j.row) in only or "import click" in j.row]
        run_round_robin(jobs + other + baselines, runs, log)
        if not store_complete(root, T):
            log(f"  WARNING: {root} changed during the run; it will be rebuilt next time")
        for job in jobs + other:
            if job.error:
                log(f"  FAILED {job.row}: {job.error}")
        results[T] = jobs
        base_results[T] = baselines
        if vs:
            vs_results[T] = other

    log("pathological regex '(a+)+$' ...")
    patho = []
    for refuse in (False, True):
        root = patho_store(base, refuse)
        env = dict(os.environ, MEMORY_DIR=root)
        walls = []
        for _ in range(3):
            wall, rss, rc, text = run_once(memo + ["recall", "(a+)+$"], env)
            walls.append(wall)
        what = "refused" if rc else "answered"
        patho.append((refuse, statistics.median(walls), what, text.strip().splitlines()[-1]))
    elapsed = time.perf_counter() - started

    re2 = run_once([python, "-c", "import re2; re2.Options.Encoding.LATIN1"],
                   dict(os.environ))[2] == 0
    print(f"memo under test: {' '.join(memo)}" + (f"; --vs: {' '.join(vs)}" if vs else ""))
    print(f"python: {python} ({run_once([python, '-V'], dict(os.environ))[3].strip()}), "
          f"google-re2 importable there: {'yes' if re2 else 'no'}; {os.cpu_count()} CPUs; "
          f"LANG={os.environ.get('LANG', '')} LC_ALL={os.environ.get('LC_ALL', '')}")
    print(f"median of {runs} runs after one warm-up, whole process; MiB = peak RSS "
          f"(largest ru_maxrss of the runs, read by {GNU_TIME or 'os.wait4 (a floor)'}); "
          f"stores under {base}; bytecode cached (PYTHONDONTWRITEBYTECODE unset); "
          f"took {elapsed:.0f} s")
    print()
    print(table(sizes, results, vs_results, base_results))
    print()
    big = max(sizes)
    if "recall" in args.only.split(","):
        print("Recall against grep -ci on the same LOG.txt, same rounds:")
        print()
        print(recall_table(sizes, results, base_results))
        print()
    for line in rates(sizes, results, base):
        print(line)
    print()
    print(f"Goals (docs/recall.md), from this run at {big:,} memories"
          + ("" if big >= 1_000_000 else " (the goals are stated at 1,000,000)") + ":")
    jobs = {j.row: j for j in results[big]}
    greps = {getattr(j, "recall_row", None): j for j in base_results[big]}
    for row, pattern, _ in recall_patterns(big):
        job, g = jobs.get(row), greps.get(row)
        if "\\b" in row:  # grep's \b is its slow path: compare with the same word
            g = greps.get(next((r for r, p, _ in recall_patterns(big)
                                if p == pattern.replace("\\b", "")), None), g)
        if job and job.median and g and g.median:
            ratio = job.median / g.median
            print(f"  {row}: {job.median:.3f} s vs {g.row} {g.median:.3f} s = {ratio:.2f} "
                  f"(goal <= 2.0: {'met' if ratio <= 2.0 else 'NOT met'}); peak "
                  f"{fmt_mib(job.rss_kib)} MiB (goal <= 64: "
                  f"{'met' if job.rss_kib <= 64 * 1024 else 'NOT met'})")
    for refuse, wall, what, last in patho:
        line = ("a 270-byte line of a" if not refuse else
                "a 270-byte line of a and one of 269 a and !")
        print(f"  recall '(a+)+$' on {line}: {what} in {wall:.2f} s "
              f"(goal <= 2 s: {'met' if wall <= 2.0 else 'NOT met'}): {last}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

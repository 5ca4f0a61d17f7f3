"""A stateful test: random sessions of note / sleep / forget / wake / recall
against a simple model of the store (docs/recovery.md).

The model is a list of memory texts and, per level, the dense list of
summaries built so far. After every step the files are checked against it:
whole records, dense ids, the level lengths, the pending count; wake (when
nothing is pending) must tile the log exactly as ``cover`` says and end
with ``You are awake.``; recall of a memory's unique token finds exactly it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from pathlib import Path

from click.testing import CliRunner
from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from optmem import blocks
from optmem.cli.app import cli

LOG, TREE = 320, 288
WAKE_LINES = 12
PART_LINES = 10
WORDS = ["alpha", "beta", "café", "中文", "deploy", "fix", "☕", "release", "42", "notes"]


def level_sizes(T):
    size = 2
    while size <= T:
        yield size
        size *= 2


class StoreMachine(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.tmp = tempfile.mkdtemp(prefix="optmem-state-")
        self.root = Path(self.tmp) / "mem"
        self.runner = CliRunner()
        self.env = {"MEMORY_DIR": str(self.root)}
        r = self.memo("init")
        assert r.exit_code == 0, r.stderr
        (self.root / "config").write_text(
            f"WAKE_LINES={WAKE_LINES}\nPART_LINES={PART_LINES}\nPART_CHARS=2048\n")
        self.texts: list = []
        self.levels: dict = {}  # size -> [summary text, ...] (a dense prefix)
        self.date = None

    def teardown(self):
        # optmem.store.memory.Store never closes its read handle of LOG.txt, so each
        # in-process command leaks one descriptor (reported; test_faults has
        # the test). Close ours so a long run does not hit EMFILE.
        fd_dir = "/proc/self/fd"
        if os.path.isdir(fd_dir):
            for name in os.listdir(fd_dir):
                try:
                    target = os.readlink(os.path.join(fd_dir, name))
                except OSError:
                    continue
                if target.startswith(self.tmp + os.sep):
                    try:
                        os.close(int(name))
                    except OSError:
                        pass
        shutil.rmtree(self.tmp, ignore_errors=True)

    # -- helpers -----------------------------------------------------------

    def memo(self, *args, input=None):
        result = self.runner.invoke(cli, list(args), input=input, env=self.env,
                                    catch_exceptions=True)
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        out = (result.stdout or "") + (result.stderr or "")
        assert "Traceback" not in out, out
        return result

    @property
    def T(self):
        return len(self.texts)

    def next_pending(self):
        for s in level_sizes(self.T):
            have = len(self.levels.get(s, []))
            if have < self.T // s:
                return (have * s, (have + 1) * s)
        return None

    def pending(self):
        return sum(self.T // s - len(self.levels.get(s, [])) for s in level_sizes(self.T))

    def built_blocks(self):
        return [(k * s, (k + 1) * s) for s, texts in self.levels.items()
                for k in range(len(texts))]

    def summary(self, lo, hi):
        return self.levels[hi - lo][lo // (hi - lo)]

    def memory_line(self, i):
        return f"#{i} {self.date} {self.texts[i]}"

    def summary_line(self, lo, hi):
        return f"#{lo}-{hi - 1} {self.date} {self.summary(lo, hi)}"

    def check_prompt(self, text):
        """``text`` is the compression for the model's next block."""
        lo, hi = self.next_pending()
        name = f"{lo}-{hi - 1}"
        lines = text.splitlines()
        assert f"Run: memo sleep {name} - <<'SUMMARY'" in lines, text
        body = [line[2:] for line in lines if line.startswith("  ")]
        if hi - lo <= 16:
            assert body == [self.memory_line(i) for i in range(lo, hi)], text
        else:
            mid = (lo + hi) // 2
            assert body == [self.summary_line(lo, mid), self.summary_line(mid, hi)], text
        left = self.pending() - 1
        if left == 0:
            assert "This is the last compression." in lines
        else:
            assert f"{left} compression{'s' if left > 1 else ''} remain" in text
        return lo, hi

    # -- rules ---------------------------------------------------------------

    @initialize(n=st.integers(0, 70), words=st.sampled_from(WORDS))
    def start(self, n, words):
        """Begin with ``n`` memories imported in one go (all dated today)."""
        if not n:
            return
        import datetime
        self.date = datetime.date.today().isoformat()
        texts = [f"{words} imported tok{i}q" for i in range(n)]
        path = Path(self.tmp) / "import.txt"
        path.write_text("".join(f"{self.date} {t}\n" for t in texts), encoding="utf-8")
        r = self.memo("import", str(path))
        assert r.exit_code == 0, r.stderr
        self.texts += texts
        pending = self.pending()
        first = self.T - n
        lines = [f"Imported {n} memor{'y' if n == 1 else 'ies'}, #{first} to #{self.T - 1}."]
        if pending:
            lines.append(f"{pending} compression{'s' if pending > 1 else ''} pending. "
                         f"Run: memo sleep")
        assert r.stdout.splitlines() == lines, r.stdout

    @precondition(lambda self: self.next_pending() is not None)
    @rule()
    def sleep_all(self):
        """Answer every pending compression, following each printed order."""
        while self.next_pending() is not None:
            self.sleep_next(stdin=True)

    @rule(words=st.lists(st.sampled_from(WORDS), min_size=1, max_size=4),
          stdin=st.booleans())
    def note(self, words, stdin):
        text = " ".join(words) + f" tok{self.T}q"
        r = (self.memo("note", "-", input=text + "\n") if stdin
             else self.memo("note", text))
        assert r.exit_code == 0, r.stderr
        lines = r.stdout.splitlines()
        assert lines[0] == f"Saved as #{self.T}."
        self.texts.append(text)
        if self.date is None:
            self.date = self.root.joinpath("LOG.txt").read_bytes()[3:13].decode()
        if self.pending():  # any pending work is due now
            assert lines[1] == ""
            self.check_prompt("\n".join(lines[2:]))
        else:
            assert len(lines) == 1, r.stdout

    @precondition(lambda self: self.T > 0)
    @rule(data=st.data())
    def note_duplicate(self, data):
        i = data.draw(st.integers(max(0, self.T - WAKE_LINES), self.T - 1))
        variant = data.draw(st.sampled_from(["same", "upper", "dot", "spaces"]))
        text = self.texts[i]
        text = {"same": text, "upper": text.upper(), "dot": text + ".",
                "spaces": "  " + text.replace(" ", "   ")}[variant]
        before = (self.root / "LOG.txt").read_bytes()
        r = self.memo("note", text)
        if text.upper() != text.casefold().upper() and variant == "upper":
            pass  # case folding of non-ASCII may differ; only the outcome matters
        assert r.exit_code == 1, (text, r.stdout)
        assert r.stderr.startswith("memo: ") and f"#{i}" in r.stderr, r.stderr
        assert (self.root / "LOG.txt").read_bytes() == before

    @precondition(lambda self: self.next_pending() is not None)
    @rule(stdin=st.booleans())
    def sleep_next(self, stdin):
        r = self.memo("sleep")
        assert r.exit_code == 0, r.stderr
        lo, hi = self.check_prompt(r.stdout)
        text = f"S{lo}-{hi - 1} " + " ".join(
            line.strip()[:12] for line in r.stdout.splitlines() if line.startswith("  "))
        text = text.encode()[:200].decode("utf-8", "ignore").strip()
        name = f"{lo}-{hi - 1}"
        r = (self.memo("sleep", name, "-", input=text + "\n") if stdin
             else self.memo("nap", name, text))
        assert r.exit_code == 0, r.stderr
        self.levels.setdefault(hi - lo, []).append(text)
        if self.next_pending() is None:
            assert r.stdout == f"{name} saved.\nNothing left to compress.\n", r.stdout
        else:
            assert r.stdout.startswith(f"{name} saved.\n\nCompress memories #"), r.stdout
            self.check_prompt(r.stdout)

    @rule(data=st.data())
    def sleep_wrong(self, data):
        """A block that is not the next one: already built (accepted as a
        no-op), or pending later / incomplete / never a block (refused)."""
        T = self.T
        nxt = self.next_pending()
        candidates = [b for b in blocks.complete(T) if b != nxt][:50]
        candidates += [(T - T % 2, T - T % 2 + 2), (0, 1 << T.bit_length() if T else 2)]
        lo, hi = data.draw(st.sampled_from(candidates))
        if (lo, hi) == nxt:
            return
        name = f"{lo}-{hi - 1}"
        before = self.files()
        r = self.memo("sleep", name, "a wrong block")
        built = hi <= T and lo // (hi - lo) < len(self.levels.get(hi - lo, []))
        if built:
            assert r.exit_code == 0, r.stderr
            assert r.stdout.splitlines()[0] == f"Another session already wrote {name}."
        else:
            assert r.exit_code == 1, r.stdout
            assert r.stderr.startswith("memo: ") and r.stderr.count("\n") == 1
        assert self.files() == before

    @precondition(lambda self: any(self.levels.values()))
    @rule(data=st.data())
    def forget(self, data):
        lo, hi = data.draw(st.sampled_from(sorted(self.built_blocks())))
        size = hi - lo
        gone = 0
        for s in list(self.levels):
            if s >= size:
                keep = lo // s
                gone += max(0, len(self.levels[s]) - keep)
                self.levels[s] = self.levels[s][:keep]
        event(f"forget a block of {size}")
        r = self.memo("forget", f"{lo}-{hi - 1}")
        assert r.exit_code == 0, r.stderr
        word = "summary" if gone == 1 else "summaries"
        assert r.stdout.startswith(f"Forgot {gone} {word},"), r.stdout
        assert r.stdout.rstrip().endswith("Run: memo sleep")

    @rule()
    def wake(self):
        T = self.T
        r = self.memo("wake")
        tiling = blocks.cover(T, WAKE_LINES)
        built = set(self.built_blocks())
        if any(hi - lo > 1 and (lo, hi) not in built for lo, hi in tiling):
            # Wake refuses only when the document needs an unbuilt summary.
            n = self.pending()
            assert (r.exit_code, r.stderr) == (1, "")
            head, prompt = r.stdout.split("\n\n", 1)
            assert head == (f"Cannot wake: {n} compression{'s' if n > 1 else ''} pending. "
                            f"Do {'it' if n == 1 else 'them'}, then run memo wake again.")
            self.check_prompt(prompt)
            event("wake refused")
            return
        assert r.exit_code == 0, r.stderr
        body, k = [], 1
        while True:
            text, awake, handed = r.stdout.partition("You are awake.\n")
            lines = (text + awake).rstrip("\n").split("\n")
            # PART_LINES counts the document: the header and closing line are extra
            assert len(lines) <= PART_LINES + 2
            assert len((text + awake).encode()) <= 2048
            if lines[0].startswith("Your memory, part "):
                assert re.fullmatch(rf"Your memory, part {k} of \d+, oldest first\.", lines[0])
                lines = lines[1:]
            last = lines.pop()
            body += lines
            if last == "You are awake.":
                # Pending work the document does not need is handed over after it.
                if self.pending():
                    assert handed.startswith("\nCompress memories #"), handed
                    self.check_prompt(handed[1:])
                    event("wake hands work over")
                else:
                    assert handed == ""
                break
            assert last == f"Not awake yet. Run: memo wake {k + 1} {T}", last
            k += 1
            r = self.memo(*last[len("Not awake yet. Run: memo "):].split())
            assert r.exit_code == 0, r.stderr
        if T == 0:
            assert body == ["No memories yet. Record the first with: memo note - <<'MEMORY'",
                            "<one line>", "MEMORY"]
            return
        want = []
        for lo, hi in blocks.cover(T, WAKE_LINES):
            want.append(self.memory_line(lo) if hi - lo == 1 else self.summary_line(lo, hi))
        assert body == want
        shown = sum(1 for lo, hi in blocks.cover(T, WAKE_LINES) if hi - lo > 1)
        event(f"wake: {k} part(s), {shown} summaries shown")

    @precondition(lambda self: self.T > 0)
    @rule(data=st.data())
    def recall(self, data):
        i = data.draw(st.integers(0, self.T - 1))
        r = self.memo("recall", f"TOK{i}Q")
        assert r.exit_code == 0, r.stderr
        assert r.stdout == f"{self.memory_line(i)}\n1 match.\n", r.stdout

    # -- invariants ----------------------------------------------------------

    def files(self):
        out = {"LOG.txt": (self.root / "LOG.txt").read_bytes()}
        for path in (self.root / "TREE").iterdir():
            out[path.name] = path.read_bytes()
        return out

    @invariant()
    def files_match_the_model(self):
        files = self.files()
        log = files.pop("LOG.txt")
        assert len(log) == LOG * self.T
        for i in range(self.T):
            record = log[i * LOG:(i + 1) * LOG]
            assert record.startswith(f"#{i} ".encode()) and record.endswith(b"\n")
            assert record.rstrip(b" \n").decode() == self.memory_line(i)
        for name, data in files.items():
            assert len(data) % TREE == 0, name
            s = int(name)
            texts = self.levels.get(s, [])
            assert len(data) // TREE == len(texts), (name, len(data), texts)
            for k, text in enumerate(texts):
                assert data[k * TREE:(k + 1) * TREE].rstrip(b" \n").decode() == text
        for s, texts in self.levels.items():
            assert not texts or str(s) in files

    @invariant()
    def pending_matches_the_model(self):
        r = self.memo("stats", "--json")
        assert r.exit_code == 0, r.stderr
        [info] = json.loads(r.stdout)  # a list: one store read
        assert info["memories"] == self.T
        assert info["pending"] == self.pending()
        r = self.memo("sleep")
        if self.pending():
            self.check_prompt(r.stdout)
        else:
            assert r.stdout == "Nothing left to compress.\n"


StoreMachine.TestCase.settings = settings(
    max_examples=12, stateful_step_count=45, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
TestStore = StoreMachine.TestCase

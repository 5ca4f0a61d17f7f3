"""Shared fixtures: every test gets its own MEMORY_DIR under tmp_path.

``memo(*args, input=None)`` runs the ``memo`` command in-process with
click's ``CliRunner`` (stdout and stderr kept apart) and returns the
``Result``. An exception that escapes the CLI (a traceback a user would
see) is re-raised so the test fails loudly.
"""

from __future__ import annotations

import inspect
import re
import shutil
from pathlib import Path

import click.testing
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, settings

from optmem.cli.app import cli

#: The repository root (the directory holding ``optmem/`` and ``tests/``).
REPO = Path(__file__).resolve().parents[1]


# click < 8.2 (the newest click for Python 3.9 is 8.1) mixes stderr into
# stdout unless told not to; 8.2 always keeps them apart. Every test expects
# them apart, so on old click every CliRunner is made with mix_stderr=False
# (patched here, before any test module imports the name).
if "mix_stderr" in inspect.signature(CliRunner.__init__).parameters:
    class _SeparateRunner(CliRunner):
        def __init__(self, *args, mix_stderr: bool = False, **kwargs):
            super().__init__(*args, mix_stderr=mix_stderr, **kwargs)

    click.testing.CliRunner = CliRunner = _SeparateRunner

# No test may fail because the machine is busy: hypothesis's per-example
# deadline and its too-slow health check are clocks, so both are off for every
# test (a test's own @settings keeps its other choices). Work is bounded by
# max_examples and sizes instead.
settings.register_profile("optmem", deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("optmem")

#: The test data, in the repository (``tests/data/README.md`` names each
#: file's source and licence).
DATA = Path(__file__).resolve().parent / "data"


def data_file(name: str) -> Path:
    """``tests/data/<name>``; a missing file is an error (it ships with the
    repository), never a skip."""
    path = DATA / name
    assert path.is_file(), f"{path} is missing: it ships in tests/data/ with the repository"
    return path


@pytest.fixture(autouse=True)
def memory_dir(tmp_path, monkeypatch) -> Path:
    """``MEMORY_DIR`` points at ``tmp_path/"mem"``, which does not exist yet,
    and memo's per-user state (hand-over records, listing marks) goes to
    ``tmp_path/"state"``, never to the real ``~/.local/state``."""
    path = tmp_path / "mem"
    monkeypatch.setenv("MEMORY_DIR", str(path))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return path


@pytest.fixture
def runner() -> CliRunner:
    # click >= 8.2: no ``mix_stderr``; ``result.stdout`` and ``result.stderr``
    # are always separate.
    return CliRunner()


@pytest.fixture
def memo(runner):
    """``memo(*args, input=None)`` -> click ``Result``."""

    def run(*args, input=None):
        result = runner.invoke(cli, [str(a) for a in args], input=input,
                               catch_exceptions=True)
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        return result

    return run


@pytest.fixture
def inited(memo, memory_dir) -> Path:
    """A fresh, empty store at ``MEMORY_DIR``."""
    result = memo("init")
    assert result.exit_code == 0, result.stderr
    assert (memory_dir / "LOG.txt").is_file()
    return memory_dir


def set_config(memory_dir: Path, **knobs: int) -> None:
    """Write ``config`` with the given knobs (the rest stay defaults)."""
    text = "".join(f"{name}={value}\n" for name, value in knobs.items())
    (memory_dir / "config").write_text("# set by the test\n" + text)


def write_import(path: Path, lines) -> Path:
    """Write an import file of ``YYYY-MM-DD text`` lines."""
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


# -- the deterministic stand-in for an agent writing summaries -------------

SLEEP_ORDER = re.compile(r"^Run: memo sleep (\d+-\d+) - <<'(\w+)'$")


def cut_utf8(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` bytes of UTF-8, at a character boundary."""
    data = text.encode("utf-8")[:limit]
    return data.decode("utf-8", "ignore")


def stand_in_summary(prompt: str, limit: int = 280) -> tuple:
    """Answer a compression prompt: ``(block_id, summary)``.

    The summary is the prompt's indented body lines (stripped), joined with
    ``" | "`` and cut to ``limit`` bytes; the block id is taken from the
    ``Run: memo sleep LO-HI - <<'TAG'`` order.
    """
    lines = prompt.splitlines()
    orders = [m for m in map(SLEEP_ORDER.match, lines) if m]
    assert len(orders) == 1, f"expected one sleep order in:\n{prompt}"
    body = [line.strip() for line in lines if line.startswith("  ") and line.strip()]
    assert body, f"no indented body lines in:\n{prompt}"
    return orders[0].group(1), cut_utf8(" | ".join(body), limit).strip()


def answer_all(memo, limit: int = 280, max_rounds: int = 100_000) -> int:
    """Answer every pending compression with the stand-in; return how many.

    Starts from ``memo sleep`` and follows each printed order until
    ``Nothing left to compress.``.
    """
    result = memo("sleep")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    done = 0
    while out != "Nothing left to compress.\n":
        assert done < max_rounds, "compression loop does not end"
        block, summary = stand_in_summary(out, limit)
        result = memo("sleep", block, "-", input=summary + "\n")
        assert result.exit_code == 0, (block, result.stderr)
        assert result.stderr == ""
        said, _, out = result.stdout.partition("\n")
        assert said == f"{block} saved.", result.stdout
        if out != "Nothing left to compress.\n":  # the seed: a blank line, then the prompt
            assert out.startswith("\n"), result.stdout
            out = out[1:]
        done += 1
    return done


def tree_records(memory_dir: Path) -> dict:
    """``{size: [record bytes, ...]}`` for every ``TREE/<size>`` file."""
    out = {}
    tree = memory_dir / "TREE"
    for path in tree.iterdir():
        data = path.read_bytes()
        assert len(data) % 288 == 0, f"{path} is {len(data)} bytes, not whole records"
        out[int(path.name)] = [data[k:k + 288] for k in range(0, len(data), 288)]
    return out


def snapshot(root: Path) -> dict:
    """Every file and directory under ``root``: path -> (mode, mtime in ns or
    None, bytes or None). The lock file's mtime is None: taking the lock may
    touch it (filelock < 4 opens it with O_TRUNC), and it holds no data."""
    out = {}
    for path in sorted(root.rglob("*")):
        st = path.lstat()
        rel = str(path.relative_to(root))
        if path.is_file():
            mtime = None if rel == ".lock" else st.st_mtime_ns
            out[rel] = (st.st_mode, mtime, path.read_bytes())
        else:
            out[rel] = (st.st_mode, None, None)
    return out


def history(n: int) -> list:
    """The first ``n`` lines (``YYYY-MM-DD text``) of the click history."""
    path = data_file("click-history.txt")
    lines = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()
             if line.strip()]
    assert len(lines) >= n
    return lines[:n]


def run_in(root: Path, *args, input=None):
    """Run ``memo`` on the store at ``root`` (whatever MEMORY_DIR says)."""
    result = CliRunner().invoke(cli, [str(a) for a in args], input=input,
                                env={"MEMORY_DIR": str(root)}, catch_exceptions=True)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


@pytest.fixture(scope="session")
def summarised_template(tmp_path_factory):
    """300 memories of the click history, every summary built (built once)."""
    lines = history(300)
    base = tmp_path_factory.mktemp("summarised")
    root = base / "mem"
    assert run_in(root, "init").exit_code == 0
    path = write_import(base / "import.txt", lines)
    assert run_in(root, "import", path).exit_code == 0
    answer_all(lambda *a, input=None: run_in(root, *a, input=input))
    return root


@pytest.fixture
def store300(summarised_template, memory_dir):
    """A copy of the summarised 300-memory store at MEMORY_DIR."""
    shutil.copytree(summarised_template, memory_dir)
    return memory_dir


@pytest.fixture
def pending300(memo, inited, tmp_path):
    """300 memories imported, no summary built yet (296 pending)."""
    from helpers import ok  # helpers imports this module: not at its top
    path = write_import(tmp_path / "import.txt", history(300))
    ok(memo("import", path))
    return inited

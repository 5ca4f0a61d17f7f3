"""Faults found by the QA pass (odd process states a user or harness can
create), each tested for its whole kind through a real ``memo`` process."""

from __future__ import annotations

from conftest import REPO


def test_no_module_has_an_invalid_escape():
    """protocol.py had ``\\w`` in a docstring: Python 3.12+ prints a
    SyntaxWarning on stderr whenever it compiles the module (a git clone's
    first run, ``-B``, a read-only install), two stray lines for the user.
    Every module compiles without a warning."""
    import warnings
    sources = sorted((REPO / "optmem").rglob("*.py")) + [REPO / "memo"]
    for path in sources:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            compile(path.read_text(encoding="utf-8"), str(path), "exec")

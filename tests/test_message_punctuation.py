"""No message memo prints has doubled punctuation (``?.``, ``.,``, ``..``).

Every string template in the package (plain literals and the literal parts
of f-strings) is read from the source with ``ast``; the joins a template
cannot show (a click message followed by ``Run: ...``) are run for real.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from optmem.cli import render

PACKAGE = Path(render.__file__).resolve().parent.parent

#: Two marks where one belongs: a sentence end followed by another mark, or
#: a comma or semicolon before a full stop. ``...`` (an ellipsis) and
#: ``a..b`` ranges between word characters are not doubled punctuation.
DOUBLED = re.compile(r"[?!][.,;](?=\s|$)|[,;] ?\.(?=\s|$)|(?<![.\w{}])\.\.(?=\s|$)"
                     r"|\. \.(?=\s|$)|\w\.\.(?=\s|$)")


def is_message(text: str) -> bool:
    """A human sentence, not a regex, a path or a format of numbers."""
    return " " in text and not any(mark in text for mark in ("(?", "\\", "[^", "|("))


def templates():
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name in ("nfc_tables.py",):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef,
                                 ast.ClassDef)) and node.body:
                first = node.body[0]
                if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                    docstrings.add(id(first.value))
        for node in ast.walk(tree):
            if isinstance(node, ast.JoinedStr):
                text = "{}".join(v.value if isinstance(v, ast.Constant) else "{}"
                                 for v in node.values)
                yield path, node.lineno, text
            elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
                  and id(node) not in docstrings):
                yield path, node.lineno, node.value


def test_no_message_template_has_doubled_punctuation():
    bad = [f"{p.relative_to(PACKAGE.parent)}:{line}: {text!r}"
           for p, line, text in templates() if is_message(text) and DOUBLED.search(text)]
    assert not bad, "\n".join(bad)


def test_a_usage_error_that_ends_with_a_question_gets_no_full_stop_after_it(memo):
    result = memo("wkae")
    assert "Did you mean 'wake'? Run: memo --help" in result.stderr
    assert "?." not in result.stderr


def test_a_note_without_text_says_to_add_a_dash_for_standard_input(memo):
    result = memo("note")
    assert result.exit_code == 2
    assert "add - to read it from standard input" in result.stderr
    assert result.stderr.count("\n") == 1 and result.stderr.endswith("Run: memo note --help\n")


def test_sentence_ends_once():
    assert render.sentence("Did you mean 'wake'?") == "Did you mean 'wake'?"
    assert render.sentence("done.") == "done."
    assert render.sentence("missing") == "missing."

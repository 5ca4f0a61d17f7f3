"""The credential-sentence data the write guard is tested with is well formed
and is what its generator writes: tests/data/guard-credential-templates.txt
(hand-written sentences with a ``{value}`` slot, by form) and
tests/data/guard-credential-values.txt (fake values, ``KIND<TAB>VALUE``).
"""

from __future__ import annotations

import collections
import importlib.util
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"


def _maker():
    spec = importlib.util.spec_from_file_location("make_guard_credentials",
                                                  DATA / "make_guard_credentials.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _values():
    rows = []
    for line in (DATA / "guard-credential-values.txt").read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            continue
        kind, value = line.split("\t")
        rows.append((kind, value))
    return rows


def test_values_file_is_what_the_seeded_generator_writes():
    mod = _maker()
    assert (DATA / "guard-credential-values.txt").read_text(encoding="utf-8") == mod.render()
    assert mod.main(["--check"]) == 0


def test_values_cover_fifty_providers_three_values_each_and_fit_every_template():
    rows = _values()
    per_kind = collections.Counter(k for k, _ in rows)
    assert len(per_kind) >= 50
    assert min(per_kind.values()) >= 3
    assert per_kind["pem-body"] >= 10
    assert len({v for _, v in rows}) == len(rows)
    for kind, value in rows:
        assert value and not set(value) & set(" \t'\"`{}"), (kind, value)


def test_pem_body_values_have_the_shape_of_a_key_line():
    for kind, value in _values():
        if kind != "pem-body":
            continue
        assert 60 <= len(value) <= 76
        assert ("+" in value or "/" in value)
        assert any(c.isupper() for c in value) and any(c.islower() for c in value)
        assert any(c.isdigit() for c in value)


def test_templates_have_one_value_slot_and_each_form_its_minimum():
    forms = _maker().templates()
    assert set(forms) == {"word-then-value", "shell", "continuation"}
    assert len(forms["word-then-value"]) >= 60
    assert len(forms["shell"]) >= 20
    for form, lines in forms.items():
        assert len(set(lines)) == len(lines), form
        for t in lines:
            assert t.count("{value}") == 1 and t.count("{provider}") <= 1, t

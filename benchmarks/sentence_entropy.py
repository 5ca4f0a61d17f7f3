#!/usr/bin/env python3
"""Where the entropy threshold of credentials in sentences comes from.

Runs the guard over the allowed corpora (``tests/data/commit-subjects.txt``,
``click-history.txt``, ``guard-allowed.txt``) and over the generated
credential sentences (every template of ``guard-credential-templates.txt``
with every value of ``guard-credential-values.txt``) with the threshold
``optmem.guard.secrets._SENTENCE_ENTROPY`` set to 0, and records every value that
reached the entropy test (``_entropy_ratio``): a value in a credential's
place that has the shape of a generated one. The allowed side is measured
twice: the values in a credential's place, and every token of those texts
that has a generated value's shape wherever it stands (what a person or a
tool writes that looks most like a secret). Prints, for each side, how many
there were, the ratios at a few percentiles and how many fall below the
threshold, and the extremes, so that the threshold can be set between::

    python benchmarks/sentence_entropy.py
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DATA = os.path.join(ROOT, "tests", "data")
sys.path.insert(0, ROOT)
sys.path.insert(0, DATA)

from optmem.guard import secrets  # noqa: E402
from optmem.guard.text import find_problem  # noqa: E402

ALLOWED = ("commit-subjects.txt", "click-history.txt", "guard-allowed.txt")


def lines(name: str) -> list:
    with open(os.path.join(DATA, name), encoding="utf-8") as f:
        return [ln.rstrip("\n") for ln in f if ln.strip() and not ln.startswith("#")]


def credential_sentences() -> list:
    import make_guard_credentials as gen

    forms = gen.templates()
    values = [ln.split("\t", 1) for ln in lines("guard-credential-values.txt")]
    out = []
    for form, templates in forms.items():
        for i, t in enumerate(templates):
            for j, (kind, v) in enumerate(values):
                if (kind == "pem-body") == (form == "continuation"):
                    name = gen.PROVIDER_NAMES[(i + j) % len(gen.PROVIDER_NAMES)]
                    out.append(gen.fill(t, v, name))
    return out


def ratios(texts: list, every_token: bool = False) -> list:
    """(ratio, value) of every value that reached the entropy test, in a
    credential's place, or (``every_token``) as any token of the texts."""
    seen: dict = {}
    real = secrets._entropy_ratio

    def record(v: str) -> float:
        r = real(v)
        seen[v] = r
        return r

    secrets._entropy_ratio, old = record, secrets._SENTENCE_ENTROPY
    secrets._SENTENCE_ENTROPY = 0.0
    try:
        for t in texts:
            if every_token:
                for tok in t.split():
                    secrets._generated(secrets._strip_value(tok))
            else:
                find_problem(t)
    finally:
        secrets._entropy_ratio, secrets._SENTENCE_ENTROPY = real, old
    return sorted((r, v) for v, r in seen.items())


def pct(xs: list, p: float) -> float:
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))][0] if xs else float("nan")


def main() -> int:
    texts = [t for name in ALLOWED for t in lines(name)]
    allowed = ratios(texts)
    anywhere = ratios(texts, every_token=True)
    creds = ratios(credential_sentences())
    print(f"threshold now: {secrets._SENTENCE_ENTROPY}")
    for name, xs in (("allowed, in a credential's place", allowed),
                     ("allowed, any token", anywhere), ("credential", creds)):
        print(f"{name}: {len(xs)} values reached the entropy test; ratio min "
              f"{pct(xs, 0):.3f} p1 {pct(xs, 1):.3f} p5 {pct(xs, 5):.3f} "
              f"median {pct(xs, 50):.3f} max {pct(xs, 100):.3f}; "
              f"{sum(r < secrets._SENTENCE_ENTROPY for r, _ in xs)} below the threshold")
    print("highest ratios on the allowed side (any token):")
    for r, v in anywhere[-10:]:
        print(f"  {r:.3f} {v}")
    print("lowest ratios on the credential side:")
    for r, v in creds[:10]:
        print(f"  {r:.3f} {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

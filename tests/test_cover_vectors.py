"""``cover`` reproduces every answer of the reference tool
(``tests/data/cover_vectors.jsonl``: 5,452 ``(T, budget)`` pairs)."""

from __future__ import annotations

import json

from conftest import data_file
from optmem import blocks


def load_vectors():
    path = data_file("cover_vectors.jsonl")
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def test_every_vector_matches():
    vectors = load_vectors()
    assert len(vectors) == 5452
    wrong = []
    for v in vectors:
        got = blocks.cover_runs(v["T"], v["budget"])
        if got != v["runs"]:
            wrong.append((v["T"], v["budget"], v["runs"], got))
    assert not wrong, f"{len(wrong)} vectors differ, first: {wrong[:3]}"


def test_vectors_are_tilings():
    # The file itself: each answer tiles [0, T) (guards against a bad copy).
    for v in load_vectors():
        assert sum(size * count for size, count in v["runs"]) == v["T"]

"""Properties of CLUE that must hold for any pair of diagrams (hypothesis)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cluestudio.core.clue import ClueScorer
from cluestudio.core.model import ClassDiagram, Param
from support.clue_support import HashEmbedder, diagrams

SETTINGS = settings(max_examples=40, deadline=None)
EXACT = ClueScorer("exact", cache=False)
EXACT_EQ3 = ClueScorer("exact", cache=False, normalization="paper-eq3")
HASHED = ClueScorer(HashEmbedder(), cache=False)


def values(scorer: ClueScorer, ref: ClassDiagram, cand: ClassDiagram) -> dict[str, float]:
    return scorer.score(ref, cand).scores.as_dict()


@SETTINGS
@given(diagrams(), diagrams())
def test_scores_lie_in_unit_interval(ref: ClassDiagram, cand: ClassDiagram) -> None:
    for scorer in (EXACT, EXACT_EQ3, HASHED):
        for name, value in values(scorer, ref, cand).items():
            assert -1e-9 <= value <= 1 + 1e-9, (name, value)


@SETTINGS
@given(diagrams())
def test_identical_diagrams_score_one(d: ClassDiagram) -> None:
    for scorer in (EXACT, EXACT_EQ3, HASHED):
        for name, value in values(scorer, d, d).items():
            assert value == pytest.approx(1.0, abs=1e-6), name


def _rename(d: ClassDiagram, mapping: dict[str, str]) -> ClassDiagram:
    def r(s: str) -> str:
        return mapping.get(s, s)

    classes = tuple(
        replace(c, name=r(c.name),
                attributes=tuple(replace(a, name=r(a.name), type=r(a.type))
                                 for a in c.attributes),
                methods=tuple(replace(m, name=r(m.name), return_type=r(m.return_type),
                                      params=tuple(Param(r(p.name), r(p.type))
                                                   for p in m.params))
                              for m in c.methods))
        for c in d.classes)
    relations = tuple(replace(x, begin=r(x.begin), end=r(x.end)) for x in d.relations)
    return ClassDiagram(classes, relations)


@SETTINGS
@given(diagrams(), diagrams(), st.randoms(use_true_random=False))
def test_consistent_renaming_keeps_exact_score(ref: ClassDiagram, cand: ClassDiagram,
                                               rnd: random.Random) -> None:
    words = sorted({w for d in (ref, cand) for w in _words(d)} - {""})
    targets = [f"w{i}" for i in range(len(words))]
    rnd.shuffle(targets)
    mapping = dict(zip(words, targets, strict=True))
    before = values(EXACT, ref, cand)
    after = values(EXACT, _rename(ref, mapping), _rename(cand, mapping))
    assert after == pytest.approx(before, abs=1e-12)


def _words(d: ClassDiagram) -> set[str]:
    out = set()
    for c in d.classes:
        out.add(c.name)
        out.update(x for a in c.attributes for x in (a.name, a.type))
        for m in c.methods:
            out.update((m.name, m.return_type))
            out.update(x for p in m.params for x in (p.name, p.type))
    return out


def _shuffle(d: ClassDiagram, rnd: random.Random) -> ClassDiagram:
    def mixed(items: tuple) -> tuple:
        items = list(items)
        rnd.shuffle(items)
        return tuple(items)

    classes = tuple(
        replace(c, attributes=mixed(c.attributes),
                methods=mixed(tuple(replace(m, params=mixed(m.params)) for m in c.methods)))
        for c in d.classes)
    return ClassDiagram(mixed(classes), mixed(d.relations))


@SETTINGS
@given(diagrams(), diagrams(), st.randoms(use_true_random=False))
def test_order_never_changes_a_score(ref: ClassDiagram, cand: ClassDiagram,
                                     rnd: random.Random) -> None:
    for scorer in (EXACT, EXACT_EQ3, HASHED):
        before = values(scorer, ref, cand)
        after = values(scorer, _shuffle(ref, rnd), _shuffle(cand, rnd))
        assert after == pytest.approx(before, abs=1e-9)


@settings(max_examples=15, deadline=None)
@given(st.lists(st.tuples(diagrams(), diagrams()), min_size=1, max_size=6))
def test_batch_equals_one_by_one(pairs: list[tuple[ClassDiagram, ClassDiagram]]) -> None:
    from cluestudio.core.jobs import run_job

    batch = run_job(HASHED.score_pairs(pairs))
    for (ref, cand), result in zip(pairs, batch, strict=True):
        assert result.scores.as_dict() == pytest.approx(values(HASHED, ref, cand), abs=1e-12)

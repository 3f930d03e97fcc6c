"""Our engine against the authors' ``clue-oodeval`` (GPL, test-only oracle) with exact σ.

Both sides get the same σ (1 equal, 0.5 different, empty-string rules) and the same
weights, so any difference is in the matching and aggregation. Diagrams avoid the two
documented differences (docs/adr/0003): multiplicities that only the authors' substring
regex would call "many" (e.g. ``0..*``), and relation ends that name no class.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from cluestudio.core.clue import ClueScorer, ClueWeights
from cluestudio.core.model import ClassDiagram, RelationType
from support.clue_support import diagrams

oodeval = pytest.importorskip("clue_oodeval")

_R_TYPES = {RelationType.ASSOCIATION: "association", RelationType.AGGREGATION: "aggregation",
            RelationType.COMPOSITION: "composition", RelationType.DEPENDENCY: "dependence",
            RelationType.GENERALIZATION: "generalization",
            RelationType.REALIZATION: "implementation"}


def to_oodeval(d: ClassDiagram) -> dict:
    return {
        "classes_info": [c.name for c in d.classes],
        "attributes_info": {c.name: [{"name": a.name, "type": a.type} for a in c.attributes]
                            for c in d.classes},
        "methods_info": {c.name: [{"name": m.name, "returnType": m.return_type,
                                   "parameters": [{"name": p.name, "type": p.type}
                                                  for p in m.params]}
                                  for m in c.methods] for c in d.classes},
        "relationships_info": [{"r_type": _R_TYPES[r.type], "from": r.begin, "to": r.end,
                                "label": {"from": r.label.from_, "to": r.label.to}}
                               for r in d.relations],
    }


def exact_sigma(grid):
    def sigma(a: str, b: str) -> float:
        if not a or not b:
            return 1.0 if a == b else 0.0
        return 1.0 if a == b else 0.5

    return [[sigma(a, b) for a, b in row] for row in grid]


def oracle_scores(ref: ClassDiagram, cand: ClassDiagram, w: ClueWeights) -> dict[str, float]:
    clue = oodeval.CLUE(to_oodeval(ref), to_oodeval(cand), exact_sigma)
    clue.setCLUEParams(we=w.w_e, wr=w.w_r, wn=w.w_n, wa=w.w_a, wm=w.w_m, wat=w.w_at,
                       wan=w.w_an, wmn=w.w_mn, wmt=w.w_mt, wmp=w.w_mp, wpt=w.w_pt, wpn=w.w_pn,
                       wrt=w.w_rt, wrq=w.w_rm, wrn=w.w_rn)
    clue.RunCLUE()
    return {"clue": clue.getCLUE(), "clue-class": clue.getSimCE(),
            "clue-attribute": clue.getSimCA(), "clue-method": clue.getSimCM(),
            "clue-relation": clue.getSimCR()}


SCORER = ClueScorer("exact", cache=False)


@settings(max_examples=40, deadline=None)
@given(diagrams(min_classes=1), diagrams(min_classes=1))
def test_engine_agrees_with_authors_package(ref: ClassDiagram, cand: ClassDiagram) -> None:
    ours = SCORER.score(ref, cand).scores.as_dict()
    theirs = oracle_scores(ref, cand, SCORER.weights)
    assert ours == pytest.approx(theirs, abs=1e-9)

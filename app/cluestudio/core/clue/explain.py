"""Why a CLUE score is what it is: the matchings behind it, as JSON-ready data.

For the GUI and reports: which reference class was matched to which candidate class (and how
similar they were, split into name / attributes / methods), the attribute and method
matchings inside each matched pair, the relation matching, and what was left unmatched.
Every element carries its PlantUML line so a view can highlight it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cluestudio.core.clue.batch import PairMatrices
from cluestudio.core.clue.optmatch import assign
from cluestudio.core.model import Attribute, Method, Relation, RelationType

_ARROWS = {RelationType.ASSOCIATION: "--", RelationType.AGGREGATION: "o--",
           RelationType.COMPOSITION: "*--", RelationType.DEPENDENCY: "..>",
           RelationType.GENERALIZATION: "--|>", RelationType.REALIZATION: "..|>"}


@dataclass(frozen=True)
class Element:
    text: str
    line: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "line": self.line}


@dataclass(frozen=True)
class Match:
    reference: Element
    candidate: Element
    similarity: float
    parts: dict[str, float] = field(default_factory=dict)  # the weighted terms' inputs
    inner: dict[str, Matching] = field(default_factory=dict)  # e.g. attributes, methods

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"reference": self.reference.to_dict(),
                               "candidate": self.candidate.to_dict(),
                               "similarity": self.similarity, **self.parts}
        for key, matching in self.inner.items():
            out[key] = matching.to_dict()
        return out


@dataclass(frozen=True)
class Matching:
    matches: list[Match]
    unmatched_reference: list[Element]
    unmatched_candidate: list[Element]

    def to_dict(self) -> dict[str, Any]:
        return {"matches": [m.to_dict() for m in self.matches],
                "unmatched_reference": [e.to_dict() for e in self.unmatched_reference],
                "unmatched_candidate": [e.to_dict() for e in self.unmatched_candidate]}


@dataclass(frozen=True)
class ClueExplanation:
    classes: Matching
    relations: Matching

    def to_dict(self) -> dict[str, Any]:
        return {"classes": self.classes.to_dict(), "relations": self.relations.to_dict()}


def attribute_text(a: Attribute) -> str:
    return f"{a.name}: {a.type}" if a.type else a.name


def method_text(m: Method) -> str:
    params = ", ".join(f"{p.name}: {p.type}" if p.type else p.name for p in m.params)
    return f"{m.name}({params})" + (f": {m.return_type}" if m.return_type else "")


def relation_text(r: Relation) -> str:
    left = f' "{r.label.from_}"' if r.label.from_ else ""
    right = f' "{r.label.to}"' if r.label.to else ""
    name = f" : {r.name}" if r.name else ""
    return f"{r.begin}{left} {_ARROWS[r.type]}{right} {r.end}{name}"


def _matching(es: np.ndarray, ref: list[Element], cand: list[Element],
              rows: np.ndarray | None = None, cols: np.ndarray | None = None,
              parts: dict[str, np.ndarray] | None = None) -> Matching:
    if rows is None or cols is None:
        rows, cols = assign(es)
    matches = [Match(ref[i], cand[j], float(es[i, j]),
                     {k: float(v[i, j]) for k, v in (parts or {}).items()})
               for i, j in zip(rows.tolist(), cols.tolist(), strict=True)]
    used_r, used_c = set(rows.tolist()), set(cols.tolist())
    return Matching(matches, [e for i, e in enumerate(ref) if i not in used_r],
                    [e for j, e in enumerate(cand) if j not in used_c])


def explain(mx: PairMatrices) -> ClueExplanation:
    ref, cand = mx.leaves.reference, mx.leaves.candidate
    rows, cols = mx.class_assignment
    class_matching = _matching(
        mx.es_class, [Element(c.name, c.line) for c in ref.classes],
        [Element(c.name, c.line) for c in cand.classes], rows, cols,
        {"name_similarity": mx.leaves.class_name, "attribute_similarity": mx.attr_match,
         "method_similarity": mx.method_match})
    detailed = []
    for match, i, j in zip(class_matching.matches, rows.tolist(), cols.tolist(), strict=True):
        a1 = slice(ref.attr_offsets[i], ref.attr_offsets[i + 1])
        a2 = slice(cand.attr_offsets[j], cand.attr_offsets[j + 1])
        m1 = slice(ref.method_offsets[i], ref.method_offsets[i + 1])
        m2 = slice(cand.method_offsets[j], cand.method_offsets[j + 1])
        attributes = _matching(
            mx.es_attr[a1, a2],
            [Element(attribute_text(a), a.line) for a in ref.attributes[a1]],
            [Element(attribute_text(a), a.line) for a in cand.attributes[a2]],
            parts={"name_similarity": mx.leaves.attr_name[a1, a2],
                   "type_similarity": mx.leaves.attr_type[a1, a2]})
        methods = _matching(
            mx.es_method[m1, m2],
            [Element(method_text(m), m.line) for m in ref.methods[m1]],
            [Element(method_text(m), m.line) for m in cand.methods[m2]],
            parts={"name_similarity": mx.leaves.method_name[m1, m2],
                   "return_type_similarity": mx.leaves.method_return[m1, m2],
                   "parameter_similarity": mx.param_match[m1, m2]})
        detailed.append(Match(match.reference, match.candidate, match.similarity, match.parts,
                              {"attributes": attributes, "methods": methods}))
    classes = Matching(detailed, class_matching.unmatched_reference,
                       class_matching.unmatched_candidate)
    r_rows, r_cols = mx.relation_assignment
    relations = _matching(
        mx.es_relation, [Element(relation_text(r), r.line) for r in ref.relations],
        [Element(relation_text(r), r.line) for r in cand.relations], r_rows, r_cols,
        {"type_similarity": mx.leaves.relation_type,
         "multiplicity_similarity": mx.leaves.relation_multiplicity})
    return ClueExplanation(classes, relations)

"""Element-level diff of a candidate class diagram against the reference, from CLUE.

Every candidate class, relation and (inside matched classes) attribute and method is
*matched* (the same element), *partly matched* (the same element, changed: another name of
similar meaning, a different type or multiplicity, members missing or added) or *extra*
(nothing in the reference corresponds); every reference element without a counterpart is
*missing*. Each carries its PlantUML line. The classification reads a CLUE explanation
(``ClueExplanation.to_dict()``): the one stored with the submission's current ``clue`` score
when it belongs to the text shown (app/diagram_diff.py finds it), else one computed here
(``exact`` embedder by default: fast and deterministic). :mod:`.annotation` turns a diff
into a coloured copy of the candidate's PlantUML.

Classes and members (:class:`DiffThresholds`): an assigned pair at similarity ≥ ``matched``
is the same element (for a class, only if its members all match too); below that, a pair
whose *name* similarity is ≥ ``name`` is partly matched; anything lower is two different
elements: the candidate's is extra, the reference's missing. With ``exact`` different names
have σ 0.5, so renamed elements are extra + missing; a neural embedder (the stored
explanation of a ``minilm`` score) lets ``Customer``/``Client`` be partly matched.

Relations are judged by the classes at their ends, through that class matching: both ends
correspond → matched when type and multiplicities agree, else partly; ends reversed →
partly ("direction reversed"); one end → partly; none → extra + missing. (CLUE's own
number is not enough: it rates extends-for-implements 0.96 and a link between two unrelated
classes 0.75.) Only when the ends cannot be read does the pair's similarity decide, against
``matched`` and ``partly``.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from cluestudio.core.diff.records import DiagramDiff, DiffThresholds, ElementDiff, Status
from cluestudio.core.model import ClassDiagram


def _element(data: Any) -> tuple[str, int | None]:
    data = data if isinstance(data, Mapping) else {}
    line = data.get("line")
    return str(data.get("text", "")), line if isinstance(line, int) else None


def _number(value: Any, default: float = 0.0) -> float:
    return float(value) if isinstance(value, int | float) else default


def _entries(matching: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    """The records of one list of a matching; anything that is not a record is skipped."""
    found = matching.get(key)
    return [e for e in found if isinstance(e, Mapping)] if isinstance(found, list) else []


@dataclass
class _Collected:
    elements: list[ElementDiff] = field(default_factory=list)
    missing: list[ElementDiff] = field(default_factory=list)


def _members(kind: str, matching: Any, owner: str, limits: DiffThresholds,
             out: _Collected) -> list[str]:
    """Classify one attribute or method matching; returns what differs, for ``why``."""
    matching = matching if isinstance(matching, Mapping) else {}
    changed = extra = missing = 0
    for match in _entries(matching, "matches"):
        cand, cand_line = _element(match.get("candidate"))
        ref, ref_line = _element(match.get("reference"))
        similarity = _number(match.get("similarity"))
        name_similarity = _number(match.get("name_similarity"), similarity)
        if similarity >= limits.matched:
            out.elements.append(ElementDiff(kind, Status.MATCHED, cand, cand_line, owner,
                                            similarity, ref, ref_line))
        elif name_similarity >= limits.name:
            changed += 1
            what = "name" if name_similarity < 1.0 else ("type" if kind == "attribute"
                                                          else "signature")
            out.elements.append(ElementDiff(kind, Status.PARTLY, cand, cand_line, owner,
                                            similarity, ref, ref_line,
                                            f"{what} differs from {ref!r}"))
        else:
            extra += 1
            missing += 1
            out.elements.append(ElementDiff(kind, Status.EXTRA, cand, cand_line, owner,
                                            similarity))
            out.missing.append(ElementDiff(kind, Status.MISSING, ref, ref_line, owner))
    for data in _entries(matching, "unmatched_candidate"):
        extra += 1
        out.elements.append(ElementDiff(kind, Status.EXTRA, *_element(data), owner))
    for data in _entries(matching, "unmatched_reference"):
        missing += 1
        out.missing.append(ElementDiff(kind, Status.MISSING, *_element(data), owner))
    plural = f"{kind}s" if kind == "attribute" else "methods"
    return [f"{n} {kind if n == 1 else plural} {word}" for n, word in
            ((missing, "missing"), (extra, "extra"), (changed, "changed")) if n]


def _classes(matching: Any, limits: DiffThresholds, out: _Collected) -> None:
    matching = matching if isinstance(matching, Mapping) else {}
    for match in _entries(matching, "matches"):
        cand, cand_line = _element(match.get("candidate"))
        ref, ref_line = _element(match.get("reference"))
        similarity = _number(match.get("similarity"))
        name_similarity = _number(match.get("name_similarity"), similarity)
        if similarity < limits.matched and name_similarity < limits.name:
            out.elements.append(ElementDiff("class", Status.EXTRA, cand, cand_line,
                                            similarity=similarity))
            out.missing.append(ElementDiff("class", Status.MISSING, ref, ref_line))
            continue
        members = _Collected()
        why = [f"named {ref!r} in the reference"] if name_similarity < 1.0 else []
        why += _members("attribute", match.get("attributes"), cand, limits, members)
        why += _members("method", match.get("methods"), cand, limits, members)
        status = Status.MATCHED if similarity >= limits.matched and not why else Status.PARTLY
        out.elements.append(ElementDiff("class", status, cand, cand_line, similarity=similarity,
                                        counterpart=ref, counterpart_line=ref_line,
                                        why="; ".join(why)))
        out.elements += members.elements
        out.missing += members.missing
    for data in _entries(matching, "unmatched_candidate"):
        out.elements.append(ElementDiff("class", Status.EXTRA, *_element(data)))
    for data in _entries(matching, "unmatched_reference"):
        out.missing.append(ElementDiff("class", Status.MISSING, *_element(data)))


_ARROW_TEXT = re.compile(r'(?: "[^"]*")? (?:--|o--|\*--|\.\.>|--\|>|\.\.\|>)(?: "[^"]*")? ')


def _ends(text: str, names: Collection[str]) -> tuple[str, str] | None:
    """(begin, end) of a relation as CLUE writes it (``A "1" *-- "*" B : owns``), read with
    the diagram's class names (which may hold spaces); None if it cannot be read."""
    for begin in sorted((n for n in names if text.startswith(n)), key=len, reverse=True):
        arrow = _ARROW_TEXT.match(text, len(begin))
        if arrow is None:
            continue
        rest = text[arrow.end():]
        for end in sorted((n for n in names if rest.startswith(n)), key=len, reverse=True):
            if rest == end or rest.startswith(f"{end} : "):
                return begin, end
    return None


@dataclass(frozen=True)
class _Names:
    """What the relation rule needs from the class matching."""

    candidate: frozenset[str]
    reference: frozenset[str]
    counterpart: Mapping[str, str]  # candidate class -> its matched or partly matched one


def _relation_pair(match: Mapping[str, Any], names: _Names, limits: DiffThresholds
                   ) -> tuple[Status, str]:
    """Matched, partly matched or neither (EXTRA), and why, for one assigned relation pair.

    By the classes at its ends when they can be read: both ends correspond (in order) →
    matched if type and multiplicities agree, else partly; reversed ends → partly
    ("direction reversed"); one end → partly; none → two different relations. Otherwise by
    the pair's similarity and the thresholds."""
    cand, _ = _element(match.get("candidate"))
    ref, _ = _element(match.get("reference"))
    similarity = _number(match.get("similarity"))
    same_type = _number(match.get("type_similarity"), 1.0) >= 1.0
    same_labels = _number(match.get("multiplicity_similarity"), 1.0) >= 1.0
    differs = ([] if same_type else ["type differs"]) + (
        [] if same_labels or not same_type else ["multiplicities differ"])
    cand_ends, ref_ends = _ends(cand, names.candidate), _ends(ref, names.reference)
    if cand_ends is None or ref_ends is None:
        if similarity >= limits.matched and not differs:
            return Status.MATCHED, ""
        if similarity >= limits.partly:
            return Status.PARTLY, ", ".join(differs or ["ends differ"])
        return Status.EXTRA, ""
    mapped = tuple(names.counterpart.get(end) for end in cand_ends)
    if mapped == ref_ends:
        return (Status.PARTLY, ", ".join(differs)) if differs else (Status.MATCHED, "")
    if mapped == ref_ends[::-1]:
        return Status.PARTLY, ", ".join(["direction reversed", *differs])
    if mapped[0] == ref_ends[0] or mapped[1] == ref_ends[1]:
        return Status.PARTLY, ", ".join(["one end differs", *differs])
    return Status.EXTRA, ""


def _relations(matching: Any, names: _Names, limits: DiffThresholds, out: _Collected
               ) -> None:
    matching = matching if isinstance(matching, Mapping) else {}
    for match in _entries(matching, "matches"):
        cand, cand_line = _element(match.get("candidate"))
        ref, ref_line = _element(match.get("reference"))
        similarity = _number(match.get("similarity"))
        status, why = _relation_pair(match, names, limits)
        if status is Status.EXTRA:
            out.elements.append(ElementDiff("relation", Status.EXTRA, cand, cand_line,
                                            similarity=similarity))
            out.missing.append(ElementDiff("relation", Status.MISSING, ref, ref_line))
            continue
        out.elements.append(ElementDiff("relation", status, cand, cand_line,
                                        similarity=similarity, counterpart=ref,
                                        counterpart_line=ref_line,
                                        why=f"{why} (reference: {ref})" if why else ""))
    for data in _entries(matching, "unmatched_candidate"):
        out.elements.append(ElementDiff("relation", Status.EXTRA, *_element(data)))
    for data in _entries(matching, "unmatched_reference"):
        out.missing.append(ElementDiff("relation", Status.MISSING, *_element(data)))


def _names(out: _Collected) -> _Names:
    classes = [e for e in out.elements if e.kind == "class"]
    missing = [e.text for e in out.missing if e.kind == "class"]
    return _Names(frozenset(e.text for e in classes),
                  frozenset([e.counterpart for e in classes if e.counterpart] + missing),
                  {e.text: e.counterpart for e in classes
                   if e.status in (Status.MATCHED, Status.PARTLY)})


def _text_order(element: ElementDiff) -> tuple[int, int]:
    order = {"class": 0, "attribute": 1, "method": 1, "relation": 2}[element.kind]
    return (element.line if element.line is not None else 1 << 30, order)


def diff_from_explanation(explanation: Mapping[str, Any],
                          thresholds: DiffThresholds | None = None, *,
                          origin: str = "stored", configuration: str = "") -> DiagramDiff:
    """Classify from a CLUE explanation (``ClueExplanation.to_dict()``, as stored with a
    ``clue`` score). A malformed explanation gives what can be read, never an exception."""
    limits = thresholds or DiffThresholds()
    out = _Collected()
    if not isinstance(explanation, Mapping):
        explanation = {}
    _classes(explanation.get("classes"), limits, out)
    _relations(explanation.get("relations"), _names(out), limits, out)
    return DiagramDiff(tuple(sorted(out.elements, key=_text_order)),
                       tuple(sorted(out.missing, key=_text_order)), limits, origin,
                       configuration)


def diff_diagrams(reference: ClassDiagram, candidate: ClassDiagram, *,
                  embedder: str = "exact", thresholds: DiffThresholds | None = None
                  ) -> DiagramDiff:
    """Score the pair with CLUE (``embedder``) and classify from its explanation."""
    from cluestudio.core.clue import ClueScorer

    scorer = ClueScorer(embedder, cache=embedder != "exact")
    try:
        result = scorer.score(reference, candidate)
        settings = scorer.settings()
    finally:
        scorer.close()
    label = " · ".join(str(settings[k]) for k in ("embedder", "profile", "normalization"))
    return diff_from_explanation(result.explanation.to_dict(), thresholds, origin="computed",
                                 configuration=label)


def diff_texts(reference_text: str, candidate_text: str, *, embedder: str = "exact",
               thresholds: DiffThresholds | None = None) -> DiagramDiff:
    """:func:`diff_diagrams` of two PlantUML texts (PlantUMLSyntaxError if one does not
    parse, naming ``reference`` or ``candidate`` and the line)."""
    from cluestudio.core.plantuml import parse_plantuml

    reference = parse_plantuml(reference_text, source="reference").diagram
    candidate = parse_plantuml(candidate_text, source="candidate").diagram
    return diff_diagrams(reference, candidate, embedder=embedder, thresholds=thresholds)


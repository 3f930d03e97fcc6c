"""The check without OCR: a conversion compared model to model with the diagram image A
carries (its PlantUML source), by the names the pixel check compares
(:func:`~cluestudio.core.check.names.diagram_names`: classes, attributes, methods, their
types and parameters, relation labels and multiplicities, notes) and by the relations
themselves (their two classes and kind), which the pixels cannot tell reliably.

Every finding is certain (confidence 1): what the source draws that the conversion lacks
("dropped", with the source's line) and what the conversion adds ("invented", with the
conversion's line). A member is compared within its class: one moved to another class is
dropped there and invented here, as it is.
"""

from __future__ import annotations

import hashlib
import time
from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from cluestudio.core.check.names import ModelName, diagram_names, name_key
from cluestudio.core.check.report import EMBEDDED, CheckReport, InventedName, MissingName
from cluestudio.core.embedded.source import EmbeddedDiagram
from cluestudio.core.model import ClassDiagram, Relation, RelationType

EMBEDDED_ENGINE = "embedded-source"  # the check_results row's engine: no OCR was used
# Names compared within the class they belong to; a relation's label and multiplicities
# within their relation (its two classes); notes and packages diagram-wide.
_OWNED = frozenset({"class", "stereotype", "attribute", "method", "parameter", "type"})
_ON_RELATION = frozenset({"label", "multiplicity"})
_ARROWS = {RelationType.ASSOCIATION: "--", RelationType.AGGREGATION: "o--",
           RelationType.COMPOSITION: "*--", RelationType.DEPENDENCY: "..>",
           RelationType.GENERALIZATION: "--|>", RelationType.REALIZATION: "..|>"}


def _ends(diagram: ClassDiagram) -> dict[int | None, frozenset[str]]:
    """Each relation's line → its two classes (name keys)."""
    return {r.line: frozenset((name_key(r.begin), name_key(r.end)))
            for r in diagram.relations if r.line is not None}


def _compared_names(diagram: ClassDiagram) -> list[ModelName]:
    """The check's names of ``diagram``, but a class's display name (``"Abstract System"``)
    whole, as one name: the pixel check pairs the words OCR reads, a model comparison pairs
    the names (``AbstractSystem`` converts it faithfully; ``name_key`` ignores spaces)."""
    out: list[ModelName] = []
    for name in diagram_names(diagram):
        if name.kind != "class" or name.text == name.owner:
            out.append(name)
        elif not out or (out[-1].kind, out[-1].owner) != ("class", name.owner):
            out.append(ModelName(name.owner, "class", name.line, name.owner))
    return out


def _name_slot(ends: dict[int | None, frozenset[str]]) -> Callable[[ModelName], Hashable]:
    def slot(name: ModelName) -> Hashable:
        if name.kind in _OWNED:
            return name.kind, name_key(name.owner), name.key
        if name.kind in _ON_RELATION:
            return name.kind, ends.get(name.line, frozenset()), name.key
        return name.kind, "", name.key
    return slot


def _relation_slot(relation: Relation) -> tuple[str, frozenset[str] | tuple[str, str]]:
    begin, end = name_key(relation.begin), name_key(relation.end)
    if relation.type is RelationType.ASSOCIATION:
        return relation.type.value, frozenset((begin, end))
    return relation.type.value, (begin, end)


def relation_text(relation: Relation) -> str:
    return f"{relation.begin} {_ARROWS[relation.type]} {relation.end}"


def _unpaired(left: Sequence[Any], right: Sequence[Any], slot: Callable[[Any], Hashable],
              right_slot: Callable[[Any], Hashable] | None = None
              ) -> tuple[list[int], list[int]]:
    """Indices of ``left`` and of ``right`` left over once equal slots are paired, one to
    one (a multiset difference that keeps each element's identity)."""
    waiting: dict[Hashable, list[int]] = defaultdict(list)
    for index, item in enumerate(right):
        waiting[(right_slot or slot)(item)].append(index)
    left_over = []
    for index, item in enumerate(left):
        bucket = waiting.get(slot(item))
        if bucket:
            bucket.pop(0)
        else:
            left_over.append(index)
    return left_over, sorted(i for bucket in waiting.values() for i in bucket)


def _nearest(text: str, kind: str, pool: Sequence[ModelName]) -> str:
    """The most similar name of ``kind`` in ``pool`` (a rename's hint), "" below 0.6."""
    from rapidfuzz import fuzz

    best, nearest = 0.6, ""
    for name in pool:
        if name.kind == kind:
            similarity = fuzz.ratio(name_key(text), name.key) / 100.0
            if similarity > best:
                best, nearest = similarity, name.text
    return nearest


def compare_with_embedded(embedded: EmbeddedDiagram, conversion: ClassDiagram, *,
                          image: bytes = b"") -> CheckReport:
    """The check's report of ``conversion`` against the diagram image A carries."""
    started = time.perf_counter()
    truth = _compared_names(embedded.diagram)
    made = _compared_names(conversion)
    # a label or multiplicity of a relation that is dropped or invented as a whole is part
    # of that finding, not one of its own
    true_rel, made_rel = embedded.diagram.relations, conversion.relations
    lost_rel, new_rel = _unpaired(true_rel, made_rel, _relation_slot)
    gone = {true_rel[i].line for i in lost_rel}
    new = {made_rel[i].line for i in new_rel}
    truth_kept = [n for n in truth if not (n.kind in _ON_RELATION and n.line in gone)]
    made_kept = [n for n in made if not (n.kind in _ON_RELATION and n.line in new)]
    set_aside = len(truth) - len(truth_kept) + len(made) - len(made_kept)
    truth, made = truth_kept, made_kept
    dropped, invented = _unpaired(truth, made, _name_slot(_ends(embedded.diagram)),
                                  _name_slot(_ends(conversion)))
    lines = {name_key(c.name): c.line for c in conversion.classes}
    missing = [MissingName(truth[i].text, truth[i].kind, None, 1.0, truth[i].owner,
                           lines.get(name_key(truth[i].owner)), truth[i].line)
               for i in dropped]
    unmatched_truth = [truth[i] for i in dropped]
    added = [InventedName(made[i].text, made[i].kind, made[i].line, made[i].owner, 1.0,
                          _nearest(made[i].text, made[i].kind, unmatched_truth))
             for i in invented]
    missing += [MissingName(relation_text(true_rel[i]), "relation", None, 1.0,
                            source_line=true_rel[i].line) for i in lost_rel]
    added += [InventedName(relation_text(made_rel[i]), "relation", made_rel[i].line)
              for i in new_rel]
    note = f"compared with {embedded.what} image A carries (no OCR)"
    if embedded.cut:
        note += f"; {embedded.cut}"
    from cluestudio.core.check.check import CHECK_VERSION

    return CheckReport(
        hashlib.sha256(image).hexdigest() if image else "", EMBEDDED_ENGINE,
        embedded.width, embedded.height,
        image_tokens=len(truth), image_found=len(truth) - len(dropped),
        names=len(made), names_found=len(made) - len(invented),
        missing=tuple(missing), invented=tuple(added), readable=True,
        version=CHECK_VERSION, seconds=time.perf_counter() - started,
        set_aside=set_aside, evidence=EMBEDDED, evidence_note=note)

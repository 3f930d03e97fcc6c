"""Image A → a PlantUML draft: classes from boxes and OCR, relations from traced strokes."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from cluestudio.core.draft.classes import DraftClass, classes_from
from cluestudio.core.draft.rejoin import rejoined_boxes
from cluestudio.core.embedded.source import EmbeddedDiagram
from cluestudio.core.model import ClassDiagram
from cluestudio.core.ocr.cache import OcrCache
from cluestudio.core.ocr.engine import OcrEngine
from cluestudio.core.ocr.result import OcrResult

if TYPE_CHECKING:
    import numpy as np

DRAFT_VERSION = "1"
_ARROWS = {"AS": "-->", "AG": "o--", "CO": "*--", "DE": "..>", "GE": "--|>", "RE": "..|>"}


# Elements the draft is less sure of than this are marked for the reviewer.
DOUBT_BELOW = 0.8
DOUBT_MARK = "' ?"  # the comment line above a doubtful element in the draft's PlantUML


@dataclass(frozen=True)
class DraftDoubt:
    """An element of the draft a reviewer should look at: the draft says how sure it is."""

    kind: str  # "class", "member" or "relation"
    element: str  # the class name, ``Class.member`` or ``A -- B``
    confidence: float
    reason: str
    line: int  # 1-based line of the element in the draft's PlantUML

    def to_dict(self) -> dict[str, object]:
        return {"kind": self.kind, "element": self.element,
                "confidence": self.confidence, "reason": self.reason, "line": self.line}


@dataclass(frozen=True)
class DraftResult:
    puml: str
    diagram: ClassDiagram
    classes: int
    relations: int
    warnings: tuple[str, ...] = ()
    doubts: tuple[DraftDoubt, ...] = ()  # doubtful elements, in the PlantUML's order
    # "pixels" (boxes, OCR and traced lines) or "embedded" (the diagram image A carries)
    evidence: str = "pixels"


# The end of the draft's note where image A carries its diagram: the converter plugin's
# answer carries the note, and the window's line says it (app/model_jobs.py).
DRAFTED_FROM_SOURCE = "drafted from it, not from the pixels"


def drafted_from(embedded: EmbeddedDiagram) -> str:
    """The draft's note where image A carries the diagram it was rendered from."""
    return f"image A carries {embedded.what} it was rendered from; {DRAFTED_FROM_SOURCE}"


def draft_from_embedded(embedded: EmbeddedDiagram) -> DraftResult:
    """The draft of an image that carries its diagram: that diagram's text as the file
    carries it (the author's names, order, comments and layout hints; its line numbers
    are the check's), every element certain."""
    note = drafted_from(embedded)
    warnings = (note, embedded.cut) if embedded.cut else (note,)
    return DraftResult(embedded.puml, embedded.diagram, len(embedded.diagram.classes),
                       len(embedded.diagram.relations), warnings, (), "embedded")


def doubt_comment(confidence: float, reason: str) -> str:
    """The PlantUML comment line that marks the next element as doubtful."""
    return f"{DOUBT_MARK} {confidence:.2f} {reason}"


def _safe(name: str) -> str:
    return re.sub(r"\W", "_", name) or "Unnamed"


def _multiplicity(text: str) -> str:
    """``0.*``, ``0...1`` and ``0..`` as OCR reads them → ``0..*``, ``0..1``, ``0..*`` (a
    lost upper bound is most often the small ``*``)."""
    text = re.sub(r"\s*\.+\s*", "..", text.strip())
    return text + "*" if text.endswith("..") else text


def _class_head(cls: DraftClass) -> str:
    """``class Box<T> {`` as PlantUML writes it; a nested class's dotted name, which
    PlantUML would split into a package and a class, is quoted and given an alias."""
    stereotype = f" <<{cls.stereotype}>>" if cls.stereotype else ""
    generics = f"<{cls.generics}>" if cls.generics else ""
    if "." in cls.name:
        return f'{cls.keyword} "{cls.name}{generics}" as {_safe(cls.name)}{stereotype} {{'
    return f"{cls.keyword} {_safe(cls.name)}{generics}{stereotype} {{"


def draft_from_image(data: bytes, source: str = "<image>", *, engine: OcrEngine | None = None,
                     cache: OcrCache | None = None, pixels: bool = False) -> DraftResult:
    """A draft diagram of image ``data``; members the parser cannot read are left out
    (and listed in ``warnings``) so the draft always parses. Where image A carries the
    diagram it was rendered from (core/embedded), the draft is that diagram, unless
    ``pixels``; where it carries one that cannot be used, the first warning says why."""
    from cluestudio.core.embedded.trust import trusted_embedded
    from cluestudio.core.ocr.image import load_image_bytes
    from cluestudio.core.ocr.service import read_loaded

    why = ""
    # decoded once: the embedded diagram's box count and, failing it, OCR read these pixels
    image = load_image_bytes(data, source)
    if not pixels:
        embedded = trusted_embedded(data, source, image)
        if embedded.diagram is not None:
            return draft_from_embedded(embedded.diagram)
        why = embedded.reason
    ocr = read_loaded(image, engine=engine, cache=cache)
    draft = draft_from_ocr(image.pixels, ocr, source)
    if why:
        draft = replace(draft, warnings=(f"{why}; drafted from the pixels", *draft.warnings))
    return draft


def draft_from_ocr(pixels: np.ndarray, ocr: OcrResult, source: str = "<image>"
                   ) -> DraftResult:
    """The draft of an image already read (``pixels`` as decoded, ``ocr`` of them): the
    check and the draft of one image share one OCR pass."""
    from cluestudio.core.draft.relations import trace_relations
    from cluestudio.core.errors import ClueStudioError
    from cluestudio.core.plantuml import parse_plantuml

    # compartments the layout found apart (a photo's open rules) make one class box
    ocr = replace(ocr, layout=replace(ocr.layout, boxes=rejoined_boxes(ocr)))
    classes = classes_from(ocr, pixels)
    warnings: list[str] = []
    body: list[str] = []
    doubts: list[DraftDoubt] = []

    def mark(kind: str, element: str, confidence: float, reason: str) -> None:
        if confidence < DOUBT_BELOW:
            body.append(doubt_comment(confidence, reason))
            doubts.append(DraftDoubt(kind, element, confidence, reason, len(body) + 2))

    for cls in classes:
        kept = []
        for member in cls.members:
            probe = "\n".join(["@startuml", f"class {_safe(cls.name)} {{", f"  {member}", "}",
                               "@enduml"])
            try:
                parse_plantuml(probe)
            except ClueStudioError:
                warnings.append(f"{cls.name}: left out {member!r} (unreadable)")
                continue
            kept.append(member)
        mark("class", cls.name, cls.confidence, cls.doubt or "name read with doubt")
        body.append(_class_head(cls))
        doubtful = {member: (sure, why) for member, sure, why in cls.doubtful_members}
        for member in kept:
            if member in doubtful:  # its ' ? comment inside the block, right above it
                mark("member", f"{cls.name}.{member}", *doubtful[member])
            body.append(f"  {member}")
        body.append("}")
    relations = trace_relations(pixels, ocr, [c.box.rect for c in classes])
    for rel in relations:
        begin, end = _safe(classes[rel.begin].name), _safe(classes[rel.end].name)
        ends = tuple(f' "{_multiplicity(m)}"' if m else "" for m in (rel.from_, rel.to))
        label = re.sub(r"[^\w\s]", "", rel.name).strip()
        suffix = f" : {label}" if label else ""
        arrow = _ARROWS[rel.type.value]
        mark("relation", f"{begin} {arrow} {end}", rel.confidence, rel.doubt)
        body.append(f"{begin}{ends[0]} {arrow}{ends[1]} {end}{suffix}")
    puml = "\n".join(["@startuml", *body, "@enduml"]) + "\n"
    diagram = parse_plantuml(puml, source=f"draft of {source}").diagram
    return DraftResult(puml, diagram, len(classes), len(relations), tuple(warnings),
                       tuple(doubts))

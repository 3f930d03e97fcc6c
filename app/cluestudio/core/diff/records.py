"""The element diff's records: what :mod:`.elements` classifies, :mod:`.annotation`
colours, the workspace job (app/diagram_diff.py) stores and the window draws.

They live apart from the steps so the classification and the colouring need not import each
other to agree on a record (they once did, in a circle held apart by a late import).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class Status(StrEnum):
    MATCHED = "matched"
    PARTLY = "partly"
    EXTRA = "extra"
    MISSING = "missing"


@dataclass(frozen=True)
class DiffThresholds:
    matched: float = 0.95
    name: float = 0.8
    partly: float = 0.8  # relations whose ends cannot be read


@dataclass(frozen=True)
class ElementDiff:
    """One element: a candidate's (matched, partly, extra) or a reference's (missing)."""

    kind: str  # "class" | "attribute" | "method" | "relation"
    status: Status
    text: str  # as CLUE names it: class name, "name: Type", "m(p: T): R", "A --> B"
    line: int | None  # in the candidate text (the reference text for missing elements)
    owner: str = ""  # members: the candidate class they are (or belong) in
    similarity: float | None = None  # to the counterpart
    counterpart: str = ""  # the other side's text (matched, partly)
    counterpart_line: int | None = None
    why: str = ""  # for partly matched: what differs, in a few words

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "status": self.status.value, "text": self.text,
                "line": self.line, "owner": self.owner, "similarity": self.similarity,
                "counterpart": self.counterpart, "counterpart_line": self.counterpart_line,
                "why": self.why}


@dataclass(frozen=True)
class DiagramDiff:
    elements: tuple[ElementDiff, ...]  # the candidate's, in text order
    missing: tuple[ElementDiff, ...]  # the reference's without counterpart, in its order
    thresholds: DiffThresholds = DiffThresholds()
    origin: str = "computed"  # "stored": from the current clue score; "computed": here
    configuration: str = ""  # how the explanation was computed ("exact · paper …")

    def of_kind(self, kind: str) -> tuple[ElementDiff, ...]:
        return tuple(e for e in self.elements if e.kind == kind)

    def status_of_class(self, name: str) -> Status | None:
        for element in self.elements:
            if element.kind == "class" and element.text == name:
                return element.status
        return None

    def counts(self) -> dict[str, dict[str, int]]:
        """kind → status → how many (missing counted from the reference's side)."""
        out: dict[str, dict[str, int]] = {}
        for element in (*self.elements, *self.missing):
            per = out.setdefault(element.kind, {s.value: 0 for s in Status})
            per[element.status.value] += 1
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"origin": self.origin, "configuration": self.configuration,
                "thresholds": vars(self.thresholds), "counts": self.counts(),
                "elements": [e.to_dict() for e in self.elements],
                "missing": [e.to_dict() for e in self.missing]}


"""The result of checking one conversion against its image: what was dropped, what was
invented, where, and how urgently a reviewer should open it (the triage score)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from cluestudio.core.ocr.result import Box

# How much a missed or invented name of each kind matters to a reviewer: a class is a
# diagram's backbone; a type or a note word is often just OCR noise.
KIND_WEIGHTS = {"class": 3.0, "attribute": 2.0, "method": 2.0, "parameter": 1.0,
                "label": 1.0, "multiplicity": 0.5, "stereotype": 1.0, "type": 0.5,
                "note": 0.5, "package": 0.5, "keyword": 0.5, "type keyword": 0.5,
                "relation": 2.0}
# Flags of these kinds at or above FLAG_CONFIDENCE raise the submission's flag. Only the
# comparison with the diagram image A carries (core/embedded/compare.py) finds relations.
FLAG_KINDS = frozenset({"class", "attribute", "method", "relation"})
# What a report compared the conversion with: OCR's reading of image A's pixels, or the
# diagram image A carries (PlantUML's source chunk: core/embedded).
PIXELS, EMBEDDED = "pixels", "embedded"
FLAG_CONFIDENCE = 0.5
# Triage is the chance that the conversion is really wrong, from the weighted flags w
# (CheckReport.weighted_flags: 0 unless a finding raises the flag):
# p = 1 / (1 + exp(-(a·log(1 + w) + b))), (a, b) = TRIAGE_PLATT, fitted by
# benchmarks/fit_triage.py on rendered synthetic diagrams (faithful, one class dropped,
# one invented: 1 : 1 : 1), never on real images; bench_realimages.py measures it on them.
TRIAGE_PLATT = (3.751, -3.837)
# A clean report's triage spreads over [p0, CLEAN_SPREAD·p0], p0 = calibrated_triage(0):
# far below a flagged report's (a flag weighs at least 1, p ≥ 0.2).
CLEAN_SPREAD = 2.0


def calibrated_triage(weighted_flags: float, platt: tuple[float, float] = TRIAGE_PLATT
                      ) -> float:
    """The chance that a conversion whose findings weigh ``weighted_flags`` is wrong."""
    a, b = platt
    return 1.0 / (1.0 + math.exp(-(a * math.log1p(max(0.0, weighted_flags)) + b)))


@dataclass(frozen=True)
class MissingName:
    """Text in image A that the PlantUML does not have."""

    text: str
    kind: str  # guessed from where and how it is written
    # in image A's pixels as decoded, a photo's as taken even where OCR read it squared
    # (None: found in the source image A carries)
    box: Box | None
    confidence: float  # how sure the flag is (OCR confidence, lowered for doubtful kinds)
    owner: str = ""  # the class box it sits in, as read (its header)
    owner_line: int | None = None  # that class's line in the PlantUML, when it has one
    source_line: int | None = None  # its line in the source image A carries, if compared

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"text": self.text, "kind": self.kind}
        if self.box is not None:
            out.update(box=self.box.to_list(), rect=[round(v, 1) for v in self.box.rect])
        out.update(confidence=round(self.confidence, 3), owner=self.owner,
                   owner_line=self.owner_line)
        if self.source_line is not None:
            out["source_line"] = self.source_line
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> MissingName:
        box = Box.from_list(d["box"]) if d.get("box") else None
        return cls(str(d["text"]), str(d["kind"]), box, float(d["confidence"]),
                   str(d.get("owner", "")), d.get("owner_line"), d.get("source_line"))


@dataclass(frozen=True)
class InventedName:
    """A name in the PlantUML that image A does not show."""

    text: str
    kind: str
    line: int | None  # its line in the PlantUML (1-based)
    owner: str = ""  # the class it belongs to in the PlantUML
    confidence: float = 1.0  # 1 - its best similarity to any text OCR read
    nearest: str = ""  # the closest text OCR read, a hint for renames

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "kind": self.kind, "line": self.line, "owner": self.owner,
                "confidence": round(self.confidence, 3), "nearest": self.nearest}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> InventedName:
        return cls(str(d["text"]), str(d["kind"]), d.get("line"), str(d.get("owner", "")),
                   float(d.get("confidence", 1.0)), str(d.get("nearest", "")))


@dataclass(frozen=True)
class CheckReport:
    image_sha256: str
    engine: str
    width: int
    height: int
    image_tokens: int  # words OCR read that count (not one-letter noise)
    image_found: int  # of those, how many the PlantUML has
    names: int  # names the PlantUML draws
    names_found: int  # of those, how many OCR read in the image
    missing: tuple[MissingName, ...] = ()
    invented: tuple[InventedName, ...] = ()
    readable: bool = True  # False: OCR read (almost) nothing; no verdict on the PlantUML
    version: str = ""
    seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict, compare=False)
    # Why the check could not judge name by name ("" when it could): the image and the
    # PlantUML have too little in common and OCR read the image poorly. A person looks.
    doubt: str = ""
    # The image's names read in another language than the PlantUML's (language codes, ""
    # when not): a translation, not a conversion that lost every name.
    language: str = ""
    written_language: str = ""
    # Findings left out as no finding at all (core/check/doubtful.py): multiplicities
    # "not in image A", names the PlantUML states elsewhere or outside its model.
    set_aside: int = 0
    # What the check read but did not weigh, a sentence per kind of name and reason
    # ("attributes not judged: pages, release, written outside the class boxes found",
    # core/check/abstain.py): a "no flag" beside them is no word on those names.
    not_judged: tuple[str, ...] = ()
    # What the conversion was compared with (PIXELS or EMBEDDED) and, in one line, why or
    # what to know of it: "compared with the PlantUML image A carries", or why the pixels
    # were read although image A carries a diagram (it does not parse, it was saved again).
    evidence: str = PIXELS
    evidence_note: str = ""

    @property
    def verdict(self) -> str:
        """'clean', 'flagged', 'language' (names in another language) or 'could not judge'
        (unreadable, or too hard to compare name by name: see :attr:`reason`)."""
        if not self.readable or self.doubt:
            return "could not judge"
        if self.language:
            return "language"
        return "flagged" if self.flagged_by_names else "clean"

    @property
    def reason(self) -> str:
        """The verdict in words, for a reviewer."""
        from cluestudio.core.check.language import NAMES

        if not self.readable:
            return "could not judge: OCR read almost nothing in image A"
        if self.doubt:
            return f"could not judge: {self.doubt}"
        if self.language:
            read = NAMES.get(self.language, self.language)
            written = NAMES.get(self.written_language, self.written_language)
            return (f"the image's names are in {read}, the PlantUML's in {written}: "
                    "a translation; compare the structure by eye")
        if self.flagged:
            return "flagged: look here first"
        return "; ".join(("no flag on what it judged", *self.not_judged)) \
            if self.not_judged else "no flag"

    @property
    def text_recall(self) -> float | None:
        """Share of the image's words that the PlantUML has (None: no words read)."""
        return self.image_found / self.image_tokens if self.image_tokens else None

    @property
    def name_precision(self) -> float | None:
        """Share of the PlantUML's names that the image shows (None: no names)."""
        return self.names_found / self.names if self.names else None

    @property
    def findings_weight(self) -> float:
        """The weight of every finding, flag-raising or not."""
        flags = [(m.kind, m.confidence) for m in self.missing]
        flags += [(i.kind, i.confidence) for i in self.invented]
        return sum(KIND_WEIGHTS.get(kind, 1.0) * conf for kind, conf in flags)

    @property
    def weighted_flags(self) -> float:
        """The calibrated triage's input: the weight of every finding when one of them
        raises the flag (:attr:`flagged_by_names`), else 0. A label, stereotype or type
        that differs, or a name read too unsurely, supports a flag but says nothing on its
        own of whether the conversion is wrong (issue 29: "agrees" beside a triage of 0.8
        misled a reviewer)."""
        return self.findings_weight if self.flagged_by_names else 0.0

    @property
    def triage(self) -> float:
        """0 (nothing to look at) … 1 (open this one first): the chance that the conversion
        is really wrong (:func:`calibrated_triage`). An image the check could not judge by
        names (unreadable, too hard, another language) is 1: a person has to look. A clean
        report stays in the band of no flag: :func:`calibrated_triage` (0) raised by at most
        ×:data:`CLEAN_SPREAD` as the findings it shows weigh more, so the clean ones sort
        among themselves and never reach a flagged one."""
        if self.verdict in ("could not judge", "language"):
            return 1.0
        if not self.flagged_by_names:
            shown = self.findings_weight
            return calibrated_triage(0.0) * (1.0 + (CLEAN_SPREAD - 1.0) * shown / (1.0 + shown))
        return calibrated_triage(self.weighted_flags)

    @property
    def flagged(self) -> bool:
        """Whether a reviewer should look first: a finding, or a verdict the check could
        not reach by names (unreadable, too hard, another language)."""
        return self.verdict != "clean"

    @property
    def flagged_by_names(self) -> bool:
        flags = [(m.kind, m.confidence) for m in self.missing]
        flags += [(i.kind, i.confidence) for i in self.invented]
        return any(kind in FLAG_KINDS and conf >= FLAG_CONFIDENCE for kind, conf in flags)

    def with_boxes(self, move: Callable[[Box], Box], size: tuple[int, int] | None = None
                   ) -> CheckReport:
        """This report with each finding's box taken through ``move`` into another frame,
        ``size`` (width, height) that frame's: OCR reads a photo taken from the side
        squared, and the boxes are drawn over the photo as taken
        (:meth:`cluestudio.core.ocr.image.LoadedImage.in_photo`)."""
        width, height = size or (self.width, self.height)
        missing = tuple(m if m.box is None else replace(m, box=move(m.box))
                        for m in self.missing)
        return replace(self, missing=missing, width=width, height=height)

    def to_dict(self) -> dict[str, Any]:
        def rounded(value: float | None) -> float | None:
            return None if value is None else round(value, 4)

        return {
            "version": self.version, "engine": self.engine, "image_sha256": self.image_sha256,
            "width": self.width, "height": self.height, "readable": self.readable,
            "verdict": self.verdict, "reason": self.reason, "doubt": self.doubt,
            "not_judged": list(self.not_judged),
            "language": self.language, "written_language": self.written_language,
            "triage": round(self.triage, 4), "flagged": self.flagged,
            "text_recall": rounded(self.text_recall),
            "name_precision": rounded(self.name_precision),
            "counts": {"image_tokens": self.image_tokens, "image_found": self.image_found,
                       "names": self.names, "names_found": self.names_found,
                       "missing": len(self.missing), "invented": len(self.invented),
                       "set_aside": self.set_aside},
            "missing": [m.to_dict() for m in self.missing],
            "invented": [i.to_dict() for i in self.invented],
            "seconds": round(self.seconds, 3),
            "evidence": self.evidence, "evidence_note": self.evidence_note,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> CheckReport:
        counts = d.get("counts", {})
        return cls(str(d.get("image_sha256", "")), str(d.get("engine", "")),
                   int(d.get("width", 0)), int(d.get("height", 0)),
                   int(counts.get("image_tokens", 0)), int(counts.get("image_found", 0)),
                   int(counts.get("names", 0)), int(counts.get("names_found", 0)),
                   tuple(MissingName.from_dict(m) for m in d.get("missing", [])),
                   tuple(InventedName.from_dict(i) for i in d.get("invented", [])),
                   bool(d.get("readable", True)), str(d.get("version", "")),
                   float(d.get("seconds", 0.0)), doubt=str(d.get("doubt", "")),
                   language=str(d.get("language", "")),
                   written_language=str(d.get("written_language", "")),
                   set_aside=int(counts.get("set_aside", 0)),
                   not_judged=tuple(str(n) for n in d.get("not_judged", ())),
                   evidence=str(d.get("evidence", PIXELS)),
                   evidence_note=str(d.get("evidence_note", "")))

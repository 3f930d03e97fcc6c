"""Element-level diff of a candidate class diagram against the reference, from CLUE.

Every candidate class, relation and (inside matched classes) attribute and method is
*matched* (the same element), *partly matched* (the same element, changed: another name of
similar meaning, a different type or multiplicity, members missing or added) or *extra*
(nothing in the reference corresponds); every reference element without a counterpart is
*missing*. Each carries its PlantUML line. The classification reads a CLUE explanation
(``ClueExplanation.to_dict()``): the one stored with the submission's current ``clue`` score
when it belongs to the text shown, else one computed here (``exact`` embedder by default:
fast and deterministic). :mod:`.diff_annotation` turns a diff into a coloured copy of the
candidate's PlantUML.

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

import json
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from cluestudio.core.errors import ClueStudioError
from cluestudio.core.model import ClassDiagram
from cluestudio.core.workspace import Workspace, kinds
from cluestudio.core.workspace.ops import text_hash


class DiffUnavailable(ClueStudioError):
    """No element diff for this submission (not a class task, no PlantUML, no reference)."""


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


# --- from an explanation ----------------------------------------------------------------------


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


# --- a submission of a workspace --------------------------------------------------------------


@dataclass(frozen=True)
class SubmissionDiff:
    """What the element-diff view shows for one submission's revision."""

    submission_id: int
    revision_id: int
    reference_text: str
    candidate_text: str
    diff: DiagramDiff
    annotated: Any  # diff_annotation.Annotation: the coloured candidate PlantUML


def stored_explanation(ws: Workspace, submission_id: int, text: str
                       ) -> tuple[dict[str, Any], str] | None:
    """(explanation, configuration label) of the newest ``clue`` score of exactly ``text``
    of this submission, or None when that text was never scored (or has no explanation)."""
    found = ws.scored_explanation(submission_id, text_hash(text), "clue")
    if found is None:
        return None
    raw, label = found
    try:
        explanation = json.loads(raw or "{}")
    except ValueError:
        return None
    if not isinstance(explanation, dict) or "classes" not in explanation:
        return None
    return explanation, label


def submission_diff(ws: Workspace, submission_id: int, *, revision_id: int | None = None,
                    embedder: str = "exact", thresholds: DiffThresholds | None = None,
                    legend: bool = True, members: bool = True) -> SubmissionDiff:
    """The element diff of a submission's revision (the head, i.e. image B, by default)
    against its task's reference, and the coloured copy of that revision's PlantUML.

    Uses the explanation stored with the CLUE score of that very text when there is one (the
    configuration the user scored with); computes one with ``embedder`` otherwise.
    Raises :class:`DiffUnavailable` for tasks that are not class diagrams, a task without a
    PlantUML reference, a submission without that revision; PlantUMLSyntaxError when a text
    does not parse.
    """
    from cluestudio.app.diff_annotation import annotate

    submission = ws.submission(submission_id)
    if submission is None:
        raise DiffUnavailable(f"no submission {submission_id}")
    task = ws.task(submission.task_id)
    if task is None or not kinds.uses_class_parser(task.diagram_kind):
        kind = task.diagram_kind if task else "?"
        raise DiffUnavailable(f"the element diff compares class diagrams; task "
                              f"{submission.task_id!r} is a {kind} task")
    if not task.reference_puml.strip():
        raise DiffUnavailable(f"task {task.id!r} has no PlantUML reference to compare with")
    revisions = ws.revisions(submission_id)
    chosen = [r for r in revisions if revision_id is None or r.id == revision_id]
    if not chosen:
        raise DiffUnavailable(f"submission {submission_id} has no revision "
                              f"{revision_id if revision_id is not None else '(no PlantUML yet)'}")
    revision = chosen[-1]
    stored = stored_explanation(ws, submission_id, revision.puml)
    if stored is not None:
        diff = diff_from_explanation(stored[0], thresholds, origin="stored",
                                     configuration=stored[1])
    else:
        diff = diff_texts(task.reference_puml, revision.puml, embedder=embedder,
                          thresholds=thresholds)
    annotated = annotate(revision.puml, diff, legend=legend, members=members)
    return SubmissionDiff(submission_id, revision.id, task.reference_puml, revision.puml, diff,
                          annotated)


def diff_against(reference_text: str, candidate_text: str, *, embedder: str = "exact",
                 thresholds: DiffThresholds | None = None, legend: bool = True,
                 members: bool = True) -> tuple[DiagramDiff, Any]:
    """(diff, annotation) of any two texts: e.g. a group member against its representative,
    or an unsaved edit against the reference."""
    from cluestudio.app.diff_annotation import annotate

    diff = diff_texts(reference_text, candidate_text, embedder=embedder, thresholds=thresholds)
    return diff, annotate(candidate_text, diff, legend=legend, members=members)


def submission_diff_job(workspace: str, submission_id: int, *, cancel: Any, emit: Any,
                        revision_id: int | None = None, embedder: str = "exact",
                        ) -> SubmissionDiff:
    """:func:`submission_diff` in the window's worker process, on a read-only view of the
    workspace file (the window keeps the writer); the result is plain picklable data."""
    from cluestudio.core.workspace import open_workspace

    cancel.raise_if_cancelled()
    ws = open_workspace(workspace, readonly=True)
    try:
        return submission_diff(ws, submission_id, revision_id=revision_id, embedder=embedder)
    finally:
        ws.close()

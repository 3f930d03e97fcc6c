"""What the views show of one submission: its texts, image, revisions, rating and scores.

Gathered into a :class:`SubmissionView` by a handful of SQLite reads, so showing the next
submission from the cache is a dict lookup. Its scores are the *current* ones
(core/workspace/scores.py), in the metric panel's shape.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Collection
from dataclasses import dataclass, field, replace
from typing import Any

from cluestudio.core.embedded.compare import EMBEDDED_ENGINE
from cluestudio.core.errors import ClueStudioError
from cluestudio.core.workspace import SubmissionSummary, Workspace
from cluestudio.core.workspace.records import Rating, Review, Revision, Submission, Task
from cluestudio.core.workspace.scores import StoredScore

# --- one line of the submission list ----------------------------------------------------------


@dataclass(frozen=True)
class ListRow:
    """What the submission list shows of a submission, for one grader."""

    summary: SubmissionSummary
    total: float | None  # this grader's rating total, None when not rated
    rated: bool
    clue: float | None  # the current CLUE score
    triage: float | None = None  # the offline conversion check: 0 (fine) .. 1 (look first)
    flagged: bool | None = None  # None: not checked (or its revision changed since)
    group_from: str | None = None  # the rating was applied from this source id's (a group)
    # The check's reason when it gave no verdict by names ("could not judge: …", another
    # language); "" when it judged (or did not run). Its triage is then no judgement.
    unjudged: str = ""
    # the check compared with the PlantUML image A carries, not with OCR's reading of it
    from_source: bool = False
    # What a check that judged did not weigh ("attributes not judged: …", a sentence each):
    # its triage says nothing of those names.
    not_judged: tuple[str, ...] = ()


def list_rows(ws: Workspace, grader: str, rubric_id: str | None = None,
              submission_ids: Collection[int] | None = None) -> list[ListRow]:
    """The list's rows, all of them or only ``submission_ids`` (what a change touched): a
    few indexed queries narrowed to those ids, so a scoring chunk's refresh costs
    milliseconds however long the course is. ``rubric_id`` None: "rated" means rated
    under the rubric of each submission's own task kind (a course may mix kinds)."""
    ids = None if submission_ids is None else sorted(set(submission_ids))
    summaries = ws.list_submissions(submission_ids=ids)
    mine = (ws.ratings_by(grader, rubric_id, ids) if rubric_id is not None
            else ratings_by_task_rubric(ws, grader, summaries, narrowed=ids is not None))
    clue = {sid: scores["clue"].value
            for sid, scores in ws.current_scores(ids, ["clue"]).items()}
    checks = ws.latest_checks(ids)
    out = []
    for s in summaries:
        rating, check = mine.get(s.id), checks.get(s.id)
        out.append(ListRow(s, rating.total if rating else None, rating is not None,
                           clue.get(s.id), check["triage"] if check else None,
                           bool(check["flagged"]) if check else None,
                           rating.group_from if rating is not None and rating.group_applied
                           else None, _unjudged(check),
                           check is not None and check["engine"] == EMBEDDED_ENGINE,
                           tuple(check.get("not_judged", ())) if check else ()))
    return out


def _unjudged(check: dict[str, Any] | None) -> str:
    """The reason of a stored check that reached no verdict by names ("" when it did)."""
    if not check or check.get("verdict", "") in ("", "clean", "flagged"):
        return ""
    return str(check.get("reason", "")) or str(check["verdict"])


def ratings_by_task_rubric(ws: Workspace, grader: str,
                           summaries: Collection[SubmissionSummary], *, narrowed: bool = True
                           ) -> dict[int, Rating]:
    """``grader``'s rating of each submission under the rubric of its task's diagram kind
    (core/rubric.py ``KIND_RUBRICS``): one query per rubric in use. ``narrowed``: ask only
    for these submissions' ratings (else all of the grader's, cheaper for a whole list)."""
    from cluestudio.core.rubric import rubric_id_for_kind

    task_kinds = {t.id: t.diagram_kind for t in ws.tasks()}
    wanted = {s.id: rubric_id_for_kind(task_kinds.get(s.task_id, "class")) for s in summaries}
    out: dict[int, Rating] = {}
    for rubric in sorted(set(wanted.values())):
        ids = [sid for sid, r in wanted.items() if r == rubric]
        found = ws.ratings_by(grader, rubric, ids if narrowed else None)
        out.update((sid, found[sid]) for sid in ids if sid in found)
    return out


# --- what a view shows of one submission -----------------------------------------------------


@dataclass(frozen=True)
class SubmissionView:
    """Everything both modes show of one submission, read in one go from the workspace."""

    submission: Submission
    task: Task
    image_a: bytes | None
    revisions: tuple[Revision, ...]
    review: Review | None
    rating: Rating | None
    scores: dict[str, Any] = field(default_factory=dict)  # metric panel dict (may be empty)
    workspace: str = ""  # the real path of the workspace file it was read from

    @property
    def head_puml(self) -> str:
        return self.revisions[-1].puml if self.revisions else ""

    @property
    def model_puml(self) -> str:
        """The converter's (model's) output: the first non-human revision, else the first."""
        for revision in self.revisions:
            if revision.author_kind != "human":
                return revision.puml
        return self.revisions[0].puml if self.revisions else ""


def load_submission(ws: Workspace, submission_id: int, grader: str,
                    rubric_id: str | None = None, *, llm: bool = False) -> SubmissionView:
    """Read one submission's view data (SQLite reads only: a few milliseconds).

    ``rating`` is ``grader``'s under ``rubric_id``; None: the rubric of the task's kind.

    ``llm``: whether an LLM endpoint is configured; for tasks whose metrics need one, the
    panel then says which of them cannot run without it.
    """
    submission = ws.submission(submission_id)
    if submission is None:
        raise ClueStudioError(f"no submission {submission_id}")
    task = ws.task(submission.task_id) or Task(submission.task_id, submission.task_id)
    image = ws.image(submission.image_hash) if submission.image_hash else None
    revisions = tuple(ws.revisions(submission_id))
    reviews = [r for r in ws.reviews(submission_id) if r.reviewer == grader]
    if rubric_id is None:
        from cluestudio.core.rubric import rubric_id_for_kind

        rubric_id = rubric_id_for_kind(task.diagram_kind)
    rating = ws.rating(submission_id, grader, rubric_id)
    current = ws.current_scores([submission_id], explanations=True).get(submission_id, {})
    scores = panel_scores(current, task.diagram_kind)
    if task.diagram_kind != "class":
        notes = metric_notes(task.diagram_kind, llm)
        if notes:
            scores["notes"] = notes
    probe = latest_probe(ws, submission_id)
    if probe is not None:
        scores["probe"] = probe
    return SubmissionView(submission, task, image, revisions, reviews[-1] if reviews else None,
                          rating, scores, str(ws.path.resolve()))


def with_current_scores(view: SubmissionView, current: dict[str, StoredScore]
                        ) -> SubmissionView:
    """``view`` with these current scores (a scoring chunk was stored): its image,
    revisions and rating stay as read; the notes and the probe result are not scores."""
    scores = panel_scores(current, view.task.diagram_kind)
    scores.update((key, view.scores[key]) for key in ("notes", "probe") if key in view.scores)
    return replace(view, scores=scores)


def metric_notes(diagram_kind: str, llm: bool) -> list[str]:
    """Why some metrics of this kind do not run (no LLM endpoint), read from the manifests."""
    from cluestudio.core.kind_metrics import select_metrics
    from cluestudio.core.plugins import get_registry

    return list(select_metrics(diagram_kind, get_registry(), llm=llm)[1])


class ViewCache:
    """Recently shown submissions by id (LRU), so next/previous is instant."""

    def __init__(self, size: int = 64) -> None:
        self._items: OrderedDict[int, SubmissionView] = OrderedDict()
        self._size = size

    def get(self, submission_id: int) -> SubmissionView | None:
        found = self._items.get(submission_id)
        if found is not None:
            self._items.move_to_end(submission_id)
        return found

    def put(self, view: SubmissionView) -> None:
        self._items[view.submission.id] = view
        self._items.move_to_end(view.submission.id)
        while len(self._items) > self._size:
            self._items.popitem(last=False)

    def views(self) -> list[SubmissionView]:
        """The cached views, least recently shown first."""
        return list(self._items.values())

    def drop(self, submission_ids: frozenset[int] | set[int]) -> None:
        for sid in submission_ids:
            self._items.pop(sid, None)

    def clear(self) -> None:
        self._items.clear()


# --- scores ---------------------------------------------------------------------------------

SUB_SCORES = {"clue": "clue", "clue-class": "clue_class", "clue-attribute": "clue_attribute",
        "clue-method": "clue_method", "clue-relation": "clue_relation"}


def explanation_for_panel(explanation: dict[str, Any]) -> dict[str, Any]:
    """The engine's explanation (``ClueExplanation.to_dict``) in the metric panel's shape:
    matched pairs, and what is missing from or extra in the candidate — classes, relations,
    and the attributes and methods inside matched classes — each with its PlantUML line."""
    out: dict[str, Any] = {"classes": [], "relations": [], "unmatched_reference": [],
                           "unmatched_candidate": [], "missing": [], "extra": []}

    def unmatched(matching: dict[str, Any], what: str, owner: str = "") -> None:
        prefix = f"{owner}." if owner else ""
        for key, side in (("unmatched_reference", "missing"),
                          ("unmatched_candidate", "extra")):
            for element in matching.get(key, []):
                out[side].append({"text": f"{prefix}{element.get('text', '')}", "kind": what,
                                  "line": element.get("line")})

    for key in ("classes", "relations"):
        matching = explanation.get(key) or {}
        for match in matching.get("matches", []):
            ref, cand = match.get("reference", {}), match.get("candidate", {})
            out[key].append({"reference": ref.get("text", ""), "candidate": cand.get("text", ""),
                             "similarity": match.get("similarity"),
                             "reference_line": ref.get("line"),
                             "candidate_line": cand.get("line")})
            for inner in ("attributes", "methods"):
                if isinstance(match.get(inner), dict):
                    unmatched(match[inner], inner[:-1], str(cand.get("text", "")))
        for side in ("unmatched_reference", "unmatched_candidate"):  # missing, extra
            out[side] += [e.get("text", "") for e in matching.get(side, [])]
        unmatched(matching, key[:-1] if key == "relations" else "class")
    return out


def element_diff_for_panel(explanation: Any, configuration: str = "") -> dict[str, Any]:
    """Every candidate element matched / partly / extra and the missing ones, with lines
    (``DiagramDiff.to_dict()``, core/diff), read from the stored explanation."""
    from cluestudio.core.diff import diff_from_explanation

    return diff_from_explanation(explanation if isinstance(explanation, dict) else {},
                                 origin="stored", configuration=configuration).to_dict()


def panel_scores(current: dict[str, StoredScore], diagram_kind: str = "class"
                 ) -> dict[str, Any]:
    """The metric panel dict from a submission's current scores (scores.current_scores).

    Class tasks: CLUE, its sub-scores and explanation, and ``baselines``. Other kinds:
    ``metrics`` (every plugin value) and ``plugin_explanations`` (plugin name → explanation).
    ``configurations`` says how each value was computed (metric → "minilm · paper …").
    """
    import json

    out: dict[str, Any] = {}
    values: dict[str, Any] = {}
    explanations: dict[str, Any] = {}
    configurations: dict[str, str] = {}
    for metric, score in sorted(current.items()):
        try:
            explanation = json.loads(score.explanation or "{}")
        except ValueError:
            explanation = {}
        configurations[metric] = score.config.label()
        if metric in SUB_SCORES:
            out[SUB_SCORES[metric]] = score.value
            if metric == "clue":
                out["explanation"] = explanation_for_panel(explanation)
                out["element_diff"] = element_diff_for_panel(explanation,
                                                             score.config.label())
            continue
        values[metric] = score.value
        if (isinstance(explanation, dict) and explanation.get("plugin")
                and explanation.get("explanation") is not None):
            explanations[str(explanation["plugin"])] = explanation["explanation"]
    if diagram_kind != "class":
        if values:
            out.update(diagram_kind=diagram_kind, metrics=values)
        if explanations:
            out["plugin_explanations"] = explanations
    elif values:
        out["baselines"] = values
    if configurations:
        out["configurations"] = configurations
    return out


# --- VLM probe results ----------------------------------------------------------------------


def probe_rows(ws: Workspace, submission_id: int) -> list[dict[str, Any]]:
    """The submission's rows of ``probe_results``, oldest first."""
    return ws.probe_results(submission_id)


def probe_for_panel(row: dict[str, Any]) -> dict[str, Any]:
    """One probe_results row in the metric panel's ``probe`` shape (flag + reasons)."""
    import json

    try:
        result = json.loads(row.get("result") or "{}")
    except ValueError:
        result = {}
    reasons = [r for r in result.get("reasons") or [] if isinstance(r, dict)]
    return {"em": row.get("em"), "rel_acc": row.get("rel_acc"), "model": row.get("model", ""),
            "probe": row.get("probe", ""), "created_at": row.get("created_at", ""),
            "flagged": bool(result.get("flagged")),
            "reasons": [{"kind": str(r.get("kind", "")), "detail": str(r.get("detail", ""))}
                        for r in reasons]}


def latest_probe(ws: Workspace, submission_id: int) -> dict[str, Any] | None:
    """The newest probe result of the submission for the panel, or None when never probed."""
    found = probe_rows(ws, submission_id)
    return probe_for_panel(found[-1]) if found else None

"""The GUI's only doorway to core: plain functions the views call or submit as jobs.

Nothing here imports Qt. Parsing, rendering and scoring are imported lazily (the parser,
renderer and embedders are heavy or may be missing), and every slow function is meant to be
run on the job worker. What a view shows of a submission is gathered into a
:class:`SubmissionView` so that showing the next one from the cache is a dict lookup.
"""

from __future__ import annotations

import difflib
import hashlib
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from cluestudio.core.errors import ClueStudioError, SourceError
from cluestudio.core.jobs import CancelToken, Job, Progress
from cluestudio.core.workspace import Workspace
from cluestudio.core.workspace.records import Rating, Review, Revision, Submission, Task


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


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


def load_submission(ws: Workspace, submission_id: int, grader: str, rubric_id: str
                    ) -> SubmissionView:
    """Read one submission's view data (SQLite reads only: a few milliseconds)."""
    submission = ws.submission(submission_id)
    if submission is None:
        raise ClueStudioError(f"no submission {submission_id}")
    task = ws.task(submission.task_id) or Task(submission.task_id, submission.task_id)
    image = ws.image(submission.image_hash) if submission.image_hash else None
    revisions = tuple(ws.revisions(submission_id))
    reviews = [r for r in ws.reviews(submission_id) if r.reviewer == grader]
    rating = ws.rating(submission_id, grader, rubric_id)
    head = revisions[-1].puml if revisions else ""
    scores = metrics_from_rows(ws.scores(submission_id), text_hash(head))
    return SubmissionView(submission, task, image, revisions, reviews[-1] if reviews else None,
                          rating, scores)


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

    def drop(self, submission_ids: frozenset[int] | set[int]) -> None:
        for sid in submission_ids:
            self._items.pop(sid, None)

    def clear(self) -> None:
        self._items.clear()


# --- PlantUML: parse, render, diff -----------------------------------------------------------


@dataclass(frozen=True)
class PreviewResult:
    """One live-preview round: the picture (if any), what the parser found, and errors."""

    text: str
    png: bytes | None
    summary: dict[str, Any] | None
    parse_error: tuple[int | None, str] | None
    render_error: tuple[int | None, str] | None
    warnings: tuple[tuple[int | None, str], ...] = ()


def parse(text: str) -> Any:
    """The parser's ParseResult; raises ClueStudioError when there is no parser yet."""
    try:
        from cluestudio.core.plantuml import parse_plantuml  # type: ignore[attr-defined]
    except ImportError as error:
        raise ClueStudioError("the PlantUML parser is not installed") from error
    return parse_plantuml(text)


def model_summary(diagram: Any) -> dict[str, Any]:
    """Counts and names of what a parsed diagram contains, for the summary pane."""
    classes = []
    for cls in diagram.classes:
        classes.append({"name": cls.name, "kind": getattr(cls.kind, "value", str(cls.kind)),
                        "attributes": len(cls.attributes), "methods": len(cls.methods),
                        "line": cls.line})
    relations = [{"type": getattr(r.type, "value", str(r.type)), "begin": r.begin,
                  "end": r.end, "line": r.line} for r in diagram.relations]
    return {"classes": classes, "relations": relations,
            "attributes": sum(c["attributes"] for c in classes),
            "methods": sum(c["methods"] for c in classes)}


_render_cache: OrderedDict[str, bytes] = OrderedDict()
_render_lock = threading.Lock()


def render_png(text: str) -> bytes:
    """PNG of ``text`` from the shared renderer, cached by content (RenderError on failure)."""
    key = text_hash(text)
    with _render_lock:
        if key in _render_cache:
            _render_cache.move_to_end(key)
            return _render_cache[key]
    try:
        from cluestudio.core.plantuml.renderer import get_renderer  # type: ignore[import-not-found]
    except ImportError as error:
        raise ClueStudioError("the PlantUML renderer is not installed") from error
    png = bytes(get_renderer().render(text, "png"))
    with _render_lock:
        _render_cache[key] = png
        while len(_render_cache) > 256:
            _render_cache.popitem(last=False)
    return png


def try_render(text: str) -> tuple[str, bytes | None, str]:
    """(text, png or None, error message) — for jobs that render several texts."""
    try:
        return text, render_png(text), ""
    except ClueStudioError as error:
        return text, None, str(error)


def cached_png(text: str) -> bytes | None:
    with _render_lock:
        return _render_cache.get(text_hash(text))


def _where(error: BaseException) -> tuple[int | None, str]:
    if isinstance(error, SourceError):
        return error.line, error.message
    return None, str(error)


def preview(text: str, cancel: CancelToken) -> PreviewResult:
    """Parse then render ``text`` (a job): errors become data, so the editor can mark them."""
    summary = parse_error = render_error = None
    warnings: tuple[tuple[int | None, str], ...] = ()
    try:
        result = parse(text)
        summary = model_summary(result.diagram)
        warnings = tuple((w.line, w.message) for w in getattr(result, "warnings", ()))
    except ClueStudioError as error:
        parse_error = _where(error)
    cancel.raise_if_cancelled()  # a newer keystroke already made this render stale
    png = None
    try:
        png = render_png(text)
    except ClueStudioError as error:
        render_error = _where(error)
    return PreviewResult(text, png, summary, parse_error, render_error, warnings)


def unified_diff(before: str, after: str, before_name: str = "model output",
                 after_name: str = "this revision") -> str:
    return "".join(difflib.unified_diff(before.splitlines(keepends=True),
                                        after.splitlines(keepends=True),
                                        before_name, after_name))


def warm_up(cancel: CancelToken) -> list[str]:
    """Import the parser and the scoring engine and start the renderer (a start-up job).

    Importing scipy and friends holds the GIL for long stretches; doing it once, right after
    start-up, keeps those stalls away from the moments a user is typing or grading.
    """
    ready = []
    for name in ("cluestudio.core.plantuml", "cluestudio.core.clue"):
        cancel.raise_if_cancelled()
        try:
            __import__(name)
            ready.append(name)
        except ImportError:
            pass
    try:
        render_png("@startuml\nclass Warm\n@enduml\n")
        ready.append("renderer")
    except ClueStudioError:
        pass
    return ready


# --- scores ---------------------------------------------------------------------------------

_SUB = {"clue": "clue", "clue-class": "clue_class", "clue-attribute": "clue_attribute",
        "clue-method": "clue_method", "clue-relation": "clue_relation"}


def explanation_for_panel(explanation: dict[str, Any]) -> dict[str, Any]:
    """The engine's explanation (``ClueExplanation.to_dict``) in the metric panel's shape."""
    out: dict[str, Any] = {"classes": [], "relations": [], "unmatched_reference": []}
    for key in ("classes", "relations"):
        matching = explanation.get(key) or {}
        for match in matching.get("matches", []):
            ref, cand = match.get("reference", {}), match.get("candidate", {})
            out[key].append({"reference": ref.get("text", ""), "candidate": cand.get("text", ""),
                             "similarity": match.get("similarity"),
                             "reference_line": ref.get("line"),
                             "candidate_line": cand.get("line")})
        out["unmatched_reference"] += [e.get("text", "") for e in
                                       matching.get("unmatched_reference", [])]
    return out


def metrics_from_rows(rows: list[dict[str, Any]], content_hash: str) -> dict[str, Any]:
    """The metric panel dict from workspace score rows of the current revision's text."""
    import json

    out: dict[str, Any] = {}
    baselines: dict[str, Any] = {}
    for row in rows:
        if row.get("content_hash") != content_hash:
            continue  # a score of an older revision: stale, do not show it as current
        metric = row["metric"]
        if metric in _SUB:
            out[_SUB[metric]] = row["value"]
            if metric == "clue":
                try:
                    explanation = json.loads(row.get("explanation") or "{}")
                except ValueError:
                    explanation = {}
                out["explanation"] = explanation_for_panel(explanation)
        else:
            baselines[metric] = row["value"]
    if baselines:
        out["baselines"] = baselines
    return out


def score_submissions(ws: Workspace, submission_ids: list[int], embedder: str, device: str,
                      profile: str, cancel: CancelToken) -> Job[dict[int, dict[str, Any]]]:
    """Score each submission's head revision against its task reference and store the scores.

    Pairs whose text does not parse are skipped (reported in the result as ``error``).
    """
    from cluestudio.core.clue import ClueScorer
    from cluestudio.core.workspace import ops

    pairs, keys, out = [], [], {}
    references: dict[str, Any] = {}
    for done, sid in enumerate(submission_ids):
        cancel.raise_if_cancelled()
        submission = ws.submission(sid)
        head = ws.head_revision(sid)
        if submission is None or head is None:
            continue
        try:
            if submission.task_id not in references:
                task = ws.task(submission.task_id)
                references[submission.task_id] = parse(task.reference_puml if task else "").diagram
            candidate = parse(head.puml).diagram
        except ClueStudioError as error:
            out[sid] = {"error": str(error)}
            continue
        pairs.append((references[submission.task_id], candidate))
        keys.append((sid, text_hash(head.puml)))
        yield Progress(done + 1, len(submission_ids), "parsing")
    scorer = ClueScorer(embedder, device=device, profile=profile)
    try:
        results = yield from scorer.score_pairs(pairs, cancel)
    finally:
        scorer.close()
    for (sid, digest), result in zip(keys, results, strict=True):
        data = result.to_dict()
        settings = data["settings"]

        def store(conn: Any, sid: int = sid, digest: str = digest,
                  data: dict[str, Any] = data, settings: dict[str, Any] = settings) -> None:
            for metric, value in data["scores"].items():
                ops.put_score(conn, sid, digest, metric, value,
                              embedder=settings.get("embedder", ""),
                              weights_hash=str(settings.get("weights_fingerprint", "")),
                              explanation=data["explanation"] if metric == "clue" else None)

        ws.write(store)
        panel = {_SUB[k]: v for k, v in data["scores"].items() if k in _SUB}
        panel["explanation"] = explanation_for_panel(data["explanation"])
        out[sid] = panel
    return out

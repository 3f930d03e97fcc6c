"""The GUI's doorway to core: plain functions the views call or submit as jobs.

Nothing here imports Qt (nor in its siblings :mod:`.scoring` and :mod:`.model_jobs`).
Parsing, rendering and scoring are imported lazily (the parser, renderer and embedders are
heavy or may be missing), and every slow function is meant to be run on the job worker.
What a view shows of a submission is gathered into a :class:`SubmissionView` so that
showing the next one from the cache is a dict lookup.
"""

from __future__ import annotations

import difflib
import hashlib
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from cluestudio.core.errors import ClueStudioError, SourceError
from cluestudio.core.jobs import CancelToken
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
    scores = metrics_from_rows(ws.scores(submission_id), text_hash(head), task.diagram_kind)
    probe = latest_probe(ws, submission_id)
    if probe is not None:
        scores["probe"] = probe
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
    note: str = ""  # for texts that are not class diagrams: what the views show instead


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
    png = get_renderer_png(text)
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


def preview(text: str, cancel: CancelToken, kind: str = "class") -> PreviewResult:
    """Parse then render ``text`` (a job): errors become data, so the editor can mark them.

    Only class diagrams are parsed (a component diagram is rendered, never flagged by the
    class parser); a SysML v2 or code text is neither parsed nor rendered, and ``note`` says so.
    """
    from cluestudio.core.workspace import kinds

    if not kinds.uses_class_parser(kind):
        if not kinds.renders_with_plantuml(kind):
            return PreviewResult(text, None, None, None, None, (),
                                 kinds.no_rendering_note(kind))
        png, render_error = None, None
        try:
            png = render_png(text)
        except ClueStudioError as error:
            render_error = _where(error)
        return PreviewResult(text, png, None, None, render_error, (),
                             f"{kind.capitalize()} diagram: rendered by PlantUML; the "
                             "class-diagram checks do not apply.")
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
    for name in ("cluestudio.core.plantuml", "cluestudio.core.clue", "cluestudio.core.plugins"):
        cancel.raise_if_cancelled()
        try:
            __import__(name)
            ready.append(name)
        except ImportError:
            pass
    try:
        from cluestudio.gui.scoring import warm_baselines  # imports this module: import late

        ready += warm_baselines()
    except Exception:  # a broken plugin is reported when scoring, not at start-up
        pass
    cancel.raise_if_cancelled()
    try:
        render_png("@startuml\nclass Warm\n@enduml\n")
        ready.append("renderer")
    except ClueStudioError:
        return ready
    # The JVM's JIT needs a few dozen diagrams before a render takes ~70 ms instead of
    # ~200 ms; pay that here, in the background, not in the first minutes of typing.
    global _jit_warm
    while _jit_warm < _JIT_WARM_RENDERS:  # once per process: the JVM is shared
        cancel.raise_if_cancelled()
        try:
            get_renderer_png(_warm_diagram(_jit_warm))
        except ClueStudioError:
            break
        _jit_warm += 1
    return ready


_JIT_WARM_RENDERS = 24
_jit_warm = 0  # warm-up diagrams rendered so far in this process


def _warm_diagram(number: int) -> str:
    lines = ["@startuml", f"abstract class Base{number} {{", "  - id : int",
             "  + name() : String", "}"]
    for i in range(1 + number % 4):
        lines += [f"class Part{i} {{", f"  - value{i} : double", "}",
                  f"Base{number} \"1\" *-- \"*\" Part{i} : has >"]
    lines += [f"interface Named{number}", f"Base{number} ..|> Named{number}", "@enduml"]
    return "\n".join(lines) + "\n"


def get_renderer_png(text: str) -> bytes:
    """A PNG straight from the renderer, bypassing (and not filling) the preview cache."""
    try:
        from cluestudio.core.plantuml.renderer import get_renderer  # type: ignore[import-not-found]
    except ImportError as error:
        raise ClueStudioError("the PlantUML renderer is not installed") from error
    return bytes(get_renderer().render(text, "png"))


# --- scores ---------------------------------------------------------------------------------

SUB_SCORES = {"clue": "clue", "clue-class": "clue_class", "clue-attribute": "clue_attribute",
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


def stored_plugin_explanation(run: Any) -> dict[str, Any]:
    """What a plugin metric's score row keeps as its explanation (read by metrics_from_rows)."""
    return {"plugin": run.name, "explanation": run.explanation, "details": run.details}


def metrics_from_rows(rows: list[dict[str, Any]], content_hash: str,
                      diagram_kind: str = "class") -> dict[str, Any]:
    """The metric panel dict from workspace score rows of the current revision's text.

    Class tasks: CLUE, its sub-scores and explanation, and ``baselines``. Other kinds:
    ``metrics`` (every plugin value) and ``plugin_explanations`` (plugin name → explanation).
    """
    import json

    out: dict[str, Any] = {}
    values: dict[str, Any] = {}
    explanations: dict[str, Any] = {}
    for row in rows:
        if row.get("content_hash") != content_hash:
            continue  # a score of an older revision: stale, do not show it as current
        metric = row["metric"]
        try:
            explanation = json.loads(row.get("explanation") or "{}")
        except ValueError:
            explanation = {}
        if metric in SUB_SCORES:
            out[SUB_SCORES[metric]] = row["value"]
            if metric == "clue":
                out["explanation"] = explanation_for_panel(explanation)
            continue
        values[metric] = row["value"]
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

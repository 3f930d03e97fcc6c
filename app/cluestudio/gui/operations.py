"""User actions on the open workspace, each a core command; views redraw from ``changed``.

Like Anki's ``aqt/operations``: an action is a few lines that build a core command and run
it through the workspace (its single writer thread, one transaction, undo stack in core).
The returned :class:`Changes` says which submissions changed, so views refresh only those.
Slow work (rendering, scoring) goes to the :class:`JobRunner`; this module never waits on it.
"""

from __future__ import annotations

from typing import Any

from cluestudio.core.errors import ClueStudioError
from cluestudio.core.rubric import Rubric, get_rubric
from cluestudio.core.settings import Settings
from cluestudio.core.workspace import (
    Changes,
    SaveRating,
    SaveRevision,
    SetReviewVerdict,
    SubmissionSummary,
    Workspace,
)
from cluestudio.gui import scoring, services
from cluestudio.gui.qt import QObject, Signal
from cluestudio.gui.worker import JobHandle, JobRunner


class Workbench(QObject):
    """The open workspace, the grader, the rubric and the cache of submission views."""

    changed = Signal(object)  # Changes of a command, undo or redo
    workspace_opened = Signal()
    scores_ready = Signal(object)  # {submission id: metric panel dict}
    plugin_failed = Signal(str, str)  # plugin name, message (a metric plugin that failed)
    message = Signal(str)

    def __init__(self, runner: JobRunner, settings: Settings,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.settings = settings
        self.ws: Workspace | None = None
        self.rubric: Rubric = get_rubric()
        self.cache = services.ViewCache()
        self._score_job: JobHandle | None = None
        self._prefetch_job: JobHandle | None = None
        self._warmed = False
        self._warm_job: JobHandle | None = None
        runner.result.connect(self._on_result)

    @property
    def grader(self) -> str:
        return self.settings.grader_name()

    # --- workspace ----------------------------------------------------------------------

    def open(self, ws: Workspace) -> None:
        self.close()
        self.ws = ws
        self.cache.clear()
        self.workspace_opened.emit()
        if not self._warmed:
            self._warmed = True
            self._warm_job = self.runner.submit(services.warm_up, "warm up")

    def close(self) -> None:
        for job in (self._score_job, self._prefetch_job, self._warm_job):
            if job is not None:
                job.cancel()
        if self.ws is not None:
            self.ws.close()
            self.ws = None

    def require(self) -> Workspace:
        if self.ws is None:
            raise ClueStudioError("no workspace is open")
        return self.ws

    def submissions(self) -> list[SubmissionSummary]:
        return self.require().list_submissions() if self.ws is not None else []

    def totals(self) -> dict[int, float | None]:
        """This grader's rating total per rated submission."""
        return {r.submission_id: r.total for r in self.require().ratings()
                if r.grader == self.grader and r.rubric_id == self.rubric.id}

    def clue_scores(self) -> dict[int, float]:
        return self.require().metric_values("clue")

    def view(self, submission_id: int) -> services.SubmissionView:
        """The submission's view data: from the cache when possible (next/previous is instant)."""
        found = self.cache.get(submission_id)
        if found is None:
            found = services.load_submission(self.require(), submission_id, self.grader,
                                             self.rubric.id)
            self.cache.put(found)
        return found

    def prefetch(self, submission_ids: list[int]) -> None:
        """Load these submissions and render their diagrams in the background."""
        if self.ws is None or not submission_ids:
            return
        views = [self.view(sid) for sid in submission_ids]  # SQLite reads: milliseconds
        from cluestudio.core.workspace import kinds

        texts = []
        for view in views:  # SysML v2 and code texts are not PlantUML: nothing to render
            if kinds.renders_with_plantuml(view.task.diagram_kind):
                texts += [view.head_puml, view.task.reference_puml]
        texts = [t for t in dict.fromkeys(texts) if t and services.cached_png(t) is None]
        if not texts:
            return
        if self._prefetch_job is not None:
            self._prefetch_job.cancel()

        def render_all(cancel: Any) -> int:
            for text in texts:
                cancel.raise_if_cancelled()
                # A failure is shown (with its line) when the submission itself is opened.
                services.try_render(text)
            return len(texts)

        self._prefetch_job = self.runner.submit(render_all, "prefetch renders")

    # --- commands (one line each, undo in core) -----------------------------------------

    def _run(self, command: Any) -> Changes:
        changes = self.require().execute(command)
        self._after(changes)
        return changes

    def save_rating(self, submission_id: int, scores: dict[str, float], comment: str,
                    seconds: float) -> Changes:
        return self._run(SaveRating(submission_id, self.grader, scores, rubric=self.rubric,
                                    comment=comment, seconds=round(seconds, 1)))

    def save_revision(self, submission_id: int, puml: str) -> Changes:
        return self._run(SaveRevision(submission_id, puml, self.grader))

    def set_verdict(self, submission_id: int, verdict: str, tags: list[str],
                    comment: str = "") -> Changes:
        return self._run(SetReviewVerdict(submission_id, self.grader, verdict, tags,
                                          comment=comment))

    def undo(self) -> Changes | None:
        changes = self.require().undo()
        if changes is not None:
            self._after(changes)
        return changes

    def redo(self) -> Changes | None:
        changes = self.require().redo()
        if changes is not None:
            self._after(changes)
        return changes

    def undo_label(self) -> str | None:
        return self.ws.undo_stack.undo_label if self.ws is not None else None

    def redo_label(self) -> str | None:
        return self.ws.undo_stack.redo_label if self.ws is not None else None

    def note_changes(self, changes: Changes) -> None:
        """Changes written outside a command (a stored VLM conversion): redraw as usual."""
        self._after(changes)

    def _after(self, changes: Changes) -> None:
        self.cache.drop(changes.ratings | changes.revisions | changes.reviews)
        self.changed.emit(changes)

    # --- background scoring -------------------------------------------------------------

    def score(self, submission_ids: list[int], focus: int | None = None) -> JobHandle:
        """Score these submissions with the configured embedder (one job; cancels the last).

        With more than a few, the result carries the panel of ``focus`` (the one on screen)
        only; the others are read back from the workspace when shown.
        """
        ws = self.require()
        if self._score_job is not None:
            self._score_job.cancel()
        options = self.settings.scoring
        self._score_job = self.runner.submit(
            lambda cancel: scoring.score_submissions(ws, submission_ids, options.embedder,
                                                     options.device, options.weight_profile,
                                                     cancel, settings=self.settings,
                                                     focus=_focus(submission_ids, focus)),
            f"score {len(submission_ids)} submission(s)")
        return self._score_job

    def _on_result(self, job_id: int, value: object) -> None:
        if self._score_job is not None and job_id == self._score_job.id:
            self._score_job = None
            if isinstance(value, dict):
                for name, message in (value.pop("plugin_errors", None) or {}).items():
                    self.plugin_failed.emit(name, message)
                self.cache.drop(set(value))
                self.scores_ready.emit(value)


FULL_RESULT_LIMIT = 50  # a batch up to this size hands back every panel


def _focus(submission_ids: list[int], focus: int | None) -> set[int] | None:
    """Panels to hand back: all of a small batch, else only the one on screen."""
    if len(submission_ids) <= FULL_RESULT_LIMIT:
        return None
    return {focus} if focus is not None else set()


"""User actions on the open workspace, each a core command; views redraw from ``changed``.

Like Anki's ``aqt/operations``: an action is a few lines that build a core command and run
it through the workspace (its single writer thread, one transaction, undo stack in core).
The returned :class:`Changes` says which submissions changed, so views refresh only those.
Scoring runs in the worker process (:class:`ProcessRunner`); each chunk of scores it sends
back is stored on the runner's reader thread and announced as ``changed`` with its
submission ids, so every view shows the current score as soon as it exists.
"""

from __future__ import annotations

from typing import Any

from cluestudio.app import preview, submissions
from cluestudio.app.scoring import ScoreSummary, ScoringOptions, plan_scoring, store_scored
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
from cluestudio.gui.qt import QObject, Signal
from cluestudio.gui.worker import BATCH, JobHandle, JobRunner, ProcessRunner


class Workbench(QObject):
    """The open workspace, the grader, the rubric and the cache of submission views."""

    changed = Signal(object)  # Changes of a command, undo, redo, or stored scores
    workspace_opened = Signal()
    plugin_failed = Signal(str, str)  # plugin name, message (a metric plugin that failed)
    scoring_failed = Signal(str, str)  # "task · source", why it could not be scored
    message = Signal(str)
    _scores_stored = Signal(object)  # frozenset of ids, from the worker's reader thread

    def __init__(self, runner: JobRunner, settings: Settings,
                 parent: QObject | None = None, *,
                 processes: ProcessRunner | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.processes = processes or ProcessRunner(self)
        self.settings = settings
        self.ws: Workspace | None = None
        self.rubric: Rubric = get_rubric()
        self.cache = submissions.ViewCache()
        self._score_job: JobHandle | None = None
        self._prefetch_job: JobHandle | None = None
        self._warmed = False
        self._warm_jobs: list[JobHandle] = []
        self._scores_stored.connect(self._on_scores_stored)

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
            self._warm_jobs = [
                self.runner.submit(preview.warm_up, "warm up", lane=BATCH),
                self.processes.submit("cluestudio.app.preview:warm_worker",
                                      label="warm up the worker process")]

    def close(self) -> None:
        for job in (self._score_job, self._prefetch_job, *self._warm_jobs):
            if job is not None:
                job.cancel()
        if self.ws is not None:
            self.ws.close()
            self.ws = None

    def shutdown(self) -> None:
        """Close the workspace and stop the worker process (the window is closing)."""
        self.close()
        self.processes.shutdown()

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

    def view(self, submission_id: int) -> submissions.SubmissionView:
        """The submission's view data: from the cache when possible (next/previous is instant)."""
        found = self.cache.get(submission_id)
        if found is None:
            llm = bool(self.settings.llm.base_url.strip() and self.settings.llm.model.strip())
            found = submissions.load_submission(self.require(), submission_id, self.grader,
                                                self.rubric.id, llm=llm)
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
        texts = [t for t in dict.fromkeys(texts) if t and preview.cached_png(t) is None]
        if not texts:
            return
        if self._prefetch_job is not None:
            self._prefetch_job.cancel()

        def render_all(cancel: Any) -> int:
            for text in texts:
                cancel.raise_if_cancelled()
                # A failure is shown (with its line) when the submission itself is opened.
                preview.try_render(text)
            return len(texts)

        self._prefetch_job = self.runner.submit(render_all, "prefetch renders", lane=BATCH)

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
        self.cache.drop(changes.submissions)
        self.changed.emit(changes)

    # --- background scoring (in the worker process) -------------------------------------

    def score(self, submission_ids: list[int]) -> JobHandle | None:
        """Score these submissions with the configured scoring settings (one job; a new one
        cancels the last). Every chunk is stored as it comes back; ``changed`` follows."""
        ws = self.require()
        try:
            options = ScoringOptions.from_settings(self.settings)
        except ClueStudioError as error:
            self.message.emit(str(error))
            return None
        items, planned = plan_scoring(ws, options, submission_ids=submission_ids)
        for sid, why in planned.failed.items():
            self.scoring_failed.emit(str(sid), why)
        if self._score_job is not None:
            self._score_job.cancel()

        def store(tag: str, chunk: object) -> None:  # on the reader thread
            changed = store_scored(ws, chunk)  # type: ignore[arg-type]
            if changed:
                self._scores_stored.emit(changed)

        job = self.processes.submit("cluestudio.app.scoring:score_job", (items, options),
                                    label=f"score {len(items)} submission(s)", on_data=store)
        job.result.connect(self._on_scored)
        self._score_job = job
        return job

    def _on_scores_stored(self, ids: frozenset[int]) -> None:
        self._after(Changes(label="", scores=frozenset(ids)))

    def _on_scored(self, summary: object) -> None:
        if not isinstance(summary, ScoreSummary):
            return
        for name, message in summary.plugin_errors.items():
            self.plugin_failed.emit(name, message)
        for sid, why in summary.failed.items():
            self.scoring_failed.emit(str(sid), why)

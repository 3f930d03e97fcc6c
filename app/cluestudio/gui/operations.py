"""User actions on the open workspace, each a core command; views redraw from ``changed``.

Like Anki's ``aqt/operations``: an action is a few lines that build a core command and run
it through the workspace (its single writer thread, one transaction, undo stack in core).
The returned :class:`Changes` says which submissions changed, so views refresh only those.
Scoring runs in the worker process (:class:`ProcessRunner`); each chunk of scores it sends
back is stored on the runner's reader thread and announced as ``changed`` with its
submission ids, so every view shows the current score as soon as it exists.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cluestudio.app import preview, submissions
from cluestudio.app.drafts import DraftStore
from cluestudio.app.scoring import (
    ScoreSummary,
    ScoringOptions,
    plan_and_score_job,
    store_scored,
)
from cluestudio.core.errors import ClueStudioError
from cluestudio.core.rubric import Rubric, get_rubric, rubric_for_kind
from cluestudio.core.settings import Settings
from cluestudio.core.workspace import (
    Changes,
    SaveRating,
    SaveRevision,
    SetReviewVerdict,
    SubmissionSummary,
    Workspace,
)
from cluestudio.core.workspace.sample import data_dir
from cluestudio.gui.qt import QObject, Signal
from cluestudio.gui.worker import BATCH, JobHandle, JobRunner, ProcessRunner

# Pairs per scoring chunk in the window: each chunk's end moves the bar and lands its rows
# in the list, so a course shows progress every second or two (the CLI's 50 amortise a
# little better but left the bar at 0/66 for half a minute, issue 24).
WINDOW_SCORE_CHUNK = 4


class Workbench(QObject):
    """The open workspace, the grader and the cache of submission views.

    Each submission is graded with the rubric of its task's diagram kind
    (:meth:`rubric_for`); ``default_rubric`` is the class-diagram one the analysis compares
    graders on."""

    changed = Signal(object)  # Changes of a command, undo, redo, or stored scores
    workspace_opened = Signal()
    plugin_failed = Signal(str, str)  # plugin name, message (a metric plugin that failed)
    problem = Signal(str, str)  # what (score, check), why one submission could not be done
    message = Signal(str)
    _scores_stored = Signal(object)  # frozenset of ids, from the worker's reader thread
    _checks_stored = Signal(object)  # likewise, for conversion checks

    def __init__(self, runner: JobRunner, settings: Settings,
                 parent: QObject | None = None, *,
                 processes: ProcessRunner | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.processes = processes or ProcessRunner(self)
        self.settings = settings
        self.ws: Workspace | None = None
        self.default_rubric: Rubric = get_rubric()
        self.cache = submissions.ViewCache()
        self._score_job: JobHandle | None = None
        self._prefetch_job: JobHandle | None = None
        self._warmed = False
        self._warm_jobs: list[JobHandle] = []
        self.drafts: DraftStore | None = None  # this grader's unsaved rubrics in this workspace
        self._scores_stored.connect(self._on_scores_stored)
        self._checks_stored.connect(
            lambda ids: self._after(Changes(checks=frozenset(ids))))
        self._check_job: JobHandle | None = None

    @property
    def grader(self) -> str:
        return self.settings.grader_name()

    def apply_settings(self, settings: Settings) -> bool:
        """Take new settings; True when the grader changed (every view of "mine" — ratings,
        drafts, blind grading — is then another person's and must be redrawn)."""
        changed = settings.grader_name() != self.grader
        self.settings = settings
        if changed:
            self.cache.clear()
            if self.ws is not None:
                self.drafts = DraftStore(data_dir() / "drafts", self.ws.path, self.grader)
        return changed

    # --- workspace ----------------------------------------------------------------------

    def open(self, ws: Workspace) -> None:
        self.close()
        self.ws = ws
        self.cache.clear()
        self.drafts = DraftStore(data_dir() / "drafts", ws.path, self.grader)
        self.workspace_opened.emit()

    def start_warm_ups(self) -> None:
        """Start the JVM and the worker process in the background, once. The window calls
        this after its first paint: started before, they took the CPU that painting needed
        (on 2 cores, the window showed ~0.5 s later)."""
        if not self._warmed:
            self._warmed = True
            self._warm_jobs = [
                self.runner.submit(preview.warm_up, "warm up", lane=BATCH),
                self.processes.submit(preview.warm_worker,
                                      label="warm up the worker process")]

    def close(self) -> None:
        for job in (self._score_job, self._prefetch_job, *self._warm_jobs):
            if job is not None:
                job.cancel()
        if self.ws is not None:
            self.ws.close()
            self.ws = None
        self.drafts = None
        self.cache.clear()

    def shutdown(self) -> None:
        """Close the workspace and stop the worker process (the window is closing)."""
        self._warmed = True  # a window closed before its first paint starts nothing
        self.close()
        self.processes.shutdown()

    def require(self) -> Workspace:
        if self.ws is None:
            raise ClueStudioError("no workspace is open")
        return self.ws

    def submissions(self) -> list[SubmissionSummary]:
        return self.require().list_submissions() if self.ws is not None else []

    @staticmethod
    def rubric_for(view: submissions.SubmissionView) -> Rubric:
        """The rubric ``view``'s submission is graded with: its task kind's."""
        return rubric_for_kind(view.task.diagram_kind)

    def totals(self) -> dict[int, float | None]:
        """This grader's rating total per rated submission (each under its task's rubric)."""
        ws = self.require()
        mine = submissions.ratings_by_task_rubric(ws, self.grader, ws.list_submissions(),
                                                  narrowed=False)
        return {sid: rating.total for sid, rating in mine.items()}

    def rated_by_me(self) -> set[int]:
        """The submissions this grader has rated (under their task's rubric)."""
        return set(self.totals()) if self.ws is not None else set()

    def clue_scores(self) -> dict[int, float]:
        return self.require().metric_values("clue")

    def view(self, submission_id: int) -> submissions.SubmissionView:
        """The submission's view data: from the cache when possible (next/previous is instant)."""
        found = self.cache.get(submission_id)
        if found is None:
            llm = bool(self.settings.llm.base_url.strip() and self.settings.llm.model.strip())
            found = submissions.load_submission(self.require(), submission_id, self.grader,
                                                llm=llm)
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

    def belongs(self, view: submissions.SubmissionView) -> bool:
        """Whether ``view`` shows a submission of the open workspace (ids are per file)."""
        return self.ws is not None and view.workspace == str(self.ws.path.resolve())

    def save_rating(self, view: submissions.SubmissionView, scores: dict[str, float],
                    comment: str, seconds: float) -> Changes:
        """Save this grader's rating of exactly the submission ``view`` shows, under the
        rubric of its task's kind; refused when the view is of another workspace than the
        open one."""
        self._require_own(view)
        changes = self._run(SaveRating(view.submission.id, self.grader, scores,
                                       rubric=self.rubric_for(view), comment=comment,
                                       seconds=round(seconds, 1)))
        if self.drafts is not None:
            self.drafts.drop(view.submission.id)
        return changes

    def apply_group_rating(self, view: submissions.SubmissionView, group: Any, *,
                           overwrite: bool = False,
                           member_ids: Sequence[int] | None = None) -> Changes:
        """Copy this grader's saved rating of ``view``'s submission to the rest of ``group``
        (app/groups.py ``SubmissionGroup``), or to ``member_ids`` (the grader's choice among
        its members and near suggestions), in one undoable command; members already rated
        by the grader are kept unless ``overwrite``."""
        from cluestudio.app.groups import group_rating_command

        self._require_own(view)
        return self._run(group_rating_command(group, view.submission.id, self.grader,
                                              rubric_id=self.rubric_for(view).id,
                                              overwrite=overwrite, member_ids=member_ids))

    def save_revision(self, view: submissions.SubmissionView, puml: str) -> Changes:
        self._require_own(view)
        return self._run(SaveRevision(view.submission.id, puml, self.grader))

    def set_verdict(self, view: submissions.SubmissionView, verdict: str, tags: list[str],
                    comment: str = "") -> Changes:
        self._require_own(view)
        return self._run(SetReviewVerdict(view.submission.id, self.grader, verdict, tags,
                                          comment=comment))

    def _require_own(self, view: submissions.SubmissionView) -> None:
        if not self.belongs(view):
            raise ClueStudioError("this submission belongs to a workspace that is no longer "
                                  "open; nothing was saved")

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
        return self.named(self.ws.undo_stack.undo_label) if self.ws is not None else None

    def redo_label(self) -> str | None:
        return self.named(self.ws.undo_stack.redo_label) if self.ws is not None else None

    def named(self, label: str | None) -> str | None:
        """A command's label with each "submission 12" (a database id, meaningless to a
        grader) written as the submission's name, "submission s002"."""
        import re

        ws = self.ws
        if not label or ws is None:
            return label

        def name(match: re.Match[str]) -> str:
            found = ws.submission(int(match.group(1)))
            return f"submission {found.source_id}" if found is not None else match.group(0)

        return re.sub(r"\bsubmission (\d+)\b", name, label)

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
        if self._score_job is not None:
            self._score_job.cancel()

        def store(tag: str, chunk: object) -> None:  # on the reader thread
            changed = store_scored(ws, chunk)  # type: ignore[arg-type]
            if changed:
                self._scores_stored.emit(changed)

        # The worker plans from the file itself: only ids cross the pipe from this thread.
        ids = sorted(set(submission_ids))
        job = self.processes.submit(plan_and_score_job,
                                    (str(ws.path), options, ids),
                                    {"chunk_size": WINDOW_SCORE_CHUNK},
                                    label=f"score {len(ids)} submission(s)", on_data=store)
        job.result.connect(self._on_scored)
        self._score_job = job
        return job

    def check(self, submission_ids: list[int]) -> JobHandle | None:
        """Check these conversions against their image A offline (OCR in the worker
        process), planned as ``cluestudio check --workspace`` plans (app/checks.py: what is
        already checked is shown as stored, not read again); each report is stored as it
        comes and announced as ``changed``."""
        from cluestudio.app.checks import check_job, plan_checks, store_checked

        ws = self.require()
        plan = plan_checks(ws, submission_ids)
        for outcome in plan.not_checkable:
            self.problem.emit("check", f"{outcome.task_id} · {outcome.source_id}: "
                                       f"{outcome.reason}")
        if plan.already_checked:
            self.message.emit(f"{len(plan.already_checked)} conversion(s) already checked "
                              "(same revision, image and engine): their stored check stands")
        items = list(plan.items)
        if not items:
            return None
        if self._check_job is not None:
            self._check_job.cancel()

        def keep(tag: str, payload: object) -> None:  # on the reader thread
            item, result = payload  # type: ignore[misc]
            if tag == "checked":
                store_checked(ws, item, result)
                self._checks_stored.emit(frozenset({item.submission_id}))
            else:
                self.problem.emit("check", str(result))

        job = self.processes.submit(check_job,
                                    (str(ws.path), items),
                                    label=f"check {len(items)} conversion(s)", on_data=keep)
        self._check_job = job
        return job

    def _on_scores_stored(self, ids: frozenset[int]) -> None:
        self._after(Changes(label="", scores=frozenset(ids)))

    def _on_scored(self, summary: object) -> None:
        if not isinstance(summary, ScoreSummary):
            return
        for name, message in summary.plugin_errors.items():
            self.plugin_failed.emit(name, message)
        for why in summary.failed.values():
            self.problem.emit("score", why)

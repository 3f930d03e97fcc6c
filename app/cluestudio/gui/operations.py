"""The session's Qt adapter: its changes as a signal, its background jobs on the runners.

The session itself (workspace, grader, settings, drafts, undo, the view cache, the commands)
is app/session.py's, without Qt. Like Anki's ``aqt/operations``: an action builds a core
command and runs it through the session (one transaction, undo in core); the returned
:class:`Changes` says which submissions changed and which view asked, so views refresh only
those, and not the one that made the change. Scoring runs in the worker process
(:class:`ProcessRunner`); each chunk of scores it sends back is stored on the runner's
reader thread and announced as ``changed`` with its submission ids, so every view shows the
current score as soon as it exists.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from cluestudio.app import preview, submissions
from cluestudio.app.drafts import DraftStore
from cluestudio.app.scoring import (
    ScoreSummary,
    ScoringOptions,
    plan_and_score_job,
    store_scored,
)
from cluestudio.app.session import Session
from cluestudio.core.errors import ClueStudioError
from cluestudio.core.rubric import Rubric
from cluestudio.core.settings import Settings
from cluestudio.core.workspace import Changes, Workspace
from cluestudio.gui.qt import QObject, Signal
from cluestudio.gui.worker import BATCH, JobHandle, JobRunner, ProcessRunner

if TYPE_CHECKING:
    from collections.abc import Sequence

    from cluestudio.app.checks import CheckItem
    from cluestudio.app.scoring import ScoredItem
    from cluestudio.core.check.report import CheckReport

# Pairs per scoring chunk in the window: each chunk's end moves the bar and lands its rows
# in the list, so a course shows progress every second or two (the CLI's 50 amortise a
# little better but left the bar at 0/66 for half a minute, issue 24).
WINDOW_SCORE_CHUNK = 4


class Workbench(QObject):
    """The Qt side of the :class:`~cluestudio.app.session.Session`: its changes as the
    ``changed`` signal, and the background work (scoring, checks, prefetch, warm-up) on the
    job runner and the worker process. What the session holds — workspace, grader,
    settings, drafts, undo, the view cache — is the session's: views call
    ``bench.session`` for it."""

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
        self.session = Session(settings)
        self.session.subscribe(self.changed.emit)
        self._score_job: JobHandle | None = None
        self._prefetch_job: JobHandle | None = None
        self._warmed = False
        self._warm_jobs: list[JobHandle] = []
        self._scores_stored.connect(self._on_scores_stored)
        self._checks_stored.connect(
            lambda ids: self.session.note_changes(Changes(checks=frozenset(ids))))
        self._check_job: JobHandle | None = None

    # --- the session's parts, passed through --------------------------------------------

    @property
    def settings(self) -> Settings:
        return self.session.settings

    @settings.setter
    def settings(self, settings: Settings) -> None:
        self.session.apply_settings(settings)

    @property
    def ws(self) -> Workspace | None:
        return self.session.ws

    @ws.setter
    def ws(self, ws: Workspace | None) -> None:  # tests open one without the warm-up
        self.session.ws = ws

    @property
    def drafts(self) -> DraftStore | None:
        return self.session.drafts

    @property
    def cache(self) -> submissions.ViewCache:
        return self.session.cache

    @property
    def default_rubric(self) -> Rubric:
        return self.session.default_rubric

    @property
    def grader(self) -> str:
        return self.session.grader

    def apply_settings(self, settings: Settings) -> bool:
        return self.session.apply_settings(settings)

    # --- workspace ----------------------------------------------------------------------

    def open(self, ws: Workspace) -> None:
        self.close()
        self.session.open(ws)
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
        self.session.close()

    def shutdown(self) -> None:
        """Close the workspace and stop the worker process (the window is closing)."""
        self._warmed = True  # a window closed before its first paint starts nothing
        self.close()
        self.processes.shutdown()

    def prefetch(self, submission_ids: list[int]) -> None:
        """Load these submissions and render their diagrams in the background."""
        if self.ws is None or not submission_ids:
            return
        views = [self.session.view(sid) for sid in submission_ids]  # SQLite reads: ms
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

    # --- background scoring (in the worker process) -------------------------------------

    def score(self, submission_ids: list[int]) -> JobHandle | None:
        """Score these submissions with the configured scoring settings (one job; a new one
        cancels the last). Every chunk is stored as it comes back; ``changed`` follows."""
        ws = self.session.require()
        try:
            options = ScoringOptions.from_settings(self.settings)
        except ClueStudioError as error:
            self.message.emit(str(error))
            return None
        if self._score_job is not None:
            self._score_job.cancel()

        def store(tag: str, chunk: object) -> None:  # on the reader thread
            # plan_and_score_job emits ("scored", chunk) only.
            changed = store_scored(ws, cast("Sequence[ScoredItem]", chunk))
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

    def check(self, submission_ids: list[int], *, pixels: bool = False) -> JobHandle | None:
        """Check these conversions against their image A offline (OCR in the worker
        process, or the PlantUML image A carries), planned as ``cluestudio check
        --workspace`` plans (app/checks.py: what is already checked is shown as stored, not
        read again); each report is stored as it comes and announced as ``changed``.
        ``pixels``: OCR even where image A carries its PlantUML."""
        from cluestudio.app.checks import check_job, plan_checks, store_checked

        ws = self.session.require()
        plan = plan_checks(ws, submission_ids, pixels=pixels)
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
            # check_job emits ("checked", (item, report)) or ("failed", (item, message)).
            if tag == "checked":
                item, report = cast("tuple[CheckItem, CheckReport]", payload)
                store_checked(ws, item, report)
                self._checks_stored.emit(frozenset({item.submission_id}))
            else:
                _item, message = cast("tuple[CheckItem, str]", payload)
                self.problem.emit("check", str(message))

        job = self.processes.submit(check_job,
                                    (str(ws.path), items), {"pixels": pixels},
                                    label=f"check {len(items)} conversion(s)", on_data=keep)
        self._check_job = job
        return job

    def _on_scores_stored(self, ids: frozenset[int]) -> None:
        self.session.note_changes(Changes(label="", scores=frozenset(ids)))

    def _on_scored(self, summary: object) -> None:
        if not isinstance(summary, ScoreSummary):
            return
        for name, message in summary.plugin_errors.items():
            self.plugin_failed.emit(name, message)
        for why in summary.failed.values():
            self.problem.emit("score", why)

"""Tools → Convert / Probe: run a VLM on the current submission's image A in the background.

The controller owns at most one model job (STYLE 7: a new one cancels the old), hands it to
the status bar's job panel for progress and Cancel, and reports the stored outcome. The work
itself is in :mod:`cluestudio.gui.model_jobs` (no Qt).
"""

from __future__ import annotations

from collections.abc import Callable

from cluestudio.core.errors import ClueStudioError
from cluestudio.core.workspace import Changes
from cluestudio.gui import model_jobs
from cluestudio.gui.operations import Workbench
from cluestudio.gui.qt import QAction, QKeySequence, QMenu, QObject, Signal
from cluestudio.gui.worker import BATCH, JobHandle


class ModelActions(QObject):
    """Convert and probe the current submission; ``job_started`` hands the job to tracking."""

    job_started = Signal(object)  # JobHandle, for the job panel (progress, Cancel, errors)
    outcome = Signal(object)  # model_jobs.ModelOutcome, after it is stored
    failed = Signal(str, str)  # label, message: could not even start (no endpoint, no image)

    def __init__(self, bench: Workbench, current_id: Callable[[], int | None],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.bench = bench
        self._current_id = current_id
        self._job: JobHandle | None = None
        self.convert_action = QAction("&Convert image A to PlantUML (VLM)", self)
        self.convert_action.setShortcut(QKeySequence("F7"))
        self.convert_action.triggered.connect(lambda _checked=False: self.convert())
        self.probe_action = QAction("&Probe image A against the PlantUML (VLM)", self)
        self.probe_action.setShortcut(QKeySequence("F8"))
        self.probe_action.triggered.connect(lambda _checked=False: self.probe())
        bench.runner.result.connect(self._on_result)
        bench.runner.finished.connect(self._on_finished)

    def add_to_menu(self, menu: QMenu) -> None:
        menu.addAction(self.convert_action)
        menu.addAction(self.probe_action)

    def busy(self) -> bool:
        return self._job is not None

    def convert(self) -> JobHandle | None:
        return self._start("convert", model_jobs.convert)

    def probe(self) -> JobHandle | None:
        return self._start("probe", model_jobs.probe)

    def cancel(self) -> None:
        if self._job is not None:
            self._job.cancel()

    def _start(self, action: str, job: Callable[..., object]) -> JobHandle | None:
        sid = self._current_id()
        label = f"VLM {action}"
        try:
            ws = self.bench.require()
            if sid is None:
                raise ClueStudioError("no submission is selected")
            backend = model_jobs.make_backend(self.bench.settings)
        except ClueStudioError as error:
            self.failed.emit(label, str(error))
            return None
        self.cancel()
        self._job = self.bench.runner.submit(
            lambda cancel: job(ws, sid, backend, cancel), f"{label} submission {sid}",
            lane=BATCH)
        self.job_started.emit(self._job)
        return self._job

    def _on_result(self, job_id: int, value: object) -> None:
        if self._job is None or job_id != self._job.id:
            return
        self._job = None
        if not isinstance(value, model_jobs.ModelOutcome):
            return
        sid = value.submission_id
        if value.revision_ids:  # new revisions: views redraw through the usual path
            self.bench.note_changes(Changes(label="VLM conversion", revisions=frozenset({sid}),
                                            result=value.revision_ids[-1]))
        else:
            self.bench.cache.drop({sid})
        self.outcome.emit(value)

    def _on_finished(self, job_id: int) -> None:
        if self._job is not None and job_id == self._job.id:
            self._job = None  # cancelled or failed: the job panel reports errors

"""Tools → Convert / Probe: run a VLM on the current submission's image A in the background.

The controller owns at most one model job (STYLE 7: a new one cancels the old), hands it to
the status bar's job panel for progress and Cancel, and reports the stored outcome. The model
call runs in the worker process, planned, asked and stored by the VLM batch's own functions
(:mod:`cluestudio.app.model_jobs`); what it returns is stored here, on the worker's reader
thread, as revisions or a probe result.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from cluestudio.app import model_jobs
from cluestudio.core.errors import ClueStudioError
from cluestudio.core.workspace import Changes
from cluestudio.gui.operations import Workbench
from cluestudio.gui.qt import QObject, Signal
from cluestudio.gui.worker import JobHandle


class ModelActions(QObject):
    """Convert and probe the current submission; ``job_started`` hands the job to tracking."""

    job_started = Signal(object)  # JobHandle, for the job panel (progress, Cancel, errors)
    outcome = Signal(object)  # model_jobs.ModelOutcome, after it is stored
    failed = Signal(str, str)  # label, message: could not even start (no endpoint, no image)
    _stored = Signal(object)  # ModelOutcome, from the reader thread

    def __init__(self, bench: Workbench, current_id: Callable[[], int | None],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.bench = bench
        self._current_id = current_id
        self._job: JobHandle | None = None
        self._stored.connect(self._on_stored)

    def busy(self) -> bool:
        return self._job is not None

    def convert(self) -> JobHandle | None:
        return self._start("convert")

    def probe(self) -> JobHandle | None:
        return self._start("probe")

    def draft_offline(self) -> JobHandle | None:
        """A first draft from class boxes and OCR, no model (core.draft), as a revision."""
        return self._start("convert", offline=True)

    def cancel(self) -> None:
        if self._job is not None:
            self._job.cancel()

    def _start(self, action: str, offline: bool = False) -> JobHandle | None:
        sid = self._current_id()
        label = "offline draft" if offline else f"VLM {action}"
        settings = self.bench.settings
        try:
            ws = self.bench.session.require()
            if sid is None:
                raise ClueStudioError("no submission is selected")
            # An endpoint is configured (say so now if not), and the batch's plan for this
            # one submission says it can be asked (why not, if not).
            model_id = model_jobs.make_backend(settings, offline).model_id
            request = model_jobs.plan_request(ws, action, sid, model_id)
        except ClueStudioError as error:
            self.failed.emit(label, str(error))
            return None
        self.cancel()

        def keep(model_and_result: object) -> None:  # on the reader thread: store, announce
            # The job emits ("answer", (backend.model_id, result)).
            model_id, result = cast("tuple[str, Any]", model_and_result)
            self._stored.emit(model_jobs.store_answer(ws, request, model_id, result))

        job = self.bench.processes.submit(
            model_jobs.ask_job, (request, settings, offline),
            label=f"{label} of {request.item.task_id}/{request.item.source_id}",  # not its id
            on_data=lambda _tag, payload: keep(payload))
        job.finished.connect(lambda h=job: self._on_finished(h))
        self._job = job
        self.job_started.emit(job)
        return job

    def _on_stored(self, value: object) -> None:
        if not isinstance(value, model_jobs.ModelOutcome):
            return
        sid = value.submission_id
        if value.revision_ids:  # new revisions: views redraw through the usual path
            self.bench.session.note_changes(Changes(
                label="VLM conversion", revisions=frozenset({sid}),
                result=value.revision_ids[-1]))
        else:
            self.bench.cache.drop({sid})
        self.outcome.emit(value)

    def _on_finished(self, job: JobHandle) -> None:
        if job is self._job:
            self._job = None  # done, cancelled or failed: the job panel reports errors

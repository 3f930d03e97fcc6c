"""What the worker is doing: a progress bar with Cancel for the status bar, and an error list.

Both only watch a :class:`~cluestudio.gui.worker.JobRunner`'s signals. Only jobs a view asks
to ``track`` show up, so the live preview's many small renders neither flicker the bar nor
fill the error list with half-typed text.
"""

from __future__ import annotations

import time

from cluestudio.gui.qt import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QProgressBar,
    QToolButton,
    QWidget,
    Signal,
)
from cluestudio.gui.worker import JobHandle, JobRunner


class JobStatus(QWidget):
    """Label, progress bar and Cancel button for the tracked job that is running."""

    error_reported = Signal(str, str)  # job label, message

    def __init__(self, runner: JobRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._tracked: dict[int, JobHandle] = {}
        self._running: JobHandle | None = None
        self.label = QLabel()
        self.bar = QProgressBar()
        self.bar.setMaximumWidth(180)
        self.cancel_button = QToolButton()
        self.cancel_button.setText("Cancel")
        self.cancel_button.clicked.connect(self.cancel)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (self.label, self.bar, self.cancel_button):
            layout.addWidget(widget)
        runner.started.connect(self._on_started)
        runner.progress.connect(self._on_progress)
        runner.error.connect(self._on_error)
        runner.finished.connect(self._on_finished)
        self._show(False)

    def track(self, handle: JobHandle) -> JobHandle:
        self._tracked[handle.id] = handle
        return handle

    def cancel(self) -> None:
        for handle in self._tracked.values():
            handle.cancel()

    def busy(self) -> bool:
        return bool(self._tracked)

    def _show(self, visible: bool) -> None:
        for widget in (self.label, self.bar, self.cancel_button):
            widget.setVisible(visible)

    def _on_started(self, job_id: int, label: str) -> None:
        if job_id in self._tracked:
            self._running = self._tracked[job_id]
            self.label.setText(label)
            self.bar.setRange(0, 0)
            self._show(True)

    def _on_progress(self, job_id: int, done: int, total: int, message: str) -> None:
        if job_id in self._tracked:
            if total > 0:
                self.bar.setRange(0, total)
                self.bar.setValue(done)
            if message:
                self.label.setText(f"{self._tracked[job_id].label}: {message}")

    def _on_error(self, job_id: int, message: str) -> None:
        if job_id in self._tracked:
            self.error_reported.emit(self._tracked[job_id].label, message)

    def _on_finished(self, job_id: int) -> None:
        self._tracked.pop(job_id, None)
        if self._running is not None and self._running.id == job_id:
            self._running = None
        if not self._tracked:
            self._show(False)


class ErrorPanel(QListWidget):
    """Errors of background jobs, newest first, so a failed batch is never silent."""

    def add_error(self, label: str, message: str) -> None:
        self.insertItem(0, f"{time.strftime('%H:%M:%S')}  {label}: {message}")
        self.setCurrentRow(0)

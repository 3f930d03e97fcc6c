"""What the background jobs are doing: a progress bar with Cancel for the status bar, and an
error list.

Only jobs a view hands to ``track`` show up (through their own handle's signals), so the live
preview's many small renders neither flicker the bar nor fill the error list with half-typed
text.
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
from cluestudio.gui.worker import JobHandle


class JobStatus(QWidget):
    """Label, progress bar and Cancel button for the tracked job that is running."""

    error_reported = Signal(str, str)  # job label, message

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._tracked: list[JobHandle] = []
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
        self._show(False)

    def track(self, handle: JobHandle | None) -> JobHandle | None:
        """Show ``handle``'s progress and report its error; None (nothing started) is fine."""
        if handle is None or handle.done:
            return handle
        self._tracked.append(handle)
        handle.started.connect(lambda h=handle: self._on_started(h))
        handle.progress.connect(lambda done, total, message, h=handle:
                                self._on_progress(h, done, total, message))
        handle.error.connect(lambda message, h=handle: self.error_reported.emit(h.label, message))
        handle.finished.connect(lambda h=handle: self._on_finished(h))
        return handle

    def cancel(self) -> None:
        for handle in self._tracked:
            handle.cancel()

    def busy(self) -> bool:
        return bool(self._tracked)

    def _show(self, visible: bool) -> None:
        for widget in (self.label, self.bar, self.cancel_button):
            widget.setVisible(visible)

    def _on_started(self, handle: JobHandle) -> None:
        if handle in self._tracked:
            self.label.setText(handle.label)
            self.bar.setRange(0, 0)
            self._show(True)

    def _on_progress(self, handle: JobHandle, done: int, total: int, message: str) -> None:
        if handle in self._tracked:
            if total > 0:
                self.bar.setRange(0, total)
                self.bar.setValue(done)
            if message:
                self.label.setText(f"{handle.label}: {message}")

    def _on_finished(self, handle: JobHandle) -> None:
        if handle in self._tracked:
            self._tracked.remove(handle)
        if not self._tracked:
            self._show(False)


class ErrorPanel(QListWidget):
    """Errors of background jobs, newest first, so a failed batch is never silent."""

    def add_error(self, label: str, message: str) -> None:
        self.insertItem(0, f"{time.strftime('%H:%M:%S')}  {label}: {message}")
        self.setCurrentRow(0)

"""What the background jobs are doing: a progress bar with Cancel for the status bar, and an
error list.

Only jobs a view hands to ``track`` show up (through their own handle's signals), so the live
preview's many small renders neither flicker the bar nor fill the error list with half-typed
text. The label is :class:`cluestudio.core.jobs.PhaseClock`'s, the text the CLI's bar prints:
what the job does now (the phase its ``Progress`` names), how far the whole job is (n/N) and,
once the rate is known, about how long it has left; a phase that reports all of its work done
while the job goes on shows a busy bar, not a full one (no "100%" while a model loads).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from cluestudio.core.jobs import PhaseClock
from cluestudio.gui.qt import (
    QHBoxLayout,
    QListWidget,
    QProgressBar,
    QTimer,
    QToolButton,
    QWidget,
    Signal,
)
from cluestudio.gui.widgets.status_line import ElidedLabel
from cluestudio.gui.worker import JobHandle


class JobStatus(QWidget):
    """Label, progress bar and Cancel button for the tracked job that is running."""

    error_reported = Signal(str, str)  # job label, message

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._tracked: list[JobHandle] = []
        self._clocks: dict[int, PhaseClock] = {}
        self.now: Callable[[], float] = time.monotonic  # the clock the label counts with
        self.label = ElidedLabel(share=0.3)  # the phase's detail gives way on a small screen
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
        self._ticker = QTimer(self)  # the elapsed time and ETA move even between messages
        self._ticker.setInterval(1000)
        self._ticker.timeout.connect(self._redraw)

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
            clock = self._clocks.setdefault(id(handle), PhaseClock())
            clock.update(0, None, "starting", self.now())
            self._show(True)
            self._ticker.start()
            self._redraw()

    def _on_progress(self, handle: JobHandle, done: int, total: int, message: str) -> None:
        if handle in self._tracked:
            clock = self._clocks.setdefault(id(handle), PhaseClock())
            step = handle.last_step
            if step is not None and (step.done, step.message) == (done, message):
                clock.step(step, self.now())
            else:
                clock.update(done, total if total > 0 else None, message or clock.message,
                             self.now())
            self._show(True)
            self._redraw()

    def _redraw(self) -> None:
        """The newest tracked job that has started: its phase, n/N, ETA."""
        shown = next((h for h in reversed(self._tracked) if id(h) in self._clocks), None)
        if shown is None:
            return
        clock = self._clocks[id(shown)]
        if clock.total is None or clock.finished_phase():
            self.bar.setRange(0, 0)  # busy: no amount to show, or this phase's is all done
        else:
            self.bar.setRange(0, clock.total)
            self.bar.setValue(clock.done)
        self.label.setText(clock.text(shown.label, self.now()))

    def text(self) -> str:
        return self.label.text()

    def _on_finished(self, handle: JobHandle) -> None:
        if handle in self._tracked:
            self._tracked.remove(handle)
        self._clocks.pop(id(handle), None)
        if not self._tracked:
            self._ticker.stop()
            self._show(False)
        else:
            self._redraw()


class ErrorPanel(QListWidget):
    """Errors of background jobs, newest first, so a failed batch is never silent."""

    def add_error(self, label: str, message: str) -> None:
        self.insertItem(0, f"{time.strftime('%H:%M:%S')}  {label}: {message}")
        self.setCurrentRow(0)

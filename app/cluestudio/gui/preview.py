"""Live preview: re-render image B shortly after typing stops, off the UI thread.

The editor's debounce decides *when*; this controller owns the one render job of the view
(STYLE practice 7), on the runner's interactive lane so it never waits for a scoring batch:
a newer text cancels the older job and a result that is not for the latest request is
dropped, so a slow render never overwrites a newer picture. ``kind`` is the diagram kind of
the task on screen: for anything but ``class`` the preview function is called with it as a
third argument (no class parse; SysML v2 and code are not rendered at all).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cluestudio.app import preview as previews
from cluestudio.core.jobs import CancelToken
from cluestudio.gui.qt import QElapsedTimer, QObject, Signal
from cluestudio.gui.worker import INTERACTIVE, JobHandle, JobRunner, LatestJob

PreviewFunction = Callable[..., Any]  # (text, cancel[, kind]) -> PreviewResult


class LivePreview(QObject):
    """``request(text)`` → at most one render in flight → ``ready(PreviewResult)``."""

    ready = Signal(object)
    failed = Signal(str)

    def __init__(self, runner: JobRunner, preview: PreviewFunction = previews.preview,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._runner = runner
        self._preview = preview
        self._job = LatestJob()
        self.kind = "class"  # the diagram kind of the text being edited
        self.render = True  # False: parse only (B shows the element diff's rendering)
        self.requests = 0  # for tests and the benchmark: how many jobs were submitted
        self.last_latency_ms = -1.0
        self._clock = QElapsedTimer()

    def request(self, text: str, *, render: bool | None = None) -> JobHandle:
        """Parse ``text`` and render it too (``render`` None: as :attr:`render` says)."""
        self._job.cancel()
        preview, kind = self._preview, self.kind
        render = self.render if render is None else render
        self.requests += 1
        self._clock.restart()

        def job(cancel: CancelToken) -> Any:
            if not render:
                return preview(text, cancel, kind, render=False)
            return preview(text, cancel) if kind == "class" else preview(text, cancel, kind)

        return self._job.start(self._runner.submit(job, "preview", lane=INTERACTIVE),
                               self._on_result, self.failed.emit)

    def cancel(self) -> None:
        self._job.cancel()

    def busy(self) -> bool:
        return self._job.busy()

    def _on_result(self, value: object) -> None:
        self.last_latency_ms = float(self._clock.elapsed())
        self.ready.emit(value)

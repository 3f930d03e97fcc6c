"""The first window: a course's tasks, each task's requirement and its rendered reference.

Rendering runs on the job worker; the view only shows what comes back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cluestudio.core.jobs import CancelToken
from cluestudio.gui.qt import (
    QImage,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QPixmap,
    QProgressBar,
    QScrollArea,
    QSplitter,
    Qt,
    QTextBrowser,
    Signal,
)
from cluestudio.gui.worker import JobHandle, JobRunner


@dataclass(frozen=True)
class TaskEntry:
    id: str
    title: str
    requirement: str  # Markdown
    reference_plantuml: str


class DiagramView(QScrollArea):
    """A scrollable rendered diagram, with the render error shown in place of the image."""

    def __init__(self) -> None:
        super().__init__()
        self.setWidgetResizable(True)
        self.image_label = QLabel("No diagram")
        self.image_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setWidget(self.image_label)
        self.image: QImage | None = None

    def show_png(self, png: bytes) -> None:
        image = QImage.fromData(png)  # the format is sniffed from the bytes
        self.image = image
        self.image_label.setPixmap(QPixmap.fromImage(image))

    def show_message(self, text: str) -> None:
        self.image = None
        self.image_label.setPixmap(QPixmap())
        self.image_label.setText(text)


class FirstWindow(QMainWindow):
    """Task list | requirement text | rendered reference diagram."""

    reference_shown = Signal(str)  # task id, once its diagram is on screen

    def __init__(self, tasks: list[TaskEntry], runner: JobRunner, render_png: Any) -> None:
        super().__init__()
        self.setWindowTitle("ClueStudio")
        self.resize(1200, 760)
        self._tasks = {task.id: task for task in tasks}
        self._runner = runner
        self._render_png = render_png
        self._current_job: JobHandle | None = None
        self._job_task: dict[int, str] = {}

        self.task_list = QListWidget()
        for task in tasks:
            item = QListWidgetItem(task.title)
            item.setData(Qt.ItemDataRole.UserRole, task.id)
            self.task_list.addItem(item)
        self.requirement_view = QTextBrowser()
        self.diagram_view = DiagramView()

        splitter = QSplitter()
        splitter.addWidget(self.task_list)
        splitter.addWidget(self.requirement_view)
        splitter.addWidget(self.diagram_view)
        splitter.setSizes([220, 420, 560])
        self.setCentralWidget(splitter)

        self.progress = QProgressBar()
        self.progress.setMaximumWidth(160)
        self.progress.hide()
        self.statusBar().addPermanentWidget(self.progress)

        runner.started.connect(self._on_started)
        runner.result.connect(self._on_result)
        runner.error.connect(self._on_error)
        runner.finished.connect(self._on_finished)
        self.task_list.currentItemChanged.connect(self._on_task_selected)
        if tasks:
            self.task_list.setCurrentRow(0)

    def _on_task_selected(self, item: QListWidgetItem | None, _previous: object) -> None:
        if item is None:
            return
        task = self._tasks[item.data(Qt.ItemDataRole.UserRole)]
        self.requirement_view.setMarkdown(task.requirement)
        self.diagram_view.show_message("Rendering…")
        # One task per view: a newer selection cancels the render still queued for the old one.
        if self._current_job is not None:
            self._current_job.cancel()
        render = self._render_png
        text = task.reference_plantuml

        def render_reference(_cancel: CancelToken) -> bytes:
            return bytes(render(text))

        self._current_job = self._runner.submit(render_reference, f"render {task.id}")
        self._job_task[self._current_job.id] = task.id

    def _is_current(self, job_id: int) -> bool:
        return self._current_job is not None and self._current_job.id == job_id

    def _on_started(self, job_id: int, label: str) -> None:
        if self._is_current(job_id):
            self.progress.setRange(0, 0)
            self.progress.show()
            self.statusBar().showMessage(label)

    def _on_result(self, job_id: int, png: object) -> None:
        if self._is_current(job_id) and isinstance(png, bytes):
            self.diagram_view.show_png(png)
            self.statusBar().showMessage("Reference rendered", 3000)
            self.reference_shown.emit(self._job_task[job_id])

    def _on_error(self, job_id: int, message: str) -> None:
        if self._is_current(job_id):
            self.diagram_view.show_message(f"Could not render the reference:\n{message}")
            self.statusBar().showMessage(message)

    def _on_finished(self, job_id: int) -> None:
        if self._is_current(job_id):
            self.progress.hide()
        else:
            self._job_task.pop(job_id, None)

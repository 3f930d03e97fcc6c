"""Analysis: where metrics and graders disagree, the correlation table and the report figures.

A dock beside the two modes. Refresh runs :func:`cluestudio.gui.analysis_data.gather` on the
batch lane (one job at a time, STYLE 7); double-clicking (or Return on) a queue row asks the
window to open that submission in grading mode.
"""

from __future__ import annotations

from cluestudio.gui import analysis_data
from cluestudio.gui.operations import Workbench
from cluestudio.gui.qt import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPixmap,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    Qt,
    QTabWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
    Signal,
)
from cluestudio.gui.worker import BATCH, JobHandle

_METRIC_COLUMNS = ["#", "Submission", "Value", "Human", "Predicted", "Residual", "z"]
_GRADER_COLUMNS = ["#", "Submission", "Graders", "Mean", "SD", "Range", "Ratings"]


def _queue_tree(columns: list[str]) -> QTreeWidget:
    tree = QTreeWidget()
    tree.setHeaderLabels(columns)
    tree.setRootIsDecorated(False)
    tree.setAlternatingRowColors(True)
    tree.setColumnWidth(0, 34)
    tree.setColumnWidth(1, 200)
    return tree


class AnalysisView(QWidget):
    """The disagreement queues and figures; ``open_submission`` carries a submission id."""

    open_submission = Signal(int)
    shown = Signal()  # after new analysis data is on screen

    def __init__(self, bench: Workbench, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bench = bench
        self.data: analysis_data.AnalysisData | None = None
        self._job: JobHandle | None = None
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.clicked.connect(self.refresh)
        self.note = QLabel("Refresh to compare metrics with the human ratings.")
        self.note.setWordWrap(True)
        self.metric_box = QComboBox()
        self.metric_box.currentTextChanged.connect(self._fill_metric_queue)
        self.metric_queue = _queue_tree(_METRIC_COLUMNS)
        self.grader_queue = _queue_tree(_GRADER_COLUMNS)
        self.correlations = QPlainTextEdit()
        self.correlations.setReadOnly(True)
        self.correlations.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        font = self.correlations.font()
        font.setFamily("monospace")
        self.correlations.setFont(font)
        self.figures = QWidget()
        self.figures_layout = QVBoxLayout(self.figures)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.figures)

        metric_page = QWidget()
        column = QVBoxLayout(metric_page)
        column.setContentsMargins(2, 2, 2, 2)
        row = QHBoxLayout()
        row.addWidget(QLabel("Metric vs mean human total, largest standardised residual "
                             "first:"))
        row.addWidget(self.metric_box)
        row.addStretch(1)
        column.addLayout(row)
        column.addWidget(self.metric_queue, 1)
        self.tabs = QTabWidget()
        self.tabs.addTab(metric_page, "Metric vs human")
        self.tabs.addTab(self.grader_queue, "Grader disagreement")
        self.tabs.addTab(self.correlations, "Correlations")
        self.tabs.addTab(scroll, "Figures")
        head = QHBoxLayout()
        head.addWidget(self.note, 1)
        head.addWidget(self.refresh_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(head)
        layout.addWidget(self.tabs, 1)

        for tree in (self.metric_queue, self.grader_queue):
            tree.itemActivated.connect(self._on_activated)
            tree.itemDoubleClicked.connect(self._on_activated)
        bench.runner.result.connect(self._on_result)
        bench.runner.error.connect(self._on_error)

    def refresh(self) -> JobHandle | None:
        """Gather the analysis again in the background (cancels a refresh still running)."""
        if self.bench.ws is None:
            return None
        if self._job is not None:
            self._job.cancel()
        ws, rubric = self.bench.ws, self.bench.rubric.id
        self.note.setText("Computing…")
        self._job = self.bench.runner.submit(
            lambda cancel: analysis_data.gather(ws, rubric, cancel), "analysis", lane=BATCH)
        return self._job

    def busy(self) -> bool:
        return self._job is not None

    def _on_result(self, job_id: int, value: object) -> None:
        if self._job is None or job_id != self._job.id:
            return
        self._job = None
        if isinstance(value, analysis_data.AnalysisData):
            self.show_data(value)

    def _on_error(self, job_id: int, message: str) -> None:
        if self._job is not None and job_id == self._job.id:
            self._job = None
            self.note.setText(f"Analysis failed: {message}")

    def show_data(self, data: analysis_data.AnalysisData) -> None:
        self.data = data
        rated = len(data.grader_queue)
        self.note.setText(data.note or f"{len(data.metric_queues)} metric(s); "
                          f"{rated} submission(s) rated by two or more graders.")
        current = self.metric_box.currentText()
        self.metric_box.blockSignals(True)
        self.metric_box.clear()
        self.metric_box.addItems(list(data.metric_queues))
        default = current if current in data.metric_queues else "clue"
        if default in data.metric_queues:
            self.metric_box.setCurrentText(default)
        self.metric_box.blockSignals(False)
        self._fill_metric_queue(self.metric_box.currentText())
        self.grader_queue.clear()
        for entry in data.grader_queue:
            ratings = ", ".join(f"{g} {v:g}" for g, v in sorted(entry.ratings.items()))
            self._add(self.grader_queue, int(entry.id),
                      [str(entry.rank), self._label(entry.id), str(entry.n),
                       f"{entry.mean:.2f}", f"{entry.sd:.2f}", f"{entry.range:.2f}", ratings])
        self.correlations.setPlainText(data.correlations or data.note)
        self._show_figures(data.figures)
        self.shown.emit()

    def _label(self, sid: str) -> str:
        assert self.data is not None
        return self.data.labels.get(int(sid), sid)

    def _fill_metric_queue(self, metric: str) -> None:
        self.metric_queue.clear()
        if self.data is None:
            return
        for entry in self.data.metric_queues.get(metric, []):
            self._add(self.metric_queue, int(entry.id),
                      [str(entry.rank), self._label(entry.id), f"{entry.value:.3f}",
                       f"{entry.human:.2f}", f"{entry.predicted:.2f}", f"{entry.residual:+.2f}",
                       f"{entry.standardised:+.2f}"])

    @staticmethod
    def _add(tree: QTreeWidget, sid: int, cells: list[str]) -> None:
        item = QTreeWidgetItem(cells)
        item.setData(0, Qt.ItemDataRole.UserRole, sid)
        item.setToolTip(1, "Double-click or Return: open in grading mode")
        tree.addTopLevelItem(item)

    def _show_figures(self, figures: dict[str, bytes]) -> None:
        while self.figures_layout.count():
            taken = self.figures_layout.takeAt(0)
            widget = taken.widget() if taken is not None else None
            if widget is not None:
                widget.deleteLater()
        for name, png in figures.items():
            picture = QLabel()
            picture.setObjectName(f"figure-{name}")
            pixmap = QPixmap()
            pixmap.loadFromData(png, "PNG")
            picture.setPixmap(pixmap)
            self.figures_layout.addWidget(QLabel(f"<b>{name}</b>"))
            self.figures_layout.addWidget(picture)
        if not figures:
            self.figures_layout.addWidget(QLabel("No figures: too few rated, scored "
                                                 "submissions."))
        self.figures_layout.addStretch(1)

    def _on_activated(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        sid = item.data(0, Qt.ItemDataRole.UserRole)
        if sid is not None:
            self.open_submission.emit(int(sid))

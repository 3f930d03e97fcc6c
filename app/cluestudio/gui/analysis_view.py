"""Analysis: where metrics and graders disagree, inter-rater agreement, the correlation table
and the report figures.

A dock beside the two modes. Refresh runs :func:`cluestudio.app.analysis.gather` on the
batch lane (one job at a time, STYLE 7); double-clicking (or Return on) a queue row asks the
window to open that submission in grading mode. The Agreement tab shows Krippendorff's α
(interval and ordinal side by side, each column saying which), ICC and weighted κ of the
graders on the total and on each rubric item (overview), per grader pair and per grader for
the chosen score.

With blind grading on, no metric value of a submission this grader has not rated is shown:
the metric queue lists only submissions they rated, and the correlations and figures (which
pool every submission) wait until blind grading is turned off.
"""

from __future__ import annotations

import math

from cluestudio.app import analysis as analysis_data
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
from cluestudio.gui.worker import JobHandle, LatestJob

_BLIND_NOTE = ("Blind grading is on: correlations and figures pool the metric values of "
               "every submission, so they stay hidden until blind grading is turned off "
               "(View → Blind grading).")
_METRIC_COLUMNS = ["#", "Submission", "Value", "Human", "Predicted", "Residual", "z"]
_METRIC_TIPS = {
    "Value": "the metric's value on the submission's current PlantUML",
    "Human": "the mean of the graders' totals",
    "Predicted": "the human total the metric's linear fit predicts (a straight line: it may "
                 "leave the rubric's range)",
    "Residual": "human − predicted: where the metric and the humans disagree",
    "z": "the residual in standard deviations of all residuals",
}
# The report's figure names, as a reader would title them.
FIGURE_TITLES = {
    "scatter": "Each metric against the human total, with its linear fit",
    "residuals": "What each fit misses (human − predicted), per submission",
    "tasks": "Correlation with the human total, per task",
}
_GRADER_COLUMNS = ["#", "Submission", "Graders", "Mean", "SD", "Range", "Ratings"]
_SCOPE_COLUMNS = ["Score", "Shared submissions", "Graders", "Ratings", "α (interval)",
                  "α (ordinal)", "ICC(2,k)", "ICC(2,1)", "mean κw"]
_SCOPE_HELP = ["The rubric total or one rubric item",
              "Submissions rated by two or more graders: the only ones agreement can use",
              "Graders with at least one rating of this score",
              "Every rating of this score, including those of submissions only one grader "
              "rated",
              "Krippendorff's α, interval distances", "Krippendorff's α, ordinal distances",
              "Reliability of the mean of the graders", "Reliability of one grader",
              "Quadratic weighted κ averaged over grader pairs"]
_PAIR_COLUMNS = ["Grader pair", "n", "α (interval)", "α (ordinal)", "ICC(2,k)", "κ linear",
                 "κ quadratic"]
_RATER_COLUMNS = ["Grader", "n", "Mean", "SD", "Shared", "Bias", "MAE", "r vs others",
                  "α without (interval)", "mean κw"]


def _num(value: float, digits: int = 3) -> str:
    return f"{value:.{digits}f}" if math.isfinite(value) else "–"


def _table(columns: list[str], first: int = 120) -> QTreeWidget:
    tree = QTreeWidget()
    tree.setHeaderLabels(columns)
    tree.setRootIsDecorated(False)
    tree.setAlternatingRowColors(True)
    tree.setColumnWidth(0, first)
    return tree


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
        self._job = LatestJob()
        self.blind = False
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.clicked.connect(self.refresh)
        self.note = QLabel("Refresh to compare metrics with the human ratings.")
        self.note.setWordWrap(True)
        self.metric_box = QComboBox()
        self.metric_box.currentTextChanged.connect(self._fill_metric_queue)
        self.metric_queue = _queue_tree(_METRIC_COLUMNS)
        for index, name in enumerate(_METRIC_COLUMNS):
            if name in _METRIC_TIPS:
                self.metric_queue.headerItem().setToolTip(index, _METRIC_TIPS[name])
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
        self.figures_page = scroll
        self.agreement_page = self._agreement_page()

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
        self.tabs.addTab(self.agreement_page, "Agreement")
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

    def _agreement_page(self) -> QWidget:
        page = QWidget()
        column = QVBoxLayout(page)
        column.setContentsMargins(2, 2, 2, 2)
        self.agreement_note = QLabel("")
        self.agreement_note.setWordWrap(True)
        self.agreement_scope = QComboBox()
        self.agreement_scope.currentIndexChanged.connect(self._fill_agreement)
        self.agreement_overview = _table(_SCOPE_COLUMNS)
        self.agreement_overview.setToolTip(
            "Krippendorff's α for interval data and for ordinal data (rubric scores are "
            "ordinal: only their order counts, not the spacing of the steps); missing "
            "ratings allowed. ICC(2,k): "
            "reliability of the mean of the k graders, ICC(2,1): of one grader (Shrout & "
            "Fleiss 1979; complete rows only); mean κw: quadratic weighted κ averaged over "
            "grader pairs.")
        header = self.agreement_overview.headerItem()
        for index, why in enumerate(_SCOPE_HELP):
            header.setToolTip(index, why)
        self.agreement_overview.currentItemChanged.connect(self._on_scope_row)
        self.agreement_pairs = _table(_PAIR_COLUMNS, 160)
        self.agreement_graders = _table(_RATER_COLUMNS)
        self.agreement_graders.setToolTip(
            "Bias and MAE: this grader minus the mean of the other graders on shared "
            "submissions; r: correlation with that mean; α without: the others' α, so a "
            "grader whose removal raises α stands out; mean κw: quadratic κ over this "
            "grader's pairs.")
        column.addWidget(self.agreement_note)
        column.addWidget(self.agreement_overview, 1)
        row = QHBoxLayout()
        row.addWidget(QLabel("Per grader pair and per grader, on:"))
        row.addWidget(self.agreement_scope)
        row.addStretch(1)
        column.addLayout(row)
        column.addWidget(self.agreement_pairs, 2)
        column.addWidget(QLabel("Each grader against the mean of the others:"))
        column.addWidget(self.agreement_graders, 2)
        return page

    def clear(self) -> None:
        """Forget the last workspace's analysis (another one was opened)."""
        self._job.cancel()
        self.data = None
        self.metric_box.clear()
        for tree in (self.metric_queue, self.grader_queue, self.agreement_overview,
                     self.agreement_pairs, self.agreement_graders):
            tree.clear()
        self.agreement_scope.clear()
        self.correlations.clear()
        self._show_figures({})
        self.note.setText("Refresh to compare metrics with the human ratings.")

    def set_blind(self, blind: bool) -> None:
        """Hide (or show again) every metric value of submissions this grader has not rated."""
        self.blind = blind
        if self.data is not None:
            self.show_data(self.data)

    def refresh(self) -> JobHandle | None:
        """Gather the analysis again in the background (cancels a refresh still running)."""
        if self.bench.ws is None:
            return None
        self._job.cancel()
        ws, rubric = self.bench.ws, self.bench.default_rubric
        self.note.setText("Computing…")
        # In the worker process, on a read-only view of the file: scipy and matplotlib would
        # hold this process's GIL for seconds.
        job = self.bench.processes.submit(analysis_data.gather_job,
                                          (str(ws.path), rubric.id), label="analysis")
        return self._job.start(job, self._on_result, self._on_error)

    def busy(self) -> bool:
        return self._job.busy()

    def _on_result(self, value: object) -> None:
        if isinstance(value, analysis_data.AnalysisData):
            self.show_data(value)

    def _on_error(self, message: str) -> None:
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
        if self.blind:
            self.correlations.setPlainText(_BLIND_NOTE)
            self._show_figures({}, _BLIND_NOTE)
        else:
            self.correlations.setPlainText(data.correlations or data.note)
            self._show_figures(data.figures)
        self._show_agreement(data)
        self.shown.emit()

    def _show_agreement(self, data: analysis_data.AnalysisData) -> None:
        self.agreement_note.setText(data.agreement_note or (
            "How far graders agree on the submissions they share. Shared submissions: "
            "rated by two or more graders (the only ones agreement can use); Ratings: every "
            "rating of that score. Select a row for its grader pairs and graders."))
        current = self.agreement_scope.currentData()
        self.agreement_overview.blockSignals(True)
        self.agreement_scope.blockSignals(True)
        self.agreement_overview.clear()
        self.agreement_scope.clear()
        for scope in data.agreement:
            report, icc = scope.report, scope.report.icc
            mean_kappa = _mean([p.kappa_quadratic for p in scope.pairs])
            item = QTreeWidgetItem([scope.label, str(scope.pairable), str(len(report.graders)),
                                    str(report.ratings), _num(report.alpha_interval),
                                    _num(report.alpha_ordinal), _num(icc.icc2k),
                                    _num(icc.icc21), _num(mean_kappa)])
            item.setData(0, Qt.ItemDataRole.UserRole, scope.key)
            self.agreement_overview.addTopLevelItem(item)
            self.agreement_scope.addItem(scope.label, scope.key)
        index = max(0, self.agreement_scope.findData(current))
        self.agreement_scope.setCurrentIndex(index if data.agreement else -1)
        self.agreement_overview.blockSignals(False)
        self.agreement_scope.blockSignals(False)
        self._fill_agreement(self.agreement_scope.currentIndex())

    def _scope(self) -> analysis_data.AgreementScope | None:
        if self.data is None:
            return None
        key = self.agreement_scope.currentData()
        return next((s for s in self.data.agreement if s.key == key), None)

    def _on_scope_row(self, item: QTreeWidgetItem | None, _previous: object = None) -> None:
        if item is not None:
            index = self.agreement_scope.findData(item.data(0, Qt.ItemDataRole.UserRole))
            if index >= 0:
                self.agreement_scope.setCurrentIndex(index)

    def _fill_agreement(self, _index: int = 0) -> None:
        self.agreement_pairs.clear()
        self.agreement_graders.clear()
        scope = self._scope()
        if scope is None:
            return
        row = self.agreement_overview.topLevelItem(self.agreement_scope.currentIndex())
        if row is not None and self.agreement_overview.currentItem() is not row:
            self.agreement_overview.blockSignals(True)
            self.agreement_overview.setCurrentItem(row)
            self.agreement_overview.blockSignals(False)
        for pair in scope.pairs:
            self.agreement_pairs.addTopLevelItem(QTreeWidgetItem(
                [f"{pair.first} / {pair.second}", str(pair.n), _num(pair.alpha_interval),
                 _num(pair.alpha_ordinal), _num(pair.icc2k), _num(pair.kappa_linear),
                 _num(pair.kappa_quadratic)]))
        for grader in scope.report.per_grader:
            self.agreement_graders.addTopLevelItem(QTreeWidgetItem(
                [grader.grader, str(grader.n), _num(grader.mean, 2), _num(grader.sd, 2),
                 str(grader.shared), _num(grader.bias, 2), _num(grader.mae, 2),
                 _num(grader.pearson), _num(grader.alpha_without),
                 _num(scope.kappa_by_grader.get(grader.grader, math.nan))]))

    def _label(self, sid: str) -> str:
        assert self.data is not None
        return self.data.labels.get(int(sid), sid)

    def _fill_metric_queue(self, metric: str) -> None:
        self.metric_queue.clear()
        if self.data is None:
            return
        mine = self.bench.session.rated_by_me() if self.blind else None
        for entry in self.data.metric_queues.get(metric, []):
            if mine is not None and int(entry.id) not in mine:
                continue  # blind: no value of a submission this grader has not rated
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

    def _show_figures(self, figures: dict[str, bytes], empty: str = "") -> None:
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
            title = QLabel(f"<b>{FIGURE_TITLES.get(name, name)}</b>")
            title.setObjectName(f"figure-title-{name}")
            self.figures_layout.addWidget(title)
            self.figures_layout.addWidget(picture)
        if not figures:
            self.figures_layout.addWidget(QLabel(empty or "No figures: too few rated, "
                                                 "scored submissions."))
        self.figures_layout.addStretch(1)

    def _on_activated(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        sid = item.data(0, Qt.ItemDataRole.UserRole)
        if sid is not None:
            self.open_submission.emit(int(sid))


def _mean(values: list[float]) -> float:
    good = [v for v in values if math.isfinite(v)]
    return sum(good) / len(good) if good else math.nan

"""The submission list shared by both modes: filter, sort, next/previous, next unrated.

A table (submission, my rating, verdict, CLUE, conversion check) over a model, so refreshing
a thousand rows after a scoring chunk is a data change, not a rebuild. Sorting is done by the
model in Python when the grader clicks a header (a proxy's sort would call ``data()`` ten
thousand times); rows whose values change keep their place until the next sort, so the list
does not jump under the grader while a batch lands. With blind grading on,
no metric value of a submission this grader has not rated is shown, sorted on or filtered by.
It shows what the workbench reports and says which submission is current; it never writes.
"""

from __future__ import annotations

from dataclasses import replace

from cluestudio.gui.qt import (
    QAbstractItemView,
    QComboBox,
    QFormLayout,
    QHeaderView,
    QLabel,
    QModelIndex,
    QSortFilterProxyModel,
    Qt,
    QTableView,
    QVBoxLayout,
    QWidget,
    Signal,
)
from cluestudio.gui.submission_model import (
    CHECKS,
    COLUMNS,
    SCORES,
    SORT_ROLE,  # noqa: F401 - offered here, where the list's callers look for it
    STATES,
    AnyIndex,
    Row,
    SubmissionModel,
    keep,
)


class _Filter(QSortFilterProxyModel):
    """Filters only; keeps the model's order (the model sorts itself, see the module)."""

    def __init__(self, navigator: Navigator) -> None:
        super().__init__(navigator)
        self.filters: tuple[str, str, str, str] = ("all", "all", "any", "any")

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        source = self.sourceModel()
        if source is not None:
            source.sort(column, order)

    def filterAcceptsRow(self, source_row: int, source_parent: AnyIndex) -> bool:
        model = self.sourceModel()
        assert isinstance(model, SubmissionModel)
        return keep(model.rows[source_row], *self.filters, blind=model.blind)


class Navigator(QWidget):
    """Filters over the submissions; ``current_changed`` carries the submission id,
    ``emptied`` says no submission is current any more (nothing listed)."""

    current_changed = Signal(int)
    emptied = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("navigator")
        self.task_box = QComboBox()
        self.state_box = QComboBox()
        self.score_box = QComboBox()
        self.check_box = QComboBox()
        for box, options in ((self.state_box, STATES), (self.score_box, SCORES),
                             (self.check_box, CHECKS)):
            for key, text in options:
                box.addItem(text, key)
        for box in (self.task_box, self.state_box, self.score_box, self.check_box):
            box.setMinimumContentsLength(8)
            box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.model = SubmissionModel(self)
        self.proxy = _Filter(self)
        self.proxy.setSourceModel(self.model)
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # keep the source id
        self.table.setAlternatingRowColors(True)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        # widths fitted by fit_columns: ResizeToContents would measure every row again on
        # each dataChanged, which stalled the window for seconds while 1,000 scores came in
        for column in range(1, len(COLUMNS)):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
        header.setMinimumSectionSize(30)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.count_label = QLabel()
        form = QFormLayout()
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow("Task", self.task_box)
        form.addRow("State", self.state_box)
        form.addRow("Score", self.score_box)
        form.addRow("Check", self.check_box)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(form)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.count_label)
        for box in (self.task_box, self.state_box, self.score_box, self.check_box):
            box.currentIndexChanged.connect(self._apply_filters)
        self.table.selectionModel().currentRowChanged.connect(self._on_current)
        self._last_emitted: int | None = None

    # --- content ------------------------------------------------------------------------

    def filters(self) -> tuple[str, str, str, str]:
        return (self.task_box.currentData() or "all", self.state_box.currentData() or "all",
                self.score_box.currentData() or "any", self.check_box.currentData() or "any")

    def set_rows(self, rows: list[Row], tasks: list[tuple[str, str]], *,
                 reset: bool = False) -> None:
        """Replace the rows, keeping the filters and (if still listed) the current one.

        ``reset`` (another workspace): nothing of the old list is kept, and the first
        submission becomes current with a ``current_changed`` even if its id is the same
        number as the old current one's (ids are per workspace).
        """
        current = None if reset else self.current_id()
        if reset:
            self._last_emitted = None
            for box in (self.state_box, self.score_box, self.check_box):
                box.blockSignals(True)
                box.setCurrentIndex(0)
                box.blockSignals(False)
        task = "all" if reset else (self.task_box.currentData() or "all")
        self.task_box.blockSignals(True)
        self.task_box.clear()
        self.task_box.addItem("All tasks", "all")
        for task_id, title in tasks:
            self.task_box.addItem(title, task_id)
        self.task_box.setCurrentIndex(max(0, self.task_box.findData(task)))
        self.task_box.blockSignals(False)
        self.proxy.filters = self.filters()
        self.table.selectionModel().blockSignals(True)
        self.model.set_rows(rows)  # a reset: the proxy sorts and filters them once
        self.fit_columns(rows, shrink=True)
        self._restore_current(current)

    def update_rows(self, rows: list[Row]) -> bool:
        """New values for some listed submissions (a scoring chunk, a rating): updated in
        place, the current one kept if the filters still list it. False when one of them
        is not listed yet (then call :meth:`set_rows`)."""
        if not self.model.replace(rows):
            return False
        self.fit_columns(rows)
        self._after_change()
        return True

    def fit_columns(self, rows: list[Row], *, shrink: bool = False) -> None:
        """Widen the value columns to their header and to the widest text of ``rows``
        (``shrink``: ``rows`` is the whole list, so a column may also get narrower)."""
        metrics, header = self.table.fontMetrics(), self.table.horizontalHeader()
        style = self.table.style()
        margin = 2 * style.pixelMetric(style.PixelMetric.PM_FocusFrameHMargin) + 10
        for column in range(1, len(COLUMNS)):
            texts = {self.model.text(row, column) for row in rows}
            wanted = max([header.sectionSizeHint(column)]
                         + [metrics.horizontalAdvance(t) + margin for t in texts])
            if shrink or wanted > self.table.columnWidth(column):
                self.table.setColumnWidth(column, wanted)

    def set_blind(self, blind: bool) -> None:
        self.model.set_blind(blind)
        self.score_box.setEnabled(not blind)
        self.score_box.setToolTip("Blind grading: scores stay hidden until you rate"
                                  if blind else "")
        self.proxy.invalidate()
        self.fit_columns(self.model.rows, shrink=True)

    def row(self, submission_id: int) -> Row | None:
        return self.model.row_of(submission_id)

    def mark_draft(self, submission_id: int, draft: bool) -> None:
        """Show (or clear) the unsaved-draft mark of one row."""
        row = self.model.row_of(submission_id)
        if row is not None and row.draft != draft:
            self.model.replace([replace(row, draft=draft)])

    def ids(self) -> list[int]:
        """The listed submissions, in the order shown."""
        return [int(self.proxy.index(r, 0).data(Qt.ItemDataRole.UserRole))
                for r in range(self.proxy.rowCount())]

    def current_id(self) -> int | None:
        index = self.table.currentIndex()
        return None if not index.isValid() else int(index.data(Qt.ItemDataRole.UserRole))

    def position(self) -> tuple[int, int]:
        """(1-based place of the current submission in the list, listed count)."""
        index = self.table.currentIndex()
        return (index.row() + 1 if index.isValid() else 0), self.proxy.rowCount()

    # --- moving -------------------------------------------------------------------------

    def select(self, submission_id: int, reveal: bool = False) -> bool:
        """Make ``submission_id`` current; ``reveal`` clears filters that hide it."""
        place = self._place(submission_id)
        if place is None and reveal and self.row(submission_id) is not None:
            for box in (self.task_box, self.state_box, self.score_box, self.check_box):
                box.blockSignals(True)
                box.setCurrentIndex(0)
                box.blockSignals(False)
            self._apply_filters()
            place = self._place(submission_id)
        if place is None:
            return False
        self._set_row(place)
        return True

    def step(self, delta: int) -> bool:
        row = self.table.currentIndex().row() + delta
        if 0 <= row < self.proxy.rowCount():
            self._set_row(row)
            return True
        return False

    def next_unrated(self) -> bool:
        """Move to the next listed submission this grader has not rated (wrapping around)."""
        rated = {r.summary.id for r in self.model.rows if r.rated}
        ids = self.ids()
        start = self.table.currentIndex().row()
        for offset in range(1, len(ids) + 1):
            index = (start + offset) % len(ids)
            if ids[index] not in rated:
                self._set_row(index)
                return True
        return False

    def neighbours(self, count: int = 2) -> list[int]:
        """Ids after the current one, for prefetching."""
        row = self.table.currentIndex().row()
        last = min(self.proxy.rowCount(), row + 1 + count)
        return [int(self.proxy.index(r, 0).data(Qt.ItemDataRole.UserRole))
                for r in range(row + 1, last)]

    def _set_row(self, row: int) -> None:
        self.table.setCurrentIndex(self.proxy.index(row, 0))
        self.table.scrollTo(self.proxy.index(row, 0))

    def _apply_filters(self, *_: object, keep_current: int | None = None) -> None:
        """The filter boxes changed (or the rows were replaced): filter again, keep the
        current submission if it is still listed, else the first listed one."""
        keep_current = keep_current if keep_current is not None else self.current_id()
        self.proxy.filters = self.filters()
        self.table.selectionModel().blockSignals(True)
        self.proxy.invalidate()
        self._restore_current(keep_current)

    def _restore_current(self, keep_current: int | None) -> None:
        """After the listed rows changed (signals of the selection blocked by the caller):
        the same current submission if listed, else the first one."""
        place = self._place(keep_current) if keep_current is not None else None
        if place is not None:
            self.table.setCurrentIndex(self.proxy.index(place, 0))
        self.table.selectionModel().blockSignals(False)
        if place is None and self.proxy.rowCount():
            self._set_row(0)
        elif place is None:
            self.table.setCurrentIndex(QModelIndex())
        self._after_change()

    def _place(self, submission_id: int) -> int | None:
        """The row the proxy shows ``submission_id`` at, if it is listed."""
        source = self.model._where.get(submission_id)
        if source is None:
            return None
        index = self.proxy.mapFromSource(self.model.index(source, 0))
        return index.row() if index.isValid() else None

    def _after_change(self) -> None:
        """Count label, and tell the window if the current submission changed or went."""
        rated = sum(1 for r in self.model.rows if r.rated)
        self.count_label.setText(f"{self.proxy.rowCount()} of {len(self.model.rows)} listed · "
                                 f"{rated} rated by you")
        current = self.current_id()
        if current is None:
            if self.proxy.rowCount():
                self._set_row(0)  # the current one was filtered out: the first listed
                return
            had_current, self._last_emitted = self._last_emitted, None
            if had_current is not None:
                self.emptied.emit()
        elif current != self._last_emitted:
            self._last_emitted = current
            self.current_changed.emit(current)

    def _on_current(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if current.isValid():
            sid = int(current.data(Qt.ItemDataRole.UserRole))
            if sid != self._last_emitted:
                self._last_emitted = sid
                self.current_changed.emit(sid)

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

from dataclasses import dataclass, replace
from typing import Any

from cluestudio.app.submissions import ListRow
from cluestudio.core.workspace import SubmissionSummary
from cluestudio.gui.qt import (
    QAbstractItemView,
    QAbstractTableModel,
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

STATES = (("all", "All"), ("unrated", "Not rated by me"), ("rated", "Rated by me"),
          ("unreviewed", "No verdict"), ("needs_fix", "Needs fix"), ("unusable", "Unusable"))
SCORES = (("any", "Any CLUE"), ("none", "Not scored"), ("low", "CLUE < 0.5"),
          ("mid", "CLUE 0.5–0.8"), ("high", "CLUE ≥ 0.8"))
CHECKS = (("any", "Any check"), ("flagged", "Check: flagged"), ("clear", "Check: clear"),
          ("unchecked", "Not checked"))
COLUMNS = ("Submission", "Mine", "Rev.", "CLUE", "OCR")
COLUMN_TIPS = ("Task · submission",
               "Your rating total (✓; ≈: applied from a near-identical submission's rating "
               "to its group), or \"draft\": a rubric you started and did not save",
               "Review verdicts: ✓ accepted, ⚠ needs fix, ✗ unusable",
               "The current CLUE score (hidden by blind grading until you rate)",
               "Offline conversion check: how much the PlantUML and image A disagree "
               "(⚑ flagged: look first)")
VERDICT_MARKS = {"accept": "✓", "needs_fix": "⚠", "unusable": "✗"}
SORT_ROLE = Qt.ItemDataRole.UserRole + 1


@dataclass(frozen=True)
class Row:
    summary: SubmissionSummary
    total: float | None  # this grader's rating total, None when not rated
    rated: bool
    clue: float | None
    triage: float | None = None  # the offline conversion check: 0 (fine) .. 1 (look first)
    flagged: bool | None = None  # None: not checked (or its revision changed since)
    draft: bool = False  # this grader has an unsaved rubric draft here
    group_from: str | None = None  # my rating was applied from this submission's (a group)

    @classmethod
    def of(cls, listed: ListRow, draft: bool = False) -> Row:
        return cls(listed.summary, listed.total, listed.rated, listed.clue, listed.triage,
                   listed.flagged, draft, listed.group_from)


def keep(row: Row, task: str, state: str, score: str, check: str = "any",
         blind: bool = False) -> bool:
    """Whether ``row`` passes the filters (pure, so it is tested without Qt). Blind grading
    ignores the score filter for rows this grader has not rated: no value may leak."""
    s = row.summary
    if task != "all" and s.task_id != task:
        return False
    verdicts = set(s.verdicts)
    if (state == "unrated" and row.rated) or (state == "rated" and not row.rated):
        return False
    if state == "unreviewed" and verdicts:
        return False
    if state in ("needs_fix", "unusable") and state not in verdicts:
        return False
    if check == "flagged" and row.flagged is not True:
        return False
    if check == "clear" and row.flagged is not False:
        return False
    if check == "unchecked" and row.flagged is not None:
        return False
    if blind and not row.rated:
        return True
    clue = row.clue
    if score == "none":
        return clue is None
    if score == "low":
        return clue is not None and clue < 0.5
    if score == "mid":
        return clue is not None and 0.5 <= clue < 0.8
    if score == "high":
        return clue is not None and clue >= 0.8
    return True


class SubmissionModel(QAbstractTableModel):
    """The rows, one per submission; text and sort keys per column."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows: list[Row] = []
        self._where: dict[int, int] = {}  # submission id -> row
        self.blind = False
        self._column, self._order = 0, Qt.SortOrder.AscendingOrder

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: B008 - Qt's API
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.ToolTipRole:
            return COLUMN_TIPS[section]
        return None

    def hidden(self, row: Row) -> bool:
        return self.blind and not row.rated

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row, column = self.rows[index.row()], index.column()
        if role == Qt.ItemDataRole.UserRole:
            return row.summary.id
        if role == Qt.ItemDataRole.DisplayRole:
            return self.text(row, column)
        if role == SORT_ROLE:
            return self._sort_key(row, column)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(row)
        if role == Qt.ItemDataRole.TextAlignmentRole and column > 0:
            return int(Qt.AlignmentFlag.AlignCenter)
        return None

    def text(self, row: Row, column: int) -> str:
        s = row.summary
        if column == 0:
            return f"{s.task_id} · {s.source_id}"
        if column == 1:
            if row.rated:
                mark = " ≈" if row.group_from is not None else ""
                return (f"✓ {row.total:.0f}" if row.total is not None else "✓") + mark
            return "draft" if row.draft else ""
        if column == 2:
            return "".join(VERDICT_MARKS.get(v, "?") for v in sorted(set(s.verdicts)))
        if column == 3:
            if row.clue is None:
                return ""
            return "·" if self.hidden(row) else f"{row.clue:.2f}"
        if row.flagged is None:
            return ""
        return f"⚑ {row.triage:.2f}" if row.flagged else f"{row.triage:.2f}"

    def _sort_key(self, row: Row, column: int) -> Any:
        if column == 0:
            return f"{row.summary.task_id}\t{row.summary.source_id}"
        if column == 1:
            return row.total if row.total is not None else -1.0
        if column == 2:
            return self.text(row, 2)
        if column == 3:
            return -1.0 if row.clue is None or self.hidden(row) else row.clue
        return -1.0 if row.triage is None else row.triage

    def _tooltip(self, row: Row) -> str:
        s = row.summary
        parts = [f"{s.task_id} · {s.source_id}", f"origin: {s.origin}",
                 f"revisions: {s.revisions}"]
        if row.rated:
            parts.append("rated by you" + (f": {row.total:.1f}" if row.total is not None
                                          else ""))
            if row.group_from is not None:
                parts.append(f"≈ applied from your rating of {row.group_from} to its group of "
                             "near-identical submissions; saving here makes it this one's own")
        elif row.draft:
            parts.append("an unsaved rubric draft of yours")
        if row.clue is not None and not self.hidden(row):
            parts.append(f"CLUE {row.clue:.3f}")
        if row.flagged is not None:
            parts.append(f"conversion check: triage {row.triage:.2f}"
                         + (" (flagged: look first)" if row.flagged else ""))
        return "\n".join(parts)

    def set_rows(self, rows: list[Row]) -> None:
        self.beginResetModel()
        self.rows = sorted(rows, key=self._key, reverse=self._descending)
        self._where = {r.summary.id: i for i, r in enumerate(self.rows)}
        self.endResetModel()

    def _key(self, row: Row) -> tuple[Any, str, str]:
        return (self._sort_key(row, self._column), row.summary.task_id, row.summary.source_id)

    @property
    def _descending(self) -> bool:
        return self._order == Qt.SortOrder.DescendingOrder

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort the rows (the view's header click); selection and current row follow."""
        self._column, self._order = column, order
        self.layoutAboutToBeChanged.emit()
        before = self.persistentIndexList()
        ids = [self.rows[i.row()].summary.id for i in before]
        self.rows.sort(key=self._key, reverse=self._descending)
        self._where = {r.summary.id: i for i, r in enumerate(self.rows)}
        self.changePersistentIndexList(before, [self.index(self._where[sid], i.column())
                                                for sid, i in zip(ids, before, strict=True)])
        self.layoutChanged.emit()

    def row_of(self, submission_id: int) -> Row | None:
        index = self._where.get(submission_id)
        return None if index is None else self.rows[index]

    def replace(self, rows: list[Row]) -> bool:
        """New values for some listed submissions, in place: a data change per row (the
        proxy re-sorts and re-filters just those), no reset. False if one is not listed."""
        if any(r.summary.id not in self._where for r in rows):
            return False
        for new in rows:
            index = self._where[new.summary.id]
            if self.rows[index] != new:
                self.rows[index] = new
                self.dataChanged.emit(self.index(index, 0),
                                      self.index(index, len(COLUMNS) - 1))
        return True

    def set_blind(self, blind: bool) -> None:
        self.blind = blind
        if self.rows:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self.rows) - 1,
                                                               len(COLUMNS) - 1))
            # Sorted by a value blind grading now hides, the order itself would tell it.
            self.sort(self._column, self._order)


class _Filter(QSortFilterProxyModel):
    """Filters only; keeps the model's order (the model sorts itself, see the module)."""

    def __init__(self, navigator: Navigator) -> None:
        super().__init__(navigator)
        self.filters: tuple[str, str, str, str] = ("all", "all", "any", "any")

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        source = self.sourceModel()
        if source is not None:
            source.sort(column, order)

    def filterAcceptsRow(self, source_row: int, source_parent: QModelIndex) -> bool:
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

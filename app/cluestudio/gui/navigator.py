"""The submission list shared by both modes: filter by task, state and score; next/previous.

It shows what the workbench reports and says which submission is current; it never writes.
"""

from __future__ import annotations

from dataclasses import dataclass

from cluestudio.core.workspace import SubmissionSummary
from cluestudio.gui.qt import (
    QComboBox,
    QFormLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    Qt,
    QVBoxLayout,
    QWidget,
    Signal,
)

STATES = (("all", "All"), ("unrated", "Not rated by me"), ("rated", "Rated by me"),
          ("unreviewed", "No verdict"), ("needs_fix", "Needs fix"), ("unusable", "Unusable"))
SCORES = (("any", "Any CLUE"), ("none", "Not scored"), ("low", "CLUE < 0.5"),
          ("mid", "CLUE 0.5–0.8"), ("high", "CLUE ≥ 0.8"))


@dataclass(frozen=True)
class Row:
    summary: SubmissionSummary
    total: float | None  # this grader's rating total, None when not rated
    rated: bool
    clue: float | None


def keep(row: Row, task: str, state: str, score: str) -> bool:
    """Whether ``row`` passes the three filters (pure, so it is tested without Qt)."""
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


class Navigator(QWidget):
    """Filters over a list of submissions; ``current_changed`` carries the submission id."""

    current_changed = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("navigator")
        self.task_box = QComboBox()
        self.state_box = QComboBox()
        self.score_box = QComboBox()
        for box, options in ((self.state_box, STATES), (self.score_box, SCORES)):
            for key, text in options:
                box.addItem(text, key)
        self.list = QListWidget()
        self.count_label = QLabel()
        form = QFormLayout()
        form.addRow("Task", self.task_box)
        form.addRow("State", self.state_box)
        form.addRow("Score", self.score_box)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(form)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.count_label)
        self._rows: list[Row] = []
        for box in (self.task_box, self.state_box, self.score_box):
            box.currentIndexChanged.connect(self._apply_filters)
        self.list.currentItemChanged.connect(self._on_current)

    def set_rows(self, rows: list[Row], tasks: list[tuple[str, str]]) -> None:
        """Replace the rows, keeping the filters and (if still listed) the current one."""
        current = self.current_id()
        self._rows = rows
        task = self.task_box.currentData() or "all"
        self.task_box.blockSignals(True)
        self.task_box.clear()
        self.task_box.addItem("All tasks", "all")
        for task_id, title in tasks:
            self.task_box.addItem(title, task_id)
        self.task_box.setCurrentIndex(max(0, self.task_box.findData(task)))
        self.task_box.blockSignals(False)
        self._apply_filters(keep_current=current)

    def ids(self) -> list[int]:
        return [self.list.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.list.count())]

    def current_id(self) -> int | None:
        item = self.list.currentItem()
        return None if item is None else int(item.data(Qt.ItemDataRole.UserRole))

    def select(self, submission_id: int, reveal: bool = False) -> bool:
        """Make ``submission_id`` current; ``reveal`` clears filters that hide it."""
        ids = self.ids()
        if submission_id not in ids and reveal and any(r.summary.id == submission_id
                                                      for r in self._rows):
            for box in (self.task_box, self.state_box, self.score_box):
                box.blockSignals(True)
                box.setCurrentIndex(0)
                box.blockSignals(False)
            self._apply_filters()
            ids = self.ids()
        if submission_id not in ids:
            return False
        self.list.setCurrentRow(ids.index(submission_id))
        return True

    def step(self, delta: int) -> bool:
        row = self.list.currentRow() + delta
        if 0 <= row < self.list.count():
            self.list.setCurrentRow(row)
            return True
        return False

    def next_unrated(self) -> bool:
        """Move to the next listed submission this grader has not rated (wrapping around)."""
        rated = {r.summary.id for r in self._rows if r.rated}
        ids = self.ids()
        start = self.list.currentRow()
        for offset in range(1, len(ids) + 1):
            index = (start + offset) % len(ids)
            if ids[index] not in rated:
                self.list.setCurrentRow(index)
                return True
        return False

    def neighbours(self, count: int = 2) -> list[int]:
        """Ids after the current one, for prefetching."""
        row = self.list.currentRow()
        return self.ids()[row + 1: row + 1 + count]

    def _apply_filters(self, *_: object, keep_current: int | None = None) -> None:
        keep_current = keep_current if keep_current is not None else self.current_id()
        task = self.task_box.currentData() or "all"
        state = self.state_box.currentData() or "all"
        score = self.score_box.currentData() or "any"
        self.list.blockSignals(True)
        self.list.clear()
        for row in self._rows:
            if not keep(row, task, state, score):
                continue
            s = row.summary
            marks = []
            if row.rated:
                marks.append(f"✓ {row.total:.0f}" if row.total is not None else "✓")
            if s.verdicts:
                marks.append("/".join(sorted(set(s.verdicts))))
            if row.clue is not None:
                marks.append(f"CLUE {row.clue:.2f}")
            item = QListWidgetItem(f"{s.task_id} · {s.source_id}"
                                   + (f"   [{', '.join(marks)}]" if marks else ""))
            item.setData(Qt.ItemDataRole.UserRole, s.id)
            item.setToolTip(f"origin: {s.origin}; revisions: {s.revisions}")
            self.list.addItem(item)
        self.list.blockSignals(False)
        self.count_label.setText(f"{self.list.count()} of {len(self._rows)} submissions")
        if keep_current is not None and keep_current in self.ids():
            self.list.blockSignals(True)
            self.list.setCurrentRow(self.ids().index(keep_current))
            self.list.blockSignals(False)
        elif self.list.count():
            self.list.setCurrentRow(0)

    def _on_current(self, item: QListWidgetItem | None, _previous: object) -> None:
        if item is not None:
            self.current_changed.emit(int(item.data(Qt.ItemDataRole.UserRole)))

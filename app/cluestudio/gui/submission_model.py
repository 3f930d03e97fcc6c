"""The navigator's rows and the table model over them: what each column shows, how rows sort
(in Python, on a header click) and which rows a filter keeps; blind grading hides metric
values of submissions this grader has not rated.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeAlias

from cluestudio.app.submissions import ListRow
from cluestudio.core.workspace import SubmissionSummary
from cluestudio.gui.qt import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    QWidget,
)

STATES = (("all", "All"), ("unrated", "Not rated by me"), ("rated", "Rated by me"),
          ("unreviewed", "No verdict"), ("needs_fix", "Needs fix"), ("unusable", "Unusable"))
SCORES = (("any", "Any CLUE"), ("none", "Not scored"), ("low", "CLUE < 0.5"),
          ("mid", "CLUE 0.5–0.8"), ("high", "CLUE ≥ 0.8"))
CHECKS = (("any", "Any check"), ("flagged", "Check: flagged"), ("clear", "Check: clear"),
          ("unchecked", "Not checked"))
COLUMNS = ("Submission", "Mine", "Rev.", "CLUE", "OCR")
COLUMN_TIPS = ("Task · submission",
               "Your rating total (✓; ≈: applied to its group from another submission's "
               "rating), or \"draft\": a rubric you started and did not save",
               "Review verdicts: ✓ accepted, ⚠ needs fix, ✗ unusable",
               "The current CLUE score (hidden by blind grading until you rate)",
               "Offline conversion check: how much the PlantUML and image A disagree "
               "(⚑ flagged: look first; ?: it could not judge, look yourself; a number "
               "with ?: some names it read it did not judge, see the tooltip)")
# A check that reached no verdict by names (could not judge, another language): a mark of
# its own, no triage number; sorted above every judged triage (0..1), since a person must
# look at each of them, and kept together rather than among the flags.
UNJUDGED_MARK = "?"
UNJUDGED_SORT = 2.0
VERDICT_MARKS = {"accept": "✓", "needs_fix": "⚠", "unusable": "✗"}
SORT_ROLE = Qt.ItemDataRole.UserRole + 1
# What Qt hands a model's overrides: either kind of index.
AnyIndex: TypeAlias = QModelIndex | QPersistentModelIndex


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
    unjudged: str = ""  # the check's reason when it could not judge ("": it judged)
    from_source: bool = False  # the check compared with the PlantUML image A carries
    not_judged: tuple[str, ...] = ()  # what a check that judged did not weigh

    @classmethod
    def of(cls, listed: ListRow, draft: bool = False) -> Row:
        return cls(listed.summary, listed.total, listed.rated, listed.clue, listed.triage,
                   listed.flagged, draft, listed.group_from, listed.unjudged,
                   listed.from_source, listed.not_judged)


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

    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008 - Qt's API
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008
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

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
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
        if row.unjudged:
            return UNJUDGED_MARK  # no number: the check did not judge
        partly = " ?" if row.not_judged else ""  # a low triage is no word on those names
        return (f"⚑ {row.triage:.2f}" if row.flagged else f"{row.triage:.2f}") + partly

    def _sort_key(self, row: Row, column: int) -> Any:
        if column == 0:
            return f"{row.summary.task_id}\t{row.summary.source_id}"
        if column == 1:
            return row.total if row.total is not None else -1.0
        if column == 2:
            return self.text(row, 2)
        if column == 3:
            return -1.0 if row.clue is None or self.hidden(row) else row.clue
        if row.unjudged:
            return UNJUDGED_SORT
        return -1.0 if row.triage is None or row.flagged is None else row.triage

    def _tooltip(self, row: Row) -> str:
        s = row.summary
        parts = [f"{s.task_id} · {s.source_id}", f"origin: {s.origin}",
                 f"revisions: {s.revisions}"]
        if row.rated:
            parts.append("rated by you" + (f": {row.total:.1f}" if row.total is not None
                                          else ""))
            if row.group_from is not None:
                parts.append(f"≈ applied from your rating of {row.group_from} to its group "
                             "(the same diagram, or differences you accepted); saving here "
                             "makes it this one's own")
        elif row.draft:
            parts.append("an unsaved rubric draft of yours")
        if row.clue is not None and not self.hidden(row):
            parts.append(f"CLUE {row.clue:.3f}")
        if row.unjudged:
            parts.append(f"conversion check: {row.unjudged} (look at it yourself)")
        elif row.flagged is not None:
            parts.append(f"conversion check: triage {row.triage:.2f}"
                         + (" (flagged: look first)" if row.flagged else "")
                         + ("; compared with the PlantUML image A carries" if row.from_source
                            else "")
                         + "".join(f"\n  ? {sentence}" for sentence in row.not_judged))
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

"""The adjudication queue in the window (issue 27): overlapping ratings that differ by more
than the course's threshold, worst first, the graders' ratings and comments side by side;
the lead takes one grader's rating (Return on it) or types a total. Identities of students
never appear here, only task and submission ids."""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING, Any

from cluestudio.core.errors import ClueStudioError
from cluestudio.core.rubric import get_rubric
from cluestudio.core.workspace.adjudication import Adjudicate, adjudication_queue
from cluestudio.gui.qt import (
    QDialog,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    Qt,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)
from cluestudio.gui.screen_fit import resize_within_screen

if TYPE_CHECKING:
    from cluestudio.app.session import Session

_ROLE = Qt.ItemDataRole.UserRole


class AdjudicationDialog(QDialog):
    def __init__(self, session: Session, parent: QWidget) -> None:
        super().__init__(parent)
        self.session = session
        self.setWindowTitle("Adjudication queue")
        self.queue = QListWidget()
        self.detail = QTextBrowser()
        self.ratings = QListWidget()
        self.status = QLabel("")
        self.agreement = QLabel("")
        for label in (self.status, self.agreement):
            label.setTextFormat(Qt.TextFormat.PlainText)  # names and errors from packs
        total = QPushButton("Enter a &total…")
        total.setAutoDefault(False)  # Return takes the rating in focus, nothing else
        layout = QVBoxLayout(self)
        layout.addWidget(self.agreement)
        layout.addWidget(QLabel("Submissions whose graders disagree, widest first; Return on "
                                "a rating below takes it as the final one:"))
        row = QHBoxLayout()
        row.addWidget(self.queue, 1)
        row.addWidget(self.detail, 2)
        layout.addLayout(row, 1)
        self.ratings.setMaximumHeight(90)
        layout.addWidget(self.ratings)
        layout.addWidget(total)
        layout.addWidget(self.status)
        self.queue.currentRowChanged.connect(lambda _row: self.show_entry())
        self.ratings.itemActivated.connect(lambda entry: self.take(entry.data(_ROLE)))
        total.clicked.connect(self.enter_total)
        self.reload()
        resize_within_screen(self, 900, 600)

    def reload(self) -> None:
        from cluestudio.core.workspace.team import overlap_agreement

        ws = self.session.require()
        report = overlap_agreement(ws)
        self.agreement.setText(
            "No submission was rated by two graders yet." if report is None else
            f"Agreement on the {report.items} submissions rated twice: Krippendorff's α "
            f"{report.alpha_interval:.2f} (interval), ICC(2,1) {report.icc.icc21:.2f}")
        self.queue.clear()
        for entry in adjudication_queue(ws):
            item = QListWidgetItem(f"{entry.task_id} · {entry.source_id}  "
                                   f"({entry.spread:g} points apart)")
            item.setData(_ROLE, entry)
            self.queue.addItem(item)
        self.status.setText(f"{self.queue.count()} waiting" if self.queue.count()
                            else "Nothing waits for adjudication")
        self.queue.setCurrentRow(0)

    def entry(self) -> Any:
        current = self.queue.currentItem()
        return current.data(_ROLE) if current is not None else None

    def show_entry(self) -> None:
        entry = self.entry()
        self.ratings.clear()
        if entry is None:
            self.detail.clear()
            return
        try:
            items = [(i.id, i.label) for i in get_rubric(entry.rubric_id).items]
        except ClueStudioError:
            items = [(k, k) for k in sorted({k for r in entry.ratings for k in r.scores})]
        head = "".join(f"<th>{escape(r.grader)}</th>" for r in entry.ratings)
        rows = "".join(
            f"<tr><td>{escape(label)}</td>" + "".join(
                f"<td>{r.scores.get(item, '–')}</td>" for r in entry.ratings) + "</tr>"
            for item, label in items)
        rows += "<tr><td><b>total</b></td>" + "".join(
            f"<td><b>{r.adjusted:g}</b></td>" for r in entry.ratings) + "</tr>"
        notes = "".join(
            f"<p><b>{escape(r.grader)}</b>: {escape(r.comment or '(no overall comment)')}<br>"
            + "<br>".join(f"{escape(item)}: {escape('; '.join(texts))}"
                for item, texts in entry.item_comments.get(r.grader, {}).items()) + "</p>"
            for r in entry.ratings)
        self.detail.setHtml(f"<table border=1 cellpadding=4><tr><th></th>{head}</tr>{rows}"
                            f"</table>{notes}")
        for rating in entry.ratings:
            item = QListWidgetItem(f"Take {rating.grader}'s rating ({rating.adjusted:g})")
            item.setData(_ROLE, rating)
            self.ratings.addItem(item)

    def _record(self, command: Adjudicate) -> None:
        try:
            self.session.run(command)  # undoable (Ctrl+Z in the window)
        except ClueStudioError as error:
            self.status.setText(str(error))
            return
        self.reload()

    def take(self, rating: Any) -> None:
        entry = self.entry()
        if entry is not None:
            self._record(Adjudicate(entry.submission_id, self.session.grader,
                                    scores=rating.scores or None, total=rating.adjusted,
                                    comment=rating.comment, rubric_id=entry.rubric_id))

    def enter_total(self) -> None:
        entry = self.entry()
        if entry is None:
            return
        value, ok = QInputDialog.getDouble(self, "Final total", "Total (0–100)", 0, 0, 100, 2)
        if ok:
            self._record(Adjudicate(entry.submission_id, self.session.grader,
                                    total=value, rubric_id=entry.rubric_id))

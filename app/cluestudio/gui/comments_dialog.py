"""Comments on the submission being graded, from the keyboard (issue 27).

Grade → Comments and feedback (Ctrl+M) opens this for the submission on screen and the
grader at the keyboard: pick the rubric item (Alt+I, or Up/Down in the list), type a comment
and press Return, or insert a bank comment of that item (Alt+B, then its number 1–9 or
Return); Ctrl+B files the typed text in the bank, F2 on a bank comment edits it for every
submission that uses it; Delete takes a comment back. The overall comment (Alt+O) is saved
with Ctrl+Return. "Suggest" (Alt+S) lists what the element diff finds; a suggestion reaches
the student only after Return on it (accept). Every change is an undoable command, drawn
again from the database.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cluestudio.core.errors import ClueStudioError
from cluestudio.core.workspace.feedback import (
    AddItemComment,
    RemoveItemComment,
    SaveBankComment,
    SetOverallComment,
    comment_bank,
    item_comments,
)
from cluestudio.gui.qt import (
    QDialog,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    Qt,
    QVBoxLayout,
    QWidget,
)
from cluestudio.gui.screen_fit import resize_within_screen

if TYPE_CHECKING:
    from cluestudio.app.session import Session

_ROLE = Qt.ItemDataRole.UserRole


class CommentsDialog(QDialog):
    def __init__(self, session: Session, parent: QWidget, submission_id: int, rubric: Any,
                 title: str) -> None:
        super().__init__(parent)
        self.session, self.sid, self.rubric = session, submission_id, rubric
        self.grader = session.grader
        self.setWindowTitle(f"Comments and feedback: {title}")
        self.items = QListWidget()
        for item in rubric.items:
            entry = QListWidgetItem(f"{item.label}")
            entry.setData(_ROLE, item.id)
            self.items.addItem(entry)
        self.comments = QListWidget()
        self.text = QLineEdit()
        self.text.setPlaceholderText("Type a comment on this item, Return adds it")
        self.points = QDoubleSpinBox()
        self.points.setRange(-rubric.total_max, rubric.total_max)
        self.points.setDecimals(1)
        self.bank = QListWidget()
        for listed in (self.comments, self.bank):
            # a comment is read whole: wrapped, never cut behind a horizontal scroll bar
            listed.setWordWrap(True)
            listed.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.suggestions = QListWidget()
        self.overall = QPlainTextEdit()
        self.overall.setPlaceholderText("Overall comment (Ctrl+Return saves)")
        self.status = QLabel("")
        self.status.setTextFormat(Qt.TextFormat.PlainText)  # errors may quote what was typed
        suggest = QPushButton("&Suggest from the element diff")
        to_bank = QPushButton("File in the bank (Ctrl+B)")
        save_overall = QPushButton("Save the overall comment (Ctrl+Return)")
        for button in (suggest, to_bank, save_overall):
            button.setAutoDefault(False)  # Return belongs to the field or list with focus
        form = QFormLayout()
        form.addRow(self._label("Rubric &item", self.items), self.items)
        form.addRow(self._label("Comments", self.comments), self.comments)
        form.addRow(self._label("&New comment", self.text), self.text)
        row = QHBoxLayout()
        row.addWidget(QLabel("Points (bank)"))
        row.addWidget(self.points)
        row.addWidget(to_bank)
        form.addRow("", row)
        form.addRow(self._label("&Bank (1–9 inserts)", self.bank), self.bank)
        form.addRow(suggest, self.suggestions)
        form.addRow(self._label("&Overall", self.overall), self.overall)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(save_overall)
        layout.addWidget(self.status)
        self.items.currentRowChanged.connect(lambda _row: self.redraw())
        self.text.returnPressed.connect(self.add_typed)
        to_bank.clicked.connect(self.add_to_bank)
        save_overall.clicked.connect(self.save_overall)
        suggest.clicked.connect(self.suggest)
        self.bank.itemActivated.connect(lambda entry: self.insert_bank(entry.data(_ROLE)))
        self.suggestions.itemActivated.connect(lambda entry: self.accept_suggestion(
            entry.data(_ROLE)))
        for widget in (self.bank, self.comments, self.overall, self.text):
            widget.installEventFilter(self)  # the dialog's keys, where they are typed
        rating = session.require().rating(submission_id, self.grader, rubric.id)
        self.overall.setPlainText(rating.comment if rating else "")
        self.items.setCurrentRow(0)
        resize_within_screen(self, 640, 720)

    @staticmethod
    def _label(text: str, buddy: Any) -> QLabel:
        label = QLabel(text)
        label.setBuddy(buddy)
        return label

    # --- the item on screen ----------------------------------------------------------------

    def item_id(self) -> str:
        entry = self.items.currentItem()
        return str(entry.data(_ROLE)) if entry is not None else self.rubric.items[0].id

    def redraw(self) -> None:
        ws = self.session.require()
        self.comments.clear()
        for comment in item_comments(ws, self.sid, self.grader):
            if comment.item_id == self.item_id() and comment.rubric_id == self.rubric.id:
                points = f" ({comment.points:+g})" if comment.points else ""
                entry = QListWidgetItem(f"{comment.text}{points}")
                entry.setToolTip(comment.text)
                entry.setData(_ROLE, comment.uid)
                self.comments.addItem(entry)
        self.bank.clear()
        for number, bank in enumerate(comment_bank(ws, self.rubric.id, self.item_id()), 1):
            points = f" ({bank.points:+g})" if bank.points else ""
            entry = QListWidgetItem(f"{number}. {bank.text}{points}  · used {bank.uses}×")
            entry.setToolTip(bank.text)
            entry.setData(_ROLE, bank.uid)
            self.bank.addItem(entry)

    def _run(self, command: Any) -> Any:
        try:
            changes = self.session.run(command)  # undoable, views redraw
        except ClueStudioError as error:
            self.status.setText(str(error))
            return None
        self.status.setText(changes.label)
        self.redraw()
        return changes

    # --- actions -------------------------------------------------------------------------

    def add_typed(self) -> None:
        if self.text.text().strip() and self._run(AddItemComment(
                self.sid, self.grader, self.rubric.id, self.item_id(), text=self.text.text())):
            self.text.clear()

    def insert_bank(self, uid: str) -> None:
        self._run(AddItemComment(self.sid, self.grader, self.rubric.id, self.item_id(),
                                 bank_uid=uid))

    def add_to_bank(self) -> None:
        if self.text.text().strip() and self._run(SaveBankComment(
                self.rubric.id, self.item_id(), self.text.text(), self.points.value(),
                actor=self.grader)):
            self.text.clear()

    def edit_bank(self, uid: str) -> None:
        current = {b.uid: b for b in comment_bank(self.session.require())}[uid]
        text, ok = QInputDialog.getText(self, "Edit bank comment",
                                        f"Used {current.uses}×; the edit reaches every use",
                                        text=current.text)
        if ok and text.strip():
            self._run(SaveBankComment(current.rubric_id, current.item_id, text, current.points,
                                      uid=uid, actor=self.grader))

    def save_overall(self) -> None:
        self._run(SetOverallComment(self.sid, self.grader, self.rubric.id,
                                    self.overall.toPlainText()))

    def suggest(self) -> None:
        from cluestudio.app.feedback_suggestions import suggest

        try:
            found = suggest(self.session.require(), self.sid, self.grader)
        except ClueStudioError as error:
            self.status.setText(str(error))
            return
        self.suggestions.clear()
        for suggestion in found:
            entry = QListWidgetItem(f"[{suggestion.item_id}] {suggestion.text}")
            entry.setData(_ROLE, suggestion)
            self.suggestions.addItem(entry)
        self.status.setText(f"{len(found)} suggestions: Return accepts one, nothing else "
                            "reaches the student")
        self.suggestions.setFocus()

    def accept_suggestion(self, suggestion: Any) -> None:
        if self._run(AddItemComment(self.sid, self.grader, self.rubric.id, suggestion.item_id,
                                    text=suggestion.text, origin="suggestion")):
            self.suggestions.takeItem(self.suggestions.currentRow())

    def eventFilter(self, watched: Any, event: Any) -> bool:
        from cluestudio.gui.qt import QEvent

        if event.type() != QEvent.Type.KeyPress:
            return False
        key, text = event.key(), event.text()
        ctrl = bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier)
        if watched is self.overall and ctrl and key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.save_overall()
            return True
        if watched is self.text and ctrl and key == Qt.Key.Key_B:
            self.add_to_bank()
            return True
        if watched is self.bank:
            entry = self.bank.currentItem()
            if text.isdigit() and 1 <= int(text) <= self.bank.count():
                self.insert_bank(self.bank.item(int(text) - 1).data(_ROLE))
                return True
            if key == Qt.Key.Key_F2 and entry is not None:
                self.edit_bank(entry.data(_ROLE))
                return True
        if watched is self.comments and key == Qt.Key.Key_Delete:
            entry = self.comments.currentItem()
            if entry is not None:
                self._run(RemoveItemComment(entry.data(_ROLE)))
                return True
        return False

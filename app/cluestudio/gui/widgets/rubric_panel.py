"""The rubric panel: score each rubric item by keyboard, write a comment, see the total.

Keys (while the panel has focus): an item's letter selects it, a digit sets its score and
moves to the next item, ``.`` adds half a point where the scale allows it, ``+``/``-`` step,
Up/Down move, Backspace clears, ``*`` gives every item full marks (then adjust what lost
points), Return saves and moves to the next unrated submission, Ctrl+Return saves and stays.
Time spent is measured from :meth:`RubricPanel.load` so graders never type it.
"""

from __future__ import annotations

from collections.abc import Mapping

from cluestudio.core.rubric import Rubric, RubricItem
from cluestudio.gui.qt import (
    QButtonGroup,
    QElapsedTimer,
    QFrame,
    QGridLayout,
    QKeyEvent,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    Qt,
    QVBoxLayout,
    QWidget,
    Signal,
)
from cluestudio.gui.widgets.flow_layout import FlowLayout


def scale_values(item: RubricItem) -> list[float]:
    """Every score the item's scale allows, low to high."""
    values = []
    steps = round((item.scale.max - item.scale.min) / item.scale.step)
    for i in range(steps + 1):
        values.append(round(item.scale.min + i * item.scale.step, 6))
    return values


def _fmt(value: float) -> str:
    return f"{value:g}"


class _ItemRow(QFrame):
    """One rubric item: key, label, and a button per allowed score."""

    def __init__(self, item: RubricItem, on_pick, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.item = item
        self.setObjectName("rubricItem")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.key_label = QLabel(f"[{item.key}]" if item.key else "")
        self.key_label.setObjectName("rubricKey")
        self.title = QLabel(item.label)
        tip = item.description
        if item.scale.labels:
            tip += "\n" + ", ".join(f"{k} = {v}" for k, v in item.scale.labels.items())
        self.setToolTip(tip)
        self.buttons = QButtonGroup(self)
        self.buttons.setExclusive(True)
        # The buttons wrap onto a second row in a narrow column (0..4 by 0.5 is 9 buttons).
        buttons = QWidget(self)
        button_row = FlowLayout(buttons, spacing=2)
        for value in scale_values(item):
            button = QPushButton(_fmt(value))
            button.setCheckable(True)
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # keys belong to the panel
            button.setFixedWidth(34 if item.scale.step < 1 else 28)
            label = item.scale.labels.get(_fmt(value))
            if label:
                button.setToolTip(label)
            button.clicked.connect(lambda _=False, v=value: on_pick(item.id, v))
            self.buttons.addButton(button)
            button_row.addWidget(button)
        layout = QGridLayout(self)
        layout.setContentsMargins(6, 3, 6, 3)
        layout.addWidget(self.key_label, 0, 0)
        layout.addWidget(self.title, 0, 1)
        layout.addWidget(buttons, 1, 0, 1, 2)
        layout.setColumnStretch(1, 1)

    def show_value(self, value: float | None) -> None:
        for button in self.buttons.buttons():
            button.setChecked(value is not None and button.text() == _fmt(value))
        if value is None:
            # An exclusive group cannot uncheck its last button; switch it off briefly.
            self.buttons.setExclusive(False)
            for button in self.buttons.buttons():
                button.setChecked(False)
            self.buttons.setExclusive(True)

    def set_selected(self, selected: bool) -> None:
        self.setProperty("selected", selected)
        font = self.title.font()
        font.setBold(selected)
        self.title.setFont(font)
        self.title.setText(("▶ " if selected else "") + self.item.label)
        self.style().unpolish(self)
        self.style().polish(self)


class RubricPanel(QWidget):
    """Scores for one submission against one rubric; emits ``changed`` and
    ``save_requested(advance)`` (advance: move to the next unrated submission after saving)."""

    changed = Signal()
    save_requested = Signal(bool)

    def __init__(self, rubric: Rubric, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("rubricPanel")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.rubric = rubric
        self._scores: dict[str, float] = {}
        self._selected = 0
        self._clock = QElapsedTimer()
        self._clock.start()
        self._seconds_before = 0.0  # time from earlier visits to the same submission

        self.title = QLabel()
        self.title.setObjectName("rubricTitle")
        self._rows: list[_ItemRow] = []
        self._items = QVBoxLayout()  # the item rows: rebuilt when the rubric changes
        self._items.setContentsMargins(0, 0, 0, 0)
        self.comment = QPlainTextEdit()
        self.comment.setPlaceholderText("Comment for the student (optional)")
        self.comment.setMaximumHeight(90)
        self.comment.setTabChangesFocus(True)
        self.comment.textChanged.connect(self.changed)
        self.total_label = QLabel()
        self.total_label.setObjectName("rubricTotal")
        self.draft_label = QLabel("Unsaved draft, kept until you save")
        self.draft_label.setObjectName("draftBadge")
        self.draft_label.setVisible(False)
        self.full_marks = QPushButton("All full marks (*)")
        self.full_marks.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.full_marks.clicked.connect(self.give_full_marks)
        self.save_next = QPushButton("Save and next unrated (Enter)")
        self.save_next.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.save_next.clicked.connect(lambda: self.save_requested.emit(True))
        self.hint = QLabel("letter: item · digit: score · . half · *: all full marks · "
                           "Enter: save and next · Ctrl+Enter: save")
        self.hint.setObjectName("hint")
        self.hint.setWordWrap(True)

        # The items and the comment scroll; the total and the save buttons stay in sight
        # below them however short the column is (1366×768).
        body = QWidget()
        body_layout = QVBoxLayout(body)
        body_layout.setContentsMargins(0, 0, 0, 0)
        body_layout.addLayout(self._items)
        self.comment_label = QLabel("Comment")
        body_layout.addWidget(self.comment_label)
        body_layout.addWidget(self.comment)
        body_layout.addStretch(1)
        self.scroll_area = QScrollArea()
        self.scroll_area.setWidget(body)
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QScrollArea.Shape.NoFrame)
        self.scroll_area.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # keys belong to the panel
        self.scroll_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        buttons = QWidget()
        button_row = FlowLayout(buttons, spacing=4)
        button_row.addWidget(self.full_marks)
        button_row.addWidget(self.save_next)

        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(self.scroll_area, 1)
        layout.addWidget(self.total_label)
        layout.addWidget(self.draft_label)
        layout.addWidget(buttons)
        layout.addWidget(self.hint)
        self.set_rubric(rubric)

    def set_rubric(self, rubric: Rubric) -> None:
        """Grade with ``rubric`` from now on (a task of another diagram kind is shown): its
        items replace the old ones and nothing is scored until :meth:`load`."""
        if self._rows and rubric.id == self.rubric.id:
            return
        self.rubric = rubric
        self.title.setText(f"<b>{rubric.title}</b>")
        self.title.setToolTip(f"Rubric {rubric.id!r} (version {rubric.version}): the one "
                              "tasks of this diagram kind are graded with")
        for row in self._rows:
            self._items.removeWidget(row)
            row.deleteLater()
        self._rows = [_ItemRow(item, self.set_score, self) for item in rubric.items]
        for row in self._rows:
            self._items.addWidget(row)
        self._scores = {}
        self._selected = 0
        self._refresh()

    def set_comment_key(self, key: str) -> None:
        """Name the key that reaches the comment box (Go menu; a ``[keys]`` table may
        move it)."""
        self.comment_label.setText(f"Comment ({key})" if key else "Comment")

    def focus_comment(self) -> None:
        """Scroll the comment box into view and type there (Tab returns to the items)."""
        self.scroll_area.ensureWidgetVisible(self.comment)
        self.comment.setFocus()

    def item_labels(self) -> list[str]:
        """The items on screen, in order (what the grader scores)."""
        return [row.item.label for row in self._rows]

    # --- state --------------------------------------------------------------------------

    def load(self, scores: Mapping[str, float] | None = None, comment: str = "",
             seconds: float | None = None, *, draft: bool = False) -> None:
        """Show a submission's saved rating (or none, or an unsaved ``draft`` of it) and
        restart the clock; the first item not scored yet is selected."""
        self._scores = {k: float(v) for k, v in (scores or {}).items()}
        self.comment.blockSignals(True)
        self.comment.setPlainText(comment)
        self.comment.blockSignals(False)
        self._seconds_before = float(seconds or 0.0)
        self._clock.restart()
        missing = [i for i, item in enumerate(self.rubric.items) if item.id not in self._scores]
        self._selected = missing[0] if missing and self._scores else 0
        self.draft_label.setVisible(draft)
        self._refresh()

    def mark_draft(self, draft: bool) -> None:
        self.draft_label.setVisible(draft)

    def give_full_marks(self) -> None:
        """Every item at its scale's maximum (the preset most submissions start from)."""
        self._scores = {item.id: item.scale.max for item in self.rubric.items}
        self._refresh()
        self.changed.emit()

    def scores(self) -> dict[str, float]:
        return dict(self._scores)

    def comment_text(self) -> str:
        return self.comment.toPlainText().strip()

    def is_complete(self) -> bool:
        return all(item.id in self._scores for item in self.rubric.items)

    def total(self) -> float | None:
        return self.rubric.total(self._scores) if self.is_complete() else None

    def seconds(self) -> float:
        """Time spent on this submission so far, including earlier visits."""
        return self._seconds_before + self._clock.elapsed() / 1000.0

    def selected_item(self) -> RubricItem:
        return self.rubric.items[self._selected]

    def select(self, index: int) -> None:
        self._selected = max(0, min(len(self.rubric.items) - 1, index))
        self._refresh()

    def set_score(self, item_id: str, value: float | None) -> bool:
        """Set (or clear, with None) one item's score; False when the scale refuses it."""
        item = self.rubric.item(item_id)
        if value is None:
            self._scores.pop(item_id, None)
        else:
            if not item.scale.contains(value):  # out of range or off-step: ignore the key
                return False
            self._scores[item_id] = value
        self._refresh()
        self.changed.emit()
        return True

    # --- keys ---------------------------------------------------------------------------

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if self.handle_key(event.key(), event.text(), event.modifiers()):
            event.accept()
        else:
            super().keyPressEvent(event)

    def handle_key(self, key: int, text: str, modifiers=Qt.KeyboardModifier.NoModifier) -> bool:
        """Apply one key press; True when the panel used it."""
        ctrl = bool(modifiers & Qt.KeyboardModifier.ControlModifier)
        item = self.selected_item()
        current = self._scores.get(item.id)
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and not (
                modifiers & Qt.KeyboardModifier.AltModifier):
            self.save_requested.emit(not ctrl)  # Return: save and next; Ctrl+Return: save
            return True
        if text == "*" and not ctrl:
            self.give_full_marks()
            return True
        if ctrl or (modifiers & Qt.KeyboardModifier.AltModifier):
            return False
        if key == Qt.Key.Key_Down:
            self.select(self._selected + 1)
        elif key == Qt.Key.Key_Up:
            self.select(self._selected - 1)
        elif key == Qt.Key.Key_Backspace:
            self.set_score(item.id, None)
        elif text and text.isdigit():
            if self.set_score(item.id, float(text)) and item.scale.step >= 1:
                self.select(self._selected + 1)
        elif text in (".", ",") and current is not None and item.scale.step < 1:
            self.set_score(item.id, current + item.scale.step)
            self.select(self._selected + 1)
        elif (text in ("+", "=") or key == Qt.Key.Key_Plus) and current is not None:
            self.set_score(item.id, min(item.scale.max, current + item.scale.step))
        elif (text == "-" or key == Qt.Key.Key_Minus) and current is not None:
            self.set_score(item.id, max(item.scale.min, current - item.scale.step))
        elif text and text.isalpha():
            for index, candidate in enumerate(self.rubric.items):
                if candidate.key == text.lower():
                    self.select(index)
                    return True
            return False
        else:
            return False
        return True

    def _refresh(self) -> None:
        for index, row in enumerate(self._rows):
            row.show_value(self._scores.get(row.item.id))
            row.set_selected(index == self._selected)
        if self._rows:
            self.scroll_area.ensureWidgetVisible(self._rows[self._selected], 0, 4)
        total = self.total()
        scored = sum(1 for i in self.rubric.items if i.id in self._scores)
        if total is None:
            self.total_label.setText(f"Total: — ({scored}/{len(self.rubric.items)} items)")
        else:
            self.total_label.setText(f"Total: <b>{total:.1f}</b> / {self.rubric.total_max:g}")

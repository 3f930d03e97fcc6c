"""Verdict (accept / needs fix / unusable) and the issue tags of the task's kind, one key each.

While the panel has focus: 1/2/3 set the verdict, each tag's letter toggles it. The tags are
those of the diagram kind of the task on screen (core/workspace/taxonomy.py: OODEval's for
class diagrams, R2ABench's for architecture diagrams). The panel only reports choices
(``changed``); saving them is an operation of the review mode.
"""

from __future__ import annotations

import string

from cluestudio.core.workspace.taxonomy import CLASS_TAG_SET, TagSet, label
from cluestudio.gui.qt import (
    QButtonGroup,
    QCheckBox,
    QGridLayout,
    QKeyEvent,
    QLabel,
    QRadioButton,
    QScrollArea,
    QSizePolicy,
    Qt,
    QVBoxLayout,
    QWidget,
    Signal,
)
from cluestudio.gui.widgets.flow_layout import FlowLayout

VERDICTS = (("accept", "Accept", "1"), ("needs_fix", "Needs fix", "2"),
            ("unusable", "Unusable", "3"))


def tag_keys(tag_set: TagSet = CLASS_TAG_SET) -> dict[str, str]:
    """key -> tag: letters a, b, c, … in taxonomy order (categories first, then their types)."""
    return dict(zip(string.ascii_lowercase, tag_set.ordered(), strict=False))


class _ElidedCheckBox(QCheckBox):
    """A check box whose text ends in "…" when the panel is narrower than it (the whole text
    is in the tooltip): long tag names never push the panel wider than its column."""

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.full_text = text
        policy = self.sizePolicy()
        policy.setHorizontalPolicy(QSizePolicy.Policy.Ignored)
        self.setSizePolicy(policy)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        # What the box and its spacing take besides the text.
        indicator = self.sizeHint().width() - self.fontMetrics().horizontalAdvance(self.text())
        room = max(0, self.width() - indicator)
        elided = self.fontMetrics().elidedText(self.full_text, Qt.TextElideMode.ElideRight,
                                               room)
        if elided != self.text():
            self.setText(elided)


class VerdictPanel(QWidget):
    """Radio buttons for the verdict, check boxes for the tags; all keyboard-operable."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("verdictPanel")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.verdict_group = QButtonGroup(self)
        self.verdict_buttons: dict[str, QRadioButton] = {}
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("<b>Verdict</b> (1/2/3)"))
        # The verdicts wrap onto more rows when the column is narrow (1366×768).
        verdicts = QWidget()
        row = FlowLayout(verdicts, spacing=6)
        for verdict, text, key in VERDICTS:
            button = QRadioButton(f"[{key}] {text}")
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            button.toggled.connect(lambda on: self.changed.emit() if on else None)
            self.verdict_group.addButton(button)
            self.verdict_buttons[verdict] = button
            row.addWidget(button)
        layout.addWidget(verdicts)
        self.tags_title = QLabel()
        self.tags_title.setWordWrap(True)
        layout.addWidget(self.tags_title)
        self.keys: dict[str, str] = {}
        self.tag_boxes: dict[str, QCheckBox] = {}
        self.tag_set: TagSet | None = None
        # One column in a scroll area: the panel stays narrow beside the images.
        self._scroll = QScrollArea()
        self._scroll.setWidgetResizable(True)
        self._scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        self._scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self._scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        layout.addWidget(self._scroll, 1)
        self.set_tag_set(CLASS_TAG_SET)

    def set_tag_set(self, tag_set: TagSet) -> None:
        """Offer the tags of ``tag_set`` (the kind of the task shown); none is checked."""
        if self.tag_set is not None and tag_set.id == self.tag_set.id:
            return
        self.tag_set = tag_set
        self.keys = tag_keys(tag_set)
        self.tags_title.setText(f"<b>Issue tags</b> of {tag_set.title} (letter toggles)")
        tags = QWidget()
        grid = QGridLayout(tags)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setVerticalSpacing(0)
        self.tag_boxes = {}
        for index, (key, tag) in enumerate(self.keys.items()):
            box = _ElidedCheckBox(f"[{key}] {label(tag)}")
            box.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            box.setToolTip(f"[{key}] {label(tag)}\n{tag_set.tags[tag].replace('_', ' ')}: {tag}")
            if tag in tag_set.categories:
                font = box.font()
                font.setBold(True)
                box.setFont(font)
            box.toggled.connect(lambda _on: self.changed.emit())
            self.tag_boxes[tag] = box
            grid.addWidget(box, index, 0)
        grid.setRowStretch(len(self.keys), 1)
        old = self._scroll.takeWidget()
        self._scroll.setWidget(tags)
        if old is not None:
            old.deleteLater()

    def load(self, verdict: str | None, tags: tuple[str, ...] | list[str] = ()) -> None:
        self.blockSignals(True)
        try:
            self.verdict_group.setExclusive(False)
            for name, button in self.verdict_buttons.items():
                button.setChecked(name == verdict)
            self.verdict_group.setExclusive(True)
            for tag, box in self.tag_boxes.items():
                box.setChecked(tag in tags)
        finally:
            self.blockSignals(False)

    def verdict(self) -> str | None:
        for name, button in self.verdict_buttons.items():
            if button.isChecked():
                return name
        return None

    def tags(self) -> list[str]:
        return [tag for tag, box in self.tag_boxes.items() if box.isChecked()]

    def set_verdict(self, verdict: str) -> None:
        self.verdict_buttons[verdict].setChecked(True)

    def toggle_tag(self, tag: str) -> None:
        box = self.tag_boxes[tag]
        box.setChecked(not box.isChecked())

    def keyPressEvent(self, event: QKeyEvent) -> None:
        text = event.text().lower()
        plain = not (event.modifiers() & (Qt.KeyboardModifier.ControlModifier
                                          | Qt.KeyboardModifier.AltModifier))
        verdicts = {key: name for name, _, key in VERDICTS}
        if plain and text in verdicts:
            self.set_verdict(verdicts[text])
        elif plain and text in self.keys:
            self.toggle_tag(self.keys[text])
        else:
            super().keyPressEvent(event)
            return
        event.accept()

"""The group box under the rubric: the current submission's group (the submissions with the
same diagram, and CLUE's near suggestions apart), and the two actions on it (find the task's
groups; apply my rating to the group).

It only shows what :class:`~cluestudio.gui.group_actions.GroupActions` tells it and reports
the buttons; the grouping, the confirmation and the command live there.
"""

from __future__ import annotations

from cluestudio.gui.qt import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    Qt,
    QVBoxLayout,
    QWidget,
    Signal,
)


class GroupPanel(QFrame):
    """``find_requested`` and ``apply_requested`` when the buttons are pressed."""

    find_requested = Signal()
    apply_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("groupPanel")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.text = QLabel()
        self.text.setObjectName("groupText")
        self.text.setWordWrap(True)
        self.text.setTextFormat(Qt.TextFormat.RichText)
        self.find_button = QPushButton("Find groups")
        self.apply_button = QPushButton("Apply my rating to the group…")
        for button in (self.find_button, self.apply_button):
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # keys belong to the rubric
        self.find_button.clicked.connect(self.find_requested)
        self.apply_button.clicked.connect(self.apply_requested)
        buttons = QHBoxLayout()
        buttons.addWidget(self.find_button)
        buttons.addWidget(self.apply_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.addWidget(self.text)
        layout.addLayout(buttons)
        self.describe("")

    def describe(self, html: str, tooltip: str = "", *, can_find: bool = False,
                  can_apply: bool = False) -> None:
        # No title line: at 1024×700 the box has room for three lines of text, and the
        # text says what it is ("Group of 3, same diagram: …").
        self.text.setText(html or "<b>Grade by group</b> · <i>No submission on screen.</i>")
        self.text.setToolTip(tooltip)
        self.find_button.setEnabled(can_find)
        self.apply_button.setEnabled(can_apply)

    def set_shortcuts(self, find: str, apply: str) -> None:
        """Name the keys the menus really use (a ``[keys]`` table may have moved them)."""
        self.find_button.setToolTip(
            "Group this task's submissions whose diagrams say the same (layout, order, "
            "whitespace and case aside); CLUE suggests near ones apart"
            + (f" ({find})" if find else ""))
        self.apply_button.setToolTip(
            "Copy your saved rating of this submission to the submissions you tick in a "
            "preview (its group ticked, near ones with their differences not); one undo "
            "takes it back"
            + (f" ({apply})" if apply else ""))

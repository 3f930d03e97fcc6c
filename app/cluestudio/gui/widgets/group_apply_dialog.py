"""The preview before "Apply my rating to the group": who gets the rating, and why each may.

One row per submission with a box to tick: the group's members (the same diagram as the one
rated: ticked) and the submissions CLUE suggests as near (not ticked), each near one with its
element differences from the rated diagram listed under it, so a grader includes only
differences they have seen and accept, and takes out any member. The question and the
buttons ("Apply to N", "… overwriting my K") follow the ticks through ``preview``.
"""

from __future__ import annotations

from collections.abc import Callable

from cluestudio.app.groups import GroupPreview
from cluestudio.core.groups import GroupMember, SubmissionGroup
from cluestudio.gui.qt import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    Qt,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)
from cluestudio.gui.screen_fit import resize_within_screen

#: (the chosen submission ids, overwrite) -> what applying would do. Reads only.
Preview = Callable[[tuple[int, ...], bool], GroupPreview]
#: (chosen ids, preview keeping my ratings, preview overwriting them) -> the question.
Question = Callable[[tuple[int, ...], GroupPreview, GroupPreview], str]
_ID = Qt.ItemDataRole.UserRole


class GroupApplyDialog(QDialog):
    """``choice`` is "apply", "overwrite" or None (cancelled) once closed; :meth:`chosen`
    the ticked submissions. Tests tick with :meth:`set_included` and press the buttons."""

    def __init__(self, group: SubmissionGroup, source: int, preview: Preview,
                 question: Question, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Apply my rating to the group")
        self.setObjectName("groupApplyDialog")
        self.group, self.source = group, source
        self._preview, self._question = preview, question
        self.choice: str | None = None
        self.text = QLabel()
        self.text.setWordWrap(True)
        self.text.setTextFormat(Qt.TextFormat.PlainText)  # submission ids come from packs
        self.members = QTreeWidget()
        self.members.setHeaderHidden(True)
        self.members.setWordWrap(True)  # a changed relation reads "before → after"
        self.members.setObjectName("groupApplyMembers")
        for member in group.members:
            self._add(member, "same diagram" + (" · rated" if member.submission_id == source
                                                else ""), True)
        for member in group.near:
            count = len(member.differences)
            self._add(member, f"near, differs: {count} difference{'s' * (count != 1)} "
                              f"(CLUE {member.similarity:.3f})", False)
        self.members.expandAll()
        self.members.itemChanged.connect(lambda *_: self.refresh())
        self.apply_button = QPushButton()
        self.overwrite_button = QPushButton()
        cancel = QPushButton("Cancel")
        self.apply_button.clicked.connect(lambda: self._close_with("apply"))
        self.overwrite_button.clicked.connect(lambda: self._close_with("overwrite"))
        cancel.clicked.connect(self.reject)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        for button in (self.apply_button, self.overwrite_button, cancel):
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text)
        layout.addWidget(QLabel("Tick who gets this rating: members have the same diagram; "
                                "near ones differ as listed under them."))
        layout.addWidget(self.members, 1)
        layout.addLayout(buttons)
        resize_within_screen(self, 820, 460)
        self.keep: GroupPreview | None = None
        self.overwrite: GroupPreview | None = None
        self.question = ""
        self.refresh()

    def _add(self, member: GroupMember, what: str, ticked: bool) -> None:
        item = QTreeWidgetItem([f"{member.source_id} — {what}"])
        item.setData(0, _ID, member.submission_id)
        if member.submission_id == self.source:
            item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsUserCheckable)
        else:
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(0, Qt.CheckState.Checked if ticked else Qt.CheckState.Unchecked)
        for difference in member.differences:
            child = QTreeWidgetItem([difference])
            child.setToolTip(0, difference)
            item.addChild(child)
        self.members.addTopLevelItem(item)

    def _items(self) -> list[QTreeWidgetItem]:
        found = (self.members.topLevelItem(i) for i in range(self.members.topLevelItemCount()))
        return [item for item in found if item is not None]

    def row_text(self, submission_id: int) -> str:
        """The row of ``submission_id`` and its differences, one line each (for tests)."""
        for item in self._items():
            if item.data(0, _ID) == submission_id:
                children = (item.child(i) for i in range(item.childCount()))
                return "\n".join([item.text(0), *(c.text(0) for c in children if c)])
        return ""

    def chosen(self) -> tuple[int, ...]:
        """The ticked submissions (and the rated one, which gives the rating)."""
        return tuple(item.data(0, _ID) for item in self._items()
                     if item.data(0, _ID) == self.source
                     or item.checkState(0) == Qt.CheckState.Checked)

    def set_included(self, submission_id: int, included: bool) -> None:
        for item in self._items():
            if item.data(0, _ID) == submission_id and submission_id != self.source:
                item.setCheckState(0, Qt.CheckState.Checked if included
                                   else Qt.CheckState.Unchecked)

    def refresh(self) -> None:
        """The question and the buttons for what is ticked now."""
        chosen = self.chosen()
        keep, overwrite = self._preview(chosen, False), self._preview(chosen, True)
        self.keep, self.overwrite = keep, overwrite
        self.question = self._question(chosen, keep, overwrite)
        self.text.setText(self.question)
        self.apply_button.setText(f"Apply to {keep.count}")
        self.apply_button.setEnabled(keep.count > 0)
        self.overwrite_button.setText(f"Apply to {overwrite.count}, overwriting my "
                                      f"{len(keep.already_rated)}")
        self.overwrite_button.setVisible(bool(keep.already_rated))

    def _close_with(self, choice: str) -> None:
        self.choice = choice
        self.accept()

    def ask(self) -> str | None:
        """Shown modally; what the grader chose."""
        self.exec()
        return self.choice

"""The question before Quit when PlantUML edits are not saved: which submissions, and only
for edits that change something (a removed trailing newline or spaces at line ends are not
an edit worth a question, issue 24)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cluestudio.core.errors import ClueStudioError
from cluestudio.gui.qt import QMessageBox, QWidget

if TYPE_CHECKING:
    from cluestudio.app.session import Session
    from cluestudio.gui.review_mode import ReviewMode

_NAMED = 8  # at most this many names in the question; the rest are counted


def _lines(text: str) -> list[str]:
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def differs_beyond_whitespace(text: str, saved: str) -> bool:
    """Whether ``text`` changes more than trailing spaces and trailing blank lines."""
    return _lines(text) != _lines(saved)


def unsaved_edits(session: Session, review: ReviewMode) -> list[str]:
    """"task/submission" of each submission with an unsaved PlantUML edit: the one in the
    review editor, and those the session kept while the reviewer moved on."""
    names: list[str] = []
    if review.view is not None and differs_beyond_whitespace(review.editor.toPlainText(),
                                                             review.view.head_puml):
        names.append(f"{review.view.submission.task_id}/{review.view.submission.source_id}")
    for sid, text in session.review_texts.items():
        try:
            view = session.view(sid)
        except ClueStudioError:  # gone (another workspace): nothing to save it to
            continue
        if differs_beyond_whitespace(text, view.head_puml):
            names.append(f"{view.submission.task_id}/{view.submission.source_id}")
    return names


def confirm_quit(parent: QWidget, names: list[str]) -> bool:
    """Ask whether to quit although the edits of ``names`` are not saved."""
    shown = ", ".join(names[:_NAMED]) + (f" and {len(names) - _NAMED} more"
                                         if len(names) > _NAMED else "")
    box = QMessageBox(QMessageBox.Icon.Question, "Unsaved PlantUML",
                      f"PlantUML edits are not saved: {shown}.",
                      QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, parent)
    box.setObjectName("unsavedEdits")
    box.setInformativeText("Quit anyway and lose them? (Ctrl+S in review mode saves the "
                           "submission on screen as a new revision.)")
    box.setDefaultButton(QMessageBox.StandardButton.No)
    return box.exec() == QMessageBox.StandardButton.Yes

"""The line above the modes that says where the grader is: which task, which submission,
its place in the list, and how much of the list this grader has rated."""

from __future__ import annotations

from html import escape

from cluestudio.gui.qt import QLabel, Qt, QWidget


class Heading(QLabel):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("whereAmI")
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setContentsMargins(8, 4, 8, 4)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.describe(task_title="", task_kind="", submission="", place=0, listed=0, rated=0,
                  total=0, grader="", mode="")

    def describe(self, *, task_title: str, task_kind: str, submission: str, place: int,
             listed: int, rated: int, total: int, grader: str, mode: str) -> None:
        """Say where the grader is now."""
        if not submission:
            text = "<b>No submission selected</b>"
        else:
            kind = f" <small>({escape(task_kind)})</small>" if task_kind not in ("", "class") \
                else ""
            text = (f"<b>{escape(task_title)}</b>{kind} — submission <b>{escape(submission)}"
                    f"</b> · {place} of {listed} listed")
        text += (f" · rated by you: <b>{rated}</b> of {total}"
                 f" · grader <b>{escape(grader)}</b>")
        if mode:
            text += f" · {escape(mode)}"
        self.setText(text)
        self.setToolTip(text.replace("<b>", "").replace("</b>", ""))

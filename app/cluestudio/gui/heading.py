"""The line above the modes that says where the grader is: which task, which submission,
its place in the list, and how much of the list this grader has rated.

On a narrow window (1024 px) it leaves out what is said elsewhere first — the mode (its tab
is right below), then the grader's name (the title bar's), then the count rated — and as a
last resort ends in "…"; the whole line is always its tooltip."""

from __future__ import annotations

from html import escape

from cluestudio.gui.qt import QLabel, QSize, Qt, QWidget


class Heading(QLabel):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("whereAmI")
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setContentsMargins(8, 4, 8, 4)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._variants: list[str] = [""]  # the whole line first, then shorter ones
        self.describe(task_title="", task_kind="", submission="", place=0, listed=0, rated=0,
                      total=0, grader="", mode="")

    def describe(self, *, task_title: str, task_kind: str, submission: str, place: int,
                 listed: int, rated: int, total: int, grader: str, mode: str) -> None:
        """Say where the grader is now."""
        if not submission:
            where = "<b>No submission selected</b>"
        else:
            kind = f" <small>({escape(task_kind)})</small>" if task_kind not in ("", "class") \
                else ""
            where = (f"<b>{escape(task_title)}</b>{kind} — submission <b>{escape(submission)}"
                     f"</b> · {place} of {listed} listed")
        parts = [where, f"rated by you: <b>{rated}</b> of {total}",
                 f"grader <b>{escape(grader)}</b>"] + ([escape(mode)] if mode else [])
        self._variants = [" · ".join(parts[:count]) for count in range(len(parts), 0, -1)]
        self.setToolTip(self._variants[0].replace("<b>", "").replace("</b>", ""))
        self._fit()

    def text(self) -> str:
        """The whole line (what is shown may leave parts out: :meth:`shown`)."""
        return self._variants[0]

    def shown(self) -> str:
        return super().text()

    def minimumSizeHint(self) -> QSize:
        # never the reason a window is wider than its screen: the line gives way instead
        return QSize(0, super().minimumSizeHint().height())

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        room = self.width()
        for variant in self._variants:
            self._show(variant)
            if self.sizeHint().width() <= room:
                return
        # not even where the grader is fits: its words, ending in "…"
        plain = self.toolTip().split(" · ")[0]
        margins = self.contentsMargins().left() + self.contentsMargins().right() + 4
        self._show(escape(self.fontMetrics().elidedText(
            plain, Qt.TextElideMode.ElideRight, max(0, room - margins))))

    def _show(self, text: str) -> None:
        if text != super().text():
            self.setText(text)

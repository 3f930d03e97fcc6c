"""The window's status line, on a 1024-pixel laptop too: a message, the running job and the
workspace's path share one row, and each says what does not fit in "…" with its whole text
in a tooltip, instead of running under its neighbour (QStatusBar draws a message across the
whole bar, under the permanent widgets, and cuts it wherever they start).
"""

from __future__ import annotations

from cluestudio.gui.qt import (
    QEvent,
    QLabel,
    QSize,
    QSizePolicy,
    QStatusBar,
    Qt,
    QTimer,
    QWidget,
)


class ElidedLabel(QLabel):
    """A one-line label that shortens its text with "…" (at the end, or in the middle of a
    path) when it is narrower than the text. ``text()`` is the whole text; the tooltip is
    the one set, or the whole text while it is shortened. ``share``: the most of its status
    line it takes, so a long path leaves room for the message."""

    def __init__(self, mode: Qt.TextElideMode = Qt.TextElideMode.ElideRight,
                 parent: QWidget | None = None, *, share: float | None = None) -> None:
        super().__init__(parent)
        self.mode = mode
        self.share = share
        self._full = ""
        self._tip = ""
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)

    def setText(self, text: str) -> None:
        self._full = text
        self.updateGeometry()
        self._fit()

    def text(self) -> str:
        return self._full

    def shown(self) -> str:
        """The text as it is drawn now."""
        return super().text()

    def setToolTip(self, tip: str) -> None:
        self._tip = tip
        self._fit()

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        margins = self.contentsMargins()
        return QSize(self.fontMetrics().horizontalAdvance(self._full) + margins.left()
                     + margins.right() + 2 * self.margin() + 2, hint.height())

    def minimumSizeHint(self) -> QSize:
        room = self.fontMetrics().horizontalAdvance("…") * 6  # a word and "…", at least
        return QSize(min(room, self.sizeHint().width()), super().minimumSizeHint().height())

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        room = self.contentsRect().width() - 2 * self.margin()
        shown = self.fontMetrics().elidedText(self._full, self.mode, max(0, room))
        if shown != super().text():
            super().setText(shown)
        QLabel.setToolTip(self, self._tip or (self._full if shown != self._full else ""))


_UNBOUNDED = 16_777_215  # QWIDGETSIZE_MAX


class StatusLine(QStatusBar):
    """A status bar whose messages are shown by an :class:`ElidedLabel` on the left, in
    the room its permanent widgets leave. ``showMessage``/``currentMessage``/
    ``clearMessage`` work as QStatusBar's (the whole text, with a timeout in ms)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.message = ElidedLabel(Qt.TextElideMode.ElideRight)
        self.message.setObjectName("statusMessage")
        self.message.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.addWidget(self.message, 1)
        self._expiry = QTimer(self)
        self._expiry.setSingleShot(True)
        self._expiry.timeout.connect(self.clearMessage)

    def showMessage(self, text: str, /, timeout: int | None = 0) -> None:
        self.message.setText(text)
        self._share_room()
        if (row := self.layout()) is not None:
            row.activate()  # shown in its room now, not "…" until the next layout pass
        self.messageChanged.emit(text)
        if timeout:
            self._expiry.start(timeout)
        else:
            self._expiry.stop()

    def currentMessage(self) -> str:
        return self.message.text()

    def clearMessage(self) -> None:
        self._expiry.stop()
        if self.message.text():
            self.message.setText("")
            self.messageChanged.emit("")

    def event(self, event: QEvent) -> bool:
        if event.type() in (QEvent.Type.LayoutRequest, QEvent.Type.Resize):
            self._share_room()  # a part's text changed, or the window's width
        return super().event(event)

    def _share_room(self) -> None:
        """Each part as wide as its text while the row holds them all; when it does not,
        the parts with a ``share`` get no more than that share of the row, and the
        message the rest."""
        shared = [label for label in self.findChildren(ElidedLabel) if label.share is not None]
        # the row's own hint (margins and spacing included; the message's is not, its
        # policy ignores it), as if no share held a label in
        row = self.layout()
        if row is None:
            return
        needed = row.sizeHint().width() + self.message.sizeHint().width() + sum(
            max(0, label.sizeHint().width() - label.maximumWidth()) for label in shared)
        crowded = needed > self.width()
        for label in shared:
            label.setMaximumWidth(max(label.minimumSizeHint().width(),
                                      int(self.width() * (label.share or 1)))
                                  if crowded else _UNBOUNDED)

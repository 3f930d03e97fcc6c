"""Windows and dialogs whole on the screen they open on, frame included.

One rule for both: the main window's restored layout (a big monitor's, on a 1366×768
laptop) and a dialog's opening size (a fixed 640×720 put the comments dialog's last lines
below the edge of a 1024×700 screen). ``availableGeometry`` leaves out panels but not the
window manager's title bar and borders, so the frame is measured once it is drawn and
guessed before.
"""

from __future__ import annotations

from cluestudio.gui.qt import QMargins, QRect, QSize, QWidget

# Where the window manager's frame is not known yet (before the first show on X11): a title
# bar of this height and thin borders, so a clamped window is not a few pixels too tall.
GUESSED_FRAME = QMargins(4, 34, 4, 4)


def frame_margins(window: QWidget) -> QMargins:
    """The window manager's frame around ``window``: measured once it is shown, else a
    title bar's worth guessed."""
    frame, inner = window.frameGeometry(), window.geometry()
    if window.isVisible() and frame != inner:
        return QMargins(inner.left() - frame.left(), inner.top() - frame.top(),
                        frame.right() - inner.right(), frame.bottom() - inner.bottom())
    return GUESSED_FRAME


def clamped(wanted: QRect, room: QRect, frame: QMargins, least: tuple[int, int]) -> QRect:
    """``wanted`` (the window without its frame) moved and shrunk so that, frame included,
    it lies within ``room``; never below ``least`` (width, height)."""
    width = max(least[0], min(wanted.width(), room.width() - frame.left() - frame.right()))
    height = max(least[1], min(wanted.height(), room.height() - frame.top() - frame.bottom()))
    left = min(max(wanted.left(), room.left() + frame.left()),
               room.right() + 1 - frame.right() - width)
    top = min(max(wanted.top(), room.top() + frame.top()),
              room.bottom() + 1 - frame.bottom() - height)
    return QRect(max(left, room.left() + frame.left()), max(top, room.top() + frame.top()),
                 width, height)


def resize_within_screen(dialog: QWidget, width: int, height: int) -> None:
    """``dialog.resize(width, height)``, shrunk to fit the available screen, frame included,
    if need be."""
    screen = dialog.screen()
    if screen is not None:
        wanted = QRect(dialog.geometry().topLeft(), QSize(width, height))
        fitted = clamped(wanted, screen.availableGeometry(), frame_margins(dialog), (0, 0))
        width, height = fitted.width(), fitted.height()
    dialog.resize(width, height)

"""A dialog's opening size, never larger than the screen it opens on.

A fixed ``resize(640, 720)`` put the comments dialog's last lines below the edge of a
1024×700 screen (the smallest the README promises); the window manager's title bar takes
its share too, which ``availableGeometry`` does not count.
"""

from __future__ import annotations

from cluestudio.gui.qt import QWidget

#: Room left for a window manager's title bar and borders (offscreen draws none).
WINDOW_FRAME = 48


def resize_within_screen(dialog: QWidget, width: int, height: int) -> None:
    """``dialog.resize(width, height)``, shrunk to fit the available screen if need be."""
    screen = dialog.screen()
    if screen is not None:
        room = screen.availableGeometry()
        width, height = min(width, room.width()), min(height, room.height() - WINDOW_FRAME)
    dialog.resize(width, height)

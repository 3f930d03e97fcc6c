"""File → Open recent: the workspaces this user opened last, newest first (issue 24).

Kept beside the window layout (window-layout.ini), not in settings.toml: it is a record of
what was done, not a setting anyone edits.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from cluestudio.gui.qt import QAction, QMenu, QObject, QtGui, QWidget
from cluestudio.gui.window_layout import qsettings

KEY = "recent/workspaces"
KEEP = 8


class RecentWorkspaces(QObject):
    """The list and its menu; ``open_path`` opens a picked workspace."""

    def __init__(self, open_path: Callable[[Path], None], parent: QWidget) -> None:
        super().__init__(parent)
        self._open_path = open_path
        self.menu = QMenu("Open recent", parent)
        self.menu.setObjectName("recentWorkspaces")
        self.menu.aboutToShow.connect(self._fill)

    def attach(self, action: QAction) -> None:
        """Make the File menu's "Open recent" entry this submenu."""
        action.setMenu(self.menu)

    def paths(self) -> list[Path]:
        stored = qsettings().value(KEY, [])  # the INI file keeps a single path as a string
        listed = [stored] if isinstance(stored, str) else stored if isinstance(stored, list) else []
        return [Path(p) for p in listed if p]

    def remember(self, path: Path) -> None:
        real = str(Path(path).resolve())
        kept = [real] + [str(p) for p in self.paths() if str(p) != real]
        stored = qsettings()
        stored.setValue(KEY, kept[:KEEP])
        stored.sync()

    def _fill(self) -> None:
        self.menu.clear()
        paths = self.paths()
        for path in paths:
            action = self.menu.addAction(f"{path.name}   ({path.parent})")
            action.setToolTip(str(path))
            action.setEnabled(path.is_file())  # moved or deleted: listed, greyed
            action.triggered.connect(lambda _checked=False, path=path: self._open_path(path))
        if not paths:
            self.menu.addAction("No workspace opened yet").setEnabled(False)

    def show_menu(self) -> None:
        """The list as a menu at the mouse (the File menu entry's key, if one is set)."""
        self.menu.popup(QtGui.QCursor.pos())

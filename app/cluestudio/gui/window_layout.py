"""The main window's size, place and layout: restored as the user left them, but always whole
on the screen it opens on, with the submission list wide enough to read its names.

A layout saved on a big monitor (or Qt's own default size) may not fit a 1366×768 laptop: the
title bar or the status bar (progress, save confirmations, workspace path) would then sit off
the screen until the window is maximised (issue 24). The window is clamped to the screen's
available area, its frame included. The list's dock is never narrower than its value columns
plus a readable name, and widens again when the window has room (a width squeezed on a small
screen is not what the user chose, so it is not kept).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cluestudio.core.workspace.ops import text_hash
from cluestudio.gui.qt import QSettings, QSplitter, Qt, QTimer
from cluestudio.gui.screen_fit import clamped, frame_margins

if TYPE_CHECKING:
    from cluestudio.gui.window_parts import WindowParts

# The name column shows at least this much ("hospital_a…s001" with the middle elided) ...
_LEAST_NAME = "hospital…s001"
# ... and the dock takes at most this share of the window to show whole names.
_MOST_OF_WINDOW = 0.4


def qsettings() -> QSettings:
    # Window layout only (ADR 0007); everything a user would edit lives in settings.toml.
    # An INI file beside it, so CLUESTUDIO_CONFIG_DIR (tests, portable installs) moves both.
    from cluestudio.core.settings import config_dir

    return QSettings(str(config_dir() / "window-layout.ini"), QSettings.Format.IniFormat)


def _splitter_keys(window: WindowParts) -> list[tuple[str, QSplitter]]:
    """A stable key per splitter: creation order plus shape, so a changed layout after an
    upgrade finds no saved state instead of a wrong one."""
    return [(f"splitters/{i}-{s.orientation().name}-{s.count()}", s)
            for i, s in enumerate(window.findChildren(QSplitter))]


def restore_layout(window: WindowParts) -> None:
    """Window size, docks and splitters as the user left them (the app's defaults first
    time, or when the saved layout no longer fits: Qt then ignores it)."""
    stored = qsettings()
    if (geometry := stored.value("main/geometry")) is not None:
        window.restoreGeometry(geometry)
    if (state := stored.value("main/state")) is not None:
        window.restoreState(state)
    if window.errors.count() == 0:
        window.error_dock.hide()  # an empty error list is not worth the room
    fit_on_screen(window)
    window.setProperty("placedSize", window.size())  # what after_first_show may correct
    for key, splitter in _splitter_keys(window):
        if (sizes := stored.value(key)) is not None:
            splitter.restoreState(sizes)
    keep_list_readable(window)


def save_layout(window: WindowParts) -> None:
    stored = qsettings()
    stored.setValue("main/geometry", window.saveGeometry())
    stored.setValue("main/state", window.saveState())
    for key, splitter in _splitter_keys(window):
        stored.setValue(key, splitter.saveState())
    stored.sync()


def fit_on_screen(window: WindowParts) -> None:
    """The whole window, title bar and status bar included, on the screen it is on."""
    from cluestudio.gui.qt import QApplication

    # The screen the (restored) geometry lies on: a hidden window's own screen() is the
    # primary one, which would pull a layout from a second monitor onto the first.
    screen = QApplication.screenAt(window.geometry().center()) or window.screen()
    if screen is None or window.isMaximized() or window.isFullScreen():
        return
    least = window.minimumSize()
    place = clamped(window.geometry(), screen.availableGeometry(), frame_margins(window),
                    (least.width(), least.height()))
    if place != window.geometry():
        window.setGeometry(place)


def after_first_show(window: WindowParts) -> None:
    """Once shown, the real frame is known (the window manager adds it a moment later):
    clamp again with it, unless the window was given another size meanwhile."""
    QTimer.singleShot(0, window, lambda: keep_list_readable(window))
    placed = window.property("placedSize")
    if placed is None:
        return
    window.setProperty("placedSize", None)

    def again() -> None:
        if window.size() == placed:
            fit_on_screen(window)

    QTimer.singleShot(0, window, again)
    QTimer.singleShot(250, window, again)


def list_widths(window: WindowParts) -> tuple[int, int]:
    """(least, wanted) width of the submission list's dock: its value columns plus a
    readable name (least) or the widest name (wanted)."""
    navigator = window.navigator
    table = navigator.table
    metrics = table.fontMetrics()
    values = sum(table.columnWidth(c) for c in range(1, table.model().columnCount()))
    # Frame, scroll bar and the navigator's and dock's margins around the table.
    chrome = 2 * table.frameWidth() + table.verticalScrollBar().sizeHint().width() + 12
    names = [navigator.model.text(row, 0) for row in navigator.model.rows]
    widest = max([metrics.horizontalAdvance(name) for name in names] or [0]) + 16
    least = values + metrics.horizontalAdvance(_LEAST_NAME) + 16 + chrome
    return least, max(least, values + widest + chrome)


def keep_list_readable(window: WindowParts) -> None:
    """The list's dock at least wide enough for readable names; wider (up to its widest
    name) whenever the central area can spare the room, e.g. after maximising."""
    dock = window.navigator_dock
    least, wanted = list_widths(window)
    window.navigator.setMinimumWidth(least)
    central = window.centralWidget()
    if dock.isFloating() or not window.isVisible() or central is None:
        return
    spare = central.width() - central.minimumSizeHint().width()
    wanted = min(wanted, int(window.width() * _MOST_OF_WINDOW))
    if dock.width() < wanted and spare > 0:
        window.resizeDocks([dock], [min(wanted, dock.width() + spare)],
                           Qt.Orientation.Horizontal)


def position_key(window: WindowParts) -> str:
    ws = window.bench.ws
    return "" if ws is None else "last/" + text_hash(str(ws.path.resolve()))[:16]


def remember_position(window: WindowParts, mode_limit: int) -> None:
    """Where the grader was in this workspace (restored on the next start)."""
    key, sid = position_key(window), window.navigator.current_id()
    row = window.navigator.row(sid) if sid is not None else None
    if key and row is not None:
        stored = qsettings()
        stored.setValue(f"{key}/submission", f"{row.summary.task_id}\t"
                                              f"{row.summary.source_id}")
        stored.setValue(f"{key}/mode", min(window.modes.currentIndex(), mode_limit))
        stored.sync()


def restore_position(window: WindowParts) -> None:
    key = position_key(window)
    stored = qsettings()
    where = str(stored.value(f"{key}/submission", "") or "")
    task_id, _, source_id = where.partition("\t")
    workspace = window.bench.session.require()
    found = workspace.find_submission(task_id, source_id) if source_id else None
    if found is not None:
        window.navigator.select(found.id, reveal=True)
    mode = stored.value(f"{key}/mode")
    if mode is not None and str(mode).isdigit():
        window.modes.setCurrentIndex(int(mode))

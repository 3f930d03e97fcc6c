"""Issue 24, item 3: a new TA on the smallest screens the README promises (1366×768, and
1024×700): the whole window on screen, title bar and status bar included, and a submission
list whose names can be read, also after the window was once squeezed."""

from __future__ import annotations

import pytest

from test_gui_stories import _course_workspace

pytestmark = pytest.mark.gui


def test_a_laptop_of_1366x768_with_a_panel_shows_the_title_bar_and_the_status_bar() -> None:
    from cluestudio.gui.qt import QMargins, QRect
    from cluestudio.gui.screen_fit import clamped

    room = QRect(0, 0, 1366, 740)  # a 28-pixel panel at the bottom
    frame = QMargins(4, 34, 4, 4)  # the window manager's title bar and borders
    for wanted in (QRect(0, 0, 1366, 768), QRect(200, 150, 1366, 768),
                   QRect(-40, -30, 1900, 1100)):
        placed = clamped(wanted, room, frame, (800, 560))
        outer = placed.marginsAdded(frame)
        assert room.contains(outer), (wanted, placed, outer)
        assert placed.width() >= 800 and placed.height() >= 560


def test_a_layout_saved_on_a_big_monitor_opens_whole_on_the_laptop(session, tmp_path,
                                                                   monkeypatch) -> None:
    from cluestudio.core.workspace import open_workspace
    from cluestudio.gui.main_window import MainWindow
    from cluestudio.gui.qt import QRect, QtGui
    from cluestudio.gui.screen_fit import frame_margins

    # The screen is the platform's: the laptop's 1366×768 with a 28-pixel panel (the
    # offscreen platform's own screen is 800×800, smaller than any promised one).
    monkeypatch.setattr(QtGui.QScreen, "availableGeometry",
                        lambda _screen: QRect(0, 0, 1366, 740))
    path = _course_workspace(tmp_path)
    window = session.open(path)
    window.setGeometry(QRect(500, 400, 1900, 1150))  # the office monitor's layout
    window.close()
    again = MainWindow(session.runner, session.settings)  # as the app starts: no resize
    again.ask_before_discard = False
    session.qtbot.addWidget(again)
    session.windows.append(again)
    again.open(open_workspace(path, create=False))
    again.show()
    session.qtbot.waitExposed(again)
    room = QRect(0, 0, 1366, 740)
    outer = again.geometry().marginsAdded(frame_margins(again))
    assert room.contains(outer), (room, outer)
    status = again.statusBar()
    bottom = status.mapTo(again, status.rect().bottomLeft()).y()
    assert status.isVisible() and again.geometry().top() + bottom <= room.bottom()


def _shows_the_name(window, row: int) -> tuple[bool, str]:
    """Whether the list's name column shows row ``row``'s submission id (not just "…")."""
    from cluestudio.gui.qt import Qt

    table = window.navigator.table
    text = table.model().index(row, 0).data()
    room = table.columnWidth(0) - 8  # the cell's margins
    shown = table.fontMetrics().elidedText(text, Qt.TextElideMode.ElideMiddle, room)
    return text.split(" · ")[1] in shown, shown


def test_at_1024x700_the_list_keeps_readable_names_and_widens_again_when_maximised(
        session, tmp_path) -> None:
    path = _course_workspace(tmp_path, tasks=("hospital_appointments", "library_loans"))
    window = session.open(path)
    window.resize(1024, 700)
    session.qtbot.wait(80)
    for row in range(window.navigator.table.model().rowCount()):
        readable, shown = _shows_the_name(window, row)
        assert readable, shown
    window.close()  # the squeezed layout is saved ...
    again = session.open(path)
    again.resize(1600, 1000)  # ... and the next day the window is maximised
    session.qtbot.wait(80)
    table = again.navigator.table
    for row in range(table.model().rowCount()):
        text = table.model().index(row, 0).data()
        assert table.columnWidth(0) >= table.fontMetrics().horizontalAdvance(text) + 8, text


def test_at_1366x768_task_names_are_whole_in_the_list(session, tmp_path) -> None:
    path = _course_workspace(tmp_path, tasks=("hospital_appointments", "online_shop"))
    window = session.open(path)
    window.resize(1366, 768)
    session.qtbot.wait(80)
    table = window.navigator.table
    for row in range(table.model().rowCount()):
        text = table.model().index(row, 0).data()
        assert table.columnWidth(0) >= table.fontMetrics().horizontalAdvance(text) + 8, text
        assert text in table.model().index(row, 0).data(3)  # and the tooltip has it whole


def test_at_1024x700_the_grading_zoom_bar_shows_every_button_and_the_small_warning(
        session, tmp_path) -> None:
    """The candidate column is narrow at 1024 px: the zoom bar wraps rather than eliding
    "100%" to "…" or cutting "85% small" to "85" (the warning is the point)."""
    from cluestudio.gui.qt import QLabel, QToolButton
    from cluestudio.gui.widgets.zoom_bar import ZoomBar
    from test_gui_stories import _big_workspace, _ctrl, _keys

    window = session.open(_big_workspace(tmp_path))
    window.resize(1024, 700)
    session.press(_keys().Key_F3)
    image_a = window.grading.image_a
    session.qtbot.waitUntil(lambda: image_a.image is not None, timeout=10_000)
    session.press(_keys().Key_0, modifier=_ctrl())  # Fit: the text gets small
    bar = window.grading.findChild(ZoomBar)
    session.qtbot.waitUntil(lambda: "small" in bar.label.text())
    column = bar.parentWidget()

    def whole(widget) -> bool:
        placed = widget.geometry().translated(bar.pos())
        return (widget.width() >= widget.sizeHint().width()
                and widget.height() >= widget.sizeHint().height()
                and column.rect().contains(placed))

    shown = [w for kind in (QToolButton, QLabel) for w in bar.findChildren(kind)
             if w.isVisible()]
    assert bar.readable_button in shown and bar.label in shown
    session.qtbot.waitUntil(lambda: all(whole(w) for w in shown))
    assert bar.width() <= column.width()


def test_at_1024x700_the_review_zoom_bar_stays_one_row_beside_its_title(session,
                                                                       tmp_path) -> None:
    """Wrapping is for want of room, not a habit: beside "A: submitted image" there is room
    for one row, and a column of buttons would take image A's height."""
    from cluestudio.gui.qt import QToolButton
    from cluestudio.gui.widgets.zoom_bar import ZoomBar

    window = session.open(_course_workspace(tmp_path))
    window.resize(1024, 700)
    bar = window.review.findChild(ZoomBar)
    button = bar.findChild(QToolButton)
    session.qtbot.waitUntil(lambda: bar.isVisible() and button.height() > 0)
    session.qtbot.waitUntil(lambda: bar.height() < 2 * button.height())
    assert bar.width() >= bar.sizeHint().width()


def test_a_dialog_opened_on_a_1024x700_screen_fits_with_its_title_bar(session,
                                                                      monkeypatch) -> None:
    from cluestudio.gui.qt import QDialog, QRect, QtGui
    from cluestudio.gui.screen_fit import GUESSED_FRAME, resize_within_screen

    room = QRect(0, 0, 1024, 672)  # a 28-pixel panel
    monkeypatch.setattr(QtGui.QScreen, "availableGeometry", lambda _screen: room)
    dialog = QDialog()
    session.qtbot.addWidget(dialog)
    resize_within_screen(dialog, 640, 720)
    assert dialog.width() == 640  # room enough across: what was asked
    outer = QRect(dialog.geometry().topLeft(), dialog.size()).marginsAdded(GUESSED_FRAME)
    assert outer.height() <= room.height(), (dialog.size(), room)

"""The workbench's menu bar: every action, its shortcut, and the window method it calls."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from cluestudio.gui.qt import QAction, QKeySequence, QMenu

if TYPE_CHECKING:
    from cluestudio.gui.main_window import MainWindow

REVIEW, GRADING = 0, 1  # tab indexes of the two modes

VERDICTS = (("accept", "Accept"), ("needs_fix", "Needs fix"), ("unusable", "Unusable"))


def _add(window: MainWindow, menu: QMenu, text: str, slot: Callable[[], object],
         shortcut: str = "", checkable: bool = False) -> QAction:
    action = QAction(text, window)
    if shortcut:
        action.setShortcut(QKeySequence(shortcut))
    action.setCheckable(checkable)
    action.triggered.connect(lambda _checked=False: slot())
    menu.addAction(action)
    return action


def _in_current_mode(window: MainWindow, name: str, *args: float) -> Callable[[], object]:
    """Call the image-sync method ``name`` of whichever mode is on screen."""
    def call() -> object:
        mode = window.review if window.modes.currentIndex() == REVIEW else window.grading
        return getattr(mode.sync, name)(*args)
    return call


def build_menus(window: MainWindow) -> tuple[QAction, QAction, QAction]:
    """Fill ``window``'s menu bar; return the actions it updates later (undo, redo, blind)."""
    w, bar = window, window.menuBar()
    add = partial(_add, w)
    m = bar.addMenu("&File")
    add(m, "&New workspace…", w.files.new_workspace, "Ctrl+N")
    add(m, "&Open workspace…", w.files.open_workspace, "Ctrl+O")
    m.addSeparator()
    add(m, "&Import course folder…", w.files.import_course_folder, "Ctrl+I")
    add(m, "Import &JSONL file…", w.files.import_jsonl)
    add(m, "&Merge graders' packs…", w.files.merge_packs)
    m.addSeparator()
    add(m, "&Export tables (CSV, JSON)…", w.files.export_tables, "Ctrl+E")
    add(m, "Export &pack…", w.files.export_pack)
    m.addSeparator()
    add(m, "&Settings…", w.settings_dialog, "Ctrl+,")
    add(m, "&Quit", w.close, "Ctrl+Q")
    m = bar.addMenu("&Edit")
    undo = add(m, "&Undo", w.undo, "Ctrl+Z")
    redo = add(m, "&Redo", w.redo, "Ctrl+Shift+Z")
    m = bar.addMenu("&Go")
    add(m, "&Next submission", partial(w.navigator.step, 1), "Ctrl+PgDown")
    add(m, "&Previous submission", partial(w.navigator.step, -1), "Ctrl+PgUp")
    add(m, "Next &unrated", w.navigator.next_unrated, "Ctrl+Shift+PgDown")
    add(m, "&Review mode", partial(w.modes.setCurrentIndex, REVIEW), "F2")
    add(m, "&Grading mode", partial(w.modes.setCurrentIndex, GRADING), "F3")
    add(m, "Focus rubric / verdict", w.focus_panel, "F4")
    add(m, "Focus PlantUML editor", w.review.editor.setFocus, "F6")
    m = bar.addMenu("&Review")
    add(m, "&Save revision", w.review.save_revision, "Ctrl+S")
    for key, (verdict, text) in enumerate(VERDICTS, 1):
        add(m, f"Verdict: {text}", partial(w.review.verdict.set_verdict, verdict), f"Ctrl+{key}")
    add(m, "&Compare A/B",
        lambda: w.review.set_compare(not w.review.compare_button.isChecked()), "Ctrl+K")
    m = bar.addMenu("&View")
    add(m, "&Fit images", _in_current_mode(w, "fit_all"), "Ctrl+0")
    add(m, "&Actual size", _in_current_mode(w, "actual_size_all"), "Ctrl+Shift+0")
    add(m, "Zoom &in", _in_current_mode(w, "zoom_all", 1.25), "Ctrl+=")
    add(m, "Zoom &out", _in_current_mode(w, "zoom_all", 0.8), "Ctrl+-")
    blind = add(m, "&Blind grading", w.toggle_blind, checkable=True)
    blind.setChecked(w.bench.settings.ui.blind_grading)
    add(m, "&Dark theme", w.toggle_theme, checkable=True).setChecked(
        w.bench.settings.ui.theme == "dark")
    add(m, "&Errors", w.error_dock.show)
    add(m, "A&nalysis (disagreements, figures)", w.show_analysis, "Ctrl+Shift+A")
    m = bar.addMenu("&Jobs")
    add(m, "&Score this submission", w.score_current, "Ctrl+R")
    add(m, "Score &all listed", w.score_listed, "Ctrl+Shift+R")
    add(m, "&Cancel running job", w.job_status.cancel, "Ctrl+.")
    w.model_actions.add_to_menu(bar.addMenu("&Tools"))
    m = bar.addMenu("&Help")
    add(m, "Open &log folder", w.open_log_folder)
    add(m, "Open &workspace folder", w.open_workspace_folder)
    return undo, redo, blind

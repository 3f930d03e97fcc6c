"""The window's preferences: blind grading (and the element diff's menu mark it governs),
theme, the settings and shortcuts dialogs, the grader's name, where settings and the last
workspace are saved, and the folders it opens.

A part of :class:`~cluestudio.gui.main_window.MainWindow` (its base class), kept apart so the
window's own module stays about assembly; it reaches only the window's parts named in
:class:`~cluestudio.gui.window_parts.WindowParts` (its own base) and below.
"""

from __future__ import annotations

import contextlib
from abc import abstractmethod
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, cast

from cluestudio.core.errors import ClueStudioError
from cluestudio.core.settings import Settings, updated
from cluestudio.gui.qt import QApplication, QtCore, QtGui
from cluestudio.gui.window_parts import WindowParts

if TYPE_CHECKING:
    from cluestudio.gui.qt import QAction


class WindowPreferences(WindowParts):
    """Blind grading, theme, settings and folders of the main window (its base class)."""

    if TYPE_CHECKING:
        menu_actions: dict[str, QAction]
        blind_action: QAction

        @abstractmethod
        def _show_current(self, *_: object) -> None: ...

    def _remember_workspace(self, path: Path) -> None:
        self.files.recent.remember(path)
        if self.bench.settings.workspace.last != str(path):
            self.bench.session.update_settings(workspace={"last": str(path)})
            self._save_settings()

    def _save_settings(self) -> None:
        try:
            self.bench.session.save_settings()
        except ClueStudioError as error:
            self.report_error("settings", str(error))

    def toggle_blind(self) -> None:
        blind = self.blind_action.isChecked()
        self.bench.session.update_settings(ui={"blind_grading": blind})
        self.apply_blind(blind)
        self._save_settings()

    def apply_blind(self, blind: bool) -> None:
        """Blind grading hides every metric value of what this grader has not rated yet:
        the list, its tooltips, the metric panel, the analysis."""
        self.grading.metrics.set_blind(blind)
        if self.grading.view is not None and self.grading.view.rating is not None:
            self.grading.metrics.reveal()
        self.navigator.set_blind(blind)
        self.analysis.set_blind(blind)
        for mode in (self.review, self.grading):
            if mode.diff_on():
                mode.set_element_diff(True)  # the diff is CLUE's matching: blind hides it too

    def sync_diff_action(self) -> None:
        """The View menu's element-diff check mark says whether the mode on screen shows it."""
        shown = self.modes.currentWidget()
        mode = shown if shown in (self.review, self.grading) else None
        self.menu_actions["element_diff"].setChecked(mode is not None and mode.diff_on())

    def toggle_theme(self) -> None:
        from cluestudio.gui.theme import apply_theme

        theme = "light" if self.bench.settings.ui.theme == "dark" else "dark"
        self.bench.session.update_settings(ui={"theme": theme})
        apply_theme(cast(QApplication, QApplication.instance()), theme)  # typed QCoreApplication
        for editor in (self.review.editor, self.grading.reference_text,
                       self.grading.candidate_text):
            editor.apply_theme()
        self._save_settings()

    def keyboard_shortcuts(self) -> None:
        from cluestudio.gui.shortcuts_dialog import ShortcutsDialog

        ShortcutsDialog(self.bench.settings.keymap(), self).exec()

    def settings_dialog(self) -> None:
        from cluestudio.gui.settings_dialog import SettingsDialog

        dialog = SettingsDialog(self.bench.settings, self)
        if dialog.exec():
            self.take_settings(dialog.result_settings())

    def take_settings(self, settings: Settings) -> None:
        """New settings from the dialog (or the first-run question): apply and save them."""
        old_theme = self.bench.settings.ui.theme
        if self.bench.apply_settings(settings):
            self.refresh_rows()  # "mine" is another grader's now
            self._show_current()
        self.apply_blind(self.bench.settings.ui.blind_grading)
        self.blind_action.setChecked(self.bench.settings.ui.blind_grading)
        if self.bench.settings.ui.theme != old_theme:
            self.bench.session.update_settings(ui={"theme": old_theme})
            self.toggle_theme()
        self._save_settings()

    def ask_grader_name(self, ask: Callable[[str], str | None] | None = None) -> None:
        """First run: ask who is grading (every rating carries the name). Asked once: a
        cancelled question keeps the login name, changeable in Settings."""
        if self.bench.settings.ui.grader:
            return
        default = self.bench.settings.grader_name()
        answer = (ask or self._ask_name)(default)
        name = (answer or "").strip() or default
        self.take_settings(updated(self.bench.settings, ui={"grader": name}))

    def _ask_name(self, default: str) -> str | None:
        from cluestudio.gui.qt import QInputDialog

        name, ok = QInputDialog.getText(
            self, "Who is grading?", "Your name, as it should appear on your ratings and "
            "in exported tables:", text=default)
        return name if ok else None

    def open_log_folder(self) -> None:
        from cluestudio.logging_setup import log_dir

        self._open_folder(log_dir(), "Log folder")

    def open_workspace_folder(self) -> None:
        if self.bench.ws is not None:
            self._open_folder(self.bench.ws.path.parent, "Workspace folder")

    def _open_folder(self, folder: Path, what: str) -> None:
        """Show ``folder`` in the file manager; say where it is if there is none."""
        with contextlib.suppress(OSError):
            folder.mkdir(parents=True, exist_ok=True)
        opened = QtGui.QDesktopServices.openUrl(QtCore.QUrl.fromLocalFile(str(folder)))
        self.statusBar().showMessage(f"{what}: {folder}" if opened
                                     else f"{what}: {folder} (no file manager to open it)", 15000)

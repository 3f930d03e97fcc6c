"""The workbench window: assembles the two modes, the submission list, docks and actions.

It holds no logic of its own beyond wiring: user actions go to :class:`Workbench`
(operations), slow work to the job runner, and the modes draw submissions.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path

from cluestudio.core.errors import ClueStudioError
from cluestudio.core.settings import Settings, save_settings, updated
from cluestudio.core.workspace import Changes, Workspace
from cluestudio.gui.analysis_view import AnalysisView
from cluestudio.gui.commands import GRADING, REVIEW, WindowCommands
from cluestudio.gui.grading_mode import GradingMode
from cluestudio.gui.menus import build_menus
from cluestudio.gui.model_actions import ModelActions
from cluestudio.gui.navigator import Navigator, Row
from cluestudio.gui.operations import Workbench
from cluestudio.gui.qt import (
    QApplication,
    QDockWidget,
    QLabel,
    QMainWindow,
    QMessageBox,
    QSettings,
    QSplitter,
    Qt,
    QTabWidget,
    QtCore,
    QtGui,
    QWidget,
    Signal,
)
from cluestudio.gui.review_mode import ReviewMode
from cluestudio.gui.widgets.job_panel import ErrorPanel, JobStatus
from cluestudio.gui.worker import JobHandle, JobRunner, ProcessRunner
from cluestudio.gui.workspace_actions import WorkspaceActions


def _qsettings() -> QSettings:
    # Window layout only (ADR 0007); everything a user would edit lives in settings.toml.
    # An INI file beside it, so CLUESTUDIO_CONFIG_DIR (tests, portable installs) moves both.
    from cluestudio.core.settings import config_dir

    return QSettings(str(config_dir() / "window-layout.ini"), QSettings.Format.IniFormat)


def _splitter_keys(window: QMainWindow) -> list[tuple[str, QSplitter]]:
    """A stable key per splitter: creation order plus shape, so a changed layout after an
    upgrade finds no saved state instead of a wrong one."""
    return [(f"splitters/{i}-{s.orientation().name}-{s.count()}", s)
            for i, s in enumerate(window.findChildren(QSplitter))]


class MainWindow(QMainWindow):
    """Review and grading of one workspace; ``submission_shown`` after each navigation."""

    submission_shown = Signal(int)

    def __init__(self, runner: JobRunner, settings: Settings,
                 parent: QWidget | None = None, *,
                 processes: ProcessRunner | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("ClueStudio")
        self.setObjectName("clueStudioMain")
        self.runner = runner
        self.bench = Workbench(runner, settings, self, processes=processes)
        self.ask_before_discard = True  # tests turn the modal question off
        self._drafts: dict[int, str] = {}  # unsaved editor text per submission
        self._shown: dict[int, int | None] = {REVIEW: None, GRADING: None}

        self.review = ReviewMode(self.bench)
        self.grading = GradingMode(self.bench)
        self.modes = QTabWidget()
        self.modes.addTab(self.review, "Review conversion (F2)")
        self.modes.addTab(self.grading, "Grade (F3)")
        self.setCentralWidget(self.modes)
        self.navigator = Navigator()
        self.errors = ErrorPanel()
        self.job_status = JobStatus()
        self.statusBar().addPermanentWidget(self.job_status)
        self.workspace_label = QLabel()  # where the open workspace lives (first-run users)
        self.workspace_label.setObjectName("workspaceLocation")
        self.workspace_label.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse)
        self.statusBar().addPermanentWidget(self.workspace_label)
        self._dock("Submissions", self.navigator, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.error_dock = self._dock("Errors", self.errors,
                                     Qt.DockWidgetArea.BottomDockWidgetArea)
        self.error_dock.hide()
        self.resizeDocks([self.error_dock], [120], Qt.Orientation.Vertical)
        self.model_actions = ModelActions(self.bench, self.navigator.current_id, self)
        self.analysis = AnalysisView(self.bench)
        self.analysis_dock = self._dock("Analysis", self.analysis,
                                        Qt.DockWidgetArea.BottomDockWidgetArea)
        self.analysis_dock.hide()
        self.analysis.open_submission.connect(self.open_in_grading)
        self.files = WorkspaceActions(self)
        self.commands = WindowCommands(self)
        self.actions = build_menus(self.menuBar(), self.commands)
        self.undo_action, self.redo_action = self.actions["undo"], self.actions["redo"]
        self.blind_action = self.actions["blind_grading"]
        self.blind_action.setChecked(settings.ui.blind_grading)
        self.actions["dark_theme"].setChecked(settings.ui.theme == "dark")

        self.navigator.current_changed.connect(self._show_current)
        self.modes.currentChanged.connect(lambda _index: self._show_current())
        self.bench.changed.connect(self._on_changed)
        self.bench.workspace_opened.connect(self._on_workspace_opened)
        self.job_status.error_reported.connect(self.report_error)
        self.bench.plugin_failed.connect(lambda name, text: self.report_error(f"metric {name}",
                                                                               text))
        self.bench.scoring_failed.connect(lambda sid, text: self.report_error("score", text))
        self.bench.message.connect(lambda text: self.statusBar().showMessage(text, 8000))
        self.model_actions.job_started.connect(self.job_status.track)
        self.model_actions.failed.connect(self.report_error)
        self.model_actions.outcome.connect(self._on_model_outcome)
        for mode in (self.review, self.grading):
            mode.status.connect(lambda text: self.statusBar().showMessage(text, 6000))
        self.grading.rating_saved.connect(lambda _sid: self.refresh_rows())
        self.resize(1600, 960)
        self._restore_layout()

    # --- assembly -----------------------------------------------------------------------

    def _dock(self, title: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(f"dock-{title}")
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock

    # --- workspace ----------------------------------------------------------------------

    def open(self, ws: Workspace) -> None:
        self.bench.open(ws)
        self._remember_workspace(ws.path)

    def _on_workspace_opened(self) -> None:
        self._drafts.clear()
        self._shown = {REVIEW: None, GRADING: None}
        ws = self.bench.require()
        self.setWindowTitle(f"ClueStudio — {ws.path.name}")
        self.workspace_label.setText(f"Workspace: {ws.path}")
        self.workspace_label.setToolTip(f"This workspace is the file {ws.path}")
        self.refresh_rows()

    def refresh_rows(self) -> None:
        if self.bench.ws is None:
            return
        totals, clue = self.bench.totals(), self.bench.clue_scores()
        rows = [Row(s, totals.get(s.id), s.id in totals, clue.get(s.id))
                for s in self.bench.submissions()]
        tasks = [(t.id, t.title) for t in self.bench.require().tasks()]
        self.navigator.set_rows(rows, tasks)

    def _show_current(self, *_: object) -> None:
        sid = self.navigator.current_id()
        if sid is None or self.bench.ws is None:
            return
        index = self.modes.currentIndex()
        if index == REVIEW and self.review.view is not None and self.review.has_unsaved_text():
            self._drafts[self.review.view.submission.id] = self.review.editor.toPlainText()
        view = self.bench.view(sid)
        if index == REVIEW:
            self.review.show_submission(view)
            if sid in self._drafts:
                self.review.editor.setPlainText(self._drafts.pop(sid))
        else:
            self.grading.show_submission(view)
        self._shown[index] = sid
        self.submission_shown.emit(sid)
        self.bench.prefetch(self.navigator.neighbours())

    def _on_changed(self, changes: Changes) -> None:
        touched = changes.submissions
        if touched:
            self.refresh_rows()
        mode = self.review if self.modes.currentIndex() == REVIEW else self.grading
        if mode.view is not None and mode.view.submission.id in touched:
            if mode is self.review:
                self.review.refresh()
            elif changes.revisions or changes.scores:  # a rating change is already on screen
                self.grading.show_scores_of(self.bench.view(mode.view.submission.id))
        self._update_undo_labels()
        if changes.label:
            self.statusBar().showMessage(changes.label, 4000)

    def _update_undo_labels(self) -> None:
        undo, redo = self.bench.undo_label(), self.bench.redo_label()
        self.undo_action.setText(f"&Undo {undo}" if undo else "&Undo")
        self.redo_action.setText(f"&Redo {redo}" if redo else "&Redo")

    def _remember_workspace(self, path: Path) -> None:
        settings = updated(self.bench.settings, workspace={"last": str(path)})
        if settings != self.bench.settings:
            self.bench.settings = settings
            self._save_settings()

    def _save_settings(self) -> None:
        try:
            save_settings(self.bench.settings)
        except ClueStudioError as error:
            self.report_error("settings", str(error))

    # --- actions ------------------------------------------------------------------------

    def undo(self) -> None:
        self._guarded(self.bench.undo)

    def redo(self) -> None:
        self._guarded(self.bench.redo)

    def _guarded(self, action: Callable[[], object]) -> None:
        try:
            action()
        except ClueStudioError as error:
            self.statusBar().showMessage(str(error), 8000)

    def focus_panel(self) -> None:
        if self.modes.currentIndex() == REVIEW:
            self.review.verdict.setFocus()
        else:
            self.grading.rubric.setFocus()

    def score_current(self) -> JobHandle | None:
        sid = self.navigator.current_id()
        return self.job_status.track(self.bench.score([sid])) if sid is not None else None

    def score_listed(self) -> JobHandle | None:
        ids = self.navigator.ids()
        return self.job_status.track(self.bench.score(ids)) if ids else None

    def show_analysis(self) -> None:
        self.analysis_dock.show()
        self.analysis.refresh()

    def open_in_grading(self, submission_id: int) -> None:
        self.modes.setCurrentIndex(GRADING)
        if not self.navigator.select(submission_id, reveal=True):
            self.statusBar().showMessage(f"Submission {submission_id} is not listed", 6000)

    def _on_model_outcome(self, outcome: object) -> None:
        probe = getattr(outcome, "probe", None)
        if probe is not None:
            sid = outcome.submission_id  # type: ignore[attr-defined]
            self.review.set_probe(sid, probe)
            self.grading.set_probe(sid, probe)
        self.statusBar().showMessage(getattr(outcome, "summary", ""), 10000)

    def report_error(self, label: str, message: str) -> None:
        self.errors.add_error(label, message)
        if not self.error_dock.isVisible():
            self.error_dock.show()
            self.resizeDocks([self.error_dock], [110], Qt.Orientation.Vertical)

    def toggle_blind(self) -> None:
        blind = self.blind_action.isChecked()
        self.bench.settings = updated(self.bench.settings, ui={"blind_grading": blind})
        self.grading.metrics.set_blind(blind)
        self._save_settings()

    def toggle_theme(self) -> None:
        from cluestudio.gui.theme import apply_theme

        theme = "light" if self.bench.settings.ui.theme == "dark" else "dark"
        self.bench.settings = updated(self.bench.settings, ui={"theme": theme})
        apply_theme(QApplication.instance(), theme)  # type: ignore[arg-type]
        for editor in (self.review.editor, self.grading.reference_text,
                       self.grading.candidate_text):
            editor.apply_theme()
        self._save_settings()

    def settings_dialog(self) -> None:
        from cluestudio.gui.settings_dialog import SettingsDialog

        dialog = SettingsDialog(self.bench.settings, self)
        if dialog.exec():
            old_theme = self.bench.settings.ui.theme
            self.bench.settings = dialog.result_settings()
            self.grading.metrics.set_blind(self.bench.settings.ui.blind_grading)
            self.blind_action.setChecked(self.bench.settings.ui.blind_grading)
            if self.bench.settings.ui.theme != old_theme:
                self.bench.settings = updated(self.bench.settings, ui={"theme": old_theme})
                self.toggle_theme()
            self._save_settings()

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

    def _restore_layout(self) -> None:
        """Window size, docks and splitters as the user left them (the app's defaults first
        time, or when the saved layout no longer fits: Qt then ignores it)."""
        stored = _qsettings()
        if (geometry := stored.value("main/geometry")) is not None:
            self.restoreGeometry(geometry)
        if (state := stored.value("main/state")) is not None:
            self.restoreState(state)
        for key, splitter in _splitter_keys(self):
            if (sizes := stored.value(key)) is not None:
                splitter.restoreState(sizes)

    def _save_layout(self) -> None:
        stored = _qsettings()
        stored.setValue("main/geometry", self.saveGeometry())
        stored.setValue("main/state", self.saveState())
        for key, splitter in _splitter_keys(self):
            stored.setValue(key, splitter.saveState())
        stored.sync()

    # --- lifetime -----------------------------------------------------------------------

    def closeEvent(self, event) -> None:
        if self.ask_before_discard and (self.review.has_unsaved_text() or self._drafts):
            answer = QMessageBox.question(
                self, "Unsaved PlantUML", "Some PlantUML edits are not saved. Quit anyway?")
            if answer != QMessageBox.StandardButton.Yes:
                event.ignore()
                return
        self._save_layout()
        self.review.preview.cancel()
        self.bench.shutdown()
        super().closeEvent(event)

"""The workbench window: assembles the two modes, the submission list, docks and actions.

It holds no logic of its own beyond wiring: user actions go to :class:`Workbench`
(operations), slow work to the job runner, and the modes draw submissions.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from cluestudio.core.errors import ClueStudioError
from cluestudio.core.settings import Settings, save_settings, updated
from cluestudio.core.workspace import Changes, Workspace, open_workspace
from cluestudio.gui.grading_mode import GradingMode
from cluestudio.gui.navigator import Navigator, Row
from cluestudio.gui.operations import Workbench
from cluestudio.gui.qt import (
    QAction,
    QApplication,
    QDockWidget,
    QFileDialog,
    QKeySequence,
    QMainWindow,
    QMessageBox,
    QSettings,
    Qt,
    QTabWidget,
    QWidget,
    Signal,
)
from cluestudio.gui.review_mode import ReviewMode
from cluestudio.gui.widgets.job_panel import ErrorPanel, JobStatus
from cluestudio.gui.worker import JobRunner

REVIEW, GRADING = 0, 1


def _qsettings() -> QSettings:
    # Window geometry only (ADR 0007); everything a user would edit lives in settings.toml.
    return QSettings("ClueStudio", "ClueStudio")


class MainWindow(QMainWindow):
    """Review and grading of one workspace; ``submission_shown`` after each navigation."""

    submission_shown = Signal(int)

    def __init__(self, runner: JobRunner, settings: Settings,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("ClueStudio")
        self.setObjectName("clueStudioMain")
        self.runner = runner
        self.bench = Workbench(runner, settings, self)
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
        self.job_status = JobStatus(runner)
        self.statusBar().addPermanentWidget(self.job_status)
        self._dock("Submissions", self.navigator, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.error_dock = self._dock("Errors", self.errors,
                                     Qt.DockWidgetArea.BottomDockWidgetArea)
        self.error_dock.hide()
        self.resizeDocks([self.error_dock], [120], Qt.Orientation.Vertical)
        self._build_actions()

        self.navigator.current_changed.connect(self._show_current)
        self.modes.currentChanged.connect(lambda _index: self._show_current())
        self.bench.changed.connect(self._on_changed)
        self.bench.scores_ready.connect(self._on_scores)
        self.bench.workspace_opened.connect(self._on_workspace_opened)
        self.job_status.error_reported.connect(self._on_job_error)
        for mode in (self.review, self.grading):
            mode.status.connect(lambda text: self.statusBar().showMessage(text, 6000))
        self.grading.rating_saved.connect(lambda _sid: self._refresh_rows())
        self.resize(1600, 960)
        geometry = _qsettings().value("main/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)

    # --- assembly -----------------------------------------------------------------------

    def _dock(self, title: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(f"dock-{title}")
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock

    def _action(self, menu, text: str, slot: Callable[[], object], shortcut: str = "",
                checkable: bool = False) -> QAction:
        action = QAction(text, self)
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
        action.setCheckable(checkable)
        action.triggered.connect(lambda _checked=False: slot())
        menu.addAction(action)
        return action

    def _build_actions(self) -> None:
        bar = self.menuBar()
        m = bar.addMenu("&File")
        self._action(m, "&New workspace…", self.new_workspace, "Ctrl+N")
        self._action(m, "&Open workspace…", self.open_workspace_dialog, "Ctrl+O")
        self._action(m, "&Import course folder or JSONL…", self.import_dialog, "Ctrl+I")
        self._action(m, "&Export tables…", self.export_dialog, "Ctrl+E")
        m.addSeparator()
        self._action(m, "&Settings…", self.settings_dialog, "Ctrl+,")
        self._action(m, "&Quit", self.close, "Ctrl+Q")
        m = bar.addMenu("&Edit")
        self.undo_action = self._action(m, "&Undo", self.undo, "Ctrl+Z")
        self.redo_action = self._action(m, "&Redo", self.redo, "Ctrl+Shift+Z")
        m = bar.addMenu("&Go")
        self._action(m, "&Next submission", lambda: self.navigator.step(1), "Ctrl+PgDown")
        self._action(m, "&Previous submission", lambda: self.navigator.step(-1), "Ctrl+PgUp")
        self._action(m, "Next &unrated", self.navigator.next_unrated, "Ctrl+Shift+PgDown")
        self._action(m, "&Review mode", lambda: self.modes.setCurrentIndex(REVIEW), "F2")
        self._action(m, "&Grading mode", lambda: self.modes.setCurrentIndex(GRADING), "F3")
        self._action(m, "Focus rubric / verdict", self.focus_panel, "F4")
        self._action(m, "Focus PlantUML editor", self.review.editor.setFocus, "F6")
        m = bar.addMenu("&Review")
        self._action(m, "&Save revision", self.review.save_revision, "Ctrl+S")
        for key, (verdict, text) in enumerate((("accept", "Accept"), ("needs_fix", "Needs fix"),
                                               ("unusable", "Unusable")), 1):
            self._action(m, f"Verdict: {text}",
                         lambda v=verdict: self.review.verdict.set_verdict(v), f"Ctrl+{key}")
        self._action(m, "&Compare A/B", lambda: self.review.set_compare(
            not self.review.compare_button.isChecked()), "Ctrl+K")
        m = bar.addMenu("&View")
        self._action(m, "&Fit images", self._sync_call("fit_all"), "Ctrl+0")
        self._action(m, "&Actual size", self._sync_call("actual_size_all"), "Ctrl+Shift+0")
        self._action(m, "Zoom &in", self._sync_call("zoom_all", 1.25), "Ctrl+=")
        self._action(m, "Zoom &out", self._sync_call("zoom_all", 0.8), "Ctrl+-")
        self.blind_action = self._action(m, "&Blind grading", self.toggle_blind, checkable=True)
        self.blind_action.setChecked(self.bench.settings.ui.blind_grading)
        self._action(m, "&Dark theme", self.toggle_theme, checkable=True).setChecked(
            self.bench.settings.ui.theme == "dark")
        self._action(m, "&Errors", self.error_dock.show)
        m = bar.addMenu("&Jobs")
        self._action(m, "&Score this submission", self.score_current, "Ctrl+R")
        self._action(m, "Score &all listed", self.score_listed, "Ctrl+Shift+R")
        self._action(m, "&Cancel running job", self.job_status.cancel, "Ctrl+.")

    def _sync_call(self, name: str, *args: float) -> Callable[[], object]:
        def call() -> object:
            mode = self.review if self.modes.currentIndex() == REVIEW else self.grading
            return getattr(mode.sync, name)(*args)
        return call

    # --- workspace ----------------------------------------------------------------------

    def open(self, ws: Workspace) -> None:
        self.bench.open(ws)
        self._remember_workspace(ws.path)

    def _on_workspace_opened(self) -> None:
        self._drafts.clear()
        self._shown = {REVIEW: None, GRADING: None}
        ws = self.bench.require()
        self.setWindowTitle(f"ClueStudio — {ws.path.name}")
        self._refresh_rows()

    def _refresh_rows(self) -> None:
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
        touched = changes.ratings | changes.revisions | changes.reviews
        if changes.revisions or changes.reviews or changes.ratings:
            self._refresh_rows()
        mode = self.review if self.modes.currentIndex() == REVIEW else self.grading
        if mode.view is not None and mode.view.submission.id in touched:
            if mode is self.review:
                self.review.refresh()
            elif changes.revisions:  # a rating change is already on screen
                self.grading.show_submission(self.bench.view(mode.view.submission.id))
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
            self._on_job_error("settings", str(error))

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

    def score_current(self) -> None:
        sid = self.navigator.current_id()
        if sid is not None:
            self.job_status.track(self.bench.score([sid]))

    def score_listed(self) -> None:
        ids = self.navigator.ids()
        if ids:
            self.job_status.track(self.bench.score(ids))

    def _on_scores(self, scores: dict) -> None:
        self.grading.set_scores(scores)
        for value in scores.values():
            if isinstance(value, dict) and "error" in value:
                self._on_job_error("score", value["error"])
        self._refresh_rows()

    def _on_job_error(self, label: str, message: str) -> None:
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

    def new_workspace(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "New workspace", "", "Workspace (*.sqlite)")
        if path:
            self._guarded(lambda: self.open(open_workspace(Path(path))))

    def open_workspace_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open workspace", "", "Workspace (*.sqlite)")
        if path:
            self._guarded(lambda: self.open(open_workspace(Path(path), create=False)))

    def import_dialog(self) -> None:
        from cluestudio.core.workspace import import_path

        path = QFileDialog.getExistingDirectory(self, "Import course folder")
        if not path:
            path, _ = QFileDialog.getOpenFileName(self, "Import JSONL", "", "JSONL (*.jsonl)")
        if path and self.bench.ws is not None:
            ws = self.bench.ws
            handle = self.runner.submit(lambda cancel: import_path(ws, Path(path), cancel),
                                        f"import {Path(path).name}")
            self.job_status.track(handle)
            self.runner.finished.connect(
                lambda job_id: job_id == handle.id and self._refresh_rows())

    def export_dialog(self) -> None:
        from cluestudio.core.workspace.export import export_tables

        path = QFileDialog.getExistingDirectory(self, "Export tables to folder")
        if path and self.bench.ws is not None:
            ws = self.bench.ws
            self.job_status.track(self.runner.submit(
                lambda cancel: export_tables(ws, Path(path)), "export tables"))

    # --- lifetime -----------------------------------------------------------------------

    def closeEvent(self, event) -> None:
        if self.ask_before_discard and (self.review.has_unsaved_text() or self._drafts):
            answer = QMessageBox.question(
                self, "Unsaved PlantUML", "Some PlantUML edits are not saved. Quit anyway?")
            if answer != QMessageBox.StandardButton.Yes:
                event.ignore()
                return
        _qsettings().setValue("main/geometry", self.saveGeometry())
        self.review.preview.cancel()
        self.bench.close()
        super().closeEvent(event)

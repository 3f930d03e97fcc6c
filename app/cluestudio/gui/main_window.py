"""The workbench window: assembles the two modes, the submission list, docks and actions.

It holds no logic of its own beyond wiring: user actions go to :class:`Workbench`
(operations), slow work to the job runner, and the modes draw submissions.
"""

from __future__ import annotations

from collections.abc import Callable

from cluestudio.app.model_jobs import ModelOutcome
from cluestudio.app.submissions import ListRow, list_rows
from cluestudio.core.errors import ClueStudioError
from cluestudio.core.settings import Settings
from cluestudio.core.workspace import Changes, Workspace
from cluestudio.gui import window_layout
from cluestudio.gui.analysis_view import AnalysisView
from cluestudio.gui.commands import ANALYSIS, GRADING, REVIEW, WindowCommands
from cluestudio.gui.grading_mode import GradingMode
from cluestudio.gui.group_actions import GroupActions
from cluestudio.gui.heading import Heading
from cluestudio.gui.menus import build_menus
from cluestudio.gui.model_actions import ModelActions
from cluestudio.gui.navigator import Navigator, Row
from cluestudio.gui.operations import Workbench
from cluestudio.gui.qt import (
    QDockWidget,
    Qt,
    QTabWidget,
    QTimer,
    QVBoxLayout,
    QWidget,
    Signal,
)
from cluestudio.gui.review_mode import ReviewMode
from cluestudio.gui.single_instance import WorkspaceBeacon, bring_forward
from cluestudio.gui.undo_focus import FocusUndo
from cluestudio.gui.unsaved import confirm_quit, unsaved_edits
from cluestudio.gui.widgets.job_panel import ErrorPanel, JobStatus
from cluestudio.gui.widgets.status_line import ElidedLabel, StatusLine
from cluestudio.gui.widgets.zoom_bar import ZoomBar
from cluestudio.gui.window_preferences import WindowPreferences
from cluestudio.gui.worker import JobHandle, JobRunner, ProcessRunner
from cluestudio.gui.workspace_actions import WorkspaceActions


class MainWindow(WindowPreferences):
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
        self._painted = False  # first paint done: background start-ups may begin

        self.review = ReviewMode(self.bench)
        self.grading = GradingMode(self.bench)
        self.analysis = AnalysisView(self.bench)
        self.modes = QTabWidget()
        self.modes.addTab(self.review, "Review conversion (F2)")
        self.modes.addTab(self.grading, "Grade (F3)")
        self.modes.addTab(self.analysis, "Analysis (Ctrl+Shift+A)")
        self.heading = Heading()
        central = QWidget()
        column = QVBoxLayout(central)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.heading)
        column.addWidget(self.modes, 1)
        self.setCentralWidget(central)
        self.navigator = Navigator()
        self.errors = ErrorPanel()
        self.setStatusBar(StatusLine())  # fits 1024 px: each part elided, whole in tooltips
        self.job_status = JobStatus()
        self.statusBar().addPermanentWidget(self.job_status)
        # where the open workspace lives (first-run users); a third of the row at most
        self.workspace_label = ElidedLabel(Qt.TextElideMode.ElideMiddle, share=1 / 3)
        self.workspace_label.setObjectName("workspaceLocation")
        self.workspace_label.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse)
        self.statusBar().addPermanentWidget(self.workspace_label)
        self.navigator_dock = self._dock("Submissions", self.navigator,
                                         Qt.DockWidgetArea.LeftDockWidgetArea)
        self.error_dock = self._dock("Errors", self.errors,
                                     Qt.DockWidgetArea.BottomDockWidgetArea)
        self.error_dock.hide()
        self.model_actions = ModelActions(self.bench, self.navigator.current_id, self)
        self.analysis.open_submission.connect(self.open_in_grading)
        self.groups = GroupActions(self.bench, self._graded_view, self.grading.group_panel,
                                   self)
        self.groups.job_started.connect(self.job_status.track)
        self.groups.status.connect(lambda text: self.statusBar().showMessage(text, 10000))
        self.files = WorkspaceActions(self)
        self.beacon = WorkspaceBeacon(self)  # a second instance asks this window forward
        self.beacon.raise_requested.connect(lambda: bring_forward(self))
        self.commands = WindowCommands(self)
        self.menu_actions, key_problems = build_menus(self.menuBar(), self.commands,
                                                      settings.keymap())
        for problem in key_problems:
            self.errors.add_error("settings", problem)
        shortcuts = {name: action.shortcut().toString()
                     for name, action in self.menu_actions.items()}
        for bar in self.findChildren(ZoomBar):
            bar.set_shortcuts(shortcuts)
        self.grading.rubric.set_comment_key(shortcuts.get("focus_comment", ""))
        self.review.doubts.set_keys(shortcuts)  # F9's note, the empty editor's hint
        self.files.recent.attach(self.menu_actions["open_recent"])
        self.grading.group_panel.set_shortcuts(shortcuts.get("find_groups", ""),
                                               shortcuts.get("apply_group_rating", ""))
        for mode in (self.review, self.grading):
            key = shortcuts.get("element_diff", "")
            mode.diff_button.setToolTip(mode.diff_button.toolTip().split(" (")[0]
                                        + (f" ({key})" if key else ""))
            mode.diff_toggled.connect(lambda _on: self.sync_diff_action())
        self.undo_action, self.redo_action = self.menu_actions["undo"], self.menu_actions["redo"]
        self.focus_undo = FocusUndo(self, self.undo_action, self.redo_action,
                                    self.bench.session, self._guarded)
        self.blind_action = self.menu_actions["blind_grading"]
        self.blind_action.setChecked(settings.ui.blind_grading)
        self.menu_actions["dark_theme"].setChecked(settings.ui.theme == "dark")
        self.navigator.set_blind(settings.ui.blind_grading)

        self.navigator.current_changed.connect(self._show_current)
        self.navigator.emptied.connect(self._show_nothing)
        self.modes.currentChanged.connect(lambda _index: self._show_current())
        self.modes.currentChanged.connect(lambda _index: self.sync_diff_action())
        self.bench.changed.connect(self._on_changed)
        self.bench.workspace_opened.connect(self._on_workspace_opened)
        self.job_status.error_reported.connect(self.report_error)
        self.bench.plugin_failed.connect(lambda name, text: self.report_error(f"metric {name}",
                                                                               text))
        self.bench.problem.connect(self.report_error)
        self.bench.message.connect(lambda text: self.statusBar().showMessage(text, 8000))
        self.model_actions.job_started.connect(self.job_status.track)
        self.model_actions.failed.connect(self.report_error)
        self.model_actions.outcome.connect(self._on_model_outcome)
        self.review.job_started.connect(self.job_status.track)
        for mode in (self.review, self.grading):
            mode.status.connect(lambda text: self.statusBar().showMessage(text, 6000))
        self.grading.rating_saved.connect(self._on_rating_saved)
        self.grading.draft_changed.connect(self.navigator.mark_draft)
        # Every part can shrink: the window fits a 1366×768 screen with all modes usable.
        self.setMinimumSize(800, 560)
        self.resize(1366, 768)
        window_layout.restore_layout(self)

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
        ws = self.bench.session.require()
        read_only = " (read-only)" if ws.readonly else ""  # open in another window
        self.setWindowTitle(f"ClueStudio — {ws.path.name}{read_only}")
        self.workspace_label.setText(f"Workspace{read_only}: {ws.path}")
        if ws.readonly:
            self.beacon.stop()
        else:
            self.beacon.listen(ws.path)
        self.workspace_label.setToolTip(f"This workspace is the file {ws.path}")
        # Nothing of the previous workspace stays on screen: a submission id there is
        # another submission here.
        empty = ("This workspace has no submissions yet: File → Import course folder "
                 "(Ctrl+I) or JSONL file.")
        self.review.clear(empty)
        self.grading.clear(empty)
        self.refresh_rows(reset=True)
        window_layout.restore_position(self)
        self.analysis.clear()
        if self.focusWidget() is None:
            self.navigator.table.setFocus()  # keyboard users start in the list

    def refresh_rows(self, reset: bool = False) -> None:
        """Every row of the list again (a workspace opened, an import or merge ended)."""
        if self.bench.ws is None:
            return
        ws = self.bench.session.require()
        rows = self._rows(list_rows(ws, self.bench.grader))  # each task's own rubric
        tasks = [(t.id, t.title) for t in ws.tasks()]
        self.navigator.set_rows(rows, tasks, reset=reset)
        window_layout.keep_list_readable(self)
        self._update_heading()

    def refresh_ids(self, submission_ids: frozenset[int]) -> None:
        """The rows of these submissions only (a scoring chunk, a rating, an undo): a few
        narrowed queries and a data change per row, so a long course does not stall."""
        if self.bench.ws is None or not submission_ids:
            return
        listed = list_rows(self.bench.session.require(), self.bench.grader,
                           submission_ids=submission_ids)
        if len(listed) != len(submission_ids) or not self.navigator.update_rows(
                self._rows(listed)):
            self.refresh_rows()  # a submission came or went: the whole list
            return
        self._update_heading()

    def _rows(self, listed: list[ListRow]) -> list[Row]:
        """List rows with this grader's draft marks (a draft of a rated one is no draft)."""
        drafts = self.bench.drafts.identities() if self.bench.drafts is not None else {}
        return [Row.of(r, not r.rated and drafts.get(r.summary.id)
                       == f"{r.summary.task_id}/{r.summary.source_id}") for r in listed]

    def _show_current(self, *_: object) -> None:
        sid = self.navigator.current_id()
        if sid is None or self.bench.ws is None:
            self._update_heading()
            return
        index = self.modes.currentIndex()
        if index == ANALYSIS:
            self._update_heading()
            return
        self._stash_review_text()
        # The mode not shown lets go of its submission (it shows the current one when it is
        # switched to): no key can act on a submission that is not on screen.
        hidden = self.grading if index == REVIEW else self.review
        if hidden.view is not None and hidden.view.submission.id != sid:
            hidden.release()
        view = self.bench.session.view(sid)
        if index == REVIEW:
            self.review.show_submission(view)
            if (kept := self.bench.session.take_review_text(sid)) is not None:
                self.review.editor.setPlainText(kept)
        else:
            self.grading.show_submission(view)
            self.groups.show(view)
        self._update_heading()
        self.submission_shown.emit(sid)
        self.bench.prefetch(self.navigator.neighbours())

    def _stash_review_text(self) -> None:
        """Keep the review editor's unsaved text for when its submission comes back."""
        if self.review.view is not None and self.review.has_unsaved_text():
            self.bench.session.keep_review_text(self.review.view.submission.id,
                                        self.review.editor.toPlainText())

    def _show_nothing(self) -> None:
        """No submission is listed: none is shown either, so no save can reach one."""
        self._stash_review_text()
        message = "No submission matches the filters (Submissions panel)."
        self.review.clear(message)
        self.grading.clear(message)
        self._update_heading()

    def _update_heading(self) -> None:
        """Where am I: task, submission, place in the list, how much of it I rated."""
        sid = self.navigator.current_id()
        rows = self.navigator.model.rows
        rated = sum(1 for r in rows if r.rated)
        place, listed = self.navigator.position()
        row = self.navigator.row(sid) if sid is not None else None
        task = self.bench.session.task(row.summary.task_id) if row is not None else None
        self.heading.describe(
            task_title=task.title if task else "", task_kind=task.diagram_kind if task else "",
            submission=row.summary.source_id if row else "", place=place, listed=listed,
            rated=rated, total=len(rows), grader=self.bench.grader,
            mode=self.modes.tabText(self.modes.currentIndex()).split(" (")[0])

    def _on_changed(self, changes: Changes) -> None:
        touched = changes.submissions
        if touched:
            self.refresh_ids(touched)
        mode = self.modes.currentIndex()
        if mode == REVIEW and self.review.view is not None:
            sid = self.review.view.submission.id
            if changes.made_by(self.review):
                self.review.take_own_change()  # its editor and panel show it already
            elif sid in changes.revisions or sid in changes.reviews:
                self.review.refresh()
            elif sid in changes.checks:
                self.review.show_check()
        elif mode == GRADING and self.grading.view is not None:
            sid = self.grading.view.submission.id
            if sid in changes.ratings and not changes.made_by(self.grading):
                # The record changed under the panel (undo, redo): show what is saved now.
                self.grading.show_rating_of(self.bench.session.view(sid))
            if sid in changes.revisions or sid in changes.scores:
                self.grading.show_scores_of(self.bench.session.view(sid))
            if sid in changes.ratings or sid in changes.revisions:
                # its group mark or its group changed
                self.groups.show(self.bench.session.view(sid))
        self._update_undo_labels()
        if changes.label:
            self.statusBar().showMessage(self.bench.session.named(changes.label) or "", 4000)

    def _graded_view(self):  # -> SubmissionView | None
        """The submission grading mode shows, while it is on screen (group actions)."""
        return self.grading.view if self.modes.currentIndex() == GRADING else None

    def _on_rating_saved(self, sid: int, advance: bool) -> None:
        if advance and not self.navigator.next_unrated():
            self.statusBar().showMessage("Every listed submission is rated by you.", 8000)

    def _update_undo_labels(self) -> None:
        self.focus_undo.update()  # the focused text field's typing, or the workspace's

    # --- actions ------------------------------------------------------------------------

    def undo(self) -> None:
        self.focus_undo.undo()

    def redo(self) -> None:
        self.focus_undo.redo()

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

    def check_current(self) -> JobHandle | None:
        sid = self.navigator.current_id()
        return self.job_status.track(self.bench.check([sid])) if sid is not None else None

    def check_listed(self) -> JobHandle | None:
        ids = self.navigator.ids()
        return self.job_status.track(self.bench.check(ids)) if ids else None

    def show_analysis(self) -> None:
        self.modes.setCurrentIndex(ANALYSIS)
        self.analysis.refresh()

    def open_in_grading(self, submission_id: int) -> None:
        self.modes.setCurrentIndex(GRADING)
        if not self.navigator.select(submission_id, reveal=True):
            found = self.bench.ws.submission(submission_id) if self.bench.ws else None
            named = f"{found.task_id} · {found.source_id}" if found else "That submission"
            self.statusBar().showMessage(f"{named} is not listed", 6000)  # as the list names it

    def _on_model_outcome(self, outcome: ModelOutcome) -> None:
        if outcome.probe is not None:
            sid = outcome.submission_id
            self.review.set_probe(sid, outcome.probe)
            self.grading.set_probe(sid, outcome.probe)
        self.statusBar().showMessage(outcome.summary, 10000)

    def report_error(self, label: str, message: str) -> None:
        self.errors.add_error(label, message)
        if not self.error_dock.isVisible():
            self.error_dock.show()
            self.resizeDocks([self.error_dock], [110], Qt.Orientation.Vertical)

    # --- lifetime -----------------------------------------------------------------------

    def paintEvent(self, event) -> None:
        super().paintEvent(event)
        if not self._painted:  # the window is on screen: now the background start-ups
            self._painted = True
            QTimer.singleShot(0, self.bench.start_warm_ups)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        window_layout.after_first_show(self)  # the frame is known now: all of it on screen

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        window_layout.keep_list_readable(self)  # e.g. maximised: names get their room back

    def closeEvent(self, event) -> None:
        if (self.ask_before_discard and (names := unsaved_edits(self.bench.session, self.review))
                and not confirm_quit(self, names)):
            event.ignore()
            return
        window_layout.save_layout(self)
        window_layout.remember_position(self, GRADING)
        self.beacon.stop()
        self.review.preview.cancel()
        self.bench.shutdown()
        super().closeEvent(event)

"""Every action the menus, shortcuts and toolbar offer, as one method each.

The menu bar (:mod:`.menus`) knows action *names* only; this class is the one place that
knows which part of the window carries each out. Tests drive a session through the same
methods a user's keys reach.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cluestudio.gui.qt import QObject

if TYPE_CHECKING:
    from cluestudio.gui.widgets.image_views import ZoomSync
    from cluestudio.gui.window_parts import WindowParts

REVIEW, GRADING, ANALYSIS = 0, 1, 2  # tab indexes of the modes


class WindowCommands(QObject):
    """The window's actions by name (see :data:`cluestudio.gui.menus.MENUS`)."""

    def __init__(self, window: WindowParts) -> None:
        super().__init__(window)
        self.w = window

    # File
    def new_workspace(self) -> None:
        self.w.files.new_workspace()

    def open_workspace(self) -> None:
        self.w.files.open_workspace()

    def open_recent(self) -> None:
        self.w.files.recent.show_menu()

    def import_course_folder(self) -> None:
        self.w.files.import_course_folder()

    def import_jsonl(self) -> None:
        self.w.files.import_jsonl()

    def merge_packs(self) -> None:
        self.w.files.merge_packs()

    def export_tables(self) -> None:
        self.w.files.export_tables()

    def export_pack(self) -> None:
        self.w.files.export_pack()

    @property
    def handback(self) -> Any:
        """Feedback, gradebook, comments and adjudication (gui/handback_actions.py)."""
        if getattr(self, "_handback", None) is None:
            from cluestudio.gui.handback_actions import HandbackActions

            self._handback = HandbackActions(self.w)
        return self._handback

    def import_roster(self) -> None:
        self.handback.import_roster()

    def export_feedback(self) -> None:
        self.handback.export_feedback()

    def export_gradebook(self) -> None:
        self.handback.export_gradebook()

    def settings(self) -> None:
        self.w.settings_dialog()

    def quit(self) -> None:
        self.w.close()

    # Edit
    def undo(self) -> None:
        self.w.undo()

    def redo(self) -> None:
        self.w.redo()

    # Go
    def next_submission(self) -> None:
        self.w.navigator.step(1)

    def previous_submission(self) -> None:
        self.w.navigator.step(-1)

    def next_unrated(self) -> None:
        self.w.navigator.next_unrated()

    def review_mode(self) -> None:
        self.w.modes.setCurrentIndex(REVIEW)

    def grading_mode(self) -> None:
        self.w.modes.setCurrentIndex(GRADING)

    def focus_panel(self) -> None:
        self.w.focus_panel()

    def focus_comment(self) -> None:
        self.w.modes.setCurrentIndex(GRADING)
        self.w.grading.rubric.focus_comment()

    def focus_editor(self) -> None:
        self.w.review.editor.setFocus()

    # Review: only while review mode is on screen (a key never acts on a hidden submission)
    def _in_review(self) -> bool:
        if self.w.modes.currentIndex() == REVIEW:
            return True
        self.w.statusBar().showMessage("That is a review action: switch to review mode (F2) "
                                       "first", 6000)
        return False

    def save_revision(self) -> None:
        if self._in_review():
            self.w.review.save_revision()

    def verdict_accept(self) -> None:
        if self._in_review():
            self.w.review.verdict.set_verdict("accept")

    def verdict_needs_fix(self) -> None:
        if self._in_review():
            self.w.review.verdict.set_verdict("needs_fix")

    def verdict_unusable(self) -> None:
        if self._in_review():
            self.w.review.verdict.set_verdict("unusable")

    def next_doubt(self) -> None:
        if self._in_review() and self.w.review.doubts.go_to_next() is None:
            self.w.statusBar().showMessage("No doubtful element of the offline draft here", 4000)

    def compare(self) -> None:
        if self._in_review():
            self.w.review.set_compare(not self.w.review.compare_button.isChecked())

    # Grade: on the submission on screen in grading mode (the controller says so otherwise)
    def find_groups(self) -> None:
        self.w.groups.find_groups()  # its job_started puts it in the status bar

    def apply_group_rating(self) -> None:
        self.w.groups.apply_to_group()

    def comments(self) -> None:
        self.handback.comments()

    def adjudication(self) -> None:
        self.handback.adjudication()

    # View
    def _sync(self) -> ZoomSync:
        mode = self.w.grading if self.w.modes.currentIndex() == GRADING else self.w.review
        return mode.sync

    def fit_images(self) -> None:
        self._sync().fit_all()

    def readable_zoom(self) -> None:
        self._sync().readable_all()

    def actual_size(self) -> None:
        self._sync().actual_size_all()

    def zoom_in(self) -> None:
        self._sync().zoom_all(1.25)

    def zoom_out(self) -> None:
        self._sync().zoom_all(0.8)

    def element_diff(self) -> None:
        mode = self.w.grading if self.w.modes.currentIndex() == GRADING else self.w.review
        if self.w.modes.currentIndex() == ANALYSIS:
            self.w.statusBar().showMessage("The element diff colours image B: switch to "
                                           "review (F2) or grading (F3) first", 6000)
        else:
            mode.set_element_diff(not mode.diff_on())
        self.w.sync_diff_action()

    def blind_grading(self) -> None:
        self.w.toggle_blind()

    def dark_theme(self) -> None:
        self.w.toggle_theme()

    def show_errors(self) -> None:
        self.w.error_dock.show()

    def show_analysis(self) -> None:
        self.w.show_analysis()

    # Jobs
    def score_current(self) -> None:
        self.w.score_current()

    def score_listed(self) -> None:
        self.w.score_listed()

    def check_current(self) -> None:
        self.w.check_current()

    def check_listed(self) -> None:
        self.w.check_listed()

    def cancel_job(self) -> None:
        self.w.job_status.cancel()

    # Tools
    def convert(self) -> None:
        self.w.model_actions.convert()

    def probe(self) -> None:
        self.w.model_actions.probe()

    def draft_offline(self) -> None:
        self.w.model_actions.draft_offline()

    # Help
    def keyboard_shortcuts(self) -> None:
        self.w.keyboard_shortcuts()

    def open_log_folder(self) -> None:
        self.w.open_log_folder()

    def open_workspace_folder(self) -> None:
        self.w.open_workspace_folder()

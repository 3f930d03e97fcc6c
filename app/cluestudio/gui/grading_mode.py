"""Grading mode: requirement | reference | candidate (A or B) | rubric and metrics.

The grader scores by keyboard in the rubric panel (Ctrl+Return saves, time is measured);
the metric panel shows CLUE with its explanation, and clicking a matched pair marks both
elements' lines in the reference and candidate PlantUML. With blind grading the metrics stay
hidden until the rating is saved. The element diff (Ctrl+D) shows image B coloured by each
element's CLUE match and lists what the reference has and B lacks (gui/element_diff.py).
"""

from __future__ import annotations

from typing import cast

from cluestudio.app import preview
from cluestudio.app.submissions import SubmissionView
from cluestudio.core.errors import ClueStudioError
from cluestudio.core.workspace import kinds
from cluestudio.gui.element_diff import DiffOnB, DiffPicture, why_no_diff
from cluestudio.gui.operations import Workbench
from cluestudio.gui.qt import (
    QHBoxLayout,
    QSplitter,
    Qt,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
    Signal,
)
from cluestudio.gui.widgets.group_panel import GroupPanel
from cluestudio.gui.widgets.image_views import DiagramImageView, ZoomSync
from cluestudio.gui.widgets.metric_panel import MetricPanel
from cluestudio.gui.widgets.plantuml_editor import PlantUMLEditor
from cluestudio.gui.widgets.rubric_panel import RubricPanel
from cluestudio.gui.widgets.zoom_bar import ZoomBar
from cluestudio.gui.worker import INTERACTIVE, LatestJob


def _read_only_editor() -> PlantUMLEditor:
    editor = PlantUMLEditor()
    editor.setReadOnly(True)
    return editor


class GradingMode(QWidget):
    """Rates one submission at a time; ``rating_saved(id, advance)`` after each save
    (advance: the grader asked to move on to the next unrated submission)."""

    rating_saved = Signal(int, bool)
    images_shown = Signal(int)  # submission id, once reference and candidate are on screen
    status = Signal(str)
    draft_changed = Signal(int, bool)  # submission id, whether it has an unsaved draft now
    diff_toggled = Signal(bool)  # the element diff was switched on or off
    diff_shown = Signal(int)  # submission id, once B shows its element diff

    def __init__(self, bench: Workbench, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bench = bench
        self.view: SubmissionView | None = None
        self._render_job = LatestJob()
        self.requirement = QTextBrowser()
        self.reference_image = DiagramImageView("Rendering the reference…")
        self.reference_text = _read_only_editor()
        self.image_a = DiagramImageView("No image A")
        self.image_b = DiagramImageView("Rendering…")
        self.candidate_text = _read_only_editor()
        self.sync = ZoomSync([self.reference_image, self.image_a, self.image_b], self)
        self.rubric = RubricPanel(bench.default_rubric)  # then each task kind's
        self.metrics = MetricPanel()
        self.metrics.set_blind(bench.settings.ui.blind_grading)
        self.b_diff = DiffOnB(bench, self.image_b, "Colour B by each element's CLUE match with "
                            "the reference and list what it lacks (Ctrl+D)",
                            lambda: self.view.head_puml if self.view else None,
                            self._show_plain_b, self)
        self.diff_button, self.diff_note = self.b_diff.button, self.b_diff.note

        self.reference_tabs = QTabWidget()
        self.reference_tabs.addTab(self.requirement, "Requirement")
        self.reference_tabs.addTab(self.reference_image, "Reference")
        self.reference_tabs.addTab(self.reference_text, "Reference PlantUML")
        self.reference_tabs.setCurrentWidget(self.reference_image)  # the requirement on ask
        self.candidate_tabs = QTabWidget()
        self.candidate_tabs.addTab(self.image_a, "A: submitted")
        self.candidate_tabs.addTab(self.image_b, "B: re-rendered")
        self.candidate_tabs.addTab(self.candidate_text, "PlantUML")

        self.group_panel = GroupPanel()  # filled by gui/group_actions.py
        self.rubric.setMinimumWidth(240)  # it scrolls its items itself
        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(self.rubric)
        right.addWidget(self.group_panel)
        right.addWidget(self.metrics)
        right.setSizes([380, 110, 240])
        candidate = QWidget()
        column = QVBoxLayout(candidate)
        column.setContentsMargins(2, 2, 2, 2)
        column.addWidget(self.diff_note)
        column.addWidget(self.candidate_tabs, 1)
        below_b = QHBoxLayout()
        below_b.addWidget(ZoomBar(self.sync, shows=((self.image_a, "A"), (self.image_b, "B"))),
                          1)  # the candidate tab's zoom, by its name
        below_b.addWidget(self.diff_button)
        column.addLayout(below_b)
        for pane in (self.reference_tabs, self.candidate_tabs, self.metrics):
            pane.setMinimumSize(150, 100)
        candidate.setMinimumWidth(200)  # below its zoom bar's width: at 1024 px the list
        # beside this mode keeps readable names (issue 24); the rubric column keeps its own
        # Requirement and reference share a column (tabs); the candidate beside them; the
        # rubric on the right: three columns fit a 1366-pixel screen.
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        for column_widget in (self.reference_tabs, candidate, right):
            self.splitter.addWidget(column_widget)
        self.splitter.setStretchFactor(0, 4)
        self.splitter.setStretchFactor(1, 5)
        self.splitter.setStretchFactor(2, 3)
        self.splitter.setSizes([400, 480, 340])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.splitter)

        self.rubric.save_requested.connect(self.save_rating)
        self.rubric.changed.connect(self._keep_draft)
        self.metrics.pair_selected.connect(self.highlight_pair)
        self.b_diff.toggled.connect(self.set_element_diff)
        self.b_diff.shown.connect(self._on_diff)
        self.b_diff.status.connect(self.status)

    # --- showing a submission -----------------------------------------------------------

    def show_submission(self, view: SubmissionView) -> None:
        """Show from what is cached at once; render what is missing on the worker."""
        self.view = view
        kind = view.task.diagram_kind
        drawable = kinds.renders_with_plantuml(kind)
        self.metrics.set_kind(kind)
        self.requirement.setMarkdown(view.task.requirement)
        self.reference_text.set_text(view.task.reference_puml)
        self.candidate_text.set_text(view.head_puml)
        tab = self.candidate_tabs.currentWidget()  # the grader's choice stays (B's diff too)
        self.image_a.set_image(view.image_a or None, "Image A could not be read" if view.image_a
                               else "No image A (a PlantUML-only submission)")
        if not (tab is self.candidate_text or (tab is self.image_b and drawable)
                or (tab is self.image_a and view.image_a)):
            self.candidate_tabs.setCurrentWidget(self.image_a if view.image_a else self.image_b
                                                 if drawable else self.candidate_text)
        if self.reference_tabs.currentWidget() is not self.requirement:
            self.reference_tabs.setCurrentWidget(self.reference_image if drawable
                                                 else self.reference_text)
        self._load_rubric(view)
        rating = view.rating
        self.metrics.hide_until_rated()
        if rating is not None:
            self.metrics.reveal()  # already rated: nothing left to anchor
        self._show_metrics(view)
        missing = []
        diff = self.b_diff.is_on() and why_no_diff(view, self.bench.settings.ui.blind_grading
                                                 ) is None
        for text, target in ((view.task.reference_puml, self.reference_image),
                             (view.head_puml, self.image_b)):
            png = preview.cached_png(text) if text and drawable else None
            if target is self.image_b and diff:
                target.show_message("Colouring B by the element diff…")
                if text and png is None:
                    missing.append(text)  # plain B too, for when the diff is switched off
            elif text and not drawable:
                target.show_message(kinds.no_rendering_note(kind))  # SysML v2 text, code
            elif png is not None:
                target.set_image(png)
            elif text:
                target.show_message("Rendering…")
                missing.append(text)
            else:
                target.show_message("No PlantUML")
        self._render(view, missing)
        self.b_diff.coloured = diff
        self._update_element_diff()
        self.rubric.setFocus()

    def _render(self, view: SubmissionView, texts: list[str]) -> None:
        """Render ``texts`` of ``view`` on the worker (the old submission's is cancelled)."""
        self._render_job.cancel()
        if not texts:
            self.images_shown.emit(view.submission.id)
            return
        job = self.bench.runner.submit(
            lambda cancel: [preview.try_render(t) for t in texts],
            f"render submission {view.submission.id}", lane=INTERACTIVE)
        self._render_job.start(job, self._on_render_result, self._on_render_error)

    def release(self) -> None:
        """Let go of the submission while another mode is on screen (its picture stays for
        when it comes back): no rating can be saved onto it meanwhile."""
        self.view = None
        self.b_diff.stop(plain=False)  # B keeps its picture for when the mode comes back
        self._render_job.cancel()

    def clear(self, message: str) -> None:
        """Nothing on screen (no workspace, no submission): nothing a save could write to."""
        self.release()
        self.requirement.setMarkdown(message)
        for view in (self.reference_image, self.image_a, self.image_b):
            view.show_message(message)
        self.reference_text.set_text("")
        self.candidate_text.set_text("")
        self.rubric.load(None)
        self.rubric.setEnabled(False)
        self.metrics.show_message(message)
        self.b_diff.stop(plain=False)

    def _load_rubric(self, view: SubmissionView) -> None:
        """The rubric of the submission's task kind, with the grader's unsaved draft of this
        submission if there is one, else the saved rating (or nothing scored)."""
        self.rubric.setEnabled(True)
        self.rubric.set_rubric(self.bench.session.rubric_for(view))
        draft = self.bench.session.rubric_draft(view)
        rating = view.rating
        if draft is not None:
            self.rubric.load(draft.scores, draft.comment, draft.seconds, draft=True)
        else:
            self.rubric.load(rating.scores if rating else None,
                             rating.comment if rating else "",
                             rating.seconds if rating else None)

    def show_rating_of(self, view: SubmissionView) -> None:
        """The saved rating changed under the panel (undo, redo, a merge): show the saved
        one; an unsaved draft of it would now contradict the record, so it goes."""
        if self.view is None or view.submission.id != self.view.submission.id:
            return
        if self.bench.drafts is not None:
            self.bench.drafts.drop(view.submission.id)
            self.draft_changed.emit(view.submission.id, False)
        self.view = view
        self._load_rubric(view)
        if view.rating is None:
            self.metrics.hide_until_rated()
        else:
            self.metrics.reveal()
        self._show_metrics(view)
        if self.b_diff.picture is not None and self.b_diff.picture.candidate_text == view.head_puml:
            self.metrics.set_element_diff(self.b_diff.picture.diff)  # the same text: kept
        elif self.b_diff.is_on():
            self._update_element_diff()  # blind grading may allow (or forbid) it now

    def _keep_draft(self) -> None:
        """Every rubric change is kept on disk until the rating is saved."""
        if self.view is None:
            return
        draft = self.bench.session.keep_rubric_draft(self.view, self.rubric.scores(),
                                             self.rubric.comment_text(), self.rubric.seconds())
        self.rubric.mark_draft(draft)
        self.draft_changed.emit(self.view.submission.id, draft)

    def _show_metrics(self, view: SubmissionView) -> None:
        if view.scores:
            self.metrics.set_metrics(view.scores)
        else:
            self.metrics.show_message("Not scored yet — Jobs → Score (Ctrl+R).")

    def show_scores_of(self, view: SubmissionView) -> None:
        """New scores (or a newer revision) of the submission on screen: redraw what they
        change and keep what the grader has typed into the rubric."""
        if self.view is None or view.submission.id != self.view.submission.id:
            return
        if view.head_puml != self.view.head_puml:
            self.show_submission(view)  # another diagram is graded now
            return
        self.view = view
        self._show_metrics(view)
        self._update_element_diff()  # the stored explanation of this text may be new

    def set_probe(self, submission_id: int, probe: dict | None) -> None:
        if self.view is not None and self.view.submission.id == submission_id:
            self.metrics.set_probe(probe)

    # --- actions ------------------------------------------------------------------------

    def save_rating(self, advance: bool = False) -> bool:
        """Save the rubric as this grader's rating of the submission on screen (and, with
        ``advance``, ask to move on to the next unrated one)."""
        if self.view is None:
            return False
        if not self.rubric.is_complete():
            missing = [i for i, item in enumerate(self.rubric.rubric.items)
                       if item.id not in self.rubric.scores()]
            labels = [self.rubric.rubric.items[i].label for i in missing]
            self.rubric.select(missing[0])
            self.status.emit(f"Score every item before saving (missing: {', '.join(labels)})")
            return False
        view = self.view
        try:
            self.bench.session.save_rating(view, self.rubric.scores(), self.rubric.comment_text(),
                                   self.rubric.seconds(), initiator=self)
        except ClueStudioError as error:
            self.status.emit(str(error))
            return False
        self.view = self.bench.session.view(view.submission.id)  # the session's, with the rating
        self.rubric.mark_draft(False)
        self.draft_changed.emit(view.submission.id, False)
        self.metrics.reveal()
        if self.b_diff.is_on() and self.b_diff.picture is None and not self.b_diff.job.busy():
            self._update_element_diff()  # blind grading held it back until this save
        self.status.emit(f"Saved {self.rubric.total():.1f} for "
                         f"{view.submission.task_id} · {view.submission.source_id}")
        self.rating_saved.emit(view.submission.id, advance)
        return True

    def highlight_pair(self, pair: dict) -> None:
        """Mark the picked pair's lines in the reference and candidate PlantUML."""
        if pair.get("kind") not in ("classes", "relations"):
            return  # a plugin explanation row (claims, alignments): nothing to mark
        ref_line, cand_line = pair.get("reference_line"), pair.get("candidate_line")
        self.reference_text.highlight_lines([ref_line] if ref_line else [])
        self.candidate_text.highlight_lines([cand_line] if cand_line else [])
        if ref_line:
            self.reference_tabs.setCurrentWidget(self.reference_text)
        if cand_line:
            self.candidate_tabs.setCurrentWidget(self.candidate_text)
        self.status.emit(f"{pair.get('reference', '')} ↔ {pair.get('candidate', '')}: "
                         f"similarity {pair.get('similarity', float('nan')):.3f}")

    def _on_render_result(self, value: object) -> None:
        if self.view is None:
            return
        # The render job's result: preview.try_render of each text.
        for text, png, error in cast("list[tuple[str, bytes | None, str]]", value):
            for source, target in ((self.view.task.reference_puml, self.reference_image),
                                   (self.view.head_puml, self.image_b)):
                if target is self.image_b and self.b_diff.coloured:
                    continue  # B shows the element diff; the plain one waits in the cache
                if text == source:
                    target.set_image(png, f"PlantUML could not render this:\n{error}")
        self.images_shown.emit(self.view.submission.id)

    def _on_render_error(self, message: str) -> None:
        for target in (self.reference_image, self.image_b):
            if target.image is None and not (target is self.image_b and self.b_diff.coloured):
                target.show_message(f"Could not render:\n{message}")
        if self.view is not None:
            self.images_shown.emit(self.view.submission.id)

    # --- the element diff on image B ----------------------------------------------------

    @property
    def diff_picture(self) -> DiffPicture | None:
        """The element diff B shows now, if any."""
        return self.b_diff.picture

    @property
    def element_diff(self):  # -> ElementDiffView: its job
        return self.b_diff.job

    def diff_on(self) -> bool:
        return self.b_diff.is_on()

    def set_element_diff(self, on: bool) -> None:
        """Show image B coloured by the element diff (or plain again); the grader's choice
        stays while moving between submissions."""
        self.b_diff.set_checked(on)
        if on and self.view is not None:
            self.candidate_tabs.setCurrentWidget(self.image_b)
        self._update_element_diff()
        self.diff_toggled.emit(on)

    def _update_element_diff(self) -> None:
        """Ask for the element diff of what is on screen, or put plain B back."""
        self.metrics.set_element_diff(None)
        if self.b_diff.is_on() and self.view is not None:
            self.b_diff.show_for(self.view, self.view.head_puml)
        else:
            self.b_diff.stop()

    def _show_plain_b(self) -> None:
        """B as re-rendered, without colours (it showed, or waited for, a diff)."""
        view = self.view
        if view is None or not kinds.renders_with_plantuml(view.task.diagram_kind) \
                or not view.head_puml:
            return
        png = preview.cached_png(view.head_puml)
        if png is not None:
            self.image_b.set_image(png)
        else:
            self.image_b.show_message("Rendering…")
            self._render(view, [t for t in (view.task.reference_puml, view.head_puml)
                                if t and preview.cached_png(t) is None])

    def _on_diff(self, picture: DiffPicture) -> None:
        self.metrics.set_element_diff(picture.diff)
        self.diff_note.setText(self.diff_note.text() + " (listed on the right)")
        self.diff_shown.emit(picture.submission_id)

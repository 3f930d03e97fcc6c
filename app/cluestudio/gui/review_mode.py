"""Review mode: check a conversion — requirement | image A | PlantUML editor | re-rendered B.

The reviewer edits the PlantUML until B shows what A shows, saves (a new revision each time,
undoable), and sets a verdict with issue tags. B is re-rendered by :class:`LivePreview` on the
worker; the editor marks the lines the parser or PlantUML complain about. The element diff
(Ctrl+D) shows B coloured by its CLUE match with the task's reference, following the text as
it is edited (gui/element_diff.py).
"""

from __future__ import annotations

from html import escape
from typing import Any

from cluestudio.app import preview as previews
from cluestudio.app.preview_text import render_problem, summary_html
from cluestudio.app.submissions import SubmissionView
from cluestudio.core.errors import ClueStudioError
from cluestudio.core.workspace import kinds
from cluestudio.core.workspace.taxonomy import tags_for_kind
from cluestudio.gui.draft_doubts import DraftDoubtMarks
from cluestudio.gui.element_diff import DiffOnB, DiffPicture
from cluestudio.gui.operations import Workbench
from cluestudio.gui.preview import LivePreview
from cluestudio.gui.qt import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPlainTextEdit,
    QStackedWidget,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
    Signal,
)
from cluestudio.gui.review_layout import fill_history, model_diff, review_splitter, review_tabs
from cluestudio.gui.widgets.check_panel import CheckPanel, box, dropped_boxes
from cluestudio.gui.widgets.compare_view import CompareView
from cluestudio.gui.widgets.image_decode import image_from_bytes
from cluestudio.gui.widgets.image_views import DiagramImageView, ZoomSync
from cluestudio.gui.widgets.metric_panel import probe_html
from cluestudio.gui.widgets.plantuml_editor import PlantUMLEditor
from cluestudio.gui.widgets.verdict_panel import VerdictPanel


class ReviewMode(QWidget):
    """One submission's conversion under review; ``preview_shown`` after each new B."""

    preview_shown = Signal(object)  # PreviewResult
    status = Signal(str)
    job_started = Signal(object)  # a JobHandle for the job panel
    diff_toggled = Signal(bool)  # the element diff was switched on or off
    diff_shown = Signal(int)  # submission id, once B shows its element diff

    def __init__(self, bench: Workbench, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bench = bench
        self.view: SubmissionView | None = None
        self.requirement = QTextBrowser()
        self.image_a = DiagramImageView("No image A")
        self.editor = PlantUMLEditor()
        self.doubts = DraftDoubtMarks(self.editor, self)  # the offline draft's ' ? lines
        self.image_b = DiagramImageView("Rendering…")
        self.compare = CompareView()
        self.verdict = VerdictPanel()
        self.summary = QTextBrowser()
        self.history = QListWidget()
        self.diff = QPlainTextEdit()
        self.diff.setReadOnly(True)
        self.diff.setFont(self.editor.font())
        self.check = CheckPanel()
        self.sync = ZoomSync([self.image_a, self.image_b, self.compare.view], self)
        self.preview = LivePreview(bench.runner, parent=self)
        self._last_b: bytes | None = None  # plain B of the editor's text
        self._last_preview: previews.PreviewResult | None = None  # of the editor's text
        self._saved_text: str | None = None  # saved before its preview came (Ctrl+S)
        self.b_diff = DiffOnB(bench, self.image_b, "Colour B by each element's CLUE match "
                              "with the task's reference (Ctrl+D)",
                              lambda: self.editor.toPlainText() if self.view else None,
                              self._show_plain_b, self)
        self.diff_button, self.diff_note = self.b_diff.button, self.b_diff.note

        self.compare_button = QToolButton()
        self.compare_button.setText("Compare A/B")
        self.compare_button.setCheckable(True)
        self.compare_button.toggled.connect(self.set_compare)
        self.b_stack = QStackedWidget()
        self.b_stack.addWidget(self.image_b)
        self.b_stack.addWidget(self.compare)
        self.probe = QTextBrowser()  # the VLM's reading of image A (Tools → Probe, F8)
        self.tabs = review_tabs(self.check, self.summary, self.history, self.diff, self.probe,
                                self.requirement)

        # A failed render keeps the last good B on screen and says why above it.
        self.b_error = QLabel()
        self.b_error.setObjectName("renderError")
        self.b_error.setWordWrap(True)
        self.b_error.setStyleSheet("color: #d32f2f;")
        self.b_error.hide()
        b_pane = QWidget()
        b_column = QVBoxLayout(b_pane)
        b_column.setContentsMargins(0, 0, 0, 0)
        b_column.addWidget(self.b_error)
        b_column.addWidget(self.diff_note)
        b_column.addWidget(self.b_stack, 1)
        b_buttons = QWidget()
        b_row = QHBoxLayout(b_buttons)
        b_row.setContentsMargins(0, 0, 0, 0)
        b_row.addWidget(self.diff_button)
        b_row.addWidget(self.compare_button)
        self.splitter = review_splitter(self.image_a, self.sync, b_pane, b_buttons,
                                        self.doubts.pane, self.tabs, self.verdict)
        for pane in (self.editor, self.tabs, self.image_a, self.image_b):
            pane.setMinimumSize(120, 80)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.splitter)

        self.check.line_selected.connect(self.go_to_line)
        self.check.box_selected.connect(self._show_box)
        self.check.check_requested.connect(self.check_now)
        self.check.pixels_requested.connect(lambda: self.check_now(pixels=True))
        self.editor.text_settled.connect(self.preview.request)
        self.editor.textChanged.connect(self._update_diff)
        self.preview.ready.connect(self._on_preview)
        self.preview.failed.connect(lambda message: self.image_b.show_message(message))
        self.verdict.changed.connect(self._on_verdict)
        self.history.currentRowChanged.connect(self._on_history_row)
        self.b_diff.toggled.connect(self.set_element_diff)
        self.b_diff.shown.connect(lambda picture: self.diff_shown.emit(picture.submission_id))
        self.b_diff.status.connect(self.status)

    # --- showing a submission -----------------------------------------------------------

    def show_submission(self, view: SubmissionView) -> None:
        self.view = view
        kind = view.task.diagram_kind
        self.preview.kind = kind
        self.compare_button.setEnabled(kinds.renders_with_plantuml(kind))
        self.b_diff.stop(plain=False)
        if not kinds.renders_with_plantuml(kind):
            self.set_compare(False)
        self.requirement.setMarkdown(view.task.requirement)
        if view.image_a:
            self.image_a.set_image(view.image_a, "Image A could not be read")
        else:
            self.image_a.show_message("No image A\n(a PlantUML-only submission)")
        self.editor.set_text(view.head_puml)
        self.verdict.set_tag_set(tags_for_kind(kind))
        self.verdict.load(view.review.verdict if view.review else None,
                          view.review.tags if view.review else ())
        fill_history(self.history, view)
        self._update_diff()
        self.show_check()
        self.set_probe(view.submission.id, view.scores.get("probe"))
        self.b_error.hide()
        cached = previews.cached_png(view.head_puml)
        if not kinds.renders_with_plantuml(kind):
            self._last_b = None
            self.image_b.show_message(kinds.no_rendering_note(kind))
        elif cached is not None:
            self._show_b(cached)
        else:
            self.image_b.show_message("Rendering…")
        if self.diff_on():  # the preview's result asks for this text's diff
            self.b_diff.coloured = True
            self.image_b.show_message("Colouring B by the element diff…")
        self._plain_b_seen()
        self.preview.request(view.head_puml)  # parse (summary, errors) and render if needed

    def take_own_change(self) -> None:
        """This mode saved the text or the verdict on screen: take the stored record (the
        new revision's place in the history) without showing the submission anew — the
        editor, preview and panel already show what was saved."""
        if self.view is not None:
            self.view = self.bench.session.view(self.view.submission.id)
            fill_history(self.history, self.view)

    def release(self) -> None:
        """Let go of the submission while another mode is on screen (its picture stays for
        when it comes back): no save, verdict or check can reach it meanwhile."""
        self.view = None
        self.preview.cancel()
        self.b_diff.stop(plain=False)

    def clear(self, message: str) -> None:
        """Nothing on screen (no workspace, no submission): nothing a save could write to."""
        self.release()
        self.requirement.setMarkdown(message)
        for view in (self.image_a, self.image_b):
            view.show_message(message)
        self.editor.set_text("")
        self.verdict.load(None, ())
        self.history.clear()
        self.summary.clear()
        self.diff.clear()
        self.check.show_report(None, False)
        self.b_diff.stop(plain=False)

    def refresh(self) -> None:
        """Re-read the current submission after a change (keeps the editor if unsaved)."""
        if self.view is None:
            return
        unsaved = self.has_unsaved_text()
        text = self.editor.toPlainText()
        view = self.bench.session.view(self.view.submission.id)
        self.show_submission(view)
        if unsaved:
            self.editor.setPlainText(text)

    def set_probe(self, submission_id: int, probe: dict[str, Any] | None) -> None:
        if self.view is None or self.view.submission.id != submission_id:
            return
        self.probe.setHtml(probe_html(probe) if probe else
                           "<i>Not probed yet — Tools → Probe (F8) asks the VLM what image A "
                           "shows and compares it with the saved PlantUML.</i>")

    def has_unsaved_text(self) -> bool:
        return self.view is not None and self.editor.toPlainText() != self.view.head_puml

    # --- actions ------------------------------------------------------------------------

    def save_revision(self) -> bool:
        """Save the editor text as a new revision (Ctrl+S); False when nothing changed."""
        if self.view is None or not self.has_unsaved_text():
            return False
        text = self.editor.toPlainText()
        try:
            self.bench.session.save_revision(self.view, text, initiator=self)
        except ClueStudioError as error:
            self.status.emit(str(error))
            return False
        # Saved either way (a revision is the reviewer's text), but never silently broken.
        known = self._last_preview if self._last_preview and self._last_preview.text == text \
            else None
        problem = render_problem(known) if known is not None else None
        self._saved_text = None if known is not None else text  # said when its preview comes
        self.status.emit("Saved a new revision" + (f", but it {problem}" if problem else ""))
        if self.view is not None and self.view.image_a:
            self.check_now()  # the flag follows the saved text
        return True

    def set_compare(self, on: bool) -> None:
        self.b_stack.setCurrentIndex(1 if on else 0)
        if self.compare_button.isChecked() != on:
            self.compare_button.setChecked(on)
        if on:
            self._update_compare()
        self._plain_b_seen(render_now=True)

    def _plain_b_seen(self, *, render_now: bool = False) -> None:
        """Plain B is seen with Compare, or when B shows no element diff: only then does the
        preview render the text; else it parses and the diff renders its coloured copy
        (issue 26: the same text was rendered twice). ``render_now``: it is seen now."""
        self.preview.render = (self.b_stack.currentIndex() == 1
                               or not self.b_diff.shows_diff_for(self.view))
        text = self.editor.toPlainText()
        if render_now and self.preview.render and self.view is not None \
                and previews.cached_png(text) is None:
            self.preview.request(text)

    def _on_verdict(self) -> None:
        verdict = self.verdict.verdict()
        if self.view is None or verdict is None:
            return  # tags wait until there is a verdict to save them with
        try:
            self.bench.session.set_verdict(self.view, verdict, self.verdict.tags(), initiator=self)
        except ClueStudioError as error:
            self.status.emit(str(error))

    # --- preview ------------------------------------------------------------------------

    def _on_preview(self, result: previews.PreviewResult) -> None:
        if result.text == self._saved_text and (problem := render_problem(result)):
            self.status.emit(f"The saved revision {problem}")
        if result.text != self.editor.toPlainText():
            return  # the text moved on; the next preview is already on its way
        self._last_preview = result
        for source, error in (("parser", result.parse_error),
                              ("renderer", result.render_error)):
            if error is None:
                self.editor.clear_error(source)
            else:
                self.editor.set_error(source, error[0], error[1])
        if result.note and result.summary is None and result.parse_error is None:
            self.summary.setHtml(f"<i>{escape(result.note)}</i>")
        else:
            self.summary.setHtml(summary_html(result.summary, result.warnings,
                                              result.parse_error))
        self.b_error.hide()
        if self.diff_on() and self.view is not None:
            self._last_b = result.png or self._last_b  # plain B, for Compare and for off
            if not self._update_element_diff(result.text, result.parse_error) and \
                    result.png is None and result.render_error is None and not result.note:
                self.preview.request(result.text, render=True)  # no diff: plain B is seen
            elif result.png is not None and self.b_stack.currentIndex() == 1:
                self._update_compare()
        if self.b_diff.coloured:
            pass  # B shows the element diff of this text (on its way)
        elif result.png is None and result.render_error is None and result.note:
            self._last_b = None
            self.image_b.show_message(result.note)  # SysML v2 / code: nothing to render
        elif result.png is not None:
            self._show_b(result.png)
        elif result.render_error is not None:
            line, message = result.render_error
            where = f"line {line}: " if line else ""
            if not self.image_b.shows_drawing():  # never "the last good" one over a blank B
                self.image_b.show_message(f"PlantUML could not render this:\n{where}{message}")
            else:
                self.b_error.setText(f"PlantUML could not render this ({where}{message}); "
                                     "showing the last good rendering.")
                self.b_error.show()
        self.preview_shown.emit(result)

    def _show_b(self, png: bytes) -> None:
        self._last_b = png
        self.image_b.set_image(png, "B could not be read")
        if self.b_stack.currentIndex() == 1:
            self._update_compare()

    def _update_compare(self) -> None:
        a = self.image_a.image
        b = image_from_bytes(self._last_b) if self._last_b else None
        self.compare.set_images(a, b)

    def _update_diff(self) -> None:
        if self.view is not None:
            self.diff.setPlainText(model_diff(self.view, self.editor.toPlainText()))

    def _on_history_row(self, row: int) -> None:
        if self.view is not None and 0 <= row < len(self.view.revisions):
            self.diff.setPlainText(model_diff(self.view, self.view.revisions[row].puml,
                                              f"revision {row + 1}"))
            self.tabs.setCurrentWidget(self.diff)

    # --- the offline conversion check ----------------------------------------------------

    def show_check(self) -> None:
        """The stored check of this revision, with A's boxes around what it dropped."""
        from cluestudio.app.checks import latest_report

        if self.view is None or self.bench.ws is None:
            return
        report = latest_report(self.bench.ws, self.view.submission.id)
        can_check = bool(self.view.image_a) and bool(self.view.head_puml.strip())
        self.check.show_report(report, can_check, self.view.head_puml)
        self.image_a.set_marks(dropped_boxes(report, self.view.head_puml))

    def check_now(self, *, pixels: bool = False) -> None:
        if self.view is not None:
            job = self.bench.check([self.view.submission.id], pixels=pixels)
            if job is not None:
                self.check.show_running()
                self.job_started.emit(job)

    def go_to_line(self, line: int) -> None:
        """Put the editor's cursor on ``line`` (1-based) and show it."""
        self.editor.go_to_line(line)
        self.editor.setFocus()

    def _show_box(self, rect: object) -> None:
        if isinstance(rect, tuple) and len(rect) == 4:
            self.image_a.highlight(box(rect))

    # --- the element diff on image B ----------------------------------------------------

    @property
    def diff_picture(self) -> DiffPicture | None:
        """The element diff B shows now, if any."""
        return self.b_diff.picture

    def diff_on(self) -> bool:
        return self.b_diff.is_on()

    def set_element_diff(self, on: bool) -> None:
        """Show B coloured by the element diff of the editor's text against the task's
        reference (or plain again); it follows the text as it is edited."""
        self.b_diff.set_checked(on)
        if on and self.b_stack.currentIndex() == 1:
            self.set_compare(False)  # the diff is drawn on B itself
        self._update_element_diff(self.editor.toPlainText())
        self._plain_b_seen(render_now=True)
        self.diff_toggled.emit(on)

    def _update_element_diff(self, text: str, parse_error: tuple[int | None, str] | None = None
                             ) -> bool:
        """Ask for the element diff of ``text`` (the editor's, once it settled), or put
        plain B back (False)."""
        if self.diff_on() and self.view is not None:
            return self.b_diff.show_for(self.view, text, parse_error)
        self.b_diff.stop()
        return False

    def _show_plain_b(self) -> None:
        """B as last rendered, without colours (it showed, or waited for, a diff)."""
        if self._last_b is not None:
            self.image_b.set_image(self._last_b, "B could not be read")

"""The element diff on image B: the candidate's PlantUML coloured by its CLUE match with the
reference (core/diff, app/diagram_diff.py), rendered off the UI thread.

:func:`diff_picture` is the job (Qt-free): classify the candidate's elements, colour its text
and render that text through the warm renderer of the live preview (app/preview.py, cached by
text). :class:`ElementDiffView` owns the one diff job of a view (STYLE practice 7): a newer
request cancels the older, and a result for another submission or text is dropped, so moving
on while the diff is shown never puts the previous submission's colours on screen. It runs on
the interactive lane, beside the live preview, never behind a scoring batch.
:class:`DiffOnB` is what grading and review share: the toggle by image B, the note above it,
and which of the two pictures (coloured or plain) B shows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from html import escape
from typing import TYPE_CHECKING, Any

from cluestudio.app import preview as previews
from cluestudio.app.submissions import SubmissionView
from cluestudio.core.jobs import CancelToken
from cluestudio.core.workspace import kinds
from cluestudio.gui.qt import QLabel, QObject, QToolButton, Signal
from cluestudio.gui.widgets.image_views import DiagramImageView
from cluestudio.gui.worker import INTERACTIVE, JobHandle, JobRunner, LatestJob

if TYPE_CHECKING:
    from cluestudio.gui.operations import Workbench

#: Why a request is refused before any work (blind grading, a kind without CLUE).
BLIND_NOTE = ("blind grading: the element diff shows CLUE's matching, so it appears once you "
              "have saved your rating of this submission.")


def why_no_diff(view: SubmissionView, blind: bool, text: str | None = None) -> str | None:
    """Why ``view`` (with ``text`` in place of its head, e.g. the review editor's) gets no
    element diff now; None when it does. ``blind``: blind grading is on."""
    kind = view.task.diagram_kind
    if not kinds.uses_class_parser(kind):
        return (f"the element diff compares class diagrams; this is a {kind} task "
                "(its metrics are in the metric panel).")
    if not view.task.reference_puml.strip():
        return "this task has no PlantUML reference to compare with."
    if not (view.head_puml if text is None else text).strip():
        return "this submission has no PlantUML yet."
    if blind and view.rating is None:
        return BLIND_NOTE
    return None


def legend_html(missing: int) -> str:
    """What the colours mean (the rendered legend says it too), for the note above B."""
    return ("Element diff: <span style='color:#0072B2'>■</span> matched, "
            "<span style='color:#E69F00'>■</span> partly matched (dashed), "
            "<span style='color:#D55E00'>■</span> extra (bold); "
            f"<b>{missing}</b> element(s) of the reference missing")


def missing_summary(picture: DiffPicture, shown: int = 6) -> str:
    """": Loan, Fine, … and 12 members or relations" — the missing classes by name first
    (what a grader looks for), the rest counted (all of them are in the tooltip)."""
    missing = picture.missing
    classes = [escape(str(e.get("text", ""))) for e in missing if e.get("kind") == "class"]
    others = len(missing) - len(classes)
    parts = classes[:shown] + (["…"] if len(classes) > shown else [])
    if others:
        parts.append(f"{'and ' if parts else ''}{others} member(s) or relation(s)")
    return f": {', '.join(parts)}" if parts else "."


@dataclass(frozen=True)
class DiffPicture:
    """One element diff of one text, ready to show."""

    submission_id: int
    candidate_text: str  # the text compared with the reference (what B shows)
    annotated_text: str  # the coloured copy that was rendered
    png: bytes | None
    render_error: str
    diff: dict[str, Any] = field(default_factory=dict)  # DiagramDiff.to_dict()
    notes: tuple[str, ...] = ()  # what could not be coloured

    @property
    def missing(self) -> list[dict[str, Any]]:
        return list(self.diff.get("missing") or [])


def diff_picture(submission_id: int, reference_text: str, candidate_text: str,
                 stored: tuple[dict[str, Any], str] | None, cancel: CancelToken) -> DiffPicture:
    """The element diff of ``candidate_text`` against ``reference_text`` (from ``stored``,
    the explanation saved with the CLUE score of exactly this text, when there is one; else
    computed with the ``exact`` embedder), coloured and rendered. Raises ClueStudioError
    (PlantUMLSyntaxError naming the line) when a text does not parse."""
    from cluestudio.core.diff import annotate, diff_diagrams, diff_from_explanation

    # Parsed once: the live preview of this text parsed it already, and the reference stays.
    candidate = previews.parse(candidate_text, source="candidate").diagram
    if stored is not None:
        diff = diff_from_explanation(stored[0], origin="stored", configuration=stored[1])
    else:
        diff = diff_diagrams(previews.parse(reference_text, source="reference").diagram,
                             candidate)
    cancel.raise_if_cancelled()
    annotation = annotate(candidate_text, diff, diagram=candidate)
    cancel.raise_if_cancelled()
    _, png, error = previews.try_render(annotation.text)
    notes = annotation.notes + tuple(f"not coloured: {e.text}"
                                     for e in annotation.not_coloured[:5])
    return DiffPicture(submission_id, candidate_text, annotation.text, png, error,
                       diff.to_dict(), notes)


class ElementDiffView(QObject):
    """``request(...)`` → at most one diff job in flight → ``ready(DiffPicture)`` or
    ``failed(submission id, message)``."""

    ready = Signal(object)
    failed = Signal(int, str)

    def __init__(self, runner: JobRunner, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._runner = runner
        self._job = LatestJob()
        self.requests = 0  # for tests: how many jobs were submitted

    def request(self, submission_id: int, reference_text: str, candidate_text: str,
                stored: tuple[dict[str, Any], str] | None = None) -> JobHandle:
        self.cancel()
        self.requests += 1
        handle = self._runner.submit(
            lambda cancel: diff_picture(submission_id, reference_text, candidate_text,
                                        stored, cancel),
            f"element diff of submission {submission_id}", lane=INTERACTIVE)
        return self._job.start(handle, self._on_result,
                               lambda message: self.failed.emit(submission_id, message))

    def cancel(self) -> None:
        """Drop the job in flight, if any: its result will not be shown."""
        self._job.cancel()

    def busy(self) -> bool:
        return self._job.busy()

    def _on_result(self, value: object) -> None:
        if isinstance(value, DiffPicture):
            self.ready.emit(value)


class DiffOnB(QObject):
    """The element diff of one mode's image B: its toggle (``button``), the ``note`` that
    says what the colours mean or why there is none, and the job.

    The mode says what B is to show (:meth:`show_for` a submission and text, or
    :meth:`stop`); ``show_plain`` is the mode's way back to plain B, called when B showed a
    diff and shows none now. ``current_text`` is the text B is of right now: a picture of
    any other text is dropped when it lands.
    """

    toggled = Signal(bool)  # the button was pressed
    shown = Signal(object)  # DiffPicture, once it is on B
    status = Signal(str)  # why there is no diff, for the status bar

    def __init__(self, bench: Workbench, image_b: DiagramImageView, tip: str,
                 current_text: Callable[[], str | None], show_plain: Callable[[], None],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.bench = bench
        self.image_b = image_b
        self._current_text = current_text
        self._show_plain = show_plain
        self.job = ElementDiffView(bench.runner, self)
        self.picture: DiffPicture | None = None  # the diff B shows now
        self.coloured = False  # B shows (or waits for) a diff, not plain B
        self.button = QToolButton()
        self.button.setText("Element diff")
        self.button.setCheckable(True)
        self.button.setToolTip(tip)
        self.note = QLabel()
        self.note.setObjectName("diffNote")
        self.note.setWordWrap(True)
        self.note.hide()
        self.button.toggled.connect(self.toggled)
        self.job.ready.connect(self._on_ready)
        self.job.failed.connect(self._on_failed)

    def is_on(self) -> bool:
        return self.button.isChecked()

    def shows_diff_for(self, view: SubmissionView | None) -> bool:
        """Whether B shows (or will show) the element diff of ``view`` rather than plain B:
        switched on, and nothing but the text itself can refuse it."""
        return (self.is_on() and view is not None
                and why_no_diff(view, self.bench.settings.ui.blind_grading) is None)

    def set_checked(self, on: bool) -> None:
        if self.button.isChecked() != on:
            self.button.blockSignals(True)
            self.button.setChecked(on)
            self.button.blockSignals(False)

    def show_for(self, view: SubmissionView, text: str,
                 parse_error: tuple[int | None, str] | None = None) -> bool:
        """Colour B with the diff of ``text`` (``view``'s head, or the review editor's);
        False when there is none (the note says why and plain B is back)."""
        self.picture = None
        self.note.show()
        refusal = why_no_diff(view, self.bench.settings.ui.blind_grading, text)
        if refusal is None and parse_error is not None:
            where = f"line {parse_error[0]}: " if parse_error[0] else ""
            refusal = f"the text does not parse ({where}{parse_error[1]})."
        if refusal is not None:
            self.job.cancel()
            self.note.setText(f"<i>No element diff: {escape(refusal)}</i>")
            self._back_to_plain()
            self.status.emit(f"No element diff: {refusal}")
            return False
        from cluestudio.app.diagram_diff import stored_explanation

        self.note.setText("<i>Element diff: colouring B…</i>")
        if not self.coloured:
            self.image_b.show_message("Colouring B by the element diff…")
            self.coloured = True
        stored = (stored_explanation(self.bench.session.require(), view.submission.id, text)
                  if text == view.head_puml else None)  # an unsaved edit was never scored
        self.job.request(view.submission.id, view.task.reference_puml, text, stored)
        return True

    def stop(self, *, plain: bool = True) -> None:
        """No diff on B (switched off, or nothing on screen); ``plain``: put plain B back."""
        self.job.cancel()
        self.picture = None
        self.note.hide()
        if plain:
            self._back_to_plain()
        else:
            self.coloured = False

    def _back_to_plain(self) -> None:
        if self.coloured:
            self.coloured = False
            self._show_plain()

    def _on_ready(self, picture: DiffPicture) -> None:
        if not self.is_on() or picture.candidate_text != self._current_text():
            return  # switched off, or B is of another text by now
        self.picture = picture
        self.image_b.set_image(picture.png, "PlantUML could not render the coloured "
                                            f"diagram:\n{picture.render_error}")
        self.note.setText(legend_html(len(picture.missing)) + missing_summary(picture))
        self.note.setToolTip("\n".join(
            f"missing {e.get('kind', '')}: {e.get('owner', '') + '.' if e.get('owner') else ''}"
            f"{e.get('text', '')}" for e in picture.missing))
        self.shown.emit(picture)

    def _on_failed(self, _submission_id: int, message: str) -> None:
        self.note.setText(f"<i>No element diff: {escape(message)}</i>")
        self._back_to_plain()
        self.status.emit(f"No element diff: {message}")

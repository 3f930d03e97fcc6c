"""The element diff on image B: the candidate's PlantUML coloured by its CLUE match with the
reference (app/diagram_diff.py, app/diff_annotation.py), rendered off the UI thread.

:func:`diff_picture` is the job (Qt-free): classify the candidate's elements, colour its text
and render that text through the warm renderer of the live preview (app/preview.py, cached by
text). :class:`ElementDiffView` owns the one diff job of a view (STYLE practice 7): a newer
request cancels the older, and a result for another submission or text is dropped, so moving
on while the diff is shown never puts the previous submission's colours on screen. It runs on
the interactive lane, beside the live preview, never behind a scoring batch.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape
from typing import Any

from cluestudio.app import preview as previews
from cluestudio.app.submissions import SubmissionView
from cluestudio.core.jobs import CancelToken
from cluestudio.core.workspace import kinds
from cluestudio.gui.qt import QObject, Signal
from cluestudio.gui.worker import INTERACTIVE, JobHandle, JobRunner

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
    from cluestudio.app.diagram_diff import diff_from_explanation, diff_texts
    from cluestudio.app.diff_annotation import annotate

    if stored is not None:
        diff = diff_from_explanation(stored[0], origin="stored", configuration=stored[1])
    else:
        diff = diff_texts(reference_text, candidate_text)
    cancel.raise_if_cancelled()
    annotation = annotate(candidate_text, diff)
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
        self._current: JobHandle | None = None
        self._wanted: tuple[int, str] | None = None  # (submission id, candidate text)
        self.requests = 0  # for tests: how many jobs were submitted

    def request(self, submission_id: int, reference_text: str, candidate_text: str,
                stored: tuple[dict[str, Any], str] | None = None) -> JobHandle:
        self.cancel()
        self._wanted = (submission_id, candidate_text)
        self.requests += 1
        handle = self._runner.submit(
            lambda cancel: diff_picture(submission_id, reference_text, candidate_text,
                                        stored, cancel),
            f"element diff of submission {submission_id}", lane=INTERACTIVE)
        handle.result.connect(lambda value, h=handle: self._on_result(h, value))
        handle.error.connect(lambda message, h=handle: self._on_error(h, message))
        self._current = handle
        return handle

    def cancel(self) -> None:
        """Drop the job in flight, if any: its result will not be shown."""
        if self._current is not None:
            self._current.cancel()
        self._current = None
        self._wanted = None

    def busy(self) -> bool:
        return self._current is not None

    def _on_result(self, handle: JobHandle, value: object) -> None:
        if handle is not self._current or not isinstance(value, DiffPicture):
            return
        self._current = None
        if (value.submission_id, value.candidate_text) == self._wanted:
            self.ready.emit(value)

    def _on_error(self, handle: JobHandle, message: str) -> None:
        if handle is self._current and self._wanted is not None:
            self._current = None
            self.failed.emit(self._wanted[0], message)

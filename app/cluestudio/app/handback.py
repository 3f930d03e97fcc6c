"""Hand-back: the feedback folder and the LMS bulk-feedback zips of a course (issue 27).

``export_feedback`` writes ``OUT/<student id>.html`` — one self-contained page per student
with every graded task (core/feedback_html.py) — and, per task, ``OUT/moodle/<task>.zip``
laid out for Moodle's "Upload multiple feedback files in a zip": one file per student named
``<full name>_<participant id>_assignsubmission_file_feedback-<task>.html``, the participant
id being the roster's (Moodle's grading worksheet shows it as "Participant NNN"). Submissions
of nobody on the roster get pages under ``OUT/unmatched/``. What is not written (no final
grade, no participant id, no image, a diff that would not render) is listed in the result.

The element diff image and the list of missing elements appear only when the course's
``show_reference`` switch is on (core/workspace/course_settings.py). A PDF of each page is
made with headless Chromium when one is installed and ``pdf`` is asked for; otherwise the
result says that no PDF engine was found.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cluestudio.core.errors import ClueStudioError
from cluestudio.core.feedback_html import (
    CommentLine,
    ItemFeedback,
    StudentFeedback,
    TaskFeedback,
    render_feedback,
)
from cluestudio.core.final_grade import Basis
from cluestudio.core.jobs import Job, Progress
from cluestudio.core.roster import Student
from cluestudio.core.rubric import RubricError, get_rubric
from cluestudio.core.safe_output import atomic_open, write_text
from cluestudio.core.workspace import Workspace
from cluestudio.core.workspace.course_settings import course_settings
from cluestudio.core.workspace.feedback import item_comments
from cluestudio.core.workspace.finals import SubmissionGrade, final_grades
from cluestudio.core.workspace.students import owners, roster

PDF_ENGINES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


@dataclass
class FeedbackResult:
    pages: list[Path] = field(default_factory=list)
    zips: list[Path] = field(default_factory=list)
    pdfs: list[Path] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # "who/what: why"
    pdf_note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"pages": [str(p) for p in self.pages], "zips": [str(p) for p in self.zips],
                "pdfs": [str(p) for p in self.pdfs], "skipped": self.skipped,
                "pdf_note": self.pdf_note}


def _items(grade: SubmissionGrade, comments: dict[str, list[CommentLine]]
           ) -> tuple[ItemFeedback, ...]:
    try:
        rubric = get_rubric(grade.rubric_id)
    except RubricError:
        return ()
    if grade.adjudication is not None:
        scores: dict[str, float | None] = {
            i.id: grade.adjudication["scores"].get(i.id) for i in rubric.items}
    else:
        scores = {}
        for item in rubric.items:
            given = [r.scores[item.id] for r in grade.ratings if item.id in r.scores]
            scores[item.id] = round(sum(given) / len(given), 2) if given else None
    return tuple(ItemFeedback(i.label, scores[i.id], i.scale.max, tuple(comments.get(i.id, ())))
                 for i in rubric.items)


def _diff(ws: Workspace, submission_id: int) -> tuple[bytes | None, tuple[str, ...], str]:
    """(diff PNG, missing elements, note) of a submission against its reference."""
    from cluestudio.app.diagram_diff import submission_diff
    from cluestudio.core.plantuml.renderer import get_renderer

    try:
        found = submission_diff(ws, submission_id)
    except ClueStudioError as error:
        return None, (), f"No comparison with the reference: {error}"
    missing = tuple(f"{e.kind} {e.text}" + (f" (in {e.owner})" if e.owner else "")
                    for e in found.diff.missing)
    try:
        png = get_renderer().render(found.annotated.text, "png")
    except ClueStudioError as error:
        return None, missing, f"The comparison image could not be drawn ({error})"
    return png, missing, ""


def _task_feedback(ws: Workspace, grade: SubmissionGrade, show_reference: bool
                   ) -> TaskFeedback:
    task = ws.task(grade.task_id)
    assert task is not None
    graders = {r.grader for r in grade.ratings}
    comments: dict[str, list[CommentLine]] = {}
    for comment in item_comments(ws, grade.submission_id):
        line = CommentLine(comment.text, comment.points)
        if (comment.grader in graders and comment.rubric_id == grade.rubric_id
                and line not in comments.get(comment.item_id, [])):  # two graders, one text
            comments.setdefault(comment.item_id, []).append(line)
    submission = ws.submission(grade.submission_id)
    image = None
    if submission is not None and submission.image_hash:
        data = ws.image(submission.image_hash)
        mime = ws._reader().execute("SELECT mime FROM blobs WHERE hash = ?",
                                    (submission.image_hash,)).fetchone()
        if data is not None and mime is not None:
            image = (data, str(mime[0]))
    diff_png: bytes | None = None
    missing: tuple[str, ...] = ()
    note = ""
    if show_reference:
        diff_png, missing, note = _diff(ws, grade.submission_id)
    points = get_rubric(grade.rubric_id).total_max if grade.rubric_id else 100.0
    return TaskFeedback(task.id, task.title, task.requirement, grade.final.value,
                        grade.final.basis.value, points, _items(grade, comments),
                        grade.comment, image, diff_png, missing, note)


def _moodle_name(student: Student, task_id: str) -> str:
    name = student.name.replace("_", " ").replace("/", " ").strip() or student.student_id
    return f"{name}_{student.participant_id}_assignsubmission_file_feedback-{task_id}.html"


_RESERVED = {"con", "prn", "aux", "nul", *(f"{p}{n}" for p in ("com", "lpt") for n in range(10))}


def _safe(name: str) -> str:
    safe = "".join(c if c.isalnum() or c in "-." else "_" for c in name) or "_"
    # Windows opens a device for CON.html (its stem before the first dot, any case)
    return f"_{safe}" if safe.split(".")[0].casefold() in _RESERVED else safe


def _unique(stem: str, used: set[str]) -> str:
    """``stem``, or ``stem-2``, ``stem-3``…: two ids that make one file name (``a b`` and
    ``a_b``; ``S7`` and ``s7`` on a case-blind disk) must not share, or overwrite, a page."""
    name, n = stem, 1
    while name.casefold() in used:
        n += 1
        name = f"{stem}-{n}"
    used.add(name.casefold())
    return name


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text(path, text)  # never through a planted symlink, never half a page
    return path


def export_feedback(ws: Workspace, out_dir: Path, *, course: str | None = None,
                    pdf: bool = False) -> Job[FeedbackResult]:
    """Write every student's feedback page and the Moodle zips; a job (progress per page)."""
    result = FeedbackResult()
    show_reference = course_settings(ws).show_reference
    title = course or ws.path.stem.replace("_", " ").title()
    grades = final_grades(ws)
    students = {s.student_id: s for s in roster(ws)}
    per_student: dict[str, list[TaskFeedback]] = {}
    unmatched: list[tuple[str, TaskFeedback]] = []
    found = owners(ws, students.values())
    for done, owner in enumerate(found):
        yield Progress(done, len(found), f"{owner.task_id}/{owner.source_id}", phase="handing back")
        grade = grades[owner.submission_id]
        if grade.final.basis in (Basis.NEEDS_ADJUDICATION, Basis.UNGRADED):
            result.skipped.append(f"{owner.task_id}/{owner.source_id}: {grade.final.basis}")
            continue
        feedback = _task_feedback(ws, grade, show_reference)
        if owner.student_id is None:
            unmatched.append((f"{owner.task_id}_{owner.source_id}", feedback))
        else:
            per_student.setdefault(owner.student_id, []).append(feedback)
    out_dir.mkdir(parents=True, exist_ok=True)
    zips: dict[str, list[tuple[str, str]]] = {}
    used: set[str] = set()
    for student_id, student in students.items():
        tasks = per_student.get(student_id)
        if not tasks:
            result.skipped.append(f"{student_id}: no graded submission, no page")
            continue
        page = StudentFeedback(title, student.name, student_id, tuple(tasks))
        stem = _unique(_safe(student_id), used)
        result.pages.append(_write(out_dir / f"{stem}.html", render_feedback(page)))
        for task in tasks:
            if not student.participant_id:
                result.skipped.append(f"{student_id}: no Moodle participant id, not in "
                                      f"moodle/{task.task_id}.zip")
                continue
            one = StudentFeedback(title, student.name, student_id, (task,))
            zips.setdefault(task.task_id, []).append((_moodle_name(student, task.task_id),
                                                      render_feedback(one)))
    unmatched_used: set[str] = set()
    for name, feedback in unmatched:
        page = StudentFeedback(title, "(not on the roster)", "", (feedback,))
        stem = _unique(_safe(name), unmatched_used)
        result.pages.append(_write(out_dir / "unmatched" / f"{stem}.html",
                                   render_feedback(page)))
    for task_id, members in zips.items():
        path = out_dir / "moodle" / f"{_safe(task_id)}.zip"
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_open(path, "wb") as handle, \
                zipfile.ZipFile(handle, "w", zipfile.ZIP_DEFLATED) as archive:
            for member, text in members:
                archive.writestr(member, text)
        result.zips.append(path)
    if pdf:
        yield Progress(len(found), len(found), "PDF", phase="handing back")
        _pdfs(result)
    else:
        result.pdf_note = "no PDF asked for"
    return result


def pdf_engine() -> str | None:
    """A headless browser that prints HTML to PDF, or None."""
    return next((found for name in PDF_ENGINES if (found := shutil.which(name))), None)


def _pdfs(result: FeedbackResult) -> None:
    engine = pdf_engine()
    if engine is None:
        result.pdf_note = ("no PDF engine found (install Chromium for PDFs); the HTML pages "
                           "print to PDF from any browser")
        return
    with tempfile.TemporaryDirectory(prefix="cluestudio-pdf-") as profile:
        for page in result.pages:
            target = page.with_suffix(".pdf")
            try:
                subprocess.run([engine, "--headless", "--no-sandbox", "--disable-gpu",
                                f"--user-data-dir={profile}", "--no-pdf-header-footer",
                                f"--print-to-pdf={target}", page.resolve().as_uri()],
                               check=True, capture_output=True, timeout=120)
            except (OSError, subprocess.SubprocessError) as error:
                result.skipped.append(f"{page.name}: no PDF ({type(error).__name__})")
                continue
            if target.exists():
                result.pdfs.append(target)
    result.pdf_note = f"PDFs printed with {Path(engine).name}"

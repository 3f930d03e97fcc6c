"""Gradebooks in the column layouts learning-management systems import (issue 27).

One row per roster student, one grade column per task, the final grade (core/final_grade.py)
on 0–100 with two decimals; an empty cell where a student has no submission or the submission
has no final grade yet — the student is still listed. Submissions that belong to no roster
student cannot go into an LMS file; :class:`Gradebook` keeps them in ``unmatched`` so every
caller lists them.

``moodle``  Moodle's grade import (Grades → Import → CSV file): ``First name, Last name,
            ID number, Email address``, then ``Assignment: TITLE (Real)`` and
            ``Assignment: TITLE (Feedback)`` per task, as Moodle's own export names them; map
            "Email address" to the user's email (or "ID number" to idnumber) when importing.
``canvas``  Canvas's gradebook import: ``Student, ID, SIS User ID, SIS Login ID, Section``,
            a ``Points Possible`` row, then one column per task (a title without Canvas's
            "(assignment id)" makes Canvas create the assignment). Canvas matches students by
            SIS User ID (the roster's student id) or SIS Login ID (username, else email); the
            Canvas-internal ID is left empty. Canvas imports no comments.
``blackboard`` Blackboard Grade Center upload: ``Last Name, First Name, Username, Student
            ID`` then ``TITLE [Total Pts: 100 Score]`` per task, every field quoted; a book of
            one task adds ``Feedback to Learner`` and ``Feedback Format``.
``csv``     a plain table: the roster's columns, then per task the grade, what it rests on
            and the overall comment; unmatched submissions follow as rows of their own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from cluestudio.core.csv_out import write_csv
from cluestudio.core.roster import Student

FORMATS = ("moodle", "canvas", "blackboard", "csv")


@dataclass(frozen=True)
class Cell:
    """A student's final grade on one task."""

    value: float | None  # None: no grade (see ``status``)
    status: str  # the final grade's basis, "no submission", …
    comment: str = ""
    source_id: str = ""


@dataclass(frozen=True)
class GradebookTask:
    id: str
    title: str
    points: float = 100.0


@dataclass
class Gradebook:
    students: list[Student]
    tasks: list[GradebookTask]
    cells: dict[tuple[str, str], Cell]  # (student id, task id)
    unmatched: list[tuple[str, str, str]] = field(default_factory=list)  # task, source, why

    def cell(self, student_id: str, task_id: str) -> Cell:
        return self.cells.get((student_id, task_id), Cell(None, "no submission"))

    def missing(self) -> list[tuple[str, str, str]]:
        """(student id, task id, why) of every empty grade cell."""
        return [(s.student_id, t.id, self.cell(s.student_id, t.id).status)
                for s in self.students for t in self.tasks
                if self.cell(s.student_id, t.id).value is None]


def _grade(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}"


def _titles(tasks: Sequence[GradebookTask]) -> list[str]:
    """Column titles: the task titles, made unique with the task id where two coincide."""
    seen = [t.title.strip() or t.id for t in tasks]
    return [title if seen.count(title) == 1 else f"{title} ({task.id})"
            for title, task in zip(seen, tasks, strict=True)]


def table(book: Gradebook, fmt: str) -> tuple[list[str], list[list[object]], bool]:
    """(header, rows, quote every field) of ``book`` in format ``fmt``."""
    titles = _titles(book.tasks)
    if fmt == "moodle":
        header = ["First name", "Last name", "ID number", "Email address"]
        for title in titles:
            header += [f"Assignment: {title} (Real)", f"Assignment: {title} (Feedback)"]
        rows: list[list[object]] = []
        for s in book.students:
            first, last = s.first_last
            row: list[object] = [first, last, s.student_id, s.email]
            for task in book.tasks:
                cell = book.cell(s.student_id, task.id)
                row += [_grade(cell.value), cell.comment]
            rows.append(row)
        return header, rows, False
    if fmt == "canvas":
        header = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", *titles]
        rows = [["    Points Possible", "", "", "", "", *[f"{t.points:g}" for t in book.tasks]]]
        for s in book.students:
            first, last = s.first_last
            rows.append([f"{last}, {first}" if first else last, "", s.student_id,
                         s.username or s.email, s.section,
                         *[_grade(book.cell(s.student_id, t.id).value) for t in book.tasks]])
        return header, rows, False
    if fmt == "blackboard":
        header = ["Last Name", "First Name", "Username", "Student ID",
                  *[f"{title} [Total Pts: {t.points:g} Score]"
                    for title, t in zip(titles, book.tasks, strict=True)]]
        single = len(book.tasks) == 1
        if single:
            header += ["Feedback to Learner", "Feedback Format"]
        rows = []
        for s in book.students:
            first, last = s.first_last
            row = [last, first, s.username or s.email.split("@")[0], s.student_id,
                   *[_grade(book.cell(s.student_id, t.id).value) for t in book.tasks]]
            if single:
                row += [book.cell(s.student_id, book.tasks[0].id).comment, "PLAIN_TEXT"]
            rows.append(row)
        return header, rows, True
    if fmt == "csv":
        header = ["student_id", "name", "email", "section"]
        for task in book.tasks:
            header += [task.id, f"{task.id} status", f"{task.id} submission",
                       f"{task.id} comment"]
        rows = []
        for s in book.students:
            row = [s.student_id, s.name, s.email, s.section]
            for task in book.tasks:
                cell = book.cell(s.student_id, task.id)
                row += [_grade(cell.value), cell.status, cell.source_id, cell.comment]
            rows.append(row)
        for task_id, source_id, why in book.unmatched:
            row = ["", f"(no roster student: {why})", "", ""]
            for task in book.tasks:
                row += (["", "unmatched", source_id, ""] if task.id == task_id
                        else ["", "", "", ""])
            rows.append(row)
        return header, rows, False
    raise ValueError(f"unknown gradebook format {fmt!r}; formats: {', '.join(FORMATS)}")


def write_gradebook(book: Gradebook, fmt: str, path: Path) -> Path:
    header, rows, quote_all = table(book, fmt)
    return write_csv(path, header, rows, quote_all=quote_all)

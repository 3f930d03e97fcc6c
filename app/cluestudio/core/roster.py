"""A course roster: who the students are, read from a CSV the registrar or the LMS gives.

Columns (header names are matched case-insensitively, spaces and hyphens count as ``_``):

``student_id`` (or ``id``)      required, unique: the institution's student number
``name``                        required, unless ``first_name`` and ``last_name`` are given
``email``                       required (Moodle and Canvas match students by it)
``section``                     optional
``username``                    optional: the LMS login (Blackboard's upload key)
``participant_id``              optional: Moodle's per-assignment participant number, as in
                                its grading worksheet ("Participant 123456" or "123456");
                                the feedback zip needs it to name each student's folder
``submissions``                 optional: the student's submissions, ``source_id`` or
                                ``task_id/source_id``, separated by ``;``

Every problem is reported with the file and line; nothing is stored unless all rows are good.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from pathlib import Path

from cluestudio.core.workspace.report import Report

MAX_ROSTER_BYTES = 16 * 1024 * 1024
_ALIASES = {"id": "student_id", "student_number": "student_id", "e_mail": "email",
            "mail": "email", "firstname": "first_name", "lastname": "last_name",
            "submission": "submissions", "participant": "participant_id"}
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_PARTICIPANT = re.compile(r"^(?:participant\s*)?(\d+)$", re.IGNORECASE)


@dataclass(frozen=True)
class Student:
    student_id: str
    name: str
    email: str
    section: str = ""
    username: str = ""
    participant_id: str = ""
    submissions: tuple[str, ...] = ()  # "source_id" or "task_id/source_id"

    @property
    def first_last(self) -> tuple[str, str]:
        """(first name, last name): the name split at its last space."""
        first, _, last = self.name.rpartition(" ")
        return (first, last) if first else (last, "")


def _column(name: str) -> str:
    key = re.sub(r"[\s\-]+", "_", name.strip().lower())
    return _ALIASES.get(key, key)


def read_roster(path: Path, report: Report, data: bytes | None = None) -> list[Student]:
    """The students of a roster CSV; problems go into ``report`` with the file and line."""
    source = str(path)
    if data is None:
        try:
            if path.stat().st_size > MAX_ROSTER_BYTES:
                report.error(source, f"larger than {MAX_ROSTER_BYTES >> 20} MB: not a roster")
                return []
            data = path.read_bytes()
        except OSError as error:
            report.error(source, f"cannot read: {error.strerror or error}")
            return []
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        report.error(source, f"not UTF-8 (byte {error.start}); save the roster as UTF-8", line)
        return []
    # Spreadsheets in locales with a decimal comma save "CSV" with semicolons.
    first_line = text.split("\n", 1)[0]
    delimiter = ";" if ";" in first_line and "," not in first_line else ","
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        header = [_column(c) for c in next(reader)]
    except StopIteration:
        report.error(source, "empty file: a roster needs a header row", 1)
        return []
    except csv.Error as error:
        report.error(source, f"not a CSV file: {error}", 1)
        return []
    has_name = "name" in header or {"first_name", "last_name"} <= set(header)
    missing = [c for c in ("student_id", "email") if c not in header]
    if not has_name:
        missing.append("name (or first_name and last_name)")
    if missing:
        report.error(source, f"missing column(s) {', '.join(missing)}", 1)
        return []
    students: list[Student] = []
    seen: dict[str, int] = {}
    claimed: dict[str, int] = {}  # a roster-column submission -> the line that claims it
    participants: dict[str, int] = {}  # Moodle participant number -> its line
    try:
        for values in reader:
            line = reader.line_num
            if not any(v.strip() for v in values):
                continue
            if len(values) > len(header):
                report.error(source, f"{len(values)} fields, the header has {len(header)}",
                             line)
                continue
            row = {k: v.strip() for k, v in zip(header, values, strict=False)}
            student = _student(row, source, line, report)
            if student is None:
                continue
            if student.student_id in seen:
                report.error(source, f"student id {student.student_id!r} appears twice "
                                     f"(first on line {seen[student.student_id]})", line)
                continue
            taken = [f"{s} (line {claimed[s]})" for s in student.submissions if s in claimed]
            if taken:
                report.error(source, f"submission(s) {', '.join(taken)} already belong to "
                                     "another student", line)
                continue
            if student.participant_id in participants:
                report.error(source, f"participant {student.participant_id} is also line "
                                     f"{participants[student.participant_id]}'s", line)
                continue
            if student.participant_id:
                participants[student.participant_id] = line
            seen[student.student_id] = line
            claimed.update((s, line) for s in student.submissions)
            students.append(student)
    except csv.Error as error:
        report.error(source, f"broken CSV: {error}", reader.line_num)
    return students


def _student(row: dict[str, str], source: str, line: int, report: Report) -> Student | None:
    student_id = row.get("student_id", "")
    name = row.get("name") or " ".join(p for p in (row.get("first_name", ""),
                                                   row.get("last_name", "")) if p)
    email = row.get("email", "")
    problems = []
    if not student_id:
        problems.append("empty student_id")
    if not name:
        problems.append("empty name")
    if not _EMAIL.match(email):
        problems.append(f"email {email!r} is not an address" if email else "empty email")
    participant = row.get("participant_id", "")
    if participant:
        match = _PARTICIPANT.match(participant)
        if match is None:
            problems.append(f"participant_id {participant!r} is not Moodle's "
                            "'Participant NNN' or a number")
        else:
            participant = match.group(1)
    if problems:
        report.error(source, "; ".join(problems), line)
        return None
    submissions = tuple(s.strip() for s in row.get("submissions", "").split(";") if s.strip())
    return Student(student_id, name, email, row.get("section", ""), row.get("username", ""),
                   participant, submissions)

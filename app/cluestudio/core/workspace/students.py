"""A workspace's roster and which student each submission belongs to.

A submission belongs to a student, in this order of precedence:

1. its course-folder metadata (``submissions/<id>.json`` with ``"student_id": "..."``);
2. the roster's ``submissions`` column naming it (``source_id`` or ``task_id/source_id``);
3. its file name: the source id *is* the student id (or the roster's username), or starts or
   ends with it next to ``_``, ``-`` or ``.`` (``s001_lab2``, ``lab2-s001``).

A submission that names no roster student, or whose file name fits two, belongs to nobody and
is listed as such by every hand-back (gradebook, feedback), never silently dropped.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from cluestudio.core.roster import Student
from cluestudio.core.workspace.ops import rows
from cluestudio.core.workspace.records import now_iso
from cluestudio.core.workspace.store import Workspace


@dataclass(frozen=True)
class Owner:
    """Who a submission belongs to, and how we know; ``student_id`` None: nobody."""

    submission_id: int
    task_id: str
    source_id: str
    student_id: str | None
    how: str  # "metadata" | "roster" | "file name" | why nobody


def replace_roster(ws: Workspace, students: Sequence[Student]) -> int:
    """Store ``students`` as the course's roster (the previous roster goes), one transaction."""
    def write(conn: sqlite3.Connection) -> int:
        conn.execute("DELETE FROM roster")
        conn.executemany(
            "INSERT INTO roster(student_id, name, email, section, username, participant_id,"
            " submissions, created_at) VALUES (?,?,?,?,?,?,?,?)",
            [(s.student_id, s.name, s.email, s.section, s.username, s.participant_id,
              json.dumps(list(s.submissions)), now_iso()) for s in students])
        return len(students)

    return ws.write(write)


def roster(ws: Workspace) -> list[Student]:
    """The course's students, by student id."""
    return [Student(r["student_id"], r["name"], r["email"], r["section"], r["username"],
                    r["participant_id"], tuple(json.loads(r["submissions"])))
            for r in rows(ws._reader(), "SELECT * FROM roster ORDER BY student_id")]


def _name_fits(source_id: str, key: str) -> bool:
    if not key:
        return False
    if source_id == key:
        return True
    pattern = rf"(^{re.escape(key)}[_\-.])|([_\-.]{re.escape(key)}$)"
    return re.search(pattern, source_id) is not None


def owners(ws: Workspace, students: Iterable[Student] | None = None) -> list[Owner]:
    """Every submission of the workspace with its student (or why it has none)."""
    people = list(roster(ws) if students is None else students)
    by_id = {s.student_id: s for s in people}
    named: dict[str, str] = {}  # "task/source" or "source" -> student id (roster column)
    for student in people:
        for entry in student.submissions:
            named[entry] = student.student_id
    out = []
    for r in rows(ws._reader(), "SELECT id, task_id, source_id, meta FROM submissions"
                                " ORDER BY task_id, source_id"):
        sid, task, source = int(r["id"]), str(r["task_id"]), str(r["source_id"])
        meta = json.loads(r["meta"] or "{}")
        declared = str(meta.get("student_id") or "") if isinstance(meta, dict) else ""
        if declared in by_id:
            out.append(Owner(sid, task, source, declared, "metadata"))
            continue
        listed = named.get(f"{task}/{source}") or named.get(source)
        if listed is not None:
            out.append(Owner(sid, task, source, listed, "roster"))
            continue
        fits = sorted({s.student_id for s in people
                       if _name_fits(source, s.student_id) or _name_fits(source, s.username)})
        if len(fits) == 1:
            out.append(Owner(sid, task, source, fits[0], "file name"))
        elif fits:
            out.append(Owner(sid, task, source, None,
                             f"file name fits several students: {', '.join(fits)}"))
        elif declared:
            out.append(Owner(sid, task, source, None,
                             f"metadata names student {declared!r}, not on the roster"))
        else:
            out.append(Owner(sid, task, source, None, "no roster student matches"))
    return out


def identity(student: Student | None, *, blind: bool) -> str:
    """How a view names a submission's student: nobody while grading blind."""
    if blind or student is None:
        return ""
    return f"{student.name} ({student.student_id})"

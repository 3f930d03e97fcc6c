"""A workspace's gradebook: roster × tasks, each cell the submission's final grade."""

from __future__ import annotations

from cluestudio.core.gradebook import Cell, Gradebook, GradebookTask
from cluestudio.core.rubric import RubricError, get_rubric, rubric_id_for_kind
from cluestudio.core.workspace.finals import final_grades
from cluestudio.core.workspace.store import Workspace
from cluestudio.core.workspace.students import owners, roster


def _points(kind: str) -> float:
    try:
        return get_rubric(rubric_id_for_kind(kind)).total_max
    except RubricError:
        return 100.0


def gradebook(ws: Workspace) -> Gradebook:
    """Every roster student with a cell per task; submissions of nobody in ``unmatched``."""
    students = roster(ws)
    tasks = [GradebookTask(t.id, t.title, _points(t.diagram_kind)) for t in ws.tasks()]
    grades = final_grades(ws)
    cells: dict[tuple[str, str], Cell] = {}
    unmatched: list[tuple[str, str, str]] = []
    for owner in owners(ws, students):
        if owner.student_id is None:
            unmatched.append((owner.task_id, owner.source_id, owner.how))
            continue
        key = (owner.student_id, owner.task_id)
        if key in cells:
            unmatched.append((owner.task_id, owner.source_id,
                              f"{owner.student_id} has another submission of this task "
                              f"({cells[key].source_id})"))
            continue
        grade = grades[owner.submission_id]
        cells[key] = Cell(grade.final.value, grade.final.basis.value, grade.comment,
                          owner.source_id)
    return Gradebook(students, tasks, cells, unmatched)

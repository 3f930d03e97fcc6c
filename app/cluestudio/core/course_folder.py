"""Read a course folder: ``tasks/<id>/requirement.md`` and ``tasks/<id>/reference.puml``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cluestudio.core.errors import ClueStudioError


@dataclass(frozen=True)
class CourseTask:
    id: str
    title: str
    requirement: str
    reference_plantuml: str
    folder: Path


def _title_of(requirement: str, fallback: str) -> str:
    for line in requirement.splitlines():
        if line.startswith("#"):
            return line.lstrip("#").strip() or fallback
    return fallback


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise ClueStudioError(
            f"{path}: not UTF-8 text ({error.reason} at byte {error.start})"
        ) from error


def read_course_tasks(folder: Path) -> list[CourseTask]:
    tasks_dir = Path(folder) / "tasks"
    if not tasks_dir.is_dir():
        raise ClueStudioError(f"{folder}: not a course folder (no 'tasks' directory)")
    tasks = []
    for task_dir in sorted(p for p in tasks_dir.iterdir() if p.is_dir()):
        requirement_file = task_dir / "requirement.md"
        reference_file = task_dir / "reference.puml"
        requirement = _read_text(requirement_file) if requirement_file.exists() else ""
        reference = _read_text(reference_file) if reference_file.exists() else ""
        tasks.append(
            CourseTask(task_dir.name, _title_of(requirement, task_dir.name), requirement,
                       reference, task_dir)
        )
    return tasks

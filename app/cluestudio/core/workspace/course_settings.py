"""Course-level switches kept in the workspace's ``meta`` table (they travel with the file).

``show_reference``: whether feedback pages show the reference solution (its element diff
against the student's diagram); ``final_grade_threshold``: how far two graders' totals may
lie apart for their mean to be the final grade (core/final_grade.py).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from cluestudio.core.errors import ClueStudioError
from cluestudio.core.final_grade import DEFAULT_THRESHOLD
from cluestudio.core.workspace.store import Workspace


@dataclass(frozen=True)
class CourseSettings:
    show_reference: bool = False
    final_grade_threshold: float = DEFAULT_THRESHOLD


def course_settings(ws: Workspace) -> CourseSettings:
    stored = dict(ws._reader().execute(
        "SELECT key, value FROM meta WHERE key IN ('show_reference', 'final_grade_threshold')"
    ).fetchall())
    defaults = CourseSettings()
    try:
        threshold = float(stored.get("final_grade_threshold", defaults.final_grade_threshold))
    except ValueError:
        threshold = defaults.final_grade_threshold
    return CourseSettings(stored.get("show_reference", "0") == "1", threshold)


def set_course_settings(ws: Workspace, *, show_reference: bool | None = None,
                        final_grade_threshold: float | None = None) -> CourseSettings:
    if final_grade_threshold is not None and not 0 <= final_grade_threshold <= 100:
        raise ClueStudioError(f"the final-grade threshold is in points of 0..100, not "
                              f"{final_grade_threshold:g}")
    values = {}
    if show_reference is not None:
        values["show_reference"] = "1" if show_reference else "0"
    if final_grade_threshold is not None:
        values["final_grade_threshold"] = repr(float(final_grade_threshold))

    def write(conn: sqlite3.Connection) -> None:
        conn.executemany("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE"
                         " SET value = excluded.value", list(values.items()))

    ws.write(write)
    return course_settings(ws)

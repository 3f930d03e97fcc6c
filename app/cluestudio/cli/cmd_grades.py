"""``cluestudio grades``: the course's gradebook in the layout an LMS imports.

    cluestudio grades course.sqlite --format moodle|canvas|blackboard|csv -o grades.csv

One row per roster student with the final grade of each task (core/final_grade.py). Students
without a submission, submissions without a final grade and submissions of nobody on the
roster are listed on stderr (and in ``--json``), never dropped silently.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

NAME = "grades"
HELP = "write the gradebook (final grades, one row per student) for Moodle, Canvas, Blackboard"


def configure(parser: argparse.ArgumentParser) -> None:
    from cluestudio.core.gradebook import FORMATS

    parser.add_argument("workspace", type=Path)
    parser.add_argument("--format", choices=FORMATS, default="csv")
    parser.add_argument("-o", "--output", type=Path, required=True, help="the CSV to write")
    parser.add_argument("--json", action="store_true")


def run(args: argparse.Namespace) -> int:
    from cluestudio.cli.output import print_json
    from cluestudio.core.errors import ClueStudioError
    from cluestudio.core.gradebook import write_gradebook
    from cluestudio.core.workspace import open_workspace
    from cluestudio.core.workspace.gradebook_data import gradebook

    with open_workspace(args.workspace, create=False, readonly=True) as ws:
        book = gradebook(ws)
    if not book.students:
        raise ClueStudioError(f"{args.workspace}: no roster; store one first with "
                              "`cluestudio roster WORKSPACE roster.csv`")
    write_gradebook(book, args.format, args.output)
    missing, unmatched = book.missing(), book.unmatched
    if args.json:
        print_json({"written": str(args.output), "format": args.format,
                    "students": len(book.students), "tasks": [t.id for t in book.tasks],
                    "missing": [{"student_id": s, "task_id": t, "why": why}
                                for s, t, why in missing],
                    "unmatched": [{"task_id": t, "source_id": s, "why": why}
                                  for t, s, why in unmatched]})
        return 0
    graded = len(book.students) * len(book.tasks) - len(missing)
    print(f"{args.output}: {len(book.students)} students × {len(book.tasks)} tasks, "
          f"{graded} grades ({args.format})")
    for student_id, task_id, why in missing:
        print(f"  no grade: {student_id} {task_id} ({why})", file=sys.stderr)
    for task_id, source_id, why in unmatched:
        print(f"  not in the gradebook: {task_id}/{source_id} ({why})", file=sys.stderr)
    return 0

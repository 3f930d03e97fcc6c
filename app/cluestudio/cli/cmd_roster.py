"""``cluestudio roster``: a course's students, and which submission is whose.

    cluestudio roster course.sqlite roster.csv     # store the roster (replaces the old one)
    cluestudio roster course.sqlite                # list students and unmatched submissions

The CSV's columns are described in :mod:`cluestudio.core.roster`; a bad row is reported with
the file and line and nothing is stored.
"""

from __future__ import annotations

import argparse
from pathlib import Path

NAME = "roster"
HELP = "import a course roster (student id, name, email, section) or list who owns what"
_LISTED = 20

def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("workspace", type=Path)
    parser.add_argument("roster", type=Path, nargs="?", help="roster CSV to store")
    parser.add_argument("--json", action="store_true")


def run(args: argparse.Namespace) -> int:
    from cluestudio.cli.cmd_import import print_failure
    from cluestudio.cli.output import print_json
    from cluestudio.core.roster import read_roster
    from cluestudio.core.workspace import ImportFailed, Report, open_workspace
    from cluestudio.core.workspace.students import owners, replace_roster, roster

    with open_workspace(args.workspace, create=False, readonly=args.roster is None) as ws:
        if args.roster is not None:
            report = Report()
            students = read_roster(args.roster, report)
            if report.errors:
                return print_failure(ImportFailed(report), args.json)
            replace_roster(ws, students)
        people = roster(ws)
        found = owners(ws, people)
    owned = {o.student_id for o in found if o.student_id}
    unmatched = [o for o in found if o.student_id is None]
    if args.json:
        print_json({"students": len(people),
                    "without_submission": sorted({s.student_id for s in people} - owned),
                    "unmatched": [{"task_id": o.task_id, "source_id": o.source_id,
                                   "why": o.how} for o in unmatched]})
        return 0
    print(f"{len(people)} students; {len(found) - len(unmatched)} of {len(found)} "
          f"submissions belong to one")
    for student in people:
        if student.student_id not in owned:
            print(f"  no submission: {student.student_id} {student.name}")
    for owner in unmatched[:_LISTED]:
        print(f"  nobody's: {owner.task_id}/{owner.source_id} ({owner.how})")
    if len(unmatched) > _LISTED:
        print(f"  … and {len(unmatched) - _LISTED} more submissions of nobody (--json lists "
              "them all)")
    return 0

"""``cluestudio feedback``: one feedback page per student, and the LMS bulk-feedback zips.

    cluestudio feedback course.sqlite OUT/ [--course "Software Design 2026"] [--pdf]
    cluestudio feedback course.sqlite --show-reference on|off   # the course's switch

Pages are self-contained HTML (images embedded, no network needed); ``OUT/moodle/<task>.zip``
is laid out for Moodle's "Upload multiple feedback files in a zip" (app/handback.py).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

NAME = "feedback"
HELP = "write one feedback page per student (HTML, optional PDF) and Moodle feedback zips"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("workspace", type=Path)
    parser.add_argument("out_dir", type=Path, nargs="?", help="folder for the pages and zips")
    parser.add_argument("--course", help="the course's name at the top of each page")
    parser.add_argument("--pdf", action="store_true", help="also print each page to PDF "
                        "(needs Chromium; skipped with a note otherwise)")
    parser.add_argument("--show-reference", choices=("on", "off"),
                        help="set the course's switch: show students the element diff "
                             "against the reference solution")
    parser.add_argument("--json", action="store_true")


def run(args: argparse.Namespace) -> int:
    from cluestudio.app.handback import export_feedback
    from cluestudio.cli.output import print_json, stderr_progress
    from cluestudio.core.errors import ClueStudioError
    from cluestudio.core.jobs import run_job
    from cluestudio.core.workspace import open_workspace
    from cluestudio.core.workspace.course_settings import set_course_settings

    if args.out_dir is None and args.show_reference is None:
        raise ClueStudioError("give an output folder, or --show-reference on|off")
    with open_workspace(args.workspace, create=False,
                        readonly=args.show_reference is None) as ws:
        if args.show_reference is not None:
            settings = set_course_settings(ws, show_reference=args.show_reference == "on")
            print(f"{args.workspace}: reference shown to students: "
                  f"{'yes' if settings.show_reference else 'no'}", file=sys.stderr)
        if args.out_dir is None:
            return 0
        result = run_job(export_feedback(ws, args.out_dir, course=args.course, pdf=args.pdf),
                         None if args.json else stderr_progress)
    if args.json:
        print_json(result.to_dict())
        return 0
    print(f"{args.out_dir}: {len(result.pages)} pages, {len(result.zips)} Moodle zips, "
          f"{len(result.pdfs)} PDFs ({result.pdf_note})")
    for line in result.skipped:
        print(f"  {line}", file=sys.stderr)
    return 0

"""``cluestudio gui``: open the review and grading workbench.

With no argument it opens the workspace used last, or the bundled sample course (copied into
the user data dir on first use); ``--sample`` always opens the sample course. ``--course``
opens the simple course browser (the first window) on a course folder instead.
"""

from __future__ import annotations

import argparse
from pathlib import Path

NAME = "gui"
HELP = "open the ClueStudio workbench (last workspace, or the bundled sample course)"


def sample_course_folder() -> Path:
    from cluestudio.resources_path import annotations_dir

    return annotations_dir() / "sample"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("workspace", nargs="?", type=Path,
                        help="workspace file (.sqlite); default: the last one, or the sample")
    parser.add_argument("--sample", action="store_true",
                        help="open the bundled sample course workspace")
    parser.add_argument("--course", type=Path, metavar="FOLDER",
                        help="browse a course folder (tasks/<id>/...) in the simple viewer")


def run(args: argparse.Namespace) -> int:
    if args.course is not None:
        from cluestudio.gui.app import run_app

        return run_app(args.course)
    from cluestudio.gui.app import run_workbench

    return run_workbench(None if args.sample else args.workspace, sample=args.sample)

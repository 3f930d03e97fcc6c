"""``cluestudio gui``: open the workbench on a course folder (default: the sample course)."""

from __future__ import annotations

import argparse
from pathlib import Path

NAME = "gui"
HELP = "open the ClueStudio window (on the bundled sample course by default)"


def sample_course_folder() -> Path:
    from cluestudio.resources_path import annotations_dir

    return annotations_dir() / "sample"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("course", nargs="?", type=Path,
                        help="course folder (tasks/<id>/...); default: the sample course")
    parser.add_argument("--sample", action="store_true", help="open the bundled sample course")


def run(args: argparse.Namespace) -> int:
    from cluestudio.gui.app import run_app

    folder = args.course if (args.course and not args.sample) else sample_course_folder()
    return run_app(folder)

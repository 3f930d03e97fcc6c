"""Start the Qt application: create the window, the job worker, and clean up on exit."""

from __future__ import annotations

import sys
from pathlib import Path

from cluestudio import __version__
from cluestudio.gui.first_window import FirstWindow, TaskEntry
from cluestudio.gui.qt import QApplication
from cluestudio.gui.worker import JobRunner


def tasks_from_course_folder(folder: Path) -> list[TaskEntry]:
    """Tasks of a course folder (``tasks/<id>/requirement.md`` + ``reference.puml``)."""
    from cluestudio.core.course_folder import read_course_tasks

    return [
        TaskEntry(t.id, t.title, t.requirement, t.reference_plantuml)
        for t in read_course_tasks(folder)
    ]


def build_window(folder: Path) -> tuple[FirstWindow, JobRunner]:
    from cluestudio.core.plantuml.renderer import get_renderer

    runner = JobRunner()
    renderer = get_renderer()
    window = FirstWindow(
        tasks_from_course_folder(folder), runner, lambda text: renderer.render(text, "png")
    )
    return window, runner


def run_app(folder: Path, argv: list[str] | None = None) -> int:
    app = QApplication.instance() or QApplication(argv or sys.argv[:1])
    app.setApplicationName("ClueStudio")
    app.setOrganizationName("ClueStudio")
    app.setApplicationVersion(__version__)
    window, runner = build_window(folder)
    app.aboutToQuit.connect(runner.shutdown)
    window.show()
    return int(app.exec())

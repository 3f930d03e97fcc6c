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


def open_start_workspace(settings: object, path: Path | None = None) -> object:
    """The workspace to start on: ``path``, else the last one used, else the sample course."""
    from cluestudio.core.workspace import open_sample_workspace, open_workspace

    if path is not None:
        return open_workspace(path, create=False)
    last = getattr(getattr(settings, "workspace", None), "last", "")
    if last and Path(last).is_file():
        try:
            return open_workspace(Path(last), create=False)
        except Exception:  # a moved, locked or broken last workspace: fall back to the sample
            pass
    return open_sample_workspace()


def build_workbench(path: Path | None = None, *, sample: bool = False
                    ) -> tuple[object, JobRunner]:
    """The review-and-grading window on a workspace, and its job runner (shut it down)."""
    from cluestudio.core.settings import load_settings
    from cluestudio.core.workspace import open_sample_workspace
    from cluestudio.gui.main_window import MainWindow

    settings, warnings = load_settings()
    runner = JobRunner()
    runner.setObjectName("workbench-jobs")
    window = MainWindow(runner, settings)
    for warning in warnings:
        window.errors.add_error("settings", warning)
    try:
        ws = open_sample_workspace() if sample else open_start_workspace(settings, path)
        window.open(ws)  # type: ignore[arg-type]
    except BaseException:
        window.close()
        runner.shutdown()
        raise
    return window, runner


def run_workbench(path: Path | None = None, *, sample: bool = False,
                  argv: list[str] | None = None) -> int:
    from cluestudio.core.settings import load_settings
    from cluestudio.gui.theme import apply_theme

    app = QApplication.instance() or QApplication(argv or sys.argv[:1])
    app.setApplicationName("ClueStudio")
    app.setOrganizationName("ClueStudio")
    app.setApplicationVersion(__version__)
    apply_theme(app, load_settings()[0].ui.theme)  # type: ignore[arg-type]
    window, runner = build_workbench(path, sample=sample)
    app.aboutToQuit.connect(runner.shutdown)
    window.show()  # type: ignore[attr-defined]
    return int(app.exec())

"""Start the Qt application: create the window, its job runners, and clean up on exit."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING, cast

from cluestudio import __version__
from cluestudio.gui.qt import QApplication
from cluestudio.gui.worker import JobRunner, ProcessRunner

if TYPE_CHECKING:  # imported where used: the window starts before they are needed
    from cluestudio.core.workspace import Workspace
    from cluestudio.gui.main_window import MainWindow


def open_start_workspace(settings: object, path: Path | None = None,
                         course: Path | None = None) -> Workspace:
    """The workspace to start on: ``path``; else a course folder imported into a workspace
    of its own; else the last one used; else the sample course."""
    from cluestudio.core.workspace import open_sample_workspace, open_workspace

    if path is not None:
        return open_workspace(path, create=False)
    if course is not None:
        return open_course_workspace(course)
    from cluestudio.core.workspace import WorkspaceInUse

    last = getattr(getattr(settings, "workspace", None), "last", "")
    if last and Path(last).is_file():
        try:
            return open_workspace(Path(last), create=False)
        except WorkspaceInUse:
            raise  # open in another window: the user chooses (gui/single_instance.py)
        except Exception:  # a moved or broken last workspace: fall back to the sample
            pass
    return open_sample_workspace()


def open_course_workspace(course: Path) -> Workspace:
    """A course folder opened as a workspace: imported (by the one importer, all or nothing)
    into ``<data dir>/courses/<folder name>.sqlite``; an import already there is updated."""
    from cluestudio.core.jobs import run_job
    from cluestudio.core.workspace import import_path, open_workspace
    from cluestudio.core.workspace.sample import data_dir

    path = data_dir() / "courses" / f"{course.resolve().name}.sqlite"
    ws = open_workspace(path)
    try:
        run_job(import_path(ws, course))
    except BaseException:
        ws.close()
        raise
    return ws


def build_workbench(path: Path | None = None, *, sample: bool = False,
                    course: Path | None = None) -> tuple[MainWindow | None, JobRunner]:
    """The review-and-grading window on a workspace, and its job runner. Shut the runner
    down; the window's worker process is stopped when the window closes. No window (None)
    when the workspace is open in another window and the user chose that one, or quit."""
    from cluestudio.core.settings import load_settings
    from cluestudio.core.workspace import WorkspaceInUse, open_sample_workspace
    from cluestudio.gui.main_window import MainWindow
    from cluestudio.gui.single_instance import resolve_in_use

    settings, warnings = load_settings()
    runner = JobRunner()
    runner.setObjectName("workbench-jobs")
    processes = ProcessRunner()
    processes.setObjectName("workbench-worker-process")
    window = MainWindow(runner, settings, processes=processes)
    for warning in warnings:
        window.errors.add_error("settings", warning)
    try:
        try:
            ws = (open_sample_workspace() if sample
                  else open_start_workspace(settings, path, course))
        except WorkspaceInUse as error:  # a second instance, maybe from a launcher
            chosen = resolve_in_use(error, pick_other=window.files.ask_workspace_path)
            if chosen is None:
                window.close()
                processes.shutdown()
                return None, runner
            ws = chosen
        window.open(ws)
    except BaseException:
        window.close()
        runner.shutdown()
        processes.shutdown()
        raise
    return window, runner


def run_workbench(path: Path | None = None, *, sample: bool = False,
                  course: Path | None = None, argv: list[str] | None = None) -> int:
    from cluestudio.core.settings import load_settings
    from cluestudio.gui.theme import apply_theme

    app = QApplication.instance() or QApplication(argv or sys.argv[:1])
    app.setApplicationName("ClueStudio")
    app.setOrganizationName("ClueStudio")
    app.setApplicationVersion(__version__)
    # instance() is typed QCoreApplication: the one running here is a QApplication.
    apply_theme(cast(QApplication, app), load_settings()[0].ui.theme)
    window, runner = build_workbench(path, sample=sample, course=course)
    if window is None:  # the window that has the workspace came forward (or: quit)
        runner.shutdown()
        return 0
    window.show()
    window.ask_grader_name()  # first run only
    code = int(app.exec())
    if not runner.stop(QUIT_PATIENCE_MS):
        _exit_now(code)  # only uncancellable work was left; everything is saved
    return code


# How long Quit waits for the window's job threads after the window closed. Closing it
# saved everything (the workspace is closed, drafts and layout written); what may still run
# is a render or the PlantUML JVM starting up (3-9 s on a slow machine, issue 24).
QUIT_PATIENCE_MS = 300


def _exit_now(code: int) -> None:
    """End the process without waiting for the job threads (Python would wait, and Qt
    aborts on a thread destroyed while it runs). Logs and output are flushed first; a JVM
    of ours ends by itself at the end of its input."""
    import logging
    import os

    logging.getLogger("cluestudio").info("quit: not waiting for jobs that cannot be "
                                         "cancelled")
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)

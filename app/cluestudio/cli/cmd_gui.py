"""``cluestudio gui``: open the review and grading workbench.

With no argument it opens the workspace used last, or the bundled sample course (copied into
the user data dir on first use); ``--sample`` always opens the sample course. ``--course``
imports a course folder into a workspace of its own (in the data dir) and opens that.
"""

from __future__ import annotations

import argparse
import sys
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
                        help="import a course folder (tasks/<id>/...) into a workspace of its "
                             "own and open it")
    # Hidden: smoke tests and start-up timing (scripts/installer_smoke.sh). Closes the
    # windows SECONDS after the first one has been painted, as a user would, and quits.
    parser.add_argument("--quit-after", type=float, metavar="SECONDS", help=argparse.SUPPRESS)


def _quit_after_first_paint(seconds: float) -> None:
    """Quit the (about to be created) application ``seconds`` after a window first paints."""
    import logging
    import time

    from cluestudio.gui.qt import QApplication, QEvent, QObject, QTimer, QWidget

    started = time.perf_counter()
    app = QApplication.instance() or QApplication(sys.argv[:1])

    def quit_like_a_user() -> None:
        # A modal question open (first run: "Who is grading?") runs an event loop of its
        # own, and a quit from inside it would be lost before app.exec() starts: dismiss it
        # as a user would (Cancel), and close the windows once its loop has returned.
        modal = QApplication.activeModalWidget()
        if modal is not None:
            modal.close()
            QTimer.singleShot(0, quit_like_a_user)
            return
        QApplication.closeAllWindows()  # closeEvent: save layout, cancel jobs, close workspace
        app.quit()

    class FirstPaint(QObject):
        def eventFilter(self, watched: QObject, event: QEvent) -> bool:
            if (event.type() == QEvent.Type.Paint and isinstance(watched, QWidget)
                    and watched.isWindow()):
                app.removeEventFilter(self)
                # The epoch time lets a caller measure from exec (installer_smoke.sh).
                logging.getLogger("cluestudio").info(
                    "window shown %.2f s after the gui command started (at %.3f)",
                    time.perf_counter() - started, time.time())
                QTimer.singleShot(max(0, int(seconds * 1000)), quit_like_a_user)
            return False

    app.installEventFilter(FirstPaint(app))


def _window_libraries_missing() -> str:
    """Qt would abort on X11 without these system libraries: say what to install instead.
    Only where Qt will use xcb (Linux, no other platform chosen) and not in the installer's
    bundle (its Qt is laid out differently and ships what it needs)."""
    import os

    platform = os.environ.get("QT_QPA_PLATFORM", "")
    if (not sys.platform.startswith("linux") or getattr(sys, "frozen", False)
            or (platform and not platform.startswith("xcb"))
            or (os.environ.get("WAYLAND_DISPLAY") and not os.environ.get("DISPLAY"))):
        return ""
    from cluestudio.system_check import check_qt, report

    findings = check_qt()
    return report(findings) if any(f.missing or f.fatal for f in findings) else ""


def run(args: argparse.Namespace) -> int:
    if (advice := _window_libraries_missing()):
        print(advice, file=sys.stderr)
        return 1
    # The workspace and the parser, which the window needs before it paints, are imported
    # before Qt starts: imported after QApplication exists (as once the CLI stopped loading
    # every command's options), the first paint came ~0.4 s later under load (median of 8
    # interleaved runs at load 9; benchmarks/bench_startup.py --against).
    import cluestudio.core.plantuml.parser
    import cluestudio.core.workspace  # noqa: F401
    if args.quit_after is not None:
        _quit_after_first_paint(args.quit_after)
    from cluestudio.gui.app import run_workbench

    return run_workbench(None if args.sample else args.workspace, sample=args.sample,
                         course=args.course)

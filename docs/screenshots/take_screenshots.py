"""Screenshots of both workbench modes, for the docs (run under Xvfb, see README below).

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python docs/screenshots/take_screenshots.py

Works on a throw-away copy of a demo course (tests/gui_course.py) in a temp dir, so the
user's workspaces and settings are never touched. Scores use the ``exact`` embedder when the
parser is installed (no model download); otherwise the metric panel shows its example data.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def main() -> int:
    tmp = Path(tempfile.mkdtemp(prefix="cluestudio-shots-"))
    for name in ("DATA", "CONFIG", "CACHE"):
        os.environ[f"CLUESTUDIO_{name}_DIR"] = str(tmp / name.lower())
    sys.path.insert(0, str(ROOT / "tests"))
    from cluestudio.core.jobs import run_job
    from cluestudio.core.settings import Settings, updated
    from cluestudio.core.workspace import import_path, open_workspace
    from cluestudio.gui.main_window import MainWindow
    from cluestudio.gui.qt import QApplication
    from cluestudio.gui.theme import apply_theme
    from cluestudio.gui.widgets.metric_panel import EXAMPLE
    from cluestudio.gui.worker import JobRunner
    from gui_course import make_course

    theme = sys.argv[1] if len(sys.argv) > 1 else "light"
    app = QApplication([])
    apply_theme(app, theme)
    ws = open_workspace(tmp / "demo.sqlite")
    run_job(import_path(ws, make_course(tmp / "course")))
    runner = JobRunner()
    window = MainWindow(runner, updated(Settings(), ui={"theme": theme},
                                        scoring={"embedder": "exact"}))
    window.ask_before_discard = False
    window.open(ws)
    window.resize(1600, 1000)
    window.show()

    def settle(ms: int = 1500) -> None:
        from cluestudio.gui.qt import QElapsedTimer

        clock = QElapsedTimer()
        clock.start()
        while clock.elapsed() < ms:
            app.processEvents()

    settle(4000)  # first render starts the JVM
    # A real mistake for the parser to mark: an unclosed class body before @enduml.
    editor = window.review.editor
    editor.setPlainText(editor.toPlainText().replace("@enduml", "class Fine {\n@enduml"))
    window.review.verdict.load("needs_fix", ["class_missing", "association_missing"])
    settle()
    suffix = "" if theme == "light" else f"-{theme}"
    window.grab().save(str(HERE / f"review-mode{suffix}.png"))
    window.review.set_compare(True)
    settle()
    window.review.compare.view.parentWidget().parentWidget().grab().save(
        str(HERE / f"review-compare{suffix}.png"))
    window.review.set_compare(False)

    window.modes.setCurrentIndex(1)
    settle()
    window.score_current()
    settle(6000)
    if not window.grading.metrics.metrics_visible():
        window.grading.metrics.set_metrics(EXAMPLE)
    for key in "4324":
        window.grading.rubric.handle_key(0, key)
    window.grading.metrics.tree.setCurrentItem(window.grading.metrics.tree.topLevelItem(0)
                                               .child(0))
    settle()
    window.grab().save(str(HERE / f"grading-mode{suffix}.png"))
    window.close()
    runner.shutdown()
    print(f"screenshots in {HERE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Screenshots of the workbench for the docs (run under Xvfb, see below).

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python docs/screenshots/take_screenshots.py

Works on a throw-away copy of a demo course (tests/gui_course.py) in a temp dir, so the
user's workspaces and settings are never touched. Diagrams come from the real PlantUML
renderer; scores use the ``exact`` embedder (no model download); the VLM probe talks to the
local OpenAI-compatible test stub (tests/support/openai_stub.py) over HTTP on 127.0.0.1.

Writes review-mode.png (B rendered), review-error.png (a syntax error marked),
review-compare.png, grading-mode.png (reference and B rendered, baselines, probe flag) and
analysis.png (disagreement queue), analysis-agreement.png (inter-rater agreement) and
analysis-figures.png; a theme argument ("dark") adds a suffix.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def _probe_answers(request: dict[str, Any]) -> str:
    from support.openai_stub import user_text

    if "List all class names" in user_text(request):
        return '```json\n["Book"]\n```'  # the model does not see Member in image A
    return "Unknown"


def _rate_everything(window: Any) -> None:
    """Two graders' ratings, so the Analysis view has queues to show."""
    from cluestudio.core.workspace import SaveRating

    bench = window.bench
    ws = bench.require()
    for number, sid in enumerate(window.navigator.ids()):
        level = (4, 3, 1, 2, 0, 3)[number % 6]
        for grader, shift in (("ana", 0), ("ben", 2 if number == 3 else 0)):
            scores = {i.id: max(0, min(level - shift, 2 if i.id == "multiplicities" else 4))
                      for i in bench.rubric.items}
            ws.execute(SaveRating(sid, grader, scores, rubric=bench.rubric))


def main() -> int:
    tmp = Path(tempfile.mkdtemp(prefix="cluestudio-shots-"))
    for name in ("DATA", "CONFIG", "CACHE"):
        os.environ[f"CLUESTUDIO_{name}_DIR"] = str(tmp / name.lower())
    sys.path.insert(0, str(ROOT / "tests"))
    from cluestudio.core.jobs import run_job
    from cluestudio.core.settings import Settings, updated
    from cluestudio.core.workspace import import_path, open_workspace
    from cluestudio.gui.main_window import MainWindow
    from cluestudio.gui.qt import QApplication, QElapsedTimer, Qt
    from cluestudio.gui.theme import apply_theme
    from cluestudio.gui.worker import JobRunner
    from gui_course import make_course
    from support.openai_stub import OpenAIStub

    theme = sys.argv[1] if len(sys.argv) > 1 else "light"
    suffix = "" if theme == "light" else f"-{theme}"
    app = QApplication([])
    apply_theme(app, theme)
    stub = OpenAIStub(_probe_answers).start()
    ws = open_workspace(tmp / "demo.sqlite")
    run_job(import_path(ws, make_course(tmp / "course")))
    runner = JobRunner()
    window = MainWindow(runner, updated(Settings(), ui={"theme": theme, "grader": "ana"},
                                        scoring={"embedder": "exact"},
                                        llm={"base_url": stub.url, "model": "stub-vlm"}))
    window.ask_before_discard = False
    window.open(ws)
    window.resize(1600, 1000)
    window.show()

    def settle(ms: int = 1500) -> None:
        clock = QElapsedTimer()
        clock.start()
        while clock.elapsed() < ms:
            app.processEvents()

    def until(condition: Any, ms: int = 30_000) -> None:
        clock = QElapsedTimer()
        clock.start()
        while not condition() and clock.elapsed() < ms:
            app.processEvents()
        settle(300)

    def shoot(widget: Any, name: str) -> None:
        widget.grab().save(str(HERE / f"{name}{suffix}.png"))

    review = window.review
    until(lambda: review.image_b.image is not None)  # the first render starts the JVM
    # The reviewer adds the missing Fine class; B follows the text.
    editor = review.editor
    shown: list[object] = []
    review.preview_shown.connect(shown.append)
    editor.setPlainText(editor.toPlainText().replace(
        "@enduml", "class Fine {\n  amount : double\n}\nMember \"1\" -- \"*\" Fine\n@enduml"))
    until(lambda: bool(shown))
    review.verdict.load("needs_fix", ["class_missing", "association_missing"])
    review.sync.fit_all()
    settle(500)
    shoot(window, "review-mode")
    review.set_compare(True)
    settle()
    shoot(review.compare.view.parentWidget().parentWidget(), "review-compare")
    review.set_compare(False)
    # A real mistake for the parser to mark: an unclosed class body before @enduml.
    shown.clear()
    editor.setPlainText(editor.toPlainText().replace("@enduml", "class Loan {\n@enduml"))
    until(lambda: bool(shown))
    shoot(window, "review-error")
    editor.setPlainText(review.view.head_puml if review.view else "")

    # Tools → Probe on this submission, through the stub endpoint.
    probed: list[object] = []
    window.model_actions.outcome.connect(probed.append)
    window.model_actions.probe_action.trigger()
    until(lambda: bool(probed))

    window.modes.setCurrentIndex(1)
    grading = window.grading
    until(lambda: grading.reference_image.image is not None and grading.image_b.image is not None)
    scored: list[object] = []
    window.bench.scores_ready.connect(scored.append)
    window.score_current()
    until(lambda: bool(scored), 60_000)
    for key in "4324":
        grading.rubric.handle_key(0, key)
    grading.metrics.tree.setCurrentItem(grading.metrics.tree.topLevelItem(0).child(0))
    grading.reference_tabs.setCurrentWidget(grading.reference_image)
    grading.candidate_tabs.setCurrentWidget(grading.image_b)
    grading.sync.fit_all()
    settle(800)
    shoot(window, "grading-mode")

    # Analysis: everyone rated by two graders and scored, then the dock on its own.
    _rate_everything(window)
    scored.clear()
    window.score_listed()
    until(lambda: bool(scored), 120_000)
    analysis = window.analysis
    done: list[object] = []
    analysis.shown.connect(lambda: done.append(True))
    window.show_analysis()
    until(lambda: bool(done), 60_000)
    window.analysis_dock.setFloating(True)
    window.analysis_dock.resize(1100, 720)
    analysis.metric_queue.setCurrentItem(analysis.metric_queue.topLevelItem(0))
    settle(800)
    shoot(window.analysis_dock, "analysis")
    analysis.tabs.setCurrentWidget(analysis.agreement_page)
    settle(500)
    shoot(window.analysis_dock, "analysis-agreement")
    analysis.tabs.setCurrentWidget(analysis.figures_page)
    settle(500)
    shoot(window.analysis_dock, "analysis-figures")
    window.analysis_dock.setFloating(False)
    window.analysis_dock.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, False)

    window.close()
    runner.shutdown()
    stub.close()
    print(f"screenshots in {HERE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

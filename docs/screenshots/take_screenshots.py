"""Screenshots of the workbench for the docs, at the screen sizes a TA has (issue 17).

    .venv/bin/python docs/screenshots/take_screenshots.py            # both sizes, via xvfb-run
    xvfb-run -a -s "-screen 0 1366x768x24" env QT_QPA_PLATFORM=xcb \\
        .venv/bin/python docs/screenshots/take_screenshots.py --size 1366x768   # one size

Runs on a real X server (Xvfb), never offscreen: the window is placed on the whole screen
and the screen itself is grabbed, so a shot shows exactly what fits on a 1366×768 or
1920×1080 display (a window that grew past the screen would be cut off in the picture, and
the script says so). Without ``--size`` the script starts itself under ``xvfb-run`` once per
size.

Everything happens on a throw-away copy of the demo course (tests/gui_course.py) in a temp
dir (CLUESTUDIO_DATA_DIR, _CONFIG_DIR and _CACHE_DIR point there), so the user's workspaces
and settings are never touched. One submission is added to it: a student's diagram rendered
by PlantUML as image A, and a conversion that dropped the Fine class and invented a
Librarian, so the offline check, the VLM probe and CLUE's missing/extra lists have something
to show. Diagrams come from the real PlantUML renderer; scores use the ``exact`` embedder (no
model download); the VLM probe talks to the local OpenAI-compatible test stub
(tests/support/openai_stub.py) over HTTP on 127.0.0.1.

Writes, per size (suffix -1366 or -1920):
  review-mode       A beside the rendering B, the editor, the verdict and issue tags
  review-compare    A and B overlaid (Compare A/B)
  review-error      a syntax error marked in the editor, the last good B kept
  review-check      the offline OCR check's boxes on A and its findings (needs the ocr extra)
  grading-mode      requirement/reference, candidate, rubric, CLUE with missing and extra
  grading-mode-dark the same in the dark theme
  analysis          the metric-vs-human disagreement queue
  analysis-agreement, analysis-figures
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SIZES = ("1366x768", "1920x1080")

# What the student drew (image A) and what the converter made of it: Fine dropped (with its
# association), a Librarian invented.
STUDENT = """@startuml
class Member {
  - name : String
  - email : String
  + borrow(copy : Copy) : Loan
}
class Loan {
  - lentOn : Date
  - dueOn : Date
  + renew() : void
}
class Copy {
  - barcode : String
}
class Book {
  - isbn : String
  - title : String
}
class Fine {
  - amount : double
}
Member "1" -- "0..5" Loan : borrows
Loan "0..*" --> "1" Copy : lends
Book "1" *-- "1..*" Copy : has
Loan "1" -- "0..1" Fine : incurs
@enduml
"""
CONVERTED = (STUDENT.replace("class Fine {\n  - amount : double\n}\n", "class Librarian\n")
             .replace('Loan "1" -- "0..1" Fine : incurs\n', "Librarian ..> Loan\n"))
SHOWN = "s04"  # the submission the review and grading shots show


def _probe_answers(request: dict[str, Any]) -> str:
    from support.openai_stub import user_text

    if "List all class names" in user_text(request):  # the VLM reads A: no Librarian there
        return '```json\n["Member", "Loan", "Copy", "Book", "Fine"]\n```'
    return "True"


def _make_course(root: Path) -> Path:
    """The demo course, plus the student's submission with a rendered image A."""
    from cluestudio.core.synth import render_look
    from gui_course import make_course

    make_course(root)
    folder = root / "tasks" / "library_loans" / "submissions"
    (folder / f"{SHOWN}.png").write_bytes(render_look(STUDENT, "default", random.Random(0)))
    (folder / f"{SHOWN}.puml").write_text(CONVERTED, encoding="utf-8")
    return root


def _rate_everything(window: Any) -> None:
    """Three graders rate every scored submission, so the Analysis mode has queues and
    agreement figures to show: their totals follow CLUE's order except for one submission
    CLUE undervalues (the top of the metric queue) and one the graders disagree on. The
    submission with a grading draft keeps its draft (ana has not rated it)."""
    from cluestudio.core.workspace import SaveRating

    bench = window.bench
    ws = bench.session.require()
    clue = ws.metric_values("clue")
    ids = sorted(window.navigator.ids(), key=lambda sid: clue.get(sid, 0.0))
    last = max(1, len(ids) - 1)
    drafted = window.grading.view.submission.id if window.grading.view else None
    for rank, sid in enumerate(ids):
        level = 4 if rank == 1 else round(4 * rank / last)
        for grader, shift in (("ana", 0), ("ben", rank % 2), ("cara", 0)):
            if grader == "ana" and sid == drafted:
                continue
            if grader == "cara" and rank == last // 2:
                shift = -3 if level < 2 else 3
            scores = {i.id: max(0, min(level - shift, 2 if i.id == "multiplicities" else 4))
                      for i in bench.default_rubric.items}
            ws.execute(SaveRating(sid, grader, scores, rubric=bench.default_rubric))
    window.refresh_rows()


def _tree_items(tree: Any) -> list[Any]:
    out = []
    for i in range(tree.topLevelItemCount()):
        group = tree.topLevelItem(i)
        out += [group.child(j) for j in range(group.childCount())]
    return out


class Shooter:
    """Waits for the window and grabs the whole screen into ``out``."""

    def __init__(self, app: Any, window: Any, out: Path, suffix: str) -> None:
        self.app, self.window, self.out, self.suffix = app, window, out, suffix
        self.written: list[Path] = []

    def settle(self, ms: int = 1000) -> None:
        from cluestudio.gui.qt import QElapsedTimer

        clock = QElapsedTimer()
        clock.start()
        while clock.elapsed() < ms:
            self.app.processEvents()

    def until(self, condition: Callable[[], Any], what: str, ms: int = 60_000) -> None:
        from cluestudio.gui.qt import QElapsedTimer

        clock = QElapsedTimer()
        clock.start()
        while not condition():
            if clock.elapsed() > ms:
                raise SystemExit(f"take_screenshots: timed out waiting for {what}")
            self.app.processEvents()
        self.settle(300)

    def wait_job(self, job: Any, what: str, ms: int = 180_000) -> None:
        if job is None:
            raise SystemExit(f"take_screenshots: {what} did not start")
        self.until(lambda: job.done, what, ms)
        if job.failure:
            raise SystemExit(f"take_screenshots: {what} failed: {job.failure}")

    def shoot(self, name: str) -> None:
        self.settle(400)
        screen = self.window.screen()
        frame, room = self.window.frameGeometry(), screen.geometry()
        if not room.contains(frame):  # the picture would show it cut off
            print(f"  WARNING {name}: the window is {frame.width()}x{frame.height()} at "
                  f"({frame.x()}, {frame.y()}), past the {room.width()}x{room.height()} "
                  "screen")
        path = self.out / f"{name}-{self.suffix}.png"
        if not screen.grabWindow(0).save(str(path)):  # the whole screen, as a user sees it
            raise SystemExit(f"take_screenshots: could not write {path}")
        self.written.append(path)
        print(f"  {path.name}")


def _screen_is(app: Any, size: tuple[int, int]) -> None:
    """A real X screen of exactly ``size``, before anything is started."""
    if app.platformName() != "xcb":
        raise SystemExit(f"take_screenshots: needs a real X server (xcb), not "
                         f"{app.platformName()!r}: run it under xvfb-run")
    geometry = app.primaryScreen().geometry()
    if (geometry.width(), geometry.height()) != size:
        raise SystemExit(f"take_screenshots: the X screen is {geometry.width()}x"
                         f"{geometry.height()}, not {size[0]}x{size[1]} (start Xvfb with "
                         f"-screen 0 {size[0]}x{size[1]}x24)")


def _place_on_screen(window: Any) -> None:
    """The window covers the whole screen (Xvfb has no window manager to maximise it)."""
    screen = window.screen()
    window.setGeometry(screen.availableGeometry())
    window.show()
    window.activateWindow()
    frame, room = window.frameGeometry(), screen.geometry()
    print(f"  window {frame.width()}x{frame.height()} at ({frame.x()}, {frame.y()}) on a "
          f"{room.width()}x{room.height()} screen")


def shoot_all(size: tuple[int, int], out: Path) -> list[Path]:
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
    from cluestudio.gui.worker import JobRunner
    from support.openai_stub import OpenAIStub

    with contextlib.ExitStack() as cleanup:  # whatever happens: no thread, no temp dir left
        cleanup.callback(shutil.rmtree, tmp, ignore_errors=True)
        app = QApplication(["cluestudio-screenshots"])
        _screen_is(app, size)
        apply_theme(app, "light")
        stub = OpenAIStub(_probe_answers).start()
        cleanup.callback(stub.close)
        ws = open_workspace(tmp / "demo.sqlite")
        run_job(import_path(ws, _make_course(tmp / "course")))
        runner = JobRunner()
        cleanup.callback(runner.shutdown)
        window = MainWindow(runner, updated(Settings(), ui={"theme": "light", "grader": "ana"},
                                            scoring={"embedder": "exact"},
                                            llm={"base_url": stub.url, "model": "stub-vlm"}))
        window.ask_before_discard = False
        cleanup.callback(window.close)
        window.open(ws)
        _place_on_screen(window)
        shots = Shooter(app, window, out, str(size[0]))
        _review_shots(shots, window)
        _grading_shots(shots, window)
        _analysis_shots(shots, window)
    return shots.written


def _review_shots(shots: Shooter, window: Any) -> None:
    from cluestudio.gui.commands import REVIEW

    review = window.review
    window.modes.setCurrentIndex(REVIEW)
    sid = window.bench.session.require().find_submission("library_loans", SHOWN).id
    window.navigator.select(sid, reveal=True)
    shots.until(lambda: review.view is not None and review.view.submission.id == sid
                and review.image_a.image is not None and review.image_b.image is not None,
                "image A and the rendering B")  # the first render starts the JVM
    review.verdict.load("needs_fix", ["class_missing", "hallucination"])
    review.sync.readable_all()  # what a pane opens with
    shots.shoot("review-mode")

    review.set_compare(True)
    shots.settle()
    shots.shoot("review-compare")
    review.set_compare(False)

    # A real mistake for the parser to mark: an unclosed class body before @enduml.
    editor = review.editor
    good = editor.toPlainText()
    shown: list[object] = []
    review.preview_shown.connect(shown.append)
    editor.setPlainText(good.replace("@enduml", "class Fine {\n  - amount : double\n@enduml"))
    shots.until(lambda: bool(shown) and review.b_error.isVisible(), "the syntax error")
    editor.setFocus()
    for line in editor.error_lines()[:1]:  # where the reviewer was typing
        editor.go_to_line(line)
    shots.shoot("review-error")
    shown.clear()
    editor.setPlainText(good)
    shots.until(lambda: bool(shown) and not review.b_error.isVisible(), "the good rendering")

    try:
        import rapidocr  # noqa: F401 - only: is the ocr extra installed?
    except ImportError as missing:
        print(f"  review-check skipped: the ocr extra is not installed ({missing})")
    else:
        shots.wait_job(window.check_current(), "the offline check (Jobs → Check)")
        shots.until(lambda: "triage" in review.check.summary.text(), "the check's report")
        review.tabs.setCurrentWidget(review.check)
        found = {item.text(0).split(" (")[0]: item for item in _tree_items(review.check.tree)}
        if "Fine" in found:  # the dropped class: its box on A stands out
            review.check.tree.setCurrentItem(found["Fine"])
            review.check.tree.itemClicked.emit(found["Fine"], 0)
        shots.shoot("review-check")


def _grading_shots(shots: Shooter, window: Any) -> None:
    from cluestudio.gui.commands import GRADING
    from cluestudio.gui.qt import QAbstractItemView

    # Tools → Probe (F8) on this submission, through the stub endpoint.
    probed: list[object] = []
    window.model_actions.outcome.connect(probed.append)
    shots.wait_job(window.model_actions.probe(), "the VLM probe")
    shots.until(lambda: bool(probed), "the probe's outcome")

    window.modes.setCurrentIndex(GRADING)
    grading = window.grading
    shots.until(lambda: grading.view is not None and grading.reference_image.image is not None
                and grading.image_b.image is not None, "the reference and candidate renders")
    shots.wait_job(window.score_current(), "scoring this submission")
    shots.until(grading.metrics.metrics_visible, "the CLUE panel")
    for key in "4324":  # classes, attributes, methods, relations; the rest still to do
        grading.rubric.handle_key(0, key)
    # What CLUE did not match, as a grader looks for it: matched pairs folded away, the
    # missing and extra elements scrolled into view.
    tree = grading.metrics.tree
    groups = [tree.topLevelItem(i) for i in range(tree.topLevelItemCount())]
    for group in groups:
        group.setExpanded(not group.text(0).startswith("Matched"))
    unmatched = [g for g in groups if not g.text(0).startswith("Matched")]
    if unmatched:
        tree.scrollToItem(unmatched[0], QAbstractItemView.ScrollHint.PositionAtTop)
    grading.reference_tabs.setCurrentWidget(grading.reference_image)
    grading.candidate_tabs.setCurrentWidget(grading.image_b)
    grading.sync.readable_all()  # what a pane opens with
    shots.shoot("grading-mode")

    window.toggle_theme()
    shots.settle()
    shots.shoot("grading-mode-dark")
    window.toggle_theme()
    shots.settle(300)


def _analysis_shots(shots: Shooter, window: Any) -> None:
    shots.wait_job(window.score_listed(), "scoring every submission", 300_000)
    _rate_everything(window)
    analysis = window.analysis
    done: list[object] = []
    analysis.shown.connect(lambda: done.append(True))
    window.show_analysis()  # Ctrl+Shift+A: a mode of the window
    shots.until(lambda: bool(done), "the analysis", 120_000)
    if analysis.metric_queue.topLevelItemCount():
        analysis.metric_queue.setCurrentItem(analysis.metric_queue.topLevelItem(0))
    shots.shoot("analysis")
    analysis.tabs.setCurrentWidget(analysis.agreement_page)
    shots.shoot("analysis-agreement")
    analysis.tabs.setCurrentWidget(analysis.figures_page)
    shots.shoot("analysis-figures")


def _size(text: str) -> tuple[int, int]:
    try:
        width, height = (int(part) for part in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"a size is WIDTHxHEIGHT, not {text!r}") from None
    return width, height


def _each_size_under_xvfb(sizes: list[str], out: Path) -> int:
    """Start this script under xvfb-run once per size (a screen of exactly that size)."""
    if shutil.which("xvfb-run") is None:
        print("take_screenshots: xvfb-run is missing (apt-get install xvfb xdotool "
              "imagemagick libxcb-cursor0)", file=sys.stderr)
        return 2
    env = {**os.environ, "QT_QPA_PLATFORM": "xcb",
           "PYTHONPATH": os.pathsep.join([str(ROOT / "app"), str(ROOT / "plugins"),
                                          os.environ.get("PYTHONPATH", "")])}
    for size in sizes:
        print(f"{size}:")
        command = ["xvfb-run", "-a", "-s", f"-screen 0 {size}x24", sys.executable,
                   str(Path(__file__).resolve()), "--size", size, "--out", str(out)]
        if subprocess.run(command, env=env, check=False).returncode != 0:
            return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=_size, help="the X screen's size, e.g. 1366x768 "
                        f"(default: each of {', '.join(SIZES)}, under its own xvfb-run)")
    parser.add_argument("--out", type=Path, default=HERE, help="where the PNGs go")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.size is None:
        return _each_size_under_xvfb(list(SIZES), args.out)
    written = shoot_all(args.size, args.out)
    print(f"{len(written)} screenshots in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

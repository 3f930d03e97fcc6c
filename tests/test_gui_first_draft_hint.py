"""A new TA imports a course of photos and drawings with no PlantUML yet and opens it: the
review pane showed image A, a blank B and an empty editor, and nothing said what to do.
The empty editor says it: type the PlantUML, draft it offline from image A, or ask a VLM,
with the keys the TA's settings give those actions."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.gui


def _photo_course(root: Path) -> Path:
    """One task whose submission is an image only (nothing converted yet)."""
    from PIL import Image, ImageDraw

    folder = root / "tasks" / "zoo"
    (folder / "submissions").mkdir(parents=True)
    (folder / "requirement.md").write_text("# Zoo\n", encoding="utf-8")
    (folder / "reference.puml").write_text("@startuml\nclass Lantern\n@enduml\n",
                                           encoding="utf-8")
    image = Image.new("RGB", (300, 200), "white")
    ImageDraw.Draw(image).rectangle([40, 40, 200, 120], outline="black", width=3)
    image.save(folder / "submissions" / "s1.png")
    return root


def _open(qtbot, tmp_path: Path, settings):
    from cluestudio.core.jobs import run_job
    from cluestudio.core.workspace import import_path, open_workspace
    from cluestudio.gui.main_window import MainWindow
    from cluestudio.gui.worker import JobRunner

    ws = open_workspace(tmp_path / "zoo.sqlite")
    run_job(import_path(ws, _photo_course(tmp_path / "course")))
    runner = JobRunner()
    window = MainWindow(runner, settings)
    window.ask_before_discard = False
    qtbot.addWidget(window)
    window.open(ws)
    window.resize(1024, 700)
    window.show()
    return window, runner


@pytest.mark.parametrize("keys,draft,convert", [
    ({}, "Shift+F7", "F7"),
    ({"draft_offline": "Ctrl+Alt+D", "convert": "Ctrl+Alt+V"}, "Ctrl+Alt+D", "Ctrl+Alt+V"),
], ids=["default keys", "remapped keys"])
def test_a_new_ta_with_a_course_of_photos_is_told_how_to_get_a_first_plantuml(
        qtbot, tmp_path: Path, keys: dict[str, str], draft: str, convert: str) -> None:
    from cluestudio.core.settings import ScoringSettings, Settings, UISettings

    settings = Settings(ui=UISettings(grader="ta"), scoring=ScoringSettings(embedder="exact"),
                        extra={"keys": keys} if keys else {})
    window, runner = _open(qtbot, tmp_path, settings)
    try:
        editor = window.review.editor
        qtbot.waitUntil(lambda: window.review.view is not None, timeout=10_000)
        assert window.review.view.image_a and not window.review.view.head_puml.strip()
        assert editor.toPlainText() == ""
        hint = editor.placeholderText()
        assert f"draft it offline from image A ({draft})" in hint, hint
        assert f"convert it with a VLM ({convert})" in hint, hint
        assert "type it here" in hint, hint
        # the same words as the menu the keys belong to
        assert window.menu_actions["draft_offline"].shortcut().toString() == draft
    finally:
        window.close()
        runner.shutdown()

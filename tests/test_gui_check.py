"""Issue 18 in the workbench: a reviewer checks a conversion offline, sees boxes on image A
around the text the PlantUML dropped and the names it invented, clicks them to the editor
line, and the flag in the submission list clears once the fixed revision is saved and
checked again. Real OCR in the worker process, real rendering."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from cluestudio.core.jobs import run_job
from cluestudio.core.settings import ScoringSettings, Settings, UISettings

pytest.importorskip("rapidocr", reason="the ocr extra is not installed")
pytestmark = [pytest.mark.gui, pytest.mark.java, pytest.mark.xdist_group("ocr")]

TRUTH = """@startuml
class Order {
  - placedOn : Date
  - total : double
}
class Customer {
  - email : String
}
class Invoice {
  - number : String
}
Customer "1" -- "0..*" Order : places
Order --> Invoice
@enduml
"""
# The conversion dropped Invoice and invented Warehouse.
CONVERTED = TRUTH.replace("class Invoice {\n  - number : String\n}\n", "").replace(
    "Order --> Invoice\n", "class Warehouse\n")


def _course(root: Path) -> Path:
    from cluestudio.core.synth import render_look

    folder = root / "tasks" / "shop"
    (folder / "submissions").mkdir(parents=True)
    (folder / "requirement.md").write_text("# Shop\n", encoding="utf-8")
    (folder / "reference.puml").write_text(TRUTH, encoding="utf-8")
    (folder / "submissions" / "s1.png").write_bytes(render_look(TRUTH, "default",
                                                                random.Random(0)))
    (folder / "submissions" / "s1.puml").write_text(CONVERTED, encoding="utf-8")
    return root


def _items(tree) -> list:
    out = []
    for i in range(tree.topLevelItemCount()):
        group = tree.topLevelItem(i)
        out += [group.child(j) for j in range(group.childCount())]
    return out


def test_a_reviewer_checks_a_conversion_offline_and_fixes_what_it_flags(qtbot,
                                                                        tmp_path) -> None:
    from cluestudio.core.workspace import import_path, open_workspace
    from cluestudio.gui.main_window import MainWindow
    from cluestudio.gui.worker import JobRunner

    path = tmp_path / "shop.sqlite"
    ws = open_workspace(path)
    run_job(import_path(ws, _course(tmp_path / "course")))
    runner = JobRunner()
    window = MainWindow(runner, Settings(ui=UISettings(grader="rev"),
                                         scoring=ScoringSettings(embedder="exact")))
    window.ask_before_discard = False
    qtbot.addWidget(window)
    try:
        window.open(ws)
        window.resize(1366, 768)
        window.show()
        sid = window.navigator.current_id()
        assert "Not checked yet" in window.review.check.summary.text()
        job = window.check_current()  # Jobs → Check this conversion (Ctrl+J)
        assert job is not None
        with qtbot.waitSignal(job.finished, timeout=180_000):
            pass
        assert window.errors.count() == 0, window.errors.item(0).text()
        qtbot.waitUntil(lambda: "triage" in window.review.check.summary.text(), timeout=10_000)
        row = window.navigator.row(sid)
        assert row.flagged is True and "⚑" in window.navigator.model.data(
            window.navigator.model.index(0, 4))

        items = {item.text(0).split(" (")[0]: item for item in _items(window.review.check.tree)}
        assert "Invoice" in items and "Warehouse" in items, list(items)
        assert window.review.image_a.marks()  # boxes on A around what the PlantUML lacks
        window.review.check.tree.itemClicked.emit(items["Warehouse"], 0)
        line = window.review.editor.textCursor().blockNumber() + 1
        assert CONVERTED.splitlines()[line - 1] == "class Warehouse"
        highlighted: list[object] = []
        window.review.check.box_selected.connect(highlighted.append)
        window.review.check.tree.itemClicked.emit(items["Invoice"], 0)
        assert highlighted and window.review.image_a._highlight.isVisible()

        # The reviewer fixes the conversion; the saved revision is checked again by itself.
        window.review.editor.setPlainText(TRUTH)
        assert window.review.save_revision()
        qtbot.waitUntil(lambda: window.navigator.row(sid).flagged is False, timeout=180_000)
        assert not window.review.image_a.marks()
    finally:
        window.close()
        runner.shutdown()

"""A TA without a VLM drafts image A offline from the window (issue 29): the Tools menu's
offline draft (boxes + OCR, no model) stores the draft as a revision, as ``cluestudio
convert --workspace --backend offline --submission ID`` does, and the status bar says how
many of its elements the draft doubts; F7 without an endpoint points to it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from cluestudio.core.jobs import run_job
from cluestudio.core.settings import Settings, updated

pytest.importorskip("rapidocr", reason="the ocr extra is not installed")
pytestmark = [pytest.mark.gui, pytest.mark.xdist_group("ocr")]


def test_a_ta_without_a_vlm_drafts_image_a_offline_and_is_told_its_doubts(
        qtbot, tmp_path: Path) -> None:
    from cluestudio.core.workspace import import_path, open_workspace
    from cluestudio.gui.main_window import MainWindow
    from cluestudio.gui.worker import JobRunner
    from gui_course import make_course

    path = tmp_path / "course.sqlite"
    ws = open_workspace(path)
    run_job(import_path(ws, make_course(tmp_path / "course", ("library_loans",))))
    runner = JobRunner()
    window = MainWindow(runner, updated(Settings(), llm={"model": ""},
                                        scoring={"embedder": "exact"}))
    window.ask_before_discard = False
    qtbot.addWidget(window)
    try:
        window.open(ws)
        window.show()
        # F7 has no model to ask: the message names the way that needs none
        window.menu_actions["convert"].trigger()
        assert "Tools → Draft image A offline" in window.errors.item(0).text()

        sid = window.review.view.submission.id
        window.menu_actions["draft_offline"].trigger()
        handle = window.model_actions._job
        assert handle is not None
        with qtbot.waitSignal(handle.finished, timeout=180_000):
            pass
        assert window.errors.count() == 1, window.errors.item(1).text()
        qtbot.waitUntil(lambda: "offline-draft" in window.statusBar().currentMessage(),
                        timeout=10_000)
        message = window.statusBar().currentMessage()
        # the draft answers once: nothing to count ("after 1 attempt(s)" before)
        assert "valid PlantUML;" in message and "attempt" not in message
        assert "doubtful element" in message or "the draft doubts none" in message
        with sqlite3.connect(path) as conn:
            model, puml = conn.execute(
                "SELECT author, puml FROM conversions WHERE submission_id = ? "
                "ORDER BY id DESC LIMIT 1", (sid,)).fetchone()
        assert model.startswith("offline-draft") and puml.startswith("@startuml")
        # the review pane shows the stored draft
        qtbot.waitUntil(lambda: window.review.editor.toPlainText().strip() == puml.strip(),
                        timeout=10_000)
    finally:
        window.close()
        runner.shutdown()


def test_a_ta_drafting_a_large_photo_offline_is_told_it_takes_a_while(tmp_path: Path) -> None:
    """The window's draft job says so on each of its progress lines, the first before the
    long OCR read (only that first step runs here: no OCR)."""
    from PIL import Image

    from cluestudio.app import model_jobs
    from cluestudio.core.jobs import CancelToken
    from cluestudio.core.workspace import import_path, open_workspace

    subs = tmp_path / "course" / "tasks" / "zoo" / "submissions"
    subs.mkdir(parents=True)
    (subs.parent / "requirement.md").write_text("# Zoo\n", encoding="utf-8")
    (subs.parent / "reference.puml").write_text("@startuml\nclass A\n@enduml\n",
                                                encoding="utf-8")
    Image.new("L", (5000, 4000), 255).save(subs / "photo.png")
    ws = open_workspace(tmp_path / "zoo.sqlite")
    try:
        run_job(import_path(ws, tmp_path / "course"))
        sid = ws.list_submissions()[0].id
        request = model_jobs.plan_request(ws, "convert", sid, "offline-draft-1")
    finally:
        ws.close()
    job = model_jobs.ask_job(request, Settings(), True, cancel=CancelToken(),
                             emit=lambda *_: None)
    first = next(job).message  # before the OCR read starts
    assert first.endswith(" — a large image (20 MP): this takes a while"), first
    job.close()

"""Issue 29: a TA drafts a blank scan offline from the window (Tools → Draft image A
offline): the status bar said "offline-draft-1: still invalid: found no class box in image
A after 3 attempt(s)", after running the same draft three times. It says plainly what the
draft found, once."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from PIL import Image

from cluestudio.core.jobs import run_job
from cluestudio.core.settings import Settings, updated

pytest.importorskip("rapidocr", reason="the ocr extra is not installed")
pytestmark = [pytest.mark.gui, pytest.mark.xdist_group("ocr")]


def test_a_ta_drafting_a_blank_scan_offline_is_told_no_class_box_was_found(
        qtbot, tmp_path: Path) -> None:
    from cluestudio.core.workspace import import_path, open_workspace
    from cluestudio.gui.main_window import MainWindow
    from cluestudio.gui.worker import JobRunner
    from gui_course import make_course

    course = make_course(tmp_path / "course", ("library_loans",))
    for png in course.glob("tasks/*/submissions/*.png"):
        Image.new("RGB", (400, 300), "white").save(png)  # a blank scan
    path = tmp_path / "course.sqlite"
    ws = open_workspace(path)
    run_job(import_path(ws, course))
    runner = JobRunner()
    window = MainWindow(runner, updated(Settings(), llm={"model": ""},
                                        scoring={"embedder": "exact"}))
    window.ask_before_discard = False
    qtbot.addWidget(window)
    try:
        window.open(ws)
        window.show()
        sid = window.review.view.submission.id
        window.menu_actions["draft_offline"].trigger()
        handle = window.model_actions._job
        assert handle is not None
        source = window.review.view.submission.source_id
        # the job line names the submission as the list does, not by its database id
        assert handle.label == f"offline draft of library_loans/{source}"
        with qtbot.waitSignal(handle.finished, timeout=180_000):
            pass
        qtbot.waitUntil(lambda: "class box" in window.statusBar().currentMessage(),
                        timeout=10_000)
        message = window.statusBar().currentMessage()
        assert message == "The offline draft found no class box in image A"
        with sqlite3.connect(path) as conn:  # one draft stored, not three
            drafts = conn.execute("SELECT COUNT(*) FROM conversions WHERE submission_id = ? "
                                  "AND author LIKE 'offline-draft%'", (sid,)).fetchone()[0]
        assert drafts == 1
    finally:
        window.close()
        runner.shutdown()

"""A TA without a VLM drafts image A offline from the window (issue 29): the Tools menu's
offline draft (boxes + OCR, no model) stores the draft as a revision, as ``cluestudio
convert --workspace --backend offline --submission ID`` does, and the status bar says how
many of its elements the draft doubts; F7 without an endpoint points to it."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from cluestudio.core.jobs import run_job
from cluestudio.core.settings import Settings, updated

if TYPE_CHECKING:
    from cluestudio.gui.main_window import MainWindow

pytest.importorskip("rapidocr", reason="the ocr extra is not installed")
pytestmark = [pytest.mark.gui, pytest.mark.xdist_group("ocr")]


@contextmanager
def _offline_window(qtbot, path: Path,  # type: ignore[no-untyped-def]
                    course: Path) -> Iterator[MainWindow]:
    """The TA's window on a workspace imported from ``course``, with no VLM set."""
    from cluestudio.core.workspace import import_path, open_workspace
    from cluestudio.gui.main_window import MainWindow
    from cluestudio.gui.worker import JobRunner

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
        yield window
    finally:
        window.close()
        runner.shutdown()


def test_a_ta_without_a_vlm_drafts_image_a_offline_and_is_told_its_doubts(
        qtbot, tmp_path: Path) -> None:
    from gui_course import make_course

    path = tmp_path / "course.sqlite"
    course = make_course(tmp_path / "course", ("library_loans",))
    with _offline_window(qtbot, path, course) as window:
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


def test_a_ta_drafting_a_blank_scan_offline_is_told_no_class_box_was_found(
        qtbot, tmp_path: Path) -> None:
    """Issue 29: a TA drafts a blank scan offline from the window (Tools → Draft image A
offline): the status bar said "offline-draft-1: still invalid: found no class box in image
A after 3 attempt(s)", after running the same draft three times. It says plainly what the
draft found, once."""
    from PIL import Image

    from gui_course import make_course

    course = make_course(tmp_path / "course", ("library_loans",))
    for png in course.glob("tasks/*/submissions/*.png"):
        Image.new("RGB", (400, 300), "white").save(png)  # a blank scan
    path = tmp_path / "course.sqlite"
    with _offline_window(qtbot, path, course) as window:
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


def test_a_ta_watching_an_offline_draft_reads_the_submission_by_its_name_not_its_db_id(
        qtbot, tmp_path: Path) -> None:
    """A TA drafting the second submission offline read "#2 library_loans/s02: reading the
    image (OCR)" on the job line, cut at 1024 px to "… — #2 libr…": a database number the
    list shows nowhere. Each progress line names it as the list does ("library_loans ·
    s02")."""
    import re

    from gui_course import make_course

    course = make_course(tmp_path / "course", ("library_loans",))
    with _offline_window(qtbot, tmp_path / "course.sqlite", course) as window:
        window.resize(1024, 700)
        window.navigator.select(window.bench.session.require().list_submissions()[1].id)
        qtbot.waitUntil(lambda: window.review.view is not None
                        and window.review.view.submission.source_id != "s01", timeout=10_000)
        submission = window.review.view.submission
        window.menu_actions["draft_offline"].trigger()
        handle = window.model_actions._job
        assert handle is not None
        lines: list[str] = []
        handle.progress.connect(lambda *_: lines.append(window.job_status.text()))
        with qtbot.waitSignal(handle.finished, timeout=180_000):
            pass
        assert lines, "the job line showed no progress"
        name = f"{submission.task_id} · {submission.source_id}"
        assert any(name in line for line in lines), lines
        assert not [line for line in lines if re.search(r"#\d", line)], lines

"""The File menu end to end: new/open workspaces, import, merge packs, export; and the window
layout coming back after a restart. Paths are passed in place of the file dialogs."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from cluestudio.core.jobs import run_job
from cluestudio.core.settings import Settings

pytestmark = pytest.mark.gui


def _errors(window) -> str:
    return "\n".join(window.errors.item(i).text() for i in range(window.errors.count()))


def _wait_idle(qtbot, window) -> None:
    """Until every file job started so far (imports, merges, exports) has finished."""
    qtbot.waitUntil(lambda: not window.job_status.busy(), timeout=60_000)


def test_new_workspace_then_import_folder_lists_its_submissions(qtbot, window,
                                                                 tmp_path: Path) -> None:
    from gui_course import make_course

    window.files.new_workspace(tmp_path / "course")  # no suffix: .sqlite is added
    assert window.bench.ws is not None
    assert window.bench.ws.path == tmp_path / "course.sqlite"
    assert window.navigator.ids() == []
    window.files.import_course_folder(make_course(tmp_path / "folder"))
    qtbot.waitUntil(lambda: len(window.navigator.ids()) == 6, timeout=30_000)
    with sqlite3.connect(tmp_path / "course.sqlite") as conn:
        assert conn.execute("SELECT count(*) FROM submissions").fetchone()[0] == 6


def test_broken_jsonl_import_names_the_line_and_writes_nothing(qtbot, window,
                                                              tmp_path: Path) -> None:
    window.files.new_workspace(tmp_path / "course.sqlite")
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"task_id": "t1", "reference": "@startuml\nclass A\n@enduml"})
                   + "\n{not json\n", encoding="utf-8")
    window.files.import_jsonl(bad)
    qtbot.waitUntil(lambda: window.errors.count() > 0, timeout=30_000)
    assert "bad.jsonl" in _errors(window) and ":2" in _errors(window)
    assert window.bench.ws is not None and window.bench.ws.tasks() == []


def test_opening_a_file_that_is_not_a_workspace_keeps_the_current_one(qtbot, window,
                                                                     tmp_path: Path) -> None:
    window.files.new_workspace(tmp_path / "course.sqlite")
    current = window.bench.ws
    junk = tmp_path / "notes.sqlite"
    junk.write_text("shopping list", encoding="utf-8")
    window.files.open_workspace(junk)
    assert window.bench.ws is current and "notes.sqlite" in _errors(window)
    window.files.open_workspace(tmp_path / "missing.sqlite")
    assert window.bench.ws is current and "missing.sqlite" in _errors(window)


def test_export_tables_and_pack_then_merge_into_another_workspace(qtbot, window,
                                                                   tmp_path: Path) -> None:
    from cluestudio.core.workspace import SaveRating, import_path, open_workspace
    from gui_course import make_course

    source = open_workspace(tmp_path / "a.sqlite")
    run_job(import_path(source, make_course(tmp_path / "folder")))
    sid = source.list_submissions()[0].id
    source.execute(SaveRating(sid, "ann", {"classes": 4, "attributes": 3, "methods": 2,
                                           "relations": 4, "multiplicities": 1,
                                           "overall": 3.5}))
    source.close()
    window.files.open_workspace(tmp_path / "a.sqlite")
    window.files.export_tables(tmp_path / "tables")
    window.files.export_pack(tmp_path / "ann.zip")
    _wait_idle(qtbot, window)
    assert window.errors.count() == 0, _errors(window)
    ratings = json.loads((tmp_path / "tables" / "ratings.json").read_text(encoding="utf-8"))
    assert {r["grader"] for r in ratings} == {"ann"}
    assert (tmp_path / "tables" / "ratings.csv").exists()

    window.files.new_workspace(tmp_path / "b.sqlite")
    window.files.merge_packs([tmp_path / "ann.zip"])
    qtbot.waitUntil(lambda: len(window.navigator.ids()) == 6, timeout=30_000)
    assert [r.grader for r in window.bench.ws.ratings()] == ["ann"]


def test_docks_and_splitters_come_back_after_a_restart(qtbot, tmp_path: Path) -> None:
    from cluestudio.gui.main_window import MainWindow
    from cluestudio.gui.qt import QSplitter
    from cluestudio.gui.worker import JobRunner

    runner = JobRunner()
    try:
        first = MainWindow(runner, Settings())
        qtbot.addWidget(first)
        first.show()
        qtbot.waitExposed(first)
        first.error_dock.show()  # shown, but empty: not worth reopening
        first.navigator_dock.hide()
        splitter = first.findChildren(QSplitter)[0]
        total = sum(splitter.sizes())
        splitter.setSizes([total // 4, total - total // 4] + [0] * (splitter.count() - 2))
        wanted = splitter.sizes()
        first.close()

        second = MainWindow(runner, Settings())
        qtbot.addWidget(second)
        second.show()
        qtbot.waitExposed(second)
        try:
            assert not second.navigator_dock.isVisible()
            assert not second.error_dock.isVisible()
            assert second.findChildren(QSplitter)[0].sizes() == wanted
        finally:
            second.close()
    finally:
        runner.shutdown()

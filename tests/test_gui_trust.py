"""A TA opens a workspace a colleague sent, and it carries a planted trigger (issue 25): the
window refuses it in its error list, naming the file, the trigger and the way to keep its
data, and the workspace the TA had open stays open."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

pytestmark = pytest.mark.gui


def test_a_ta_opening_a_colleagues_planted_workspace_sees_it_refused_and_keeps_theirs(
        qtbot, window, tmp_path: Path) -> None:
    from cluestudio.core.workspace import open_workspace

    shared = tmp_path / "from_bob.sqlite"
    open_workspace(shared).close()
    with sqlite3.connect(shared) as conn:
        conn.execute("CREATE TRIGGER fix AFTER INSERT ON ratings BEGIN "
                     "UPDATE ratings SET total = 0 WHERE id = new.id; END")
    window.files.new_workspace(tmp_path / "mine.sqlite")
    mine = window.bench.ws
    window.files.open_workspace(shared)
    assert window.bench.ws is mine
    errors = [window.errors.item(i).text() for i in range(window.errors.count())]
    assert any(str(shared) in e and "trigger 'fix'" in e and "clean-copy" in e
               for e in errors), errors


def test_a_ta_merging_a_colleagues_pack_is_told_whose_ratings_it_added(
        qtbot, window, tmp_path: Path) -> None:
    from cluestudio.core.jobs import run_job
    from cluestudio.core.workspace import SaveRating, import_path, open_workspace
    from cluestudio.core.workspace.pack import export_pack
    from gui_course import make_course

    with open_workspace(tmp_path / "bob.sqlite") as bob:
        run_job(import_path(bob, make_course(tmp_path / "folder")))
        sid = bob.list_submissions()[0].id
        bob.execute(SaveRating(sid, "bob", {"classes": 4, "attributes": 3, "methods": 2,
                                            "relations": 4, "multiplicities": 1,
                                            "overall": 3.5}))
        export_pack(bob, tmp_path / "bob.zip", grader="bob")
    window.files.new_workspace(tmp_path / "mine.sqlite")
    window.files.merge_packs([tmp_path / "bob.zip"])
    qtbot.waitUntil(lambda: "ratings added by bob 1" in window.statusBar().currentMessage(),
                    timeout=30_000)

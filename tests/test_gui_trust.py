"""A TA opens a workspace a colleague sent, and it carries a planted trigger (issue 25): the
window refuses it in its error list, naming the file, the trigger and the way to keep its
data, and the workspace the TA had open stays open."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from cluestudio.core.settings import Settings

pytestmark = pytest.mark.gui


@pytest.fixture
def window(qtbot):
    from cluestudio.gui.main_window import MainWindow
    from cluestudio.gui.worker import JobRunner

    runner = JobRunner()
    main = MainWindow(runner, Settings())
    main.ask_before_discard = False
    qtbot.addWidget(main)
    try:
        yield main
    finally:
        main.close()
        runner.shutdown()


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

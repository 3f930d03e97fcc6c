"""A TA on a 1024-pixel laptop checks a conversion and reads which names the check found:
the findings pane is narrow there, and "Kind" and "Where" (type keyword, in Invoice) took
all of it, so the list showed kinds with no names beside them. The name keeps room for a
word; Kind and Where give way, whole in their tooltips."""

from __future__ import annotations

from pathlib import Path

import pytest

from cluestudio.core.jobs import run_job
from test_gui_check import CONVERTED, _course, _items

pytest.importorskip("rapidocr", reason="the ocr extra is not installed")
pytestmark = [pytest.mark.gui, pytest.mark.java, pytest.mark.xdist_group("ocr")]


def _name_shown(tree, item) -> str:
    """The part of ``item``'s name the tree draws in its Finding column."""
    from cluestudio.gui.qt import Qt

    depth = 1 if item.parent() is not None else 0
    indent = tree.indentation() * (depth + (1 if tree.rootIsDecorated() else 0))
    room = tree.columnWidth(0) - indent - 8  # the cell's margins
    return tree.fontMetrics().elidedText(item.text(0), Qt.TextElideMode.ElideRight, room)


@pytest.mark.parametrize("size", [(1024, 700), (1366, 768)])
def test_a_ta_on_a_small_laptop_reads_the_names_the_check_found(session, tmp_path: Path,
                                                                size) -> None:
    from cluestudio.core.workspace import import_path, open_workspace

    path = tmp_path / "shop.sqlite"
    with open_workspace(path) as ws:
        run_job(import_path(ws, _course(tmp_path / "course")))
    window = session.open(path)
    window.resize(*size)
    job = window.check_current()
    assert job is not None
    with session.qtbot.waitSignal(job.finished, timeout=180_000):
        pass
    session.qtbot.waitUntil(lambda: "triage" in window.review.check.summary.text(),
                            timeout=10_000)
    tree = window.review.check.tree
    items = _items(tree)
    kinds = {item.text(1) for item in items}
    assert "Invoice" in {item.text(0) for item in items}, [i.text(0) for i in items]
    assert len(kinds) > 1 and any(item.text(2) for item in items), kinds
    session.qtbot.wait(50)
    for item in items:
        shown = _name_shown(tree, item)
        # a word of the name, at least: "Inv…", not "…" or nothing
        assert len(shown.rstrip("…")) >= min(len(item.text(0)), 4), (
            item.text(0), shown, tree.columnWidth(0), tree.viewport().width())
        for column in (1, 2):
            assert tree.columnWidth(column) > 0
            if item.text(column):
                assert item.toolTip(column) == item.text(column)
    assert sum(tree.columnWidth(c) for c in range(3)) <= tree.viewport().width() + 1
    assert "class Warehouse" in CONVERTED  # the invented name is listed too
    assert "Warehouse" in {item.text(0).split(" (")[0] for item in items}

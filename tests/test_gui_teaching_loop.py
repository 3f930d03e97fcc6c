"""Issue 27 in the window: a TA comments from the keyboard (typed, from the bank, the overall
comment; undo), a lead settles a disagreement in the adjudication queue, and the gradebook
and feedback are exported from the File menu."""

from __future__ import annotations

from pathlib import Path

import pytest

from cluestudio.gui.qt import QApplication, QTimer
from test_gui_stories import _course_workspace, _ctrl, _keys, _rate_by_keys


def _in_dialog(qtbot, act) -> list[str]:
    """Run ``act(dialog)`` on the modal dialog the next key opens; errors are returned."""
    failures: list[str] = []

    def run() -> None:
        dialog = QApplication.activeModalWidget()
        try:
            assert dialog is not None, "no dialog opened"
            act(dialog)
        except AssertionError as error:  # pragma: no cover - reported by the test
            failures.append(str(error))
        finally:
            if dialog is not None:
                dialog.reject()

    QTimer.singleShot(0, run)
    return failures


@pytest.mark.gui
def test_story27_a_ta_comments_by_keyboard_and_inserts_from_the_bank(session, qtbot,
                                                                      tmp_path: Path) -> None:
    from cluestudio.core.workspace.feedback import SaveBankComment, item_comments

    K = _keys()
    window = session.open(_course_workspace(tmp_path))
    session.press(K.Key_F3)
    _rate_by_keys(session)
    ws = window.bench.session.require()
    sid = window.grading.view.submission.id
    ws.execute(SaveBankComment("class-diagram", "classes", "A class is missing", -2))

    def comment(dialog) -> None:
        dialog.text.setFocus()
        qtbot.keyClicks(dialog.text, "Good class names")
        qtbot.keyClick(dialog.text, K.Key_Return)
        dialog.bank.setFocus()
        qtbot.keyClick(dialog.bank, "1")  # the first bank comment of "Classes"
        assert dialog.comments.count() == 2
        dialog.overall.setFocus()
        qtbot.keyClicks(dialog.overall, "Tidy work")
        qtbot.keyClick(dialog.overall, K.Key_Return, _ctrl())

    failures = _in_dialog(qtbot, comment)
    session.press(K.Key_M, modifier=_ctrl())
    assert not failures
    texts = sorted(c.text for c in item_comments(ws, sid, "ta"))
    assert texts == ["A class is missing", "Good class names"]
    assert ws.rating(sid, "ta", "class-diagram").comment == "Tidy work"
    window.undo()  # the overall comment goes back, the item comments stay
    assert ws.rating(sid, "ta", "class-diagram").comment == ""
    assert len(item_comments(ws, sid, "ta")) == 2


@pytest.mark.gui
def test_story27_blind_grading_keeps_the_students_name_off_the_screen(
        session, qtbot, tmp_path: Path) -> None:
    from cluestudio.core.roster import read_roster
    from cluestudio.core.workspace import Report
    from cluestudio.core.workspace.students import replace_roster

    K = _keys()
    window = session.open(_course_workspace(tmp_path))
    session.press(K.Key_F3)
    ws = window.bench.session.require()
    source = window.grading.view.submission.source_id
    roster = tmp_path / "roster.csv"
    roster.write_text(f"student_id,name,email\n{source},Ada Lovelace,ada@uni.example\n",
                      encoding="utf-8")
    replace_roster(ws, read_roster(roster, Report()))
    titles: list[str] = []
    for blind in (False, True):
        if window.blind_action.isChecked() != blind:
            window.blind_action.trigger()
        failures = _in_dialog(qtbot, lambda dialog: titles.append(dialog.windowTitle()))
        window.commands.comments()
        assert not failures
    assert "Ada Lovelace" in titles[0] and "Ada Lovelace" not in titles[1]


@pytest.mark.gui
def test_story27_a_lead_takes_one_rating_in_the_adjudication_queue_and_exports(
        session, qtbot, tmp_path: Path) -> None:
    import csv

    from cluestudio.core.workspace import SaveRating
    from cluestudio.core.workspace.adjudication import adjudication_queue
    from cluestudio.core.workspace.finals import final_grades

    K = _keys()
    window = session.open(_course_workspace(tmp_path))
    ws = window.bench.session.require()
    sub = ws.list_submissions()[0]
    full = {"classes": 4, "attributes": 4, "methods": 4, "relations": 4, "multiplicities": 2,
            "overall": 4}
    ws.execute(SaveRating(sub.id, "ann", full))
    ws.execute(SaveRating(sub.id, "bob", {**full, "classes": 0, "relations": 0}))
    assert len(adjudication_queue(ws)) == 1

    def take_first(dialog) -> None:
        assert dialog.queue.count() == 1 and "ann" in dialog.detail.toPlainText()
        dialog.ratings.setFocus()
        dialog.ratings.setCurrentRow(0)
        qtbot.keyClick(dialog.ratings, K.Key_Return)
        assert dialog.queue.count() == 0

    failures = _in_dialog(qtbot, take_first)
    window.commands.adjudication()
    assert not failures
    assert final_grades(ws)[sub.id].final.value == 100.0

    bad = tmp_path / "bad.csv"
    bad.write_text("student_id,name,email\nx,X,not-mail\n", encoding="utf-8")
    assert not window.commands.handback.import_roster(bad)
    shown = [window.errors.item(i).text() for i in range(window.errors.count())]
    assert any(f"{bad}:2" in line for line in shown)
    roster = tmp_path / "roster.csv"
    roster.write_text(f"student_id,name,email\n{sub.source_id},Ada Lovelace,ada@uni.example\n",
                      encoding="utf-8")
    assert window.commands.handback.import_roster(roster)
    out = tmp_path / "grades.csv"
    handle = window.commands.handback.export_gradebook(out, "canvas")
    with qtbot.waitSignal(handle.finished, timeout=20000):
        pass
    with open(out, newline="", encoding="utf-8") as stream:
        rows = list(csv.reader(stream))
    assert rows[2][:3] == ["Lovelace, Ada", "", sub.source_id] and "100.00" in rows[2]
    handle = window.commands.handback.export_feedback(tmp_path / "feedback")
    with qtbot.waitSignal(handle.finished, timeout=60000):
        pass
    assert (tmp_path / "feedback" / f"{sub.source_id}.html").exists()


@pytest.mark.gui
def test_ta_on_a_small_screen_sees_the_whole_comments_dialog_and_long_bank_comments(
        session, qtbot, tmp_path: Path, monkeypatch) -> None:
    # 1024×700 (the README's smallest): the dialog opened 720 px tall, its status line below
    # the screen's edge, and a bank comment longer than the list was cut behind a scroll bar.
    from PySide6.QtGui import QScreen

    from cluestudio.core.workspace.feedback import SaveBankComment
    from cluestudio.gui.qt import QRect

    monkeypatch.setattr(QScreen, "availableGeometry", lambda _screen: QRect(0, 0, 1024, 700))
    K = _keys()
    window = session.open(_course_workspace(tmp_path))
    session.press(K.Key_F3)
    long = ("A class the requirement names is missing from your diagram: read the nouns of "
            "the requirement again and model each as a class")
    window.bench.session.require().execute(SaveBankComment("class-diagram", "classes", long, -2))
    seen: dict[str, object] = {}

    def look(dialog) -> None:
        # with a window manager's 30 px title bar (offscreen draws none) it still fits
        seen["fits"] = (dialog.frameGeometry().height() + 30 <= 700
                        and dialog.frameGeometry().width() <= 1024)
        entry = dialog.bank.item(0)
        seen["bank"] = (entry.text(), entry.toolTip(),
                        dialog.bank.visualItemRect(entry).width() <= dialog.bank.viewport().width(),
                        dialog.bank.horizontalScrollBar().isVisible())

    failures = _in_dialog(qtbot, look)
    session.press(K.Key_M, modifier=_ctrl())
    assert not failures
    assert seen["fits"] is True
    text, tip, inside, scrolls = seen["bank"]  # type: ignore[misc]
    assert long in text and long in tip and inside and not scrolls

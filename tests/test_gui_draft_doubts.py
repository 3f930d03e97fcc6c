"""Issue 29, item 4: a reviewer fixes the offline draft where it says it is unsure, instead of
trusting it. The draft of an image drawn here (boxes in marker strokes, the OCR reading given
by hand with two names read at low confidence, so no OCR engine runs) is the submission's
conversion; review mode marks its doubtful elements, F9 walks through them, and a mark goes
once the reviewer has fixed the element and deleted its ``' ?`` line — after a restart too,
since the doubts are read from the stored text."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw

from cluestudio.app.draft_doubts import doubts_in, next_doubt
from cluestudio.core.jobs import run_job
from cluestudio.core.settings import ScoringSettings, Settings, UISettings

WIDTH, HEIGHT = 900, 400
INK = (40, 40, 45)
BOXES = [(40, 80, 280, 300), (330, 80, 570, 300), (620, 80, 860, 300)]
# what OCR would read: "Autor", "Buch" and Buch's "title" with low confidence
TEXTS = [("Library", (90, 95, 230, 140), 0.99), ("name: str", (60, 170, 250, 210), 0.97),
         ("Autor", (390, 95, 520, 140), 0.58), ("email: str", (350, 170, 540, 210), 0.97),
         ("Buch", (690, 95, 800, 140), 0.61), ("title: str", (640, 170, 830, 210), 0.52)]


def _drawn_image_and_its_draft() -> tuple[bytes, str]:
    import io

    from cluestudio.core.draft import draft_from_ocr
    from cluestudio.core.ocr import Box, OcrResult, TextLine
    from cluestudio.core.ocr.layout import find_layout

    image = Image.new("RGB", (WIDTH, HEIGHT), (235, 237, 233))
    draw = ImageDraw.Draw(image)
    for x0, y0, x1, y1 in BOXES:
        draw.rectangle((x0, y0, x1, y1), outline=INK, width=6)
        draw.line((x0 + 8, 150, x1 - 8, 150), fill=INK, width=5)
    for _text, (x0, y0, x1, y1), _conf in TEXTS:
        draw.rectangle((x0 + 4, y0 + 10, x1 - 4, y1 - 10), fill=INK)  # marker letters
    pixels = np.asarray(image)
    lines = tuple(TextLine(text, Box.from_rect(*rect), conf) for text, rect, conf in TEXTS)
    ocr = OcrResult("0" * 64, "hand", WIDTH, HEIGHT, lines,
                    layout=find_layout(pixels, text=[line.box for line in lines]))
    draft = draft_from_ocr(pixels, ocr)
    assert {d.element for d in draft.doubts} == {"Autor", "Buch", "Buch.title : str"}
    png = io.BytesIO()
    image.save(png, format="PNG")
    return png.getvalue(), draft.puml


def _course(root: Path) -> Path:
    image, draft = _drawn_image_and_its_draft()
    folder = root / "tasks" / "library"
    (folder / "submissions").mkdir(parents=True)
    (folder / "requirement.md").write_text("# Library\n", encoding="utf-8")
    (folder / "reference.puml").write_text(
        "@startuml\nclass Library\nclass Author\nclass Book\n@enduml\n", encoding="utf-8")
    (folder / "submissions" / "s1.png").write_bytes(image)
    (folder / "submissions" / "s1.puml").write_text(draft, encoding="utf-8")
    return root


def test_doubt_comments_are_read_from_the_text_and_the_jump_wraps_round() -> None:
    text = ("@startuml\n' ? 0.58 name read at 0.58\nclass A\n' ? 0.40\n\nA --> B\n"
            "' plain comment\n' ? 0.30 nothing below\n@enduml\n")
    doubts = doubts_in(text)
    assert [(d.comment_line, d.line, d.confidence) for d in doubts] == [(2, 3, 0.58),
                                                                        (4, 6, 0.40)]
    assert doubts[1].reason == "read with doubt"
    assert next_doubt(doubts, 3) == doubts[1]
    assert next_doubt(doubts, 6) == doubts[0]  # past the last one: back to the first
    assert next_doubt([], 1) is None


@pytest.mark.gui
def test_a_reviewer_fixes_the_drafts_doubtful_elements_instead_of_trusting_it(
        qtbot, tmp_path) -> None:
    from cluestudio.core.workspace import import_path, open_workspace
    from cluestudio.gui.main_window import MainWindow
    from cluestudio.gui.qt import (
        QApplication,
        QEvent,
        QPoint,
        Qt,
        QTextCursor,
        QtGui,
        QtWidgets,
    )
    from cluestudio.gui.worker import JobRunner

    path = tmp_path / "library.sqlite"
    ws = open_workspace(path)
    run_job(import_path(ws, _course(tmp_path / "course")))
    ws.close()
    runner = JobRunner()
    settings = Settings(ui=UISettings(grader="rev"), scoring=ScoringSettings(embedder="exact"))

    def open_window(settings: Settings = settings) -> MainWindow:
        window = MainWindow(runner, settings)
        window.ask_before_discard = False
        qtbot.addWidget(window)
        window.open(open_workspace(path, create=False))
        window.resize(1366, 768)
        window.show()
        window.activateWindow()
        qtbot.waitExposed(window)
        qtbot.waitUntil(window.isActiveWindow, timeout=5000)
        return window

    try:
        window = open_window()
        qtbot.keyClick(QApplication.focusWidget() or window, Qt.Key.Key_F2)  # review mode
        review, editor = window.review, window.review.editor
        lines = editor.toPlainText().splitlines()
        # the two names and the member read with doubt are marked, each with its reason;
        # Library and the members read surely are not
        assert [lines[n - 1] for n in editor.doubt_lines()] == [
            "class Autor {", "class Buch {", "  title : str"]
        assert review.doubts.note.isVisibleTo(window)
        assert review.doubts.note.text().startswith("3 doubtful elements in the draft")
        assert "F9" in review.doubts.note.text()
        autor = editor.doubt_lines()[0]
        block = editor.document().findBlockByNumber(autor - 1)
        middle = editor.blockBoundingGeometry(block).translated(editor.contentOffset()).center()
        assert editor.doubt_at(round(middle.y())) == (
            "The draft is not sure of this (0.58): name read at 0.58")
        # hovering the gutter's ? shows that reason as a tooltip
        gutter = editor._gutter
        point = QPoint(4, round(middle.y()))
        QApplication.sendEvent(gutter, QtGui.QHelpEvent(QEvent.Type.ToolTip, point,
                                                  gutter.mapToGlobal(point)))
        qtbot.waitUntil(lambda: "name read at 0.58" in QtWidgets.QToolTip.text(), timeout=3000)

        # F9 jumps from the top to each doubtful element in turn, then round again
        editor.setFocus()
        editor.moveCursor(QTextCursor.MoveOperation.Start)
        visited = []
        for _ in range(4):
            qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_F9)
            visited.append(editor.textCursor().blockNumber() + 1)
        assert visited == [autor, *editor.doubt_lines()[1:], autor]
        # the member's mark says why, like a name's
        title = editor.doubt_lines()[2]
        block = editor.document().findBlockByNumber(title - 1)
        middle = editor.blockBoundingGeometry(block).translated(editor.contentOffset()).center()
        assert editor.doubt_at(round(middle.y())) == (
            "The draft is not sure of this (0.52): read at 0.52")
        editor.moveCursor(QTextCursor.MoveOperation.Start)
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_F9)

        # the reviewer reads A, fixes the name and deletes the ' ? line above it
        cursor = editor.textCursor()
        cursor.select(QTextCursor.SelectionType.LineUnderCursor)
        cursor.insertText("class Author {")
        cursor.movePosition(QTextCursor.MoveOperation.Up)
        cursor.select(QTextCursor.SelectionType.LineUnderCursor)
        assert cursor.selectedText().startswith("' ?")
        cursor.removeSelectedText()
        cursor.deleteChar()  # the line's end
        lines = editor.toPlainText().splitlines()
        assert [lines[n - 1] for n in editor.doubt_lines()] == ["class Buch {", "  title : str"]
        assert review.doubts.note.text().startswith("2 doubtful elements in the draft")
        editor.setFocus()
        qtbot.keyClick(editor, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
        qtbot.waitUntil(lambda: not review.has_unsaved_text(), timeout=5000)
        window.close()

        # after a restart the saved revision still shows the doubts left, and the note
        # names the key the settings file gave the jump; fixing them clears marks and note
        window = open_window(Settings(ui=UISettings(grader="rev"),
                                      scoring=ScoringSettings(embedder="exact"),
                                      extra={"keys": {"next_doubt": "Shift+F9"}}))
        qtbot.keyClick(QApplication.focusWidget() or window, Qt.Key.Key_F2)
        review, editor = window.review, window.review.editor
        assert "class Author {" in editor.toPlainText()
        lines = editor.toPlainText().splitlines()
        assert [lines[n - 1] for n in editor.doubt_lines()] == ["class Buch {", "  title : str"]
        assert review.doubts.note.text() == (
            "2 doubtful elements in the draft — Shift+F9 jumps to the next")
        buch, title = editor.doubt_lines()
        text = "\n".join(line for n, line in enumerate(lines, 1) if n != buch - 1)
        editor.setPlainText(text.replace("class Buch {", "class Book {") + "\n")
        lines = editor.toPlainText().splitlines()
        assert [lines[n - 1] for n in editor.doubt_lines()] == ["  title : str"]
        assert review.doubts.note.text().startswith("1 doubtful element in the draft")
        # the member read right: the reviewer keeps it and deletes only its ' ? line
        title = editor.doubt_lines()[0]
        assert lines[title - 2].strip().startswith("' ?")
        text = "\n".join(line for n, line in enumerate(lines, 1) if n != title - 1)
        editor.setPlainText(text + "\n")
        assert editor.doubt_lines() == []
        assert not review.doubts.note.isVisibleTo(window)
        window.close()
    finally:
        runner.shutdown()

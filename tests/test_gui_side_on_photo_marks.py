"""A TA checks a whiteboard photo taken from the side (issue 29) and sees the box marks on
the drawn words: OCR and the layout read the photo squared, the window shows it as taken,
and the boxes the check draws around what the conversion dropped are mapped back into the
photo's own pixels, not left where the words are in the squared copy. Real OCR in the
window's worker process."""

from __future__ import annotations

from pathlib import Path

import pytest

from cluestudio.core.jobs import run_job
from side_on_board import WITHOUT_INVOICE, class_box_in_photo, side_on_photo

pytest.importorskip("rapidocr", reason="the ocr extra is not installed")
pytestmark = [pytest.mark.gui, pytest.mark.xdist_group("ocr")]

REFERENCE = ("@startuml\nclass Order {\n  id : int\n  total : float\n}\n"
             "class Customer {\n  id : int\n  total : float\n}\n"
             "class Invoice {\n  id : int\n  total : float\n}\n"
             "Order -- Customer\nOrder -- Invoice\n@enduml\n")


def test_a_ta_checking_a_whiteboard_photo_taken_from_the_side_sees_the_box_marks_on_the_words(
        session, tmp_path: Path) -> None:
    from cluestudio.core.workspace import import_path, open_workspace
    from cluestudio.gui.qt import QRectF

    task = tmp_path / "course" / "tasks" / "shop"
    (task / "submissions").mkdir(parents=True)
    (task / "requirement.md").write_text("# Shop\n", encoding="utf-8")
    (task / "reference.puml").write_text(REFERENCE, encoding="utf-8")
    photo, words = side_on_photo()
    (task / "submissions" / "s1.jpg").write_bytes(photo)
    (task / "submissions" / "s1.puml").write_text(WITHOUT_INVOICE, encoding="utf-8")
    ws = open_workspace(tmp_path / "shop.sqlite")
    run_job(import_path(ws, tmp_path / "course"))
    ws.close()
    window = session.open(tmp_path / "shop.sqlite")  # the TA's window (grader "ta")
    shown = window.review.image_a.image
    assert shown is not None and (shown.width(), shown.height()) == (1400, 1000)  # as taken
    job = window.check_current()  # Jobs → Check this conversion (Ctrl+J)
    assert job is not None
    with session.qtbot.waitSignal(job.finished, timeout=180_000):
        pass
    session.qtbot.waitUntil(lambda: bool(window.review.image_a.marks()), timeout=10_000)

    def on_screen(name: str, slack: float = 0.0) -> QRectF:  # the word in image A's pixels
        left, top, right, bottom = words[name]
        return QRectF(left + slack, top + slack, right - left - 2 * slack,
                      bottom - top - 2 * slack)

    marks = window.review.image_a.marks()
    invoice = on_screen("Invoice")
    # the mark round the word (4 px of slack for the letters' antialiased edges)
    assert any(mark.contains(on_screen("Invoice", 4.0)) for mark in marks), (marks, invoice)
    left, top, right, bottom = class_box_in_photo("Invoice")
    dropped = QRectF(left, top, right - left, bottom - top)
    for mark in marks:  # each mark hugs a word of the dropped class, not the board
        assert dropped.contains(mark), (mark, dropped)
        assert mark.width() * mark.height() < 4 * invoice.width() * invoice.height()
    assert not any(mark.intersects(on_screen(kept)) for mark in marks
                   for kept in ("Order", "Customer"))

"""A TA checks a 48 MP phone photo of a whiteboard (issue 29) and sees the box marks on the
words: the photo is decoded reduced, both for OCR and for image A in the window, so the
boxes the check draws around what the conversion dropped sit on the drawn words, not at
half their coordinates. Real OCR in the window's worker process."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

from cluestudio.core.jobs import run_job

pytest.importorskip("rapidocr", reason="the ocr extra is not installed")
pytestmark = [pytest.mark.gui, pytest.mark.xdist_group("ocr")]

WIDTH, HEIGHT = 8_000, 6_000  # 48 MP, as a phone saves it: over the 40 MP decoded whole
# Class name → top left of its box on the whiteboard.
CLASSES = {"Order": (600, 700), "Customer": (4_400, 700), "Invoice": (600, 3_400)}
REFERENCE = ("@startuml\nclass Order\nclass Customer\nclass Invoice\n"
             "Customer -- Order\nOrder -- Invoice\n@enduml\n")
CONVERTED = "@startuml\nclass Order\nclass Customer\nCustomer -- Order\n@enduml\n"  # no Invoice


def _whiteboard(path: Path) -> dict[str, tuple[int, int, int, int]]:
    """Three class boxes drawn as on a whiteboard, saved as a phone's JPEG; where each
    class name's letters are, in the photo's own pixels."""
    photo = Image.new("L", (WIDTH, HEIGHT), 235)
    draw = ImageDraw.Draw(photo)
    font = ImageFont.load_default(size=200)
    words = {}
    for name, (x, y) in CLASSES.items():
        draw.rectangle((x, y, x + 2_600, y + 1_800), outline=30, width=14)
        draw.line((x, y + 400, x + 2_600, y + 400), fill=30, width=14)
        words[name] = draw.textbbox((x + 300, y + 100), name, font=font)
        draw.text((x + 300, y + 100), name, fill=20, font=font)
    photo.save(path, format="JPEG", quality=85)
    return words


def test_a_ta_checking_a_48_mp_phone_photo_of_a_whiteboard_sees_the_box_marks_on_the_words(
        session, tmp_path: Path) -> None:
    from cluestudio.core.workspace import import_path, open_workspace
    from cluestudio.gui.qt import QRectF

    task = tmp_path / "course" / "tasks" / "shop"
    (task / "submissions").mkdir(parents=True)
    (task / "requirement.md").write_text("# Shop\n", encoding="utf-8")
    (task / "reference.puml").write_text(REFERENCE, encoding="utf-8")
    words = _whiteboard(task / "submissions" / "s1.jpg")
    (task / "submissions" / "s1.puml").write_text(CONVERTED, encoding="utf-8")
    ws = open_workspace(tmp_path / "shop.sqlite")
    run_job(import_path(ws, tmp_path / "course"))
    ws.close()
    window = session.open(tmp_path / "shop.sqlite")  # the TA's window (grader "ta")
    shown = window.review.image_a.image
    assert shown is not None and shown.width() < WIDTH  # decoded reduced
    scale = shown.width() / WIDTH
    assert shown.height() == pytest.approx(HEIGHT * scale, abs=1)
    job = window.check_current()  # Jobs → Check this conversion (Ctrl+J)
    assert job is not None
    with session.qtbot.waitSignal(job.finished, timeout=180_000):
        pass
    session.qtbot.waitUntil(lambda: bool(window.review.image_a.marks()), timeout=10_000)

    def on_screen(name: str) -> QRectF:  # the word, in image A's displayed pixels
        left, top, right, bottom = words[name]
        return QRectF(left * scale, top * scale, (right - left) * scale,
                      (bottom - top) * scale)

    marks = window.review.image_a.marks()
    invoice = on_screen("Invoice")
    assert any(mark.contains(invoice) for mark in marks), (marks, invoice)
    for mark in marks:  # each mark hugs a dropped word, not the board
        assert mark.intersects(invoice), (mark, invoice)
        assert mark.width() * mark.height() < 4 * invoice.width() * invoice.height()
    assert not any(mark.intersects(on_screen(kept)) for mark in marks
                   for kept in ("Order", "Customer"))

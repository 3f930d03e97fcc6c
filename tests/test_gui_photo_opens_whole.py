"""Issue 29: a new TA at 1024×700 opens a student's whiteboard photo as image A, and sees
the diagram, not a patch of blank board: the pane opened it at PlantUML's readable 85 %, a
zoom meant for 14 px text. A photo now opens whole (its letters cannot be told from its
grain); a drawing tool's export at a zoom as much below 85 % as its letters are bigger than
PlantUML's; PlantUML's renders keep their readable zoom."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from test_gui_fit_whole import _whole_on_screen
from test_gui_stories import _big_workspace

pytestmark = pytest.mark.gui

BOXES = [(200, 300, "Observatory"), (2400, 300, "Astronomer"), (1300, 1800, "Telescope")]


def _board(path: Path) -> None:
    """A phone's 4000×3000 photo of a diagram in 200 px marker letters on a board."""
    ys, xs = np.mgrid[0:3000, 0:4000]
    shade = 200 + 30 * xs / 4000 + 20 * ys / 3000  # light from one side: no flat page
    image = Image.fromarray(np.dstack([shade, shade, shade + 5]).astype(np.uint8))
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=200)
    for x, y, name in BOXES:
        draw.rectangle([x, y, x + 1300, y + 900], outline="black", width=12)
        draw.line([x, y + 220, x + 1300, y + 260], fill="black", width=12)
        draw.text((x + 80, y + 40), name, fill="black", font=font)
        for row, member in enumerate(("name : str", "email : str")):
            draw.text((x + 80, y + 320 + 260 * row), member, fill="black", font=font)
    image.save(path, compress_level=1)


def test_a_new_ta_opening_a_whiteboard_photo_sees_the_whole_diagram(session, tmp_path) -> None:
    from cluestudio.gui.widgets.zoom_bar import ZoomBar

    window = session.open(_big_workspace(tmp_path, _board, tasks=("library_loans",)))
    window.resize(1024, 700)
    image_a = window.review.image_a
    session.qtbot.waitUntil(lambda: image_a.image is not None, timeout=10_000)
    session.qtbot.wait(50)  # the splitter's sizes settle
    assert _whole_on_screen(image_a), (image_a.zoom(), image_a.viewport().size())
    bar = window.review.findChild(ZoomBar)
    assert "small" not in bar.label.text()  # its letters are big: readable whole


def _page(pixels: int, scale: int):
    """A white page of ``scale`` times PlantUML's 14 px text."""
    from cluestudio.gui.qt import QColor, QFont, QImage, QPainter

    image = QImage(1600 * scale, 1200 * scale, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    font = QFont("DejaVu Sans")
    font.setPixelSize(pixels * scale)
    painter.setFont(font)
    for row in range(40):
        for column in range(6):
            painter.drawText(scale * (20 + 260 * column), scale * (30 + 28 * row),
                             "Astronomer tunes Telescope")
    painter.end()
    return image


def test_a_plantuml_render_still_opens_at_its_readable_zoom(qtbot) -> None:
    """A big render of PlantUML's 14 px text scrolls at 85 % rather than shrinking it to
    grey lines; an export whose letters are 3 times as big, at a third of that."""
    from cluestudio.gui.widgets.image_views import READABLE_ZOOM, DiagramImageView

    view = DiagramImageView()
    qtbot.addWidget(view)
    view.resize(400, 300)
    view.show()
    view.set_image(_page(14, 1))
    assert view.zoom() == READABLE_ZOOM and not _whole_on_screen(view)
    view.set_image(_page(14, 3))  # a drawing tool's export of big text
    assert READABLE_ZOOM / 4 < view.zoom() < READABLE_ZOOM / 2, view.zoom()
    assert not view.text_small()
    view.close()

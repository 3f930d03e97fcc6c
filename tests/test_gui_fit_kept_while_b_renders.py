"""A TA presses Fit (Ctrl+0) while B is still rendering: B, when it comes, opens whole too,
and image A keeps the whole diagram (B opened at the readable zoom, and A, following it,
jumped back: seen now and then in test_gui_fit_whole on a busy machine)."""

from __future__ import annotations

import pytest

from test_gui_fit_whole import _whole_on_screen

pytestmark = pytest.mark.gui


def _image(width: int, height: int):
    from cluestudio.gui.qt import QColor, QImage

    image = QImage(width, height, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    return image


def test_fit_pressed_while_b_renders_holds_when_b_arrives(qtbot) -> None:
    from cluestudio.gui.widgets.image_views import WHOLE, DiagramImageView, ZoomSync

    image_a, image_b = DiagramImageView(), DiagramImageView()
    for view in (image_a, image_b):
        qtbot.addWidget(view)
        view.resize(400, 300)
        view.show()
    sync = ZoomSync([image_a, image_b])
    image_a.set_image(_image(2400, 1500))
    image_b.show_message("Rendering…")
    sync.fit_all()  # Ctrl+0
    assert _whole_on_screen(image_a)
    image_b.set_image(_image(1200, 900))  # the rendering arrives
    assert image_b.fit_mode() == WHOLE and _whole_on_screen(image_b)
    assert image_a.fit_mode() == WHOLE and _whole_on_screen(image_a)

"""User scenario: open the sample course and see a task's requirement and rendered reference."""

from __future__ import annotations

import pytest

from cluestudio.resources_path import annotations_dir

pytestmark = [pytest.mark.gui, pytest.mark.java, pytest.mark.xdist_group("java")]


def test_first_window_shows_requirement_and_rendered_reference(qtbot) -> None:
    from cluestudio.gui.app import build_window

    window, runner = build_window(annotations_dir() / "sample")
    qtbot.addWidget(window)
    try:
        window.show()
        with qtbot.waitSignal(window.reference_shown, timeout=60_000) as shown:
            pass
        task_id = window.task_list.currentItem().data(0x0100)  # Qt.UserRole
        assert shown.args == [task_id]
        requirement = window.requirement_view.toPlainText()
        assert len(requirement) > 50
        image = window.diagram_view.image
        assert image is not None and image.width() > 200 and image.height() > 100
        # A rendered diagram has ink: some pixels are far from the white background.
        dark = sum(
            1
            for x in range(0, image.width(), 4)
            for y in range(0, image.height(), 4)
            if image.pixelColor(x, y).lightness() < 128
        )
        assert dark > 50

        # Choosing another task renders that task's reference.
        with qtbot.waitSignal(window.reference_shown, timeout=60_000) as second:
            window.task_list.setCurrentRow(1)
        assert second.args != shown.args
    finally:
        window.close()
        runner.shutdown()

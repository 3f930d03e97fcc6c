"""Image A with image B on top, to compare a conversion with what was submitted: overlay at
an opacity, or blink between them."""

from __future__ import annotations

from cluestudio.gui.qt import (
    QComboBox,
    QHBoxLayout,
    QImage,
    QLabel,
    QSlider,
    Qt,
    QTimer,
    QVBoxLayout,
    QWidget,
    Signal,
)
from cluestudio.gui.widgets.image_views import DiagramImageView


class CompareView(QWidget):
    """Image A with image B on top: overlay at an opacity, or blink between them."""

    OVERLAY, BLINK = "overlay", "blink"
    blink_toggled = Signal(bool)  # True while B is the one showing

    def __init__(self, parent: QWidget | None = None, blink_ms: int = 600) -> None:
        super().__init__(parent)
        self.view = DiagramImageView("Nothing to compare yet")
        self.mode_box = QComboBox()
        self.mode_box.addItem("Overlay", self.OVERLAY)
        self.mode_box.addItem("Blink", self.BLINK)
        self.opacity_slider = QSlider(Qt.Orientation.Horizontal)
        self.opacity_slider.setRange(0, 100)
        self.opacity_slider.setValue(50)
        self.opacity_slider.setToolTip("Opacity of B over A")
        self._blink = QTimer(self)
        self._blink.setInterval(blink_ms)
        self._blink.timeout.connect(self._toggle_blink)
        self._showing_b = True

        bar = QHBoxLayout()
        bar.addWidget(QLabel("A ⇄ B"))
        bar.addWidget(self.mode_box)
        bar.addWidget(QLabel("B opacity"))
        bar.addWidget(self.opacity_slider, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addWidget(self.view, 1)
        self.mode_box.currentIndexChanged.connect(self._apply_mode)
        self.opacity_slider.valueChanged.connect(
            lambda v: self.view.set_overlay_opacity(v / 100))
        self._b: QImage | None = None

    def set_images(self, a: QImage | None, b: QImage | None) -> None:
        self.view.set_image(a, "No image A")
        self._b = b
        self.view.set_overlay(b, self.opacity_slider.value() / 100)
        self._apply_mode()

    def mode(self) -> str:
        return str(self.mode_box.currentData())

    def set_mode(self, mode: str) -> None:
        self.mode_box.setCurrentIndex(self.mode_box.findData(mode))

    def _apply_mode(self, *_: object) -> None:
        blinking = self.mode() == self.BLINK and self.isVisible()
        self.opacity_slider.setEnabled(self.mode() == self.OVERLAY)
        if blinking:
            self.view.set_overlay_opacity(1.0)
            self._blink.start()
        else:
            self._blink.stop()
            self.view.set_overlay_opacity(self.opacity_slider.value() / 100)
            self.view.set_layer_visible(True, self._b is not None)

    def _toggle_blink(self) -> None:
        self._showing_b = not self._showing_b
        self.view.set_layer_visible(not self._showing_b, self._showing_b)
        self.blink_toggled.emit(self._showing_b)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._apply_mode()

    def hideEvent(self, event) -> None:
        # A hidden compare view must not keep a timer ticking on the UI thread.
        self._blink.stop()
        super().hideEvent(event)

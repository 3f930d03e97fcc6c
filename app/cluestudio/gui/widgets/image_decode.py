"""Image bytes to a QImage for the diagram views: PNG/JPEG/... or PlantUML's SVG text, and a
big JPEG photo at the reduced size OCR reads it at (so the check's marks fit)."""

from __future__ import annotations

from cluestudio.gui.qt import QColor, QImage, QPainter, QSize, QtCore, QtGui


def image_from_bytes(data: bytes) -> QImage:
    """A QImage from PNG/JPEG/... bytes, or from SVG text (PlantUML can render either)."""
    if data.lstrip()[:5] in (b"<?xml", b"<svg "):
        from cluestudio.gui.qt import QtSvg

        renderer = QtSvg.QSvgRenderer(data)
        size = renderer.defaultSize()
        image = QImage(size, QImage.Format.Format_ARGB32)
        image.fill(QColor("white"))
        painter = QPainter(image)
        renderer.render(painter)
        painter.end()
        return image
    return _raster(data)


def _raster(data: bytes) -> QImage:
    """A PNG/JPEG/... image; a JPEG photo over 40 MP at the reduced size OCR decodes it at
    (core/workspace/images.py): Qt would refuse its full-size pixels, and the boxes the
    check marks on image A are in that frame."""
    from cluestudio.core.workspace.images import reduction

    buffer = QtCore.QBuffer()
    buffer.setData(QtCore.QByteArray(data))
    reader = QtGui.QImageReader(buffer)
    size = reader.size()
    if reader.format() in (b"jpeg", b"jpg") and size.isValid():
        factor = reduction(size.width(), size.height())
        if factor > 1:  # the JPEG decoder's own 1/2, 1/4, 1/8 scale: sizes rounded up
            reader.setScaledSize(QSize(-(-size.width() // factor),
                                       -(-size.height() // factor)))
    return reader.read()

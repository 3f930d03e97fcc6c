"""Diagram image views that zoom and pan together, and a compare view (overlay or blink).

A reviewer compares the submitted image A with the re-rendered image B; both views follow
each other (same zoom relative to "fit", same centre as a fraction of the image) so the eye
finds the same region in both. Images of different resolution still line up that way.

A pane opens a diagram *readable*: whole when it fits at a readable scale (PlantUML's 14 px
text at 12 px, capitals at 9 px or more; an image whose own letters are bigger, such as a
drawing tool's export, at a scale as much smaller), else at the pane's width or the readable
scale, scrolling rather than turning text into grey lines. A photo opens whole: its letters
cannot be told from its grain, and a readable patch of it was blank board (issue 29).
"Fit" (Ctrl+0) shows the whole diagram whatever the scale, and the zoom bar says when its
text got small and offers the readable zoom back (Ctrl+9). A zoom the user chose (Fit
included) stays when the next submission is shown.
"""

from __future__ import annotations

from collections.abc import Callable

from cluestudio.gui.qt import (
    QColor,
    QGraphicsPixmapItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsView,
    QImage,
    QObject,
    QPainter,
    QPen,
    QPixmap,
    QPointF,
    QRectF,
    Qt,
    QTransform,
    QWidget,
    Signal,
)
from cluestudio.gui.widgets.image_decode import image_from_bytes
from cluestudio.gui.widgets.image_scale import text_scale

MIN_ZOOM, MAX_ZOOM = 0.05, 16.0
WHEEL_STEP = 1.15
# PlantUML draws class names and members at 14 px: below this scale their capitals are
# under ~9 px and small letters lose strokes (at 0.7 a reference read at 6-7 px, issue 17).
READABLE_ZOOM = 0.85
READABLE, WHOLE = "readable", "whole"  # the two fitted zooms a view keeps on resize


class DiagramImageView(QGraphicsView):
    """One diagram image: wheel zooms around the mouse, drag pans, a message when empty.

    ``view_changed`` carries (zoom relative to fit, centre x, centre y as image fractions)
    after every user zoom or pan, for :class:`ZoomSync`.
    """

    view_changed = Signal(float, float, float)
    zoom_changed = Signal(float)  # the absolute zoom (1.0 = 100%), after any change

    def __init__(self, placeholder: str = "No image", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setScene(QGraphicsScene(self))
        self.setRenderHints(QPainter.RenderHint.SmoothPixmapTransform
                            | QPainter.RenderHint.Antialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setBackgroundBrush(QColor("#ffffff"))
        self._base = QGraphicsPixmapItem()
        self._overlay = QGraphicsPixmapItem()
        self._overlay.setVisible(False)
        # The default FastTransformation drops pixel rows and columns below 100%: 1-px
        # borders vanish and glyphs lose strokes ("Loan" reads "Loar").
        for pixmap in (self._base, self._overlay):
            pixmap.setTransformationMode(Qt.TransformationMode.SmoothTransformation)
        self._highlight = QGraphicsRectItem()
        self._highlight.setPen(QPen(QColor("#ff9800"), 4))
        self._highlight.setVisible(False)
        for item in (self._base, self._overlay, self._highlight):
            self.scene().addItem(item)
        self._marks: list[QGraphicsRectItem] = []
        self._message = self.scene().addText(placeholder)
        self.image: QImage | None = None
        self._text_scale: float | None = 1.0  # the image's letters / PlantUML's; None: photo
        self._fit_mode: str | None = READABLE  # kept on resize until the user zooms
        self._syncing = False
        self.horizontalScrollBar().valueChanged.connect(self._emit_changed)
        self.verticalScrollBar().valueChanged.connect(self._emit_changed)

    # --- content ------------------------------------------------------------------------

    def set_image(self, image: QImage | bytes | None, message: str = "") -> None:
        """Show ``image`` (keeping the current zoom if the size matches), or ``message``."""
        if isinstance(image, bytes | bytearray):
            image = image_from_bytes(bytes(image))
        if image is None or image.isNull():
            self.show_message(message or "No image")
            return
        same_size = self.image is not None and self.image.size() == image.size()
        had_image = self.image is not None
        zoom = self.zoom()
        self.image = image
        self._text_scale = text_scale(image)
        self._base.setPixmap(QPixmap.fromImage(image))
        self._base.setVisible(True)
        self._message.setVisible(False)
        self.set_marks([])
        self.scene().setSceneRect(QRectF(image.rect()))
        if self._fit_mode or not had_image:
            self._fit_to(self._fit_mode or READABLE)
        elif same_size:
            pass  # a re-render of the same diagram: keep zoom and position
        else:  # another diagram: the zoom the user chose, from its top left corner
            self.setTransform(QTransform.fromScale(zoom, zoom))
            self.centerOn(QPointF(0, 0))
            self._emit_changed()

    def set_marks(self, rects: list[QRectF], colour: str = "#d81b60") -> None:
        """Outline regions of the image (text the conversion dropped), dashed."""
        for mark in self._marks:
            self.scene().removeItem(mark)
        self._marks = []
        pen = QPen(QColor(colour), 2, Qt.PenStyle.DashLine)
        pen.setCosmetic(True)  # the same width at any zoom
        for rect in rects:
            mark = QGraphicsRectItem(rect.adjusted(-3, -3, 3, 3))
            mark.setPen(pen)
            self.scene().addItem(mark)
            self._marks.append(mark)

    def shows_drawing(self) -> bool:
        """Whether an image with something drawn on it is shown (not a message, not a
        blank page such as an empty diagram's rendering)."""
        if self.image is None or not self._base.isVisible():
            return False
        small = self.image.scaled(48, 48, Qt.AspectRatioMode.IgnoreAspectRatio,
                                  Qt.TransformationMode.SmoothTransformation)
        first = small.pixel(0, 0)
        return any(small.pixel(x, y) != first for y in range(48) for x in range(48))

    def marks(self) -> list[QRectF]:
        return [mark.rect() for mark in self._marks]

    def show_message(self, text: str) -> None:
        self.image = None
        self.set_marks([])
        self._base.setVisible(False)
        self._overlay.setVisible(False)
        self._highlight.setVisible(False)
        self._message.setPlainText(text)
        self._message.setVisible(True)
        self.scene().setSceneRect(self._message.boundingRect())
        self.resetTransform()

    def set_overlay(self, image: QImage | None, opacity: float = 0.5) -> None:
        """Lay ``image`` over the base image, scaled to the base image's width."""
        if image is None or image.isNull() or self.image is None:
            self._overlay.setVisible(False)
            return
        scaled = image.scaledToWidth(self.image.width(),
                                     Qt.TransformationMode.SmoothTransformation)
        self._overlay.setPixmap(QPixmap.fromImage(scaled))
        self._overlay.setOpacity(opacity)
        self._overlay.setVisible(True)

    def set_overlay_opacity(self, opacity: float) -> None:
        self._overlay.setOpacity(max(0.0, min(1.0, opacity)))

    def set_layer_visible(self, base: bool, overlay: bool) -> None:
        self._base.setVisible(base and self.image is not None)
        self._overlay.setVisible(overlay and not self._overlay.pixmap().isNull())

    def overlay_opacity(self) -> float:
        return float(self._overlay.opacity())

    def overlay_visible(self) -> bool:
        return bool(self._overlay.isVisible())

    def highlight(self, rect: QRectF | None) -> None:
        """Outline a region of the image (e.g. a matched class), and bring it into view."""
        if rect is None:
            self._highlight.setVisible(False)
            return
        self._highlight.setRect(rect)
        self._highlight.setVisible(True)
        self.ensureVisible(rect, 40, 40)

    # --- zoom and pan -------------------------------------------------------------------

    def zoom(self) -> float:
        """Scale of image pixels to screen pixels (1.0 = 100%)."""
        return float(self.transform().m11())

    def fit_zoom(self) -> float:
        """The readable zoom: the whole diagram if it is readable so, else the pane's width
        if that is, else the readable scale (it scrolls). Never a blow-up of a small diagram
        (it only blurs). Zooms relative to it are what synced views share."""
        if self.image is None:
            return 1.0
        view = self.viewport().rect()
        width = view.width() / max(1, self.image.width())
        whole = min(width, view.height() / max(1, self.image.height()))
        readable = self.readable_zoom()
        if whole >= readable:
            zoom = whole  # all of it, readable (a photo: all of it)
        elif width >= readable:
            zoom = width  # the full width; scroll down
        else:
            zoom = readable  # readable; scroll both ways
        return max(MIN_ZOOM, min(1.0, zoom))

    def readable_zoom(self) -> float:
        """The zoom at which this image's text is readable: PlantUML's at READABLE_ZOOM,
        bigger letters at as much less; a photo's is taken to be readable whole."""
        if self._text_scale is None:
            return min(READABLE_ZOOM, self.whole_zoom())
        return READABLE_ZOOM / self._text_scale

    def whole_zoom(self) -> float:
        """The whole diagram in the pane, however small its text gets (never enlarged)."""
        if self.image is None:
            return 1.0
        view = self.viewport().rect()
        whole = min(view.width() / max(1, self.image.width()),
                    view.height() / max(1, self.image.height()))
        return max(MIN_ZOOM, min(1.0, whole))

    def fit_mode(self) -> str | None:
        """:data:`READABLE`, :data:`WHOLE`, or None after the user zoomed."""
        return self._fit_mode

    def text_small(self) -> bool:
        """Whether the image's text is shown below its readable scale now."""
        return self.image is not None and self.zoom() < self.readable_zoom() - 1e-6

    def relative_zoom(self) -> float:
        return self.zoom() / self.fit_zoom()

    def set_zoom(self, factor: float) -> None:
        """Zoom to ``factor`` (1.0 = 100%) keeping the centre of the view where it is."""
        factor = max(MIN_ZOOM, min(MAX_ZOOM, factor))
        centre = self.mapToScene(self.viewport().rect().center())
        self._fit_mode = None
        self.setTransform(QTransform.fromScale(factor, factor))
        self.centerOn(centre)
        self._emit_changed()

    def zoom_by(self, step: float) -> None:
        """Zoom by ``step`` around the mouse (wheel) or the centre (buttons, keys)."""
        factor = max(MIN_ZOOM, min(MAX_ZOOM, self.zoom() * step))
        self._fit_mode = None
        # scale() honours the transformation anchor, so the point under the mouse stays put.
        self.scale(factor / self.zoom(), factor / self.zoom())
        self._emit_changed()

    def fit(self) -> None:
        """The whole diagram (Fit, Ctrl+0), even below the readable scale."""
        self._fit_to(WHOLE)

    def readable(self) -> None:
        """The readable zoom (Ctrl+9; what a pane opens with)."""
        self._fit_to(READABLE)

    def _fit_to(self, mode: str) -> None:
        # Kept without an image too: B still rendering when Fit was pressed opened at the
        # readable zoom on arrival, and A, following it, lost the Fit.
        self._fit_mode = mode
        if self.image is None:
            return
        self._apply_fit()
        self._emit_changed()

    def follow_fit(self, mode: str) -> None:
        """Take another view's fitted zoom (its own image's fit) without echoing it back."""
        self._syncing = True
        try:
            self._fit_to(mode)
        finally:
            self._syncing = False

    def _apply_fit(self) -> None:
        # Not fitInView(): it keeps a margin, so "fit" would not be exactly the zoom asked.
        factor = self.whole_zoom() if self._fit_mode == WHOLE else self.fit_zoom()
        self.setTransform(QTransform.fromScale(factor, factor))
        rect = self.scene().sceneRect()
        view = self.viewport().rect()
        if rect.height() * factor > view.height() or rect.width() * factor > view.width():
            self.centerOn(QPointF(rect.center().x(), 0))  # scrolls: start at the top
        else:
            self.centerOn(rect.center())

    def actual_size(self) -> None:
        self.set_zoom(1.0)

    def center_fraction(self) -> tuple[float, float]:
        if self.image is None:
            return 0.5, 0.5
        centre = self.mapToScene(self.viewport().rect().center())
        return (centre.x() / max(1, self.image.width()),
                centre.y() / max(1, self.image.height()))

    def follow(self, relative_zoom: float, fx: float, fy: float) -> None:
        """Take another view's zoom (relative to fit) and centre without echoing it back."""
        if self.image is None:
            return
        self._syncing = True
        try:
            factor = max(MIN_ZOOM, min(MAX_ZOOM, relative_zoom * self.fit_zoom()))
            self.setTransform(QTransform.fromScale(factor, factor))
            self._fit_mode = READABLE if abs(relative_zoom - 1.0) < 1e-6 else None
            self.centerOn(QPointF(fx * self.image.width(), fy * self.image.height()))
        finally:
            self._syncing = False
        self.zoom_changed.emit(self.zoom())

    def wheelEvent(self, event) -> None:
        if self.image is None:
            return
        steps = event.angleDelta().y() / 120
        if steps:
            self.zoom_by(WHEEL_STEP ** steps)
        event.accept()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self._fit_mode and self.image is not None:
            self._apply_fit()

    def _emit_changed(self, *_: object) -> None:
        self.zoom_changed.emit(self.zoom())
        if not self._syncing and self.image is not None:
            fx, fy = self.center_fraction()
            self.view_changed.emit(self.relative_zoom(), fx, fy)


class ZoomSync(QObject):
    """Keeps a set of image views at the same relative zoom and centre."""

    def __init__(self, views: list[DiagramImageView], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.views = list(views)
        self.enabled = True
        for view in self.views:
            view.view_changed.connect(lambda z, x, y, source=view: self._follow(source, z, x, y))

    def _follow(self, source: DiagramImageView, zoom: float, fx: float, fy: float) -> None:
        if not self.enabled:
            return
        whole = source.fit_mode() == WHOLE  # each its own whole diagram, not A's scale
        for view in self.views:
            if view is not source:
                if whole:
                    view.follow_fit(WHOLE)
                else:
                    view.follow(zoom, fx, fy)

    def fit_all(self) -> None:
        self._each(DiagramImageView.fit)

    def readable_all(self) -> None:
        self._each(DiagramImageView.readable)

    def _each(self, fit: Callable[[DiagramImageView], object]) -> None:
        self.enabled = False  # each view fits its own diagram
        try:
            for view in self.views:
                fit(view)
        finally:
            self.enabled = True

    def actual_size_all(self) -> None:
        # 100% means real pixels in every view, so it is not a relative zoom to propagate.
        self.enabled = False
        try:
            for view in self.views:
                view.actual_size()
        finally:
            self.enabled = True

    def zoom_all(self, step: float) -> None:
        """Zoom a view on screen by ``step``; the others follow. Not simply the first: in
        grading that is the reference, still rendering when Ctrl+= came, and nothing moved."""
        shown = [view for view in self.views if view.image is not None]
        candidates = [view for view in shown if view.isVisible()] + shown + self.views
        if candidates:
            candidates[0].zoom_by(step)

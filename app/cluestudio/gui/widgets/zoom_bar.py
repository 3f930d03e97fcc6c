"""The zoom buttons over a set of synced diagram views: Fit (the whole diagram), 100%,
zoom out and in, the zoom shown now, and, while PlantUML's text is shown small, the readable
zoom (see :mod:`.image_views`).

Synced views keep the same zoom *relative to fit*, so image A at 50 % beside its render B
at 100 % is the usual case: the label names each view it speaks of ("A 50% · B 100%"), as
an image-comparison tool shows each pane's zoom. One bare "50%" was the zoom of whichever
view changed last, and a TA read it as the zoom of the view in front of them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from cluestudio.gui.qt import QEvent, QLabel, QObject, QSize, Qt, QToolButton, QWidget
from cluestudio.gui.widgets.flow_layout import FlowLayout
from cluestudio.gui.widgets.image_views import (
    READABLE_ZOOM,
    WHEEL_STEP,
    DiagramImageView,
    ZoomSync,
)


def _tool_button(text: str, tip: str, parent: QWidget) -> QToolButton:
    button = QToolButton(parent)
    button.setText(text)
    button.setToolTip(tip)
    button.setAutoRaise(True)
    return button


_ZOOM_TIPS = {"fit_images": "Fit: the whole diagram, however small its text",
              "readable_zoom": "Readable zoom: PlantUML's text at a readable size (the pane "
                               "scrolls)",
              "actual_size": "Actual size", "zoom_out": "Zoom out", "zoom_in": "Zoom in"}


class ZoomBar(QWidget):
    """Fit / 100% / − / + buttons for a :class:`ZoomSync`, the zoom it shows now, and, while
    text is shown small, a button back to the readable zoom.

    ``names``: a short name ("A", "B") for each of the sync's views, in its order, "" for
    one the label leaves out: the label gives the zoom of each named view on screen with an
    image. Without names, the zoom of the view that changed last."""

    def __init__(self, sync: ZoomSync, parent: QWidget | None = None, *,
                 names: Sequence[str] = ()) -> None:
        super().__init__(parent)
        # Wraps instead of eliding: at 1024×700 the candidate column is ~190 px wide, and
        # an elided "100%" or a zoom cut to "85" (its "small" warning gone) says nothing.
        layout = FlowLayout(self, spacing=2)
        self.label = QLabel("—")
        self.label.setObjectName("zoomLabel")
        self.label.setMinimumWidth(40)
        self._buttons: dict[str, QToolButton] = {}
        for text, name, action in (
            ("Fit", "fit_images", sync.fit_all),
            ("100%", "actual_size", sync.actual_size_all),
            ("−", "zoom_out", lambda: sync.zoom_all(1 / WHEEL_STEP)),
            ("+", "zoom_in", lambda: sync.zoom_all(WHEEL_STEP)),
            ("Readable", "readable_zoom", sync.readable_all),
        ):
            button = _tool_button(text, "", self)
            button.clicked.connect(action)
            layout.addWidget(button)
            self._buttons[name] = button
            if name == "zoom_in":
                layout.addWidget(self.label)
        # as high as the buttons, its text level with theirs (the flow layout aligns tops)
        self.label.setMinimumHeight(self._buttons["fit_images"].sizeHint().height())
        self.label.setAlignment(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft)
        self.readable_button = self._buttons["readable_zoom"]
        self.readable_button.hide()  # offered while the text is small
        self.set_shortcuts({"fit_images": "Ctrl+0", "readable_zoom": "Ctrl+9",
                            "actual_size": "Ctrl+Shift+0", "zoom_out": "Ctrl+-",
                            "zoom_in": "Ctrl+="})
        self._views = list(sync.views)
        self._named = [(view, name) for view, name in zip(self._views, names, strict=False)
                       if name]
        for view in self._views:
            view.zoom_changed.connect(lambda _zoom, view=view: self._on_zoom(view))
        for view, _name in self._named:
            view.installEventFilter(self)  # a tab or Compare A/B shows another view

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in (QEvent.Type.Show, QEvent.Type.Hide) and any(
                watched is view for view, _name in self._named):
            self._on_zoom(watched)  # type: ignore[arg-type]
        return super().eventFilter(watched, event)

    def sizeHint(self) -> QSize:
        """One row where there is room (a flow layout alone asks only for its widest
        button, and a title row beside it would then squeeze the bar into a column)."""
        shown = [w for w in self.findChildren(QWidget) if not w.isHidden()]
        gaps = 2 * max(len(shown) - 1, 0)
        return QSize(sum(w.sizeHint().width() for w in shown) + gaps,
                     max((w.sizeHint().height() for w in shown), default=0))

    def set_shortcuts(self, shortcuts: Mapping[str, str]) -> None:
        """Name the keys the menus really use (a ``[keys]`` table may have moved them)."""
        for name, what in _ZOOM_TIPS.items():
            key = shortcuts.get(name, "")
            self._buttons[name].setToolTip(f"{what} ({key})" if key else what)

    def _on_zoom(self, view: DiagramImageView) -> None:
        """Each named view's zoom (else that of the view on screen that changed last);
        "small text" while any view on screen shows its text below the readable size."""
        shown = [v for v in self._views if v.isVisible() and v.image is not None]
        small = any(v.text_small() for v in shown or [view])
        if self._named:
            self.show_zooms([(name, v.zoom(), v.text_small()) for v, name in self._named
                             if v.isVisible() and v.image is not None], small)
            return
        if shown and view not in shown:
            return
        self.show_zoom(view.zoom(), small)

    def show_zooms(self, zooms: Sequence[tuple[str, float, bool]], small: bool) -> None:
        """Each view's zoom under its name, "small" after each whose text is small."""
        if not zooms:
            return  # nothing on screen to speak of: the last zooms stay
        self.show_zoom(zooms[0][1], small)
        if not self.readable_button.isVisible():
            self.label.setToolTip("Zoom of each image on screen, by its name (wheel or "
                                  "Ctrl+=/Ctrl+− to change; the images follow each other)")
        self.label.setText(" · ".join(f"{name} {round(100 * zoom)}%"
                                      + (" small" if text_small else "")
                                      for name, zoom, text_small in zooms))

    def show_zoom(self, zoom: float, small: bool | None = None) -> None:
        """The zoom; while text is small it says so and offers the readable zoom."""
        small = zoom < READABLE_ZOOM - 1e-6 if small is None else small
        self.label.setText(f"{round(100 * zoom)}%" + (" small" if small else ""))
        self.label.setStyleSheet("color: #e65100;" if small else "")
        self.label.setToolTip(
            "The text is below a readable size at this zoom: "
             + self.readable_button.toolTip() if small else
             "Zoom of the image on screen (wheel or Ctrl+=/Ctrl+− to change)")
        self.readable_button.setVisible(small)

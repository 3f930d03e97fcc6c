"""The zoom buttons over a set of synced diagram views: Fit (the whole diagram), 100%,
zoom out and in, the zoom shown now, and, while PlantUML's text is shown small, the readable
zoom (see :mod:`.image_views`).

Synced views keep the same zoom *relative to fit*, so image A at 50 % beside its render B
at 100 % is the usual case: each pane shows its own zoom (a :class:`ZoomLabel` in its title
row, as an image-comparison tool does), or one label names each view it speaks of ("A 50%"
under grading's candidate tabs). One bare "50%" was the zoom of whichever view changed
last, and a TA read it as the zoom of the view in front of them."""

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


class ZoomLabel(QLabel):
    """The zoom of the views in ``shows`` on screen with an image, each after its prefix
    ("A 85%"; "" for none: the pane's title says whose), "small" after one whose text is
    below the readable size. It follows what is on screen (a tab, Compare A/B)."""

    def __init__(self, shows: Sequence[tuple[DiagramImageView, str]],
                 parent: QWidget | None = None) -> None:
        super().__init__("—", parent)
        self.setObjectName("zoomLabel")
        self._shows = list(shows)
        for view, _prefix in self._shows:
            view.zoom_changed.connect(lambda _zoom: self.refresh())
            view.installEventFilter(self)  # shown or hidden: another view speaks

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in (QEvent.Type.Show, QEvent.Type.Hide):
            self.refresh()
        return super().eventFilter(watched, event)

    def refresh(self) -> None:
        shown = [(view, prefix) for view, prefix in self._shows
                 if view.isVisible() and view.image is not None]
        if not shown:
            return  # nothing on screen to speak of: the last zoom stays
        small = any(view.text_small() for view, _prefix in shown)
        self.setText(" · ".join(f"{prefix} {round(100 * view.zoom())}%".strip()
                                + (" small" if view.text_small() else "")
                                for view, prefix in shown))
        self.setStyleSheet("color: #e65100;" if small else "")
        self.setToolTip("The text is below a readable size at this zoom (Readable, Ctrl+9, "
                        "brings it back)" if small else
                        "Zoom of this image (wheel or Ctrl+=/Ctrl+− to change; the images "
                        "follow each other)")


class ZoomBar(QWidget):
    """Fit / 100% / − / + buttons for a :class:`ZoomSync`, the zoom it shows now, and, while
    text is shown small, a button back to the readable zoom.

    ``shows``: the views whose zoom the label gives (a :class:`ZoomLabel`); without them,
    the zoom of the view on screen that changed last."""

    def __init__(self, sync: ZoomSync, parent: QWidget | None = None, *,
                 shows: Sequence[tuple[DiagramImageView, str]] = ()) -> None:
        super().__init__(parent)
        # Wraps instead of eliding: at 1024×700 the candidate column is ~190 px wide, and
        # an elided "100%" or a zoom cut to "85" (its "small" warning gone) says nothing.
        layout = FlowLayout(self, spacing=2)
        self._shows = bool(shows)
        self.label: QLabel = ZoomLabel(shows) if shows else QLabel("—")
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
        for view in self._views:
            view.zoom_changed.connect(lambda _zoom, view=view: self._on_zoom(view))

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
        """The zoom of the view on screen that changed last (unless the label has its
        views); "small text" while any view on screen shows its text below the readable
        size, and the readable zoom offered."""
        shown = [v for v in self._views if v.isVisible() and v.image is not None]
        small = any(v.text_small() for v in shown or [view])
        if self._shows:
            self.readable_button.setVisible(small)
            return
        if shown and view not in shown:
            return
        self.show_zoom(view.zoom(), small)

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

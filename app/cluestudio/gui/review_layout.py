"""Where review mode's panes sit: A and B side by side on top (what the reviewer compares);
the PlantUML, the findings tabs and the verdict below. Fits 1366×768 with every part usable.
Layout, and the texts of the history and diff tabs: review_mode.py owns the widgets and
what they do.
"""

from __future__ import annotations

from cluestudio.app.submissions import SubmissionView
from cluestudio.core.workspace import kinds
from cluestudio.gui.qt import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    Qt,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)
from cluestudio.gui.widgets.image_views import ZoomSync
from cluestudio.gui.widgets.status_line import ElidedLabel
from cluestudio.gui.widgets.zoom_bar import ZoomBar, ZoomLabel


def titled(title: str, widget: QWidget, extra: QWidget | None = None) -> QWidget:
    """``widget`` under a bold title, with ``extra`` (buttons) at the title's right. The
    buttons keep their one row first: the title gives way ("A: submit…", whole in its
    tooltip) before they wrap, since a second row of buttons takes the image's height
    (at 1016 px "A: submitted image" pushed the zoom onto a row of its own, issue 29)."""
    box = QWidget()
    layout = QVBoxLayout(box)
    layout.setContentsMargins(2, 2, 2, 2)
    head = QHBoxLayout()
    if extra is None:
        head.addWidget(QLabel(f"<b>{title}</b>"))
        head.addStretch(1)
    else:
        label = ElidedLabel()
        font = label.font()
        font.setBold(True)
        label.setFont(font)
        label.setText(title)
        label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        label.setMinimumWidth(label.fontMetrics().horizontalAdvance(title[:2] + "…") + 4)
        head.addWidget(label, 1)
        head.addWidget(extra)
    layout.addLayout(head)
    layout.addWidget(widget, 1)
    return box


def review_tabs(check: QWidget, summary: QWidget, history: QWidget, diff: QWidget,
                probe: QWidget, requirement: QWidget) -> QTabWidget:
    """The findings beside the editor: check, model, revisions, diff, VLM probe, task."""
    tabs = QTabWidget()
    # Each tooltip starts with the tab's name: at 1024 px the names are shortened ("Ch…").
    for page, name, tip in (
            (check, "Check", "what the offline check of image A found: text the PlantUML "
                             "dropped (boxed in A) or invented"),
            (summary, "Model", "what the parser reads in this PlantUML (classes, relations, "
                               "warnings)"),
            (history, "Revisions", "every saved revision, oldest first; pick one for its "
                                   "diff"),
            (diff, "Diff", "this text against the model's output"),
            (probe, "VLM", "the VLM probe's reading of image A (F8)"),
            (requirement, "Task", "the task's requirement")):
        tabs.setTabToolTip(tabs.addTab(page, name), f"{name}: {tip}")
    # Short names that all fit at 1366×768; in a narrower pane they elide first, and only
    # where even "Ch…" "M…" … do not fit (1024 px) do arrows come: without them the Task
    # tab lay past the pane's edge, with nothing to say it was there.
    tabs.setUsesScrollButtons(True)
    tabs.setElideMode(Qt.TextElideMode.ElideRight)
    return tabs


def review_splitter(image_a: QWidget, sync: ZoomSync, b_pane: QWidget, b_buttons: QWidget,
                    editor: QWidget, tabs: QWidget, verdict: QWidget) -> QSplitter:
    """A | B on top, PlantUML | tabs | verdict below. Each image pane shows its own zoom in
    its title row (``sync``: A, B, the overlay): the zoom bar's is A's, B's (the overlay's
    while comparing) goes first in ``b_buttons``; synced views share a zoom relative to
    fit, not the zoom itself."""
    view_a, view_b, overlay = sync.views
    b_row = b_buttons.layout()
    if isinstance(b_row, QHBoxLayout):
        b_row.insertWidget(0, ZoomLabel(((view_b, ""), (overlay, "A⇄B"))))
    images = QSplitter(Qt.Orientation.Horizontal)
    images.addWidget(titled("A: submitted image", image_a,
                            ZoomBar(sync, shows=((view_a, ""),))))
    images.addWidget(titled("B: re-rendered", b_pane, b_buttons))
    images.setSizes([500, 500])
    verdict_scroll = QScrollArea()
    verdict_scroll.setWidget(verdict)
    verdict_scroll.setWidgetResizable(True)
    verdict_scroll.setMinimumWidth(180)
    verdict_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    below = QSplitter(Qt.Orientation.Horizontal)
    below.addWidget(titled("PlantUML (Ctrl+S saves a revision)", editor))
    below.addWidget(tabs)
    below.addWidget(verdict_scroll)
    below.setSizes([400, 420, 240])  # the tabs pane keeps its six tab names whole at 1366
    splitter = QSplitter(Qt.Orientation.Vertical)
    splitter.addWidget(images)
    splitter.addWidget(below)
    splitter.setStretchFactor(0, 5)
    splitter.setStretchFactor(1, 4)
    splitter.setSizes([380, 300])
    return splitter


def fill_history(history: QListWidget, view: SubmissionView) -> None:
    """The revisions of ``view``, oldest first, in the history tab's list (no signals)."""
    history.blockSignals(True)
    history.clear()
    for number, revision in enumerate(view.revisions, 1):
        history.addItem(f"Revision {number} of {len(view.revisions)} · "
                        f"{revision.created_at[:16].replace('T', ' ')} · "
                        f"{revision.author} ({revision.author_kind})"
                        + ("" if revision.parse_ok is not False
                           or not kinds.uses_class_parser(view.task.diagram_kind)
                           else "  ⚠ parse"))
    history.blockSignals(False)


def model_diff(view: SubmissionView, text: str, after_name: str = "this revision") -> str:
    """What ``text`` changes in the model's output, for the diff tab."""
    from cluestudio.app.preview import unified_diff

    return (unified_diff(view.model_puml, text, after_name=after_name)
            or "(same as the model output)")

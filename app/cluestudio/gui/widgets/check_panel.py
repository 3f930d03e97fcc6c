"""The findings of the offline conversion check (issue 18), beside the PlantUML editor.

Text image A shows that the PlantUML lacks ("dropped"), and names the PlantUML has that A
does not show ("invented"), each clickable: a dropped name outlines its box in A and puts the
editor on the class it belongs to; an invented name puts the editor on its line.
Where image A carries the PlantUML it was rendered from, the check compared with that (no
OCR; dropped names have its line instead of a box): the panel says so, and "Check the
pixels" reads A with OCR all the same (docs/adr/0016).
"""

from __future__ import annotations

from html import escape
from typing import Any

from cluestudio.gui.qt import (
    QBoxLayout,
    QBrush,
    QColor,
    QEvent,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QObject,
    QPushButton,
    QRectF,
    Qt,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
    Signal,
)

# The width the summary needs beside the buttons to read as lines, not a word per line.
SUMMARY_BESIDE_BUTTONS = 300
_FLAG = QColor("#c2185b")
_DOUBT = QColor("#757575")


def report_flag_confidence() -> float:
    """The confidence from which a finding counts as a flag (the check's own threshold)."""
    from cluestudio.core.check.report import FLAG_CONFIDENCE

    return FLAG_CONFIDENCE


def box(rect: tuple[float, float, float, float]) -> QRectF:
    """A finding's (left, top, right, bottom) on image A as a rectangle to draw."""
    left, top, right, bottom = rect
    return QRectF(left, top, right - left, bottom - top)


def dropped_boxes(report: Any | None, puml: str) -> list[QRectF]:
    """A's boxes around what the conversion ``puml`` dropped (flagged findings only)."""
    from cluestudio.app.check_display import shown_findings

    return [box(missing.box.rect) for missing in shown_findings(report, puml).missing
            if missing.box is not None and missing.confidence >= report_flag_confidence()]


def _embedded(report: Any) -> bool:
    return getattr(report, "evidence", "") == "embedded"


class CheckPanel(QWidget):
    """``line_selected(line)``: go to a PlantUML line; ``box_selected((l, t, r, b))``:
    outline a region of image A; ``check_requested``: run the check now;
    ``pixels_requested``: run it on A's pixels (OCR) though A carries its PlantUML."""

    line_selected = Signal(int)
    box_selected = Signal(object)
    check_requested = Signal()
    pixels_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.run_button = QPushButton("Check this conversion")
        self.run_button.setToolTip("Read image A with OCR (offline) and compare its text "
                                   "with the saved PlantUML")
        self.run_button.clicked.connect(self.check_requested)
        # What the check read but did not weigh ("attributes not judged: …"): beside it a
        # "no flag" is no word on those names (a photo's dropped attributes, issue 29).
        self.not_judged = QLabel()
        self.not_judged.setObjectName("checkNotJudged")
        self.not_judged.setWordWrap(True)
        self.not_judged.setStyleSheet("color: #e65100;")
        self.not_judged.hide()
        self.pixels_button = QPushButton("Check the pixels")
        self.pixels_button.setToolTip("Read image A with OCR instead of trusting the PlantUML "
                                      "it carries (a PNG edited after it was rendered keeps "
                                      "its source)")
        self.pixels_button.clicked.connect(self.pixels_requested)
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["Finding", "Kind", "Where"])
        # The finding takes what is left after Kind and Where (no sideways scrolling in a
        # narrow pane); whole texts are in the tooltips.
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.tree.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.tree.viewport().installEventFilter(self)  # its width: share the columns again
        self.tree.itemActivated.connect(self._on_item)
        self.tree.itemClicked.connect(self._on_item)
        # Moving through the findings by keyboard shows each box in A (scrolled into
        # view); the editor jump waits for Return or a click, so the focus stays here.
        self.tree.currentItemChanged.connect(self._show_box_of)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.pixels_button)
        # The summary beside the buttons where the pane is wide, above them where it is
        # narrow (1024 px: beside both buttons the summary was a column a word wide and
        # the buttons were cut, "eck the pix").
        self._head = QBoxLayout(QBoxLayout.Direction.LeftToRight)
        self._head.addWidget(self.summary, 1)
        self._head.addLayout(buttons)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(self._head)
        layout.addWidget(self.not_judged)
        layout.addWidget(self.tree, 1)
        self.show_report(None, False)

    def show_running(self) -> None:
        self.summary.setText("<i>Checking… (reading image A the first time takes a few "
                             "seconds)</i>")
        self.run_button.setEnabled(False)

    def show_report(self, report: Any | None, can_check: bool, puml: str | None = None
                    ) -> None:
        """``report`` of the conversion ``puml`` (given: the findings that would cry wolf
        are left out, see core/check/doubtful.py)."""
        from cluestudio.app.check_display import shown_findings

        self.tree.clear()
        self.run_button.setEnabled(can_check)
        abstained = tuple(getattr(report, "not_judged", ()) or ()) \
            if getattr(report, "verdict", "") in ("clean", "flagged") else ()
        self.not_judged.setText("\n".join(f"? {sentence}" for sentence in abstained))
        self.not_judged.setVisible(bool(abstained))
        self.pixels_button.setVisible(_embedded(report))
        self._place_buttons()
        self.pixels_button.setEnabled(can_check)
        if report is None:
            self.run_button.setText("Check this conversion")  # not "again": never checked
            self.summary.setText("Not checked yet." if can_check else
                                 "<i>Nothing to check: the check needs image A and "
                                 "PlantUML.</i>")
            return
        self.run_button.setText("Check again")
        # "?" as in the navigator's OCR column: no judgment, so no flag (⚑ means the check
        # judged the conversion wrong); the reason in the words `cluestudio check` prints
        if not report.readable:
            self.summary.setText(f"<b>? {escape(report.reason)}</b> — look at it yourself.")
            return
        if getattr(report, "verdict", "") in ("could not judge", "language"):
            # no name-by-name verdict: say why, and leave the findings out (they are noise)
            self.summary.setText(f"<b>? {escape(report.reason)}</b>"
                                 + _evidence_line(report))
            return
        recall = report.text_recall
        precision = report.name_precision
        flag = ("<b>⚑ flagged</b>: look here first" if report.flagged else
                "no flag on what it judged" if abstained else "no flag")
        shown = shown_findings(report, puml)
        hidden = (f" · {shown.hidden} doubtful not listed" if shown.hidden else "")
        self.summary.setToolTip(f"{shown.hidden} finding(s) not listed: multiplicities OCR "
                                "misses, words of a legend or an editor's palette, "
                                "stereotypes OCR misread, words cut by the image's edge"
                                if shown.hidden else "")
        embedded = _embedded(report)
        shares = (f"the conversion has {_percent(recall)} of the source's names; the source "
                  f"has {_percent(precision)} of the conversion's" if embedded
                  else f"the PlantUML has {_percent(recall)} of A's text; A shows "
                       f"{_percent(precision)} of its names")
        self.summary.setText(f"{flag} · triage {report.triage:.2f} · {shares}"
                             + hidden + _evidence_line(report))
        limit = report_flag_confidence()
        titles = (("In the PlantUML A carries, not in the conversion",
                   "In the conversion, not in the PlantUML A carries") if embedded else
                  ("In image A, not in the PlantUML", "In the PlantUML, not in image A"))
        for title, findings, invented in (
                (titles[0], shown.missing, False), (titles[1], shown.invented, True)):
            group = QTreeWidgetItem([f"{title} ({len(findings)})", "", ""])
            group.setToolTip(0, f"{title} ({len(findings)})")
            for finding in findings:
                where = (f"line {finding.line}" if invented and finding.line else
                         f"in {finding.owner}" if finding.owner else
                         f"A's line {finding.source_line}"
                         if getattr(finding, "source_line", None) else "")
                hint = (f" (A shows “{finding.nearest}”?)" if invented and finding.nearest
                        else "")
                child = QTreeWidgetItem([finding.text + hint, finding.kind, where])
                for column in (1, 2):  # whole when the column gave way (_share_columns)
                    child.setToolTip(column, child.text(column))
                sure = finding.confidence >= limit
                child.setForeground(0, QBrush(_FLAG if sure else _DOUBT))
                child.setToolTip(0, f"{escape(finding.text)}: confidence "
                                    f"{finding.confidence:.2f}"
                                 + ("" if sure else " (doubtful, not flagged)"))
                child.setData(0, Qt.ItemDataRole.UserRole, (
                    finding.line if invented else finding.owner_line,
                    None if invented or finding.box is None else tuple(finding.box.rect)))
                group.addChild(child)
            self.tree.addTopLevelItem(group)
            group.setFirstColumnSpanned(True)  # a heading: the whole width, never cut
            group.setExpanded(True)
        self._share_columns()

    def resizeEvent(self, event: Any) -> None:
        self._place_buttons()
        super().resizeEvent(event)

    def _place_buttons(self) -> None:
        buttons = sum(b.sizeHint().width() for b in (self.run_button, self.pixels_button)
                      if not b.isHidden())
        wide = self.width() >= buttons + SUMMARY_BESIDE_BUTTONS
        self._head.setDirection(QBoxLayout.Direction.LeftToRight if wide
                                else QBoxLayout.Direction.TopToBottom)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.tree.viewport() and event.type() == QEvent.Type.Resize:
            self._share_columns()
        return super().eventFilter(watched, event)

    def _share_columns(self) -> None:
        """Kind and Where as wide as their texts while a finding's name keeps room for a
        word beside them; in a narrower pane (1024 px) they give way, shortened in
        proportion, and each cell has its whole text in its tooltip. (Sized to their
        contents alone they took the whole pane there, and the names were not shown.)"""
        tree, header = self.tree, self.tree.header()
        metrics = tree.fontMetrics()
        name = 2 * tree.indentation() + metrics.horizontalAdvance("Customer") + 8
        least = metrics.horizontalAdvance("in …") + 8
        wanted = [max(tree.sizeHintForColumn(column), header.sectionSizeHint(column))
                  for column in (1, 2)]
        spare = tree.viewport().width() - name
        for column, width in zip((1, 2), wanted, strict=True):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
            if sum(wanted) > spare:
                width = max(least, spare * width // max(1, sum(wanted)))
            header.resizeSection(column, width)

    def _on_item(self, item: QTreeWidgetItem | None, *_: object) -> None:
        data = item.data(0, Qt.ItemDataRole.UserRole) if item is not None else None
        if not data:
            return
        line, box = data
        if box is not None:
            self.box_selected.emit(box)
        if line:
            self.line_selected.emit(int(line))


    def _show_box_of(self, item: QTreeWidgetItem | None, *_: object) -> None:
        data = item.data(0, Qt.ItemDataRole.UserRole) if item is not None else None
        if data and data[1] is not None:
            self.box_selected.emit(data[1])


def _evidence_line(report: Any) -> str:
    """What the check compared the conversion with, when it was not plain OCR: the
    PlantUML image A carries, or why A's pixels were read although it carries one."""
    note = str(getattr(report, "evidence_note", "") or "")
    if _embedded(report):
        return f"<br><i>{escape(note)}</i>"
    return f"<br><small>read from the pixels: {escape(note)}</small>" if note else ""


def _percent(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.0f}%"

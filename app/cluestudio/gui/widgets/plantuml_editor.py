"""A PlantUML text editor: syntax colours, a line-number gutter and the error line marked.

Errors come from two places (our parser, PlantUML's renderer), each with a 1-based line; the
editor shows both, so a reviewer sees *where* the text is wrong while typing. The editor also
says when typing has paused (``text_settled``), which drives the live preview.
"""

from __future__ import annotations

from cluestudio.gui.qt import (
    QColor,
    QFont,
    QFontDatabase,
    QPainter,
    QPlainTextEdit,
    QRect,
    QRegularExpression,
    QSize,
    QSyntaxHighlighter,
    Qt,
    QTextCharFormat,
    QTextEdit,
    QTextFormat,
    QTimer,
    QWidget,
    Signal,
)

KEYWORDS = (
    "class", "abstract", "interface", "enum", "package", "namespace", "note", "end",
    "skinparam", "hide", "show", "extends", "implements", "as", "of", "left", "right", "top",
    "bottom", "over", "title", "legend", "header", "footer", "together", "set",
)
# Keywords only where a statement starts: elsewhere (``- title : String`` in a class body,
# ``note left of X``'s ``of``) the same words are names.
STATEMENT_KEYWORDS = ("title", "legend", "header", "footer", "skinparam", "hide", "show",
                      "set", "together", "note", "end")

# Arrow bodies with optional heads/tails, lengths and direction words (-up->, ..|>, *--, o--).
ARROW = (r"(?:<\|?|\*|o|#|x|\+|\^)?(?:-+|\.+)(?:(?:up|down|left|right|u|d|l|r)(?:-+|\.+))?"
         r"(?:\|?>|\*|o|#|x|\+|\^)?")

_LIGHT = {"keyword": "#0033b3", "directive": "#871094", "arrow": "#c7254e",
          "string": "#067d17", "comment": "#8c8c8c", "stereotype": "#9e880d",
          "visibility": "#b35900", "type": "#00627a", "error_bg": "#ffd7d7",
          "highlight_bg": "#fff3b0", "doubt_bg": "#ffe4c2", "doubt_mark": "#e67e00",
          "gutter_bg": "#f3f3f3", "gutter_fg": "#999999", "error_mark": "#d32f2f"}
_DARK = {"keyword": "#cc7832", "directive": "#c77dbb", "arrow": "#ff6b68",
         "string": "#6a8759", "comment": "#7a7e85", "stereotype": "#bbb529",
         "visibility": "#e0a050", "type": "#56a8f5", "error_bg": "#5c2b2b",
         "highlight_bg": "#4d4420", "doubt_bg": "#4a3520", "doubt_mark": "#ffa53d",
         "gutter_bg": "#2b2d30", "gutter_fg": "#6f737a", "error_mark": "#ff5555"}


def _palette_for(widget: QWidget) -> dict[str, str]:
    dark = widget.palette().base().color().lightness() < 128
    return _DARK if dark else _LIGHT


def _format(color: str, bold: bool = False, italic: bool = False) -> QTextCharFormat:
    fmt = QTextCharFormat()
    fmt.setForeground(QColor(color))
    if bold:
        fmt.setFontWeight(QFont.Weight.Bold)
    fmt.setFontItalic(italic)
    return fmt


class PlantUMLHighlighter(QSyntaxHighlighter):
    """Colours keywords, arrows, strings, stereotypes and comments (incl. ``/' … '/`` blocks)."""

    _IN_BLOCK_COMMENT = 1  # block state bits
    _IN_CLASS_BODY = 2

    def __init__(self, document, colors: dict[str, str]) -> None:
        super().__init__(document)
        self.set_colors(colors)

    def set_colors(self, colors: dict[str, str]) -> None:
        words = "|".join(w for w in KEYWORDS if w not in STATEMENT_KEYWORDS)
        keyword = _format(colors["keyword"], bold=True)
        # Outside class bodies only (inside, members are names, whatever they are called).
        self._keyword_rules = [
            (QRegularExpression(rf"\b(?:{words})\b"), keyword),
            (QRegularExpression(rf"^\s*(?:{'|'.join(STATEMENT_KEYWORDS)})\b"), keyword),
        ]
        self._body_start = QRegularExpression(
            r"^\s*(?:abstract\s+)?(?:class|interface|enum|abstract)\b[^{]*\{\s*$")
        self._body_end = QRegularExpression(r"^\s*\}")
        self._rules = [
            (QRegularExpression(r"^\s*(?:@startuml|@enduml|!\w+)"),
             _format(colors["directive"], bold=True)),
            (QRegularExpression(r"(?<=[\s\w\"])" + ARROW + r"(?=[\s\w\"])"),
             _format(colors["arrow"], bold=True)),
            (QRegularExpression(r":\s*[\w<>\[\], .]+$"), _format(colors["type"])),
            (QRegularExpression(r"^\s*[-+#~](?=\s*\w)"), _format(colors["visibility"], True)),
            (QRegularExpression(r"<<[^>]*>>|\{(?:static|abstract|classifier)\}"),
             _format(colors["stereotype"], italic=True)),
            (QRegularExpression(r"\"[^\"]*\""), _format(colors["string"])),
        ]
        self._comment = _format(colors["comment"], italic=True)
        self._line_comment = QRegularExpression(r"^\s*'.*$")
        self.rehighlight()

    def highlightBlock(self, text: str) -> None:
        in_body = bool(max(0, self.previousBlockState()) & self._IN_CLASS_BODY)
        rules = self._rules if in_body else self._keyword_rules + self._rules
        if in_body and self._body_end.match(text).hasMatch():
            in_body = False
        elif not in_body and self._body_start.match(text).hasMatch():
            in_body = True
        for pattern, fmt in rules:
            matches = pattern.globalMatch(text)
            while matches.hasNext():
                match = matches.next()
                self.setFormat(match.capturedStart(), match.capturedLength(), fmt)
        line_comment = self._line_comment.match(text)
        if line_comment.hasMatch():
            self.setFormat(0, len(text), self._comment)
        self._block_comments(text, self._IN_CLASS_BODY if in_body else 0)

    def _block_comments(self, text: str, state: int) -> None:
        self.setCurrentBlockState(state)
        if max(0, self.previousBlockState()) & self._IN_BLOCK_COMMENT:
            start, search_from = 0, 0
        else:
            start = text.find("/'")
            search_from = start + 2
        while start >= 0:
            end = text.find("'/", search_from)
            if end < 0:
                self.setCurrentBlockState(state | self._IN_BLOCK_COMMENT)
                self.setFormat(start, len(text) - start, self._comment)
                return
            self.setFormat(start, end + 2 - start, self._comment)
            start = text.find("/'", end + 2)
            search_from = start + 2


class _Gutter(QWidget):
    """Line numbers, with a red dot on the error line and an orange ? on a doubtful one."""

    def __init__(self, editor: PlantUMLEditor) -> None:
        super().__init__(editor)
        self._editor = editor

    def sizeHint(self) -> QSize:
        return QSize(self._editor.gutter_width(), 0)

    def paintEvent(self, event) -> None:
        self._editor.paint_gutter(event)

    def mousePressEvent(self, event) -> None:
        # Clicking the gutter of the error line shows the message, as an IDE would.
        self._editor.show_error_tooltip(event.globalPosition().toPoint())

    def event(self, event) -> bool:
        from cluestudio.gui.qt import QEvent, QtWidgets

        if event.type() == QEvent.Type.ToolTip:  # a doubtful line says why
            reason = self._editor.doubt_at(event.pos().y())
            if reason:
                QtWidgets.QToolTip.showText(event.globalPos(), reason, self)
            else:
                QtWidgets.QToolTip.hideText()
            return True
        return super().event(event)


class PlantUMLEditor(QPlainTextEdit):
    """Edits PlantUML; ``text_settled`` fires once typing has paused for ``debounce_ms``."""

    text_settled = Signal(str)
    error_changed = Signal(object, str)  # line or None, message

    def __init__(self, parent: QWidget | None = None, debounce_ms: int = 150) -> None:
        super().__init__(parent)
        self.setObjectName("plantumlEditor")
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        font.setPointSize(max(font.pointSize(), 10))
        self.setFont(font)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.setTabStopDistance(4 * self.fontMetrics().horizontalAdvance(" "))
        self._colors = _palette_for(self)
        self.highlighter = PlantUMLHighlighter(self.document(), self._colors)
        # error source ("parser" / "renderer") -> (1-based line or None, message)
        self._errors: dict[str, tuple[int | None, str]] = {}
        self._highlighted: list[int] = []  # lines picked elsewhere (e.g. a matched class)
        self._doubts: dict[int, str] = {}  # 1-based line -> why the draft doubts it
        self._gutter = _Gutter(self)
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(debounce_ms)
        self._debounce.timeout.connect(lambda: self.text_settled.emit(self.toPlainText()))
        self.blockCountChanged.connect(self._update_margins)
        self.updateRequest.connect(self._on_update_request)
        self.textChanged.connect(self._debounce.start)
        self._update_margins()

    # --- public API ---------------------------------------------------------------------

    def set_text(self, text: str) -> None:
        """Replace the text without firing ``text_settled`` (a load, not an edit)."""
        self.blockSignals(True)
        try:
            self.setPlainText(text)
        finally:
            self.blockSignals(False)
        self._debounce.stop()
        self._errors.clear()
        self._highlighted = []
        self._refresh_error_marks()

    def set_error(self, source: str, line: int | None, message: str) -> None:
        """Mark ``line`` (1-based; None = whole text) as wrong according to ``source``."""
        self._errors[source] = (line, message)
        self._refresh_error_marks()

    def clear_error(self, source: str | None = None) -> None:
        if source is None:
            self._errors.clear()
        else:
            self._errors.pop(source, None)
        self._refresh_error_marks()

    def highlight_lines(self, lines: list[int]) -> None:
        """Mark ``lines`` (1-based) as the element picked elsewhere, and scroll to the first."""
        self._highlighted = [line for line in lines if line]
        self._refresh_error_marks()
        if self._highlighted:
            self.go_to_line(self._highlighted[0])

    def set_doubts(self, doubts: dict[int, str]) -> None:
        """Mark the lines a draft is not sure of (1-based line -> the reason, shown as the
        gutter's tooltip); an empty dict clears them."""
        if doubts != self._doubts:
            self._doubts = dict(doubts)
            self._refresh_error_marks()

    def doubt_lines(self) -> list[int]:
        return sorted(self._doubts)

    def doubt_at(self, y: int) -> str:
        """The doubt of the line at height ``y`` of the gutter ("" when none)."""
        block = self.firstVisibleBlock()
        while block.isValid():
            top = self.blockBoundingGeometry(block).translated(self.contentOffset()).top()
            if top <= y < top + self.blockBoundingRect(block).height():
                return self._doubts.get(block.blockNumber() + 1, "")
            block = block.next()
        return ""

    def highlighted_lines(self) -> list[int]:
        return list(self._highlighted)

    def error_lines(self) -> list[int]:
        return sorted({line for line, _ in self._errors.values() if line is not None})

    def error_message(self) -> str:
        return "\n".join(f"{src}: {msg}" for src, (_, msg) in sorted(self._errors.items()))

    def go_to_line(self, line: int) -> None:
        block = self.document().findBlockByNumber(max(0, line - 1))
        cursor = self.textCursor()
        cursor.setPosition(block.position())
        self.setTextCursor(cursor)
        self.centerCursor()

    def apply_theme(self) -> None:
        self._colors = _palette_for(self)
        self.highlighter.set_colors(self._colors)
        self._refresh_error_marks()

    # --- gutter -------------------------------------------------------------------------

    def gutter_width(self) -> int:
        digits = len(str(max(1, self.blockCount())))
        return 14 + self.fontMetrics().horizontalAdvance("9") * max(3, digits)

    def paint_gutter(self, event) -> None:
        painter = QPainter(self._gutter)
        painter.fillRect(event.rect(), QColor(self._colors["gutter_bg"]))
        bad = set(self.error_lines())
        doubtful = set(self._doubts)
        block = self.firstVisibleBlock()
        number = block.blockNumber() + 1
        top = round(self.blockBoundingGeometry(block).translated(self.contentOffset()).top())
        height = self.fontMetrics().height()
        width = self._gutter.width()
        while block.isValid() and top <= event.rect().bottom():
            bottom = top + round(self.blockBoundingRect(block).height())
            if block.isVisible() and bottom >= event.rect().top():
                if number in bad:
                    painter.setBrush(QColor(self._colors["error_mark"]))
                    painter.setPen(Qt.PenStyle.NoPen)
                    painter.drawEllipse(3, top + height // 2 - 3, 7, 7)
                elif number in doubtful:
                    painter.setPen(QColor(self._colors["doubt_mark"]))
                    painter.drawText(1, top, 10, height, Qt.AlignmentFlag.AlignLeft, "?")
                painter.setPen(QColor(self._colors["error_mark"] if number in bad
                                      else self._colors["gutter_fg"]))
                painter.drawText(0, top, width - 4, height, Qt.AlignmentFlag.AlignRight,
                                 str(number))
            block = block.next()
            top = bottom
            number += 1
        painter.end()

    def show_error_tooltip(self, global_pos) -> None:
        from cluestudio.gui.qt import QtWidgets

        if self._errors:
            QtWidgets.QToolTip.showText(global_pos, self.error_message(), self)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        rect = self.contentsRect()
        self._gutter.setGeometry(QRect(rect.left(), rect.top(), self.gutter_width(),
                                       rect.height()))

    def _update_margins(self, *_: object) -> None:
        self.setViewportMargins(self.gutter_width(), 0, 0, 0)

    def _on_update_request(self, rect, dy: int) -> None:
        if dy:
            self._gutter.scroll(0, dy)
        else:
            self._gutter.update(0, rect.y(), self._gutter.width(), rect.height())

    def _refresh_error_marks(self) -> None:
        selections = []
        marks = [(line, "doubt_bg") for line in self._doubts]
        marks += [(line, "highlight_bg") for line in self._highlighted]
        marks += [(line, "error_bg") for line in self.error_lines()]
        for line, color in marks:
            block = self.document().findBlockByNumber(line - 1)
            if not block.isValid():
                continue
            selection = QTextEdit.ExtraSelection()
            selection.format.setBackground(QColor(self._colors[color]))
            selection.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
            selection.cursor = self.textCursor()
            selection.cursor.setPosition(block.position())
            selection.cursor.clearSelection()
            selections.append(selection)
        self.setExtraSelections(selections)
        self.setToolTip(self.error_message())
        self._gutter.update()
        lines = self.error_lines()
        self.error_changed.emit(lines[0] if lines else None, self.error_message())

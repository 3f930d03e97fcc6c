"""The offline draft's doubts in review mode: the editor marks each element the draft was
not sure of (its ``' ?`` comment, read by :mod:`cluestudio.app.draft_doubts`), a note above
the editor counts them, and Review → Next doubtful element (F9) walks through them. The
marks follow the text: delete or edit a ``' ?`` line and its mark goes."""

from __future__ import annotations

from collections.abc import Mapping

from cluestudio.app.draft_doubts import TextDoubt, doubts_in, doubts_note, next_doubt
from cluestudio.gui.qt import QLabel, QObject, QVBoxLayout, QWidget
from cluestudio.gui.widgets.plantuml_editor import PlantUMLEditor

NEXT_DOUBT_KEY = "F9"  # menus.py's default for next_doubt; the window says the remapped one


class DraftDoubtMarks(QObject):
    """Keeps ``editor``'s doubt marks and :attr:`note` in step with its text; :attr:`pane`
    is the note above the editor."""

    def __init__(self, editor: PlantUMLEditor, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.editor = editor
        self.doubts: list[TextDoubt] = []
        self.key = NEXT_DOUBT_KEY
        self.note = QLabel()
        self.note.setObjectName("draftDoubts")
        self.note.setWordWrap(True)
        self.note.setStyleSheet("color: #b35900;")
        self.note.setToolTip("The offline draft marked these elements (' ? lines, orange in "
                             "the editor; the gutter's ? says why). Compare each with image A, "
                             "fix it, then delete its ' ? line: the mark goes.")
        self.note.hide()
        self.pane = QWidget()
        column = QVBoxLayout(self.pane)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.note)
        column.addWidget(editor, 1)
        # The document's signal, not the editor's: a load (set_text) blocks the editor's.
        editor.document().contentsChanged.connect(self.refresh)

    def refresh(self) -> None:
        self.doubts = doubts_in(self.editor.toPlainText())
        self.editor.set_doubts({d.line: d.tooltip() for d in self.doubts})
        key = self.key or "Review → Next doubtful element"  # a key the settings removed
        self.note.setText(doubts_note(len(self.doubts), key))
        self.note.setVisible(bool(self.doubts))

    def set_key(self, key: str) -> None:
        """The key of Review → Next doubtful element after the settings' ``[keys]``."""
        self.key = key
        self.refresh()

    def set_keys(self, shortcuts: Mapping[str, str]) -> None:
        """The window's keys after the settings' ``[keys]``: the next-doubt key, and the
        draft and convert keys the empty editor names (a new course has no PlantUML yet,
        and nothing else on screen says how to get one)."""
        def named(action: str, menu: str) -> str:
            return shortcuts.get(action) or f"Tools → {menu}"

        self.editor.setPlaceholderText(
            "No PlantUML yet: type it here, draft it offline from image A ("
            + named("draft_offline", "Draft image A offline") + "), or convert it with a "
            "VLM (" + named("convert", "Convert image A") + ").")
        self.set_key(shortcuts.get("next_doubt", ""))

    def go_to_next(self) -> TextDoubt | None:
        """Put the cursor on the next doubtful element below it (wrapping round)."""
        doubt = next_doubt(self.doubts, self.editor.textCursor().blockNumber() + 1)
        if doubt is not None:
            self.editor.go_to_line(doubt.line)
            self.editor.setFocus()
        return doubt

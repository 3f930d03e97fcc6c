"""Ctrl+Z means one thing where the focus is, and the Edit menu says which (issue 29).

A text field (the PlantUML editor, a comment, a filter) takes Ctrl+Z for its own typing
before the window's shortcut sees it: after a save a TA pressed Ctrl+Z in the editor and
got their typing undone while the menu offered "Undo Edit PlantUML of submission s02" on
the same key. While a text field has the focus, Edit → Undo/Redo now say and do what the
key does there (its typing), and the workspace's last change stays one click away, keyless,
below them ("Undo saved change: …"); elsewhere they are the workspace's, as before.
"""

from __future__ import annotations

from collections.abc import Callable

from cluestudio.app.session import Session
from cluestudio.gui.qt import (
    QAction,
    QApplication,
    QLineEdit,
    QMenu,
    QObject,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)
from cluestudio.gui.widgets.plantuml_editor import PlantUMLEditor

TextField = QPlainTextEdit | QTextEdit | QLineEdit


def focused_text_field(window: QWidget) -> TextField | None:
    """The editable text field of ``window`` that has the keyboard focus: it undoes its own
    typing on Ctrl+Z (a read-only one lets the key through to the window)."""
    widget = QApplication.focusWidget()
    if widget is None or not window.isAncestorOf(widget):
        return None
    if isinstance(widget, QPlainTextEdit | QTextEdit | QLineEdit) and not widget.isReadOnly():
        return widget
    return None


def _can_undo(field: TextField, redo: bool = False) -> bool:
    if isinstance(field, QLineEdit):
        return field.isRedoAvailable() if redo else field.isUndoAvailable()
    document = field.document()
    return document.isRedoAvailable() if redo else document.isUndoAvailable()


class FocusUndo(QObject):
    """The window's Undo and Redo actions, named and run for where the focus is:
    ``session``'s undo and redo (its labels, "Edit PlantUML of submission s02") run
    through ``guarded`` (which shows a refusal in the status line)."""

    def __init__(self, window: QWidget, undo_action: QAction, redo_action: QAction,
                 session: Session, guarded: Callable[[Callable[[], object]], None]) -> None:
        super().__init__(window)
        self.window = window
        self.undo_action, self.redo_action = undo_action, redo_action
        self.session = session
        self._saved = (lambda: guarded(session.undo), lambda: guarded(session.redo))
        self.undo_saved_action = QAction("Undo saved change", self)
        self.undo_saved_action.triggered.connect(lambda: self._saved[0]())
        self.redo_saved_action = QAction("Redo saved change", self)
        self.redo_saved_action.triggered.connect(lambda: self._saved[1]())
        # Ours, not the menu's: the window's teardown moves the focus while it deletes
        # its menus, and an update then must not reach a deleted separator.
        self.separator = QAction(self)
        self.separator.setSeparator(True)
        menu = next((m for m in undo_action.associatedObjects() if isinstance(m, QMenu)), None)
        if menu is not None:
            menu.addActions([self.separator, self.undo_saved_action, self.redo_saved_action])
            menu.aboutToShow.connect(self.update)
        self._app = QApplication.instance()
        if isinstance(self._app, QApplication):
            self._app.focusChanged.connect(self._on_focus_changed)
            undo_action.destroyed.connect(self._detach)  # the window's actions go first
        self.update()

    def _on_focus_changed(self, _old: QWidget | None, _new: QWidget | None) -> None:
        self.update()

    def _detach(self) -> None:
        if isinstance(self._app, QApplication):
            self._app.focusChanged.disconnect(self._on_focus_changed)
            self._app = None

    def field(self) -> TextField | None:
        return focused_text_field(self.window)

    def update(self) -> None:
        """Name the actions for the focus now (and the workspace's labels now)."""
        undo, redo = self.session.undo_label(), self.session.redo_label()
        field = self.field()
        for action, verb, label in ((self.undo_action, "Undo", undo),
                                    (self.redo_action, "Redo", redo)):
            action.setText(f"&{verb} {label}" if label and field is None
                           else f"&{verb} typing {self._where(field)}" if field is not None
                           else f"&{verb}")
        for action, verb, label in ((self.undo_saved_action, "Undo", undo),
                                    (self.redo_saved_action, "Redo", redo)):
            action.setText(f"{verb} saved change: {label}" if label else
                           f"{verb} saved change")
            action.setEnabled(bool(label))
            action.setVisible(field is not None)
        self.separator.setVisible(field is not None)

    @staticmethod
    def _where(field: TextField) -> str:
        return "in the PlantUML editor" if isinstance(field, PlantUMLEditor) else "in this field"

    def undo(self) -> None:
        """Edit → Undo: the focused field's typing, else the workspace's last change."""
        self._run(redo=False)

    def redo(self) -> None:
        self._run(redo=True)

    def _run(self, redo: bool) -> None:
        field = self.field()
        if field is None:
            self._saved[redo]()
        elif _can_undo(field, redo):
            field.redo() if redo else field.undo()
        self.update()

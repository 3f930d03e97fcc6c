"""Help → Keyboard shortcuts: every key of the workbench, as the menus and panels define it."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape

from cluestudio.core.settings import settings_path
from cluestudio.gui.menus import keyboard_reference
from cluestudio.gui.qt import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout, QWidget


def shortcuts_html(keymap: Mapping[str, object] | None = None) -> str:
    parts = ["<p>Any menu key can be changed in the settings file's <code>[keys]</code> "
             "table by the action's name, e.g. <code>save_revision = \"Ctrl+Shift+S\"</code> "
             f"(file: <code>{escape(str(settings_path()))}</code>; takes effect on the next "
             "start).</p>"]
    for title, rows in keyboard_reference(keymap):
        parts.append(f"<h3>{escape(title)}</h3><table cellspacing='0' cellpadding='3'>")
        parts += [f"<tr><td><b>{escape(key)}</b></td><td>{escape(what)}</td>"
                  f"<td><small><code>{escape(name)}</code></small></td></tr>"
                  for key, what, name in rows]
        parts.append("</table>")
    return "".join(parts)


class ShortcutsDialog(QDialog):
    def __init__(self, keymap: Mapping[str, object] | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keyboard shortcuts")
        self.text = QTextBrowser()
        self.text.setHtml(shortcuts_html(keymap))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text, 1)
        layout.addWidget(buttons)
        self.resize(620, 560)

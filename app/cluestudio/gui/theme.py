"""Light and dark themes: a palette for Qt's own widgets plus ``resources/styles/<theme>.qss``."""

from __future__ import annotations

from cluestudio.gui.qt import QApplication, QColor, QPalette
from cluestudio.resources_path import resources_dir


def _dark_palette() -> QPalette:
    palette = QPalette()
    roles = {
        QPalette.ColorRole.Window: "#1f2124", QPalette.ColorRole.WindowText: "#dddddd",
        QPalette.ColorRole.Base: "#2b2d30", QPalette.ColorRole.AlternateBase: "#313337",
        QPalette.ColorRole.Text: "#dddddd", QPalette.ColorRole.Button: "#33363a",
        QPalette.ColorRole.ButtonText: "#dddddd", QPalette.ColorRole.Highlight: "#2f6fb0",
        QPalette.ColorRole.HighlightedText: "#ffffff", QPalette.ColorRole.ToolTipBase: "#2b2d30",
        QPalette.ColorRole.ToolTipText: "#dddddd", QPalette.ColorRole.PlaceholderText: "#8a8a8a",
    }
    for role, color in roles.items():
        palette.setColor(role, QColor(color))
    return palette


def apply_theme(app: QApplication, theme: str) -> None:
    """Switch the whole application to ``theme`` ("light" or "dark")."""
    app.setPalette(_dark_palette() if theme == "dark" else app.style().standardPalette())
    path = resources_dir() / "styles" / f"{'dark' if theme == 'dark' else 'light'}.qss"
    app.setStyleSheet(path.read_text(encoding="utf-8") if path.exists() else "")

"""The workbench's menu bar: every action, its shortcut, and the command it runs, as data.

:data:`MENUS` is the single list of actions: the menu bar is built from it, and so is the
keyboard reference (Help → Keyboard shortcuts). Each entry names a method of
:class:`~cluestudio.gui.commands.WindowCommands`; this module never touches the window's
widgets.
"""

from __future__ import annotations

from dataclasses import dataclass

from cluestudio.gui.qt import QAction, QKeySequence, QMenuBar, QObject


@dataclass(frozen=True)
class Entry:
    text: str  # with & for the mnemonic
    command: str  # a WindowCommands method
    shortcut: str = ""
    checkable: bool = False


SEPARATOR = Entry("", "")

MENUS: tuple[tuple[str, tuple[Entry, ...]], ...] = (
    ("&File", (
        Entry("&New workspace…", "new_workspace", "Ctrl+N"),
        Entry("&Open workspace…", "open_workspace", "Ctrl+O"),
        SEPARATOR,
        Entry("&Import course folder…", "import_course_folder", "Ctrl+I"),
        Entry("Import &JSONL file…", "import_jsonl"),
        Entry("&Merge graders' packs…", "merge_packs"),
        SEPARATOR,
        Entry("&Export tables (CSV, JSON)…", "export_tables", "Ctrl+E"),
        Entry("Export &pack…", "export_pack"),
        SEPARATOR,
        Entry("&Settings…", "settings", "Ctrl+,"),
        Entry("&Quit", "quit", "Ctrl+Q"),
    )),
    ("&Edit", (
        Entry("&Undo", "undo", "Ctrl+Z"),
        Entry("&Redo", "redo", "Ctrl+Shift+Z"),
    )),
    ("&Go", (
        Entry("&Next submission", "next_submission", "Ctrl+PgDown"),
        Entry("&Previous submission", "previous_submission", "Ctrl+PgUp"),
        Entry("Next &unrated", "next_unrated", "Ctrl+Shift+PgDown"),
        Entry("&Review mode", "review_mode", "F2"),
        Entry("&Grading mode", "grading_mode", "F3"),
        Entry("Focus rubric / verdict", "focus_panel", "F4"),
        Entry("Focus PlantUML editor", "focus_editor", "F6"),
    )),
    ("&Review", (
        Entry("&Save revision", "save_revision", "Ctrl+S"),
        Entry("Verdict: Accept", "verdict_accept", "Ctrl+1"),
        Entry("Verdict: Needs fix", "verdict_needs_fix", "Ctrl+2"),
        Entry("Verdict: Unusable", "verdict_unusable", "Ctrl+3"),
        Entry("&Compare A/B", "compare", "Ctrl+K"),
    )),
    ("&View", (
        Entry("&Fit images", "fit_images", "Ctrl+0"),
        Entry("&Actual size", "actual_size", "Ctrl+Shift+0"),
        Entry("Zoom &in", "zoom_in", "Ctrl+="),
        Entry("Zoom &out", "zoom_out", "Ctrl+-"),
        Entry("&Blind grading", "blind_grading", checkable=True),
        Entry("&Dark theme", "dark_theme", checkable=True),
        Entry("&Errors", "show_errors"),
        Entry("A&nalysis (disagreements, figures)", "show_analysis", "Ctrl+Shift+A"),
    )),
    ("&Jobs", (
        Entry("&Score this submission", "score_current", "Ctrl+R"),
        Entry("Score &all listed", "score_listed", "Ctrl+Shift+R"),
        Entry("&Cancel running job", "cancel_job", "Ctrl+."),
    )),
    ("&Tools", (
        Entry("&Convert image A to PlantUML (VLM)", "convert", "F7"),
        Entry("&Probe image A against the PlantUML (VLM)", "probe", "F8"),
    )),
    ("&Help", (
        Entry("Open &log folder", "open_log_folder"),
        Entry("Open &workspace folder", "open_workspace_folder"),
    )),
)


def build_menus(bar: QMenuBar, commands: QObject) -> dict[str, QAction]:
    """Fill ``bar`` from :data:`MENUS`; the actions by command name (for checked states and
    undo/redo labels)."""
    actions: dict[str, QAction] = {}
    for title, entries in MENUS:
        menu = bar.addMenu(title)
        for entry in entries:
            if entry is SEPARATOR:
                menu.addSeparator()
                continue
            action = QAction(entry.text, commands)
            if entry.shortcut:
                action.setShortcut(QKeySequence(entry.shortcut))
            action.setCheckable(entry.checkable)
            run = getattr(commands, entry.command)
            action.triggered.connect(lambda _checked=False, run=run: run())
            menu.addAction(action)
            actions[entry.command] = action
    return actions

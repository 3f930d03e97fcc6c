"""The workbench's menu bar: every action, its shortcut, and the command it runs, as data.

:data:`MENUS` is the single list of actions: the menu bar is built from it, and so are the
keyboard reference (Help → Keyboard shortcuts) and the README's keyboard section (a test
compares them). Each entry names a method of :class:`~cluestudio.gui.commands.WindowCommands`;
this module never touches the window's widgets. A ``[keys]`` table in the settings file
remaps any action by its command name, e.g. ``save_revision = "Ctrl+Shift+S"``.
"""

from __future__ import annotations

from collections.abc import Mapping
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
        Entry("Open &recent workspace…", "open_recent"),
        SEPARATOR,
        Entry("&Import course folder…", "import_course_folder", "Ctrl+I"),
        Entry("Import &JSONL file…", "import_jsonl"),
        Entry("&Merge graders' packs…", "merge_packs"),
        Entry("Import &roster (students)…", "import_roster"),
        SEPARATOR,
        Entry("&Export tables (CSV, JSON)…", "export_tables", "Ctrl+E"),
        Entry("Export &pack…", "export_pack"),
        Entry("Export &feedback (a page per student)…", "export_feedback"),
        Entry("Export &gradebook (Moodle, Canvas, …)…", "export_gradebook"),
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
        Entry("Focus grading comment", "focus_comment", "F5"),
        Entry("Focus PlantUML editor", "focus_editor", "F6"),
    )),
    ("&Review", (
        Entry("&Save revision", "save_revision", "Ctrl+S"),
        Entry("Verdict: Accept", "verdict_accept", "Ctrl+1"),
        Entry("Verdict: Needs fix", "verdict_needs_fix", "Ctrl+2"),
        Entry("Verdict: Unusable", "verdict_unusable", "Ctrl+3"),
        Entry("&Compare A/B", "compare", "Ctrl+K"),
        Entry("Next &doubtful element of the draft", "next_doubt", "F9"),
    )),
    ("G&rade", (
        Entry("&Find groups of submissions with the same diagram (this task)", "find_groups",
              "Ctrl+G"),
        Entry("&Apply my rating to the group…", "apply_group_rating", "Ctrl+Shift+G"),
        Entry("&Comments and feedback…", "comments", "Ctrl+M"),
        Entry("A&djudication queue…", "adjudication"),
    )),
    ("&View", (
        Entry("&Fit images (whole diagram)", "fit_images", "Ctrl+0"),
        Entry("&Readable zoom", "readable_zoom", "Ctrl+9"),
        Entry("&Actual size", "actual_size", "Ctrl+Shift+0"),
        Entry("Zoom &in", "zoom_in", "Ctrl+="),
        Entry("Zoom &out", "zoom_out", "Ctrl+-"),
        Entry("Element &diff on image B (colours by CLUE match)", "element_diff", "Ctrl+D",
              checkable=True),
        Entry("&Blind grading", "blind_grading", checkable=True),
        Entry("&Dark theme", "dark_theme", checkable=True),
        Entry("&Errors", "show_errors"),
        Entry("A&nalysis (disagreements, figures)", "show_analysis", "Ctrl+Shift+A"),
    )),
    ("&Jobs", (
        Entry("&Score this submission", "score_current", "Ctrl+R"),
        Entry("Score &all listed", "score_listed", "Ctrl+Shift+R"),
        Entry("C&heck this conversion against image A (OCR)", "check_current", "Ctrl+J"),
        Entry("Check all &listed conversions", "check_listed", "Ctrl+Shift+J"),
        Entry("&Cancel running job", "cancel_job", "Ctrl+."),
    )),
    ("&Tools", (
        Entry("&Convert image A to PlantUML (VLM)", "convert", "F7"),
        Entry("&Probe image A against the PlantUML (VLM)", "probe", "F8"),
        Entry("&Draft image A offline (OCR, no model)", "draft_offline", "Shift+F7"),
    )),
    ("&Help", (
        Entry("&Keyboard shortcuts", "keyboard_shortcuts", "F1"),
        SEPARATOR,
        Entry("Open &log folder", "open_log_folder"),
        Entry("Open &workspace folder", "open_workspace_folder"),
    )),
)


# Keys of the panels (not menu actions: they act on the focused panel and are not remapped).
PANEL_KEYS: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    ("Rubric panel (grading; F4 focuses it)", (
        ("letter", "select the rubric item with that key"),
        ("digit", "score the selected item and move to the next one"),
        (". (full stop)", "half a point more, where the item's scale allows halves"),
        ("+ / -", "one step up / down"),
        ("Up / Down", "previous / next item"),
        ("Backspace", "clear the selected item"),
        ("*", "every item full marks (then adjust what lost points)"),
        ("Return", "save and go to the next submission you have not rated"),
        ("Ctrl+Return", "save and stay"),
    )),
    ("Verdict panel (review; F4 focuses it)", (
        ("1 / 2 / 3", "accept / needs fix / unusable"),
        ("a, b, c, …", "toggle the issue tag with that letter (the tags of the task's "
                       "diagram kind)"),
    )),
    ("Comments and feedback (grading; Ctrl+M opens it)", (
        ("Alt+I, Up / Down", "the rubric item to comment on"),
        ("Alt+N, text, Return", "add a comment on that item"),
        ("Ctrl+B (in the text)", "file the text in the item's comment bank instead"),
        ("Alt+B, then 1–9 or Return", "insert a bank comment (F2 edits it for every use)"),
        ("Delete (in the comments)", "take a comment back"),
        ("Alt+S, then Return", "suggestions from the element diff; Return accepts one"),
        ("Alt+O, text, Ctrl+Return", "the overall comment"),
    )),
    ("Diagram panes", (
        ("mouse wheel", "zoom around the pointer (every pane follows)"),
        ("drag", "pan"),
    )),
)


def _plain(text: str) -> str:
    return text.replace("&", "")


def effective_shortcuts(keymap: Mapping[str, object] | None = None
                        ) -> tuple[dict[str, str], list[str]]:
    """Each action's shortcut after the settings file's ``[keys]`` overrides, and a problem
    for each override that was not taken (unknown action, not a key, a key two actions
    would share: Qt would then run neither). An empty string removes an action's key."""
    defaults = {e.command: e.shortcut for _, entries in MENUS for e in entries if e.command}
    shortcuts = dict(defaults)
    problems: list[str] = []
    overridden: set[str] = set()
    for command, wanted in (keymap or {}).items():
        if command not in defaults:
            problems.append(f"[keys] {command}: no such action (see Help → Keyboard "
                            f"shortcuts for the names)")
        elif not isinstance(wanted, str):
            problems.append(f"[keys] {command} = {wanted!r}: expected a key such as "
                            f"\"Ctrl+Shift+S\"")
        else:
            portable = QKeySequence(wanted).toString(QKeySequence.SequenceFormat.PortableText)
            if wanted.strip() and not portable:  # Qt reads an unknown key as an empty one
                problems.append(f"[keys] {command} = {wanted!r}: not a key Qt understands; "
                                f"keeping {defaults[command] or 'no key'}")
            elif portable and _types_text(portable):
                problems.append(f"[keys] {command} = {wanted!r}: a key that types text "
                                f"belongs to the rubric, verdict and editor; add Ctrl or Alt "
                                f"(keeping {defaults[command] or 'no key'})")
            else:
                shortcuts[command] = portable
                overridden.add(command)
    while True:  # undo overrides that make two actions share a key, until none do
        users: dict[str, list[str]] = {}
        for command, key in shortcuts.items():
            if key:
                users.setdefault(_normal(key), []).append(command)
        clashes = [group for group in users.values() if len(group) > 1
                   and any(c in overridden for c in group)]
        if not clashes:
            return shortcuts, problems
        for group in clashes:
            for command in (c for c in group if c in overridden):
                others = ", ".join(c for c in group if c != command)
                problems.append(f"[keys] {command} = {shortcuts[command]!r}: already the key "
                                f"of {others}; keeping {defaults[command] or 'no key'}")
                shortcuts[command] = defaults[command]
                overridden.discard(command)


def _types_text(key: str) -> bool:
    """Whether ``key`` (one chord) is a printable key without Ctrl, Alt or Meta."""
    from cluestudio.gui.qt import Qt

    # PySide6's stubs omit QKeySequence.__getitem__ (C++ operator[]), which it does bind.
    chord = QKeySequence(key)[0]  # type: ignore[index]
    held = chord.keyboardModifiers() & (Qt.KeyboardModifier.ControlModifier
                                        | Qt.KeyboardModifier.AltModifier
                                        | Qt.KeyboardModifier.MetaModifier)
    return not held and chord.key().value < Qt.Key.Key_Escape.value


def _normal(key: str) -> str:
    return QKeySequence(key).toString(QKeySequence.SequenceFormat.PortableText)


def build_menus(bar: QMenuBar, commands: QObject, keymap: Mapping[str, object] | None = None
                ) -> tuple[dict[str, QAction], list[str]]:
    """Fill ``bar`` from :data:`MENUS` with the shortcuts of :func:`effective_shortcuts`;
    the actions by command name (for checked states and undo/redo labels), and the keymap's
    problems."""
    shortcuts, problems = effective_shortcuts(keymap)
    actions: dict[str, QAction] = {}
    for title, entries in MENUS:
        menu = bar.addMenu(title)
        for entry in entries:
            if entry is SEPARATOR:
                menu.addSeparator()
                continue
            action = QAction(entry.text, commands)
            if shortcuts[entry.command]:
                action.setShortcut(QKeySequence(shortcuts[entry.command]))
            action.setCheckable(entry.checkable)
            run = getattr(commands, entry.command)
            action.triggered.connect(lambda _checked=False, run=run: run())
            menu.addAction(action)
            actions[entry.command] = action
    return actions, problems


def keyboard_reference(keymap: Mapping[str, object] | None = None
                       ) -> list[tuple[str, list[tuple[str, str, str]]]]:
    """Every key of the workbench: per menu (key, action, command name to remap it), then
    the panels' keys (command name empty)."""
    shortcuts, _ = effective_shortcuts(keymap)
    out: list[tuple[str, list[tuple[str, str, str]]]] = []
    for title, entries in MENUS:
        rows = [(shortcuts[e.command], _plain(e.text).rstrip("…"), e.command)
                for e in entries if e.command and shortcuts[e.command]]
        if rows:
            out.append((f"{_plain(title)} menu", rows))
    for title, keys in PANEL_KEYS:
        out.append((title, [(key, what, "") for key, what in keys]))
    return out


def keyboard_markdown(keymap: Mapping[str, object] | None = None) -> str:
    """The keyboard reference as the README's Markdown tables."""
    parts: list[str] = []
    for title, rows in keyboard_reference(keymap):
        parts.append(f"**{title}**\n\n| Key | Does | `[keys]` name |\n|---|---|---|")
        parts += [f"| `{key}` | {what} | {f'`{name}`' if name else ''} |"
                  for key, what, name in rows]
        parts.append("")
    return "\n".join(parts).rstrip() + "\n"

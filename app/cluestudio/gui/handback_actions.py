"""Hand-back from the window (issue 27): File → Export feedback and Export gradebook, and the
Grade menu's comments and adjudication dialogs. Exports run on the batch lane like the other
File exports; a missing roster or a bad path lands in the error panel."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cluestudio.gui.qt import QInputDialog, QObject
from cluestudio.gui.worker import JobHandle

if TYPE_CHECKING:
    from cluestudio.core.workspace import Workspace
    from cluestudio.gui.window_parts import WindowParts


class HandbackActions(QObject):
    def __init__(self, window: WindowParts) -> None:
        super().__init__(window)
        self.window = window

    def _submit(self, work: Callable[[Any], object], label: str) -> JobHandle | None:
        """On the batch lane, as the other File exports (their plumbing, not a copy)."""
        return self.window.files.submit(lambda ws, _cancel: work(ws), label)

    def import_roster(self, path: Path | None = None) -> bool:
        """Store a roster CSV (quick: on the UI thread); a bad row lands in the error panel
        with its file and line, and the roster before stays."""
        from cluestudio.core.roster import read_roster
        from cluestudio.core.workspace import ImportFailed, Report
        from cluestudio.core.workspace.students import owners, replace_roster

        ws = self.window.bench.ws
        if ws is None:
            self.window.statusBar().showMessage("Open or create a workspace first", 8000)
            return False
        if path is None:
            path = self.window.files.ask_open_file("Import roster", "Roster (*.csv)")
        if path is None:
            return False
        report = Report()
        students = read_roster(path, report)
        if report.errors:
            self.window.report_error("import roster", str(ImportFailed(report)))
            return False
        replace_roster(ws, students)
        nobody = sum(o.student_id is None for o in owners(ws, students))
        self.window.statusBar().showMessage(
            f"{len(students)} students; {nobody} submissions belong to nobody on the roster",
            10000)
        return True

    def export_feedback(self, folder: Path | None = None) -> JobHandle | None:
        from cluestudio.app.handback import export_feedback
        from cluestudio.core.jobs import run_job

        if folder is None:
            folder = self.window.files.ask_folder("Export feedback to folder")
        if folder is None:
            return None
        out = folder
        return self._submit(lambda ws: run_job(export_feedback(ws, out)), "export feedback")

    def export_gradebook(self, path: Path | None = None, fmt: str | None = None
                         ) -> JobHandle | None:
        from cluestudio.core.errors import ClueStudioError
        from cluestudio.core.gradebook import FORMATS, write_gradebook
        from cluestudio.core.workspace.gradebook_data import gradebook

        if fmt is None:
            fmt, ok = QInputDialog.getItem(self.window, "Export gradebook", "Format", FORMATS,
                                           0, False)
            if not ok:
                return None
        if path is None:
            path = self.window.files.ask_save_file("Export gradebook", "CSV (*.csv)")
        if path is None:
            return None
        out, chosen_format = path, fmt

        def write(ws: Workspace) -> Path:
            book = gradebook(ws)
            if not book.students:
                raise ClueStudioError("no roster: cluestudio roster WORKSPACE roster.csv")
            return write_gradebook(book, chosen_format, out)

        return self._submit(write, f"export gradebook ({fmt})")

    def comments(self) -> None:
        from cluestudio.core.rubric import rubric_for_kind
        from cluestudio.gui.comments_dialog import CommentsDialog

        view = self.window.grading.view
        if view is None or not self.window.bench.session.belongs(view):
            self.window.statusBar().showMessage("Open a submission in grading mode first", 8000)
            return
        title = f"{view.task.id} · {view.submission.source_id}"
        if not self.window.bench.settings.ui.blind_grading:  # blind: no names on screen
            from cluestudio.core.workspace.students import identity, owners, roster

            ws = self.window.bench.session.require()
            students = {s.student_id: s for s in roster(ws)}
            owner = next((o for o in owners(ws, students.values())
                          if o.submission_id == view.submission.id), None)
            who = identity(students.get(owner.student_id or "") if owner else None,
                           blind=False)
            title += f" · {who}" if who else ""
        CommentsDialog(self.window.bench.session, self.window, view.submission.id,
                       rubric_for_kind(view.task.diagram_kind), title).exec()

    def adjudication(self) -> None:
        from cluestudio.gui.adjudication_dialog import AdjudicationDialog

        if self.window.bench.ws is None:
            self.window.statusBar().showMessage("Open or create a workspace first", 8000)
            return
        AdjudicationDialog(self.window.bench.session, self.window).exec()

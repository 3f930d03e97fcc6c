"""File-menu work on whole workspaces: new, open, import, merge packs, export.

Each action takes an optional path so that tests (and scripts) can run it without the file
dialog; with none it asks. An import is read and checked in the worker process and written
here in one transaction; merges and exports run on the batch lane. The submission list
refreshes when an import or merge ends, and a failure lands in the error panel with the file
and line, the open workspace untouched (imports are all or nothing).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from cluestudio.core.errors import ClueStudioError
from cluestudio.gui.qt import QFileDialog, QObject
from cluestudio.gui.recent import RecentWorkspaces
from cluestudio.gui.window_layout import qsettings
from cluestudio.gui.worker import BATCH, JobHandle

if TYPE_CHECKING:
    from cluestudio.core.workspace.importer import ImportPlan
    from cluestudio.gui.window_parts import WindowParts

WORKSPACE_FILTER = "Workspace (*.sqlite)"
_LAST_FOLDER = "dialogs/last_folder"


def _remember_folder(folder: Path) -> None:
    stored = qsettings()
    stored.setValue(_LAST_FOLDER, str(folder))
    stored.sync()


class WorkspaceActions(QObject):
    def __init__(self, window: WindowParts) -> None:
        super().__init__(window)
        self.window = window
        self.recent = RecentWorkspaces(self.open_workspace, window)

    # --- whole workspaces (quick: on the UI thread) -------------------------------------

    def new_workspace(self, path: Path | None = None) -> None:
        if path is None:
            chosen, _ = QFileDialog.getSaveFileName(self.window, "New workspace",
                                                    self.start_dir(), WORKSPACE_FILTER)
            if not chosen:
                return
            path = Path(chosen)
        if path.suffix == "":
            path = path.with_suffix(".sqlite")
        self._open(path, create=True)

    def open_workspace(self, path: Path | None = None) -> None:
        if path is None:
            path = self.ask_workspace_path()
            if path is None:
                return
        self._open(path, create=False)

    def ask_workspace_path(self) -> Path | None:
        return self.ask_open_file("Open workspace", WORKSPACE_FILTER)

    def _open(self, path: Path, *, create: bool) -> None:
        from cluestudio.app.input_files import refuse_special_files
        from cluestudio.app.workspaces import open_existing_workspace
        from cluestudio.core.workspace import WorkspaceInUse, open_workspace
        from cluestudio.gui.single_instance import resolve_in_use

        here = self.window.bench.ws
        if here is not None and path.resolve() == here.path.resolve():
            self.window.statusBar().showMessage(f"{path.name} is the workspace open here", 6000)
            return
        try:
            refuse_special_files([path])  # New… on a pipe would hang the window too
            ws = open_workspace(path, create=True) if create else open_existing_workspace(path)
        except WorkspaceInUse as error:  # open in another window: show it, or read-only
            chosen = resolve_in_use(error, pick_other=self.ask_workspace_path,
                                    parent=self.window)
            if chosen is None:
                return
            ws = chosen
        except ClueStudioError as error:  # the workspace on screen stays open
            self.window.report_error("open workspace", str(error))
            return
        self.window.open(ws)

    # --- work on the open workspace (slow: on the batch lane) ---------------------------

    def import_course_folder(self, folder: Path | None = None) -> None:
        if folder is None:
            folder = self.ask_folder("Import course folder")
        if folder is not None:
            self._import(folder)

    def import_jsonl(self, path: Path | None = None) -> None:
        if path is None:
            path = self.ask_open_file("Import JSONL", "JSONL (*.jsonl *.ndjson)")
        if path is not None:
            self._import(path)

    def _import(self, path: Path) -> JobHandle | None:
        from cluestudio.app.imports import plan_import_job
        from cluestudio.app.input_files import refuse_special_files
        from cluestudio.core.workspace.importer import apply_plan

        ws = self.window.bench.ws
        if ws is None:
            self.window.statusBar().showMessage("Open or create a workspace first", 8000)
            return None
        try:  # a pipe would keep the import job waiting for ever
            refuse_special_files([path])
        except ClueStudioError as error:
            self.window.report_error(f"import {path.name}", str(error))
            return None

        def apply(tag: str, plan: object) -> None:  # on the reader thread: one transaction
            # plan_import_job emits ("plan", plan) only; ImportFailed names every file.
            apply_plan(ws, cast("ImportPlan", plan))

        job = self.window.bench.processes.submit(plan_import_job,
                                                 (str(path),), label=f"import {path.name}",
                                                 on_data=apply)
        job.finished.connect(self.window.refresh_rows)
        self.window.job_status.track(job)
        return job

    def merge_packs(self, paths: list[Path] | None = None) -> None:
        from cluestudio.core.workspace.pack import merge_packs

        if paths is None:
            chosen, _ = QFileDialog.getOpenFileNames(self.window, "Merge graders' packs",
                                                     self.start_dir(), "Pack (*.zip)")
            paths = [Path(p) for p in chosen]
            self.used(chosen[0] if chosen else "")
        if paths:
            chosen_paths = list(paths)
            handle = self.submit(lambda ws, cancel: merge_packs(ws, chosen_paths),
                                  f"merge {len(chosen_paths)} pack(s)", refresh=True)
            if handle is not None:
                handle.result.connect(self._merged)

    def _merged(self, report: Any) -> None:
        """Say whose work a merge added: a pack says who rated (issue 25)."""
        added = report.to_dict().get("added_by", {})
        who = "; ".join(f"{kind} added by " + ", ".join(f"{name} {n}" for name, n in
                                                        names.items())
                        for kind, names in added.items())
        self.window.statusBar().showMessage(f"Merged: {who or 'nothing new'}", 30000)

    def export_tables(self, folder: Path | None = None) -> None:
        from cluestudio.core.workspace.export import export_tables

        if folder is None:
            folder = self.ask_folder("Export tables to folder")
        if folder is not None:
            out = folder
            self.submit(lambda ws, cancel: export_tables(ws, out), "export tables")

    def export_pack(self, path: Path | None = None) -> None:
        from cluestudio.core.workspace.pack import export_pack

        if path is None:
            path = self.ask_save_file("Export pack", "Pack (*.zip)")
        if path is not None:
            out = path
            self.submit(lambda ws, cancel: export_pack(ws, out), f"export {out.name}")

    # --- plumbing -----------------------------------------------------------------------

    def ask_folder(self, title: str) -> Path | None:
        chosen = QFileDialog.getExistingDirectory(self.window, title, self.start_dir())
        if chosen:
            _remember_folder(Path(chosen))
        return Path(chosen) if chosen else None

    def ask_open_file(self, title: str, file_filter: str) -> Path | None:
        """A file to read, from a dialog opened where the last one was (None: cancelled)."""
        chosen, _ = QFileDialog.getOpenFileName(self.window, title, self.start_dir(),
                                                file_filter)
        return self.used(chosen)

    def ask_save_file(self, title: str, file_filter: str) -> Path | None:
        """A file to write, from a dialog opened where the last one was (None: cancelled)."""
        chosen, _ = QFileDialog.getSaveFileName(self.window, title, self.start_dir(),
                                                file_filter)
        return self.used(chosen)

    def start_dir(self) -> str:
        """Where a file dialog opens: the folder used last, else the open workspace's, else
        home (never the process's working directory, which a launcher sets to anything)."""
        last = str(qsettings().value(_LAST_FOLDER, "") or "")
        if last and Path(last).is_dir():
            return last
        ws = self.window.bench.ws
        return str(ws.path.parent if ws is not None else Path.home())

    @staticmethod
    def used(chosen: str) -> Path | None:
        """The chosen file (None: cancelled); its folder is where the next dialog opens."""
        if not chosen:
            return None
        _remember_folder(Path(chosen).parent)
        return Path(chosen)

    def submit(self, work: Callable[[Any, Any], object], label: str, *,
                refresh: bool = False) -> JobHandle | None:
        ws = self.window.bench.ws
        if ws is None:
            self.window.statusBar().showMessage("Open or create a workspace first", 8000)
            return None
        handle = self.window.runner.submit(lambda cancel: work(ws, cancel), label, lane=BATCH)
        self.window.job_status.track(handle)
        if refresh:
            handle.finished.connect(self.window.refresh_rows)
        return handle

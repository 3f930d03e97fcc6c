"""Importing a course folder or JSONL file (:func:`plan_import`, :func:`import_path`), and
the bundled sample course and the user's copy of it as a ready workspace, imported so."""

from __future__ import annotations

import os
from pathlib import Path

from cluestudio.core.errors import ClueStudioError
from cluestudio.core.jobs import CancelToken, Job, run_job
from cluestudio.core.rubric import annotations_dir
from cluestudio.core.workspace.importer import ImportPlan, apply_plan, plan_course_folder
from cluestudio.core.workspace.report import Report
from cluestudio.core.workspace.store import Workspace, open_workspace

SAMPLE_WORKSPACE_NAME = "sample-course.sqlite"


def sample_course_path() -> Path:
    """``annotations/sample``: the sample course in the course-folder layout."""
    return annotations_dir() / "sample"


def data_dir() -> Path:
    """Where ClueStudio keeps workspaces it makes itself (``CLUESTUDIO_DATA_DIR`` overrides)."""
    override = os.environ.get("CLUESTUDIO_DATA_DIR")
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_data_dir("ClueStudio", appauthor=False))


def plan_import(path: Path, cancel: CancelToken | None = None, *, allow_outside: bool = False,
                packs: str = "`cluestudio pack merge`") -> Job[ImportPlan]:
    """Read and check a course folder or a ``.jsonl`` file (files, images, parsing: the slow
    part); nothing is written. The plan step of every import: :func:`import_path` here, the
    window's worker process (app/imports.py). ``packs`` says where packs are merged instead,
    in the words of the caller (a command, a menu).

    Nothing outside the folder (the JSONL file's folder) is read unless ``allow_outside``.
    """
    if path.is_dir():
        return (yield from plan_course_folder(path, cancel, allow_outside=allow_outside))
    if path.suffix.lower() in (".jsonl", ".ndjson"):
        from cluestudio.core.workspace.jsonl import plan_jsonl

        return (yield from plan_jsonl(path, cancel, allow_outside=allow_outside))
    if path.exists():
        raise ClueStudioError(f"{path}: not a course folder or .jsonl file (packs: {packs})")
    raise ClueStudioError(f"{path}: no such file or folder")


def import_path(ws: Workspace, path: Path, cancel: CancelToken | None = None, *,
                allow_outside: bool = False) -> Job[Report]:
    """Import a course folder or a ``.jsonl`` file (all or nothing) in this process: the
    plan of :func:`plan_import`, stored by :func:`apply_plan` in one transaction; yields
    progress. Nothing outside the folder (the JSONL file's folder) is read unless
    ``allow_outside``."""
    plan = yield from plan_import(path, cancel, allow_outside=allow_outside)
    return apply_plan(ws, plan)


def open_sample_workspace() -> Workspace:
    """Open the sample workspace in the data dir, importing the sample course on first use."""
    path = data_dir() / SAMPLE_WORKSPACE_NAME
    ws = open_workspace(path)
    try:
        if not ws.tasks():
            run_job(import_path(ws, sample_course_path()))
    except BaseException:
        ws.close()
        raise
    return ws

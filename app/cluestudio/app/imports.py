"""Importing a course folder or a JSONL file, one job: plan, run, store.

The plan is core's :func:`~cluestudio.core.workspace.sample.plan_import` (read and check the
files, images and texts: the slow part; nothing written) and the store core's
:func:`~cluestudio.core.workspace.importer.apply_plan` (one transaction, all or nothing), for
every caller: ``cluestudio import`` runs both in its process
(:func:`~cluestudio.core.workspace.import_path`, as the sample workspace does); the window
runs the plan in its worker process (:func:`plan_import_job`) and applies it where the
workspace's writer is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cluestudio.core.jobs import CancelToken, Job
from cluestudio.core.workspace.sample import plan_import

# The window's words for where packs go instead (the CLI's are `cluestudio pack merge`).
PACKS_IN_THE_WINDOW = "File → Merge graders' packs"


def plan_import_job(path: str, allow_outside: bool = False, *, cancel: CancelToken,
                    emit: Any) -> Job[int]:
    """Read and check ``path``; the plan goes back as ``emit("plan", plan)`` for the caller
    to apply (nothing is written here). Returns the number of submissions planned."""
    plan = yield from plan_import(Path(path), cancel, allow_outside=allow_outside,
                                  packs=PACKS_IN_THE_WINDOW)
    emit("plan", plan)
    return len(plan.submissions)

"""Imports for the worker process: read and check a course folder or JSONL file there (files,
images, parsing: the slow part), apply the plan here in one transaction."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cluestudio.core.errors import ClueStudioError
from cluestudio.core.jobs import CancelToken, Job


def plan_import_job(path: str, allow_outside: bool = False, *, cancel: CancelToken,
                    emit: Any) -> Job[int]:
    """Read and check ``path``; the plan goes back as ``emit("plan", plan)`` for the caller
    to apply (nothing is written here). Returns the number of submissions planned."""
    from cluestudio.core.workspace.importer import plan_course_folder
    from cluestudio.core.workspace.jsonl import plan_jsonl

    source = Path(path)
    if source.is_dir():
        plan = yield from plan_course_folder(source, cancel, allow_outside=allow_outside)
    elif source.suffix.lower() in (".jsonl", ".ndjson"):
        plan = yield from plan_jsonl(source, cancel, allow_outside=allow_outside)
    else:
        raise _not_importable(source)
    emit("plan", plan)
    return len(plan.submissions)


def _not_importable(source: Path) -> ClueStudioError:
    if source.exists():
        return ClueStudioError(f"{source}: not a course folder or .jsonl file "
                               "(packs: File → Merge graders' packs)")
    return ClueStudioError(f"{source}: no such file or folder")

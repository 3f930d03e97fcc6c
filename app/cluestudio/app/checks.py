"""The offline conversion check for the window: OCR and matching in the worker process,
storing in the window's process (the workspace's single writer).

OCR results are cached on disk per image (core/ocr/cache.py), which both processes share, so
a re-check after a saved revision is the matching alone: a few milliseconds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cluestudio.core.errors import ClueStudioError
from cluestudio.core.jobs import CancelToken, Job, Progress
from cluestudio.core.workspace import Workspace


@dataclass(frozen=True)
class CheckItem:
    """One submission's image A and head revision: everything the worker needs."""

    submission_id: int
    revision_id: int
    label: str
    image: bytes
    image_hash: str
    puml: str


def plan_checks(ws: Workspace, submission_ids: Sequence[int]) -> tuple[list[CheckItem],
                                                                       dict[int, str]]:
    """Items to check, and why the others cannot be (no image A, no PlantUML)."""
    items, skipped = [], {}
    for sid in submission_ids:
        submission, head = ws.submission(sid), ws.head_revision(sid)
        if submission is None:
            continue
        label = f"{submission.task_id} · {submission.source_id}"
        image = ws.image(submission.image_hash) if submission.image_hash else None
        if not image or not submission.image_hash:
            skipped[sid] = f"{label}: no image A to check"
        elif head is None or not head.puml.strip():
            skipped[sid] = f"{label}: no PlantUML to check"
        else:
            items.append(CheckItem(sid, head.id, label, image, submission.image_hash,
                                   head.puml))
    return items, skipped


def check_job(items: Sequence[CheckItem], *, cancel: CancelToken, emit: Any) -> Job[int]:
    """In the worker process: check each item; each report goes back as
    ``emit("checked", (item, report))``, or ``emit("failed", (item, message))``."""
    from cluestudio.core.check import check_image_and_text
    from cluestudio.core.ocr.cache import OcrCache
    from cluestudio.core.settings import load_settings

    cache = OcrCache()
    language = load_settings()[0].ocr.language  # what image A's names are written in
    checked = 0
    try:
        for number, item in enumerate(items):
            cancel.raise_if_cancelled()
            yield Progress(number, len(items), f"reading image A of {item.label}")
            try:
                report = check_image_and_text(item.image, item.puml,
                                              image_source=f"image A of {item.label}",
                                              puml_source=item.label, cache=cache,
                                              language=language)
            except ClueStudioError as error:
                emit("failed", (item, str(error)))
                continue
            emit("checked", (item, report))
            checked += 1
        yield Progress(len(items), len(items), "checked")
    finally:
        cache.close()
    return checked


def store_checked(ws: Workspace, item: CheckItem, report: Any) -> None:
    """In the window's process: keep one report (a rerun of the same revision replaces it)."""
    from cluestudio.core.check.workspace import store_check

    store_check(ws, item.submission_id, item.revision_id, item.image_hash, report)


def latest_report(ws: Workspace, submission_id: int) -> Any | None:
    """The stored check of the submission's head revision and image, or None."""
    from cluestudio.core.check.workspace import stored_report

    head = ws.head_revision(submission_id)
    submission = ws.submission(submission_id)
    if head is None or submission is None:
        return None
    rows = [r for r in ws.check_results(submission_id)
            if r["conversion_id"] == head.id and r["image_hash"] == submission.image_hash]
    return stored_report(rows[-1]) if rows else None

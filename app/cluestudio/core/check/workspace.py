"""Check a whole workspace offline: the job behind ``cluestudio check --workspace``.

Like ``convert``/``probe --workspace`` (:mod:`cluestudio.core.vlm.workspace_batch`), a plain
job (yields :class:`~cluestudio.core.jobs.Progress`, honours a
:class:`~cluestudio.core.jobs.CancelToken`) that stores each submission's result in one
transaction as soon as it is done, so an interrupted run keeps what it finished and a
rerun skips it. A submission is *done* when ``check_results`` holds a row for its head
revision, its current image A, this check version and this OCR engine: saving a new
revision (or importing a new image) makes it due again; ``redo`` checks everything.
OCR runs one image at a time: the engine already uses every core.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from cluestudio.core.check.check import CHECK_VERSION, check_conversion
from cluestudio.core.check.report import CheckReport
from cluestudio.core.errors import ClueStudioError
from cluestudio.core.jobs import CancelToken, Job, Progress, SubmissionOutcome
from cluestudio.core.ocr.cache import OcrCache
from cluestudio.core.ocr.engine import OcrEngine, OcrUnavailable, installed_engine_id

CHECKED, FAILED, SKIPPED = "checked", "failed", "skipped"


@dataclass(frozen=True)
class CheckOutcome(SubmissionOutcome):  # status: checked | failed | skipped
    revision_id: int | None = None
    triage: float | None = None
    flagged: bool = False
    missing: int = 0
    invented: int = 0
    stored: bool = False  # skipped because an earlier run checked this revision already

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        if self.revision_id is not None:
            out["revision_id"] = self.revision_id
        if self.triage is not None:
            out.update(triage=round(self.triage, 4), flagged=self.flagged,
                       missing=self.missing, invented=self.invented, stored=self.stored)
        return out


@dataclass(frozen=True)
class CheckSummary:
    engine: str
    version: str
    outcomes: tuple[CheckOutcome, ...] = field(default_factory=tuple)

    def having(self, status: str) -> list[CheckOutcome]:
        return [o for o in self.outcomes if o.status == status]

    @property
    def flagged(self) -> list[CheckOutcome]:
        """Submissions whose current check (new or stored) raises the flag, worst first."""
        return sorted((o for o in self.outcomes if o.flagged),
                      key=lambda o: -(o.triage or 0.0))

    def to_dict(self) -> dict[str, Any]:
        return {
            "action": "check", "engine": self.engine, "check_version": self.version,
            "counts": {CHECKED: len(self.having(CHECKED)), FAILED: len(self.having(FAILED)),
                       SKIPPED: len(self.having(SKIPPED)), "flagged": len(self.flagged)},
            CHECKED: [o.to_dict() for o in self.having(CHECKED)],
            FAILED: [o.to_dict() for o in self.having(FAILED)],
            SKIPPED: [o.to_dict() for o in self.having(SKIPPED)],
            "flagged": [o.to_dict() for o in self.flagged],
        }


@dataclass(frozen=True)
class _Item:
    summary: Any
    revision_id: int
    puml: str
    image_hash: str


def _outcome(summary: Any, status: str, reason: str = "", **extra: Any) -> CheckOutcome:
    return CheckOutcome(summary.id, summary.task_id, summary.source_id, status, reason,
                        **extra)


def _stored(ws: Any, item: _Item, engine_id: str) -> dict[str, Any] | None:
    for row in reversed(ws.check_results(item.summary.id)):
        if (row["conversion_id"], row["image_hash"], row["check_version"], row["engine"]) == (
                item.revision_id, item.image_hash, CHECK_VERSION, engine_id):
            return dict(row)
    return None


def plan_checks(ws: Any, engine_id: str, tasks: Sequence[str] = (), redo: bool = False
                ) -> tuple[list[_Item], list[CheckOutcome]]:
    """(submissions to check, the others with why: skipped or already checked)."""
    kinds = {t.id: t.diagram_kind for t in ws.tasks()}
    todo: list[_Item] = []
    done: list[CheckOutcome] = []
    from cluestudio.core.vlm.workspace_batch import _summaries  # one way to select

    for summary in _summaries(ws, tasks):
        kind = kinds.get(summary.task_id, "class")
        submission = ws.submission(summary.id)
        head = ws.head_revision(summary.id)
        if kind != "class":
            done.append(_outcome(summary, SKIPPED, f"a {kind} task, not a class diagram"))
        elif submission is None or not submission.image_hash:
            done.append(_outcome(summary, SKIPPED, "no image A"))
        elif head is None or not head.puml.strip():
            done.append(_outcome(summary, SKIPPED, "no PlantUML to check; convert first"))
        else:
            item = _Item(summary, head.id, head.puml, submission.image_hash)
            stored = None if redo else _stored(ws, item, engine_id)
            if stored is None:
                todo.append(item)
            else:
                done.append(_outcome(
                    summary, SKIPPED, "already checked (same revision, image and engine)",
                    revision_id=head.id, triage=stored["triage"],
                    flagged=bool(stored["flagged"]), missing=stored["missing"],
                    invented=stored["invented"], stored=True))
    return todo, done


def check_one(ws: Any, item: _Item, engine: OcrEngine, cache: OcrCache | None,
              language: str = "auto") -> CheckReport:
    """Read and compare one submission (nothing stored); ClueStudioError on bad input."""
    from cluestudio.core.ocr.service import read_image
    from cluestudio.core.plantuml import parse_plantuml

    label = f"{item.summary.task_id}/{item.summary.source_id}"
    data = ws.image(item.image_hash)
    if not data:
        raise ClueStudioError(f"{label}: image A ({item.image_hash[:12]}) is missing from "
                              "the workspace")
    diagram = parse_plantuml(item.puml, source=f"{label} revision {item.revision_id}").diagram
    ocr = read_image(data, f"{label} image A", engine=engine, cache=cache)
    return check_conversion(ocr, diagram, language=language)


def store_check(ws: Any, submission_id: int, revision_id: int, image_hash: str,
                report: CheckReport) -> None:
    from cluestudio.core.workspace import ops

    data = report.to_dict()

    def write(conn: sqlite3.Connection) -> None:
        ops.put_check_result(conn, submission_id, revision_id, image_hash, data)

    ws.write(write)


def check_workspace(ws: Any, cancel: CancelToken | None = None, *, tasks: Sequence[str] = (),
                    redo: bool = False, engine: OcrEngine | None = None,
                    cache: OcrCache | None = None, language: str = "auto"
                    ) -> Job[CheckSummary]:
    """Check the head revision of every class-diagram submission against its image A."""
    cancel = cancel or CancelToken()
    engine_id = engine.engine_id if engine is not None else installed_engine_id()
    if engine_id is None:
        raise OcrUnavailable("OCR is not installed: pip install 'cluestudio[ocr]'")
    todo, outcomes = plan_checks(ws, engine_id, tasks, redo)
    yield Progress(0, len(todo), f"{len(todo)} to check, {len(outcomes)} skipped")
    if todo and engine is None:
        from cluestudio.core.ocr.engine import get_engine

        engine = get_engine()
    for done, item in enumerate(todo, start=1):
        cancel.raise_if_cancelled()
        summary = item.summary
        try:
            assert engine is not None
            report = check_one(ws, item, engine, cache, language)
        except ClueStudioError as error:
            outcomes.append(_outcome(summary, FAILED, str(error), revision_id=item.revision_id))
            yield Progress(done, len(todo), f"#{summary.id}: failed ({error})")
            continue
        store_check(ws, summary.id, item.revision_id, item.image_hash, report)
        outcomes.append(_outcome(summary, CHECKED, revision_id=item.revision_id,
                                 triage=report.triage, flagged=report.flagged,
                                 missing=len(report.missing), invented=len(report.invented)))
        verdict = "flagged" if report.flagged else "agrees"
        yield Progress(done, len(todo), f"#{summary.id} {summary.task_id}/"
                                        f"{summary.source_id}: {verdict} "
                                        f"(triage {report.triage:.2f})")
    ordered = sorted(outcomes, key=lambda o: (o.task_id, o.source_id, o.submission_id))
    return CheckSummary(engine_id, CHECK_VERSION, tuple(ordered))


def stored_report(row: dict[str, Any]) -> CheckReport:
    """The :class:`CheckReport` of a ``check_results`` row (``ws.check_results()``)."""
    return CheckReport.from_dict(json.loads(row["result"]))


def check_submission(ws: Any, submission_id: int, *, engine: OcrEngine | None = None,
                     cache: OcrCache | None = None, store: bool = True,
                     language: str = "auto") -> CheckReport:
    """Check one submission's head revision now (the review mode, after a save) and store
    it unless ``store`` is false. With the OCR cache warm this is the matching alone (a few
    ms); ClueStudioError when there is no image A or PlantUML, or either is unusable."""
    summary = next((s for s in ws.list_submissions() if s.id == submission_id), None)
    submission = ws.submission(submission_id)
    head = ws.head_revision(submission_id)
    if summary is None or submission is None:
        raise ClueStudioError(f"{ws.path}: no submission #{submission_id}")
    if not submission.image_hash:
        raise ClueStudioError(f"{summary.task_id}/{summary.source_id}: no image A to check")
    if head is None or not head.puml.strip():
        raise ClueStudioError(f"{summary.task_id}/{summary.source_id}: no PlantUML to check")
    if engine is None:
        from cluestudio.core.ocr.engine import get_engine

        engine = get_engine()
    item = _Item(summary, head.id, head.puml, submission.image_hash)
    report = check_one(ws, item, engine, cache, language)
    if store:
        store_check(ws, submission_id, head.id, submission.image_hash, report)
    return report

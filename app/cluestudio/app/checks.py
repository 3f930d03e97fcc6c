"""The offline conversion check of workspace submissions, one job: plan, run, store.

The window ("Check this conversion", "Check all listed", the re-check after a save) and
``cluestudio check --workspace`` plan with the same :func:`plan_checks`, so they check the
same submissions under the same rules:

- a submission is *checkable* when its task is a class diagram (the check reads the text
  with the class parser), it has an image A and its head revision holds PlantUML;
- it is *done* when ``check_results`` holds a row for its head revision, its current image
  A, this check version and this OCR engine (or, unless the pixels are asked for, a
  comparison with the diagram image A carries: core/embedded): saving a new revision (or
  importing a new image) makes it due again; ``redo`` checks it anyway.

Where image A carries the PlantUML it was rendered from, the check compares with that
(no OCR) unless ``pixels`` (``check --pixels``, the panel's "Check the pixels", or
``[ocr] embedded_source = false``) asks for OCR.

Two ways to run the plan: :func:`check_workspace` in this process (the CLI; each result is
stored in its own transaction as soon as it is done, so an interrupted run keeps what it
finished and a rerun skips it), or :func:`check_job` in the window's worker process, whose
reports go back to the window's process (the workspace's single writer) to be stored with
:func:`store_checked`. OCR results are cached on disk per image (core/ocr/cache.py), which
both processes share, so a re-check after a saved revision is the matching alone: a few
milliseconds. OCR runs one image at a time: the engine already uses every core.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from cluestudio.app.input_files import large_image_note
from cluestudio.core.check.check import CHECK_VERSION
from cluestudio.core.check.report import CheckReport
from cluestudio.core.embedded.compare import EMBEDDED_ENGINE
from cluestudio.core.errors import ClueStudioError
from cluestudio.core.jobs import CancelToken, Job, Progress, SubmissionOutcome
from cluestudio.core.ocr.cache import OcrCache
from cluestudio.core.ocr.engine import OcrEngine, OcrUnavailable, installed_engine_id
from cluestudio.core.workspace import SubmissionSummary, Workspace, kinds

CHECKED, FAILED, SKIPPED = "checked", "failed", "skipped"


@dataclass(frozen=True)
class CheckOutcome(SubmissionOutcome):  # status: checked | failed | skipped
    revision_id: int | None = None
    triage: float | None = None
    flagged: bool = False
    missing: int = 0
    invented: int = 0
    stored: bool = False  # skipped because an earlier run checked this revision already
    # CheckReport.verdict ("clean", "flagged", "language", "could not judge") and, when
    # the check could not compare name by name, its reason: no one should read an unjudged
    # image's names as findings
    verdict: str = ""
    unjudged: str = ""
    not_judged: tuple[str, ...] = ()  # CheckReport.not_judged: what a verdict left out
    # what it was compared with: "pixels" (OCR) or "embedded" (the diagram A carries)
    evidence: str = ""

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        if self.evidence:
            out["evidence"] = self.evidence
        if self.revision_id is not None:
            out["revision_id"] = self.revision_id
        if self.triage is not None:
            out.update(triage=round(self.triage, 4), flagged=self.flagged,
                       missing=self.missing, invented=self.invented, stored=self.stored)
        if self.verdict:
            out["verdict"] = self.verdict
        if self.unjudged:
            out["unjudged"] = self.unjudged
        if self.not_judged:
            out["not_judged"] = list(self.not_judged)
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


# --- plan (client) --------------------------------------------------------------------------


@dataclass(frozen=True)
class CheckItem:
    """One submission's head revision and image A: what a worker needs (the image itself is
    read when it is checked, not while a plan of thousands is made). Picklable."""

    submission_id: int
    task_id: str
    source_id: str
    revision_id: int
    image_hash: str
    puml: str

    @property
    def label(self) -> str:
        return f"{self.task_id} · {self.source_id}"


@dataclass(frozen=True)
class CheckPlan:
    """The submissions to check, and the others with why not (``stored``: checked already)."""

    items: tuple[CheckItem, ...]
    outcomes: tuple[CheckOutcome, ...]

    @property
    def submission_ids(self) -> list[int]:
        return [item.submission_id for item in self.items]

    @property
    def already_checked(self) -> list[CheckOutcome]:
        return [o for o in self.outcomes if o.stored]

    @property
    def not_checkable(self) -> list[CheckOutcome]:
        return [o for o in self.outcomes if not o.stored]


def _outcome(summary: SubmissionSummary | CheckItem, status: str, reason: str = "",
             **extra: Any) -> CheckOutcome:
    sid = summary.id if isinstance(summary, SubmissionSummary) else summary.submission_id
    return CheckOutcome(sid, summary.task_id, summary.source_id, status, reason, **extra)


def _selected(ws: Workspace, submission_ids: Collection[int] | None,
              tasks: Sequence[str]) -> list[SubmissionSummary]:
    known = {t.id for t in ws.tasks()}
    unknown = [t for t in tasks if t not in known]
    if unknown:
        raise ClueStudioError(f"{ws.path}: no task {', '.join(map(repr, unknown))} "
                              f"(tasks: {', '.join(sorted(known)) or 'none'})")
    listed = ws.list_submissions(submission_ids=submission_ids)
    return [s for s in listed if not tasks or s.task_id in tasks]


def _verdict_of(report: dict[str, Any]) -> dict[str, Any]:
    """The outcome's ``verdict``, ``unjudged`` and ``not_judged`` fields from a report's
    dict."""
    verdict = str(report.get("verdict", ""))
    judged = verdict in ("", "clean", "flagged")
    return {"verdict": verdict, "unjudged": "" if judged else str(report.get("reason", "")),
            "not_judged": tuple(str(n) for n in report.get("not_judged", ()) if judged),
            "evidence": str(report.get("evidence", "pixels"))}


def _stored_result(row: dict[str, Any]) -> dict[str, Any]:
    try:
        result = json.loads(row["result"])
    except (TypeError, ValueError):
        return {}
    return result if isinstance(result, dict) else {}


def _stored(ws: Workspace, item: CheckItem, engine_id: str | None, pixels: bool = False
            ) -> dict[str, Any] | None:
    engines = {engine_id} if pixels else {engine_id, EMBEDDED_ENGINE}
    for row in reversed(ws.check_results(item.submission_id)):
        if (row["conversion_id"], row["image_hash"], row["check_version"]) == (
                item.revision_id, item.image_hash, CHECK_VERSION) and row["engine"] in engines:
            return dict(row)
    return None


def plan_checks(ws: Workspace, submission_ids: Collection[int] | None = None, *,
                tasks: Sequence[str] = (), redo: bool = False,
                engine_id: str | None = None, pixels: bool = False) -> CheckPlan:
    """What to check among ``submission_ids`` (default: every submission) of ``tasks``
    (default: every task), by the rules in the module docstring. ``engine_id`` is the OCR
    engine a stored check must come from to count as done (default: the installed one);
    with ``pixels`` a comparison with the diagram image A carries does not count."""
    engine_id = engine_id if engine_id is not None else installed_engine_id()
    kind_of = {t.id: t.diagram_kind for t in ws.tasks()}
    items: list[CheckItem] = []
    outcomes: list[CheckOutcome] = []
    for summary in _selected(ws, submission_ids, tasks):
        kind = kind_of.get(summary.task_id, "class")
        submission = ws.submission(summary.id)
        head = ws.head_revision(summary.id)
        if not kinds.uses_class_parser(kind):
            outcomes.append(_outcome(summary, SKIPPED, f"a {kind} task, not a class diagram"))
        elif submission is None or not submission.image_hash:
            outcomes.append(_outcome(summary, SKIPPED, "no image A"))
        elif head is None or not head.puml.strip():
            outcomes.append(_outcome(summary, SKIPPED, "no PlantUML to check; convert first"))
        else:
            item = CheckItem(summary.id, summary.task_id, summary.source_id, head.id,
                             submission.image_hash, head.puml)
            stored = None if redo else _stored(ws, item, engine_id, pixels)
            if stored is None:
                items.append(item)
            else:
                outcomes.append(_outcome(
                    summary, SKIPPED, "already checked (same revision, image and engine)",
                    revision_id=head.id, triage=stored["triage"],
                    flagged=bool(stored["flagged"]), missing=stored["missing"],
                    invented=stored["invented"], stored=True,
                    **_verdict_of(_stored_result(stored))))
    return CheckPlan(tuple(items), tuple(outcomes))


def _image_size(ws: Workspace, image_hash: str) -> tuple[int | None, int | None]:
    row = ws._reader().execute("SELECT width, height FROM blobs WHERE hash = ?",
                               (image_hash,)).fetchone()
    return (None, None) if row is None else (row[0], row[1])


# --- check (pure but for reading the image) ------------------------------------------------


def check_one(ws: Workspace, item: CheckItem, engine: OcrEngine | None,
              cache: OcrCache | None, language: str = "auto", pixels: bool = False
              ) -> CheckReport:
    """Read and compare one submission (nothing stored); ClueStudioError on bad input."""
    from cluestudio.core.check import check_image_and_text

    label = f"{item.task_id}/{item.source_id}"
    data = ws.image(item.image_hash)
    if not data:
        raise ClueStudioError(f"{label}: image A ({item.image_hash[:12]}) is missing from "
                              "the workspace")
    return check_image_and_text(data, item.puml, image_source=f"{label} image A",
                                puml_source=f"{label} revision {item.revision_id}",
                                engine=engine, cache=cache, language=language,
                                pixels=pixels)


def check_job(workspace: str, items: Sequence[CheckItem], *, cancel: CancelToken,
              emit: Any, pixels: bool = False) -> Job[int]:
    """In the window's worker process, on a read-only view of the workspace file (the window
    keeps the writer): check each item; each report goes back as
    ``emit("checked", (item, report))``, or ``emit("failed", (item, message))``.
    ``pixels``: OCR even where image A carries its diagram (so does the setting)."""
    from cluestudio.core.settings import load_settings
    from cluestudio.core.workspace import open_workspace

    ws = open_workspace(workspace, readonly=True)
    cache = OcrCache()
    ocr_settings = load_settings()[0].ocr
    language = ocr_settings.language  # what image A's names are written in
    pixels = pixels or not ocr_settings.embedded_source
    checked = 0
    try:
        for number, item in enumerate(items):
            cancel.raise_if_cancelled()
            yield Progress(number, len(items), f"reading image A of {item.label}"
                           f"{large_image_note(*_image_size(ws, item.image_hash))}",
                           phase="checking")
            try:
                report = check_one(ws, item, None, cache, language, pixels)
            except ClueStudioError as error:
                emit("failed", (item, str(error)))
                continue
            emit("checked", (item, report))
            checked += 1
        yield Progress(len(items), len(items), "checked", phase="checking")
    finally:
        cache.close()
        ws.close()
    return checked


def check_workspace(ws: Workspace, cancel: CancelToken | None = None, *,
                    submission_ids: Collection[int] | None = None, tasks: Sequence[str] = (),
                    redo: bool = False, engine: OcrEngine | None = None,
                    cache: OcrCache | None = None, language: str = "auto",
                    pixels: bool = False) -> Job[CheckSummary]:
    """Check the head revision of every checkable submission against its image A, in this
    process, storing each result as it is done (``cluestudio check --workspace``).
    ``pixels``: OCR even where image A carries its diagram."""
    cancel = cancel or CancelToken()
    engine_id = engine.engine_id if engine is not None else installed_engine_id()
    if engine_id is None:
        raise OcrUnavailable("OCR is not installed: pip install 'cluestudio[ocr]'")
    plan = plan_checks(ws, submission_ids, tasks=tasks, redo=redo, engine_id=engine_id,
                       pixels=pixels)
    outcomes = list(plan.outcomes)
    todo = plan.items
    yield Progress(0, len(todo), f"{len(todo)} to check, {len(outcomes)} skipped", phase="checking")
    for done, item in enumerate(todo, start=1):
        cancel.raise_if_cancelled()
        note = large_image_note(*_image_size(ws, item.image_hash))
        if note:
            yield Progress(done - 1, len(todo), f"reading image A of {item.label}{note}",
                           phase="checking")
        try:
            report = check_one(ws, item, engine, cache, language, pixels)
        except ClueStudioError as error:
            outcomes.append(_outcome(item, FAILED, str(error), revision_id=item.revision_id))
            yield Progress(done, len(todo), f"{item.label}: failed ({error})",
                           phase="checking")
            continue
        store_check(ws, item.submission_id, item.revision_id, item.image_hash, report)
        judged = report.verdict in ("clean", "flagged")
        outcomes.append(_outcome(item, CHECKED, revision_id=item.revision_id,
                                 triage=report.triage, flagged=report.flagged,
                                 missing=len(report.missing), invented=len(report.invented),
                                 **_verdict_of({"verdict": report.verdict,
                                                "reason": report.reason,
                                                "not_judged": report.not_judged,
                                                "evidence": report.evidence})))
        verdict = (("flagged" if report.flagged else "agrees")
                   + f" (triage {report.triage:.2f})"
                   + "".join(f"; {sentence}" for sentence in report.not_judged)
                   ) if judged else report.reason
        if report.evidence_note:  # compared with the source A carries, or why not
            verdict += f"; {report.evidence_note}"
        yield Progress(done, len(todo), f"{item.label}: {verdict}", phase="checking")
    ordered = sorted(outcomes, key=lambda o: (o.task_id, o.source_id, o.submission_id))
    return CheckSummary(engine_id, CHECK_VERSION, tuple(ordered))


def check_submission(ws: Workspace, submission_id: int, *, engine: OcrEngine | None = None,
                     cache: OcrCache | None = None, store: bool = True,
                     language: str = "auto", pixels: bool = False) -> CheckReport:
    """Check one submission's head revision now, whether or not it was checked before, and
    store it unless ``store`` is false. With the OCR cache warm this is the matching alone
    (a few ms); ClueStudioError when it is not checkable (the reason of :func:`plan_checks`)."""
    plan = plan_checks(ws, [submission_id], redo=True)
    if not plan.items:
        if not plan.outcomes:
            raise ClueStudioError(f"{ws.path}: no submission #{submission_id}")
        outcome = plan.outcomes[0]
        raise ClueStudioError(f"{outcome.task_id}/{outcome.source_id}: {outcome.reason}")
    item = plan.items[0]
    report = check_one(ws, item, engine, cache, language, pixels)
    if store:
        store_check(ws, submission_id, item.revision_id, item.image_hash, report)
    return report


# --- store (client) -------------------------------------------------------------------------


def store_check(ws: Workspace, submission_id: int, revision_id: int, image_hash: str,
                report: CheckReport) -> None:
    """Keep one report (a rerun of the same revision, image, version and engine replaces
    it)."""
    from cluestudio.core.workspace import ops

    data = report.to_dict()

    def write(conn: sqlite3.Connection) -> None:
        ops.put_check_result(conn, submission_id, revision_id, image_hash, data)

    ws.write(write)


def store_checked(ws: Workspace, item: CheckItem, report: CheckReport) -> None:
    """In the window's process: keep a report that came back from :func:`check_job`."""
    store_check(ws, item.submission_id, item.revision_id, item.image_hash, report)


def stored_report(row: dict[str, Any]) -> CheckReport:
    """The :class:`CheckReport` of a ``check_results`` row (``ws.check_results()``)."""
    return CheckReport.from_dict(json.loads(row["result"]))


def latest_report(ws: Workspace, submission_id: int) -> CheckReport | None:
    """The stored check of the submission's head revision and image, or None."""
    head = ws.head_revision(submission_id)
    submission = ws.submission(submission_id)
    if head is None or submission is None:
        return None
    rows = [r for r in ws.check_results(submission_id)
            if r["conversion_id"] == head.id and r["image_hash"] == submission.image_hash]
    return stored_report(rows[-1]) if rows else None

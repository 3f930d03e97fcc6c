"""Import a course folder or OODEval-like JSONL into a workspace, all or nothing.

Reading and checking (``plan_*``) happens first, off the writer thread, and collects every
problem; only an error-free plan is written, in one transaction (``apply_plan``). Records
are keyed (task id, submission id, grader) so importing the same data again changes nothing.

Course folder::

    course.toml                      optional: origin = "student" | "llm" | "synthetic",
                                     diagram_kind = the default kind of every task
    ratings.csv                      optional: task_id, source_id, grader, <item ids> | total, ...
    tasks/<task id>/task.toml        optional: diagram_kind = "component" (overrides course.toml)
    tasks/<task id>/requirement.md   first "# " line is the title
    tasks/<task id>/reference.puml   (or reference.sysml for SysML v2 text, or .png / .jpg)
    tasks/<task id>/submissions/<id>.{png,jpg,jpeg,puml,sysml}   same stem = same submission
    tasks/<task id>/submissions/<id>.json                  optional: origin, ground truth

Diagram kind of a task (``class`` | ``component`` | ``deployment`` | ``package`` | ``sysml`` |
``code``, see :mod:`.kinds`): ``task.toml``, else ``course.toml``, else a ``reference.sysml``
file means ``sysml``, else an obvious reference text (a SysML v2 model without
``@startuml``; PlantUML with components/nodes and no classes) is detected, else ``class``.
An unknown kind is an error naming the file. Only class-diagram texts are checked with the
class parser; other kinds are kept as they are.
"""

from __future__ import annotations

import json
import tomllib
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cluestudio.core.jobs import CancelToken, Job, Progress
from cluestudio.core.rubric import rubric_id_for_kind
from cluestudio.core.workspace import kinds, ops
from cluestudio.core.workspace.images import (
    HEIC_HINT,
    HEIC_SUFFIXES,
    IMAGE_SUFFIXES,
    MAX_IMAGE_BYTES,
    CheckedImage,
    ImageError,
    check_image,
)
from cluestudio.core.workspace.ratings_csv import (
    PlannedRating,
    rating_from_fields,
    read_ratings_csv,
)
from cluestudio.core.workspace.records import ORIGINS, Task
from cluestudio.core.workspace.report import ImportFailed, Report
from cluestudio.core.workspace.source_files import MAX_TABLE_BYTES, SourceFolder
from cluestudio.core.workspace.store import Workspace

TEXT_SUFFIXES = (".puml", ".sysml")


@dataclass
class PlannedSubmission:
    task_id: str
    source_id: str
    origin: str
    source: str
    image: CheckedImage | None = None
    puml: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass
class ImportPlan:
    source: str
    tasks: list[tuple[Task, CheckedImage | None]] = field(default_factory=list)
    submissions: list[PlannedSubmission] = field(default_factory=list)
    ratings: list[PlannedRating] = field(default_factory=list)
    report: Report = field(default_factory=Report)


def _read_image(folder: SourceFolder, path: Path, report: Report) -> CheckedImage | None:
    data = folder.read_bytes(path, report, MAX_IMAGE_BYTES)
    if data is None:
        return None
    try:
        return check_image(data, str(path))
    except ImageError as error:
        report.error(str(path), error.message)
    return None


def _check_puml(puml: str, source: str, report: Report, kind: str = "class") -> None:
    if not kinds.uses_class_parser(kind):
        return  # a component or SysML text is not a broken class diagram
    ok, error = ops.parse_status(puml)
    if ok is False:
        report.warning(source, f"PlantUML does not parse, kept as text and flagged: {error}")


def _title(requirement: str, fallback: str) -> str:
    for line in requirement.splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return fallback


def _read_kind(folder: SourceFolder, path: Path, report: Report) -> str | None:
    """``diagram_kind`` of a ``task.toml`` or ``course.toml``; None if absent or wrong."""
    if not path.exists():
        return None
    text = folder.read_text(path, report)
    try:
        kind = tomllib.loads(text or "").get("diagram_kind")
    except tomllib.TOMLDecodeError as error:
        report.error(str(path), f"not valid TOML: {error}")
        return None
    if kind is not None and not kinds.is_known(kind):
        report.error(str(path), kinds.kind_error(kind))
        return None
    return kind


def _plan_task(source: SourceFolder, folder: Path, origin: str, plan: ImportPlan,
               course_kind: str | None = None) -> None:
    report, task_id = plan.report, folder.name
    requirement_path = folder / "requirement.md"
    requirement = (source.read_text(requirement_path, report) if requirement_path.exists()
                   else None)
    if requirement is None and not requirement_path.exists():
        report.error(str(requirement_path), "missing requirement")
    kind = _read_kind(source, folder / "task.toml", report) or course_kind
    reference, ref_image = "", None
    texts = [folder / f"reference{s}" for s in TEXT_SUFFIXES if
             (folder / f"reference{s}").exists()]
    if texts:
        reference = source.read_text(texts[0], report) or ""
        if kind is None:
            kind = "sysml" if texts[0].suffix == ".sysml" else kinds.detect_kind(reference)
        _check_puml(reference, str(texts[0]), report, kind or kinds.DEFAULT_KIND)
    else:
        images = [folder / f"reference{s}" for s in IMAGE_SUFFIXES if
                  (folder / f"reference{s}").exists()]
        if not images:
            report.error(str(folder), "missing reference (reference.puml, reference.sysml or "
                                      "reference.png/.jpg/.gif/.webp/.bmp)")
        else:
            ref_image = _read_image(source, images[0], report)
    kind = kind or kinds.DEFAULT_KIND
    plan.tasks.append((Task(task_id, _title(requirement or "", task_id), requirement or "",
                            reference, ref_image.hash if ref_image else None, kind), ref_image))
    _plan_submissions(source, folder / "submissions", task_id, origin, plan, kind)


def _plan_submissions(source: SourceFolder, folder: Path, task_id: str, origin: str,
                      plan: ImportPlan, kind: str = "class") -> None:
    report = plan.report
    if not folder.is_dir() or not source.allowed(folder, report):
        return
    by_stem: dict[str, PlannedSubmission] = {}
    with_image: set[str] = set()
    for path in sorted(folder.iterdir()):
        if path.is_dir():
            report.warning(str(path), "skipped: a folder inside submissions/")
            continue
        suffix, stem = path.suffix.lower(), path.stem
        if suffix in HEIC_SUFFIXES:
            report.warning(str(path), f"skipped: {HEIC_HINT}")
            continue
        if suffix not in (*IMAGE_SUFFIXES, *TEXT_SUFFIXES, ".json"):
            report.warning(str(path), f"skipped: unknown file type {suffix!r}")
            continue
        sub = by_stem.setdefault(stem, PlannedSubmission(task_id, stem, origin, str(path)))
        if suffix in IMAGE_SUFFIXES:
            if stem in with_image:
                report.error(str(path), f"duplicate id: a second image for submission {stem!r}")
                continue
            with_image.add(stem)
            sub.image = _read_image(source, path, report)
        elif suffix in TEXT_SUFFIXES:
            if sub.puml is not None:
                report.error(str(path), f"duplicate id: a second text for submission {stem!r}")
                continue
            sub.puml = source.read_text(path, report)
            if sub.puml is not None:
                _check_puml(sub.puml, str(path), report, kind)
        else:
            _apply_sidecar(source, path, sub, report)
    for sub in by_stem.values():
        if sub.source_id not in with_image and sub.puml is None:
            report.error(sub.source, f"submission {sub.source_id!r} has neither image nor PlantUML")
        plan.submissions.append(sub)


def _apply_sidecar(source: SourceFolder, path: Path, sub: PlannedSubmission,
                   report: Report) -> None:
    text = source.read_text(path, report)
    if text is None:
        return
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        report.error(str(path), f"not JSON: {error.msg}", error.lineno)
        return
    origin = data.get("origin", sub.origin) if isinstance(data, dict) else None
    if origin not in ORIGINS:
        report.error(str(path), f"origin must be one of {ORIGINS}, not {origin!r}")
        return
    sub.origin = origin
    sub.meta.update({k: v for k, v in data.items() if k != "origin"})


def plan_course_folder(root: Path, cancel: CancelToken | None = None, *,
                       allow_outside: bool = False) -> Job[ImportPlan]:
    """Read and check a course folder; the plan's report lists every problem found.

    Nothing outside ``root`` is read (links are resolved first) unless ``allow_outside``.
    """
    cancel = cancel or CancelToken()
    plan = ImportPlan(str(root))
    source = SourceFolder(root, allow_outside=allow_outside)
    origin, course_kind = "student", None
    if (root / "course.toml").exists():
        text = source.read_text(root / "course.toml", plan.report) or ""
        try:
            origin = tomllib.loads(text).get("origin", "student")
        except tomllib.TOMLDecodeError as error:
            plan.report.error(str(root / "course.toml"), f"not valid TOML: {error}")
        else:
            if origin not in ORIGINS:
                plan.report.error(str(root / "course.toml"),
                                  f"origin must be one of {ORIGINS}, not {origin!r}")
                origin = "student"
            course_kind = _read_kind(source, root / "course.toml", plan.report)
    tasks_dir = root / "tasks"
    folders = []
    if tasks_dir.is_dir() and source.allowed(tasks_dir, plan.report):
        folders = source.folders(tasks_dir, plan.report)
    if not folders and not plan.report.errors:
        plan.report.error(str(tasks_dir), "no task folders (expected tasks/<task id>/)")
    for i, folder in enumerate(folders):
        cancel.raise_if_cancelled()
        _plan_task(source, folder, origin, plan, course_kind)
        yield Progress(i + 1, len(folders), folder.name)
    if (root / "ratings.csv").exists():
        data = source.read_bytes(root / "ratings.csv", plan.report, MAX_TABLE_BYTES)
        if data is not None:
            kinds_of = {task.id: task.diagram_kind for task, _ in plan.tasks}
            plan.ratings = read_ratings_csv(root / "ratings.csv", plan.report, data, kinds_of)
    return plan


def apply_plan(ws: Workspace, plan: ImportPlan) -> Report:
    """Write an error-free plan in one transaction; raise :class:`ImportFailed` otherwise."""
    report = plan.report
    _check_rating_targets(ws, plan)
    if report.errors:
        raise ImportFailed(report)
    ws.write(lambda conn: _write_plan(conn, plan))
    return report


def _check_rating_targets(ws: Workspace, plan: ImportPlan) -> None:
    planned = {(s.task_id, s.source_id) for s in plan.submissions}
    planned_tasks = {task.id for task, _ in plan.tasks}
    for index, rating in enumerate(plan.ratings):
        key = (rating.task_id, rating.source_id)
        if key not in planned and ws.find_submission(*key) is None:
            plan.report.error(rating.source, f"rating for unknown submission {key[0]}/{key[1]}",
                              rating.line)
            continue
        if rating.rubric_from_kind and rating.task_id not in planned_tasks:
            _rubric_of_known_task(ws, plan, index)


def _rubric_of_known_task(ws: Workspace, plan: ImportPlan, index: int) -> None:
    """A rating without rubric_id of a task only the workspace holds: read it with the rubric
    of that task's kind (the folder alone could not say which)."""
    rating = plan.ratings[index]
    task = ws.task(rating.task_id)
    if task is None or rubric_id_for_kind(task.diagram_kind) == rating.rubric_id:
        return
    again = rating_from_fields(rating.fields, rating.source, rating.line, plan.report,
                               task.diagram_kind)
    if again is not None:
        again.created_at = rating.created_at
        plan.ratings[index] = again


def _write_plan(conn: Any, plan: ImportPlan) -> None:
    counts, source = plan.report.counts, Path(plan.source).name
    for task, image in plan.tasks:
        if image is not None:
            ops.put_blob(conn, image)
        counts[f"tasks_{ops.upsert_task(conn, task)}"] += 1
    ids: dict[tuple[str, str], int] = {}
    for sub in plan.submissions:
        image_hash = ops.put_blob(conn, sub.image) if sub.image else None
        sid, status = ops.ensure_submission(conn, sub.task_id, sub.source_id, sub.origin,
                                            image_hash, sub.meta)
        ids[(sub.task_id, sub.source_id)] = sid
        counts[f"submissions_{status}"] += 1
        if sub.puml is not None:
            _, added = ops.add_revision(conn, sid, sub.puml, f"import:{source}", "import",
                                        dedupe=True)
            counts["revisions_added" if added else "revisions_unchanged"] += 1
    for rating in plan.ratings:
        key = (rating.task_id, rating.source_id)
        sid = ids.get(key) or ops.row(conn, "SELECT id FROM submissions WHERE task_id=? AND "
                                      "source_id=?", key)["id"]  # type: ignore[index]
        counts[f"ratings_{_write_rating(conn, sid, rating)}"] += 1


def _write_rating(conn: Any, sid: int, rating: PlannedRating) -> str:
    values = {
        "uid": uuid.uuid5(uuid.NAMESPACE_URL, f"{rating.task_id}/{rating.source_id}/"
                          f"{rating.grader}/{rating.rubric_id}").hex,
        "submission_id": sid, "grader": rating.grader, "rubric_id": rating.rubric_id,
        "scores": json.dumps(rating.scores, sort_keys=True), "total": rating.total,
        "comment": rating.comment, "seconds": rating.seconds,
        "synthetic": int(rating.synthetic), "created_at": rating.created_at,
    }
    old = ops.get_rating(conn, sid, rating.grader, rating.rubric_id)
    same = ("scores", "total", "comment", "seconds", "synthetic")
    if old is not None and all(old[k] == values[k] for k in same):
        return "unchanged"
    if old is not None:
        values["uid"] = old["uid"]
    ops.put_rating(conn, values)
    ops.audit(conn, "import", "import_rating", "rating", sid, old, values)
    return "added" if old is None else "updated"


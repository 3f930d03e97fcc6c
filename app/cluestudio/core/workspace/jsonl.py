"""Import OODEval-like JSONL: one record per line, each a task plus one candidate.

Fields: ``task_id`` (required), ``requirement``, ``reference`` (PlantUML), ``title``,
``candidate`` (PlantUML) and/or ``image`` (path, relative to the JSONL file),
``source_id`` (default: a hash of the candidate), ``origin`` (student|llm|synthetic, default
student), ``rating`` (a 0–100 total, or an object of rubric item scores), ``grader``,
``diagram_kind`` (class | component | deployment | package | sysml | code; when absent, an
obvious reference is detected as in course folders, else ``class``). A task's fields must be
the same in every record that names it; a record without ``diagram_kind`` takes the kind
its task already has.

The file is read a record at a time, each at most ``MAX_RECORD_BYTES``; an ``image`` path
(relative or absolute) must lie in the JSONL file's folder unless ``allow_outside``.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from cluestudio.core.jobs import CancelToken, Job, Progress
from cluestudio.core.workspace import kinds
from cluestudio.core.workspace.importer import (
    ImportPlan,
    PlannedSubmission,
    _check_puml,
    _read_image,
)
from cluestudio.core.workspace.ratings_csv import rating_from_fields
from cluestudio.core.workspace.records import ORIGINS, Task
from cluestudio.core.workspace.report import Report
from cluestudio.core.workspace.source_files import (
    MAX_NAME_BYTES,
    MAX_RECORD_BYTES,
    SourceFolder,
    check_text_size,
    decode_text,
    field_problems,
)


def _task_from(record: dict[str, Any], source: str, line: int, plan: ImportPlan,
               known: dict[str, Task]) -> None:
    task_id = str(record["task_id"])
    reference = record.get("reference") or record.get("reference_puml") or ""
    kind = record.get("diagram_kind")
    if kind is not None and not kinds.is_known(kind):
        plan.report.error(source, kinds.kind_error(kind), line)
        return
    task = Task(task_id, str(record.get("title") or task_id), str(record.get("requirement", "")),
                str(reference), diagram_kind=kind or kinds.DEFAULT_KIND)
    if task_id in known:
        if kind is None:  # not restated: the kind the task already has
            task = replace(task, diagram_kind=known[task_id].diagram_kind)
        if known[task_id] != task:
            plan.report.error(source, f"task {task_id!r} differs from its first definition", line)
        return
    if kind is None:
        task = replace(task, diagram_kind=kinds.detect_kind(str(reference)) or kinds.DEFAULT_KIND)
    if not reference:
        plan.report.error(source, f"missing reference for task {task_id!r}", line)
    elif not all(check_text_size(str(text), source, plan.report, line)
                 for text in (reference, record.get("requirement", ""))):
        return
    else:
        _check_puml(str(reference), f"{source}:{line}", plan.report, task.diagram_kind)
    known[task_id] = task
    plan.tasks.append((task, None))


def _records(path: Path, report: Report) -> Iterator[tuple[int, str]]:
    """(line number, text) of each line, read one at a time with a size cap."""
    source = str(path)
    try:
        handle = open(path, "rb")  # noqa: SIM115 - closed below, generator-owned
    except OSError as error:
        report.error(source, f"cannot read: {error.strerror or error}")
        return
    with handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            report.error(source, "not a regular file; not read")
            return
        number = 0
        while True:
            raw = handle.readline(MAX_RECORD_BYTES + 1)
            if not raw:
                return
            number += 1
            if len(raw) > MAX_RECORD_BYTES and not raw.endswith(b"\n"):
                report.error(source, f"record longer than {MAX_RECORD_BYTES >> 20} MB; "
                                     "not read", number)
                while raw and not raw.endswith(b"\n"):  # skip the rest of this line
                    raw = handle.readline(MAX_RECORD_BYTES)
                continue
            text = decode_text(raw, source, report, number)
            if text is not None:
                yield number, text


def plan_jsonl(path: Path, cancel: CancelToken | None = None, *,
               allow_outside: bool = False) -> Job[ImportPlan]:
    cancel = cancel or CancelToken()
    plan = ImportPlan(str(path))
    report = plan.report
    folder = SourceFolder(path.parent, allow_outside=allow_outside)
    size = max(1, path.stat().st_size) if path.exists() else 1
    tasks: dict[str, Task] = {}
    seen: set[tuple[str, str]] = set()
    read = 0
    source = str(path)
    records = 0
    for number, raw in _records(path, report):
        cancel.raise_if_cancelled()
        read += len(raw)
        if not raw.strip():
            continue
        records += 1
        try:
            record = json.loads(raw)
        except json.JSONDecodeError as error:
            report.error(source, f"broken JSON line: {error.msg} (column {error.colno})", number)
            continue
        except RecursionError:
            report.error(source, "JSON nested too deeply", number)
            continue
        if not isinstance(record, dict) or not record.get("task_id"):
            report.error(source, "record is not an object with a task_id", number)
            continue
        if oversized := field_problems(**{
                name: (str(record[name]), MAX_NAME_BYTES)
                for name in ("task_id", "source_id", "student") if name in record}):
            report.error(source, "; ".join(oversized), number)
            continue
        _task_from(record, source, number, plan, tasks)
        _submission_from(record, path, number, plan, seen, tasks, folder)
        if number % 100 == 0:
            yield Progress(min(read, size), size, f"line {number}", phase="reading")
    if records == 0 and not report.errors:  # an empty file is a mistake, not "nothing to do"
        report.error(source, "no records (the file is empty); nothing was imported")
    yield Progress(size, size, "checked", phase="reading")
    return plan


def _submission_from(record: dict[str, Any], path: Path, line: int, plan: ImportPlan,
                     seen: set[tuple[str, str]], tasks: dict[str, Task],
                     folder: SourceFolder) -> None:
    source, report = str(path), plan.report
    candidate = record.get("candidate") or record.get("candidate_puml")
    image_path = record.get("image")
    if candidate is None and image_path is None:
        return  # a task-only record
    task_id = str(record["task_id"])
    source_id = str(record.get("source_id") or record.get("student") or
                    "c-" + hashlib.sha256(f"{candidate}|{image_path}".encode()).hexdigest()[:12])
    if (task_id, source_id) in seen:
        report.error(source, f"duplicate id: submission {task_id}/{source_id}", line)
        return
    seen.add((task_id, source_id))
    origin = record.get("origin", "student")
    if origin not in ORIGINS:
        report.error(source, f"origin must be one of {ORIGINS}, not {origin!r}", line)
        return
    sub = PlannedSubmission(task_id, source_id, origin, f"{source}:{line}")
    if candidate is not None:
        if not check_text_size(str(candidate), source, report, line):
            return
        sub.puml = str(candidate)
        task = tasks.get(task_id)
        _check_puml(sub.puml, f"{source}:{line}", report,
                    task.diagram_kind if task else kinds.DEFAULT_KIND)
    if image_path is not None:
        image_file = (path.parent / str(image_path))
        if not isinstance(image_path, str) or not image_path.strip():
            report.error(source, f"image must be a file path, not {image_path!r}", line)
        elif not image_file.exists():
            report.error(source, f"image not found: {image_path}", line)
        elif not folder.allow_outside and not folder.inside(image_file):
            report.error(source, f"image {image_path} lies outside the JSONL file's folder; "
                                 "not read (pass --allow-outside to import it anyway)", line)
        else:
            sub.image = _read_image(folder, image_file, report)
    plan.submissions.append(sub)
    rating = record.get("rating")
    if rating is not None:
        fields: dict[str, object] = {"task_id": task_id, "source_id": source_id,
                                     "grader": record.get("grader") or "import"}
        fields.update(rating if isinstance(rating, dict) else {"total": rating})
        task = tasks.get(task_id)
        planned = rating_from_fields(fields, source, line, report,
                                     task.diagram_kind if task else None)
        if planned is not None:
            plan.ratings.append(planned)

"""Reading ``ratings.csv``: one row per (submission, grader), rubric items as columns.

Columns: ``task_id, source_id, grader`` (required), ``rubric_id`` (default: the rubric of
the task's diagram kind, core/rubric.py ``rubric_for_kind``), one column per rubric item
*or* a holistic ``total`` (0–100, as OODEval's instructors gave), and optional ``comment,
seconds, synthetic`` (1/true for generated ratings). A course with class and component
tasks has both rubrics' item columns; each row reads those of its own rubric.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cluestudio.core.rubric import RubricError, get_rubric, rubric_id_for_kind
from cluestudio.core.workspace.records import now_iso
from cluestudio.core.workspace.report import Report
from cluestudio.core.workspace.source_files import (
    MAX_NAME_BYTES,
    MAX_TABLE_BYTES,
    MAX_TEXT_BYTES,
    field_problems,
)

REQUIRED = ("task_id", "source_id", "grader")


@dataclass
class PlannedRating:
    task_id: str
    source_id: str
    grader: str
    rubric_id: str
    total: float | None
    source: str
    line: int | None = None
    scores: dict[str, float] = field(default_factory=dict)
    comment: str = ""
    seconds: float | None = None
    synthetic: bool = False
    created_at: str = field(default_factory=now_iso)
    # No rubric_id was given: the rubric is the task's kind's. A rating of a task that only
    # the workspace knows has rubric_id "" (not read yet) until the plan is applied.
    rubric_from_kind: bool = False
    fields: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


def _number(text: str | None) -> float | None:
    if text is None or not text.strip():
        return None
    value = float(text)
    if math.isnan(value):
        raise ValueError("NaN")
    return value


def rating_from_fields(fields: dict[str, object], source: str, line: int | None,
                       report: Report, kind: str | None = None) -> PlannedRating | None:
    """Validate one rating record (a CSV row or a JSONL rating) against its rubric: the
    ``rubric_id`` it names, else the rubric of ``kind``, its task's diagram kind."""
    given = str(fields.get("rubric_id") or "")
    try:
        rubric_id = given or rubric_id_for_kind(kind or "class")
    except RubricError as error:
        report.error(source, error.message, line)
        return None
    try:
        rubric = get_rubric(rubric_id)
        item_values = {i.id: fields.get(i.id) for i in rubric.items
                       if fields.get(i.id) not in (None, "")}
        if item_values:
            scores = rubric.validate({k: float(str(v)) for k, v in item_values.items()},
                                     source=f"{source}:{line}" if line else source)
            total: float | None = rubric.total(scores)
        else:
            scores = {}
            raw_total = _number(str(fields["total"])) if fields.get("total") not in (
                None, "") else None
            if raw_total is None:
                report.error(source, "rating has neither item scores nor a total", line)
                return None
            total = rubric.validate_total(raw_total)
        seconds = _number(str(fields.get("seconds") or ""))
    except RubricError as error:
        report.error(source, error.message, line)
        return None
    except ValueError as error:
        report.error(source, f"not a number: {error}", line)
        return None
    synthetic = str(fields.get("synthetic", "")).strip().lower() in ("1", "true", "yes")
    oversized = field_problems(
        comment=(str(fields.get("comment") or ""), MAX_TEXT_BYTES),
        **{name: (str(fields[name]), MAX_NAME_BYTES)
           for name in ("task_id", "source_id", "grader")})
    if oversized:
        report.error(source, "; ".join(oversized), line)
        return None
    return PlannedRating(str(fields["task_id"]), str(fields["source_id"]),
                         str(fields["grader"]), rubric.id, total, source, line, scores,
                         str(fields.get("comment") or ""), seconds, synthetic,
                         rubric_from_kind=not given, fields=dict(fields))


def read_ratings_csv(path: Path, report: Report, data: bytes | None = None,
                     task_kinds: Mapping[str, str] | None = None) -> list[PlannedRating]:
    """Ratings of ``path`` (or of ``data``, its content already read by the caller);
    ``task_kinds`` (task id → diagram kind) picks the rubric of a row without rubric_id."""
    if data is None:
        try:
            data = path.read_bytes()
        except OSError as error:
            report.error(str(path), f"cannot read: {error.strerror or error}")
            return []
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        report.error(str(path), f"not UTF-8 (byte {error.start}); save the CSV as UTF-8", line)
        return []
    # csv's own cap on a field (128 KB) is below the comment limit every way in shares;
    # a larger field is read (the file is capped) and refused by that limit, by its line.
    if csv.field_size_limit() < MAX_TABLE_BYTES:
        csv.field_size_limit(MAX_TABLE_BYTES)
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        return _ratings_of(reader, path, report, task_kinds)
    except csv.Error as error:
        report.error(str(path), f"not a readable CSV: {error}", reader.line_num)
        return []


def _ratings_of(reader: csv.DictReader[str], path: Path, report: Report,
                task_kinds: Mapping[str, str] | None) -> list[PlannedRating]:
    missing = [c for c in REQUIRED if c not in (reader.fieldnames or [])]
    if missing:
        report.error(str(path), f"missing column(s) {', '.join(missing)}", 1)
        return []
    out, seen = [], set()
    for row in reader:
        line = reader.line_num
        if any(not (row.get(c) or "").strip() for c in REQUIRED):
            report.error(str(path), f"empty {'/'.join(REQUIRED)}", line)
            continue
        key = (row["task_id"], row["source_id"], row["grader"], row.get("rubric_id") or "")
        if key in seen:
            report.error(str(path), f"duplicate rating of {key[0]}/{key[1]} by {key[2]}", line)
            continue
        seen.add(key)
        kind = (task_kinds or {}).get(row["task_id"])
        if kind is None and task_kinds is not None and not row.get("rubric_id"):
            # A task of the workspace, not of this folder: its kind, hence its rubric, is
            # known when the plan is applied (importer._check_rating_targets reads it then).
            out.append(PlannedRating(row["task_id"], row["source_id"], row["grader"], "",
                                     None, str(path), line, rubric_from_kind=True,
                                     fields=dict(row)))
            continue
        rating = rating_from_fields(dict(row), str(path), line, report, kind)
        if rating is not None:
            out.append(rating)
    return out

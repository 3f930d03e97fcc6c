"""Checking a pack's data before anything of it is merged (issue 14).

A pack comes from another grader's machine and may be damaged or hostile: a list where an
object belongs, a rating of 999 or NaN, an unknown rubric item, a revision of a submission
the pack never defines, an image hash with no image. Each such record is reported with the
pack's file name and the record's place (``ratings[12]``), and the merge writes nothing.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping
from typing import Any

from cluestudio.core.rubric import RubricError, get_rubric
from cluestudio.core.workspace import kinds
from cluestudio.core.workspace.records import ORIGINS
from cluestudio.core.workspace.report import Report
from cluestudio.core.workspace.source_files import MAX_NAME_BYTES, MAX_TEXT_BYTES

Check = Callable[[Any], bool]


def _text(limit: int = MAX_TEXT_BYTES) -> Check:
    return lambda v: isinstance(v, str) and len(v.encode("utf-8", "replace")) <= limit


def _optional(check: Check) -> Check:
    return lambda v: v is None or check(v)


def _one_of(choices: Collection[str]) -> Check:
    return lambda v: isinstance(v, str) and v in choices


_NAME = _text(MAX_NAME_BYTES)
_HASH = _optional(lambda v: isinstance(v, str) and len(v) == 64
                  and all(c in "0123456789abcdef" for c in v))
_FINITE = lambda v: (isinstance(v, int | float) and not isinstance(v, bool)  # noqa: E731
                     and math.isfinite(v))

# Section → field → check. Fields not listed are ignored; listed ones must be present.
SHAPES: dict[str, dict[str, Check]] = {
    "tasks": {"id": _NAME, "title": _text(), "requirement": _text(),
              "reference_puml": _text(), "reference_image": _HASH,
              "diagram_kind": _optional(_one_of(kinds.DIAGRAM_KINDS))},
    "submissions": {"task_id": _NAME, "source_id": _NAME, "origin": _one_of(ORIGINS),
                    "image_hash": _HASH, "meta": _optional(lambda v: isinstance(v, dict))},
    "conversions": {"uid": _NAME, "task_id": _NAME, "source_id": _NAME,
                    "parent_uid": _optional(_NAME), "puml": _text(), "author": _NAME,
                    "author_kind": _one_of(("human", "model", "import")),
                    "created_at": _NAME},
    "ratings": {"uid": _NAME, "task_id": _NAME, "source_id": _NAME, "grader": _NAME,
                "rubric_id": _NAME, "scores": lambda v: isinstance(v, dict),
                "total": _optional(_FINITE), "comment": _text(),
                "seconds": _optional(lambda v: _FINITE(v) and v >= 0),
                "synthetic": lambda v: v in (0, 1, True, False), "created_at": _NAME,
                "group_key": _optional(_NAME), "group_from": _optional(_NAME)},
    "reviews": {"task_id": _NAME, "source_id": _NAME, "reviewer": _NAME,
                "verdict": _one_of(("accept", "needs_fix", "unusable")),
                "tags": lambda v: isinstance(v, list) and all(isinstance(t, str) for t in v),
                "comment": _text(), "conversion_uid": _optional(_NAME), "created_at": _NAME},
}
# Fields a record may lack, with the value it then has: tasks from before diagram kinds,
# ratings from before group grading (schema v6).
_DEFAULTS: dict[str, dict[str, Any]] = {
    "tasks": {"diagram_kind": None, "reference_image": None, "requirement": "",
              "reference_puml": ""},
    "ratings": {"group_key": None, "group_from": None},
}


def check_pack_data(data: Any, source: str, report: Report, *,
                    known_submissions: Callable[[str, str], bool],
                    known_tasks: Callable[[str], bool],
                    known_images: Callable[[str], bool]) -> bool:
    """Whether ``data`` (a pack's ``data.json``) may be merged; every problem reported.

    The ``known_*`` callables say what the workspace already holds, so a pack may refer to
    tasks, submissions and images it does not carry itself.
    """
    if not isinstance(data, dict):
        report.error(source, "data.json is not an object")
        return False
    before = len(report.errors)
    for section, shape in SHAPES.items():
        records = data.get(section, [])
        if not isinstance(records, list):
            report.error(source, f"{section} is not a list")
            continue
        for index, record in enumerate(records):
            _check_record(record, shape, _DEFAULTS.get(section, {}), f"{section}[{index}]",
                          source, report)
    if len(report.errors) > before:
        return False
    _check_references(data, source, report, known_submissions, known_tasks, known_images)
    for index, rating in enumerate(data.get("ratings", [])):
        _check_rating(rating, f"ratings[{index}]", source, report)
    return len(report.errors) == before


def _check_record(record: Any, shape: Mapping[str, Check], defaults: Mapping[str, Any],
                  where: str, source: str, report: Report) -> None:
    if not isinstance(record, dict):
        report.error(source, f"{where}: not an object")
        return
    for name, check in shape.items():
        if name not in record and name in defaults:
            continue
        if name not in record:
            report.error(source, f"{where}: missing {name!r}")
        elif not check(record[name]):
            report.error(source, f"{where}: bad {name!r}: {str(record[name])[:80]!r}")


def _check_references(data: dict[str, Any], source: str, report: Report,
                      known_submissions: Callable[[str, str], bool],
                      known_tasks: Callable[[str], bool],
                      known_images: Callable[[str], bool]) -> None:
    tasks = {t["id"] for t in data.get("tasks", [])}
    for index, sub in enumerate(data.get("submissions", [])):
        if sub["task_id"] not in tasks and not known_tasks(sub["task_id"]):
            report.error(source, f"submissions[{index}]: unknown task {sub['task_id']!r}")
    images = {h for h in (*(s["image_hash"] for s in data.get("submissions", [])),
                          *(t.get("reference_image") for t in data.get("tasks", []))) if h}
    for digest in sorted(images):
        if not known_images(digest):
            report.error(source, f"image {digest[:12]}… is neither in the pack nor in the "
                                 "workspace")
    submissions = {(s["task_id"], s["source_id"]) for s in data.get("submissions", [])}
    for section in ("conversions", "ratings", "reviews"):
        for index, record in enumerate(data.get(section, [])):
            key = (record["task_id"], record["source_id"])
            if key not in submissions and not known_submissions(*key):
                report.error(source, f"{section}[{index}]: unknown submission "
                                     f"{key[0]}/{key[1]}")


def _check_rating(rating: dict[str, Any], where: str, source: str, report: Report) -> None:
    """Scores on the rubric's scales and a total that matches them (or a holistic total)."""
    try:
        rubric = get_rubric(rating["rubric_id"])
        if rating["scores"]:
            scores = rubric.validate(rating["scores"], source=f"{source}: {where}")
            expected = rubric.total(scores)
            if rating["total"] is None or abs(float(rating["total"]) - expected) > 1e-6:
                report.error(source, f"{where}: total {rating['total']!r} does not match the "
                                     f"item scores (they give {expected:g})")
        elif rating["total"] is None:
            report.error(source, f"{where}: neither item scores nor a total")
        else:
            rubric.validate_total(rating["total"], source=f"{source}: {where}")
    except RubricError as error:
        report.error(source, f"{where}: {error.message}")

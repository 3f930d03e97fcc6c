"""Plain records the workspace hands to views and commands (read side, no behaviour)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

ORIGINS = ("student", "llm", "synthetic")
VERDICTS = ("accept", "needs_fix", "unusable")
AUTHOR_KINDS = ("human", "model", "import")


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


@dataclass(frozen=True)
class Task:
    id: str
    title: str
    requirement: str = ""
    reference_puml: str = ""
    reference_image: str | None = None
    diagram_kind: str = "class"


@dataclass(frozen=True)
class Submission:
    id: int
    task_id: str
    source_id: str
    origin: str
    image_hash: str | None
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Revision:
    """One saved PlantUML text of a submission's conversion (append-only history)."""

    id: int
    uid: str
    submission_id: int
    parent_id: int | None
    puml: str
    author: str
    author_kind: str
    parse_ok: bool | None
    parse_error: str | None
    created_at: str


@dataclass(frozen=True)
class Rating:
    submission_id: int
    grader: str
    rubric_id: str
    scores: dict[str, float]
    total: float | None
    comment: str = ""
    seconds: float | None = None
    synthetic: bool = False
    created_at: str = ""
    uid: str = ""
    group_key: str | None = None  # set when applied to a group (commands.ApplyGroupRating)
    group_from: str | None = None  # source id of the submission it was applied from

    @property
    def group_applied(self) -> bool:
        return self.group_key is not None


@dataclass(frozen=True)
class Review:
    submission_id: int
    reviewer: str
    verdict: str
    tags: tuple[str, ...] = ()
    comment: str = ""
    conversion_id: int | None = None
    created_at: str = ""


def revision_from_row(row: dict[str, Any]) -> Revision:
    ok = row["parse_ok"]
    return Revision(row["id"], row["uid"], row["submission_id"], row["parent_id"], row["puml"],
                    row["author"], row["author_kind"], None if ok is None else bool(ok),
                    row["parse_error"], row["created_at"])


def rating_from_row(row: dict[str, Any]) -> Rating:
    return Rating(row["submission_id"], row["grader"], row["rubric_id"],
                  json.loads(row["scores"]), row["total"], row["comment"], row["seconds"],
                  bool(row["synthetic"]), row["created_at"], row["uid"],
                  row.get("group_key"), row.get("group_from"))


def review_from_row(row: dict[str, Any]) -> Review:
    return Review(row["submission_id"], row["reviewer"], row["verdict"],
                  tuple(json.loads(row["tags"])), row["comment"], row["conversion_id"],
                  row["created_at"])

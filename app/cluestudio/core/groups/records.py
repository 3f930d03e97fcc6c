"""The records of grading by group (:mod:`cluestudio.core.groups`): what is grouped, the
options, and the groups found. Picklable: a grouping comes back from the worker process."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cluestudio.core.errors import ClueStudioError

DEFAULT_THRESHOLD = 0.97  # CLUE both ways, for suggesting near members only


@dataclass(frozen=True)
class GroupOptions:
    threshold: float = DEFAULT_THRESHOLD  # CLUE, both directions: near suggestions
    embedder: str = "exact"  # fast and deterministic; a neural one also suggests synonyms

    def __post_init__(self) -> None:
        if not 0.0 < self.threshold <= 1.0:
            raise ClueStudioError(f"group threshold must be in (0, 1], not {self.threshold!r}")


@dataclass(frozen=True)
class GroupItem:
    """One submission's current PlantUML text: all the grouping needs."""

    submission_id: int
    source_id: str
    text: str


@dataclass(frozen=True)
class GroupMember:
    submission_id: int
    source_id: str
    similarity: float  # min of CLUE both ways against the representative (1.0 for its form)
    identical: bool  # the same diagram as the representative (equal canonical forms)
    differences: tuple[str, ...] = ()  # near members: what differs from the representative


@dataclass(frozen=True)
class SubmissionGroup:
    key: str  # stable across workspaces: from the representative diagram's content
    task_id: str
    members: tuple[GroupMember, ...]  # the representative, then every submission of its form
    near: tuple[GroupMember, ...] = ()  # "near, differs": CLUE suggests, the grader decides

    @property
    def representative(self) -> int:
        return self.members[0].submission_id

    @property
    def submission_ids(self) -> tuple[int, ...]:
        """The group proper: what a rating is applied to unless the grader changes it."""
        return tuple(m.submission_id for m in self.members)

    @property
    def near_ids(self) -> tuple[int, ...]:
        return tuple(m.submission_id for m in self.near)

    @property
    def size(self) -> int:
        return len(self.members)

    @property
    def identical_ids(self) -> tuple[int, ...]:
        """The representative and the members whose diagram equals it (all members)."""
        return tuple(m.submission_id for m in self.members if m.identical)

    def member(self, submission_id: int) -> GroupMember | None:
        return next((m for m in (*self.members, *self.near)
                     if m.submission_id == submission_id), None)

    def to_dict(self) -> dict[str, Any]:
        def entry(m: GroupMember) -> dict[str, Any]:
            return {"submission_id": m.submission_id, "source_id": m.source_id,
                    "similarity": round(m.similarity, 6), "identical": m.identical,
                    "differences": list(m.differences)}

        return {"key": self.key, "task_id": self.task_id, "representative": self.representative,
                "members": [entry(m) for m in self.members],
                "near": [entry(m) for m in self.near]}


@dataclass
class Grouping:
    task_id: str
    threshold: float
    embedder: str
    groups: list[SubmissionGroup] = field(default_factory=list)  # largest first
    singletons: list[int] = field(default_factory=list)  # no twin and no near suggestion
    unreadable: dict[int, str] = field(default_factory=dict)  # submission id → why
    distinct: int = 0  # distinct diagrams (buckets)
    pairs_possible: int = 0  # submission pairs n·(n−1)/2
    pairs_scored: int = 0  # diagram pairs CLUE scored (both directions count once)
    seconds: float = 0.0

    def group_of(self, submission_id: int) -> SubmissionGroup | None:
        """The group ``submission_id`` belongs to (as a member, not as a near suggestion)."""
        for group in self.groups:
            if submission_id in group.submission_ids:
                return group
        return None

    def to_dict(self) -> dict[str, Any]:
        return {"task_id": self.task_id, "threshold": self.threshold,
                "embedder": self.embedder, "groups": [g.to_dict() for g in self.groups],
                "singletons": self.singletons,
                "unreadable": {str(k): v for k, v in sorted(self.unreadable.items())},
                "distinct": self.distinct, "pairs_possible": self.pairs_possible,
                "pairs_scored": self.pairs_scored, "seconds": round(self.seconds, 3)}

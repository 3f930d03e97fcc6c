"""Undoable user actions (STYLE practice 6): do/undo/label, each returning what changed.

A command runs on the workspace's writer thread inside one transaction; the GUI refreshes
only the views named in the returned :class:`Changes`. Undo lives here, never in a widget.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import uuid
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from cluestudio.core.errors import ClueStudioError
from cluestudio.core.rubric import Rubric, get_rubric, rubric_id_for_kind
from cluestudio.core.workspace import ops
from cluestudio.core.workspace.heads import head_revision_id
from cluestudio.core.workspace.records import AUTHOR_KINDS, VERDICTS, now_iso
from cluestudio.core.workspace.source_files import MAX_NAME_BYTES, MAX_TEXT_BYTES, field_problems
from cluestudio.core.workspace.taxonomy import check_tags


class CommandError(ClueStudioError):
    """A command that cannot run (unknown submission, bad verdict, undo of a revision in use)."""


@dataclass(frozen=True)
class Changes:
    """What a command touched, by submission id, so views redraw only that."""

    label: str = ""
    ratings: frozenset[int] = frozenset()
    revisions: frozenset[int] = frozenset()
    reviews: frozenset[int] = frozenset()
    scores: frozenset[int] = frozenset()  # new scores stored (not undoable: recomputable)
    checks: frozenset[int] = frozenset()  # new conversion checks stored (recomputable too)
    result: Any = field(default=None, compare=False)  # e.g. the new revision id
    # Who asked for it (a view), as Anki's OpChanges reach ``operation_did_execute(changes,
    # handler)``: that view already shows the change and does not reload itself. Set by the
    # session (app/session.py), never by a command.
    initiator: Any = field(default=None, compare=False, repr=False)

    def made_by(self, view: object) -> bool:
        """Whether ``view`` made this change (and so already shows it)."""
        return self.initiator is not None and self.initiator is view

    @property
    def submissions(self) -> frozenset[int]:
        """Every submission this touched."""
        return self.ratings | self.revisions | self.reviews | self.scores | self.checks


class Command(Protocol):
    label: str

    def do(self, conn: sqlite3.Connection) -> Changes: ...

    def undo(self, conn: sqlite3.Connection) -> Changes: ...


def _refuse_oversized(**fields: tuple[str, int]) -> None:
    """The same field limits as imports and packs (source_files): refused, not stored."""
    if problems := field_problems(**fields):
        raise CommandError("; ".join(problems) + " (nothing was saved)")


def _require_submission(conn: sqlite3.Connection, submission_id: int) -> None:
    if ops.row(conn, "SELECT id FROM submissions WHERE id = ?", (submission_id,)) is None:
        raise CommandError(f"no submission with id {submission_id}")


def _task_kind(conn: sqlite3.Connection, submission_id: int) -> str:
    """The diagram kind of the submission's task."""
    found = ops.row(conn, "SELECT t.diagram_kind FROM submissions s JOIN tasks t ON"
                          " t.id = s.task_id WHERE s.id = ?", (submission_id,))
    return str(found["diagram_kind"]) if found else "class"


class SaveRating:
    """Save (or replace) one grader's rating of a submission under a rubric."""

    def __init__(self, submission_id: int, grader: str, scores: Mapping[str, float], *,
                 rubric: Rubric | None = None, comment: str = "", seconds: float | None = None,
                 synthetic: bool = False) -> None:
        _refuse_oversized(comment=(comment, MAX_TEXT_BYTES), grader=(grader, MAX_NAME_BYTES))
        self.rubric = rubric or get_rubric()
        # Validate before touching the db: an out-of-range score is the caller's error.
        self.scores = self.rubric.validate(scores)
        self.values: dict[str, Any] = {
            "uid": uuid.uuid4().hex, "submission_id": submission_id, "grader": grader,
            "rubric_id": self.rubric.id, "scores": json.dumps(self.scores, sort_keys=True),
            "total": self.rubric.total(self.scores), "comment": comment, "seconds": seconds,
            "synthetic": int(synthetic), "created_at": now_iso(),
        }
        self.label = f"Rate submission {submission_id}"
        self._before: dict[str, Any] | None = None

    def do(self, conn: sqlite3.Connection) -> Changes:
        sid, grader = self.values["submission_id"], self.values["grader"]
        _require_submission(conn, sid)
        self._before = ops.get_rating(conn, sid, grader, self.rubric.id)
        if self._before is not None:
            self.values["uid"] = self._before["uid"]  # same rating, new content
        ops.put_rating(conn, self.values)
        ops.audit(conn, grader, "save_rating", "rating", sid, self._before, self.values)
        return Changes(self.label, ratings=frozenset({sid}), result=self.values["total"])

    def undo(self, conn: sqlite3.Connection) -> Changes:
        sid, grader = self.values["submission_id"], self.values["grader"]
        if self._before is None:
            ops.delete_rating(conn, sid, grader, self.rubric.id)
        else:
            ops.put_rating(conn, {c: self._before[c] for c in ops.RATING_COLUMNS})
        ops.audit(conn, grader, "undo_save_rating", "rating", sid, self.values, self._before)
        return Changes(f"Undo {self.label.lower()}", ratings=frozenset({sid}))


@dataclass(frozen=True)
class GroupTargets:
    """What applying a grader's rating of ``source`` to a group would do."""

    source: int
    rating: dict[str, Any]  # the source's rating row (the one that is copied)
    write: tuple[int, ...]  # members whose rating would be written
    kept: tuple[int, ...]  # members this grader already rated: left as they are
    replaced: tuple[int, ...]  # members this grader already rated, overwritten (overwrite)


def group_targets(conn: sqlite3.Connection, source: int, members: Collection[int],
                  grader: str, rubric_id: str, *, overwrite: bool = False) -> GroupTargets:
    """Which members of a group a copy of ``grader``'s rating of ``source`` would write.

    Every member must be a submission of the source's task; the source itself is never a
    target. A member the grader already rated under ``rubric_id`` is kept unless
    ``overwrite``. Raises :class:`CommandError` when the grader has not rated the source.
    """
    _require_submission(conn, source)
    rating = ops.get_rating(conn, source, grader, rubric_id)
    if rating is None:
        raise CommandError(f"{grader} has not rated submission {source} with rubric "
                           f"{rubric_id!r}; rate it first, then apply that rating to its group")
    task = ops.row(conn, "SELECT task_id FROM submissions WHERE id = ?", (source,))
    assert task is not None
    ids = sorted(set(members) - {source})
    write, kept, replaced = [], [], []
    for sid in ids:
        found = ops.row(conn, "SELECT task_id FROM submissions WHERE id = ?", (sid,))
        if found is None:
            raise CommandError(f"no submission with id {sid}")
        if found["task_id"] != task["task_id"]:
            raise CommandError(f"submission {sid} belongs to task {found['task_id']!r}, not to "
                               f"{task['task_id']!r}: a group never spans tasks")
        if ops.get_rating(conn, sid, grader, rubric_id) is None:
            write.append(sid)
        elif overwrite:
            write.append(sid)
            replaced.append(sid)
        else:
            kept.append(sid)
    return GroupTargets(source, rating, tuple(write), tuple(kept), tuple(replaced))


class ApplyGroupRating:
    """Copy one grader's rating of a submission onto the other members of its group.

    One transaction; each written rating is marked group-applied (``group_key`` names the
    group, ``group_from`` the source submission's source id) and stays an ordinary rating:
    a later :class:`SaveRating` of that submission replaces it and clears the mark.
    Members the grader already rated are left alone unless ``overwrite``. Undo restores
    every touched rating as it was.
    """

    def __init__(self, source_submission_id: int, member_ids: Collection[int], grader: str,
                 group_key: str, *, rubric_id: str | None = None,
                 overwrite: bool = False) -> None:
        if not group_key:
            raise CommandError("a group rating needs the group's key")
        self.source, self.members = source_submission_id, frozenset(member_ids)
        self.grader, self.group_key, self.overwrite = grader, group_key, overwrite
        self.rubric_id = rubric_id
        self.label = (f"Apply rating of submission {source_submission_id} to "
                      f"{len(self.members - {source_submission_id})} similar submissions")
        self._before: dict[int, dict[str, Any] | None] = {}
        self.targets: GroupTargets | None = None

    def do(self, conn: sqlite3.Connection) -> Changes:
        _require_submission(conn, self.source)
        rubric_id = self.rubric_id or rubric_id_for_kind(_task_kind(conn, self.source))
        targets = group_targets(conn, self.source, self.members, self.grader, rubric_id,
                                overwrite=self.overwrite)
        origin = ops.row(conn, "SELECT source_id FROM submissions WHERE id = ?", (self.source,))
        assert origin is not None
        self._before = {}
        for sid in targets.write:
            before = ops.get_rating(conn, sid, self.grader, rubric_id)
            self._before[sid] = before
            values = {c: targets.rating[c] for c in ops.RATING_COLUMNS}
            values.update(uid=before["uid"] if before else uuid.uuid4().hex, submission_id=sid,
                          seconds=None, created_at=now_iso(), group_key=self.group_key,
                          group_from=str(origin["source_id"]))
            ops.put_rating(conn, values)
            ops.audit(conn, self.grader, "apply_group_rating", "rating", sid, before, values)
        self.targets = targets
        return Changes(self.label, ratings=frozenset(targets.write), result=targets)

    def undo(self, conn: sqlite3.Connection) -> Changes:
        rubric_id = self.targets.rating["rubric_id"] if self.targets else ""
        for sid, before in self._before.items():
            if before is None:
                ops.delete_rating(conn, sid, self.grader, rubric_id)
            else:
                ops.put_rating(conn, {c: before[c] for c in ops.RATING_COLUMNS})
            ops.audit(conn, self.grader, "undo_apply_group_rating", "rating", sid, None, before)
        return Changes(f"Undo {self.label[0].lower()}{self.label[1:]}",
                       ratings=frozenset(self._before))


class SaveRevision:
    """Append a PlantUML revision to a submission's conversion history."""

    def __init__(self, submission_id: int, puml: str, author: str, *,
                 author_kind: str = "human", parent_id: int | None = None) -> None:
        if author_kind not in AUTHOR_KINDS:
            raise CommandError(f"author kind must be one of {AUTHOR_KINDS}, not {author_kind!r}")
        from cluestudio.core.plantuml.parser import MAX_PARSE_BYTES, size_over_limit

        # no parse, score or render would take it: refuse, not store
        if (size := size_over_limit(puml)) is not None:
            raise CommandError(f"the PlantUML text is {size:,} bytes; a revision may have at "
                               f"most {MAX_PARSE_BYTES:,} (nothing was saved)")
        self.submission_id, self.puml, self.author = submission_id, puml, author
        self.author_kind, self.parent_id = author_kind, parent_id
        self.label = f"Edit PlantUML of submission {submission_id}"
        self.revision_id: int | None = None

    def do(self, conn: sqlite3.Connection) -> Changes:
        _require_submission(conn, self.submission_id)
        parent = self.parent_id
        if parent is None:  # default parent: the current head, so history stays a chain
            parent = head_revision_id(conn, self.submission_id)
        self.revision_id, _ = ops.add_revision(conn, self.submission_id, self.puml, self.author,
                                               self.author_kind, parent)
        ops.audit(conn, self.author, "save_revision", "conversion", self.revision_id,
                  None, {"submission_id": self.submission_id, "parent_id": parent})
        return Changes(self.label, revisions=frozenset({self.submission_id}),
                       result=self.revision_id)

    def undo(self, conn: sqlite3.Connection) -> Changes:
        used = ops.row(conn, "SELECT (SELECT count(*) FROM conversions WHERE parent_id = ?) +"
                       " (SELECT count(*) FROM reviews WHERE conversion_id = ?) AS n",
                       (self.revision_id, self.revision_id))
        if used and used["n"]:
            raise CommandError(f"revision {self.revision_id} has later edits or a review; "
                               "undo those first")
        conn.execute("DELETE FROM conversions WHERE id = ?", (self.revision_id,))
        ops.audit(conn, self.author, "undo_save_revision", "conversion", self.revision_id)
        return Changes(f"Undo {self.label.lower()}", revisions=frozenset({self.submission_id}))


class SetReviewVerdict:
    """Set a reviewer's A-vs-B verdict and issue tags on a submission's conversion.

    The tags must belong to the tag set of the task's diagram kind (taxonomy.py): checked
    against every kind's tags at once (or ``diagram_kind``'s, when the caller knows it),
    then against the task's own kind before anything is written.
    """

    def __init__(self, submission_id: int, reviewer: str, verdict: str,
                 tags: tuple[str, ...] | list[str] = (), *, comment: str = "",
                 conversion_id: int | None = None, diagram_kind: str | None = None) -> None:
        if verdict not in VERDICTS:
            raise CommandError(f"verdict must be one of {', '.join(VERDICTS)}, not {verdict!r}")
        _refuse_oversized(comment=(comment, MAX_TEXT_BYTES),
                          reviewer=(reviewer, MAX_NAME_BYTES))
        self.tags = check_tags(tags, diagram_kind)
        self.values: dict[str, Any] = {
            "submission_id": submission_id, "conversion_id": conversion_id,
            "reviewer": reviewer, "verdict": verdict,
            "tags": json.dumps(list(self.tags)), "comment": comment,
            "created_at": now_iso(),
        }
        self.label = f"Set verdict '{verdict}' on submission {submission_id}"
        self._before: dict[str, Any] | None = None

    def do(self, conn: sqlite3.Connection) -> Changes:
        sid, reviewer = self.values["submission_id"], self.values["reviewer"]
        _require_submission(conn, sid)
        check_tags(self.tags, _task_kind(conn, sid))
        if self.values["conversion_id"] is None:
            self.values["conversion_id"] = head_revision_id(conn, sid)
        self._before = ops.get_review(conn, sid, reviewer)
        ops.put_review(conn, self.values)
        ops.audit(conn, reviewer, "set_verdict", "review", sid, self._before, self.values)
        return Changes(self.label, reviews=frozenset({sid}))

    def undo(self, conn: sqlite3.Connection) -> Changes:
        sid, reviewer = self.values["submission_id"], self.values["reviewer"]
        if self._before is None:
            ops.delete_review(conn, sid, reviewer)
        else:
            ops.put_review(conn, {c: self._before[c] for c in ops.REVIEW_COLUMNS})
        ops.audit(conn, reviewer, "undo_set_verdict", "review", sid, self.values, self._before)
        return Changes(f"Undo {self.label[0].lower()}{self.label[1:]}", reviews=frozenset({sid}))


class UndoStack:
    """Done commands (to undo) and undone ones (to redo); a new command clears redo."""

    def __init__(self, limit: int = 200) -> None:
        self._done: list[Command] = []
        self._undone: list[Command] = []
        self._limit = limit
        self._lock = threading.Lock()

    def pushed(self, command: Command) -> None:
        with self._lock:
            self._done.append(command)
            del self._done[:-self._limit]
            self._undone.clear()

    def pop_undo(self) -> Command | None:
        with self._lock:
            return self._done.pop() if self._done else None

    def pop_redo(self) -> Command | None:
        with self._lock:
            return self._undone.pop() if self._undone else None

    def undone(self, command: Command) -> None:
        with self._lock:
            self._undone.append(command)

    def redone(self, command: Command) -> None:
        with self._lock:
            self._done.append(command)

    @property
    def undo_label(self) -> str | None:
        return self._done[-1].label if self._done else None

    @property
    def redo_label(self) -> str | None:
        return self._undone[-1].label if self._undone else None

"""Feedback a student reads: comments per rubric item, a comment bank, the overall comment.

A grader's comment on a rubric item of their rating is free text, a use of a **bank** comment
(a reusable comment of that rubric item, with an optional point adjustment), or an
element-diff **suggestion** the grader accepted (app/feedback_suggestions.py); nothing else
reaches a student. A bank comment's use shows the bank's current text and points, so editing
the bank comment once changes every submission that uses it (and the final grades of those
with points). Every change here is an undoable command (core/workspace/commands.py).
"""

from __future__ import annotations

import math
import sqlite3
import uuid
from dataclasses import dataclass
from typing import Any

from cluestudio.core.rubric import RubricError, get_rubric
from cluestudio.core.workspace import ops
from cluestudio.core.workspace.commands import Changes, CommandError
from cluestudio.core.workspace.records import now_iso
from cluestudio.core.workspace.store import Workspace

MAX_COMMENT_CHARS = 4000
ORIGINS = ("grader", "bank", "suggestion")
_COMMENT_COLUMNS = ("uid", "submission_id", "grader", "rubric_id", "item_id", "text",
                    "bank_uid", "origin", "created_at")
_BANK_COLUMNS = ("uid", "rubric_id", "item_id", "text", "points", "created_at", "updated_at")


@dataclass(frozen=True)
class BankComment:
    uid: str
    rubric_id: str
    item_id: str
    text: str
    points: float
    uses: int = 0


@dataclass(frozen=True)
class ItemComment:
    uid: str
    submission_id: int
    grader: str
    rubric_id: str
    item_id: str
    text: str  # for a bank use: the bank's current text
    origin: str
    bank_uid: str | None = None
    points: float = 0.0  # a bank use's point adjustment


def _check_text(text: str) -> str:
    text = text.strip()
    if not text:
        raise CommandError("a comment needs some text")
    if len(text) > MAX_COMMENT_CHARS:
        raise CommandError(f"a comment may have at most {MAX_COMMENT_CHARS} characters, "
                           f"not {len(text)}")
    return text


def _check_item(rubric_id: str, item_id: str) -> None:
    try:
        get_rubric(rubric_id).item(item_id)
    except RubricError as error:
        raise CommandError(str(error)) from error
    except KeyError:
        raise CommandError(f"rubric {rubric_id!r} has no item {item_id!r}") from None


# --- reading ------------------------------------------------------------------------------


def comment_bank(ws: Workspace, rubric_id: str | None = None, item_id: str | None = None
                 ) -> list[BankComment]:
    """Bank comments (of one rubric / item), with how many ratings use each."""
    sql = ("SELECT b.*, (SELECT count(*) FROM item_comments c WHERE c.bank_uid = b.uid) AS uses"
           " FROM comment_bank b WHERE (? IS NULL OR b.rubric_id = ?)"
           " AND (? IS NULL OR b.item_id = ?) ORDER BY b.rubric_id, b.item_id, b.id")
    return [BankComment(r["uid"], r["rubric_id"], r["item_id"], r["text"], float(r["points"]),
                        int(r["uses"]))
            for r in ops.rows(ws._reader(), sql, (rubric_id, rubric_id, item_id, item_id))]


def item_comments(ws: Workspace, submission_id: int | None = None, grader: str | None = None
                  ) -> list[ItemComment]:
    """Item comments as a student would read them (bank uses show the bank's text now)."""
    sql = ("SELECT c.*, b.text AS bank_text, b.points AS bank_points FROM item_comments c"
           " LEFT JOIN comment_bank b ON b.uid = c.bank_uid"
           " WHERE (? IS NULL OR c.submission_id = ?) AND (? IS NULL OR c.grader = ?)"
           " ORDER BY c.submission_id, c.grader, c.id")
    return [ItemComment(r["uid"], int(r["submission_id"]), r["grader"], r["rubric_id"],
                        r["item_id"], r["bank_text"] if r["bank_uid"] else r["text"],
                        r["origin"], r["bank_uid"], float(r["bank_points"] or 0.0))
            for r in ops.rows(ws._reader(), sql, (submission_id, submission_id, grader,
                                                  grader))]


# --- commands -----------------------------------------------------------------------------


class AddItemComment:
    """A grader's comment on one rubric item of their rating of a submission: free text
    (``origin="grader"``), an accepted suggestion (``"suggestion"``) or a bank comment
    (``bank_uid``; its text comes from the bank)."""

    def __init__(self, submission_id: int, grader: str, rubric_id: str, item_id: str, *,
                 text: str = "", bank_uid: str | None = None, origin: str = "grader") -> None:
        _check_item(rubric_id, item_id)
        if bank_uid is not None:
            origin, text = "bank", ""
        elif origin not in ("grader", "suggestion"):
            raise CommandError(f"comment origin must be one of {ORIGINS}, not {origin!r}")
        else:
            text = _check_text(text)
        self.values: dict[str, Any] = {
            "uid": uuid.uuid4().hex, "submission_id": submission_id, "grader": grader,
            "rubric_id": rubric_id, "item_id": item_id, "text": text, "bank_uid": bank_uid,
            "origin": origin, "created_at": now_iso()}
        self.label = f"Comment on {item_id} of submission {submission_id}"

    def do(self, conn: sqlite3.Connection) -> Changes:
        sid = self.values["submission_id"]
        if ops.row(conn, "SELECT id FROM submissions WHERE id = ?", (sid,)) is None:
            raise CommandError(f"no submission with id {sid}")
        bank = self.values["bank_uid"]
        if bank is not None:
            found = ops.row(conn, "SELECT rubric_id, item_id FROM comment_bank WHERE uid = ?",
                            (bank,))
            if found is None:
                raise CommandError(f"no bank comment {bank!r}")
            if (found["rubric_id"], found["item_id"]) != (self.values["rubric_id"],
                                                          self.values["item_id"]):
                raise CommandError(f"bank comment {bank!r} belongs to item "
                                   f"{found['item_id']!r}, not {self.values['item_id']!r}")
        insert_comment(conn, self.values)
        ops.audit(conn, self.values["grader"], "add_item_comment", "item_comment", sid,
                  None, self.values)
        return Changes(self.label, ratings=frozenset({sid}), result=self.values["uid"])

    def undo(self, conn: sqlite3.Connection) -> Changes:
        conn.execute("DELETE FROM item_comments WHERE uid = ?", (self.values["uid"],))
        ops.audit(conn, self.values["grader"], "undo_add_item_comment", "item_comment",
                  self.values["submission_id"], self.values, None)
        return Changes(f"Undo {self.label[0].lower()}{self.label[1:]}",
                       ratings=frozenset({self.values["submission_id"]}))


class RemoveItemComment:
    """Take a comment back (undo puts it back as it was)."""

    def __init__(self, uid: str) -> None:
        self.uid = uid
        self.label = "Remove comment"
        self._before: dict[str, Any] | None = None

    def do(self, conn: sqlite3.Connection) -> Changes:
        self._before = ops.row(conn, "SELECT * FROM item_comments WHERE uid = ?", (self.uid,))
        if self._before is None:
            raise CommandError(f"no comment {self.uid!r}")
        conn.execute("DELETE FROM item_comments WHERE uid = ?", (self.uid,))
        sid = int(self._before["submission_id"])
        ops.audit(conn, self._before["grader"], "remove_item_comment", "item_comment", sid,
                  self._before, None)
        return Changes(self.label, ratings=frozenset({sid}))

    def undo(self, conn: sqlite3.Connection) -> Changes:
        assert self._before is not None
        insert_comment(conn, self._before)
        sid = int(self._before["submission_id"])
        return Changes("Undo remove comment", ratings=frozenset({sid}))


class SaveBankComment:
    """Add a comment to an item's bank (``uid`` None) or edit one: the edit reaches every
    rating that uses it, with its points. Undo restores the text and points it had."""

    def __init__(self, rubric_id: str, item_id: str, text: str, points: float = 0.0, *,
                 uid: str | None = None, actor: str = "") -> None:
        _check_item(rubric_id, item_id)
        total_max = get_rubric(rubric_id).total_max
        if not math.isfinite(points) or abs(points) > total_max:
            raise CommandError(f"a point adjustment lies within ±{total_max:g}, not {points}")
        self.rubric_id, self.item_id, self.text = rubric_id, item_id, _check_text(text)
        self.points, self.uid, self.actor = float(points), uid, actor
        self.label = (f"Edit bank comment of {item_id}" if uid else
                      f"Add bank comment to {item_id}")
        self._before: dict[str, Any] | None = None
        self._created: str | None = None

    def do(self, conn: sqlite3.Connection) -> Changes:
        now = now_iso()
        if self.uid is None or self._created is not None:  # new (or redo of new)
            self._created = self._created or uuid.uuid4().hex
            conn.execute("INSERT INTO comment_bank(uid, rubric_id, item_id, text, points,"
                         " created_at, updated_at) VALUES (?,?,?,?,?,?,?)",
                         (self._created, self.rubric_id, self.item_id, self.text, self.points,
                          now, now))
            uid = self._created
        else:
            self._before = ops.row(conn, "SELECT * FROM comment_bank WHERE uid = ?",
                                   (self.uid,))
            if self._before is None:
                raise CommandError(f"no bank comment {self.uid!r}")
            if (self._before["rubric_id"], self._before["item_id"]) != (self.rubric_id,
                                                                        self.item_id):
                raise CommandError("a bank comment stays with its rubric item")
            conn.execute("UPDATE comment_bank SET text = ?, points = ?, updated_at = ?"
                         " WHERE uid = ?", (self.text, self.points, now, self.uid))
            uid = self.uid
        ops.audit(conn, self.actor, "save_bank_comment", "comment_bank", uid, self._before,
                  {"text": self.text, "points": self.points})
        return Changes(self.label, ratings=_users(conn, uid), result=uid)

    def undo(self, conn: sqlite3.Connection) -> Changes:
        if self._before is None:
            conn.execute("DELETE FROM comment_bank WHERE uid = ?", (self._created,))
            return Changes(f"Undo {self.label.lower()}")
        conn.execute("UPDATE comment_bank SET text = ?, points = ?, updated_at = ? WHERE uid = ?",
                     (self._before["text"], self._before["points"], self._before["updated_at"],
                      self._before["uid"]))
        return Changes(f"Undo {self.label.lower()}", ratings=_users(conn, self._before["uid"]))


class SetOverallComment:
    """The overall comment of a grader's rating (``ratings.comment``)."""

    def __init__(self, submission_id: int, grader: str, rubric_id: str, text: str) -> None:
        if len(text) > MAX_COMMENT_CHARS:
            raise CommandError(f"a comment may have at most {MAX_COMMENT_CHARS} characters")
        self.key = (submission_id, grader, rubric_id)
        self.text = text.strip()
        self.label = f"Overall comment on submission {submission_id}"
        self._before: str | None = None

    def do(self, conn: sqlite3.Connection) -> Changes:
        rating = ops.get_rating(conn, *self.key)
        if rating is None:
            raise CommandError(f"{self.key[1]} has not rated submission {self.key[0]}: rate it"
                               " first, then comment")
        self._before = str(rating["comment"])
        conn.execute("UPDATE ratings SET comment = ? WHERE submission_id = ? AND grader = ?"
                     " AND rubric_id = ?", (self.text, *self.key))
        return Changes(self.label, ratings=frozenset({self.key[0]}))

    def undo(self, conn: sqlite3.Connection) -> Changes:
        conn.execute("UPDATE ratings SET comment = ? WHERE submission_id = ? AND grader = ?"
                     " AND rubric_id = ?", (self._before or "", *self.key))
        return Changes(f"Undo {self.label[0].lower()}{self.label[1:]}",
                       ratings=frozenset({self.key[0]}))


def _users(conn: sqlite3.Connection, bank_uid: str) -> frozenset[int]:
    return frozenset(int(r[0]) for r in conn.execute(
        "SELECT DISTINCT submission_id FROM item_comments WHERE bank_uid = ?", (bank_uid,)))


def insert_comment(conn: sqlite3.Connection, values: dict[str, Any]) -> None:
    conn.execute(f"INSERT INTO item_comments({', '.join(_COMMENT_COLUMNS)}) VALUES"
                 f" ({', '.join('?' for _ in _COMMENT_COLUMNS)})",
                 tuple(values[c] for c in _COMMENT_COLUMNS))


def insert_bank(conn: sqlite3.Connection, values: dict[str, Any]) -> None:
    """A bank comment from a pack: added when new, otherwise the newer edit wins."""
    conn.execute(f"INSERT INTO comment_bank({', '.join(_BANK_COLUMNS)}) VALUES"
                 f" ({', '.join('?' for _ in _BANK_COLUMNS)}) ON CONFLICT(uid) DO UPDATE SET"
                 " text = excluded.text, points = excluded.points,"
                 " updated_at = excluded.updated_at WHERE excluded.updated_at >"
                 " comment_bank.updated_at", tuple(values[c] for c in _BANK_COLUMNS))

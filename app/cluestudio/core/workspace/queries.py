"""The read side of a workspace: what views list and show. Runs on per-thread reader connections."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from cluestudio.core.workspace.heads import (
    ID_LIST,
    already_scored,
    head_hashes,
    head_id_sql,
    head_row,
    head_texts,
    ids_json,
)
from cluestudio.core.workspace.ops import row, rows
from cluestudio.core.workspace.records import (
    Rating,
    Review,
    Revision,
    Submission,
    Task,
    rating_from_row,
    review_from_row,
    revision_from_row,
)
from cluestudio.core.workspace.scores import (
    ScoreConfig,
    StoredScore,
    current_scores,
    current_values,
)


@dataclass(frozen=True)
class SubmissionSummary:
    """One line of the submission list: enough to draw it without further queries."""

    id: int
    task_id: str
    source_id: str
    origin: str
    has_image: bool
    head_revision_id: int | None
    revisions: int
    ratings: int
    verdicts: tuple[str, ...]


_LIST_SQL = f"""
SELECT s.id, s.task_id, s.source_id, s.origin, s.image_hash IS NOT NULL AS has_image,
  {head_id_sql('s.id')} AS head,
  (SELECT count(*) FROM conversions c WHERE c.submission_id = s.id) AS revisions,
  (SELECT count(*) FROM ratings r WHERE r.submission_id = s.id) AS ratings,
  (SELECT group_concat(v.verdict) FROM reviews v WHERE v.submission_id = s.id) AS verdicts
FROM submissions s {{where}} ORDER BY s.task_id, s.source_id
"""


class WorkspaceQueries:
    """Mixin: every method opens (once per thread) a read connection via ``_reader()``."""

    def _reader(self) -> sqlite3.Connection:  # pragma: no cover - provided by Workspace
        raise NotImplementedError

    def tasks(self) -> list[Task]:
        return [Task(r["id"], r["title"], r["requirement"], r["reference_puml"],
                     r["reference_image"], r["diagram_kind"])
                for r in rows(self._reader(), "SELECT * FROM tasks ORDER BY id")]

    def task(self, task_id: str) -> Task | None:
        found = [t for t in self.tasks() if t.id == task_id]
        return found[0] if found else None

    def list_submissions(self, task_id: str | None = None, origin: str | None = None, *,
                         submission_ids: Collection[int] | None = None
                         ) -> list[SubmissionSummary]:
        clauses: list[str] = []
        params: list[Any] = []
        if submission_ids is not None:
            if not submission_ids:
                return []
            clauses.append(f"s.id IN {ID_LIST}")
            params.append(ids_json(submission_ids))
        if task_id is not None:
            clauses.append("s.task_id = ?")
            params.append(task_id)
        if origin is not None:
            clauses.append("s.origin = ?")
            params.append(origin)
        where = ("WHERE " + " AND ".join(clauses)) if clauses else ""
        cursor = self._reader().execute(_LIST_SQL.format(where=where), params)
        return [SubmissionSummary(r[0], r[1], r[2], r[3], bool(r[4]), r[5], r[6], r[7],
                                  tuple(r[8].split(",")) if r[8] else ())
                for r in cursor.fetchall()]

    def submission(self, submission_id: int) -> Submission | None:
        r = row(self._reader(), "SELECT * FROM submissions WHERE id = ?", (submission_id,))
        if r is None:
            return None
        return Submission(r["id"], r["task_id"], r["source_id"], r["origin"], r["image_hash"],
                          json.loads(r["meta"]))

    def find_submission(self, task_id: str, source_id: str) -> Submission | None:
        r = row(self._reader(), "SELECT id FROM submissions WHERE task_id=? AND source_id=?",
                (task_id, source_id))
        return None if r is None else self.submission(int(r["id"]))

    def has_image(self, content_hash: str) -> bool:
        return self._reader().execute("SELECT 1 FROM blobs WHERE hash = ?",
                                      (content_hash,)).fetchone() is not None

    def image(self, content_hash: str) -> bytes | None:
        r = self._reader().execute("SELECT data FROM blobs WHERE hash = ?",
                                   (content_hash,)).fetchone()
        return None if r is None else bytes(r[0])

    def revisions(self, submission_id: int) -> list[Revision]:
        return [revision_from_row(r) for r in rows(
            self._reader(), "SELECT * FROM conversions WHERE submission_id = ? ORDER BY id",
            (submission_id,))]

    def head_revisions(self, submission_ids: Collection[int] | None = None
                       ) -> dict[int, str]:
        """submission id → the PlantUML text of its head revision (core/workspace/heads.py),
        in one query."""
        return head_texts(self._reader(), submission_ids)

    def head_hashes(self, submission_ids: Collection[int] | None = None) -> dict[int, str]:
        """submission id → the content hash of its head revision, without the texts."""
        return head_hashes(self._reader(), submission_ids)

    def head_revision(self, submission_id: int) -> Revision | None:
        r = head_row(self._reader(), submission_id)
        return None if r is None else revision_from_row(r)

    def already_scored(self, *, embedder: str, profile: str, normalization: str,
                       weights_hash: str, submission_ids: Collection[int] | None = None
                       ) -> set[int]:
        """The submissions whose head revision is scored with this configuration
        (core/workspace/heads.py)."""
        return already_scored(self._reader(), embedder=embedder, profile=profile,
                              normalization=normalization, weights_hash=weights_hash,
                              submission_ids=submission_ids)

    def ratings_by(self, grader: str, rubric_id: str,
                   submission_ids: Collection[int] | None = None) -> dict[int, Rating]:
        """One grader's ratings under one rubric, by submission id."""
        sql = "SELECT * FROM ratings WHERE grader = ? AND rubric_id = ?"
        params: list[Any] = [grader, rubric_id]
        if submission_ids is not None:
            sql += f" AND submission_id IN {ID_LIST}"
            params.append(ids_json(submission_ids))
        return {r.submission_id: r for r in map(rating_from_row,
                                                 rows(self._reader(), sql, tuple(params)))}

    def ratings(self, submission_id: int | None = None) -> list[Rating]:
        if submission_id is None:
            found = rows(self._reader(), "SELECT * FROM ratings ORDER BY submission_id, grader")
        else:
            found = rows(self._reader(), "SELECT * FROM ratings WHERE submission_id = ? "
                         "ORDER BY grader", (submission_id,))
        return [rating_from_row(r) for r in found]

    def rating(self, submission_id: int, grader: str, rubric_id: str) -> Rating | None:
        r = row(self._reader(), "SELECT * FROM ratings WHERE submission_id=? AND grader=? "
                "AND rubric_id=?", (submission_id, grader, rubric_id))
        return None if r is None else rating_from_row(r)

    def reviews(self, submission_id: int | None = None) -> list[Review]:
        sql, params = "SELECT * FROM reviews", tuple[int, ...]()
        if submission_id is not None:
            sql, params = sql + " WHERE submission_id = ?", (submission_id,)
        return [review_from_row(r) for r in rows(self._reader(), sql + " ORDER BY id", params)]

    def scores(self, submission_id: int | None = None) -> list[dict[str, Any]]:
        sql, params = "SELECT * FROM scores", tuple[int, ...]()
        if submission_id is not None:
            sql, params = sql + " WHERE submission_id = ?", (submission_id,)
        return rows(self._reader(), sql + " ORDER BY submission_id, metric", params)

    def metric_values(self, metric: str) -> dict[int, float]:
        """The current value of ``metric`` per submission (core/workspace/scores.py)."""
        return current_values(self._reader(), metric)

    def current_scores(self, submission_ids: Collection[int] | None = None,
                       metrics: Collection[str] | None = None, *,
                       explanations: bool = False) -> dict[int, dict[str, StoredScore]]:
        """submission id → metric → current score (core/workspace/scores.py)."""
        return current_scores(self._reader(), submission_ids, metrics,
                              explanations=explanations)

    def scored_explanation(self, submission_id: int, content_hash: str, metric: str = "clue"
                           ) -> tuple[str, str] | None:
        """(explanation JSON text, configuration label) of the newest ``metric`` score of
        the submission's text with ``content_hash`` (any revision, not only the head)."""
        r = row(self._reader(), "SELECT explanation, metric_version, embedder, profile,"
                " normalization, weights_hash FROM scores WHERE submission_id = ? AND"
                " content_hash = ? AND metric = ? ORDER BY id DESC LIMIT 1",
                (submission_id, content_hash, metric))
        if r is None:
            return None
        config = ScoreConfig(r["metric_version"], r["embedder"], r["profile"],
                             r["normalization"], r["weights_hash"])
        return str(r["explanation"] or ""), config.label()

    def probe_results(self, submission_id: int | None = None) -> list[dict[str, Any]]:
        """VLM probe rows (seed 003), oldest first; ``result`` is the probe's JSON text."""
        sql, params = "SELECT * FROM probe_results", tuple[int, ...]()
        if submission_id is not None:
            sql, params = sql + " WHERE submission_id = ?", (submission_id,)
        return rows(self._reader(), sql + " ORDER BY created_at, id", params)

    def check_results(self, submission_id: int | None = None) -> list[dict[str, Any]]:
        """Offline conversion checks (issue 18), oldest first; ``result`` is the report's
        JSON text (``CheckReport.from_dict(json.loads(row["result"]))``)."""
        sql, params = "SELECT * FROM check_results", tuple[int, ...]()
        if submission_id is not None:
            sql, params = sql + " WHERE submission_id = ?", (submission_id,)
        return rows(self._reader(), sql + " ORDER BY created_at, id", params)

    def latest_checks(self, submission_ids: Collection[int] | None = None
                      ) -> dict[int, dict[str, Any]]:
        """Per submission, the newest check of its head revision and current image A:
        ``{submission_id: {"conversion_id", "triage", "flagged", "missing", "invented",
        "text_recall", "name_precision", "check_version", "engine", "verdict", "reason",
        "not_judged"}}`` (verdict, reason and what it did not judge, a tuple of sentences,
        from the stored report, empty when it has none); a submission
        whose head revision or image changed since its last check is left out (stale)."""
        only, params = "", list[str]()
        if submission_ids is not None:
            only, params = f" AND c.submission_id IN {ID_LIST}", [ids_json(submission_ids)]
        found = self._reader().execute(
            "SELECT c.submission_id, c.conversion_id, c.triage, c.flagged, c.missing,"
            " c.invented, c.text_recall, c.name_precision, c.check_version, c.engine,"
            " CASE WHEN json_valid(c.result) THEN json_extract(c.result, '$.verdict') END,"
            " CASE WHEN json_valid(c.result) THEN json_extract(c.result, '$.reason') END,"
            " CASE WHEN json_valid(c.result) THEN json_extract(c.result, '$.not_judged') END"
            " FROM check_results c JOIN submissions s ON s.id = c.submission_id"
            " WHERE c.image_hash = s.image_hash AND c.conversion_id ="
            f" {head_id_sql('c.submission_id')}"
            f"{only} ORDER BY c.created_at, c.id", params).fetchall()
        keys = ("conversion_id", "triage", "flagged", "missing", "invented", "text_recall",
                "name_precision", "check_version", "engine", "verdict", "reason",
                "not_judged")
        latest: dict[int, dict[str, Any]] = {}
        for r in found:
            row = latest[int(r[0])] = dict(zip(keys, r[1:], strict=True))
            row["flagged"] = bool(row["flagged"])
            row["verdict"], row["reason"] = str(row["verdict"] or ""), str(row["reason"] or "")
            row["not_judged"] = tuple(str(n) for n in json.loads(row["not_judged"] or "[]"))
        return latest

    def audit_results(self, model: str | None = None, prompt_version: str | None = None,
                      seed: int | None = None) -> list[dict[str, Any]]:
        """Prior-bias audit answers as their records (dicts), in the order they were stored;
        ``model``, ``prompt_version`` and ``seed`` narrow them to one audit."""
        clauses: list[str] = []
        params: list[Any] = []
        for column, value in (("model", model), ("prompt_version", prompt_version),
                              ("seed", seed)):
            if value is not None:
                clauses.append(f"{column} = ?")
                params.append(value)
        where = (" WHERE " + " AND ".join(clauses)) if clauses else ""
        cursor = self._reader().execute(
            f"SELECT record FROM audit_results{where} ORDER BY id", params)
        return [json.loads(r[0]) for r in cursor.fetchall()]

    def audit_log(self, limit: int = 100) -> list[dict[str, Any]]:
        return rows(self._reader(), "SELECT * FROM audit_log ORDER BY id DESC LIMIT ?", (limit,))

    def counts(self) -> dict[str, int]:
        conn = self._reader()
        return {table: int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
                for table in ("tasks", "submissions", "blobs", "conversions", "reviews",
                              "ratings", "scores", "probe_results", "jobs", "audit_log",
                              "audit_results")}

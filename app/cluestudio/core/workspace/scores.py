"""Which stored score is current: the one definition every view, export and calibration reads.

A score row is keyed by the submission, the text it scored (``content_hash``, the sha256 of
the revision's PlantUML: :func:`~cluestudio.core.workspace.ops.text_hash`), the metric, and
the configuration that computed it (:class:`ScoreConfig`: metric version, embedder,
similarity profile, normalization, weights fingerprint). A submission may hold many rows per
metric: older revisions, other configurations.

**The current score of (submission, metric) is the most recently computed row for the text of
the submission's head revision** (defined in core/workspace/heads.py), whatever its
configuration; its configuration is shown with it. Scoring the same text again makes that
value current (exact → minilm → exact shows the exact value), because a re-computed row is
written as a new row (``put_score``), so row ids follow computation order.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection
from dataclasses import dataclass

from cluestudio.core.workspace.heads import HEADS


@dataclass(frozen=True)
class ScoreConfig:
    """How a score was computed; every field is part of the score's key."""

    metric_version: str = ""
    embedder: str = ""
    profile: str = ""
    normalization: str = ""
    weights_hash: str = ""

    def label(self) -> str:
        """Short words for a tooltip or a table: ``minilm · paper · reference``."""
        parts = [self.embedder, self.profile, self.normalization,
                 f"v{self.metric_version}" if self.metric_version else ""]
        return " · ".join(p for p in parts if p)


@dataclass(frozen=True)
class StoredScore:
    submission_id: int
    metric: str
    value: float | None
    content_hash: str
    config: ScoreConfig
    scored_at: str
    explanation: str | None = None  # JSON text, when asked for
    row_id: int = 0


def current_scores(conn: sqlite3.Connection, submission_ids: Collection[int] | None = None,
                   metrics: Collection[str] | None = None, *, explanations: bool = False,
                   ) -> dict[int, dict[str, StoredScore]]:
    """submission id → metric → its current score (see the module docstring).

    ``submission_ids`` / ``metrics`` narrow the query; explanations (large JSON) are read
    only when asked for.
    """
    columns = ("s.id, s.submission_id, s.metric, s.value, s.content_hash, s.metric_version,"
               " s.embedder, s.profile, s.normalization, s.weights_hash, s.created_at"
               + (", s.explanation" if explanations else ""))
    where: list[str] = []
    params: list[object] = []
    for column, wanted in (("s.submission_id", submission_ids), ("s.metric", metrics)):
        if wanted is not None:
            chosen = list(wanted)
            if not chosen:
                return {}
            where.append(f"{column} IN ({', '.join('?' * len(chosen))})")
            params += chosen
    sql = (f"SELECT {columns} FROM scores s JOIN ({HEADS}) h ON h.submission_id = "
           f"s.submission_id AND h.content_hash = s.content_hash"
           + (f" WHERE {' AND '.join(where)}" if where else "") + " ORDER BY s.id")
    out: dict[int, dict[str, StoredScore]] = {}
    for row in conn.execute(sql, params):
        sid = int(row[1])
        # Rows come in computation order: the last one of a metric is its current score.
        out.setdefault(sid, {})[row[2]] = StoredScore(
            sid, row[2], None if row[3] is None else float(row[3]), row[4],
            ScoreConfig(row[5], row[6], row[7], row[8], row[9]), row[10],
            row[11] if explanations else None, int(row[0]))
    return out


def current_values(conn: sqlite3.Connection, metric: str) -> dict[int, float]:
    """submission id → the current value of ``metric`` (submissions with none left out)."""
    out: dict[int, float] = {}
    for sid, scores in current_scores(conn, metrics=[metric]).items():
        value = scores[metric].value
        if value is not None:
            out[sid] = value
    return out

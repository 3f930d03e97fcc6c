"""Tidy exports of ratings, scores and reviews (CSV and JSON) for analysis tools.

Ratings come one row per submission × grader × rubric item (plus a ``total`` row), so R,
pandas or a spreadsheet can pivot them without parsing JSON columns.
"""

from __future__ import annotations

import csv
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from cluestudio.core.workspace.ops import rows
from cluestudio.core.workspace.store import Workspace

TABLES = ("ratings", "scores", "reviews", "final")


def rating_rows(ws: Workspace) -> list[dict[str, Any]]:
    out = []
    for r in rows(ws._reader(), "SELECT s.task_id, s.source_id, s.origin, r.* FROM ratings r "
                  "JOIN submissions s ON s.id = r.submission_id "
                  "ORDER BY s.task_id, s.source_id, r.grader, r.rubric_id"):
        base = {"task_id": r["task_id"], "source_id": r["source_id"], "origin": r["origin"],
                "grader": r["grader"], "rubric_id": r["rubric_id"],
                "synthetic": bool(r["synthetic"]), "seconds": r["seconds"],
                "comment": r["comment"], "rated_at": r["created_at"],
                "group_key": r["group_key"], "group_from": r["group_from"]}
        for item, score in sorted(json.loads(r["scores"]).items()):
            out.append({**base, "item": item, "score": score})
        out.append({**base, "item": "total", "score": r["total"]})
    return out


def score_rows(ws: Workspace) -> list[dict[str, Any]]:
    """Every stored score, with ``current`` true on the one each view shows (the newest
    computed for the submission's head revision: core/workspace/scores.py)."""
    current = {score.row_id for scores in ws.current_scores().values()
               for score in scores.values()}
    return [{**{k: v for k, v in r.items() if k != "id"}, "current": r["id"] in current}
            for r in rows(
        ws._reader(), "SELECT c.id, s.task_id, s.source_id, c.metric, c.metric_version,"
        " c.embedder, c.profile, c.normalization, c.weights_hash, c.content_hash, c.value,"
        " c.explanation, c.created_at AS scored_at"
        " FROM scores c JOIN submissions s ON s.id = c.submission_id"
        " ORDER BY s.task_id, s.source_id, c.metric, c.id")]


def review_rows(ws: Workspace) -> list[dict[str, Any]]:
    """One row per review × tag (a review without tags gives one row with an empty tag)."""
    out = []
    for r in rows(ws._reader(), "SELECT s.task_id, s.source_id, v.reviewer, v.verdict, v.tags,"
                  " v.comment, v.conversion_id, v.created_at AS reviewed_at FROM reviews v"
                  " JOIN submissions s ON s.id = v.submission_id"
                  " ORDER BY s.task_id, s.source_id, v.reviewer"):
        tags = json.loads(r.pop("tags")) or [""]
        out += [{**r, "tag": tag} for tag in tags]
    return out


def final_rows(ws: Workspace) -> list[dict[str, Any]]:
    """One row per submission: its final grade and what it rests on (core/final_grade.py)."""
    from cluestudio.core.workspace.finals import final_rows as rows_of_finals

    return rows_of_finals(ws)


_ROWS = {"ratings": rating_rows, "scores": score_rows, "reviews": review_rows,
         "final": final_rows}


def _atomic_write(path: Path, write: Any) -> None:
    """Write to a temp file beside ``path`` and rename, so readers never see half a file."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", newline="", encoding="utf-8") as handle:
            write(handle)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def export_tables(ws: Workspace, out_dir: Path, tables: tuple[str, ...] = TABLES,
                  formats: tuple[str, ...] = ("csv", "json")) -> dict[str, Path]:
    """Write ``<table>.csv`` / ``<table>.json`` into ``out_dir``; returns what was written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = {}
    for table in tables:
        data = _ROWS[table](ws)
        if "json" in formats:
            path = out_dir / f"{table}.json"
            _atomic_write(path, lambda h, d=data: json.dump(d, h, indent=1, ensure_ascii=False))
            written[f"{table}.json"] = path
        if "csv" in formats:
            path = out_dir / f"{table}.csv"
            fields = list(data[0]) if data else ["task_id", "source_id"]

            def write_csv(handle: Any, d: list[dict[str, Any]] = data,
                          f: list[str] = fields) -> None:
                writer = csv.DictWriter(handle, fieldnames=f)
                writer.writeheader()
                writer.writerows(d)

            _atomic_write(path, write_csv)
            written[f"{table}.csv"] = path
    return written

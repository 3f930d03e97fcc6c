"""Tidy exports of ratings, scores and reviews (CSV and JSON) for analysis tools.

Ratings come one row per submission × grader × rubric item (plus a ``total`` row), so R,
pandas or a spreadsheet can pivot them without parsing JSON columns.

Rows stream from the database to the files (memory does not grow with the workspace), CSV
cells cannot be formulas, and the files of one export appear together or not at all
(:mod:`cluestudio.core.safe_output`). A text field over the import limit (which only a file
edited outside ClueStudio can hold) is exported as a note of its size, not whole.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from cluestudio.core.safe_output import OutputSet, csv_dict_writer
from cluestudio.core.workspace.ops import stream_rows
from cluestudio.core.workspace.source_files import MAX_TEXT_BYTES
from cluestudio.core.workspace.store import Workspace

TABLES = ("ratings", "scores", "reviews", "final")
FIELDS = {
    "ratings": ("task_id", "source_id", "origin", "grader", "rubric_id", "synthetic",
                "seconds", "comment", "rated_at", "group_key", "group_from", "item", "score"),
    "scores": ("task_id", "source_id", "metric", "metric_version", "embedder", "profile",
               "normalization", "weights_hash", "content_hash", "value", "explanation",
               "scored_at", "current"),
    "reviews": ("task_id", "source_id", "reviewer", "verdict", "comment", "conversion_id",
                "reviewed_at", "tag"),
    "final": ("task_id", "source_id", "rubric_id", "final", "basis", "graders", "spread"),
}
_BATCH = 500
_JSON = json.JSONEncoder(ensure_ascii=False)  # one encoder for every row, not one per row


def _text(column: str) -> str:
    """``column`` when within the text limit, else a note of its size (read by SQLite,
    never brought into Python whole)."""
    return (f"CASE WHEN length(CAST({column} AS BLOB)) > {MAX_TEXT_BYTES} THEN "
            f"'[' || length(CAST({column} AS BLOB)) || ' bytes: over the "
            f"{MAX_TEXT_BYTES >> 20} MB limit, not exported]' ELSE {column} END")


def rating_rows(ws: Workspace) -> Iterator[dict[str, Any]]:
    for r in stream_rows(ws._reader(),
                     "SELECT s.task_id, s.source_id, s.origin, r.grader, r.rubric_id,"
                     " r.synthetic, r.seconds, " + _text("r.comment") + " AS comment,"
                     " r.created_at, r.group_key, r.group_from, r.total, "
                     + _text("r.scores") + " AS scores FROM ratings r"
                     " JOIN submissions s ON s.id = r.submission_id"
                     " ORDER BY s.task_id, s.source_id, r.grader, r.rubric_id"):
        base = {"task_id": r["task_id"], "source_id": r["source_id"], "origin": r["origin"],
                "grader": r["grader"], "rubric_id": r["rubric_id"],
                "synthetic": bool(r["synthetic"]), "seconds": r["seconds"],
                "comment": r["comment"], "rated_at": r["created_at"],
                "group_key": r["group_key"], "group_from": r["group_from"]}
        try:
            scores = json.loads(r["scores"])
        except ValueError:
            scores = {}
        for item, score in sorted(scores.items() if isinstance(scores, dict) else []):
            yield {**base, "item": item, "score": score}
        yield {**base, "item": "total", "score": r["total"]}


def score_rows(ws: Workspace) -> Iterator[dict[str, Any]]:
    """Every stored score, with ``current`` true on the one each view shows (the newest
    computed for the submission's head revision: core/workspace/scores.py)."""
    current = {score.row_id for scores in ws.current_scores().values()
               for score in scores.values()}
    for r in stream_rows(
            ws._reader(), "SELECT c.id, s.task_id, s.source_id, c.metric, c.metric_version,"
            " c.embedder, c.profile, c.normalization, c.weights_hash, c.content_hash, c.value,"
            " " + _text("c.explanation") + " AS explanation, c.created_at AS scored_at"
            " FROM scores c JOIN submissions s ON s.id = c.submission_id"
            " ORDER BY s.task_id, s.source_id, c.metric, c.id"):
        yield {**{k: v for k, v in r.items() if k != "id"}, "current": r["id"] in current}


def review_rows(ws: Workspace) -> Iterator[dict[str, Any]]:
    """One row per review × tag (a review without tags gives one row with an empty tag)."""
    for r in stream_rows(ws._reader(),
                     "SELECT s.task_id, s.source_id, v.reviewer, v.verdict, v.tags, "
                     + _text("v.comment") + " AS comment, v.conversion_id,"
                     " v.created_at AS reviewed_at FROM reviews v"
                     " JOIN submissions s ON s.id = v.submission_id"
                     " ORDER BY s.task_id, s.source_id, v.reviewer"):
        try:
            tags = json.loads(r.pop("tags")) or [""]
        except ValueError:
            tags = [""]
        for tag in tags if isinstance(tags, list) else [""]:
            yield {**r, "tag": tag}


def final_rows(ws: Workspace) -> Iterator[dict[str, Any]]:
    """One row per submission: its final grade and what it rests on (core/final_grade.py)."""
    from cluestudio.core.workspace.finals import final_rows as rows_of_finals

    return rows_of_finals(ws)


_ROWS = {"ratings": rating_rows, "scores": score_rows, "reviews": review_rows,
         "final": final_rows}


def export_tables(ws: Workspace, out_dir: Path, tables: tuple[str, ...] = TABLES,
                  formats: tuple[str, ...] = ("csv", "json")) -> dict[str, Path]:
    """Write ``<table>.csv`` / ``<table>.json`` into ``out_dir``; returns what was written.

    All files appear together when the last is written; on an error (a full disk) none
    of them changed and the error names the file that could not be written.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    with OutputSet() as outputs:
        for table in tables:
            paths: dict[str, Path] = {fmt: out_dir / f"{table}.{fmt}" for fmt in ("json", "csv")
                     if fmt in formats}
            _write_table(ws, outputs, table, paths)
            written |= {path.name: path for path in paths.values()}
    return written


def _write_table(ws: Workspace, outputs: OutputSet, table: str, paths: dict[str, Path]) -> None:
    with _maybe_open(outputs, paths.get("json")) as as_json, \
            _maybe_open(outputs, paths.get("csv")) as as_csv:
        writer = csv_dict_writer(as_csv, FIELDS[table]) if as_csv else None
        if writer:
            writer.writeheader()
        if as_json:
            as_json.write("[")
        first = True
        for row in _ROWS[table](ws):
            if writer:
                writer.writerow(row)
            if as_json:
                as_json.write(("\n" if first else ",\n") + _JSON.encode(row))
            first = False
        if as_json:
            as_json.write("\n]\n")


def _maybe_open(outputs: OutputSet, path: Path | None) -> Any:
    return outputs.open(path) if path is not None else nullcontext(None)

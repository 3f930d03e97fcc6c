"""Persist conversion attempts and probe results in a course workspace (DESIGN §7).

Each conversion attempt becomes a PlantUML revision (author = the model, parent = the
attempt before it) plus an audit-log entry holding what the revision table has no column
for (prompt version, tokens, the error fed back). A probe result goes to ``probe_results``.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable
from typing import Any

from cluestudio.core.vlm.cache import Key, RecordIndex, record_key
from cluestudio.core.vlm.conversion import ConversionResult
from cluestudio.core.vlm.probe import ProbeResult, RelationQuestion

PROBE_NAME = "vlm-seed003"


def store_conversion(workspace: Any, submission_id: int, result: ConversionResult,
                     parent_id: int | None = None) -> list[int]:
    """Revision ids of the attempts, oldest first, written in one transaction."""
    from cluestudio.core.workspace import ops

    def write(conn: sqlite3.Connection) -> list[int]:
        ids: list[int] = []
        parent = parent_id
        for attempt in result.attempts:
            # An answer without a diagram is kept too: the reviewer sees what the model said.
            text = attempt.puml if attempt.puml is not None else attempt.answer
            revision, _ = ops.add_revision(conn, submission_id, text, attempt.model, "model",
                                           parent)
            details = {k: v for k, v in attempt.to_dict().items() if k not in ("answer", "puml")}
            details["image_sha256"] = result.image_sha256
            ops.audit(conn, attempt.model, "vlm-convert", "conversion", revision,
                      after=details)
            ids.append(revision)
            parent = revision
        return ids

    return list(workspace.write(write))


def probe_input_hash(result: ProbeResult) -> str:
    """Image, expected names, questions and prompts: a new answer is needed if any changes."""
    return probe_input_hash_of(result.image_sha256, result.gold_names,
                               [a.question for a in result.answers], result.prompt_version)


def probe_input_hash_of(image_sha256: str, gold_names: Iterable[str],
                        questions: Iterable[RelationQuestion], prompt_version: str) -> str:
    """:func:`probe_input_hash` before asking: from image A's hash, the class names and
    relation questions of the PlantUML (``relation_questions``) and the prompt version."""
    payload = json.dumps([image_sha256, list(gold_names),
                          [[q.relation, q.a, q.b, q.gold] for q in questions],
                          prompt_version], sort_keys=True)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def store_probe(workspace: Any, submission_id: int, result: ProbeResult) -> None:
    from cluestudio.core.workspace import ops

    def write(conn: sqlite3.Connection) -> None:
        ops.put_probe_result(conn, submission_id, PROBE_NAME, result.model,
                             probe_input_hash(result), em=float(result.em),
                             rel_acc=result.rel_acc, result=result.to_dict())

    workspace.write(write)


class WorkspaceAnswerStore(RecordIndex):
    """The audit's :class:`~cluestudio.core.vlm.cache.AnswerStore` in a workspace.

    Each :meth:`add` is one transaction on the workspace's writer (WAL): once it returns, the
    answer survives a crash or ``kill -9``, so an interrupted audit loses at most the items
    in flight. ``model`` / ``prompt_version`` / ``seed`` limit what is loaded to one audit.
    """

    def __init__(self, workspace: Any, *, model: str | None = None,
                 prompt_version: str | None = None, seed: int | None = None) -> None:
        self.workspace = workspace
        self._records: dict[Key, dict[str, Any]] = {
            record_key(r): r for r in workspace.audit_results(model, prompt_version, seed)}

    def add(self, record: dict[str, Any]) -> None:
        from cluestudio.core.workspace import ops

        self.workspace.write(lambda conn: ops.put_audit_result(conn, record))
        self._records[record_key(record)] = record

    def import_records(self, records: Iterable[dict[str, Any]]) -> int:
        """Copy answers this store lacks (e.g. from a JSONL cache) in one transaction."""
        from cluestudio.core.workspace import ops

        new = [r for r in records if record_key(r) not in self._records]

        def write(conn: sqlite3.Connection) -> None:
            for record in new:
                ops.put_audit_result(conn, record)

        if new:
            self.workspace.write(write)
            self._records.update((record_key(r), r) for r in new)
        return len(new)

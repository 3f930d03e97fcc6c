"""Append-only JSONL store of audit answers, so an interrupted audit resumes where it stopped.

One line per answered (instance, scale); the key includes seed, model and prompt version, so
changing any of them asks again instead of reusing stale answers. A line torn by a crash is
skipped on load and its instance simply asked again. The workspace adapter can import these
records later; the file stays readable with any JSON tool.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Protocol

log = logging.getLogger("cluestudio.vlm")

KEY_FIELDS = ("instance_id", "condition", "relation", "scale", "seed", "model",
              "prompt_version")

Key = tuple[str, str, str, float, int, str, str]


def record_key(record: Mapping[str, Any]) -> Key:
    return (str(record["instance_id"]), str(record["condition"]), str(record["relation"]),
            float(record["scale"]), int(record["seed"]), str(record["model"]),
            str(record["prompt_version"]))


class AnswerStore(Protocol):
    """Where the audit keeps its answers: :class:`ResultCache` (a JSONL file) or the
    workspace (:class:`~cluestudio.core.vlm.workspace_adapter.WorkspaceAnswerStore`).
    ``add`` must have made the record durable when it returns."""

    def __contains__(self, key: object) -> bool: ...

    def __len__(self) -> int: ...

    def get(self, key: Key) -> dict[str, Any] | None: ...

    def records(self) -> Iterator[dict[str, Any]]: ...

    def add(self, record: dict[str, Any]) -> None: ...


class RecordIndex:
    """The in-memory side every answer store shares: records by their audit key."""

    _records: dict[Key, dict[str, Any]]

    def __contains__(self, key: object) -> bool:
        return key in self._records

    def __len__(self) -> int:
        return len(self._records)

    def get(self, key: Key) -> dict[str, Any] | None:
        return self._records.get(key)

    def records(self) -> Iterator[dict[str, Any]]:
        return iter(self._records.values())


class ResultCache(RecordIndex):
    """Records by key, loaded from ``path`` (if any) and appended to as answers arrive.

    Only one thread writes (the job's own); the file is flushed and synced per record so a
    kill loses at most the record being written.
    """

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._records: dict[Key, dict[str, Any]] = {}
        if path is not None and path.exists():
            self._load(path)

    def _load(self, path: Path) -> None:
        skipped = 0
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                    self._records[record_key(record)] = record
                except (ValueError, KeyError, TypeError):
                    skipped += 1
        if skipped:
            log.warning("%s: skipped %d unreadable line(s) (interrupted write?)", path, skipped)

    def add(self, record: dict[str, Any]) -> None:
        self._records[record_key(record)] = record
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        line = json.dumps(record, ensure_ascii=False, sort_keys=True)
        with self.path.open("a+b") as handle:
            handle.seek(0, os.SEEK_END)
            if handle.tell() > 0:
                handle.seek(-1, os.SEEK_END)
                if handle.read(1) != b"\n":  # a torn last line must not swallow this one
                    handle.write(b"\n")
            handle.write(line.encode("utf-8") + b"\n")
            handle.flush()
            os.fsync(handle.fileno())

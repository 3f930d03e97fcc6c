"""Persistent embedding cache: one SQLite file, vectors keyed by (embedder id, string).

Re-scoring a course after a weight change or a reviewer's small edit must not re-run the
encoder, so every vector is kept on disk. The embedder id already carries the model, its
pooling and its precision. SQLite (WAL) lets several processes, e.g. the GUI and a CLI
batch, share one cache safely; vectors are float32 blobs.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

CACHE_ENV = "CLUESTUDIO_CACHE_DIR"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS vectors (
    embedder TEXT NOT NULL,
    text TEXT NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (embedder, text)
) WITHOUT ROWID
"""
_CHUNK = 500  # host parameters per query, well under SQLite's limit


def default_cache_dir() -> Path:
    """``$CLUESTUDIO_CACHE_DIR`` or the platform's user cache dir for ClueStudio."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    import platformdirs

    return Path(platformdirs.user_cache_dir("cluestudio", appauthor=False))


class EmbeddingCache:
    """get_many/put_many of float32 vectors.

    One connection per instance, guarded by a lock: the GUI builds the scorer on the UI
    thread and runs the job on its worker thread.
    """

    def __init__(self, path: str | Path | None = None) -> None:
        if path is None:
            path = default_cache_dir() / "embeddings.sqlite"
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, timeout=30, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(_SCHEMA)
        self._db.commit()

    def get_many(self, embedder_id: str, texts: Sequence[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        with self._lock:
            self._get_into(found, embedder_id, texts)
        return found

    def _get_into(self, found: dict[str, np.ndarray], embedder_id: str,
                  texts: Sequence[str]) -> None:
        for start in range(0, len(texts), _CHUNK):
            chunk = list(texts[start:start + _CHUNK])
            marks = ",".join("?" * len(chunk))
            rows = self._db.execute(
                f"SELECT text, vector FROM vectors WHERE embedder = ? AND text IN ({marks})",
                [embedder_id, *chunk])
            for text, blob in rows:
                found[text] = np.frombuffer(blob, dtype=np.float32)

    def put_many(self, embedder_id: str, texts: Sequence[str], vectors: np.ndarray) -> None:
        rows = [(embedder_id, t, np.ascontiguousarray(v, dtype=np.float32).tobytes())
                for t, v in zip(texts, vectors, strict=True)]
        with self._lock, self._db:
            self._db.executemany(
                "INSERT OR REPLACE INTO vectors (embedder, text, vector) VALUES (?, ?, ?)", rows)

    def count(self, embedder_id: str | None = None) -> int:
        with self._lock:
            return self._count(embedder_id)

    def _count(self, embedder_id: str | None) -> int:
        if embedder_id is None:
            return int(self._db.execute("SELECT COUNT(*) FROM vectors").fetchone()[0])
        return int(self._db.execute(
            "SELECT COUNT(*) FROM vectors WHERE embedder = ?", (embedder_id,)).fetchone()[0])

    def clear(self, embedder_id: str | None = None) -> None:
        with self._lock, self._db:
            if embedder_id is None:
                self._db.execute("DELETE FROM vectors")
            else:
                self._db.execute("DELETE FROM vectors WHERE embedder = ?", (embedder_id,))

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> EmbeddingCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

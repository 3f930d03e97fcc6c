"""OCR results on disk, keyed by (engine id, image SHA-256): a course is read once.

Same layout and rules as the embedding cache (:mod:`cluestudio.core.embed.cache`): one
SQLite file in the user cache dir (``$CLUESTUDIO_CACHE_DIR`` in tests), WAL so the GUI and a
CLI batch can share it, one connection per instance behind a lock.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

from cluestudio.core.embed.cache import default_cache_dir
from cluestudio.core.ocr.result import OcrResult

_SCHEMA = """
CREATE TABLE IF NOT EXISTS ocr (
    engine TEXT NOT NULL,
    image TEXT NOT NULL,
    result TEXT NOT NULL,
    PRIMARY KEY (engine, image)
) WITHOUT ROWID
"""


class OcrCache:
    def __init__(self, path: str | Path | None = None) -> None:
        if path is None:
            path = default_cache_dir() / "ocr.sqlite"
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, timeout=30, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(_SCHEMA)
        self._db.commit()

    def get(self, engine_id: str, image_sha256: str) -> OcrResult | None:
        with self._lock:
            found = self._db.execute("SELECT result FROM ocr WHERE engine = ? AND image = ?",
                                     (engine_id, image_sha256)).fetchone()
        if found is None:
            return None
        try:
            return OcrResult.from_dict(json.loads(found[0]), cached=True)
        except (ValueError, KeyError, TypeError, IndexError):
            return None  # a damaged entry is read again, not trusted

    def put(self, result: OcrResult) -> None:
        text = json.dumps(result.to_dict(), ensure_ascii=False)
        with self._lock, self._db:
            self._db.execute("INSERT OR REPLACE INTO ocr (engine, image, result) VALUES (?,?,?)",
                             (result.engine, result.image_sha256, text))

    def count(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM ocr").fetchone()[0])

    def clear(self) -> None:
        with self._lock, self._db:
            self._db.execute("DELETE FROM ocr")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> OcrCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

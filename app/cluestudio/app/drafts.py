"""Unsaved rubric entries, one per submission, kept on disk as they are typed.

A grader who scores half a rubric and moves to another submission, or whose laptop dies,
gets the draft back when returning: moving away never loses a keystroke. A draft belongs to
one grader in one workspace file and goes when the rating is saved (or the saved rating
changes under it: undo, redo, a merge). One small JSON file per (workspace, grader), written
atomically on every change.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class RubricDraft:
    rubric_id: str
    scores: dict[str, float] = field(default_factory=dict)
    comment: str = ""
    seconds: float = 0.0
    # "task id/source id": a workspace file made anew at the same path numbers its
    # submissions from 1 again, so an id alone could hand a draft to another student.
    submission: str = ""

    def is_empty(self) -> bool:
        return not self.scores and not self.comment.strip()


class DraftStore:
    """The drafts of ``grader`` in the workspace at ``workspace``, kept in ``folder``."""

    def __init__(self, folder: Path, workspace: Path, grader: str) -> None:
        key = hashlib.sha256(f"{workspace.resolve()}\n{grader}".encode()).hexdigest()[:20]
        self.path = folder / f"drafts-{key}.json"
        self._drafts: dict[int, RubricDraft] = {}
        self._load()

    def _load(self) -> None:
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return  # none yet, or unreadable: start empty rather than fail the window
        for key, value in (raw.get("drafts") or {}).items() if isinstance(raw, dict) else ():
            with contextlib.suppress(TypeError, ValueError, AttributeError, KeyError):
                scores = {str(k): float(v) for k, v in value.get("scores", {}).items()}
                self._drafts[int(key)] = RubricDraft(str(value["rubric_id"]), scores,
                                                     str(value.get("comment", "")),
                                                     float(value.get("seconds", 0.0)),
                                                     str(value["submission"]))

    def get(self, submission_id: int, rubric_id: str, submission: str) -> RubricDraft | None:
        """The draft of this submission (``submission``: "task id/source id") under this
        rubric, if there is one."""
        draft = self._drafts.get(submission_id)
        if draft is None or draft.rubric_id != rubric_id or draft.submission != submission:
            return None
        return draft

    def identities(self) -> dict[int, str]:
        """Submission id -> "task id/source id" of every draft."""
        return {sid: draft.submission for sid, draft in self._drafts.items()}

    def put(self, submission_id: int, draft: RubricDraft) -> None:
        if draft.is_empty():
            self.drop(submission_id)
            return
        if self._drafts.get(submission_id) == draft:
            return
        self._drafts[submission_id] = draft
        self._write()

    def drop(self, submission_id: int) -> None:
        if self._drafts.pop(submission_id, None) is not None:
            self._write()

    def _write(self) -> None:
        data: dict[str, Any] = {"drafts": {str(k): asdict(v) for k, v in self._drafts.items()}}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".drafts-")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(data, handle)
            os.replace(tmp, self.path)
        except OSError:
            pass  # a full disk loses the draft file, not the draft on screen

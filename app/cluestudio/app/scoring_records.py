"""The records the scoring job passes between its steps (:mod:`cluestudio.app.scoring`).

The plan hands :class:`ScoreItem` to the pure step (:mod:`cluestudio.app.score_chunk`),
which hands back :class:`ScoredItem` rows and a :class:`ScoreSummary` to the store; the
executors carry the same records to and from their workers. Every module of the job imports
them from here, so the steps need not import each other to agree on a record. All of them
pickle: a worker process or a cluster gets exactly what the caller planned.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cluestudio.core.errors import ClueStudioError


@dataclass(frozen=True)
class ScoringOptions:
    """How to score; picklable, so a worker process gets exactly the caller's choice."""

    embedder: str = "minilm"
    device: str = "auto"
    profile: str = "paper"  # similarity profile (paper | oodeval-code)
    normalization: str = "reference"
    weights_file: str = ""  # calibrated weights (TOML); "" = the profile's shipped weights
    settings: Any = None  # core.settings.Settings, for an [llm] endpoint (LLM metrics)

    @classmethod
    def from_settings(cls, settings: Any) -> ScoringOptions:
        """The user's ``[scoring]`` choice; ``calibrated`` needs ``weights_file``."""
        scoring = settings.scoring
        profile, weights = scoring.weight_profile, scoring.weights_file
        if profile == "calibrated":
            if not weights:
                raise ClueStudioError(
                    "weight profile 'calibrated' needs [scoring] weights_file in settings.toml "
                    "(the file `cluestudio calibrate -o FILE` wrote)")
            profile = "paper"
        return cls(scoring.embedder, scoring.device, profile, "reference", weights, settings)

    def embedder_id(self) -> str:
        """The id scores are stored under (no model is loaded to learn it)."""
        from cluestudio.core.clue.similarity import get_profile
        from cluestudio.core.embed import get_embedder

        return get_embedder(self.embedder, pooling=get_profile(self.profile).pooling,
                            device=self.device).id

    def weights(self) -> Any:
        from cluestudio.core.clue import ClueWeights
        from cluestudio.core.clue.similarity import get_profile

        if self.weights_file:
            from pathlib import Path

            return ClueWeights.load(Path(self.weights_file))
        return ClueWeights.shipped(get_profile(self.profile).weights)


@dataclass(frozen=True)
class ScoreItem:
    """One submission's head revision against its task's reference: all a worker needs."""

    submission_id: int
    label: str  # "task · source", for messages
    diagram_kind: str
    reference: str
    candidate: str
    content_hash: str  # of ``candidate``: the key its scores are stored under


@dataclass(frozen=True)
class ScoredRow:
    metric: str
    value: float | None
    metric_version: str = ""
    embedder: str = ""
    profile: str = ""
    normalization: str = ""
    weights_hash: str = ""
    explanation: Any = None


@dataclass
class ScoredItem:
    submission_id: int
    content_hash: str
    rows: list[ScoredRow] = field(default_factory=list)
    error: str | None = None  # the pair could not be scored (a text that does not parse)


@dataclass
class ScoreSummary:
    planned: int = 0
    scored: list[int] = field(default_factory=list)  # submission ids with stored values
    skipped: int = 0  # already scored with this configuration (only_missing)
    failed: dict[int, str] = field(default_factory=dict)  # submission id → why
    plugin_errors: dict[str, str] = field(default_factory=dict)  # plugin → first message
    notes: dict[str, list[str]] = field(default_factory=dict)  # diagram kind → notes
    metric_seconds: dict[str, float] = field(default_factory=dict)  # metric → its work
    # Not a metric's per-pair work: "model load" (encoder weights, when first needed),
    # plugin start-ups ("r2a-validity start-up": the JVM), "parse", the client's "store".
    stage_seconds: dict[str, float] = field(default_factory=dict)
    seconds: float = 0.0
    workers: list[str] = field(default_factory=list)  # host:pid of an executor's workers

    def merge(self, other: ScoreSummary) -> None:
        """Add a chunk's summary (a worker's) to this one."""
        self.scored += other.scored
        self.failed.update(other.failed)
        for name, message in other.plugin_errors.items():
            self.plugin_errors.setdefault(name, message)
        for kind, notes in other.notes.items():
            self.notes.setdefault(kind, notes)
        for mine, theirs in ((self.metric_seconds, other.metric_seconds),
                             (self.stage_seconds, other.stage_seconds)):
            for name, seconds in theirs.items():
                mine[name] = mine.get(name, 0.0) + seconds

    def to_dict(self) -> dict[str, Any]:
        return {"planned": self.planned, "scored": len(self.scored), "skipped": self.skipped,
                "failed": {str(k): v for k, v in sorted(self.failed.items())},
                "plugin_errors": dict(sorted(self.plugin_errors.items())),
                "notes": self.notes,
                "metric_seconds": {k: round(v, 3) for k, v in
                                   sorted(self.metric_seconds.items())},
                "stage_seconds": {k: round(v, 3) for k, v in
                                  sorted(self.stage_seconds.items())},
                "workers": self.workers, "seconds": round(self.seconds, 3)}

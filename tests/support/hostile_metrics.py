"""A metric plugin that returns text where a number belongs (issue 14): it must fail alone."""

from __future__ import annotations

from cluestudio.core.metrics import MetricResult


class Stringy:
    def score(self, reference, candidate):
        return MetricResult({"stringy": "0.5"})  # type: ignore[dict-item]

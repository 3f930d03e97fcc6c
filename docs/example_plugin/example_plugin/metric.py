"""The example metric: how close the candidate's number of classes is to the reference's."""

from __future__ import annotations

from typing import ClassVar

from cluestudio.core.metrics import MetricInput, MetricManifest, MetricResult
from cluestudio.core.plugins import metric_manifest


class ClassCountMetric:
    # Read from cluestudio-plugin.toml, so the listing and the code never disagree.
    manifest: ClassVar[MetricManifest] = metric_manifest(__name__, "class-count")

    def score(self, reference: MetricInput, candidate: MetricInput) -> MetricResult:
        n = len(reference.require_diagram().classes)
        m = len(candidate.require_diagram().classes)
        value = 1.0 if n == m == 0 else min(n, m) / max(n, m)
        return MetricResult({"class-count": value}, {"reference": n, "candidate": m})

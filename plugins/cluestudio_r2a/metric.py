"""R2ABench metric plugins: structure (graph metrics), validity (renders?), judge (LLM rubric).

Inputs are PlantUML texts of component / package / deployment diagrams (``MetricInput
.plantuml``); the reference is the expert diagram, the candidate the generated one.
"""

from __future__ import annotations

from typing import Any, ClassVar

from cluestudio.core.metrics import MetricInput, MetricManifest, MetricResult
from cluestudio.core.plugins import metric_manifest
from cluestudio_r2a.structure import AlignmentJudge


class R2AStructureMetric:
    """Node/edge F1, layer accuracy, GED accuracy, orphan and god-component ratios."""

    manifest: ClassVar[MetricManifest] = metric_manifest(__name__, "r2a-structure")

    def __init__(self, *, threshold: float = 0.8, layer_level: str = "parent",
                 ged_timeout: float = 5.0, judge: AlignmentJudge | None = None) -> None:
        if layer_level not in ("parent", "top"):
            raise ValueError(f"layer_level must be 'parent' or 'top', not {layer_level!r}")
        self.threshold = threshold
        self.layer_level = layer_level
        self.ged_timeout = ged_timeout
        self.judge = judge

    def score(self, reference: MetricInput, candidate: MetricInput) -> MetricResult:
        from cluestudio_r2a import structure as s
        from cluestudio_r2a.graph import architecture_graph

        ref = architecture_graph(reference.plantuml)
        pred = architecture_graph(candidate.plantuml)
        alignment = s.align_nodes(pred, ref, threshold=self.threshold, judge=self.judge)
        node_p, node_r, node_f1, node_tp = s.node_scores(pred, ref, alignment)
        edge_p, edge_r, edge_f1, edge_tp = s.edge_scores(pred, ref, alignment)
        layer_acc, layer_rows = s.layer_accuracy(pred, ref, node_tp, threshold=self.threshold,
                                                 level=self.layer_level)
        ged = s.graph_edit_distance(pred, ref, alignment, timeout=self.ged_timeout)
        orphan, orphans = s.orphan_ratio(pred)
        god, gods, tau = s.god_ratio(pred)
        values = {
            "node-precision": node_p, "node-recall": node_r, "node-f1": node_f1,
            "edge-precision": edge_p, "edge-recall": edge_r, "edge-f1": edge_f1,
            "layer-accuracy": layer_acc, "ged": ged.distance, "ged-accuracy": ged.accuracy,
            "orphan-ratio": orphan, "god-ratio": god,
        }
        label = pred.nodes
        explanation: dict[str, Any] = {
            "node_alignment": [
                {"candidate": label[p]["label"], "reference": ref.nodes[t]["label"],
                 "similarity": round(sim, 4), "by": how}
                for p, t, sim, how in alignment.pairs],
            "edge_matches": [{"candidate": list(e), "reference": list(t)}
                             for e, t in edge_tp],
            "layers": layer_rows,
            "ged": {"method": ged.method, "seconds": round(ged.seconds, 3), **ged.details},
            "orphans": orphans,
            "god_components": gods, "god_threshold": tau,
            "warnings": {"reference": ref.graph["warnings"],
                         "candidate": pred.graph["warnings"]},
        }
        details = {"threshold": self.threshold, "layer_level": self.layer_level,
                   "judge": self.judge is not None, "ged_method": ged.method}
        return MetricResult(values, explanation, details)


class R2AValidityMetric:
    """Syntactic validity (seed 001 eq. 1) of the candidate: does the real PlantUML render it?

    Through the process's warm renderer (one JVM for every pair; ``-syntax`` would start a
    JVM per call, ~1 s each, which made scoring a course of a thousand pairs take minutes).
    A missing Java or a render timeout is not the candidate's fault: it raises, and the
    registry reports the metric as failed instead of scoring the diagram 0.
    """

    manifest: ClassVar[MetricManifest] = metric_manifest(__name__, "r2a-validity")

    def score(self, reference: MetricInput, candidate: MetricInput) -> MetricResult:
        from cluestudio.core.errors import RenderError, RendererUnavailable, RenderTimeout
        from cluestudio.core.plantuml.renderer import get_renderer

        try:
            get_renderer().render(candidate.plantuml, "svg", source=candidate.source)
        except (RendererUnavailable, RenderTimeout):
            raise
        except RenderError as error:
            return MetricResult({"syntactic-validity": 0.0},
                                {"message": error.message, "error_line": error.line})
        return MetricResult({"syntactic-validity": 1.0}, {"message": None, "error_line": None})

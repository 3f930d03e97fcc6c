"""R2ABench metric plugins: structure (graph metrics), validity (PlantUML accepts it?), judge
(LLM rubric).

Inputs are PlantUML texts of component / package / deployment diagrams (``MetricInput
.plantuml``); the reference is the expert diagram, the candidate the generated one.
"""

from __future__ import annotations

import re
from collections import OrderedDict
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
    """Syntactic validity (seed 001 eq. 1) of the candidate: does the real PlantUML accept it?

    Asks the process's warm JVM for PlantUML's syntax check (what ``plantuml -syntax`` says,
    without drawing: milliseconds instead of a render). The verdict equals rendering's
    (``tests/test_validity_by_syntax.py`` checks the bundled courses and the parser, invalid
    and hostile corpora): an error or a memory bomb fails both, and the two ways a diagram
    can pass the check yet fail to draw are confirmed by rendering — characters XML cannot
    hold (PlantUML's SVG writer fails on them) and very large diagrams (smetana's layout).
    A missing Java or a timeout is not the candidate's fault: it raises, and the registry
    reports the metric as failed instead of scoring the diagram 0. The same text is judged
    once per instance (a bounded memo; LLM outputs repeat).
    """

    manifest: ClassVar[MetricManifest] = metric_manifest(__name__, "r2a-validity")

    def __init__(self, memo_size: int = 4096) -> None:
        self._memo: OrderedDict[str, MetricResult] = OrderedDict()
        self._memo_size = memo_size
        self.checked = 0  # syntax checks asked of the JVM
        self.rendered = 0  # renders to confirm a passing check

    def warm_up(self) -> None:
        """Start the process's JVM (the renderer the window and every other check share) on a
        thread of its own: it starts while the encoders load and CLUE scores, and the first
        check waits for it only if it is not ready by then."""
        from cluestudio.core.plantuml.renderer import get_renderer

        get_renderer().start_in_background()

    def score(self, reference: MetricInput, candidate: MetricInput) -> MetricResult:
        text = candidate.plantuml
        known = self._memo.get(text)
        if known is not None:
            self._memo.move_to_end(text)
            return known
        result = self._judge(text, candidate.source)
        self._memo[text] = result
        if len(self._memo) > self._memo_size:
            self._memo.popitem(last=False)
        return result

    def _judge(self, text: str, source: str | None) -> MetricResult:
        from cluestudio.core.errors import RenderError, RendererUnavailable, RenderTimeout
        from cluestudio.core.plantuml.renderer import get_renderer

        renderer = get_renderer()
        try:
            self.checked += 1
            report = renderer.check_syntax(text, source=source)
            if not report.ok:
                return _invalid(report.message, report.error_line)
            if needs_drawing(text, report.entities):
                self.rendered += 1
                renderer.render(text, "svg", source=source)
        except (RendererUnavailable, RenderTimeout):
            raise
        except RenderError as error:
            return _invalid(error.message, error.line)
        return MetricResult({"syntactic-validity": 1.0}, {"message": None, "error_line": None})


# Characters XML 1.0 cannot hold: PlantUML accepts them in a name but its SVG writer fails.
_NOT_IN_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
# Beyond this many entities the layout itself can fail (smetana threw IllegalStateException
# on a 150-class diagram, docs/adr/0002); a passing check is then confirmed by drawing.
LARGE_DIAGRAM = 100


def needs_drawing(text: str, entities: int | None) -> bool:
    """Whether a diagram that passed PlantUML's syntax check may still fail to draw."""
    return (entities is not None and entities > LARGE_DIAGRAM) or bool(_NOT_IN_XML.search(text))


def _invalid(message: str, line: int | None) -> MetricResult:
    return MetricResult({"syntactic-validity": 0.0}, {"message": message, "error_line": line})

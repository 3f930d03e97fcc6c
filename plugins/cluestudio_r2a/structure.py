"""R2ABench structural metrics (seed 001, §3.3.1 and §3.3.3) on two architecture graphs.

Node/edge F1 over an alignment of element names (normalized, rapidfuzz similarity at or
above a threshold, one-to-one by the Hungarian method, optionally widened by a semantic
judge such as an LLM), layer accuracy of the matched nodes, GED accuracy
100·max(0, 1 − GED/max(|Vp|+|Ep|, |Vt|+|Et|)), and the orphan and god-component ratios of
the predicted graph. Every function is pure; the plugin classes only adapt inputs.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import networkx as nx

#: (unmatched predicted labels, unmatched reference labels) → pairs the judge deems the same.
AlignmentJudge = Callable[[Sequence[str], Sequence[str]], Sequence[tuple[str, str]]]

_NON_WORD = re.compile(r"[^0-9a-z]+")


def normalize_name(name: str) -> str:
    """Lower case, punctuation and CamelCase boundaries to single spaces."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name)
    return " ".join(_NON_WORD.sub(" ", spaced.lower()).split())


def name_similarity(a: str, b: str) -> float:
    """Similarity in [0, 1] of two normalized names (rapidfuzz token-sort ratio)."""
    from rapidfuzz import fuzz

    na, nb = normalize_name(a), normalize_name(b)
    if na == nb:
        return 1.0
    return float(fuzz.token_sort_ratio(na, nb)) / 100.0


@dataclass(frozen=True)
class Alignment:
    """Matched (predicted id, reference id, similarity, how) triples."""

    pairs: tuple[tuple[str, str, float, str], ...] = ()

    def pred_to_ref(self) -> dict[str, str]:
        return {p: t for p, t, _, _ in self.pairs}


def align_nodes(pred: nx.DiGraph, ref: nx.DiGraph, *, threshold: float = 0.8,
                judge: AlignmentJudge | None = None) -> Alignment:
    """One-to-one alignment of predicted to reference nodes by their labels."""
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    p_ids, t_ids = list(pred.nodes), list(ref.nodes)
    pairs: list[tuple[str, str, float, str]] = []
    if p_ids and t_ids:
        sim = np.array([[name_similarity(pred.nodes[p]["label"], ref.nodes[t]["label"])
                         for t in t_ids] for p in p_ids])
        allowed = np.where(sim >= threshold, sim, 0.0)
        rows, cols = linear_sum_assignment(allowed, maximize=True)
        pairs = [(p_ids[r], t_ids[c], float(sim[r, c]), "string")
                 for r, c in zip(rows, cols, strict=True) if allowed[r, c] > 0]
    if judge is not None:
        pairs.extend(_judged_pairs(pred, ref, pairs, judge))
    return Alignment(tuple(pairs))


def _judged_pairs(pred: nx.DiGraph, ref: nx.DiGraph,
                  pairs: list[tuple[str, str, float, str]], judge: AlignmentJudge,
                  ) -> list[tuple[str, str, float, str]]:
    """Ask the judge about what string matching left over; keep one-to-one pairs only."""
    used_p = {p for p, _, _, _ in pairs}
    used_t = {t for _, t, _, _ in pairs}
    left_p = {pred.nodes[p]["label"]: p for p in pred.nodes if p not in used_p}
    left_t = {ref.nodes[t]["label"]: t for t in ref.nodes if t not in used_t}
    if not left_p or not left_t:
        return []
    extra = []
    for p_label, t_label in judge(sorted(left_p), sorted(left_t)):
        p, t = left_p.pop(p_label, None), left_t.pop(t_label, None)
        if p is not None and t is not None:
            extra.append((p, t, 1.0, "judge"))
    return extra


def f1_triple(tp: int, n_pred: int, n_ref: int) -> tuple[float, float, float]:
    """Precision, recall, F1; both sides empty → 1, 1, 1; one empty → 0 for the undefined."""
    if n_pred == 0 and n_ref == 0:
        return 1.0, 1.0, 1.0
    precision = tp / n_pred if n_pred else 0.0
    recall = tp / n_ref if n_ref else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def node_scores(pred: nx.DiGraph, ref: nx.DiGraph, alignment: Alignment
                ) -> tuple[float, float, float, list[tuple[str, str]]]:
    """Node P, R, F1 over leaf nodes (V^L in the paper), and the true-positive pairs."""
    leaf_p = [n for n, d in pred.nodes(data=True) if d.get("leaf", True)]
    leaf_t = [n for n, d in ref.nodes(data=True) if d.get("leaf", True)]
    tp = [(p, t) for p, t, _, _ in alignment.pairs
          if pred.nodes[p].get("leaf", True) and ref.nodes[t].get("leaf", True)]
    return (*f1_triple(len(tp), len(leaf_p), len(leaf_t)), tp)


def edge_scores(pred: nx.DiGraph, ref: nx.DiGraph, alignment: Alignment
                ) -> tuple[float, float, float, list[tuple[tuple[str, str], tuple[str, str]]]]:
    """Edge P, R, F1: a predicted edge is a TP when both ends align to a reference edge's.

    An undirected arrow (``--``) on either side matches in both directions; each reference
    edge is matched at most once.
    """
    to_ref = alignment.pred_to_ref()
    free = set(ref.edges)
    matched = []
    for u, v, data in pred.edges(data=True):
        a, b = to_ref.get(u), to_ref.get(v)
        if a is None or b is None:
            continue
        for candidate in ((a, b), (b, a)):
            if candidate not in free:
                continue
            reverse = candidate == (b, a)
            if reverse and data.get("directed", True) and ref.edges[candidate].get(
                    "directed", True):
                continue
            free.discard(candidate)
            matched.append(((u, v), candidate))
            break
    return (*f1_triple(len(matched), pred.number_of_edges(), ref.number_of_edges()), matched)


def _layer_of(graph: nx.DiGraph, node: str, level: str) -> str:
    layer = graph.nodes[node].get("layer", ())
    if not layer:
        return ""
    return layer[0] if level == "top" else layer[-1]


def layer_accuracy(pred: nx.DiGraph, ref: nx.DiGraph, tp_pairs: Sequence[tuple[str, str]],
                   *, threshold: float = 0.8, level: str = "parent"
                   ) -> tuple[float, list[dict[str, Any]]]:
    """Share of matched nodes placed in the same layer (container names compared fuzzily).

    ``level="parent"`` compares the innermost container, ``"top"`` the outermost one.
    No matched nodes → 0.0.
    """
    rows: list[dict[str, Any]] = []
    for p, t in tp_pairs:
        lp, lt = _layer_of(pred, p, level), _layer_of(ref, t, level)
        same = (lp == lt == "") or (bool(lp) and bool(lt)
                                     and name_similarity(lp, lt) >= threshold)
        rows.append({"pred": p, "ref": t, "pred_layer": lp, "ref_layer": lt, "correct": same})
    if not rows:
        return 0.0, rows
    return sum(r["correct"] for r in rows) / len(rows), rows


@dataclass(frozen=True)
class GedResult:
    distance: float
    accuracy: float  # 0..100
    method: str  # "exact", "approximate (...)"
    seconds: float
    details: dict[str, Any] = field(default_factory=dict)


def _mapping_cost(pred: nx.DiGraph, ref: nx.DiGraph, to_ref: dict[str, str]) -> int:
    """Cost of the edit path that keeps aligned nodes and deletes/inserts everything else."""
    mapped = {(to_ref[u], to_ref[v]) for u, v in pred.edges if u in to_ref and v in to_ref}
    kept = len(mapped & set(ref.edges))
    nodes = (pred.number_of_nodes() - len(to_ref)) + (ref.number_of_nodes() - len(to_ref))
    edges = (pred.number_of_edges() - kept) + (ref.number_of_edges() - kept)
    return nodes + edges


def graph_edit_distance(pred: nx.DiGraph, ref: nx.DiGraph, alignment: Alignment, *,
                        timeout: float = 5.0, exact_max_size: int = 40) -> GedResult:
    """GED with unit costs; node labels are the alignment (aligned pairs substitute free).

    networkx's search (``optimize_edit_paths``, the engine of ``graph_edit_distance`` and
    ``optimize_graph_edit_distance``) starts from the alignment's edit path as upper bound.
    If it finishes within ``timeout`` the distance is exact; otherwise — always for graphs
    whose |V|+|E| together exceed ``exact_max_size``, where it gets a tenth of the time —
    the best path found is an upper bound, and ``method`` says so.
    """
    import networkx as nx

    size_p = pred.number_of_nodes() + pred.number_of_edges()
    size_t = ref.number_of_nodes() + ref.number_of_edges()
    denominator = max(size_p, size_t)
    to_ref = alignment.pred_to_ref()
    bound = _mapping_cost(pred, ref, to_ref)
    big = size_p + size_t > exact_max_size
    budget = timeout / 10 if big else timeout
    g1, g2 = nx.DiGraph(), nx.DiGraph()
    g1.add_nodes_from((n, {"key": f"t:{to_ref[n]}" if n in to_ref else f"p:{n}"})
                      for n in pred.nodes)
    g1.add_edges_from(pred.edges)
    g2.add_nodes_from((n, {"key": f"t:{n}"}) for n in ref.nodes)
    g2.add_edges_from(ref.edges)
    best, paths = float(bound), 0
    start = time.perf_counter()
    for _, _, cost in nx.optimize_edit_paths(
            g1, g2, node_match=lambda a, b: a["key"] == b["key"], upper_bound=bound,
            timeout=budget):
        paths += 1
        best = min(best, float(cost))
    seconds = time.perf_counter() - start
    finished = seconds < budget * 0.98
    if finished:
        method = "exact"
    else:
        method = (f"approximate: best of {paths} edit paths from networkx optimize_edit_paths "
                  f"in {budget:g} s, started from the alignment's path (an upper bound)")
    accuracy = 100.0 * max(0.0, 1.0 - best / denominator) if denominator else 100.0
    return GedResult(best, accuracy, method, seconds,
                     {"alignment_bound": bound, "size_pred": size_p, "size_ref": size_t})


def orphan_ratio(graph: nx.DiGraph) -> tuple[float, list[str]]:
    """|nodes of degree 0| / |V| (0 for an empty graph)."""
    orphans = [n for n in graph.nodes if graph.degree(n) == 0]
    return (len(orphans) / graph.number_of_nodes() if graph.number_of_nodes() else 0.0,
            orphans)


def god_ratio(graph: nx.DiGraph) -> tuple[float, list[str], float]:
    """|nodes whose total degree exceeds τ = μ + 2σ| / |V|, σ the population std; and τ."""
    n = graph.number_of_nodes()
    if n == 0:
        return 0.0, [], 0.0
    degrees = {node: graph.degree(node) for node in graph.nodes}
    mean = sum(degrees.values()) / n
    sigma = math.sqrt(sum((d - mean) ** 2 for d in degrees.values()) / n)
    tau = mean + 2 * sigma
    gods = [node for node, d in degrees.items() if d > tau]
    return len(gods) / n, gods, tau

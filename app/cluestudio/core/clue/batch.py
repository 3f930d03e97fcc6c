"""Evaluate CLUE for many pairs at once from their leaves (DESIGN §3, bottom-up).

ES_mp → ES_cm, ES_ca → ES_ce → ES_cr. The inner OptMatches (parameters of every method
pair, attributes and methods of every class pair) of all pairs are laid out in flat arrays
and solved shape by shape (:func:`~cluestudio.core.clue.optmatch.block_sums`); only the class
and relation matchings, one per pair, go through scipy with their assignment kept. A
:class:`LeafBatch` is built once; :meth:`LeafBatch.evaluate` may then run for any number of
weight sets (calibration) without re-embedding.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from cluestudio.core.clue.leaves import PairLeaves
from cluestudio.core.clue.optmatch import assign, block_sums, optmatch_values
from cluestudio.core.clue.weights import ClueWeights

METRIC_NAMES: tuple[str, ...] = (
    "clue", "clue-class", "clue-attribute", "clue-method", "clue-relation")


@dataclass(frozen=True)
class ClueScores:
    clue: float
    clue_class: float
    clue_attribute: float
    clue_method: float
    clue_relation: float

    def as_dict(self) -> dict[str, float]:
        """Scores by metric name (``clue``, ``clue-class``, ...)."""
        return dict(zip(METRIC_NAMES, (self.clue, self.clue_class, self.clue_attribute,
                                       self.clue_method, self.clue_relation), strict=True))


@dataclass(frozen=True, eq=False)
class PairMatrices:
    """The evaluated ES matrices of one pair under one weight set (for explanations)."""

    leaves: PairLeaves
    es_class: np.ndarray  # C1×C2, ES_ce
    attr_match: np.ndarray  # C1×C2, OptMatch of attribute sets
    method_match: np.ndarray  # C1×C2, OptMatch of method sets
    es_attr: np.ndarray  # A1×A2, ES_ca over all attributes
    es_method: np.ndarray  # M1×M2, ES_cm over all methods
    es_param: np.ndarray  # P1×P2, ES_mp over all parameters
    param_match: np.ndarray  # M1×M2, OptMatch of parameter sets
    es_relation: np.ndarray  # R1×R2, ES_cr
    class_assignment: tuple[np.ndarray, np.ndarray]
    relation_assignment: tuple[np.ndarray, np.ndarray]


class _Layout:
    """Row-major matrices of several pairs stored one after another in one flat array."""

    def __init__(self, shapes: list[tuple[int, int]]) -> None:
        self.shapes = shapes
        sizes = [r * c for r, c in shapes]
        self.offsets = np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)]).astype(np.int64)

    def view(self, flat: np.ndarray, p: int) -> np.ndarray:
        return flat[self.offsets[p]:self.offsets[p + 1]].reshape(self.shapes[p])


def _concat(parts: list[np.ndarray]) -> np.ndarray:
    return np.concatenate([p.ravel() for p in parts]) if parts else np.zeros(0)


class _Problems:
    """One OptMatch per (reference group, candidate group) of one pair, all pairs flattened.

    Groups are classes (members: attributes or methods) or methods (members: parameters);
    problem order is row-major over the pair's group×group matrix, i.e. the same order as
    that matrix in its own flat :class:`_Layout`.
    """

    def __init__(self, ref_offsets: list[np.ndarray], cand_offsets: list[np.ndarray],
                 member_layout: _Layout) -> None:
        parts: dict[str, list[np.ndarray]] = {k: [] for k in
                                               ("base", "stride", "row0", "n", "col0", "m")}
        for p, (ro, co) in enumerate(zip(ref_offsets, cand_offsets, strict=True)):
            g1, g2 = len(ro) - 1, len(co) - 1
            n1, n2 = np.diff(ro), np.diff(co)
            parts["row0"].append(np.repeat(ro[:-1], g2))
            parts["n"].append(np.repeat(n1, g2))
            parts["col0"].append(np.tile(co[:-1], g1))
            parts["m"].append(np.tile(n2, g1))
            parts["base"].append(np.full(g1 * g2, member_layout.offsets[p], dtype=np.int64))
            parts["stride"].append(np.full(g1 * g2, int(co[-1]), dtype=np.int64))
        cat = {k: (np.concatenate(v).astype(np.int64) if v else np.zeros(0, dtype=np.int64))
               for k, v in parts.items()}
        self.base, self.stride = cat["base"], cat["stride"]
        self.row0, self.n, self.col0, self.m = cat["row0"], cat["n"], cat["col0"], cat["m"]

    def solve(self, flat: np.ndarray, normalization: str) -> np.ndarray:
        sums = block_sums(flat, self.base, self.stride, self.row0, self.n, self.col0, self.m)
        return optmatch_values(sums, self.n, self.m, normalization)


class LeafBatch:
    """The leaves of many pairs in flat arrays, ready to be evaluated under any weights."""

    def __init__(self, pairs: Sequence[PairLeaves]) -> None:
        self.pairs = list(pairs)
        refs = [p.reference for p in self.pairs]
        cands = [p.candidate for p in self.pairs]
        self._classes = _Layout([p.class_name.shape for p in self.pairs])
        self._attrs = _Layout([p.attr_name.shape for p in self.pairs])
        self._methods = _Layout([p.method_name.shape for p in self.pairs])
        self._params = _Layout([p.param_name.shape for p in self.pairs])
        self._leaf = {
            name: _concat([getattr(p, name) for p in self.pairs])
            for name in ("class_name", "attr_name", "attr_type", "method_name",
                         "method_return", "param_name", "param_type")
        }
        self._param_problems = _Problems([r.param_offsets for r in refs],
                                         [c.param_offsets for c in cands], self._params)
        self._attr_problems = _Problems([r.attr_offsets for r in refs],
                                        [c.attr_offsets for c in cands], self._attrs)
        self._method_problems = _Problems([r.method_offsets for r in refs],
                                          [c.method_offsets for c in cands], self._methods)

    def __len__(self) -> int:
        return len(self.pairs)

    def evaluate(self, weights: ClueWeights, normalization: str = "reference",
                 ) -> list[tuple[ClueScores, PairMatrices]]:
        """Scores (and the matrices behind them) of every pair, in input order."""
        w, leaf = weights, self._leaf
        es_param = w.w_pn * leaf["param_name"] + w.w_pt * leaf["param_type"]
        param_match = self._param_problems.solve(es_param, normalization)
        es_method = (w.w_mn * leaf["method_name"] + w.w_mt * leaf["method_return"]
                     + w.w_mp * param_match)
        es_attr = w.w_an * leaf["attr_name"] + w.w_at * leaf["attr_type"]
        attr_match = self._attr_problems.solve(es_attr, normalization)
        method_match = self._method_problems.solve(es_method, normalization)
        es_class = w.w_n * leaf["class_name"] + w.w_a * attr_match + w.w_m * method_match
        out = []
        for p, leaves in enumerate(self.pairs):
            out.append(_finish_pair(
                leaves, w, normalization,
                es_class=self._classes.view(es_class, p),
                attr_match=self._classes.view(attr_match, p),
                method_match=self._classes.view(method_match, p),
                es_attr=self._attrs.view(es_attr, p),
                es_method=self._methods.view(es_method, p),
                es_param=self._params.view(es_param, p),
                param_match=self._methods.view(param_match, p)))
        return out

    def score_array(self, weights: ClueWeights, normalization: str = "reference",
                    ) -> np.ndarray:
        """Scores only, shape (pairs, 5) in :data:`METRIC_NAMES` order (for calibration)."""
        rows = [list(s.as_dict().values()) for s, _ in self.evaluate(weights, normalization)]
        return np.array(rows, dtype=float).reshape(len(rows), len(METRIC_NAMES))


def _finish_pair(leaves: PairLeaves, w: ClueWeights, normalization: str, *,
                 es_class: np.ndarray, attr_match: np.ndarray, method_match: np.ndarray,
                 es_attr: np.ndarray, es_method: np.ndarray, es_param: np.ndarray,
                 param_match: np.ndarray) -> tuple[ClueScores, PairMatrices]:
    n, m = es_class.shape
    rows, cols = assign(es_class)
    clue_class = _value(es_class[rows, cols].sum(), n, m, normalization)
    # Eq. 8/9: matched pairs' member OptMatch, always over n (unmatched reference classes
    # add 0), whatever the normalization of the inner OptMatches.
    if n:
        clue_attr = _value(attr_match[rows, cols].sum(), n, m, "reference")
        clue_method = _value(method_match[rows, cols].sum(), n, m, "reference")
    else:
        clue_attr = clue_method = leaves.empty_reference_members

    b1, b2 = leaves.ref_begin[:, None], leaves.cand_begin[None, :]
    e1, e2 = leaves.ref_end[:, None], leaves.cand_end[None, :]
    known_b = (b1 >= 0) & (b2 >= 0)
    known_e = (e1 >= 0) & (e2 >= 0)
    begin_sim = leaves.begin_name.copy()
    end_sim = leaves.end_name.copy()
    if es_class.size:
        begin_sim = np.where(known_b, es_class[np.maximum(b1, 0), np.maximum(b2, 0)], begin_sim)
        end_sim = np.where(known_e, es_class[np.maximum(e1, 0), np.maximum(e2, 0)], end_sim)
    es_rel = (w.w_rt * leaves.relation_type + 0.5 * w.w_rn * (begin_sim + end_sim)
              + w.w_rm * leaves.relation_multiplicity)
    r_rows, r_cols = assign(es_rel)
    clue_rel = _value(es_rel[r_rows, r_cols].sum(), es_rel.shape[0], es_rel.shape[1],
                      normalization)
    scores = ClueScores(
        clue=w.w_e * clue_class + w.w_r * clue_rel, clue_class=clue_class,
        clue_attribute=clue_attr, clue_method=clue_method, clue_relation=clue_rel)
    matrices = PairMatrices(
        leaves=leaves, es_class=es_class, attr_match=attr_match, method_match=method_match,
        es_attr=es_attr, es_method=es_method, es_param=es_param, param_match=param_match,
        es_relation=es_rel, class_assignment=(rows, cols),
        relation_assignment=(r_rows, r_cols))
    return scores, matrices


def _value(total: float, n: int, m: int, normalization: str) -> float:
    return float(optmatch_values(np.array(total), np.array(n), np.array(m), normalization))

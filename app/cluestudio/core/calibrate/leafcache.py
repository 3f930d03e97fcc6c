"""Cached CLUE leaves of many pairs, re-weighted in milliseconds (calibration's inner loop).

The σ blocks (names and types of classes, attributes, methods, parameters), the relation
LUT and multiplicity matches do not depend on the weights; the CLUE engine computes them
once per pair (:meth:`ClueScorer.build_leaves`). Only the OptMatches do: the matchings
move when the weights move. :class:`LeafCache` lays every level of every pair out in flat
arrays and plans it once, so one evaluation of the five metrics over all pairs is a
handful of vectorised steps per level, not a Python loop (ADR 0008, issue 28):

- attributes and parameters: upper envelopes of a few lines (:mod:`.envelope`);
- methods: ES once per distinct method cell, the OptMatch once per distinct problem, by
  dynamic programming over column subsets (:mod:`.subsets`);
- classes and relations: each row's best column where those are distinct (optimal by the
  row-maxima bound), else a greedy matching proved optimal by column prices, scipy for
  the few matrices left (:mod:`.matrices`).

It must give the engine's scores (``LeafBatch.score_array``) for any weights; the tests
check that to 1e-9 (1e-12 against :meth:`LeafCache.scores_previous`, the path before).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cluestudio.core.calibrate.assign import AssignmentPlan
from cluestudio.core.calibrate.envelope import LinePlan, LineValues
from cluestudio.core.calibrate.matrices import MatrixPlan
from cluestudio.core.calibrate.subsets import SubsetPlan, distinct_rows
from cluestudio.core.clue import METRIC_NAMES, ClueWeights, LeafBatch, PairLeaves
from cluestudio.core.clue.optmatch import NORMALIZATIONS, denominator, optmatch_values
from cluestudio.core.embed import Embedder, EmbeddingCache
from cluestudio.core.errors import ClueStudioError
from cluestudio.core.jobs import CancelToken, Job, Progress
from cluestudio.core.model import ClassDiagram

_I = np.int64


def _offsets(sizes: Sequence[int]) -> np.ndarray:
    return np.concatenate([[0], np.cumsum(np.asarray(sizes, dtype=_I))]).astype(_I)


def _concat(parts: Sequence[np.ndarray], dtype: type = float) -> np.ndarray:
    return (np.concatenate([np.asarray(p, dtype=dtype).ravel() for p in parts])
            if parts else np.zeros(0, dtype=dtype))


def _group_problems(ref_offsets: Sequence[np.ndarray], cand_offsets: Sequence[np.ndarray],
                    member_base: np.ndarray) -> dict[str, np.ndarray]:
    """One problem per (reference group, candidate group) of each pair, row-major.

    A group is a class (members: its attributes or methods) or a method (members: its
    parameters); problem order equals the order of the pair's group×group matrix.
    """
    parts: dict[str, list[np.ndarray]] = {k: [] for k in
                                           ("base", "stride", "row0", "n", "col0", "m")}
    for p, (ro, co) in enumerate(zip(ref_offsets, cand_offsets, strict=True)):
        g1, g2 = len(ro) - 1, len(co) - 1
        parts["row0"].append(np.repeat(ro[:-1], g2))
        parts["n"].append(np.repeat(np.diff(ro), g2))
        parts["col0"].append(np.tile(co[:-1], g1))
        parts["m"].append(np.tile(np.diff(co), g1))
        parts["base"].append(np.full(g1 * g2, member_base[p], dtype=_I))
        parts["stride"].append(np.full(g1 * g2, int(co[-1]), dtype=_I))
    return {k: _concat(v, _I) for k, v in parts.items()}


def _whole_problems(shapes: Sequence[tuple[int, int]], base: np.ndarray
                    ) -> dict[str, np.ndarray]:
    """One problem per pair: its whole matrix."""
    n = np.array([s[0] for s in shapes], dtype=_I)
    m = np.array([s[1] for s in shapes], dtype=_I)
    zeros = np.zeros(len(shapes), dtype=_I)
    return {"base": base[:-1], "stride": m, "row0": zeros, "n": n, "col0": zeros, "m": m}


class LeafCache:
    """The leaves of many (reference, candidate) pairs, ready for any weights.

    Build it from the engine's leaves (``LeafCache(batch.pairs)``) or with the
    :func:`build_leaf_cache` job. :meth:`scores` returns the five CLUE metrics of every pair,
    shape (pairs, 5) in :data:`~cluestudio.core.clue.METRIC_NAMES` order.
    """

    def __init__(self, pairs: Sequence[PairLeaves], normalization: str = "reference",
                 cancel: CancelToken | None = None) -> None:
        if normalization not in NORMALIZATIONS:
            raise ClueStudioError(f"unknown normalization {normalization!r}; use one of "
                                  f"{', '.join(NORMALIZATIONS)}")
        self.normalization = normalization
        self.pairs = list(pairs)
        pairs = self.pairs
        refs = [p.reference for p in pairs]
        cands = [p.candidate for p in pairs]
        leaf = {name: _concat([getattr(p, name) for p in pairs]) for name in (
            "class_name", "attr_name", "attr_type", "method_name", "method_return",
            "param_name", "param_type", "relation_type", "relation_multiplicity",
            "begin_name", "end_name")}
        self._leaf = leaf
        class_shapes = [p.class_name.shape for p in pairs]
        rel_shapes = [p.relation_type.shape for p in pairs]
        class_base = _offsets([a * b for a, b in class_shapes])
        rel_base = _offsets([a * b for a, b in rel_shapes])
        param_base = _offsets([p.param_name.size for p in pairs])
        attr_base = _offsets([p.attr_name.size for p in pairs])
        method_base = _offsets([p.method_name.size for p in pairs])

        def lines(first: str, second: str, spec: dict[str, np.ndarray]) -> LinePlan:
            return LinePlan(leaf[first], leaf[second], spec["base"], spec["stride"],
                            spec["row0"], spec["n"], spec["col0"], spec["m"], cancel)

        self._params = lines("param_name", "param_type", _group_problems(
            [r.param_offsets for r in refs], [c.param_offsets for c in cands], param_base))
        self._attrs = lines("attr_name", "attr_type", _group_problems(
            [r.attr_offsets for r in refs], [c.attr_offsets for c in cands], attr_base))
        self._method_spec = _group_problems([r.method_offsets for r in refs],
                                            [c.method_offsets for c in cands], method_base)
        self._class_spec = _whole_problems(class_shapes, class_base)
        self._relation_spec = _whole_problems(rel_shapes, rel_base)
        # Method cells with equal leaves (names, return types, parameter envelope) have
        # equal values under any weights: ES is computed once per distinct cell (1.34 M
        # cells, 184 k distinct for 1,000 realistic pairs), and the DP reads it from there.
        params = self._params
        distinct, cell_value = distinct_rows(np.column_stack(
            [leaf["method_name"], leaf["method_return"], params.alpha.T, params.beta.T,
             params.n, params.m]))
        self._param_values = LineValues(params, normalization, distinct)
        # (LineValues sorts the distinct cells; the DP reads them where they end up.)
        sorted_cells = self._param_values.order
        spec = self._method_spec
        self._methods = SubsetPlan(spec["base"], spec["stride"], spec["row0"], spec["n"],
                                   spec["col0"], spec["m"],
                                   cell_value=self._param_values.back[cell_value])
        n, m = self._methods.n, self._methods.m
        self._method_denominator = np.maximum(denominator(n, m, normalization), 1.0)
        self._method_empty_reference = np.flatnonzero(n == 0)
        self._method_name = leaf["method_name"][sorted_cells]
        self._method_return = leaf["method_return"][sorted_cells]
        self._attr_values = LineValues(self._attrs, normalization)
        self._classes = MatrixPlan(class_base[:-1], self._class_spec["n"],
                                   self._class_spec["m"], keep_matching=True)
        self._relations = MatrixPlan(rel_base[:-1], self._relation_spec["n"],
                                     self._relation_spec["m"])
        self._previous: dict[str, AssignmentPlan] | None = None
        self._pair_of_class_cell = np.repeat(np.arange(len(pairs)), np.diff(class_base))
        self._begin_src, self._begin_unknown = self._ends(pairs, class_base, "begin",
                                                          leaf["begin_name"])
        self._end_src, self._end_unknown = self._ends(pairs, class_base, "end",
                                                      leaf["end_name"])
        # A class-less reference: clue-attribute/-method are the profile's constant.
        self._empty_reference = np.array([len(p.reference.classes) == 0 for p in pairs])
        self._empty_reference_value = np.array([p.empty_reference_members for p in pairs],
                                               dtype=float)

    @staticmethod
    def _ends(pairs: Sequence[PairLeaves], class_base: np.ndarray, end: str,
              name_leaf: np.ndarray) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
        """For each relation cell: where its end classes' ES_ce is; and the cells where an
        end is unknown, with their name leaves.

        An end that resolves to no class falls back to the ``begin_name``/``end_name``
        leaf, as the engine does (which ends resolve is the similarity profile's rule).
        """
        src, known = [], []
        for p, leaves in enumerate(pairs):
            i1 = getattr(leaves, f"ref_{end}")[:, None]
            i2 = getattr(leaves, f"cand_{end}")[None, :]
            width = leaves.class_name.shape[1]
            ok = (i1 >= 0) & (i2 >= 0)
            src.append(np.where(ok, class_base[p] + i1 * width + i2, 0))
            known.append(ok)
        unknown = np.flatnonzero(~_concat(known, bool))
        return _concat(src, _I), (unknown, name_leaf[unknown])

    @staticmethod
    def _end_values(es_class: np.ndarray, src: np.ndarray,
                    unknown: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        """ES_ce of each relation cell's end classes, or the name leaf where one is unknown
        (``unknown``: those cells and their leaves, planned once; a gather, a small
        scatter)."""
        values = np.take(es_class, src) if es_class.size else np.zeros(len(src))
        cells, names = unknown
        values[cells] = names
        return values

    def __len__(self) -> int:
        return len(self.pairs)

    @classmethod
    def from_batch(cls, batch: LeafBatch, normalization: str = "reference",
                   cancel: CancelToken | None = None) -> LeafCache:
        return cls(batch.pairs, normalization, cancel)

    def scores(self, weights: ClueWeights) -> np.ndarray:
        """The five CLUE metrics of every pair under ``weights``, shape (pairs, 5)."""
        w = weights
        attr_match = np.take(self._attr_values.values(w.w_an, w.w_at), self._attr_values.back)
        param_match = self._param_values.values(w.w_pn, w.w_pt)
        # The engine's expression, in its order, once per distinct method cell.
        es_method = self._method_name * w.w_mn
        es_method += self._method_return * w.w_mt
        param_match *= w.w_mp
        es_method += param_match
        # optmatch_values' arithmetic with its rules planned: m = 0 gives 0 / n already.
        method_match = self._methods.solve(es_method)
        method_match /= self._method_denominator
        method_match[self._method_empty_reference] = 1.0
        return self._class_level(w, attr_match, method_match, self._classes,
                                 self._relations)

    def scores_previous(self, weights: ClueWeights) -> np.ndarray:
        """:meth:`scores` as it was computed before issue 28 (padded envelopes, brute force
        and sparse matchings of the method level, one scipy call per class and relation
        matrix): kept as the tests' and the benchmark's reference; planned on first use."""
        w, leaf, norm = weights, self._leaf, self.normalization
        if self._previous is None:
            def plan(spec: dict[str, np.ndarray], keep: bool = False) -> AssignmentPlan:
                return AssignmentPlan(spec["base"], spec["stride"], spec["row0"],
                                      spec["n"], spec["col0"], spec["m"], keep_matching=keep)

            self._previous = {"methods": plan(self._method_spec),
                              "classes": plan(self._class_spec, keep=True),
                              "relations": plan(self._relation_spec)}
        plans = self._previous
        param_match = optmatch_values(self._params.solve(w.w_pn, w.w_pt), self._params.n,
                                      self._params.m, norm)
        attr_match = optmatch_values(self._attrs.solve(w.w_an, w.w_at), self._attrs.n,
                                     self._attrs.m, norm)
        es_method = (w.w_mn * leaf["method_name"] + w.w_mt * leaf["method_return"]
                     + w.w_mp * param_match)
        method_sums, _ = plans["methods"].solve(es_method)
        method_match = optmatch_values(method_sums, plans["methods"].n, plans["methods"].m,
                                       norm)
        return self._class_level(w, attr_match, method_match, plans["classes"],
                                 plans["relations"])

    def _class_level(self, w: ClueWeights, attr_match: np.ndarray, method_match: np.ndarray,
                     classes: AssignmentPlan | MatrixPlan,
                     relations: AssignmentPlan | MatrixPlan) -> np.ndarray:
        """The five metrics from the OptMatch of every class cell's attributes and methods."""
        leaf, norm = self._leaf, self.normalization
        # Expressions in the engine's order, so equal inputs give equal matrices.
        es_class = leaf["class_name"] * w.w_n
        es_class += attr_match * w.w_a
        es_class += method_match * w.w_m
        class_sums, cells = classes.solve(es_class)
        assert cells is not None
        n_c, m_c = classes.n, classes.m
        clue_class = optmatch_values(class_sums, n_c, m_c, norm)
        owner = self._pair_of_class_cell[cells]
        size = len(self.pairs)
        # Eq. 8/9: summed over the matched class pairs, always divided by n (engine's rule).
        clue_attr = optmatch_values(np.bincount(owner, attr_match[cells], size), n_c, m_c,
                                    "reference")
        clue_method = optmatch_values(np.bincount(owner, method_match[cells], size), n_c, m_c,
                                      "reference")
        if self._empty_reference.any():
            clue_attr = np.where(self._empty_reference, self._empty_reference_value, clue_attr)
            clue_method = np.where(self._empty_reference, self._empty_reference_value,
                                   clue_method)

        # w_rt·type + (0.5·w_rn)·(begin + end) + w_rm·multiplicity, in place.
        ends = self._end_values(es_class, self._begin_src, self._begin_unknown)
        ends += self._end_values(es_class, self._end_src, self._end_unknown)
        ends *= 0.5 * w.w_rn
        es_rel = leaf["relation_type"] * w.w_rt
        es_rel += ends
        es_rel += np.multiply(leaf["relation_multiplicity"], w.w_rm, out=ends)
        relation_sums, _ = relations.solve(es_rel)
        clue_rel = optmatch_values(relation_sums, relations.n, relations.m, norm)
        clue = w.w_e * clue_class + w.w_r * clue_rel
        out = np.column_stack([clue, clue_class, clue_attr, clue_method, clue_rel])
        return out.reshape(size, len(METRIC_NAMES))


def build_leaf_cache(pairs: Sequence[tuple[ClassDiagram, ClassDiagram]], *,
                     embedder: Embedder | str = "minilm", profile: str = "paper",
                     normalization: str = "reference", lut: np.ndarray | None = None,
                     cache: EmbeddingCache | bool | None = True,
                     cancel: CancelToken | None = None) -> Job[LeafCache]:
    """Embed the strings of all (reference, candidate) pairs once and cache their leaves."""
    from cluestudio.core.clue import ClueScorer

    scorer = ClueScorer(embedder, profile=profile, normalization=normalization,
                        cache=cache, lut=lut)
    try:
        batch = yield from scorer.build_leaves(pairs, cancel)
    finally:
        scorer.close()
    yield Progress(len(pairs), len(pairs), "planning matchings", phase="planning")
    return LeafCache.from_batch(batch, normalization, cancel)

"""Leaf similarities of a (reference, candidate) pair: everything CLUE needs from the embedder.

A :class:`PairLeaves` holds, for one pair, the σ matrices of every string leaf of Table 5
(class names, attribute names/types, method names/return types, parameter names/types) and
the relation leaves (LUT and sim_rm). Weights only combine these, so calibration keeps the
leaves of a whole study in memory and re-weights them without touching the encoder.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from cluestudio.core.clue.relations import TYPE_INDEX, sim_rm_matrix
from cluestudio.core.clue.similarity import END_FIRST_CLASS, SimilarityProfile, sigma_block
from cluestudio.core.embed import StringVectors
from cluestudio.core.model import Attribute, Class, ClassDiagram, Method, Relation


def _offsets(counts: list[int]) -> np.ndarray:
    return np.concatenate([[0], np.cumsum(counts, dtype=np.intp)]).astype(np.intp)


@dataclass(frozen=True, eq=False)
class DiagramIndex:
    """A diagram flattened for matrix work: members of all classes in one list per kind.

    ``attr_offsets[i]:attr_offsets[i+1]`` are the attributes of class i (likewise methods);
    ``param_offsets[k]:param_offsets[k+1]`` the parameters of method k. A relation end that
    names no class of the diagram has index -1 (how it is compared is the profile's rule,
    see :func:`pair_leaves`). With ``keep_empty`` the empty string is one of ``distinct``
    like any other (profiles that embed it); otherwise its position is -1.
    """

    classes: tuple[Class, ...]
    attributes: tuple[Attribute, ...]
    methods: tuple[Method, ...]
    relations: tuple[Relation, ...]
    class_names: list[str]
    attr_names: list[str]
    attr_types: list[str]
    attr_offsets: np.ndarray
    method_names: list[str]
    method_returns: list[str]
    method_offsets: np.ndarray
    param_names: list[str]
    param_types: list[str]
    param_offsets: np.ndarray
    relation_types: np.ndarray
    begin_index: np.ndarray
    end_index: np.ndarray
    begin_names: list[str]
    end_names: list[str]
    # The distinct non-empty strings of the diagram, and for each string field the position
    # of every entry in that list (-1 for ""), so one σ matrix per pair serves all fields.
    distinct: list[str]
    positions: dict[str, np.ndarray]

    @classmethod
    def of(cls, diagram: ClassDiagram, keep_empty: bool = False) -> DiagramIndex:
        classes = tuple(diagram.classes)
        attributes = tuple(a for c in classes for a in c.attributes)
        methods = tuple(m for c in classes for m in c.methods)
        params = [p for m in methods for p in m.params]
        position: dict[str, int] = {}
        for i, c in enumerate(classes):
            position.setdefault(c.name.strip(), i)  # first class of a name wins
        relations = tuple(diagram.relations)
        fields = {
            "class_names": [c.name.strip() for c in classes],
            "attr_names": [a.name.strip() for a in attributes],
            "attr_types": [a.type.strip() for a in attributes],
            "method_names": [m.name.strip() for m in methods],
            "method_returns": [m.return_type.strip() for m in methods],
            "param_names": [p.name.strip() for p in params],
            "param_types": [p.type.strip() for p in params],
            "begin_names": [r.begin.strip() for r in relations],
            "end_names": [r.end.strip() for r in relations],
        }
        distinct: dict[str, int] = {}
        for values in fields.values():
            for value in values:
                if value or keep_empty:
                    distinct.setdefault(value, len(distinct))
        positions = {
            name: np.fromiter((distinct.get(v, -1) for v in values), dtype=np.intp,
                              count=len(values))
            for name, values in fields.items()
        }
        return cls(
            classes=classes, attributes=attributes, methods=methods, relations=relations,
            attr_offsets=_offsets([len(c.attributes) for c in classes]),
            method_offsets=_offsets([len(c.methods) for c in classes]),
            param_offsets=_offsets([len(m.params) for m in methods]),
            relation_types=np.array([TYPE_INDEX[r.type] for r in relations], dtype=np.intp),
            begin_index=np.array([position.get(r.begin.strip(), -1) for r in relations],
                                 dtype=np.intp),
            end_index=np.array([position.get(r.end.strip(), -1) for r in relations],
                               dtype=np.intp),
            distinct=list(distinct), positions=positions, **fields,
        )

    def strings(self) -> Iterator[str]:
        """Every distinct string leaf (the embedder's input; "" only with ``keep_empty``)."""
        return iter(self.distinct)

    @property
    def attr_counts(self) -> np.ndarray:
        return np.diff(self.attr_offsets)

    @property
    def method_counts(self) -> np.ndarray:
        return np.diff(self.method_offsets)

    @property
    def param_counts(self) -> np.ndarray:
        return np.diff(self.param_offsets)


@dataclass(frozen=True, eq=False)
class PairLeaves:
    """σ and relation leaf matrices of one pair (rows: reference, columns: candidate)."""

    reference: DiagramIndex
    candidate: DiagramIndex
    class_name: np.ndarray  # C1×C2
    attr_name: np.ndarray  # A1×A2 (all attributes of all classes)
    attr_type: np.ndarray
    method_name: np.ndarray  # M1×M2
    method_return: np.ndarray
    param_name: np.ndarray  # P1×P2
    param_type: np.ndarray
    relation_type: np.ndarray  # R1×R2, LUT(t1, t2)
    relation_multiplicity: np.ndarray  # R1×R2, sim_rm
    # ES_ce of a relation end, where both ends resolve to a class: the class indices per
    # side (-1: unresolved, then the begin_name/end_name leaf is used instead).
    ref_begin: np.ndarray  # R1
    ref_end: np.ndarray
    cand_begin: np.ndarray  # R2
    cand_end: np.ndarray
    begin_name: np.ndarray  # R1×R2, used where an end is no known class
    end_name: np.ndarray
    empty_reference_members: float = 1.0  # clue-attribute/-method when C1 is empty


def pair_leaves(ref: DiagramIndex, cand: DiagramIndex, vectors: StringVectors,
                profile: SimilarityProfile, lut: np.ndarray,
                ref_ids: np.ndarray | None = None,
                cand_ids: np.ndarray | None = None) -> PairLeaves:
    """The leaves of one pair; ``*_ids`` (rows of ``vectors`` for each side's ``distinct``)
    may be passed when a diagram takes part in many pairs."""
    if ref_ids is None:
        ref_ids = vectors.ids(ref.distinct)
    if cand_ids is None:
        cand_ids = vectors.ids(cand.distinct)
    full = profile.sigma_from_cos(vectors.cos(ref_ids, cand_ids))

    def sigma(field: str) -> np.ndarray:
        return sigma_block(full, ref.positions[field], cand.positions[field])

    rel_type = lut[np.ix_(ref.relation_types, cand.relation_types)]
    mult = sim_rm_matrix([r.type for r in ref.relations], [r.label for r in ref.relations],
                         [r.type for r in cand.relations], [r.label for r in cand.relations],
                         profile.multiplicity)
    shape = (len(ref.relations), len(cand.relations))
    ends = _relation_ends(ref, cand, profile)
    if profile.unknown_end == END_FIRST_CLASS:
        # The package: ES_ce is looked up only when both diagrams have classes; otherwise
        # an end scores 1 if the reference has none, else 0 (class 0 stands in for an end
        # that names no class, so with classes on both sides every end resolves).
        constant = 1.0 if not len(ref.classes) else 0.0
        begin_name = end_name = np.full(shape, constant)
    else:
        begin_name, end_name = sigma("begin_names"), sigma("end_names")
    return PairLeaves(
        reference=ref, candidate=cand,
        class_name=sigma("class_names"),
        attr_name=sigma("attr_names"), attr_type=sigma("attr_types"),
        method_name=sigma("method_names"), method_return=sigma("method_returns"),
        param_name=sigma("param_names"), param_type=sigma("param_types"),
        relation_type=rel_type.reshape(shape), relation_multiplicity=mult.reshape(shape),
        **ends, begin_name=begin_name, end_name=end_name,
        empty_reference_members=profile.empty_reference_members,
    )


def _relation_ends(ref: DiagramIndex, cand: DiagramIndex, profile: SimilarityProfile
                   ) -> dict[str, np.ndarray]:
    """Class index of each relation end per side; -1 where the profile compares names."""
    def resolve(index: DiagramIndex, attr: str) -> np.ndarray:
        found: np.ndarray = getattr(index, attr)
        if profile.unknown_end == END_FIRST_CLASS and len(index.classes):
            return np.maximum(found, 0)
        return found

    return {"ref_begin": resolve(ref, "begin_index"), "ref_end": resolve(ref, "end_index"),
            "cand_begin": resolve(cand, "begin_index"), "cand_end": resolve(cand, "end_index")}

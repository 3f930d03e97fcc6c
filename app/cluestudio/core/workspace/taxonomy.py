"""Issue tags for reviews, one tag set per diagram kind.

Class diagrams: the bad-case taxonomy of seed 000 (OODEval, §6.5 RQ5) — three categories
(instruction failure: no ``@startuml``/``@enduml`` code to extract; syntax error; semantic
bias) and the paper's 20 issue types. The paper says there are ten per category without
listing which; the split below is ours (recorded in ADR 0004).

Architecture diagrams (component, deployment, package): the failure taxonomy of seed 001
(R2ABench, Table 6) — component recognition (E1 node omission, E2 hallucination), topology
and boundaries (E3 boundary misplacement, E4 relational modelling failure, plus the orphan
and god components of its anti-pattern layer), syntactic breakdown (E5) — and OODEval's
instruction failure, which any generated diagram can show.

SysML v2 and code tasks keep the class-diagram tags, as they keep its rubric
(core/rubric.py ``KIND_RUBRICS``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from cluestudio.core.errors import ClueStudioError

CATEGORIES = ("instruction_failure", "syntax_error", "semantic_bias")

SYNTAX_ERROR_TYPES = (
    "keyword_error", "relationship_symbol_error", "comment_symbol_error",
    "class_structure_error", "relationship_structure_error", "plantuml_code_confusion",
    "class_sequence_diagram_confusion", "duplicate_generation", "hallucination",
    "complete_failure",
)
SEMANTIC_BIAS_TYPES = (
    "class_missing", "association_missing", "inheritance_missing", "method_omission",
    "relationship_quantity_error", "association_generalization_confusion",
    "relationship_misuse", "relationship_generation_failure", "relationship_direction_error",
    "overdesign",
)

#: tag -> category; a category is itself a valid tag (when no finer type applies).
ISSUE_TAGS: dict[str, str] = {
    "instruction_failure": "instruction_failure",
    "syntax_error": "syntax_error",
    "semantic_bias": "semantic_bias",
    **{tag: "syntax_error" for tag in SYNTAX_ERROR_TYPES},
    **{tag: "semantic_bias" for tag in SEMANTIC_BIAS_TYPES},
}

ARCHITECTURE_CATEGORIES = ("instruction_failure", "component_recognition",
                           "topology_boundary", "syntactic_breakdown")
COMPONENT_RECOGNITION_TYPES = (
    "node_omission",  # E1
    "missing_sub_nodes",  # E1a: fine-grained nodes aggregated away
    "missing_cross_layer_module",  # E1b
    "business_inferred_hallucination",  # E2a
    "infrastructure_prior_hallucination",  # E2b
    "deployment_semantics_mixed_in",  # E2c
)
TOPOLOGY_BOUNDARY_TYPES = (
    "wrong_parent_container",  # E3a
    "abstraction_level_error",  # E3b: compressed or needlessly expanded layers
    "missing_connections",  # E4a
    "reversed_flow_direction",  # E4b
    "wrong_relation_label",  # E4c
    "orphan_component",  # anti-pattern: no incoming or outgoing edge
    "god_component",  # anti-pattern: degree above mean + 2 sd
)
SYNTACTIC_BREAKDOWN_TYPES = (
    "syntax_violation",  # E5: the renderer cannot draw it
    "diagram_type_confusion",  # e.g. a class or sequence diagram where components were asked
)
ARCHITECTURE_TAGS: dict[str, str] = {
    **{category: category for category in ARCHITECTURE_CATEGORIES},
    **{tag: "component_recognition" for tag in COMPONENT_RECOGNITION_TYPES},
    **{tag: "topology_boundary" for tag in TOPOLOGY_BOUNDARY_TYPES},
    **{tag: "syntactic_breakdown" for tag in SYNTACTIC_BREAKDOWN_TYPES},
}


class UnknownIssueTag(ClueStudioError):
    """A review tag that is not in the taxonomy."""


@dataclass(frozen=True)
class TagSet:
    """The issue tags one diagram kind is reviewed with."""

    id: str
    title: str
    categories: tuple[str, ...]
    tags: Mapping[str, str]  # tag -> its category (a category maps to itself)

    def ordered(self) -> list[str]:
        """Categories first, then the finer types in taxonomy order (the panel's key order)."""
        return list(self.categories) + [t for t in self.tags if t not in self.categories]

    def check(self, tags: Iterable[str]) -> tuple[str, ...]:
        """Validated, de-duplicated tags in the order given."""
        given = list(tags)
        unknown = [t for t in given if t not in self.tags]
        if unknown:
            raise UnknownIssueTag(f"unknown issue tag(s) {', '.join(map(repr, unknown))} for "
                                  f"{self.title}; known: {', '.join(self.tags)}")
        return tuple(dict.fromkeys(given))


CLASS_TAG_SET = TagSet("class-diagram", "class diagrams (OODEval)", CATEGORIES, ISSUE_TAGS)
ARCHITECTURE_TAG_SET = TagSet("architecture", "architecture diagrams (R2ABench)",
                              ARCHITECTURE_CATEGORIES, ARCHITECTURE_TAGS)
#: diagram kind -> its tag set (the same split as core/rubric.py KIND_RUBRICS).
KIND_TAG_SETS: dict[str, TagSet] = {
    "class": CLASS_TAG_SET, "component": ARCHITECTURE_TAG_SET,
    "deployment": ARCHITECTURE_TAG_SET, "package": ARCHITECTURE_TAG_SET,
    "sysml": CLASS_TAG_SET, "code": CLASS_TAG_SET,
}
#: Every tag of every set (tag -> category), for checks made before the kind is known.
ALL_TAGS: dict[str, str] = {**ARCHITECTURE_TAGS, **ISSUE_TAGS}


def tags_for_kind(kind: str) -> TagSet:
    """The issue tags a review of a task of diagram ``kind`` may carry."""
    if kind not in KIND_TAG_SETS:
        raise UnknownIssueTag(f"no issue tags for diagram kind {kind!r} (kinds: "
                              f"{', '.join(KIND_TAG_SETS)})")
    return KIND_TAG_SETS[kind]


def check_tags(tags: tuple[str, ...] | list[str], kind: str | None = "class"
               ) -> tuple[str, ...]:
    """Validated, de-duplicated tags in the order given, against the tag set of ``kind``
    (``None``: any kind's tags, for a check made before the task is known)."""
    if kind is None:
        return TagSet("any", "any diagram kind", (), ALL_TAGS).check(tags)
    return tags_for_kind(kind).check(tags)


def label(tag: str) -> str:
    """A human label: ``class_missing`` -> 'Class missing'."""
    return tag.replace("_", " ").capitalize()

"""Issue tags for reviews: the bad-case taxonomy of seed 000 (OODEval, §6.5 RQ5).

Three categories — instruction failure (no ``@startuml``/``@enduml`` code to extract),
syntax error, semantic bias — and the paper's 20 issue types. The paper says there are ten
per category without listing which; the split below is ours (recorded in ADR 0004).
"""

from __future__ import annotations

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


class UnknownIssueTag(ClueStudioError):
    """A review tag that is not in the taxonomy."""


def check_tags(tags: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """Validated, de-duplicated tags in the order given."""
    unknown = [t for t in tags if t not in ISSUE_TAGS]
    if unknown:
        raise UnknownIssueTag(f"unknown issue tag(s) {', '.join(map(repr, unknown))}; "
                              f"known: {', '.join(ISSUE_TAGS)}")
    return tuple(dict.fromkeys(tags))


def label(tag: str) -> str:
    """A human label: ``class_missing`` -> 'Class missing'."""
    return tag.replace("_", " ").capitalize()

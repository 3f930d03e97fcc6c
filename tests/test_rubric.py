"""Rubrics as data: the default rubric loads, matches its schema and validates scores."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from cluestudio.core.rubric import RubricError, get_rubric, load_rubric, rubric_from_dict


def test_default_rubric_items_keys_and_total() -> None:
    rubric = get_rubric()
    assert [i.id for i in rubric.items] == ["classes", "attributes", "methods", "relations",
                                            "multiplicities", "overall"]
    assert len({i.key for i in rubric.items}) == len(rubric.items)
    full = {i.id: i.scale.max for i in rubric.items}
    assert rubric.total(rubric.validate(full)) == 100
    assert rubric.total(rubric.validate({i.id: i.scale.min for i in rubric.items})) == 0


@pytest.mark.parametrize(("item", "value", "message"), [
    ("classes", 5, "out of range"), ("classes", -1, "out of range"),
    ("classes", 2.5, "steps of 1"), ("overall", math.nan, "out of range"),
    ("classes", "many", "not a number"),
])
def test_bad_scores_are_clear_errors(item: str, value: object, message: str) -> None:
    rubric = get_rubric()
    scores: dict[str, object] = {i.id: i.scale.min for i in rubric.items}
    scores[item] = value
    with pytest.raises(RubricError, match=message):
        rubric.validate(scores)  # type: ignore[arg-type]


def test_unknown_item_and_bad_total() -> None:
    rubric = get_rubric()
    with pytest.raises(RubricError, match="unknown rubric item"):
        rubric.validate({"colour": 1})
    with pytest.raises(RubricError, match=r"out of range 0\.\.100"):
        rubric.validate_total(101)


def test_schema_errors_name_the_path(tmp_path: Path) -> None:
    with pytest.raises(RubricError, match=r"rubric.items\[0\]: missing required key 'scale'"):
        rubric_from_dict({"id": "x", "version": 1, "title": "X",
                          "items": [{"id": "a", "label": "A", "weight": 1}]})
    bad = tmp_path / "bad.toml"
    bad.write_text("id = \n")
    with pytest.raises(RubricError, match="not valid TOML"):
        load_rubric(bad)
    with pytest.raises(RubricError, match="no rubric 'nope'"):
        get_rubric("nope")

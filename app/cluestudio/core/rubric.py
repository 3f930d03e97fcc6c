"""Grading rubrics as data (``annotations/rubrics/*.toml``) and validation of ratings.

A rubric file is checked against ``annotations/rubrics/rubric.schema.json`` with a small
validator for the JSON-Schema subset that file uses (no ``jsonschema`` dependency), then
turned into :class:`Rubric`, which validates item scores and computes the 0–100 total.
A task is graded with the rubric of its diagram kind (:func:`rubric_for_kind`).
"""

from __future__ import annotations

import json
import math
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from cluestudio.core.errors import SourceError

DEFAULT_RUBRIC_ID = "class-diagram"
ARCHITECTURE_RUBRIC_ID = "architecture"
#: diagram kind (core/workspace/kinds.py) -> the rubric its tasks are graded with. SysML v2
#: models and Python code keep the class-diagram rubric: SysMEval splits a model into blocks,
#: attributes, actions and relations, and code serves as a reference through its class
#: skeletons (OpenClassGen), so classes / attributes / methods / relations still fit.
KIND_RUBRICS: dict[str, str] = {
    "class": DEFAULT_RUBRIC_ID, "component": ARCHITECTURE_RUBRIC_ID,
    "deployment": ARCHITECTURE_RUBRIC_ID, "package": ARCHITECTURE_RUBRIC_ID,
    "sysml": DEFAULT_RUBRIC_ID, "code": DEFAULT_RUBRIC_ID,
}


class RubricError(SourceError):
    """A rubric file that does not match the schema, or a rating that does not match its rubric."""


def annotations_dir() -> Path:
    """Where rubrics and the sample course live (``CLUESTUDIO_ANNOTATIONS_DIR`` overrides)."""
    override = os.environ.get("CLUESTUDIO_ANNOTATIONS_DIR")
    if override:
        return Path(override)
    from cluestudio.resources_path import annotations_dir as bundled_annotations_dir

    return bundled_annotations_dir()


@dataclass(frozen=True)
class Scale:
    min: float
    max: float
    step: float = 1.0
    labels: Mapping[str, str] = field(default_factory=dict)

    def contains(self, value: float) -> bool:
        if not (self.min <= value <= self.max):
            return False
        steps = (value - self.min) / self.step
        return math.isclose(steps, round(steps), abs_tol=1e-9)


@dataclass(frozen=True)
class RubricItem:
    id: str
    label: str
    weight: float
    scale: Scale
    description: str = ""
    key: str = ""


@dataclass(frozen=True)
class Rubric:
    id: str
    version: int
    title: str
    items: tuple[RubricItem, ...]
    total_max: float = 100.0

    def item(self, item_id: str) -> RubricItem:
        for item in self.items:
            if item.id == item_id:
                return item
        raise KeyError(item_id)

    def validate(self, scores: Mapping[str, float], source: str | None = None
                 ) -> dict[str, float]:
        """Scores as floats, every item present and on its scale; else :class:`RubricError`."""
        where = source or f"rubric {self.id}"
        known = {i.id for i in self.items}
        extra = sorted(set(scores) - known)
        if extra:
            raise RubricError(f"unknown rubric item(s) {', '.join(extra)}; "
                              f"items are {', '.join(sorted(known))}", source=where)
        out = {}
        for item in self.items:
            if item.id not in scores:
                raise RubricError(f"missing score for item {item.id!r}", source=where)
            raw = scores[item.id]
            try:
                value = float(raw)
            except (TypeError, ValueError):
                raise RubricError(f"score for {item.id!r} is not a number: {raw!r}",
                                  source=where) from None
            if math.isnan(value) or not item.scale.contains(value):
                raise RubricError(
                    f"score {raw!r} for {item.id!r} is out of range: allowed "
                    f"{item.scale.min:g}..{item.scale.max:g} in steps of {item.scale.step:g}",
                    source=where)
            out[item.id] = value
        return out

    def total(self, scores: Mapping[str, float]) -> float:
        weights = sum(i.weight for i in self.items) or 1.0
        fraction = sum(
            i.weight * (scores[i.id] - i.scale.min) / ((i.scale.max - i.scale.min) or 1.0)
            for i in self.items) / weights
        return round(self.total_max * fraction, 4)

    def validate_total(self, total: float, source: str | None = None) -> float:
        """A holistic total given without item scores (e.g. OODEval instructor ratings)."""
        value = float(total)
        if math.isnan(value) or not 0 <= value <= self.total_max:
            raise RubricError(f"total {total!r} is out of range 0..{self.total_max:g}",
                              source=source or f"rubric {self.id}")
        return value


# --- schema check -------------------------------------------------------------------------

_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,), "array": (list,), "string": (str,), "integer": (int,),
    "number": (int, float), "boolean": (bool,),
}


def _check(value: Any, schema: Mapping[str, Any], path: str) -> list[str]:
    errors = []
    expected = schema.get("type")
    if expected and (not isinstance(value, _TYPES[expected])
                     or (expected in ("integer", "number") and isinstance(value, bool))):
        return [f"{path}: expected {expected}, got {type(value).__name__}"]
    if isinstance(value, dict):
        for key in schema.get("required", ()):
            if key not in value:
                errors.append(f"{path}: missing required key {key!r}")
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, sub in value.items():
            if key in props:
                errors += _check(sub, props[key], f"{path}.{key}")
            elif extra is False:
                errors.append(f"{path}: unknown key {key!r}")
            elif isinstance(extra, dict):
                errors += _check(sub, extra, f"{path}.{key}")
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            errors.append(f"{path}: needs at least {schema['minItems']} entries")
        for i, sub in enumerate(value):
            errors += _check(sub, schema.get("items", {}), f"{path}[{i}]")
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            errors.append(f"{path}: must not be empty")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            errors.append(f"{path}: {value!r} does not match {schema['pattern']}")
    if isinstance(value, int | float) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            errors.append(f"{path}: {value} < minimum {schema['minimum']}")
        if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
            errors.append(f"{path}: {value} must be > {schema['exclusiveMinimum']}")
    return errors


@lru_cache(maxsize=1)
def rubric_schema() -> dict[str, Any]:
    path = annotations_dir() / "rubrics" / "rubric.schema.json"
    return json.loads(path.read_text(encoding="utf-8"))


def rubric_from_dict(data: Mapping[str, Any], source: str = "<rubric>") -> Rubric:
    errors = _check(dict(data), rubric_schema(), "rubric")
    if errors:
        raise RubricError("; ".join(errors), source=source)
    items = []
    for raw in data["items"]:
        s = raw["scale"]
        scale = Scale(float(s["min"]), float(s["max"]), float(s.get("step", 1)),
                      dict(s.get("labels", {})))
        if scale.max <= scale.min:
            raise RubricError(f"item {raw['id']!r}: scale max must exceed min", source=source)
        items.append(RubricItem(raw["id"], raw["label"], float(raw["weight"]), scale,
                                raw.get("description", ""), raw.get("key", "")))
    ids = [i.id for i in items]
    keys = [i.key for i in items if i.key]
    if len(set(ids)) != len(ids) or len(set(keys)) != len(keys):
        raise RubricError("item ids and keys must be unique", source=source)
    return Rubric(data["id"], int(data["version"]), data["title"], tuple(items),
                  float(data.get("total_max", 100)))


def load_rubric(path: Path) -> Rubric:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise RubricError(f"not valid TOML: {error}", source=str(path)) from error
    return rubric_from_dict(data, source=str(path))


def available_rubrics() -> dict[str, Rubric]:
    """Every rubric in ``annotations/rubrics``, by id."""
    out = {}
    for path in sorted((annotations_dir() / "rubrics").glob("*.toml")):
        rubric = load_rubric(path)
        out[rubric.id] = rubric
    return out


@lru_cache(maxsize=8)
def get_rubric(rubric_id: str = DEFAULT_RUBRIC_ID) -> Rubric:
    rubrics = available_rubrics()
    if rubric_id not in rubrics:
        raise RubricError(f"no rubric {rubric_id!r}; available: {', '.join(sorted(rubrics))}",
                          source=str(annotations_dir() / "rubrics"))
    return rubrics[rubric_id]


def rubric_id_for_kind(kind: str) -> str:
    """The id of the rubric a task of diagram ``kind`` is graded with."""
    if kind not in KIND_RUBRICS:
        raise RubricError(f"no rubric for diagram kind {kind!r} (kinds: "
                          f"{', '.join(KIND_RUBRICS)})", source="core.rubric.KIND_RUBRICS")
    return KIND_RUBRICS[kind]


def rubric_for_kind(kind: str) -> Rubric:
    """The rubric a task of diagram ``kind`` is graded with (class → class-diagram;
    component, deployment, package → architecture; sysml, code → class-diagram)."""
    return get_rubric(rubric_id_for_kind(kind))

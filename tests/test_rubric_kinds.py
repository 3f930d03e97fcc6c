"""A rubric and an issue-tag set per diagram kind (issue 17, item 11): component,
deployment and package tasks are graded with the architecture rubric and reviewed with
R2ABench's failure tags; ratings imports pick a task's kind rubric; review verdicts only
take the tags of the task's kind."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cluestudio.core.jobs import run_job
from cluestudio.core.rubric import (
    KIND_RUBRICS,
    RubricError,
    get_rubric,
    load_rubric,
    rubric_for_kind,
    rubric_id_for_kind,
)
from cluestudio.core.workspace import (
    ImportFailed,
    SaveRating,
    SetReviewVerdict,
    Task,
    import_path,
    kinds,
    open_workspace,
    ops,
    taxonomy,
)
from cluestudio.resources_path import annotations_dir

COMPONENT = "@startuml\ncomponent Web\ncomponent Db\n[Web] --> [Db]\n@enduml\n"
CLASS = "@startuml\nclass A\n@enduml\n"
ARCH_FULL = {"components": 4, "connectors": 4, "layering": 4, "responsibilities": 4,
             "naming": 2, "overall": 4}


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Any]:
    workspace = open_workspace(tmp_path / "w.sqlite")

    def seed(conn: Any) -> dict[str, int]:
        ops.upsert_task(conn, Task("arch", "Shop", "", COMPONENT, diagram_kind="component"))
        ops.upsert_task(conn, Task("cls", "Library", "", CLASS))
        return {"arch": ops.ensure_submission(conn, "arch", "s1", "student", None)[0],
                "cls": ops.ensure_submission(conn, "cls", "s1", "student", None)[0]}

    workspace.ids = workspace.write(seed)  # type: ignore[attr-defined]
    yield workspace
    workspace.close()


# --- rubrics ----------------------------------------------------------------------------------


def test_architecture_rubric_is_valid_and_scores_like_the_class_rubric() -> None:
    path = annotations_dir() / "rubrics" / "architecture.toml"
    rubric = load_rubric(path)  # checked against rubric.schema.json on load
    assert rubric.id == "architecture"
    assert [i.id for i in rubric.items] == list(ARCH_FULL)
    assert len({i.key for i in rubric.items}) == len(rubric.items)
    assert sum(i.weight for i in rubric.items) == pytest.approx(1.0)
    assert rubric.total(rubric.validate(ARCH_FULL)) == 100
    assert rubric.total(rubric.validate({i.id: i.scale.min for i in rubric.items})) == 0
    half = rubric.validate({**ARCH_FULL, "connectors": 2})
    assert rubric.total(half) == pytest.approx(87.5)
    with pytest.raises(RubricError, match="unknown rubric item"):
        rubric.validate({**ARCH_FULL, "classes": 4})  # a class-diagram item


def test_every_kind_has_a_rubric_and_architecture_kinds_get_theirs() -> None:
    assert set(KIND_RUBRICS) == set(kinds.DIAGRAM_KINDS)
    for kind in ("component", "deployment", "package"):
        assert rubric_for_kind(kind).id == "architecture"
    for kind in ("class", "sysml", "code"):
        assert rubric_for_kind(kind) is get_rubric("class-diagram")
    with pytest.raises(RubricError, match="no rubric for diagram kind 'sequence'"):
        rubric_id_for_kind("sequence")


# --- issue tags -------------------------------------------------------------------------------


def test_tag_sets_per_kind_are_disjoint_where_they_must_be() -> None:
    assert set(taxonomy.KIND_TAG_SETS) == set(kinds.DIAGRAM_KINDS)
    arch = taxonomy.tags_for_kind("component")
    assert arch is taxonomy.tags_for_kind("deployment") is taxonomy.tags_for_kind("package")
    assert taxonomy.tags_for_kind("class").tags is taxonomy.ISSUE_TAGS
    # Every architecture tag belongs to one of its categories, and the order starts with them.
    assert set(arch.tags.values()) == set(arch.categories)
    assert arch.ordered()[:len(arch.categories)] == list(arch.categories)
    assert len(arch.ordered()) == len(set(arch.ordered())) == len(arch.tags)
    assert {"node_omission", "reversed_flow_direction", "god_component"} <= set(arch.tags)
    assert arch.check(["god_component", "god_component", "syntax_violation"]) == (
        "god_component", "syntax_violation")
    with pytest.raises(taxonomy.UnknownIssueTag, match="'class_missing' for architecture"):
        arch.check(["class_missing"])
    with pytest.raises(taxonomy.UnknownIssueTag, match="no issue tags for diagram kind"):
        taxonomy.tags_for_kind("gantt")


def test_review_tags_are_checked_against_the_task_kind(ws) -> None:
    arch, cls = ws.ids["arch"], ws.ids["cls"]
    ws.execute(SetReviewVerdict(arch, "rev", "needs_fix", ["god_component", "missing_connections"]))
    ws.execute(SetReviewVerdict(cls, "rev", "needs_fix", ["class_missing"]))
    assert ws.reviews(arch)[0].tags == ("god_component", "missing_connections")
    # A tag of the other kind is refused when the command runs, and nothing is written.
    with pytest.raises(taxonomy.UnknownIssueTag, match="class_missing"):
        ws.execute(SetReviewVerdict(arch, "rev2", "accept", ["class_missing"]))
    with pytest.raises(taxonomy.UnknownIssueTag, match="god_component"):
        ws.execute(SetReviewVerdict(cls, "rev2", "accept", ["god_component"]))
    assert {r.reviewer for r in ws.reviews()} == {"rev"}
    assert ws.undo_stack.undo_label == f"Set verdict 'needs_fix' on submission {cls}"
    # Known nowhere: refused before the database is touched; with a kind, against it.
    with pytest.raises(taxonomy.UnknownIssueTag):
        SetReviewVerdict(arch, "rev", "accept", ["no_such_tag"])
    with pytest.raises(taxonomy.UnknownIssueTag):
        SetReviewVerdict(arch, "rev", "accept", ["class_missing"], diagram_kind="component")


def test_architecture_rating_saves_under_its_rubric(ws) -> None:
    arch = ws.ids["arch"]
    rubric = rubric_for_kind("component")
    ws.execute(SaveRating(arch, "ta", ARCH_FULL, rubric=rubric))
    rating = ws.rating(arch, "ta", "architecture")
    assert rating is not None and rating.total == 100
    with pytest.raises(RubricError, match="missing score for item 'connectors'"):
        SaveRating(arch, "ta", {"components": 4}, rubric=rubric)


# --- ratings import ----------------------------------------------------------------------------


def _course(root: Path, ratings: str, *, component_task: bool = True) -> Path:
    for task_id, text, kind in (("arch", COMPONENT, "component"), ("cls", CLASS, None)):
        if task_id == "arch" and not component_task:
            continue
        folder = root / "tasks" / task_id
        (folder / "submissions").mkdir(parents=True)
        (folder / "requirement.md").write_text(f"# {task_id}\n", encoding="utf-8")
        (folder / "reference.puml").write_text(text, encoding="utf-8")
        (folder / "submissions" / "s1.puml").write_text(text, encoding="utf-8")
        if kind:
            (folder / "task.toml").write_text(f'diagram_kind = "{kind}"\n', encoding="utf-8")
    (root / "ratings.csv").write_text(ratings, encoding="utf-8")
    return root


_HEADER = ("task_id,source_id,grader,classes,attributes,methods,relations,multiplicities,"
           "components,connectors,layering,responsibilities,naming,overall\n")


def test_ratings_csv_rows_take_the_rubric_of_their_task_kind(tmp_path: Path) -> None:
    root = _course(tmp_path / "course", _HEADER
                   + "arch,s1,ta,,,,,,4,2,4,4,2,4\n"
                   + "cls,s1,ta,4,4,4,4,2,,,,,,4\n")
    with open_workspace(tmp_path / "w.sqlite") as ws:
        run_job(import_path(ws, root))
        by_task = {ws.submission(r.submission_id).task_id: r for r in ws.ratings()}
        assert by_task["arch"].rubric_id == "architecture"
        assert by_task["arch"].scores["connectors"] == 2
        assert by_task["arch"].total == pytest.approx(87.5)
        assert by_task["cls"].rubric_id == "class-diagram" and by_task["cls"].total == 100


def test_ratings_csv_with_only_class_items_for_a_component_task_fails_naming_the_line(
        tmp_path: Path) -> None:
    root = _course(tmp_path / "course", "task_id,source_id,grader,classes,attributes,"
                   "methods,relations,multiplicities,overall\narch,s1,ta,4,4,4,4,2,4\n")
    with open_workspace(tmp_path / "w.sqlite") as ws:
        with pytest.raises(ImportFailed) as failed:
            run_job(import_path(ws, root))
        assert "ratings.csv:2" in str(failed.value)
        assert "missing score for item 'components'" in str(failed.value)
        assert ws.tasks() == []  # all or nothing
    # Naming the class rubric explicitly is still accepted (older data, a deliberate choice).
    explicit = _course(tmp_path / "course2", "task_id,source_id,grader,rubric_id,classes,"
                       "attributes,methods,relations,multiplicities,overall\n"
                       "arch,s1,ta,class-diagram,4,4,4,4,2,4\n")
    with open_workspace(tmp_path / "w2.sqlite") as ws:
        run_job(import_path(ws, explicit))
        assert [r.rubric_id for r in ws.ratings()] == ["class-diagram"]


def test_ratings_of_a_component_task_only_the_workspace_knows(tmp_path: Path) -> None:
    with open_workspace(tmp_path / "w.sqlite") as ws:
        run_job(import_path(ws, _course(tmp_path / "first", _HEADER)))
        # A later folder with only the class task rates the component task already imported.
        later = _course(tmp_path / "later", _HEADER + "arch,s1,ta2,,,,,,4,4,4,4,2,4\n",
                        component_task=False)
        run_job(import_path(ws, later))
        (rating,) = [r for r in ws.ratings() if r.grader == "ta2"]
        assert rating.rubric_id == "architecture" and rating.total == 100
        bad = _course(tmp_path / "bad", _HEADER + "arch,s1,ta3,4,4,4,4,2,,,,,,\n",
                      component_task=False)
        with pytest.raises(ImportFailed, match=r"ratings.csv:2: error: rating has neither"):
            run_job(import_path(ws, bad))
        assert not [r for r in ws.ratings() if r.grader == "ta3"]


def test_jsonl_rating_of_a_component_task_uses_the_architecture_rubric(tmp_path: Path) -> None:
    path = tmp_path / "data.jsonl"
    records = [{"task_id": "arch", "reference": COMPONENT, "diagram_kind": "component",
                "candidate": COMPONENT, "source_id": "s1", "grader": "ta",
                "rating": {**ARCH_FULL, "naming": 1}},
               {"task_id": "arch", "reference": COMPONENT, "candidate": COMPONENT,
                "source_id": "s2", "rating": 55}]
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    with open_workspace(tmp_path / "w.sqlite") as ws:
        run_job(import_path(ws, path))
        ratings = {ws.submission(r.submission_id).source_id: r for r in ws.ratings()}
        assert ratings["s1"].rubric_id == ratings["s2"].rubric_id == "architecture"
        assert ratings["s1"].total == pytest.approx(95.0)
        assert ratings["s2"].total == 55 and ratings["s2"].scores == {}

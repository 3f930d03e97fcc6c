"""Seed 003's conditions, the audit report (EM, RelAcc, Δ) and the resumable answer cache."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cluestudio.core.vlm.cache import ResultCache, record_key
from cluestudio.core.vlm.conditions import (
    CONDITIONS,
    CONFLICT_CONDITIONS,
    MIXED_3,
    PRIOR_CONFORM,
    PRIOR_FREE,
    REVERSE_2,
    REVERSE_3,
    SCALES,
    VOCABULARY,
    AuditInstance,
    abbreviate,
    check_instance,
    generate,
    pairing,
)
from cluestudio.core.vlm.prompts import RELATIONS
from cluestudio.core.vlm.report import summarize, to_csv, to_json, to_svg


def test_scales_and_conditions_are_the_papers() -> None:
    assert SCALES == (1.0, 1.5, 2.0)
    assert CONDITIONS == (PRIOR_CONFORM, REVERSE_2, REVERSE_3, MIXED_3, PRIOR_FREE)
    assert set(VOCABULARY) == set(RELATIONS)


def test_generation_is_seeded_and_every_instance_is_valid() -> None:
    first = generate(per_cell=None, seed=7)
    assert first == generate(per_cell=None, seed=7)
    assert first != generate(per_cell=None, seed=8)
    assert len({i.id for i in first}) == len(first)
    for instance in first:
        assert check_instance(instance) == [], instance


def _by(condition: str, relation: str = "inheritance"):
    return {i.question: i for i in generate([condition], [relation], None, seed=0)}


def test_conform_and_2_reverse_share_names_and_layout_and_flip_the_arrow() -> None:
    conform, reverse = _by(PRIOR_CONFORM), _by(REVERSE_2)
    assert conform.keys() == reverse.keys()
    dog = conform[("Dog", "Mammal")]
    flipped = reverse[("Dog", "Mammal")]
    assert dog.edges == (("Dog", "Mammal"),) and dog.gold is True
    assert flipped.edges == (("Mammal", "Dog"),) and flipped.gold is False
    assert dog.layout == flipped.layout == ("Mammal", "Dog")  # parent on top in both
    assert "Mammal <|-- Dog" in dog.plantuml()
    assert "Mammal --|> Dog" in flipped.plantuml()


def test_three_class_conditions() -> None:
    for instance in _by(REVERSE_3).values():
        assert len(instance.layout) == 3 and len(instance.edges) == 2
        assert instance.gold is False
        chain = next(c for c in VOCABULARY["inheritance"] if set(c) == set(instance.layout))
        conform_edges = {(chain[0], chain[1]), (chain[1], chain[2])}
        # 3-reverse: every depicted edge is prior-conflicting.
        assert {(b, a) for a, b in instance.edges} == conform_edges
    for instance in _by(MIXED_3).values():
        chain = next(c for c in VOCABULARY["inheritance"] if set(c) == set(instance.layout))
        conform_edges = {(chain[0], chain[1]), (chain[1], chain[2])}
        kept = [e for e in instance.edges if e in conform_edges]
        flipped = [e for e in instance.edges if (e[1], e[0]) in conform_edges]
        # 3-mixed: one edge conforms, the queried one is reversed.
        assert len(kept) == 1 and len(flipped) == 1
        assert flipped[0] == (instance.question[1], instance.question[0])


def test_prior_free_uses_capital_letters_both_ways_and_drops_collisions() -> None:
    assert abbreviate("GoldenRetriever") == "GR" and abbreviate("Dog") == "D"
    free = generate([PRIOR_FREE], RELATIONS, None, seed=0)
    assert all(len(name) <= 3 and name.isupper() for i in free for name in i.layout)
    assert {i.variant for i in free} == {"conform", "reverse"}
    assert sum(i.gold for i in free) == sum(not i.gold for i in free)  # always-True = 50%
    # Fleet/Ship/Sailor: Ship and Sailor both abbreviate to "S" and must be dropped.
    aggregation = {i.question for i in free if i.relation == "aggregation"}
    assert ("F", "S") in aggregation and ("S", "S") not in aggregation


def test_per_cell_limits_each_cell() -> None:
    instances = generate(per_cell=3, seed=1)
    cells = {(i.condition, i.relation) for i in instances}
    assert len(cells) == 20 and len(instances) == 16 * 3 + 4 * 6  # prior-free: both ways


def test_relation_arrows_in_plantuml() -> None:
    arrows = {"aggregation": "o--", "composition": "*--", "dependency": "..>"}
    for relation, arrow in arrows.items():
        instance = generate([PRIOR_CONFORM], [relation], 1, seed=0)[0]
        top, bottom = instance.layout
        assert f"{top} {arrow} {bottom}" in instance.plantuml()  # whole / client on top
        assert "scale 1.5" in instance.plantuml(1.5)


def _record(condition: str, relation: str, scale: float, correct: bool, em: bool = True,
            n: int = 0) -> dict:
    twin = "" if condition == PRIOR_CONFORM else f"{PRIOR_CONFORM}{relation}{scale}{n}"
    return {"instance_id": f"{condition}{relation}{scale}{n}", "condition": condition,
            "relation": relation, "scale": scale, "seed": 0, "model": "m",
            "prompt_version": "p", "correct": correct, "em": em, "twin": twin}


def test_summary_reports_em_relacc_and_conflict_gap() -> None:
    records = []
    for scale in (1.0, 2.0):
        records += [_record(PRIOR_CONFORM, "inheritance", scale, True, n=k) for k in range(4)]
        records += [_record(REVERSE_2, "inheritance", scale, k == 0, em=k != 1, n=k)
                    for k in range(4)]
        records += [_record(PRIOR_CONFORM, "aggregation", scale, k < 2, n=k) for k in range(4)]
        records += [_record(REVERSE_2, "aggregation", scale, k < 2, n=k) for k in range(4)]
    cells = {(c.condition, c.relation, c.scale): c for c in summarize(records)}
    cell = cells[(REVERSE_2, "inheritance", "1")]
    assert cell.rel_acc == 0.25 and cell.em == 0.75 and cell.delta == 0.75
    assert cells[(REVERSE_2, "aggregation", "all")].delta == 0.0
    overall = cells[(REVERSE_2, "all", "all")]
    assert overall.delta == pytest.approx((0.75 + 0.0) / 2)
    assert cells[(PRIOR_CONFORM, "all", "all")].delta is None
    csv_text = to_csv(list(cells.values()))
    assert csv_text.splitlines()[0] == "model,condition,relation,scale,n,em,rel_acc,delta,pairs"
    assert "2-reverse,inheritance,1,4,75.0,25.0,75.0,4" in csv_text
    assert json.loads(to_json(list(cells.values())))["cells"]
    svg = to_svg(list(cells.values()))
    assert svg.startswith("<svg") and "Δ=75.0" in svg


def test_summary_of_nothing_is_empty() -> None:
    assert summarize([]) == []
    assert to_svg([]).startswith("<svg")


def test_cache_survives_a_torn_line_and_resumes(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    cache = ResultCache(path)
    first = _record(PRIOR_CONFORM, "inheritance", 1.0, True)
    cache.add(first)
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"instance_id": "torn", "cond')  # killed mid-write
    again = ResultCache(path)
    assert len(again) == 1 and record_key(first) in again
    second = _record(REVERSE_2, "inheritance", 1.0, False)
    again.add(second)
    assert len(ResultCache(path)) == 2


# -- structural pairing (DESIGN §6) and the paper's constraints (iii), (iv) -------------------
def _synthetic_vocabulary(chains_per_relation: int) -> dict[str, tuple[tuple[str, str, str], ...]]:
    """Many chains (as a generated vocabulary would give), names unique per chain."""
    return {relation: tuple((f"Leaf{i}X", f"Middle{i}Y", f"Root{i}Z")
                            for i in range(chains_per_relation)) for relation in RELATIONS}


@pytest.mark.parametrize(("per_cell", "vocabulary"), [
    (1, None), (2, None), (3, None), (7, None), (10, None), (None, None),
    (25, 40), (100, 60), (None, 60),
])
@pytest.mark.parametrize("seed", [0, 5])
def test_every_conflict_item_is_paired_with_its_twin(per_cell: int | None,
                                                     vocabulary: int | None, seed: int) -> None:
    chains = None if vocabulary is None else _synthetic_vocabulary(vocabulary)
    instances = generate(per_cell=per_cell, seed=seed, vocabulary=chains)
    twins = pairing(instances)
    conflicts = [i for i in instances if i.condition in CONFLICT_CONDITIONS]
    assert conflicts and len(twins) == len(conflicts)  # 100% pairing
    for instance in conflicts:
        twin = twins[instance.id]
        assert check_instance(instance, twin) == [], (instance, twin)
        assert twin.question == instance.question and twin.gold and not instance.gold
        (begin, end), = twin.edges
        assert (end, begin) in instance.edges  # same arrow, reversed
        if instance.condition == REVERSE_2:
            assert instance.layout == twin.layout
        else:  # the 2-reverse diagram augmented with the chain's third class
            assert [n for n in instance.layout if n in twin.layout] == list(twin.layout)
    for relation in RELATIONS:
        sizes = {c: sum(1 for i in instances if (i.condition, i.relation) == (c, relation))
                 for c in (PRIOR_CONFORM, *CONFLICT_CONDITIONS)}
        assert len(set(sizes.values())) == 1, sizes  # each conflict cell as big as conform


def test_scale_grows_with_the_vocabulary() -> None:
    shipped = generate(per_cell=None, seed=0)
    assert sum(1 for i in shipped if i.condition == REVERSE_3) == \
        sum(1 for i in shipped if i.condition == REVERSE_2)  # 3-class: as many as 2-class
    big = generate([PRIOR_CONFORM, MIXED_3], per_cell=None, seed=0,
                   vocabulary=_synthetic_vocabulary(300))
    assert sum(1 for i in big if i.condition == MIXED_3) == 4 * 600  # two pairs per chain


def _conform(pair=("Dog", "Mammal")) -> AuditInstance:
    return AuditInstance(PRIOR_CONFORM, "inheritance", (pair[1], pair[0]), (pair,), pair)


def test_check_instance_rejects_unintended_relations() -> None:
    twin = _conform()
    # (iii) a second arrow between the queried pair, drawn the other way
    both_ways = AuditInstance(REVERSE_2, "inheritance", ("Mammal", "Dog"),
                              (("Mammal", "Dog"), ("Dog", "Mammal")), ("Dog", "Mammal"),
                              twin=twin.id)
    assert any("edge" in p for p in check_instance(both_ways))
    # (iii) 3-class: an arrow between the chain's ends instead of the auxiliary pair
    skip = AuditInstance(MIXED_3, "inheritance", ("Animal", "Mammal", "Dog"),
                         (("Mammal", "Dog"), ("Dog", "Animal")), ("Dog", "Mammal"),
                         twin=twin.id)
    assert any("not adjacent" in p for p in check_instance(skip))
    # the auxiliary edge must match the condition
    wrong_mixed = AuditInstance(MIXED_3, "inheritance", ("Animal", "Mammal", "Dog"),
                                (("Mammal", "Dog"), ("Animal", "Mammal")), ("Dog", "Mammal"),
                                twin=twin.id)
    assert any("does not follow the prior" in p for p in check_instance(wrong_mixed))
    wrong_reverse = AuditInstance(REVERSE_3, "inheritance", ("Animal", "Mammal", "Dog"),
                                  (("Mammal", "Dog"), ("Mammal", "Animal")), ("Dog", "Mammal"),
                                  twin=twin.id)
    assert any("follows the prior" in p for p in check_instance(wrong_reverse))
    good = AuditInstance(REVERSE_3, "inheritance", ("Animal", "Mammal", "Dog"),
                         (("Mammal", "Dog"), ("Animal", "Mammal")), ("Dog", "Mammal"),
                         twin=twin.id)
    assert check_instance(good, twin) == []
    # a conflict item nobody made from a twin
    orphan = AuditInstance(REVERSE_2, "inheritance", ("Mammal", "Dog"), (("Mammal", "Dog"),),
                           ("Dog", "Mammal"))
    assert "conflict item without a prior-conform twin" in check_instance(orphan)


def test_check_instance_compares_with_the_matched_twin() -> None:
    twin = _conform()
    flipped_layout = AuditInstance(REVERSE_2, "inheritance", ("Dog", "Mammal"),
                                   (("Mammal", "Dog"),), ("Dog", "Mammal"), twin=twin.id)
    assert "2-reverse layout differs from its twin's" in check_instance(flipped_layout, twin)
    other = _conform(("Cat", "Mammal"))
    made_from_other = AuditInstance(REVERSE_2, "inheritance", ("Mammal", "Dog"),
                                    (("Mammal", "Dog"),), ("Dog", "Mammal"), twin=other.id)
    problems = check_instance(made_from_other, other)
    assert "twin asks another question" in problems
    assert "the twin's arrow is not reversed here" in problems
    assert "twin is not this item's prior-conform counterpart" in check_instance(
        made_from_other, twin)

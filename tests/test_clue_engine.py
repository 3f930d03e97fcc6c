"""CLUE on hand-computed examples (exact embedder: σ = 1 equal, 0.5 different, paper weights).

Default weights: w_e .810 w_r .190 | w_n .787 w_a .104 w_m .109 | w_an .406 w_at .594 |
w_mn .730 w_mt .153 w_mp .117 | w_pn .950 w_pt .050 | w_rt .156 w_rn .624 w_rm .220.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from cluestudio.core.clue import (
    ClueScorer,
    ClueWeights,
    WeightsError,
    load_lut,
    multiplicity_match,
    optmatch,
)
from cluestudio.core.clue.relations import PACKAGE_MULTIPLICITY
from cluestudio.core.model import Multiplicity
from support.clue_support import AG, AS, CO, DE, GE, RE, cls, diagram, method, rel


def scores(ref, cand, **options):
    options.setdefault("cache", False)
    return ClueScorer("exact", **options).score(ref, cand)


A_EMPTY, B_EMPTY = cls("A"), cls("B")
# ES_ce(A, B) for two member-less classes: .787·0.5 + .104·1 + .109·1 (empty sets → 1)
ES_AB = 0.787 * 0.5 + 0.104 + 0.109


def test_attributes_matched_by_hungarian() -> None:
    ref = diagram([cls("Customer", [("name", "String"), ("age", "int")])])
    cand = diagram([cls("Customer", [("name", "String"), ("years", "int")])])
    # ES_ca rows (name, age) × cols (name, years):
    #   name/name  .406·1  + .594·1  = 1        name/years .406·.5 + .594·.5 = .5
    #   age/name   .406·.5 + .594·.5 = .5       age/years  .406·.5 + .594·1  = .797
    # OptMatch = (1 + .797) / 2 = .8985; methods: none in reference → 1.
    es_ce = 0.787 * 1 + 0.104 * 0.8985 + 0.109 * 1  # = .989444
    result = scores(ref, cand).scores
    assert result.clue_attribute == pytest.approx(0.8985)
    assert result.clue_method == pytest.approx(1.0)
    assert result.clue_class == pytest.approx(es_ce)
    assert result.clue_relation == pytest.approx(1.0)  # no reference relations
    assert result.clue == pytest.approx(0.810 * es_ce + 0.190 * 1.0)  # = .99144964


def test_oodeval_code_profile_uses_raw_cosine() -> None:
    ref = diagram([cls("Customer", [("name", "String"), ("age", "int")])])
    cand = diagram([cls("Customer", [("name", "String"), ("years", "int")])])
    # different strings now give σ = cos = 0: age/years = w_at, name/years = 0 → (1+w_at)/2
    result = scores(ref, cand, profile="oodeval-code").scores
    assert result.clue_attribute == pytest.approx(0.797, abs=1e-3)
    # ... with the package's own full-precision weights unless others are given
    assert result.clue_attribute == pytest.approx((1 + 0.5942232195411594) / 2, abs=1e-12)
    rounded = scores(ref, cand, profile="oodeval-code", weights=ClueWeights.default()).scores
    assert rounded.clue_attribute == pytest.approx(0.797, abs=1e-12)


def test_oodeval_code_profile_keeps_the_packages_rules() -> None:
    # Empty strings are compared like any other string (one-hot: "" == "" → 1, else 0):
    # attribute types "" vs "int" → 0 under both profiles, "" vs "" → 1.
    ref = diagram([cls("A", [("x", "")])], [rel(AS, "A", "Ghost", "1", "0..*")])
    cand = diagram([cls("A", [("x", "")]), cls("B")], [rel(AS, "A", "Nobody", "1", "*")])
    w = ClueWeights.shipped("oodeval-code")
    result = scores(ref, cand, profile="oodeval-code").scores
    assert result.clue_attribute == pytest.approx(1.0)
    # "0..*" vs "*": both contain "*" → match; the unknown ends Ghost and Nobody both fall
    # back to class 0 (A), so ES_ce(A, A) = 1 stands in for them.
    assert result.clue_relation == pytest.approx(w.w_rt + w.w_rn + w.w_rm)
    # case-sensitive: "Many" is no "many" marker for the package ...
    ref = diagram([A_EMPTY, B_EMPTY], [rel(AS, "A", "B", "1", "Many")])
    cand = diagram([A_EMPTY, B_EMPTY], [rel(AS, "A", "B", "1", "*")])
    assert scores(ref, cand, profile="oodeval-code").scores.clue_relation == pytest.approx(
        w.w_rt + w.w_rn + w.w_rm / 2)
    # ... but is under the default profile
    assert scores(ref, cand).scores.clue_relation == pytest.approx(0.156 + 0.624 + 0.220)
    # a reference without classes: the package leaves clue-attribute/-method at 0
    nothing = scores(diagram([]), cand, profile="oodeval-code").scores
    assert (nothing.clue_class, nothing.clue_attribute, nothing.clue_method) == (1.0, 0.0, 0.0)
    assert scores(diagram([]), cand).scores.clue_attribute == 1.0


def test_method_with_parameters() -> None:
    ref = diagram([cls("A", methods=[method("pay", "void", [("amount", "int")])])])
    cand = diagram([cls("A", methods=[method("pay", "bool", [("sum", "int"),
                                                             ("currency", "String")])])])
    # ES_mp: amount/sum .95·.5 + .05·1 = .525, amount/currency .5 → OptMatch (n=1) = .525
    # ES_cm: .73·1 + .153·σ(void, bool)=.5 + .117·.525 = .867925
    es_cm = 0.73 + 0.153 * 0.5 + 0.117 * 0.525
    result = scores(ref, cand).scores
    assert result.clue_method == pytest.approx(es_cm)
    assert result.clue_class == pytest.approx(0.787 + 0.104 + 0.109 * es_cm)  # .985604


def test_empty_strings_rules() -> None:
    # attribute types: "" vs "" → 1, "" vs "int" → 0
    ref = diagram([cls("A", [("x", "")]), cls("B", [("y", "")])])
    cand = diagram([cls("A", [("x", "")]), cls("B", [("y", "int")])])
    # A: 1; B: .406·1 + .594·0 = .406 → clue-attribute = (1 + .406) / 2
    assert scores(ref, cand).scores.clue_attribute == pytest.approx(0.703)


@pytest.mark.parametrize(("t1", "l1", "t2", "l2", "lut", "rm"), [
    (AS, ("1", "*"), AS, ("1", "*"), 1.00, 1.0),
    (AS, ("1", "*"), CO, ("1", "many"), 0.85, 1.0),   # both "many" markers
    (AS, ("1", "0..*"), AS, ("1", "*"), 1.00, 1.0),   # "*" found anywhere (DESIGN §3)
    (AS, ("1..*", "1"), AS, ("many", "0..1"), 1.00, 0.5),  # 1 vs 0..1: no "many" marker
    (AG, ("1", "Many"), AG, ("1", "multi"), 1.00, 1.0),  # case-insensitive
    (AS, (" 1 ", ""), AS, ("1", ""), 1.00, 1.0),      # trimmed; empty == empty
    (AS, ("1", "*"), GE, ("", ""), 0.17, 0.0),        # T1 vs T2 → 0
    (DE, ("1", "*"), GE, ("", ""), 0.46, 1.0),        # both in T2 → 1
    (GE, ("", ""), RE, ("", ""), 0.72, 1.0),
])
def test_relation_type_and_multiplicity(t1, l1, t2, l2, lut, rm) -> None:
    ref = diagram([A_EMPTY, B_EMPTY], [rel(t1, "A", "B", *l1)])
    cand = diagram([A_EMPTY, B_EMPTY], [rel(t2, "A", "B", *l2)])
    # ES_ce(A,A) = ES_ce(B,B) = 1 → ES_cr = .156·LUT + .624·(1+1)/2 + .220·sim_rm
    expected = 0.156 * lut + 0.624 + 0.220 * rm
    result = scores(ref, cand).scores
    assert result.clue_relation == pytest.approx(expected)
    assert result.clue == pytest.approx(0.810 * 1 + 0.190 * expected)


def test_relation_ends_use_class_similarity() -> None:
    ref = diagram([cls("A", [("x", "int")]), B_EMPTY], [rel(AS, "A", "B")])
    cand = diagram([cls("A", [("y", "int")]), B_EMPTY], [rel(AS, "A", "B")])
    # ES_ce(A,A) = .787 + .104·(.406·.5 + .594·1) + .109 = .978888; ES_ce(B,B) = 1
    es_a = 0.787 + 0.104 * 0.797 + 0.109
    assert scores(ref, cand).scores.clue_relation == pytest.approx(
        0.156 + 0.624 * (es_a + 1) / 2 + 0.220)  # = .993413


def test_reversed_relation_is_matched_by_ends() -> None:
    ref = diagram([A_EMPTY, B_EMPTY], [rel(GE, "A", "B")])
    cand = diagram([A_EMPTY, B_EMPTY], [rel(GE, "B", "A")])
    # begin A vs B and end B vs A: .624·(ES_AB + ES_AB)/2
    assert scores(ref, cand).scores.clue_relation == pytest.approx(
        0.156 + 0.624 * ES_AB + 0.220)


def test_extra_candidate_class_is_ignored_under_reference() -> None:
    ref = diagram([cls("A", [("x", "int")])])
    cand = diagram([cls("A", [("x", "int")]), cls("Z", [("q", "float")])])
    assert scores(ref, cand).scores.clue_class == pytest.approx(1.0)
    assert scores(ref, cand, normalization="paper-eq3").scores.clue_class == pytest.approx(1.0)


def test_missing_candidate_class_is_penalised() -> None:
    ref = diagram([A_EMPTY, B_EMPTY])
    cand = diagram([A_EMPTY])
    # best: A↔A (1), B unmatched → reference: 1/2; paper-eq3 (n > m): 1/1
    result = scores(ref, cand)
    assert result.scores.clue_class == pytest.approx(0.5)
    assert result.scores.clue_attribute == pytest.approx(0.5)  # B adds 0, over n = 2
    assert scores(ref, cand, normalization="paper-eq3").scores.clue_class == pytest.approx(1.0)
    explanation = result.explanation.to_dict()
    assert [e["text"] for e in explanation["classes"]["unmatched_reference"]] == ["B"]


def test_missing_attribute_under_both_normalizations() -> None:
    ref = diagram([cls("A", [("x", "int"), ("y", "int")])])
    cand = diagram([cls("A", [("x", "int")])])
    # attribute OptMatch: reference (1)/2 = .5; paper-eq3 (1)/1 = 1
    assert scores(ref, cand).scores.clue_attribute == pytest.approx(0.5)
    assert scores(ref, cand, normalization="paper-eq3").scores.clue_attribute == \
        pytest.approx(1.0)


def test_empty_diagrams() -> None:
    empty = diagram([])
    one = diagram([A_EMPTY], [rel(AS, "A", "A")])
    assert scores(empty, empty).scores.as_dict() == dict.fromkeys(
        ("clue", "clue-class", "clue-attribute", "clue-method", "clue-relation"), 1.0)
    assert scores(empty, one).scores.clue == pytest.approx(1.0)  # nothing required
    nothing = scores(one, empty).scores
    assert (nothing.clue_class, nothing.clue_attribute, nothing.clue_method,
            nothing.clue_relation, nothing.clue) == (0.0, 0.0, 0.0, 0.0, 0.0)
    # a reference without relations: clue-relation 1 even for an empty candidate
    no_rel = scores(diagram([A_EMPTY]), empty).scores
    assert no_rel.clue == pytest.approx(0.810 * 0 + 0.190 * 1)


def test_explanation_is_json_and_complete() -> None:
    ref = diagram([cls("A", [("x", "int"), ("y", "int")], [method("f")]), B_EMPTY],
                  [rel(AS, "A", "B", "1", "*"), rel(DE, "B", "A")])
    cand = diagram([cls("A", [("x", "int")], [method("f")]), cls("C")],
                   [rel(AS, "A", "C", "1", "*")])
    result = scores(ref, cand)
    data = json.loads(json.dumps(result.to_dict()))
    classes = data["explanation"]["classes"]
    pair = next(m for m in classes["matches"] if m["reference"]["text"] == "A")
    assert pair["candidate"]["text"] == "A"
    assert pair["attributes"]["matches"][0]["reference"]["text"] == "x: int"
    assert [e["text"] for e in pair["attributes"]["unmatched_reference"]] == ["y: int"]
    assert pair["methods"]["matches"][0]["similarity"] == pytest.approx(1.0)
    relations = data["explanation"]["relations"]
    assert len(relations["matches"]) == 1 and len(relations["unmatched_reference"]) == 1
    assert relations["matches"][0]["reference"]["text"] == 'A "1" -- "*" B'
    assert data["settings"]["embedder"] == "exact"


def test_optmatch_and_helpers() -> None:
    es = np.array([[0.9, 0.1], [0.8, 0.7], [0.1, 0.2]])
    # best: rows 0-col 0 (.9), row 1-col 1 (.7) = 1.6 → /n=3 ; paper-eq3 /m=2
    assert optmatch(es) == pytest.approx(1.6 / 3)
    assert optmatch(es, "paper-eq3") == pytest.approx(0.8)
    assert optmatch(np.zeros((0, 3))) == 1.0 and optmatch(np.zeros((2, 0))) == 0.0
    assert multiplicity_match("0..*", "*") == 1.0  # a search anywhere, not a whole match
    assert multiplicity_match("MUCH", "*") == 1.0
    assert multiplicity_match("1..*", "many") == 1.0
    assert multiplicity_match("1", "0..1") == 0.0
    assert multiplicity_match(" 1", "1") == 1.0  # trimmed
    assert multiplicity_match("Many", "*", PACKAGE_MULTIPLICITY) == 0.0  # case-sensitive
    assert multiplicity_match(" 1", "1", PACKAGE_MULTIPLICITY) == 0.0  # untrimmed
    lut = load_lut()
    assert np.allclose(lut, lut.T) and lut[0, 2] == 0.85 and lut[4, 5] == 0.72


def test_weights_profile_and_validation(tmp_path) -> None:
    default = ClueWeights.default()
    assert default.name == "oodeval-paper" and default.version == 1
    assert default.w_e == 0.810 and default.w_rm == 0.220
    data = default.to_toml_dict()
    data["relation"]["w_rm"] = 0.3
    with pytest.raises(WeightsError, match=r"group \[relation\].*sum to 1.08"):
        ClueWeights.from_mapping(data)
    data["relation"]["w_rm"] = 0.220
    data["class"]["w_n"] = -0.1
    with pytest.raises(WeightsError, match=r"w_n of group \[class\].*non-negative"):
        ClueWeights.from_mapping(data)
    del data["param"]
    with pytest.raises(WeightsError, match=r"group \[param\] is missing"):
        ClueWeights.from_mapping(data)
    path = tmp_path / "w.toml"
    path.write_text('name = "mine"\nversion = 2\n[clue]\nw_e = 0.5\nw_r = 0.5\n'
                    '[class]\nw_n = 1\nw_a = 0\nw_m = 0\n[attribute]\nw_an = 1\nw_at = 0\n'
                    '[method]\nw_mn = 1\nw_mt = 0\nw_mp = 0\n[param]\nw_pn = 1\nw_pt = 0\n'
                    '[relation]\nw_rt = 1\nw_rn = 0\nw_rm = 0\n')
    weights = ClueWeights.load(path)
    assert (weights.name, weights.version) == ("mine", 2)
    # only names and relation types count now
    ref = diagram([cls("A", [("x", "int")])], [rel(AS, "A", "A")])
    cand = diagram([cls("A", [("q", "float")])], [rel(CO, "A", "A")])
    result = scores(ref, cand, weights=weights).scores
    assert result.clue_class == pytest.approx(1.0)
    assert result.clue_relation == pytest.approx(0.85)
    assert result.clue == pytest.approx(0.5 * 1 + 0.5 * 0.85)


def test_reweighting_cached_leaves_matches_fresh_scoring() -> None:
    from cluestudio.core.jobs import run_job

    ref = diagram([cls("A", [("x", "int")], [method("f", "int", [("p", "int")])]), B_EMPTY],
                  [rel(AS, "A", "B", "1", "*")])
    cand = diagram([cls("A", [("y", "int")], [method("g", "int", [("p", "")])])],
                   [rel(CO, "A", "A", "1", "many")])
    scorer = ClueScorer("exact", cache=False)
    batch = run_job(scorer.build_leaves([(ref, cand)]))
    data = ClueWeights.default().to_toml_dict()
    data["clue"] = {"w_e": 0.3, "w_r": 0.7}
    data["class"] = {"w_n": 0.2, "w_a": 0.4, "w_m": 0.4}
    other = ClueWeights.from_mapping(data)
    reweighted = scorer.evaluate(batch, other)[0].scores
    fresh = scores(ref, cand, weights=other).scores
    assert reweighted == fresh
    assert batch.score_array(other).shape == (1, 5)
    assert batch.pairs[0].class_name.shape == (2, 1)  # leaves stay accessible


def test_bad_options_are_clear_errors() -> None:
    from cluestudio.core.errors import ClueStudioError

    with pytest.raises(ClueStudioError, match="normalization"):
        ClueScorer("exact", normalization="by-m")
    with pytest.raises(ClueStudioError, match="profile"):
        ClueScorer("exact", profile="nope")
    assert Multiplicity("1", "*").to == "*"

"""R2ABench metrics (seed 001) on hand-made architecture diagrams with hand-computed values."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "r2a"
try:
    import cluestudio_r2a  # noqa: F401  (installed once the entry points are registered)
except ImportError:
    sys.path.insert(0, str(ROOT / "plugins"))

from cluestudio.core.metrics import MetricInput  # noqa: E402
from cluestudio_r2a import structure as s  # noqa: E402
from cluestudio_r2a.graph import architecture_graph, parse_architecture  # noqa: E402
from cluestudio_r2a.metric import R2AStructureMetric  # noqa: E402


def graph(body: str):
    return architecture_graph(f"@startuml\n{body}\n@enduml\n")


def edges(g) -> set[tuple[str, str]]:
    return set(g.edges)


# --- parser ---------------------------------------------------------------------------------


def test_parser_reads_element_forms_layers_and_arrows() -> None:
    g = graph("""
        package "Application Layer" {
          folder Services {
            [Order Service] as OS <<service>>
            component "Billing" as Bill #pink
          }
          () "REST API" as API
        }
        node Server {
          database DB
        }
        interface IAuth
        actor :Admin: as adm
        cloud Internet
        OS -down-> DB : writes
        DB <.. Bill
        API - OS
        IAuth )-- OS
        adm -[#red,dashed]-> API
        Bill --> [Ledger]
        Server --> Internet
        OS -[hidden]- Bill
        Bill --> [Ledger]
    """)
    assert g.graph["warnings"] == []
    assert g.nodes["OS"]["label"] == "Order Service"
    assert g.nodes["OS"]["layer"] == ("Application Layer", "Services")
    assert g.nodes["Bill"]["layer"] == ("Application Layer", "Services")
    assert g.nodes["API"]["layer"] == ("Application Layer",)
    assert g.nodes["API"]["kind"] == "interface"
    assert g.nodes["DB"]["layer"] == ("Server",)
    assert g.nodes["adm"]["label"] == "Admin"
    # An implicit element belongs to the container the arrow is written in (top level here).
    assert g.nodes["Ledger"]["layer"] == ()
    # A container becomes a node only because an arrow touches it.
    assert g.nodes["Server"]["leaf"] is False
    assert "Services" not in g.nodes
    assert edges(g) == {("OS", "DB"), ("Bill", "DB"), ("API", "OS"), ("IAuth", "OS"),
                        ("adm", "API"), ("Bill", "Ledger"), ("Server", "Internet")}
    assert g.edges["OS", "DB"]["label"] == "writes"
    assert g.edges["API", "OS"]["directed"] is False
    assert g.edges["Bill", "DB"]["directed"] is True


def test_parser_keeps_unknown_lines_as_warnings_and_skips_notes() -> None:
    parsed = parse_architecture("""@startuml
skinparam component {
  BackgroundColor pink
}
/' block
comment '/
note left of A
  multi-line note
end note
note "floating" as N1
legend right
  a legend
endlegend
[A] --> [B]
this is not plantuml at all
package P {
@enduml""")
    assert set(parsed.nodes) == {"A", "B"}
    assert parsed.warnings == ["line 15: not understood: 'this is not plantuml at all'",
                               "container 'P' is never closed"]


# --- F1, layers, GED, anti-patterns -----------------------------------------------------------

TINY_REF = "[A] --> [B]\n[B] --> [C]\n[C] --> [D]"
TINY_PRED = "[A] --> [B]\n[B] --> [D]\n[E]"


def test_node_and_edge_f1_by_hand() -> None:
    ref, pred = graph(TINY_REF), graph(TINY_PRED)
    alignment = s.align_nodes(pred, ref)
    assert {(p, t) for p, t, _, _ in alignment.pairs} == {("A", "A"), ("B", "B"), ("D", "D")}
    # Nodes: TP = 3 of 4 predicted, 4 reference → P = R = F1 = 0.75.
    assert s.node_scores(pred, ref, alignment)[:3] == pytest.approx((0.75, 0.75, 0.75))
    # Edges: only A→B; P = 1/2, R = 1/3, F1 = 2·(1/6)/(5/6) = 0.4.
    assert s.edge_scores(pred, ref, alignment)[:3] == pytest.approx((0.5, 1 / 3, 0.4))


def test_ged_exact_beats_the_alignment_path() -> None:
    ref, pred = graph(TINY_REF), graph(TINY_PRED)
    result = s.graph_edit_distance(pred, ref, s.align_nodes(pred, ref))
    # Best path: rename D→C and E→D (2), so B→D becomes B→C; insert C→D (1): GED = 3.
    # Keeping the aligned names costs 5 (delete E, insert C, delete B→D, insert B→C, C→D).
    assert result.method == "exact"
    assert result.details["alignment_bound"] == 5
    assert result.distance == 3
    # max(|Vp|+|Ep|, |Vt|+|Et|) = max(4+2, 4+3) = 7 → 100·(1 − 3/7).
    assert result.accuracy == pytest.approx(100 * 4 / 7)


def test_ged_of_identical_and_of_empty_graphs() -> None:
    g = graph(TINY_REF)
    assert s.graph_edit_distance(g, g, s.align_nodes(g, g)).accuracy == 100.0
    empty = graph("")
    result = s.graph_edit_distance(empty, g, s.align_nodes(empty, g))
    assert (result.distance, result.accuracy) == (7, 0.0)
    assert s.graph_edit_distance(empty, empty, s.align_nodes(empty, empty)).accuracy == 100.0


def test_ged_on_a_big_graph_is_approximate_and_says_so() -> None:
    ref = graph("\n".join(f"[N{i}] --> [N{(i * 7 + 3) % 40}]" for i in range(40)))
    pred = graph("\n".join(f"[N{i}] --> [N{(i * 5 + 1) % 40}]" for i in range(40)))
    result = s.graph_edit_distance(pred, ref, s.align_nodes(pred, ref), timeout=0.5,
                                   exact_max_size=30)
    assert result.method.startswith("approximate")
    assert result.distance <= result.details["alignment_bound"]
    assert 0.0 <= result.accuracy <= 100.0
    assert result.seconds < 5


def test_anti_pattern_ratios_by_hand() -> None:
    g = graph("[Hub] --> [A]\n[Hub] --> [B]\n[Hub] --> [C]\n[D] --> [Hub]\n[E] --> [Hub]\n"
              "[Hub] --> [F]\n[Lonely]")
    # Degrees: Hub 6, A..F 1, Lonely 0 → μ = 12/8 = 1.5, σ = √(42/8 − 2.25) = √3,
    # τ = 1.5 + 2√3 ≈ 4.96: only Hub is a god component.
    god, gods, tau = s.god_ratio(g)
    assert (god, gods) == (1 / 8, ["Hub"])
    assert tau == pytest.approx(1.5 + 2 * 3 ** 0.5)
    assert s.orphan_ratio(g) == (1 / 8, ["Lonely"])
    assert s.god_ratio(graph("")) == (0.0, [], 0.0)
    assert s.orphan_ratio(graph("")) == (0.0, [])


def test_undirected_arrows_match_either_way_and_directed_ones_do_not() -> None:
    ref = graph("[A] -- [B]\n[C] --> [D]")
    pred = graph("[B] --> [A]\n[D] --> [C]")
    _, _, _, matched = s.edge_scores(pred, ref, s.align_nodes(pred, ref))
    assert matched == [(("B", "A"), ("A", "B"))]


def test_string_alignment_is_normalized_and_fuzzy_and_judge_widens_it() -> None:
    ref = graph('database "MySQL" as db\n[UserService] --> db')
    pred = graph("[user-service] --> [Database]")
    assert s.normalize_name("UserService") == s.normalize_name("user-service") == "user service"
    alignment = s.align_nodes(pred, ref)
    assert [(p, t) for p, t, _, _ in alignment.pairs] == [("user-service", "UserService")]
    asked: list[tuple[list[str], list[str]]] = []

    def judge(left: list[str], right: list[str]) -> list[tuple[str, str]]:
        asked.append((list(left), list(right)))
        return [("Database", "MySQL"), ("Ghost", "MySQL")]  # an unknown name is ignored

    widened = s.align_nodes(pred, ref, judge=judge)
    assert asked == [(["Database"], ["MySQL"])]
    assert widened.pairs[-1] == ("Database", "db", 1.0, "judge")
    assert s.edge_scores(pred, ref, widened)[2] == 1.0


def test_layer_accuracy_parent_and_top() -> None:
    ref = graph('package App {\n package Users {\n [Login]\n }\n [Course]\n}\n'
                'package Infra {\n [DB]\n}\n[Client]')
    pred = graph('rectangle "app" {\n [Login]\n [Course]\n [DB]\n}\n[Client]')
    tp = s.node_scores(pred, ref, s.align_nodes(pred, ref))[3]
    # parent: Login (Users vs app) wrong, Course (App vs app) right, DB (Infra vs app)
    # wrong, Client (none vs none) right → 2/4.
    assert s.layer_accuracy(pred, ref, tp)[0] == 0.5
    # top: Login right (App), Course right, DB wrong, Client right → 3/4.
    assert s.layer_accuracy(pred, ref, tp, level="top")[0] == 0.75
    assert s.layer_accuracy(pred, ref, [])[0] == 0.0


def test_structure_metric_on_the_fixture_pair() -> None:
    reference = MetricInput((FIXTURES / "reference.puml").read_text(), source="reference.puml")
    candidate = MetricInput((FIXTURES / "candidate.puml").read_text(), source="candidate.puml")
    result = R2AStructureMetric().score(reference, candidate)
    v = result.values
    # Leaves: 6 predicted, 7 reference, 4 aligned (Student, Login, Course, REST API).
    assert v["node-precision"] == pytest.approx(4 / 6)
    assert v["node-recall"] == pytest.approx(4 / 7)
    assert v["node-f1"] == pytest.approx(16 / 26)
    # Edges: 4 predicted, 7 reference, 3 aligned (the hidden link is not an edge).
    assert (v["edge-precision"], v["edge-recall"]) == pytest.approx((3 / 4, 3 / 7))
    # Login sits in "User Module" in the reference, "Application Layer" in the candidate.
    assert v["layer-accuracy"] == 0.75
    # GED 6: rename Database→MySQL and Payment→Profile, insert Notification, insert 3 edges.
    assert v["ged"] == 6 and v["ged-accuracy"] == pytest.approx(100 * (1 - 6 / 14))
    assert v["orphan-ratio"] == pytest.approx(1 / 6)  # Payment Service
    assert v["god-ratio"] == 0.0
    assert result.explanation["ged"]["method"] == "exact"
    assert result.explanation["orphans"] == ["Payment Service"]
    assert set(result.values) == set(R2AStructureMetric.manifest.values)


def test_structure_metric_on_degenerate_inputs() -> None:
    empty = MetricInput("")
    result = R2AStructureMetric().score(empty, empty)
    assert result.values["node-f1"] == 1.0 and result.values["ged-accuracy"] == 100.0
    result = R2AStructureMetric().score(MetricInput("[A] --> [B]"), empty)
    assert result.values["node-f1"] == 0.0 and result.values["ged-accuracy"] == 0.0
    with pytest.raises(ValueError, match="layer_level"):
        R2AStructureMetric(layer_level="middle")


@pytest.mark.java
@pytest.mark.xdist_group("java")
def test_syntactic_validity_with_the_real_plantuml() -> None:
    from cluestudio.core.plantuml.renderer import get_renderer
    from cluestudio_r2a.metric import R2AValidityMetric

    metric = R2AValidityMetric()
    reference = MetricInput("")
    good = metric.score(reference, MetricInput((FIXTURES / "reference.puml").read_text()))
    assert good.values == {"syntactic-validity": 1.0}
    assert good.explanation["error_line"] is None
    jvm = get_renderer().pid
    bad = metric.score(reference, MetricInput("@startuml\n[A] --> [B]\npackage {{{\n@enduml\n"))
    assert bad.values == {"syntactic-validity": 0.0}
    assert bad.explanation["error_line"] == 3 and bad.explanation["message"]
    for _ in range(3):  # every pair on the same warm JVM, none started per call
        metric.score(reference, MetricInput("@startuml\n[A] --> [B]\n@enduml\n"))
    assert get_renderer().pid == jvm is not None

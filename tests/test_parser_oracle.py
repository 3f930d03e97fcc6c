"""Cross-check the parser against PlantUML 1.2026.2 itself (``-syntax``), in as few JVMs as we can.

Every corpus file and generated diagram must be a CLASS diagram whose entity count equals our
classes + notes; every file in ``corpus_invalid`` must be an ERROR that our parser raises or
warns about on the same line; sequence diagrams must be SEQUENCE for PlantUML and an error for us.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from cluestudio.core.errors import PlantUMLSyntaxError
from cluestudio.core.model import ClassDiagram
from cluestudio.core.plantuml import parse_file, parse_plantuml, write_plantuml
from cluestudio.core.plantuml.syntax import check_syntax
from cluestudio.core.plantuml.syntax_report import SyntaxReport
from strategies import class_diagrams
from support.plantuml_differential import check_syntax_many, java_available

pytestmark = [pytest.mark.java, pytest.mark.xdist_group("java")]

HERE = Path(__file__).parent
CORPUS = sorted((HERE / "corpus").glob("*.puml"))
INVALID = sorted((HERE / "corpus_invalid").glob("*.puml"))
SEQUENCE_DIAGRAMS = [
    "@startuml\nAlice -> Bob: hi\n@enduml\n",
    "@startuml\nparticipant Web\nWeb -> Api : GET /orders\nApi --> Web : 200\n@enduml\n",
    "@startuml\nA --> B\nB -> C : call\n@enduml\n",
]


if not java_available():  # pragma: no cover - the JRE and jar are dependencies
    pytest.skip("no Java runtime or PlantUML jar", allow_module_level=True)


def _generated(count: int = 15) -> list[ClassDiagram]:
    """``count`` diagrams from the strategy, the same ones on every run (derandomized)."""
    found: list[ClassDiagram] = []

    @settings(max_examples=count * 3, database=None, deadline=None, derandomize=True,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(class_diagrams())
    def collect(diagram: ClassDiagram) -> None:
        if diagram.classes and diagram not in found:
            found.append(diagram)

    collect()
    return found[:count]


GENERATED = _generated()


@pytest.fixture(scope="module")
def reports() -> dict[str, SyntaxReport]:
    """PlantUML's verdict on every text of this module, from one JVM."""
    texts = {f"corpus/{p.name}": p.read_text(encoding="utf-8") for p in CORPUS}
    texts |= {f"invalid/{p.name}": p.read_text(encoding="utf-8") for p in INVALID}
    texts |= {f"generated/{i}": write_plantuml(d) for i, d in enumerate(GENERATED)}
    texts |= {f"sequence/{i}": t for i, t in enumerate(SEQUENCE_DIAGRAMS)}
    return dict(zip(texts, check_syntax_many(list(texts.values()), timeout_s=240), strict=True))


def _entities(diagram: ClassDiagram) -> int:
    return len(diagram.classes) + len(diagram.notes)


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
def test_corpus_entity_count_matches_plantuml(path: Path, reports: dict[str, SyntaxReport]) -> None:
    report = reports[f"corpus/{path.name}"]
    assert report.diagram_type == "CLASS", report
    assert report.entities == _entities(parse_file(path).diagram)


def test_generated_diagrams_match_plantuml(reports: dict[str, SyntaxReport]) -> None:
    assert len(GENERATED) == 15
    for index, diagram in enumerate(GENERATED):
        report = reports[f"generated/{index}"]
        assert report.diagram_type == "CLASS", (report, write_plantuml(diagram))
        assert report.entities == _entities(diagram), write_plantuml(diagram)


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.stem)
def test_invalid_files_fail_on_the_same_line(path: Path,
                                             reports: dict[str, SyntaxReport]) -> None:
    report = reports[f"invalid/{path.name}"]
    assert report.diagram_type == "ERROR" and report.error_line is not None, report
    try:
        result = parse_file(path)
    except PlantUMLSyntaxError as error:
        assert error.line == report.error_line, (error, report)
    else:
        assert report.error_line in [w.line for w in result.warnings], (result.warnings, report)


@pytest.mark.parametrize("index", range(len(SEQUENCE_DIAGRAMS)))
def test_sequence_diagrams_are_rejected(index: int, reports: dict[str, SyntaxReport]) -> None:
    assert reports[f"sequence/{index}"].diagram_type == "SEQUENCE"
    with pytest.raises(PlantUMLSyntaxError, match="not a class diagram"):
        parse_plantuml(SEQUENCE_DIAGRAMS[index])


def test_check_syntax_reports_1_based_lines() -> None:
    # Without @startuml PlantUML counts from an implicit one; with text before @startuml its
    # index is relative to that line. Both must come back as the line an editor shows.
    report = check_syntax("' intro\n\n@startuml\nclass A\nthis is wrong\n@enduml\n")
    assert (report.diagram_type, report.error_line) == ("ERROR", 5)
    assert report.message
    valid = check_syntax("class A\nA --> B\nnote \"n\" as N1\npackage p {\nclass C\n}\n")
    assert (valid.diagram_type, valid.entities, valid.error_line) == ("CLASS", 4, None)
    assert valid.ok and not report.ok

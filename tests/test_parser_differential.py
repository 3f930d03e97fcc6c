"""The parser against PlantUML 1.2026.2 itself on every corpus file (the differential test).

The oracle is the jar the app renders with; ``CLUESTUDIO_PARSER_ORACLE=1.2022.6`` runs the
test against the older jar (where it reads the 1.2026 arrow forms as errors).

For each file (tests/corpus_differential/, tests/corpus/, tests/corpus_invalid/): PlantUML
accepts ⇔ we accept (its ERROR line is our error or warning line); our classes = its
entity count − notes − association points; and, where its XMI export covers the file, our
classes in order and our relations equal the XMI's (less the links 1.2026.2's XMI leaves
out: hidden ones and those to a hidden class). The rules are in
``tests/support/plantuml_differential.py``; ``benchmarks/parser_agreement.py`` prints the
same figures as a table. PlantUML runs on the warm renderer's one JVM (about 10 s for all).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support.plantuml_differential import (
    Verdict,
    agreement_table,
    compare,
    java_available,
    run_corpus,
    syntax_reports,
    xmi_lists_undrawn_links,
    xmi_models,
)

pytestmark = [pytest.mark.java, pytest.mark.xdist_group("java")]

HERE = Path(__file__).parent
DIFFERENTIAL = sorted((HERE / "corpus_differential").glob("*.puml"))
CORPUS = DIFFERENTIAL + sorted((HERE / "corpus").glob("*.puml")) \
    + sorted((HERE / "corpus_invalid").glob("*.puml"))


if not java_available():  # pragma: no cover - the JRE and jar are dependencies
    pytest.skip("no Java runtime or PlantUML jar", allow_module_level=True)


@pytest.fixture(scope="module")
def verdicts() -> dict[Path, Verdict]:
    return dict(zip(CORPUS, run_corpus(CORPUS), strict=True))


def test_the_corpus_is_big_and_varied() -> None:
    assert len(DIFFERENTIAL) >= 200
    texts = [p.read_bytes().decode("utf-8") for p in DIFFERENTIAL]
    assert sum("\r\n" in t for t in texts) >= 5
    assert sum(t.startswith("\ufeff") for t in texts) >= 3
    assert sum("_bad_" in p.name or "_bad" in p.stem for p in DIFFERENTIAL) >= 20


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_file_agrees_with_plantuml(path: Path, verdicts: dict[Path, Verdict]) -> None:
    verdict = verdicts[path]
    assert verdict.agrees, "\n".join(verdict.problems)


def test_the_oracles_cover_what_they_should(verdicts: dict[Path, Verdict]) -> None:
    values = list(verdicts.values())
    accepted = [v for v in values if v.plantuml == "accepted"]
    rejected = [v for v in values if v.plantuml != "accepted"]
    # Both sides of "accepts ⇔ accepts" are exercised, and the XMI checks most files.
    assert len(rejected) >= 40 and len(accepted) >= 250
    with_xmi = [v for v in accepted if v.relations != "n/a"]
    assert len(with_xmi) >= 0.8 * len(accepted)
    assert sum(v.relation_count for v in with_xmi) >= 1000
    table = agreement_table(values)
    assert "class count = entities − notes" in table


def test_the_xmi_of_plantuml_1_2026_lists_only_the_links_it_draws() -> None:
    """The comparison leaves out of our side exactly what the XMI omits: a hidden link and a
    link to a class `hide` hides; a link PlantUML draws still has to be there."""
    if xmi_lists_undrawn_links():
        pytest.skip("this oracle's XMI lists every link")
    text = ("@startuml\nclass A\nclass B\nclass C\nclass D\nA -[hidden]- B\nhide C\n"
            "A --> C\nA --> B\nD ..> A\n@enduml\n")
    report, = syntax_reports([text])
    xmi, = xmi_models([text])
    assert xmi is not None and sorted(xmi.relations) == [("AS", "A", "B"), ("AS", "D", "A")]
    assert compare("drawn", text, report, xmi, undrawn=False).agrees
    assert not compare("drawn", text, report, xmi, undrawn=True).agrees
    # One drawn link fewer on our side is still a disagreement.
    less = text.replace("D ..> A\n", "")
    assert not compare("less", less, report, xmi, undrawn=False).agrees

"""R2ABench validity asks PlantUML's syntax check instead of drawing (issue 21): it must give
the very 0/1 that rendering gives, on the bundled courses and on the parser, invalid and
hostile corpora, including the texts that pass the check and still fail to draw."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cluestudio.core.errors import RenderError
from cluestudio.core.metrics import MetricInput
from cluestudio.core.plantuml.renderer import PlantUMLRenderer
from cluestudio_r2a.metric import LARGE_DIAGRAM, R2AValidityMetric, needs_drawing
from test_renderer_hostile import BOMBS, HOSTILE

pytestmark = [pytest.mark.java, pytest.mark.xdist_group("java")]

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("annotations", "tests/corpus", "tests/corpus_invalid", "tests/fixtures")


def _texts() -> dict[str, str]:
    found = {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8", errors="replace")
             for folder in FOLDERS for p in sorted((ROOT / folder).rglob("*.puml"))}
    found.update({f"hostile {i}": text for i, text in enumerate(HOSTILE)})
    found.update({
        "nul in a name": "class A\x00B",
        "bell in an attribute": "class A {\n  +x\x07: int\n}",
        "empty": "",
        "sequence diagram": "@startuml\nAlice -> Bob: hi\n@enduml\n",
        "big": "\n".join(f"class C{i}" for i in range(LARGE_DIAGRAM + 20))
               + "\n" + "\n".join(f"C{i} --> C{(i * 7 + 3) % 120}" for i in range(120)),
    })
    return found


TEXTS = _texts()


@pytest.fixture(scope="module")
def renderer(monkeypatch_module: pytest.MonkeyPatch) -> Iterator[PlantUMLRenderer]:
    """One JVM for both verdicts, small enough that the memory bombs stop quickly."""
    from cluestudio.core.plantuml import renderer as module

    fresh = PlantUMLRenderer(max_memory_mb=256, timeout=60)
    monkeypatch_module.setattr(module, "get_renderer", lambda: fresh)
    yield fresh
    fresh.close()


@pytest.fixture(scope="module")
def monkeypatch_module() -> Iterator[pytest.MonkeyPatch]:
    patch = pytest.MonkeyPatch()
    yield patch
    patch.undo()


def _rendered(renderer: PlantUMLRenderer, text: str) -> float:
    try:
        renderer.render(text, "svg")
    except RenderError:
        return 0.0
    return 1.0


def test_syntax_verdict_equals_rendering_on_every_corpus(renderer: PlantUMLRenderer) -> None:
    texts = {**TEXTS, **{f"bomb: {name}": text for name, text in BOMBS.items()}}
    assert len(texts) > 150  # 66 + 3 sample, 58 valid, 19 invalid, 12 hostile, …
    metric = R2AValidityMetric()
    differ = {}
    for name, text in texts.items():
        verdict = metric.score(MetricInput(), MetricInput(text)).values["syntactic-validity"]
        if verdict != _rendered(renderer, text):
            differ[name] = verdict
    assert differ == {}
    # Both kinds of verdict occur, and drawing was needed only for the odd few.
    verdicts = [metric.score(MetricInput(), MetricInput(t)).values["syntactic-validity"]
                for t in texts.values()]
    assert 0.0 in verdicts and 1.0 in verdicts
    assert metric.rendered <= 6 and metric.checked == len(set(texts.values()))


def test_texts_that_pass_the_check_but_cannot_draw_are_drawn(renderer: PlantUMLRenderer
                                                               ) -> None:
    assert renderer.check_syntax("class A\x00B").ok  # PlantUML's check alone would say 1
    metric = R2AValidityMetric()
    result = metric.score(MetricInput(), MetricInput("class A\x00B"))
    assert result.values["syntactic-validity"] == 0.0 and metric.rendered == 1
    assert "drawing" in result.explanation["message"]
    assert needs_drawing("class A\x1fB", 1) and not needs_drawing("class A\tB", 1)
    assert needs_drawing("class A", LARGE_DIAGRAM + 1) and not needs_drawing("class A", None)


def test_an_error_names_its_line_as_rendering_does(renderer: PlantUMLRenderer) -> None:
    text = "@startuml\nclass A\nA -->> B foo(\n@enduml\n"
    result = R2AValidityMetric().score(MetricInput(), MetricInput(text))
    with pytest.raises(RenderError) as rendered:
        renderer.render(text, "svg")
    assert result.values == {"syntactic-validity": 0.0}
    assert result.explanation == {"message": rendered.value.message,
                                  "error_line": rendered.value.line} == {
        "message": rendered.value.message, "error_line": 3}


def test_the_same_text_is_judged_once(renderer: PlantUMLRenderer) -> None:
    metric = R2AValidityMetric(memo_size=2)
    for text in ("class A", "class B", "class A", "class C", "class A"):
        metric.score(MetricInput(), MetricInput(text))
    assert metric.checked == 3  # A, B, C; A was used recently enough to stay remembered

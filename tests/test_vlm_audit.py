"""The prior-bias audit end to end: generated diagrams → (fake or real) PlantUML render →
a local OpenAI-compatible server → cached answers → EM, RelAcc and Δ reports."""

from __future__ import annotations

import importlib.util
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image, PngImagePlugin

from cluestudio.cli import main
from cluestudio.core.jobs import Cancelled, CancelToken, run_job
from cluestudio.core.vlm.audit import AuditConfig, run_audit, scale_png
from cluestudio.core.vlm.cache import ResultCache
from cluestudio.core.vlm.openai_backend import OpenAICompatibleBackend
from cluestudio.core.vlm.report import summarize
from support.openai_stub import OpenAIStub, png_source, reader_handler


def fake_render(source: str) -> bytes:
    """A PNG that carries its PlantUML source in a text chunk, as PlantUML's own PNGs do."""
    image = Image.new("RGB", (120, 40 * source.count("\n")), "white")
    info = PngImagePlugin.PngInfo()
    info.add_text("plantuml", source)
    out = io.BytesIO()
    image.save(out, format="PNG", pnginfo=info)
    return out.getvalue()


@pytest.fixture
def stub() -> Iterator[OpenAIStub]:
    with OpenAIStub() as server:
        yield server


def _backend(stub: OpenAIStub) -> OpenAICompatibleBackend:
    return OpenAICompatibleBackend("stub-vlm", base_url=stub.url, timeout_s=5, backoff_s=0.01,
                                   concurrency=3)


SMALL = AuditConfig(relations=("inheritance", "aggregation"), scales=(1.0, 2.0), per_cell=2,
                    seed=3)


def _cells(records):
    return {(c.condition, c.relation, c.scale): c for c in summarize(records)}


def test_scaling_resizes_and_keeps_the_source() -> None:
    png = fake_render("@startuml\nclass A\n@enduml\n")
    bigger = scale_png(png, 1.5)
    with Image.open(io.BytesIO(bigger)) as image:
        assert image.size == (180, 180)
    assert png_source(bigger).startswith("@startuml")
    assert scale_png(png, 1.0) == png


def test_a_perfect_reader_has_no_conflict_gap(stub, tmp_path: Path) -> None:
    stub.handler = reader_handler()
    cache = ResultCache(tmp_path / "results.jsonl")
    run = run_job(run_audit(_backend(stub), SMALL, cache, fake_render))
    # (4 conditions × 2 + prior-free × 2 × 2 orientations) × 2 relations × 2 scales.
    assert len(run.records) == 48 and run.asked == 48 and not run.failures
    assert len(stub.requests) == 96  # two questions each
    cells = _cells(run.records)
    for condition in ("prior-conform", "2-reverse", "3-reverse", "3-mixed", "prior-free"):
        cell = cells[(condition, "all", "all")]
        assert cell.em == 1.0 and cell.rel_acc == 1.0
    assert cells[("2-reverse", "all", "all")].delta == 0.0
    record = run.records[0]
    assert record["model"] == "stub-vlm" and record["prompt_version"].startswith("probe_")
    assert record["prompt_tokens"] == 22 and record["image_sha256"]


def test_a_prior_following_model_shows_the_full_gap(stub, tmp_path: Path) -> None:
    stub.handler = reader_handler(follow_prior=True)
    run = run_job(run_audit(_backend(stub), SMALL, ResultCache(None), fake_render))
    cells = _cells(run.records)
    assert cells[("prior-conform", "all", "all")].rel_acc == 1.0
    for conflict in ("2-reverse", "3-reverse", "3-mixed"):
        assert cells[(conflict, "all", "all")].rel_acc == 0.0
        assert cells[(conflict, "all", "all")].delta == 1.0
    # Prior-free asks both orientations: answering True to everything gets half right.
    assert cells[("prior-free", "all", "all")].rel_acc == 0.5




def test_resume_after_cancel(stub, tmp_path: Path) -> None:
    stub.handler = reader_handler()
    path = tmp_path / "results.jsonl"
    cancel = CancelToken()
    job = run_audit(_backend(stub), SMALL, ResultCache(path), fake_render, cancel)
    with pytest.raises(Cancelled):
        for progress in job:
            if progress.done >= 10:
                cancel.cancel()
    kept = len(ResultCache(path))
    assert 10 <= kept < 48
    asked_before = len(stub.requests)
    run = run_job(run_audit(_backend(stub), SMALL, ResultCache(path), fake_render))
    assert run.asked == 48 - kept and len(run.records) == 48
    assert len(stub.requests) - asked_before == 2 * (48 - kept)
    # Same settings again: everything comes from the cache.
    again = run_job(run_audit(_backend(stub), SMALL, ResultCache(path), fake_render))
    assert again.asked == 0 and again.records == run.records


def test_failed_calls_are_reported_and_not_cached(stub, tmp_path: Path) -> None:
    from support.openai_stub import Reply

    stub.handler = lambda request: Reply(status=400)
    config = AuditConfig(conditions=("prior-conform",), relations=("inheritance",),
                         scales=(1.0,), per_cell=2)
    run = run_job(run_audit(_backend(stub), config, ResultCache(tmp_path / "r.jsonl"),
                            fake_render))
    assert len(run.failures) == 2 and run.records == ()
    assert "HTTP 400" in run.failures[0]


def test_cli_audit_writes_reports_and_resumes(stub, tmp_path: Path, monkeypatch, capsys) -> None:
    import cluestudio.core.vlm.conversion as conversion

    monkeypatch.setattr(conversion, "default_renderer", fake_render)
    stub.handler = reader_handler(follow_prior=True)
    args = ["audit", "--out", str(tmp_path), "--model", "stub-vlm", "--base-url", stub.url,
            "--relations", "inheritance", "--scales", "1", "1.5", "--per-cell", "1", "--json"]
    assert main(args) == 0
    summary = json.loads(capsys.readouterr().out)
    overall = {(c["condition"], c["relation"], c["scale"]): c for c in summary["cells"]}
    assert overall[("2-reverse", "all", "all")]["delta"] == 100.0
    assert summary["meta"]["asked"] == 12  # 6 diagrams (prior-free twice) × 2 scales
    for name in ("results.jsonl", "summary.csv", "summary.json", "relacc.svg"):
        assert (tmp_path / name).stat().st_size > 0
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["meta"]["asked"] == 0


def _renderer_available() -> bool:
    return importlib.util.find_spec("cluestudio.core.plantuml.renderer") is not None


@pytest.mark.java
@pytest.mark.xdist_group("java")
@pytest.mark.skipif(not _renderer_available(), reason="PlantUML renderer not there yet")
def test_audit_with_real_plantuml_rendering(stub, tmp_path: Path) -> None:
    from cluestudio.core.vlm.conversion import default_renderer

    stub.handler = reader_handler()
    config = AuditConfig(conditions=("prior-conform", "3-mixed"), relations=("composition",),
                         scales=(1.0, 1.5), per_cell=1, scale_mode="plantuml")
    run = run_job(run_audit(_backend(stub), config, ResultCache(None), default_renderer))
    assert not run.failures and len(run.records) == 4
    from support.openai_stub import images

    widths = set()
    for request in stub.requests:  # concurrent requests: any order
        for data in images(request):
            with Image.open(io.BytesIO(data)) as image:
                widths.add(image.size[0])
    # PlantUML's `scale 1.5` made larger images of the same diagrams.
    assert len(widths) >= 2 and max(widths) >= 1.4 * min(widths)


# -- the paper's generator: an endpoint proposes chains, we validate and repair ----------------
def _last_user(request: dict) -> str:
    texts = [m["content"] if isinstance(m["content"], str)
             else "\n".join(p.get("text", "") for p in m["content"])
             for m in request["messages"] if m["role"] == "user"]
    return texts[-1]


def chain_handler(bad_first: bool = True):
    """An LLM that first proposes some unusable chains, then fixes them when told why."""
    counter = {"n": 0}

    def handle(request: dict) -> str:
        prompt = _last_user(request)
        relation = next(r for r in ("inheritance", "aggregation", "composition", "dependency")
                        if f'"{r}"' in prompt or r in prompt)
        counter["n"] += 1
        n = counter["n"]
        if "were rejected" in prompt:  # the repair turn: valid replacements
            return json.dumps([[f"Fixed{n}A", f"Fixed{n}B", f"Fixed{n}C"]])
        if bad_first and n == 1:
            return ("Sure! " + json.dumps([
                ["Dog", "Mammal", "Animal"],
                ["Animal", "Mammal", "Cat"],      # reverses Mammal → Animal: ambiguous prior
                ["dog house", "Kennel", "Yard"],  # not an identifier
                ["Same", "Same", "Other"],        # repeated name
                ["Dog", "Mammal", "Animal"],      # repeat
            ]))
        if n == 3 and bad_first:
            return "I cannot do that."  # no JSON: asked again afresh
        return json.dumps([[f"{relation.title()}{n}{k}A", f"{relation.title()}{n}{k}B",
                            f"{relation.title()}{n}{k}C"] for k in range(3)])

    return handle


def test_generator_validates_and_repairs_proposed_chains(stub) -> None:
    from cluestudio.core.vlm.chains import propose_chains

    stub.handler = chain_handler()
    report = run_job(propose_chains(_backend(stub), "inheritance", 6))
    assert len(report.accepted) == 6 and report.new == 6
    assert report.accepted[0] == ("Dog", "Mammal", "Animal")
    reasons = " | ".join(r for _, r in report.rejected)
    assert "contradicts accepted chains" in reasons
    assert "not an UpperCamelCase identifier" in reasons
    assert "the three names must differ" in reasons and "repeats an accepted chain" in reasons
    # The second request was the repair turn: the model's reply, then the structured errors.
    repair = stub.requests[1]["messages"]
    assert [m["role"] for m in repair][-2:] == ["assistant", "user"]
    assert "were rejected" in repair[-1]["content"] and "Cat" in repair[-1]["content"]
    assert any(c[0].startswith("Fixed") for c in report.accepted)
    assert report.unparsable == 1


def test_generator_stops_when_the_model_never_complies(stub) -> None:
    from cluestudio.core.vlm.chains import propose_chains

    stub.handler = lambda request: "no chains today"
    report = run_job(propose_chains(_backend(stub), "dependency", 5, max_requests=4))
    assert report.accepted == () and report.requests == 4 and report.unparsable == 4


def test_vocabulary_file_round_trip_and_bad_files(tmp_path: Path) -> None:
    from cluestudio.core.vlm.chains import VocabularyError, load_vocabulary, save_vocabulary

    path = tmp_path / "chains.json"
    chains = {"inheritance": (("Puppy", "Dog", "Animal"),),
              "composition": (("Ship", "Deck", "Cabin"),)}
    save_vocabulary(path, chains, {"generator": "stub"})
    assert load_vocabulary(path) == chains
    path.write_text(json.dumps({"relations": {"inheritance": [["Dog", "Animal", "Dog"]]}}))
    with pytest.raises(VocabularyError, match=r"chains.json: inheritance chain 1 .*differ"):
        load_vocabulary(path)
    path.write_text(json.dumps({"relations": {"friendship": []}}))
    with pytest.raises(VocabularyError, match="unknown relation 'friendship'"):
        load_vocabulary(path)
    path.write_text("{not json")
    with pytest.raises(VocabularyError, match=r"chains\.json: not valid JSON"):
        load_vocabulary(path)


def test_cli_generates_a_vocabulary_then_audits_from_it(stub, tmp_path: Path, capsys) -> None:
    stub.handler = chain_handler(bad_first=False)
    vocab = tmp_path / "chains.json"
    base = ["--model", "gen", "--base-url", stub.url, "--relations", "inheritance",
            "composition"]
    assert main(["audit", *base, "--vocabulary", str(vocab), "--generate-vocabulary", "4",
                 "--out", str(tmp_path)]) == 0
    assert "written to" in capsys.readouterr().out
    data = json.loads(vocab.read_text())
    assert {r: len(c) for r, c in data["relations"].items()} == {"inheritance": 4,
                                                                  "composition": 4}
    # Re-running with a bigger N extends the file instead of starting over.
    before = len(stub.requests)
    assert main(["audit", *base, "--vocabulary", str(vocab), "--generate-vocabulary", "5",
                 "--out", str(tmp_path)]) == 0
    assert len(stub.requests) - before == 2  # one request per relation
    assert json.loads(vocab.read_text())["relations"]["inheritance"][:4] == \
        data["relations"]["inheritance"]
    capsys.readouterr()
    assert main(["audit", *base, "--vocabulary", str(vocab), "--dry-run", "--per-cell", "0",
                 "--out", str(tmp_path)]) == 0
    written = list((tmp_path / "diagrams").glob("*.puml"))
    assert any("Inheritance" in p.read_text() for p in written)
    assert not any("Mammal" in p.read_text() for p in written)  # not the shipped chains


# -- stage 2's answer budget and models that reason first ------------------------------------
def reasoning_handler():
    """Reads the diagram right but reasons before its verdict; cut off below 64 tokens."""
    from support.openai_stub import diagram_of, images, question_of, user_text

    def handle(request: dict) -> str:
        prompt = user_text(request)
        classes, edges = diagram_of(png_source(images(request)[0]))
        if "List all class names" in prompt:
            return json.dumps(classes)
        pair = question_of(prompt)
        reasoning = ("Looking at the arrowheads: no arrow is ambiguous here. The question "
                     "asks about the drawn direction. ")
        if request.get("max_tokens", 0) < 64:
            return reasoning[:40]  # truncated before any verdict
        return reasoning + ("So the statement is True." if pair in edges
                            else "So the statement is false.")

    return handle


def test_stage2_budget_is_configurable_and_the_last_verdict_counts(stub, tmp_path: Path) -> None:
    stub.handler = reasoning_handler()
    path = tmp_path / "results.jsonl"
    config = AuditConfig(relations=("inheritance",), scales=(1.0,), per_cell=2, seed=1)
    cut = run_job(run_audit(_backend(stub), config, ResultCache(path), fake_render))
    assert {r["parsed"] for r in cut.records} == {"Unknown"}
    assert all(r["stage2_max_tokens"] == 16 for r in cut.records)
    roomy = AuditConfig(relations=("inheritance",), scales=(1.0,), per_cell=2, seed=1,
                        stage2_max_tokens=256)
    run = run_job(run_audit(_backend(stub), roomy, ResultCache(path), fake_render))
    assert run.asked == len(cut.records)  # another budget: asked again, not reused
    assert all(r["correct"] for r in run.records)
    assert run.prompt_version.endswith("+stage2-max256")
    from support.openai_stub import user_text

    questions = [r for r in stub.requests if "List all class names" not in user_text(r)]
    assert [r["max_tokens"] for r in questions] == [16] * len(cut.records) + \
        [256] * len(run.records)


def test_delta_is_over_matched_pairs_only() -> None:
    """A conflict answer whose twin was never answered (or answered at another scale) does
    not count; pooled means would say Δ = 0 here, the pairs say 1."""
    from cluestudio.core.vlm.report import summarize

    def record(instance: str, condition: str, correct: bool, twin: str = "",
               scale: float = 1.0) -> dict:
        return {"model": "m", "condition": condition, "relation": "inheritance",
                "scale": scale, "em": 1.0, "correct": correct, "instance_id": instance,
                "twin": twin}

    records = [record("a", "prior-conform", True), record("b", "prior-conform", False),
               record("a-rev", "2-reverse", False, twin="a"),
               record("c-rev", "2-reverse", True, twin="c"),  # its twin was not answered
               record("b-rev", "2-reverse", True, twin="b", scale=2.0)]  # another scale
    cells = {(c.condition, c.relation, c.scale): c for c in summarize(records)}
    at_one = cells[("2-reverse", "inheritance", "1")]
    assert at_one.delta == 1.0 and at_one.pairs == 1
    assert cells[("2-reverse", "inheritance", "2")].delta is None
    assert cells[("2-reverse", "all", "all")].pairs == 1

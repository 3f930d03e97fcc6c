"""The OpenAI-compatible backend against a real local HTTP server: retries, timeouts, usage,
then conversion with its repair loop and the submission probes, end to end."""

from __future__ import annotations

import importlib
import io
import json
import logging
import threading
from collections.abc import Iterator

import pytest
from PIL import Image

from cluestudio.core.jobs import Cancelled, CancelToken, run_job
from cluestudio.core.model import Class, ClassDiagram, Relation, RelationType
from cluestudio.core.vlm.backend import BackendError, ImageInput, VLMRequest
from cluestudio.core.vlm.conversion import convert_image, convert_images
from cluestudio.core.vlm.openai_backend import OpenAICompatibleBackend, resolve_api_key
from cluestudio.core.vlm.probe import probe_submission, relation_questions
from support.openai_stub import OpenAIStub, Reply, user_text


@pytest.fixture
def stub() -> Iterator[OpenAIStub]:
    with OpenAIStub() as server:
        yield server


def _backend(stub: OpenAIStub, **options) -> OpenAICompatibleBackend:
    options = {"timeout_s": 2.0, "backoff_s": 0.01, "max_retries": 3, **options}
    return OpenAICompatibleBackend("stub-vlm", base_url=stub.url, **options)


def _png() -> ImageInput:
    out = io.BytesIO()
    Image.new("RGB", (40, 30), "white").save(out, format="PNG")
    return ImageInput.from_bytes(out.getvalue())


def test_image_goes_as_data_url_with_system_prompt_and_usage(stub, caplog) -> None:
    stub.script(Reply("hello", prompt_tokens=120, completion_tokens=7))
    backend = _backend(stub)
    with caplog.at_level(logging.INFO, logger="cluestudio.vlm"):
        reply = backend.complete(VLMRequest("describe", images=(_png(),), system="be exact"))
    assert reply.text == "hello" and reply.attempts == 1
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (120, 7)
    assert backend.usage.total_tokens == 127
    assert "120 prompt + 7 completion tokens" in caplog.text
    sent = stub.requests[0]
    assert sent["model"] == "stub-vlm" and sent["temperature"] == 0.0
    assert sent["messages"][0] == {"role": "system", "content": "be exact"}
    parts = sent["messages"][1]["content"]
    assert parts[0]["image_url"]["url"].startswith("data:image/png;base64,iVBOR")
    assert parts[1] == {"type": "text", "text": "describe"}


def test_retries_429_and_5xx_and_a_broken_body_then_succeeds(stub) -> None:
    slept: list[float] = []
    stub.script(Reply(status=429, headers={"retry-after": "0.02"}), Reply(status=503),
                Reply(raw_body=b"{not json"), Reply("done"))
    reply = _backend(stub, sleep=slept.append).complete(VLMRequest("x"))
    assert reply.text == "done" and reply.attempts == 4
    assert slept[0] == pytest.approx(0.02)  # Retry-After wins over the back-off
    assert slept[2] > slept[1]  # exponential back-off


def test_timeout_is_retried(stub) -> None:
    stub.script(Reply("late", delay=3.0), Reply("in time"))
    reply = _backend(stub, timeout_s=0.3).complete(VLMRequest("x"))
    assert reply.text == "in time" and reply.attempts == 2


def test_gives_up_after_retries_and_does_not_retry_4xx(stub) -> None:
    stub.script(*[Reply(status=500)] * 3)
    with pytest.raises(BackendError, match="gave up after 3 attempts"):
        _backend(stub, max_retries=2).complete(VLMRequest("x"))
    stub.script(Reply("bad request", status=400), Reply("never"))
    with pytest.raises(BackendError, match="HTTP 400"):
        _backend(stub).complete(VLMRequest("x"))


def test_concurrency_limit_holds(stub) -> None:
    in_flight, peak, lock = [0], [0], threading.Lock()
    release = threading.Event()

    def handler(request):
        with lock:
            in_flight[0] += 1
            peak[0] = max(peak[0], in_flight[0])
        release.wait(0.15)
        with lock:
            in_flight[0] -= 1
        return user_text(request)

    stub.handler = handler
    backend = _backend(stub, concurrency=2)
    replies = backend.complete_batch([VLMRequest(str(i)) for i in range(6)])
    assert [r.text for r in replies] == [str(i) for i in range(6)]
    assert peak[0] == 2


def test_api_key_from_env_then_keyring(monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("CLUESTUDIO_API_KEY", "from-env")
    assert resolve_api_key("http://x/v1") == "from-env"
    monkeypatch.delenv("CLUESTUDIO_API_KEY")
    assert resolve_api_key("http://x/v1", "explicit") == "explicit"
    if importlib.util.find_spec("keyring") is not None:
        import keyring

        monkeypatch.setattr(keyring, "get_password",
                            lambda service, user: f"{service}:{user}")
        assert resolve_api_key("http://x/v1") == "cluestudio:http://x/v1"


# --- conversion ----------------------------------------------------------------------------

GOOD = "@startuml\nclass Animal\nclass Dog\nAnimal <|-- Dog\n@enduml"


def _strict_check(text: str) -> str | None:
    """A stand-in syntax check: every non-marker line must be a class or an arrow."""
    for number, line in enumerate(text.splitlines(), 1):
        if not (line.startswith(("@", "class ")) or "<|--" in line):
            return f"line {number}: cannot parse {line!r}"
    return None


def test_conversion_repairs_syntax_errors_and_keeps_every_attempt(stub) -> None:
    stub.script("Here you go:\n```plantuml\n@startuml\nclass Animal\nAnimal <|-- Dog ;;\n"
                "Dog ??? Cat\n@enduml\n```", "I cannot do that.", f"```\n{GOOD}\n```")
    rendered: list[str] = []

    def render(text: str) -> bytes:
        rendered.append(text)
        return b"\x89PNG fake"

    result = run_job(convert_image(_png(), _backend(stub), source="a.png", max_repairs=2,
                                   check=_strict_check, render=render))
    assert result.ok and result.puml == GOOD and result.image_b == b"\x89PNG fake"
    assert rendered == [GOOD]
    first, second, third = result.attempts
    assert "line 4" in (first.error or "") and second.puml is None
    assert "no @startuml" in (second.error or "") and third.error is None
    assert all(a.prompt_version.startswith("convert_system_v1@") for a in result.attempts)
    assert result.usage.total_tokens == 3 * 14
    # The error went back to the model, after its own earlier answer.
    repair = stub.requests[1]["messages"]
    assert [m["role"] for m in repair] == ["system", "user", "assistant", "user"]
    assert "line 4" in repair[-1]["content"]
    assert result.to_dict()["attempts"][0]["error"] == first.error


def test_conversion_stops_after_max_repairs(stub) -> None:
    stub.handler = lambda request: "no diagram here"
    result = run_job(convert_image(_png(), _backend(stub), max_repairs=1, check=_strict_check))
    assert not result.ok and len(result.attempts) == 2 and result.puml is None


def test_conversion_of_many_images_can_be_cancelled(stub) -> None:
    stub.handler = lambda request: GOOD
    cancel = CancelToken()
    job = convert_images([("a", _png()), ("b", _png())], _backend(stub), cancel,
                         check=_strict_check)
    next(job)
    cancel.cancel()
    with pytest.raises(Cancelled):
        run_job(job)


@pytest.mark.skipif(not hasattr(importlib.import_module("cluestudio.core.plantuml"),
                                "parse_plantuml"), reason="PlantUML parser not there yet")
def test_conversion_with_our_parser_as_checker(stub) -> None:
    from cluestudio.core.vlm.conversion import parser_checker

    stub.script("@startuml\n@enduml", GOOD)
    result = run_job(convert_image(_png(), _backend(stub), check=parser_checker))
    assert result.ok and "no classes" in (result.attempts[0].error or "")


# Our tolerant parser reads this (a warning for line 4, "not a class-diagram statement we
# know; ignored"), but PlantUML rejects it: "Syntax Error?" on line 4.
EXTENDS = "@startuml\nclass Animal\nclass Dog\nDog extends Animal\nAnimal <|-- Dog\n@enduml"


def test_the_plantuml_check_falls_back_to_the_parser_without_plantuml(stub, caplog,
                                                                        monkeypatch) -> None:
    import cluestudio.core.vlm.conversion as conversion
    from cluestudio.core.errors import RendererUnavailable

    calls: list[str] = []

    def no_java(text: str) -> bytes:
        calls.append(text)
        raise RendererUnavailable("cannot start Java: [Errno 2] No such file")

    monkeypatch.setattr(conversion, "default_renderer", no_java)
    stub.script("@startuml\n@enduml", EXTENDS)
    with caplog.at_level(logging.WARNING, logger="cluestudio.vlm"):
        result = run_job(convert_image(_png(), _backend(stub)))  # default check, no render
    # The parser still caught the empty diagram; PlantUML's absence is a warning, not an error.
    assert result.ok and len(result.attempts) == 2 and result.puml == EXTENDS
    assert "no classes" in (result.attempts[0].error or "")
    assert calls == [EXTENDS] and "checked with our parser only" in caplog.text
    check = conversion.PlantUMLCheck(no_java)
    assert check(GOOD) is None and check(GOOD) is None and check.available is False
    assert len(calls) == 2  # tried once, then not again


# --- probes --------------------------------------------------------------------------------

DIAGRAM = ClassDiagram(
    classes=(Class("Animal"), Class("Dog"), Class("Kennel")),
    relations=(Relation(RelationType.GENERALIZATION, "Dog", "Animal"),
               Relation(RelationType.AGGREGATION, "Kennel", "Dog"),
               Relation(RelationType.ASSOCIATION, "Dog", "Kennel")),
)


def test_questions_come_from_the_model_both_ways() -> None:
    asked = {(q.relation, q.a, q.b, q.gold) for q in relation_questions(DIAGRAM)}
    assert asked == {("inheritance", "Dog", "Animal", True),
                     ("inheritance", "Animal", "Dog", False),
                     ("aggregation", "Kennel", "Dog", True),
                     ("aggregation", "Dog", "Kennel", False)}


def _answers(names: str, truth: dict[tuple[str, str], str]):
    def handler(request):
        prompt = user_text(request)
        if "List all class names" in prompt:
            return names
        for (a, b), answer in truth.items():
            if f"class {a} inherit from class {b}" in prompt or \
                    f"class {a} the whole and class {b}" in prompt:
                return answer
        return "Unknown"
    return handler


def test_probe_agreeing_submission_is_not_flagged(stub) -> None:
    stub.handler = _answers('```json\n["Animal", "dog", "Kennel"]\n```', {
        ("Dog", "Animal"): "True.", ("Animal", "Dog"): "**False**",
        ("Kennel", "Dog"): "true", ("Dog", "Kennel"): "False"})
    result = run_job(probe_submission(_png(), DIAGRAM, _backend(stub), source="s1"))
    assert result.em and result.rel_acc == 1.0 and not result.flag
    stage1 = user_text(stub.requests[0])
    assert "showing inheritance and aggregation relationships" in stage1
    assert "contains 3 classes" in stage1
    assert result.to_dict()["flagged"] is False


def test_probe_disagreement_raises_a_flag_with_reasons(stub) -> None:
    stub.handler = _answers('Classes: ["Animal", "Dog", "Cat"', {  # malformed JSON
        ("Dog", "Animal"): "False", ("Animal", "Dog"): "False",
        ("Kennel", "Dog"): "I cannot determine that", ("Dog", "Kennel"): "False"})
    result = run_job(probe_submission(_png(), DIAGRAM, _backend(stub)))
    kinds = sorted(r.kind for r in result.reasons)
    assert kinds == ["relation-mismatch", "relation-unknown", "unreadable-class-list"]
    assert {r.kind for r in result.flag.reasons} == {"relation-mismatch",
                                                     "unreadable-class-list"}
    assert not result.em and result.rel_acc == 0.5


def test_probe_names_missing_and_extra_classes(stub) -> None:
    stub.handler = _answers('["Animal", "Dog", "Cat"]', {})
    result = run_job(probe_submission(_png(), DIAGRAM, _backend(stub)))
    details = {r.kind: r.detail for r in result.reasons}
    assert details["missing-class"].startswith("Kennel")
    assert details["extra-class"].startswith("Cat")
    assert result.rel_acc == 0.0  # every answer Unknown, and Unknown counts as wrong


def test_probe_of_a_diagram_without_classes(stub) -> None:
    stub.handler = _answers("[]", {})
    result = run_job(probe_submission(_png(), ClassDiagram(), _backend(stub)))
    assert result.em and result.rel_acc is None and not result.flag


# --- workspace adapter ---------------------------------------------------------------------

def test_attempts_and_probes_are_stored_in_the_workspace(stub, tmp_path) -> None:
    from cluestudio.core.vlm.workspace_adapter import store_conversion, store_probe
    from cluestudio.core.workspace import Task, open_workspace, ops

    stub.script("no diagram", GOOD)
    converted = run_job(convert_image(_png(), _backend(stub), check=_strict_check))
    stub.handler = _answers('["Animal", "Dog", "Kennel"]', {})
    probed = run_job(probe_submission(_png(), DIAGRAM, _backend(stub)))
    with open_workspace(tmp_path / "course.sqlite") as ws:
        def setup(conn):
            ops.upsert_task(conn, Task("t1", "Pets"))
            return ops.ensure_submission(conn, "t1", "s1", "student", None)[0]

        submission = ws.write(setup)
        first, second = store_conversion(ws, submission, converted)
        store_probe(ws, submission, probed)
        store_probe(ws, submission, probed)  # same input: updated, not duplicated
        revisions = ws.revisions(submission)
        assert [r.id for r in revisions] == [first, second]
        assert revisions[1].parent_id == first and revisions[1].puml == GOOD
        assert revisions[0].author == "stub-vlm" and revisions[0].author_kind == "model"
        probes = ws.write(lambda conn: ops.rows(conn, "SELECT * FROM probe_results"))
        assert len(probes) == 1 and probes[0]["em"] == 1.0
        log = ws.write(lambda conn: ops.rows(conn, "SELECT * FROM audit_log "
                                                    "WHERE action = 'vlm-convert'"))
        assert "convert_system_v1@" in log[0]["after"]


@pytest.mark.java
@pytest.mark.xdist_group("java")
def test_default_check_feeds_plantumls_error_back_for_text_our_parser_accepts(stub) -> None:
    from cluestudio.core.plantuml import parse_plantuml
    from cluestudio.core.vlm.conversion import default_renderer, parser_checker

    parsed = parse_plantuml(EXTENDS)
    assert parser_checker(EXTENDS) is None and [w.line for w in parsed.warnings] == [4]
    rendered: list[str] = []

    def render(text: str) -> bytes:
        rendered.append(text)
        return default_renderer(text)

    stub.script(f"```plantuml\n{EXTENDS}\n```", GOOD)
    result = run_job(convert_image(_png(), _backend(stub), render=render))  # default check
    assert result.ok and len(result.attempts) == 2 and result.puml == GOOD
    error = result.attempts[0].error or ""
    assert error.startswith("PlantUML rejects line 4") and "Syntax Error?" in error
    assert "Dog extends Animal" in error
    repair = stub.requests[1]["messages"]
    assert [m["role"] for m in repair] == ["system", "user", "assistant", "user"]
    assert "Syntax Error?" in repair[-1]["content"] and "line 4" in repair[-1]["content"]
    # Image B is the PNG PlantUML drew while checking the final answer: no second render.
    assert result.image_b is not None and result.image_b.startswith(b"\x89PNG")
    assert rendered == [EXTENDS, GOOD]


@pytest.mark.java
@pytest.mark.xdist_group("java")
def test_cli_convert_checks_with_plantuml_by_default(stub, tmp_path, capsys) -> None:
    from cluestudio.cli import main

    image = tmp_path / "a.png"
    image.write_bytes(_png().data)
    stub.script(EXTENDS, GOOD)
    out = tmp_path / "out"
    assert main(["convert", str(image), "--out", str(out), "--model", "m",
                 "--base-url", stub.url, "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)[0]
    assert summary["ok"] and summary["attempts"] == 2 and len(stub.requests) == 2
    attempts = json.loads((out / "a.attempts.json").read_text())["attempts"]
    assert "Syntax Error?" in attempts[0]["error"] and attempts[1]["error"] is None
    assert (out / "a.puml").read_text(encoding="utf-8").strip() == GOOD
    assert (out / "a.b.png").read_bytes().startswith(b"\x89PNG")
    # The old opt-in flag is still accepted (and now the default).
    stub.script(EXTENDS, GOOD)
    assert main(["convert", str(image), "--out", str(out), "--model", "m", "--no-render",
                 "--base-url", stub.url, "--plantuml-check", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["attempts"] == 2


@pytest.mark.java
@pytest.mark.xdist_group("java")
def test_plantuml_checker_feeds_the_jar_error_back(stub) -> None:
    from cluestudio.core.vlm.conversion import combined_checker, parser_checker, plantuml_checker

    assert plantuml_checker(GOOD) is None
    stub.script("@startuml\nclass A {\n@enduml", GOOD)
    check = combined_checker(parser_checker, plantuml_checker)
    result = run_job(convert_image(_png(), _backend(stub), check=check))
    assert result.ok and len(result.attempts) == 2 and result.attempts[0].error


def test_cli_convert_and_probe(stub, tmp_path, capsys) -> None:
    from cluestudio.cli import main

    image = tmp_path / "a.png"
    image.write_bytes(_png().data)
    stub.script(GOOD)
    out = tmp_path / "out"
    # --no-plantuml-check: our parser only (machines without Java), so no JVM starts here.
    assert main(["convert", str(image), "--out", str(out), "--no-render", "--model", "m",
                 "--base-url", stub.url, "--no-plantuml-check", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["ok"] is True
    puml = out / "a.puml"
    assert puml.read_text(encoding="utf-8").strip() == GOOD
    stub.script(EXTENDS)  # what PlantUML rejects passes our tolerant parser alone
    assert main(["convert", str(image), "--out", str(tmp_path / "lax"), "--no-render",
                 "--model", "m", "--base-url", stub.url, "--no-plantuml-check", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["attempts"] == 1
    assert json.loads((out / "a.attempts.json").read_text())["attempts"][0]["error"] is None
    stub.handler = _answers('["Animal", "Dog"]', {("Dog", "Animal"): "True",
                                                  ("Animal", "Dog"): "True"})
    code = main(["probe", str(image), str(puml), "--model", "m", "--base-url", stub.url,
                 "--fail-on-flag"])
    text = capsys.readouterr().out
    assert code == 1 and "FLAGGED" in text and "relation-mismatch" in text


# --- a hostile endpoint (issue 25 item 6) ------------------------------------------------------


def test_a_redirect_to_another_host_is_refused_and_nothing_is_sent_there(stub) -> None:
    with OpenAIStub() as elsewhere:
        other = elsewhere.url.replace("127.0.0.1", "localhost")
        stub.script(Reply(status=307,
                          headers={"location": f"{other}/chat/completions"}))
        with pytest.raises(BackendError, match=r"redirected to another host \(localhost\); "
                                               r"refused"):
            _backend(stub).complete(VLMRequest("x", images=(_png(),)))
        assert len(stub.requests) == 1 and elsewhere.requests == []  # and no retry
        stub.script(Reply(status=307, headers={"location": f"{other}/chat/completions"}))
        reply = _backend(stub, allow_cross_host_redirects=True).complete(VLMRequest("y"))
        assert reply.text == "Unknown" and len(elsewhere.requests) == 1  # when allowed


def test_an_answer_over_the_size_cap_is_refused_without_a_retry(stub) -> None:
    stub.script(Reply("x" * 200_000, completion_tokens=10))
    with pytest.raises(BackendError, match=r"over the 65,536-byte cap"):
        _backend(stub, max_answer_bytes=65_536).complete(VLMRequest("x"))
    assert len(stub.requests) == 1


@pytest.mark.parametrize(("text", "tokens"), [("x" * 20, 500), ("x" * 2_000, 5)])
def test_an_answer_longer_than_max_tokens_is_refused(stub, text: str, tokens: int) -> None:
    stub.script(Reply(text, completion_tokens=tokens))
    with pytest.raises(BackendError, match=r"longer than the 100 tokens asked for"):
        _backend(stub, max_tokens=100).complete(VLMRequest("x"))


def test_the_caps_come_from_the_settings() -> None:
    from cluestudio.core.settings import settings_from_dict
    from cluestudio.core.vlm.factory import BackendOptions, endpoint_limits, make_backend

    settings, warnings = settings_from_dict({"llm": {"max_answer_kb": 8,
                                                     "allow_cross_host_redirects": True}})
    assert warnings == []
    backend = make_backend(BackendOptions(model="m", base_url="http://127.0.0.1:9/v1",
                                          **endpoint_limits(settings.llm)))
    assert (backend.max_answer_bytes, backend.allow_cross_host_redirects) == (8192, True)

"""``cluestudio convert --workspace`` and ``probe --workspace``: a whole course converted and
probed against a real local OpenAI-compatible server, stored in the workspace, resumable
(a rerun asks nothing for what is stored), with failures and flags in the summary."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, PngImagePlugin

from cluestudio.app.vlm_batches import convert_workspace, probe_workspace
from cluestudio.cli import main
from cluestudio.core.jobs import Cancelled, CancelToken, run_job
from cluestudio.core.vlm.openai_backend import OpenAICompatibleBackend
from cluestudio.core.workspace import SaveRevision, import_path, open_workspace
from support.openai_stub import OpenAIStub, images, png_source, question_of, reader_handler
from support.openai_stub import user_text as first_user_text

DOG = "@startuml\nclass Animal\nclass Dog\nAnimal <|-- Dog\n@enduml"
CAR = "@startuml\nclass Car\nclass Wheel\nCar *-- Wheel\n@enduml"
BIKE = "@startuml\nclass Bike\nclass Bell\nBike o-- Bell\n@enduml"
REVERSED = "@startuml\nclass Animal\nclass Dog\nDog <|-- Animal\n@enduml"
BROKEN = "unreadable scribble"  # the image the model cannot convert


def _png(source: str) -> bytes:
    """An image A carrying its diagram's source in a PNG text chunk (what the stub reads)."""
    info = PngImagePlugin.PngInfo()
    info.add_text("plantuml", source)
    out = io.BytesIO()
    Image.new("RGB", (80, 40 + len(source)), "white").save(out, format="PNG", pnginfo=info)
    return out.getvalue()


def make_course(root: Path) -> Path:
    """pets/s1: image only; s2: an image the model fails on; s3: PlantUML only;
    s4: image + an imported conversion that reverses the arrow; s5: image + a correct one.
    shop/s1: image only."""
    files: dict[str, dict[str, str | bytes]] = {
        "pets": {"s1.png": _png(DOG), "s2.png": _png(BROKEN), "s3.puml": DOG,
                 "s4.png": _png(DOG), "s4.puml": REVERSED, "s5.png": _png(CAR), "s5.puml": CAR},
        "shop": {"s1.png": _png(BIKE)},
    }
    for task, subs in files.items():
        folder = root / "tasks" / task
        (folder / "submissions").mkdir(parents=True)
        (folder / "requirement.md").write_text(f"# {task}\n\nDraw it.\n", encoding="utf-8")
        (folder / "reference.puml").write_text(DOG + "\n", encoding="utf-8")
        for name, data in subs.items():
            path = folder / "submissions" / name
            if isinstance(data, bytes):
                path.write_bytes(data)
            else:
                path.write_text(data + "\n", encoding="utf-8")
    return root


def model_handler(request: dict[str, Any]) -> str:
    """Converts by copying the image's embedded source (fails on BROKEN); probes by reading
    it (stage 1 and stage 2 of seed 003)."""
    prompt = first_user_text(request)
    if "List all class names" in prompt or question_of(prompt):
        return reader_handler()(request)
    source = png_source(images(request)[0])
    if source == BROKEN:
        return "Sorry, I cannot read this image."
    return f"Here it is:\n```plantuml\n{source}\n```"


@pytest.fixture
def stub() -> Iterator[OpenAIStub]:
    with OpenAIStub(model_handler) as server:
        yield server


@pytest.fixture
def course(tmp_path: Path) -> Path:
    path = tmp_path / "course.sqlite"
    with open_workspace(path) as ws:
        run_job(import_path(ws, make_course(tmp_path / "course")))
    return path


def _ids(ws: Any) -> dict[str, int]:
    return {f"{s.task_id}/{s.source_id}": s.id for s in ws.list_submissions()}


def _convert(stub: OpenAIStub, course: Path, *extra: str) -> list[str]:
    return ["convert", "--workspace", str(course), "--model", "m", "--base-url", stub.url,
            "--no-plantuml-check", "--max-repairs", "1", "--retries", "0", *extra]


def _probe(stub: OpenAIStub, course: Path, *extra: str) -> list[str]:
    return ["probe", "--workspace", str(course), "--model", "m", "--base-url", stub.url,
            "--retries", "0", *extra]


def _sids(rows: list[dict[str, Any]]) -> list[str]:
    return [f"{r['task_id']}/{r['source_id']}" for r in rows]


def test_convert_workspace_stores_every_attempt_and_reruns_ask_nothing(stub, course, capsys
                                                                         ) -> None:
    assert main(_convert(stub, course, "--json")) == 1  # pets/s2 failed
    out = capsys.readouterr()
    summary = json.loads(out.out)
    assert _sids(summary["converted"]) == ["pets/s1", "pets/s4", "pets/s5", "shop/s1"]
    assert _sids(summary["failed"]) == ["pets/s2"]
    assert _sids(summary["skipped"]) == ["pets/s3"]
    assert summary["skipped"][0]["reason"] == "no image A"
    assert summary["counts"] == {"converted": 4, "failed": 1, "skipped": 1}
    failure = summary["failed"][0]
    assert "still invalid after 2 attempts" in failure["reason"]
    assert "no @startuml" in failure["reason"] and failure["attempts"] == 2
    assert summary["tokens"] == 6 * 14  # 4 answers + 2 for s2, 11 + 3 tokens each
    assert len(stub.requests) == 6
    # Progress on stderr: n/total and the submission, named as the window's list names it
    # (not by its database id)
    assert "0/5 5 to convert with m, 1 skipped" in out.err
    assert "/5 pets · s1: converted" in out.err and "#" not in out.err
    assert "pets · s2: failed after 2 attempts" in out.err

    with open_workspace(course) as ws:
        ids = _ids(ws)
        s1 = ws.revisions(ids["pets/s1"])
        assert [(r.puml, r.author, r.author_kind) for r in s1] == [(DOG, "m", "model")]
        # The imported conversion stays; the model's attempt is a child of it.
        s4 = ws.revisions(ids["pets/s4"])
        assert [r.author_kind for r in s4] == ["import", "model"]
        assert s4[1].parent_id == s4[0].id and s4[0].puml.strip() == REVERSED
        # A failure loses nothing: both answers are kept as a chain, as the reviewer saw them.
        s2 = ws.revisions(ids["pets/s2"])
        assert [r.puml for r in s2] == ["Sorry, I cannot read this image."] * 2
        assert s2[1].parent_id == s2[0].id
        assert [r.id for r in s2] == summary["failed"][0]["revision_ids"]
        assert ws.revisions(ids["pets/s3"])[0].author_kind == "import"
        log = [e for e in ws.audit_log(500) if e["action"] == "vlm-convert"]
        assert len(log) == 6
        details = json.loads(log[0]["after"])
        assert details["model"] == "m" and details["prompt_tokens"] == 11
        assert details["prompt_version"].startswith("convert_system_v1@")
        assert ws.integrity_check() == "ok"

    # A rerun asks nothing: every submission with an image has a model conversion.
    assert main(_convert(stub, course, "--json")) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["counts"] == {"converted": 0, "failed": 0, "skipped": 6}
    assert len(stub.requests) == 6
    assert main(_convert(stub, course)) == 0
    text = capsys.readouterr().out
    assert "0 converted, 0 failed, 6 skipped" in text
    assert "skipped 5: already converted by a model (--redo asks again)" in text

    # --redo with --task asks again for that task only, on top of the head revision.
    assert main(_convert(stub, course, "--redo", "--task", "shop", "--json")) == 0
    redo = json.loads(capsys.readouterr().out)
    assert _sids(redo["converted"]) == ["shop/s1"] and redo["counts"]["skipped"] == 0
    assert len(stub.requests) == 7
    with open_workspace(course) as ws:
        shop = ws.revisions(_ids(ws)["shop/s1"])
        assert [r.puml for r in shop] == [BIKE, BIKE] and shop[1].parent_id == shop[0].id


def test_a_backend_failure_stores_nothing_and_the_rerun_asks_again(stub, course, capsys
                                                                     ) -> None:
    def handler(request: dict[str, Any]) -> Any:
        from support.openai_stub import Reply

        if png_source(images(request)[0]) == CAR:
            return Reply("overloaded", status=500)
        return model_handler(request)

    stub.handler = handler
    assert main(_convert(stub, course, "--task", "pets", "--json")) == 1
    summary = json.loads(capsys.readouterr().out)
    assert _sids(summary["failed"]) == ["pets/s2", "pets/s5"]
    assert summary["failed"][1]["reason"].startswith("no answer:")
    assert "500" in summary["failed"][1]["reason"]
    with open_workspace(course) as ws:
        assert [r.author_kind for r in ws.revisions(_ids(ws)["pets/s5"])] == ["import"]
    stub.handler = model_handler
    before = len(stub.requests)
    assert main(_convert(stub, course, "--task", "pets", "--json")) == 0
    summary = json.loads(capsys.readouterr().out)
    assert _sids(summary["converted"]) == ["pets/s5"] and len(stub.requests) == before + 1


def test_a_cancelled_batch_keeps_what_finished_and_resumes(stub, course) -> None:
    backend = OpenAICompatibleBackend("stub-vlm", base_url=stub.url, timeout_s=5,
                                      concurrency=1, max_retries=0)
    cancel = CancelToken()
    with open_workspace(course) as ws:
        job = convert_workspace(ws, backend, cancel, plantuml_check=False)
        assert next(job).total == 5
        first = next(job)
        assert first.done == 1 and first.message.endswith("converted after 1 attempt")
        cancel.cancel()
        with pytest.raises(Cancelled):
            next(job)
        stored = [s for s in ws.list_submissions() if s.revisions and any(
            r.author_kind == "model" for r in ws.revisions(s.id))]
        assert len(stored) == 1
        asked = len(stub.requests)
        summary = run_job(convert_workspace(ws, backend, CancelToken(), plantuml_check=False))
        assert len(summary.done) + len(summary.failed) == 4
        assert [o.reason for o in summary.skipped].count(
            "already converted by a model (--redo asks again)") == 1
        assert len(stub.requests) - asked == 6  # 3 answers + 3 (2 repairs) for the failing one


CHILD = r"""
import sys
from cluestudio.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_kill_9_mid_batch_then_the_rerun_converts_only_the_rest(stub, course, capsys
                                                                  ) -> None:
    hold = threading.Event()
    seen = [0]
    lock = threading.Lock()

    def handler(request: dict[str, Any]) -> str:
        with lock:
            seen[0] += 1
            number = seen[0]
        if number > 2:  # two answers, then hang so the kill lands mid-run
            hold.wait(30)
        return model_handler(request)

    stub.handler = handler
    args = _convert(stub, course, "--concurrency", "1", "--task", "shop", "--task", "pets")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    child = subprocess.Popen([sys.executable, "-c", CHILD, *args], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while len(stub.requests) <= 2 and time.monotonic() < deadline:
            assert child.poll() is None, child.stderr.read() if child.stderr else ""
            time.sleep(0.05)
        time.sleep(0.3)  # let the answered items be committed
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        hold.set()
        if child.poll() is None:
            child.kill()
            child.wait()
        if child.stderr:
            child.stderr.close()
    with open_workspace(course) as ws:
        assert ws.integrity_check() == "ok"
        converted = {s.task_id + "/" + s.source_id for s in ws.list_submissions()
                     if any(r.author_kind == "model" for r in ws.revisions(s.id))}
    # shop/s1 then pets/s1 answered (in --task order), each in its own transaction.
    assert converted == {"shop/s1", "pets/s1"}
    stub.handler = model_handler
    before = len(stub.requests)
    assert main([*args, "--json"]) == 1  # pets/s2 still fails
    summary = json.loads(capsys.readouterr().out)
    assert _sids(summary["converted"]) == ["pets/s4", "pets/s5"]
    assert len(summary["skipped"]) == 3 and len(stub.requests) - before == 4


def test_probe_workspace_stores_results_reports_flags_and_skips_what_it_has(stub, course,
                                                                             capsys) -> None:
    assert main(_probe(stub, course, "--json")) == 0
    summary = json.loads(capsys.readouterr().out)
    assert _sids(summary["probed"]) == ["pets/s4", "pets/s5"]
    assert {r["reason"] for r in summary["skipped"]} == {
        "no image A", "no PlantUML to probe against; convert first"}
    assert summary["counts"] == {"probed": 2, "failed": 0, "skipped": 4, "flagged": 1}
    flagged = summary["flagged"][0]
    assert (flagged["task_id"], flagged["source_id"]) == ("pets", "s4")
    assert flagged["em"] is True and flagged["rel_acc"] == 0.0
    assert {r["kind"] for r in flagged["reasons"]} == {"relation-mismatch"}
    asked = len(stub.requests)
    assert asked == 2 * 3  # per submission: class names + the relation asked both ways

    with open_workspace(course) as ws:
        ids = _ids(ws)
        rows = ws.probe_results()
        assert sorted(r["submission_id"] for r in rows) == sorted([ids["pets/s4"],
                                                                   ids["pets/s5"]])
        s5 = ws.probe_results(ids["pets/s5"])[0]
        assert s5["em"] == 1.0 and s5["rel_acc"] == 1.0 and s5["model"] == "m"
        assert json.loads(s5["result"])["flagged"] is False

    # Rerun: nothing asked; the stored flag is still what the reviewer sees, and reported.
    code = main(_probe(stub, course, "--fail-on-flag"))
    text = capsys.readouterr().out
    assert code == 1 and len(stub.requests) == asked
    assert "FLAGGED #" in text and "pets/s4" in text and "(stored earlier)" in text
    assert "relation-mismatch: inheritance" in text
    assert "0 probed, 0 failed, 6 skipped, 1 flagged" in text

    # --redo asks again and replaces (same input), it does not add rows.
    assert main(_probe(stub, course, "--redo", "--task", "pets", "--json")) == 0
    assert json.loads(capsys.readouterr().out)["counts"]["probed"] == 2
    assert len(stub.requests) == 2 * asked
    with open_workspace(course) as ws:
        assert len(ws.probe_results()) == 2
        # The reviewer fixes s4's PlantUML: a new input, so only s4 is asked again.
        ws.execute(SaveRevision(_ids(ws)["pets/s4"], DOG, "alice"))
    assert main(_probe(stub, course, "--fail-on-flag", "--json")) == 0
    fixed = json.loads(capsys.readouterr().out)
    assert _sids(fixed["probed"]) == ["pets/s4"] and fixed["flagged"] == []
    assert len(stub.requests) == 2 * asked + 3


def test_probe_after_convert_uses_the_head_revision(stub, course) -> None:
    backend = OpenAICompatibleBackend("stub-vlm", base_url=stub.url, timeout_s=5,
                                      max_retries=0)
    with open_workspace(course) as ws:
        run_job(convert_workspace(ws, backend, plantuml_check=False, max_repairs=0))
        summary = run_job(probe_workspace(ws, backend))
        # s2's head is the model's non-diagram answer: it cannot be probed, and says why.
        assert [o.source_id for o in summary.failed] == ["s2"]
        assert "has no classes to compare with" in summary.failed[0].reason
        assert {(o.task_id, o.source_id) for o in summary.done} == {
            ("pets", "s1"), ("pets", "s4"), ("pets", "s5"), ("shop", "s1")}
        assert summary.flagged == []  # the model's conversions agree with the images
        assert summary.to_dict()["counts"]["flagged"] == 0


def test_exactly_one_mode_and_clear_errors(stub, course, tmp_path, capsys) -> None:
    image = tmp_path / "a.png"
    image.write_bytes(_png(DOG))
    puml = tmp_path / "a.puml"
    puml.write_text(DOG, encoding="utf-8")
    cases = [
        (["convert", str(image), "--workspace", str(course)], "not both"),
        (["convert", "--model", "m"], "give IMAGES, or --workspace"),
        (["probe", str(image), str(puml), "--workspace", str(course)], "not both"),
        (["probe"], "give IMAGE PUML pairs, or --workspace"),
        (["convert", str(image), "--redo"], "need --workspace"),
        (["convert", "--workspace", str(course), "--out", str(tmp_path)], "--out is for"),
        (["convert", "--workspace", str(tmp_path / "none.sqlite")], "no such workspace"),
        (["probe", "--workspace", str(tmp_path)], "a folder, not a workspace"),
        (_convert(stub, course, "--task", "zoo"), "no task 'zoo'"),
    ]
    for argv, message in cases:
        assert main(argv) == 2, argv
        assert message in capsys.readouterr().err, argv
    assert not (tmp_path / "none.sqlite").exists()
    assert stub.requests == []


@pytest.mark.java
@pytest.mark.xdist_group("java")
def test_convert_workspace_checks_with_plantuml_by_default(stub, tmp_path, capsys) -> None:
    extends = "@startuml\nclass Animal\nclass Dog\nDog extends Animal\n@enduml"

    def handler(request: dict[str, Any]) -> str:
        if len(request["messages"]) > 2:  # a repair turn: PlantUML's error came back
            assert "Syntax Error?" in request["messages"][-1]["content"]
            return DOG
        return extends  # passes our tolerant parser, PlantUML rejects it

    stub.handler = handler
    path = tmp_path / "one.sqlite"
    root = tmp_path / "one"
    (root / "tasks" / "pets" / "submissions").mkdir(parents=True)
    (root / "tasks" / "pets" / "requirement.md").write_text("# Pets\n", encoding="utf-8")
    (root / "tasks" / "pets" / "reference.puml").write_text(DOG + "\n", encoding="utf-8")
    (root / "tasks" / "pets" / "submissions" / "s1.png").write_bytes(_png(DOG))
    with open_workspace(path) as ws:
        run_job(import_path(ws, root))
    assert main(["convert", "--workspace", str(path), "--model", "m", "--base-url", stub.url,
                 "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["converted"][0]["attempts"] == 2 and len(stub.requests) == 2
    with open_workspace(path) as ws:
        first, second = ws.revisions(ws.list_submissions()[0].id)
        assert first.puml == extends and second.puml == DOG
        errors = [json.loads(e["after"])["error"] for e in ws.audit_log()
                  if e["action"] == "vlm-convert"]
        assert any(e and "Syntax Error?" in e for e in errors) and None in errors

"""The prior-bias audit stored in a workspace: interrupted (cancelled, or killed with -9) and
resumed against a local OpenAI-compatible server, asking only what is missing, with the same
table as an uninterrupted run; reports rebuilt from the workspace alone."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cluestudio.cli import main
from cluestudio.core.jobs import Cancelled, CancelToken, run_job
from cluestudio.core.vlm.audit import AuditConfig, run_audit, stored_audit
from cluestudio.core.vlm.cache import ResultCache
from cluestudio.core.vlm.openai_backend import OpenAICompatibleBackend
from cluestudio.core.vlm.report import summarize, to_csv
from cluestudio.core.vlm.workspace_adapter import WorkspaceAnswerStore
from cluestudio.core.workspace import open_workspace
from support.openai_stub import OpenAIStub, reader_handler
from test_vlm_audit import fake_render

SMALL = AuditConfig(relations=("inheritance", "aggregation"), scales=(1.0, 2.0), per_cell=2,
                    seed=3)
ITEMS = 48  # (4 conditions × 2 + prior-free × 2 × 2 orientations) × 2 relations × 2 scales


@pytest.fixture
def stub() -> Iterator[OpenAIStub]:
    with OpenAIStub() as server:
        yield server


def _backend(stub: OpenAIStub) -> OpenAICompatibleBackend:
    return OpenAICompatibleBackend("stub-vlm", base_url=stub.url, timeout_s=5, backoff_s=0.01,
                                   concurrency=3)


def _table(records) -> str:
    return to_csv(summarize(records))


def _uninterrupted(stub: OpenAIStub, path: Path) -> str:
    with open_workspace(path) as ws:
        run = run_job(run_audit(_backend(stub), SMALL, WorkspaceAnswerStore(ws), fake_render))
    assert run.asked == ITEMS and not run.failures
    return _table(run.records)


def test_cancelled_audit_resumes_from_the_workspace(stub, tmp_path: Path) -> None:
    stub.handler = reader_handler(follow_prior=True)
    path = tmp_path / "study.sqlite"
    cancel = CancelToken()
    with open_workspace(path) as ws:
        job = run_audit(_backend(stub), SMALL, WorkspaceAnswerStore(ws), fake_render, cancel)
        with pytest.raises(Cancelled):
            for progress in job:
                if progress.done >= 10:
                    cancel.cancel()
    # Reopened: what was answered before the cancel is in the file.
    with open_workspace(path) as ws:
        kept = len(ws.audit_results())
        assert 10 <= kept < ITEMS
        assert ws.counts()["audit_results"] == kept
        before = len(stub.requests)
        run = run_job(run_audit(_backend(stub), SMALL, WorkspaceAnswerStore(ws), fake_render))
        assert run.asked == ITEMS - kept and len(run.records) == ITEMS
        assert len(stub.requests) - before == 2 * (ITEMS - kept)  # only the missing items
        resumed = _table(run.records)
        before = len(stub.requests)
        again = run_job(run_audit(_backend(stub), SMALL, WorkspaceAnswerStore(ws),
                                  fake_render))
        assert again.asked == 0 and len(stub.requests) == before
        assert again.records == run.records
        # The summary can be rebuilt from the workspace alone, without a backend.
        rebuilt = stored_audit(SMALL, "stub-vlm", WorkspaceAnswerStore(ws, model="stub-vlm"))
        assert _table(rebuilt.records) == resumed and not rebuilt.failures
    assert resumed == _uninterrupted(stub, tmp_path / "fresh.sqlite")
    cells = {(c.condition, c.relation, c.scale): c for c in summarize(run.records)}
    assert cells[("2-reverse", "all", "all")].delta == 1.0  # a real table, not all zeros


def test_a_partial_workspace_reports_what_is_missing(stub, tmp_path: Path) -> None:
    stub.handler = reader_handler()
    config = AuditConfig(conditions=("prior-conform",), relations=("inheritance",),
                         scales=(1.0, 1.5), per_cell=2)
    with open_workspace(tmp_path / "w.sqlite") as ws:
        store = WorkspaceAnswerStore(ws)
        run = run_job(run_audit(_backend(stub), config, store, fake_render))
        assert len(run.records) == 4
        ws.write(lambda conn: conn.execute("DELETE FROM audit_results WHERE scale = 1.5"))
        partial = stored_audit(config, "stub-vlm", WorkspaceAnswerStore(ws))
    assert len(partial.records) == 2 and partial.failures == ("2 of 4 item(s) not answered yet",)


CHILD = r"""
import io, sys
from PIL import Image, PngImagePlugin
import cluestudio.core.vlm.conversion as conversion
from cluestudio.cli import main

def fake_render(source):
    image = Image.new("RGB", (120, 40 * source.count("\n")), "white")
    info = PngImagePlugin.PngInfo()
    info.add_text("plantuml", source)
    out = io.BytesIO()
    image.save(out, format="PNG", pnginfo=info)
    return out.getvalue()

conversion.default_renderer = fake_render
sys.exit(main(sys.argv[1:]))
"""


def _audit_args(stub: OpenAIStub, out: Path, workspace: Path) -> list[str]:
    return ["audit", "--out", str(out), "--workspace", str(workspace), "--model", "stub-vlm",
            "--base-url", stub.url, "--relations", "inheritance", "aggregation",
            "--scales", "1", "2", "--per-cell", "2", "--seed", "3", "--concurrency", "3",
            "--retries", "0", "--json"]


def test_kill_9_mid_audit_then_the_rerun_asks_only_the_rest(stub, tmp_path: Path,
                                                            monkeypatch, capsys) -> None:
    import cluestudio.core.vlm.conversion as conversion

    reader = reader_handler(follow_prior=True)
    hold = threading.Event()
    seen = [0]
    lock = threading.Lock()

    def handler(request):
        with lock:
            seen[0] += 1
            number = seen[0]
        if number > 30:  # answer 30 requests, then hang so the kill lands mid-run
            hold.wait(30)
        return reader(request)

    stub.handler = handler
    path = tmp_path / "study.sqlite"
    args = _audit_args(stub, tmp_path / "out", path)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    errors = tmp_path / "child.err"
    with errors.open("wb") as stderr:
        child = subprocess.Popen([sys.executable, "-c", CHILD, *args], env=env,
                                 stdout=subprocess.DEVNULL, stderr=stderr)
    try:
        deadline = time.monotonic() + 60
        while len(stub.requests) <= 30 and time.monotonic() < deadline:
            assert child.poll() is None, errors.read_text(errors="replace")
            time.sleep(0.05)
        assert len(stub.requests) > 30
        time.sleep(0.3)  # let the answered items be committed
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        hold.set()
        if child.poll() is None:
            child.kill()
            child.wait()
    # The lock died with the process; every answered item was committed on its own.
    with open_workspace(path) as ws:
        assert ws.integrity_check() == "ok"
        kept = len(ws.audit_results())
    assert 0 < kept <= 15 and kept < ITEMS  # 30 answers = at most 15 items

    stub.handler = reader
    monkeypatch.setattr(conversion, "default_renderer", fake_render)
    before = len(stub.requests)
    assert main(args) == 0
    resumed = json.loads(capsys.readouterr().out)
    assert resumed["meta"]["asked"] == ITEMS - kept
    assert len(stub.requests) - before == 2 * (ITEMS - kept)
    assert resumed["meta"]["records"] == ITEMS
    assert not (tmp_path / "out" / "results.jsonl").exists()  # the workspace is the store

    # The same audit without interruption, in a fresh workspace: the same table.
    fresh = _audit_args(stub, tmp_path / "fresh", tmp_path / "fresh.sqlite")
    assert main(fresh) == 0
    assert json.loads(capsys.readouterr().out)["cells"] == resumed["cells"]
    # And the reports come back from the workspace alone, asking nothing.
    before = len(stub.requests)
    assert main([*args, "--report-only"]) == 0
    rebuilt = json.loads(capsys.readouterr().out)
    assert rebuilt["cells"] == resumed["cells"] and rebuilt["meta"]["asked"] == 0
    assert len(stub.requests) == before


def test_a_jsonl_cache_is_copied_into_the_workspace(stub, tmp_path: Path, monkeypatch,
                                                    capsys) -> None:
    import cluestudio.core.vlm.conversion as conversion

    monkeypatch.setattr(conversion, "default_renderer", fake_render)
    stub.handler = reader_handler()
    config = AuditConfig(conditions=("prior-conform", "2-reverse"), relations=("inheritance",),
                         scales=(1.0,), per_cell=2, seed=3)
    jsonl = tmp_path / "results.jsonl"
    run_job(run_audit(_backend(stub), config, ResultCache(jsonl), fake_render))
    before = len(stub.requests)
    args = ["audit", "--out", str(tmp_path / "out"), "--workspace", str(tmp_path / "w.sqlite"),
            "--cache", str(jsonl), "--model", "stub-vlm", "--base-url", stub.url,
            "--conditions", "prior-conform", "2-reverse", "--relations", "inheritance",
            "--scales", "1", "--per-cell", "2", "--seed", "3", "--json"]
    assert main(args) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["meta"]["asked"] == 0 and len(stub.requests) == before
    assert "4 answer(s) copied" in captured.err
    with open_workspace(tmp_path / "w.sqlite") as ws:
        assert len(ws.audit_results(model="stub-vlm", seed=3)) == 4

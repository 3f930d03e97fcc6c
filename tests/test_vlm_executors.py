"""``convert --workspace`` and ``probe --workspace`` with ``--executor`` (issue 20): the model
calls happen in worker processes, the client stores exactly what the in-process batch
stores, and a rerun asks nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cluestudio.cli import main
from cluestudio.core.workspace import open_workspace
from test_vlm_workspace_batch import _convert, _probe, _sids, course, stub  # noqa: F401

pytestmark = [pytest.mark.xdist_group("java")]


def _stored(path: Path) -> dict[str, Any]:
    with open_workspace(path, readonly=True) as ws:
        revisions = {f"{s.task_id}/{s.source_id}": [(r.puml, r.author, r.author_kind)
                                                     for r in ws.revisions(s.id)]
                     for s in ws.list_submissions()}
        probes = sorted((r["submission_id"], r["em"], r["rel_acc"], r["input_hash"])
                        for r in ws.probe_results())
    return {"revisions": revisions, "probes": probes}


def test_convert_and_probe_on_worker_processes_store_what_the_local_batch_stores(
        stub: Any, course: Path, tmp_path: Path,  # noqa: F811
        capsys: pytest.CaptureFixture[str]) -> None:
    local = tmp_path / "local.sqlite"
    local.write_bytes(course.read_bytes())
    assert main(_convert(stub, local, "--json")) == 1  # pets/s2 cannot be converted
    local_convert = json.loads(capsys.readouterr().out)
    assert main(_probe(stub, local, "--json")) == 1  # s2's head has no classes to probe
    local_probe = json.loads(capsys.readouterr().out)
    asked = len(stub.requests)

    executor = ("--executor", "processes", "--workers", "2")
    assert main(_convert(stub, course, "--json", *executor)) == 1
    out = capsys.readouterr()
    remote_convert = json.loads(out.out)
    assert "on processes, 2 workers" in out.err
    assert main(_probe(stub, course, "--json", *executor)) == 1
    remote_probe = json.loads(capsys.readouterr().out)
    assert len(stub.requests) == 2 * asked  # the same questions, asked once each

    for key in ("counts", "tokens"):
        assert remote_convert[key] == local_convert[key]
        assert remote_probe[key] == local_probe[key]
    assert _sids(remote_convert["failed"]) == ["pets/s2"]
    assert _sids(remote_probe["flagged"]) == _sids(local_probe["flagged"])
    assert _sids(remote_probe["probed"]) == _sids(local_probe["probed"]) != []
    assert _stored(course) == _stored(local)

    # A rerun on the executor asks nothing: what is stored is read from the workspace.
    assert main(_convert(stub, course, "--json", *executor)) == 0
    assert json.loads(capsys.readouterr().out)["counts"]["converted"] == 0
    assert len(stub.requests) == 2 * asked


def test_an_executor_needs_a_workspace(stub: Any, tmp_path: Path,  # noqa: F811
                                       capsys: pytest.CaptureFixture[str]) -> None:
    image = tmp_path / "a.png"
    image.write_bytes(b"")
    assert main(["convert", str(image), "--model", "m", "--base-url", stub.url,
                 "--executor", "processes"]) == 2
    assert "--executor needs --workspace" in capsys.readouterr().err


@pytest.mark.java
def test_the_audit_on_worker_processes_gives_the_local_table_and_resumes(tmp_path: Path,
                                                                         capsys: Any) -> None:
    """Workers render with their own JVM and ask the model; the client stores each answer in
    the workspace, so the table is the in-process one and a rerun asks nothing."""
    from support.openai_stub import OpenAIStub, reader_handler

    def audit(out: str, *extra: str) -> dict[str, Any]:
        args = ["audit", "--out", str(tmp_path / out), "--model", "stub-vlm", "--base-url",
                server.url, "--relations", "inheritance", "--scales", "1", "1.5", "--per-cell",
                "1", "--workspace", str(tmp_path / f"{out}.sqlite"), "--json", *extra]
        assert main(args) == 0
        return dict(json.loads(capsys.readouterr().out))

    with OpenAIStub(reader_handler(follow_prior=True)) as server:
        local = audit("local")
        remote = audit("remote", "--executor", "processes", "--workers", "2")
        assert remote["meta"]["asked"] == local["meta"]["asked"] == 12
        assert remote["cells"] == local["cells"] and remote["meta"]["failures"] == []
        again = audit("remote", "--executor", "processes", "--workers", "2")
        assert again["meta"]["asked"] == 0 and again["cells"] == local["cells"]
        assert len(server.requests) == 2 * 2 * 12  # two stages per item, two full runs

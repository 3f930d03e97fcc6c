"""Diagram kinds end to end (issue 9, item 5): import sets a task's kind (course folder,
JSONL, packs), scoring runs the metrics of the kind (R2ABench for components, SysMEval with
the local OpenAI-compatible stub for SysML v2), and ``cluestudio score --kind``."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cluestudio.core.jobs import run_job
from cluestudio.core.settings import Settings, updated
from cluestudio.core.workspace import ImportFailed, import_path, open_workspace
from cluestudio.core.workspace.kinds import detect_kind
from cluestudio.resources_path import annotations_dir
from support.openai_stub import OpenAIStub, user_text

EXAMPLE = annotations_dir() / "examples" / "architecture"
TASK = EXAMPLE / "tasks" / "shop_architecture"

SYSML_REF = """package Car {
  part def Vehicle;
  part def Engine;
  attribute mass : Real;
}
"""
SYSML_CAND = """package Car {
  part def Vehicle;
  part def Wheel;
}
"""


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Any]:
    workspace = open_workspace(tmp_path / "w.sqlite")
    yield workspace
    workspace.close()


def _db(ws: Any) -> sqlite3.Connection:
    conn = sqlite3.connect(ws.path)
    conn.row_factory = sqlite3.Row
    return conn


def _task_folder(root: Path, task_id: str, reference: tuple[str, str],
                 submissions: dict[str, str], task_toml: str | None = None) -> Path:
    folder = root / "tasks" / task_id
    (folder / "submissions").mkdir(parents=True)
    (folder / "requirement.md").write_text(f"# {task_id}\n", encoding="utf-8")
    (folder / reference[0]).write_text(reference[1], encoding="utf-8")
    for name, text in submissions.items():
        (folder / "submissions" / name).write_text(text, encoding="utf-8")
    if task_toml is not None:
        (folder / "task.toml").write_text(task_toml, encoding="utf-8")
    return root


# --- import ------------------------------------------------------------------------------


def test_example_architecture_course_imports_as_a_component_task(ws) -> None:
    report = run_job(import_path(ws, EXAMPLE))
    (task,) = ws.tasks()
    assert (task.id, task.diagram_kind) == ("shop_architecture", "component")
    assert report.counts["submissions_added"] == 3
    assert not report.warnings  # no class-parser complaints about a component diagram
    flags = {r["parse_ok"] for r in _db(ws).execute("SELECT parse_ok FROM conversions")}
    assert flags == {None}  # the class parser's verdict does not apply


def test_folder_kind_from_task_toml_course_toml_suffix_and_detection(ws, tmp_path) -> None:
    component = "@startuml\ncomponent A\n[B] --> A\n@enduml\n"  # the class parser rejects it
    root = tmp_path / "course"
    _task_folder(root, "t_component", ("reference.puml", component), {"s1.puml": component})
    _task_folder(root, "t_sysml", ("reference.sysml", SYSML_REF), {"s1.sysml": SYSML_CAND})
    _task_folder(root, "t_forced", ("reference.puml", component), {},
                 task_toml='diagram_kind = "deployment"\n')
    _task_folder(root, "t_class", ("reference.puml", "@startuml\nclass A\n@enduml\n"), {})
    report = run_job(import_path(ws, root))
    assert {t.id: t.diagram_kind for t in ws.tasks()} == {
        "t_component": "component", "t_sysml": "sysml", "t_forced": "deployment",
        "t_class": "class"}
    assert not report.warnings
    # The same text in a class task is flagged, as before.
    other = open_workspace(tmp_path / "other.sqlite")
    try:
        root2 = _task_folder(tmp_path / "c2", "t", ("reference.puml", component), {},
                             task_toml='diagram_kind = "class"\n')
        report = run_job(import_path(other, root2))
        assert other.tasks()[0].diagram_kind == "class"  # explicit wins over detection
        assert any("does not parse" in w.message for w in report.warnings)
    finally:
        other.close()
    (root / "course.toml").write_text('diagram_kind = "package"\n', encoding="utf-8")
    shutil.rmtree(root / "tasks" / "t_forced")
    third = open_workspace(tmp_path / "third.sqlite")
    try:
        run_job(import_path(third, root))
        assert {t.diagram_kind for t in third.tasks()} == {"package"}  # course default wins
    finally:
        third.close()


def test_unknown_kind_names_the_file_and_writes_nothing(ws, tmp_path) -> None:
    root = _task_folder(tmp_path / "c", "t", ("reference.puml", "class A\n"), {},
                        task_toml='diagram_kind = "sequence"\n')
    with pytest.raises(ImportFailed) as failed:
        run_job(import_path(ws, root))
    message = str(failed.value)
    assert "task.toml" in message and "unknown diagram_kind 'sequence'" in message
    assert ws.tasks() == []


def test_jsonl_kind_field_detection_and_bad_kind_line(ws, tmp_path) -> None:
    records = [
        {"task_id": "arch", "reference": "@startuml\n[A] --> [B]\n@enduml",
         "diagram_kind": "component", "candidate": "@startuml\n[A]\n@enduml",
         "source_id": "c1"},
        {"task_id": "arch", "reference": "@startuml\n[A] --> [B]\n@enduml",
         "candidate": "@startuml\n[B]\n@enduml", "source_id": "c2"},  # kind not restated
        {"task_id": "model", "reference": SYSML_REF, "candidate": SYSML_CAND},
    ]
    path = tmp_path / "data.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    report = run_job(import_path(ws, path))
    assert {t.id: t.diagram_kind for t in ws.tasks()} == {"arch": "component", "model": "sysml"}
    assert not report.warnings and report.counts["submissions_added"] == 3
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(records[0]) + "\n" + json.dumps(
        {"task_id": "x", "reference": "class A", "diagram_kind": "activity"}) + "\n",
        encoding="utf-8")
    other = open_workspace(tmp_path / "o.sqlite")
    try:
        with pytest.raises(ImportFailed) as failed:
            run_job(import_path(other, bad))
        assert f"{bad}:2: error: unknown diagram_kind 'activity'" in str(failed.value)
    finally:
        other.close()


def test_pack_round_trip_keeps_the_kind_and_rejects_unknown_ones(ws, tmp_path) -> None:
    import zipfile

    from cluestudio.core.workspace.pack import export_pack, merge_packs

    run_job(import_path(ws, EXAMPLE))
    pack = tmp_path / "p.zip"
    export_pack(ws, pack)
    target = open_workspace(tmp_path / "t.sqlite")
    try:
        merge_packs(target, [pack])
        assert [t.diagram_kind for t in target.tasks()] == ["component"]
    finally:
        target.close()
    with zipfile.ZipFile(pack) as zf:
        manifest, data = zf.read("manifest.json"), json.loads(zf.read("data.json"))
    data["tasks"][0]["diagram_kind"] = "timing"
    broken = tmp_path / "broken.zip"
    with zipfile.ZipFile(broken, "w") as zf:
        zf.writestr("manifest.json", manifest)
        zf.writestr("data.json", json.dumps(data))
    fresh = open_workspace(tmp_path / "f.sqlite")
    try:
        with pytest.raises(ImportFailed, match="unknown diagram_kind 'timing'"):
            merge_packs(fresh, [broken])
        assert fresh.tasks() == []
    finally:
        fresh.close()


def test_detect_kind_only_obvious_cases() -> None:
    assert detect_kind(SYSML_REF) == "sysml"
    assert detect_kind("@startuml\nnode Server\n[Api] --> Server\n@enduml") == "component"
    assert detect_kind("@startuml\nclass A\n[B]\n@enduml") is None  # a class: not obvious
    assert detect_kind("package Shop {\n  class Order\n}") is None
    assert detect_kind("") is None


# --- GUI scoring job (Qt-free) ----------------------------------------------------------


def _score(ws: Any, settings: Settings) -> dict[Any, Any]:
    """Score every submission as the window does; the panels as the views then read them."""
    from cluestudio.app.scoring import ScoringOptions, score_workspace
    from cluestudio.app.submissions import load_submission

    summary = run_job(score_workspace(ws, ScoringOptions("exact", "cpu", settings=settings)))
    llm = bool(settings.llm.model)
    out: dict[Any, Any] = {s.id: load_submission(ws, s.id, "grader", "class-diagram",
                                                 llm=llm).scores
                           for s in ws.list_submissions()}
    if summary.plugin_errors:
        out["plugin_errors"] = summary.plugin_errors
    return out


def test_scoring_a_component_task_stores_r2a_values_and_no_clue(ws) -> None:
    from cluestudio.app.submissions import load_submission

    run_job(import_path(ws, EXAMPLE))
    out = _score(ws, settings=Settings())  # default settings: no LLM model configured
    assert "plugin_errors" not in out
    found = ws.find_submission("shop_architecture", "s01")
    assert found is not None
    sid = found.id
    panel = out[sid]
    assert panel["diagram_kind"] == "component" and "clue" not in panel
    metrics = panel["metrics"]
    assert metrics["node-f1"] == pytest.approx(7 / 9)  # 7 of 9 reference nodes, 9 predicted
    assert metrics["syntactic-validity"] == 1.0 and "ged-accuracy" in metrics
    assert any("LLM-judge" in note and "no LLM endpoint" in note for note in panel["notes"])
    rows = _db(ws).execute("SELECT metric, metric_version, explanation FROM scores "
                           "WHERE submission_id = ?", (sid,)).fetchall()
    stored = {r["metric"]: r for r in rows}
    assert not any(m.startswith("clue") for m in stored)
    assert {"node-f1", "edge-f1", "layer-accuracy", "ged-accuracy", "orphan-ratio",
            "god-ratio", "syntactic-validity"} <= set(stored)
    assert stored["node-f1"]["metric_version"] == "1"
    explained = [json.loads(r["explanation"]) for r in rows if r["explanation"] != "{}"]
    assert any(e.get("plugin") == "r2a-structure" and e["explanation"]["node_alignment"]
               for e in explained)
    view = load_submission(ws, sid, "grader", "class_diagram")  # read back for the panel
    assert view.scores["metrics"]["node-f1"] == pytest.approx(7 / 9)
    assert "r2a-structure" in view.scores["plugin_explanations"]
    assert "baselines" not in view.scores


def _fake_llm(request: dict[str, Any]) -> str:
    """Decomposes a SysML model into its statement lines; supports a claim iff present."""
    import re

    prompt = user_text(request)
    model = prompt.split("```sysml\n", 1)[1].rsplit("\n```", 1)[0]
    facts = [line.strip().rstrip(";") for line in model.splitlines()
             if line.strip().endswith(";")]
    if prompt.startswith("Decompose"):
        return json.dumps({"claims": facts})
    claims = re.findall(r"^(\d+)\. (.+)$", prompt.split("Claims:", 1)[1].split("SysML v2")[0],
                        flags=re.MULTILINE)
    return json.dumps({"verdicts": [{"id": int(n), "supported": c in facts,
                                     "evidence": "same line" if c in facts else "absent"}
                                    for n, c in claims]})


def _sysml_workspace(ws: Any, tmp_path: Path) -> None:
    root = _task_folder(tmp_path / "sysml", "car", ("reference.sysml", SYSML_REF),
                        {"s1.sysml": SYSML_CAND})
    run_job(import_path(ws, root))


def test_sysmeval_in_gui_scoring_stores_claims_and_verdicts(ws, tmp_path) -> None:
    _sysml_workspace(ws, tmp_path)
    with OpenAIStub(_fake_llm) as stub:
        settings = updated(Settings(), llm={"base_url": stub.url, "model": "stub-llm"})
        out = _score(ws, settings=settings)
        assert len(stub.requests) == 4  # two decompositions, two checks
    (sid,) = [k for k in out if k != "plugin_errors"]
    assert "plugin_errors" not in out
    metrics = out[sid]["metrics"]
    # Candidate claims: Vehicle (supported), Wheel (not) → P = 1/2; reference: Vehicle,
    # Engine, mass → only Vehicle recovered → R = 1/3; F1 = 2PR/(P+R) = 0.4.
    assert metrics["sysm-precision"] == pytest.approx(0.5)
    assert metrics["sysm-recall"] == pytest.approx(1 / 3)
    assert metrics["sysm-f1"] == pytest.approx(0.4)
    assert set(metrics) == {"sysm-precision", "sysm-recall", "sysm-f1"}  # no BLEU on SysML
    claims = out[sid]["plugin_explanations"]["sysmeval"]["candidate_claims"]
    assert [(c["claim"], c["supported"]) for c in claims] == [
        ("part def Vehicle", True), ("part def Wheel", False)]
    row = _db(ws).execute("SELECT explanation FROM scores WHERE metric = 'sysm-precision'"
                          ).fetchone()
    stored = json.loads(row["explanation"])
    assert stored["plugin"] == "sysmeval" and stored["details"]["model"] == "stub-llm"
    assert stored["explanation"]["reference_claims"][2] == {
        "claim": "attribute mass : Real", "id": 3, "supported": False, "evidence": "absent"}


def test_sysml_without_an_endpoint_is_a_note_not_an_error(ws, tmp_path) -> None:
    _sysml_workspace(ws, tmp_path)
    out = _score(ws, settings=Settings())
    (sid,) = [k for k in out if k != "plugin_errors"]
    assert "plugin_errors" not in out and "error" not in out[sid]
    assert "metrics" not in out[sid]  # nothing could run, nothing is stored
    assert any("SysMEval" in n and "no LLM endpoint" in n for n in out[sid]["notes"])
    assert _db(ws).execute("SELECT count(*) FROM scores").fetchone()[0] == 0


# --- CLI --------------------------------------------------------------------------------


def test_cli_score_kind_component(capsys, tmp_path, monkeypatch) -> None:
    from cluestudio.cli import main

    monkeypatch.setenv("CLUESTUDIO_CONFIG_DIR", str(tmp_path / "config"))
    ref, cand = TASK / "reference.puml", TASK / "submissions" / "s01.puml"
    assert main(["score", str(ref), str(cand), "--kind", "component",
                 "--embedder", "exact"]) == 0
    out, err = capsys.readouterr()
    assert "kind: component" in out and "r2a-structure" in out
    assert "node-f1              0.7778" in out and "clue" not in out
    assert "LLM-judge" in err and "no LLM endpoint" in err
    assert main(["score", str(ref), str(cand), "--kind", "component", "--embedder", "exact",
                 "--json", "--explain"]) == 0
    data = json.loads(capsys.readouterr().out)
    runs = {m["metric"]: m for m in data["metrics"]}
    assert runs["r2a-structure"]["values"]["node-f1"] == pytest.approx(7 / 9)
    assert runs["r2a-structure"]["version"] == "1"
    assert runs["r2a-structure"]["explanation"]["node_alignment"]
    missing = tmp_path / "missing.puml"
    assert main(["score", str(ref), str(missing), "--kind", "component"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and err.startswith(f"error: {missing}: cannot read")

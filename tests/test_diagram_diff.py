"""Element-level diff of a candidate against the reference (issue 17, "go beyond the peers"
and item 12): every candidate class, member and relation matched / partly matched / extra,
every missing reference element listed, each with its line; from the explanation stored with
the current CLUE score when it belongs to the text shown, else computed."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cluestudio.app.diagram_diff import (
    DiffUnavailable,
    diff_against,
    submission_diff,
    submission_diff_job,
)
from cluestudio.app.scoring import ScoringOptions, score_workspace
from cluestudio.app.submissions import load_submission
from cluestudio.core.diff import DiffThresholds, Status, diff_from_explanation, diff_texts
from cluestudio.core.errors import PlantUMLSyntaxError
from cluestudio.core.jobs import CancelToken, run_job
from cluestudio.core.workspace import SaveRevision, Task, open_workspace, ops

REFERENCE = """@startuml
class Member {
  - name : String
  + borrow(copy : Copy) : Loan
}
class Loan {
  - due : Date
}
class Copy {
  - barcode : String
}
class Fine
Member "1" -- "0..5" Loan : borrows
Loan "0..*" --> "1" Copy
Loan "1" -- "0..1" Fine
@enduml
"""
# Issue 12's case and more: an extra attribute (email), a changed type (due), a renamed
# class (Copy -> Item), a missing class (Fine), a changed multiplicity, an extra relation.
CANDIDATE = """@startuml
class Member {
  - name : String
  - email : String
  + borrow(copy : Copy) : Loan
}
class Loan {
  - due : String
}
class Item {
  - barcode : String
}
Member "1" -- "*" Loan : borrows
Loan "0..*" --> "1" Item
Item --> Member
@enduml
"""


def _by(diff: Any, kind: str) -> dict[str, Any]:
    return {e.text: e for e in diff.elements if e.kind == kind}


def test_every_candidate_element_is_classified_with_its_line() -> None:
    diff = diff_texts(REFERENCE, CANDIDATE)
    classes = _by(diff, "class")
    assert {n: e.status for n, e in classes.items()} == {
        "Member": Status.PARTLY, "Loan": Status.PARTLY, "Item": Status.EXTRA}
    assert classes["Member"].why == "1 attribute extra" and classes["Member"].line == 2
    assert classes["Member"].counterpart_line == 2
    assert "1 attribute changed" in classes["Loan"].why
    attributes = _by(diff, "attribute")
    assert attributes["email: String"].status is Status.EXTRA
    assert (attributes["email: String"].line, attributes["email: String"].owner) == (4, "Member")
    assert attributes["name: String"].status is Status.MATCHED
    assert attributes["due: String"].status is Status.PARTLY
    assert attributes["due: String"].why == "type differs from 'due: Date'"
    assert "barcode: String" not in attributes  # members of an extra class are not listed
    relations = _by(diff, "relation")
    borrows = relations['Member "1" -- "*" Loan : borrows']
    assert (borrows.status, borrows.line) == (Status.PARTLY, 13)
    assert borrows.why.startswith("multiplicities differ")
    assert relations["Item -- Member"].status is Status.EXTRA  # CLUE's text: `--` for AS
    to_item = relations['Loan "0..*" -- "1" Item']  # the same link, to another class
    assert to_item.status is Status.PARTLY and to_item.why.startswith("one end differs")
    missing = {(e.kind, e.text): e for e in diff.missing}
    assert {k for k in missing if k[0] == "class"} == {("class", "Copy"), ("class", "Fine")}
    assert missing[("class", "Fine")].line == 12  # the reference's line
    assert ("relation", 'Loan "1" -- "0..1" Fine') in missing
    counts = diff.counts()
    assert counts["class"] == {"matched": 0, "partly": 2, "extra": 1, "missing": 2}
    assert [e.line for e in diff.elements] == sorted(e.line for e in diff.elements)
    assert diff.origin == "computed" and diff.configuration.startswith("exact")
    json.dumps(diff.to_dict())


def test_a_diagram_against_itself_is_all_matched() -> None:
    diff = diff_texts(REFERENCE, REFERENCE)
    assert {e.status for e in diff.elements} == {Status.MATCHED}
    assert diff.missing == ()
    assert diff.status_of_class("Fine") is Status.MATCHED


def _match(ref: str, cand: str, similarity: float, **parts: Any) -> dict[str, Any]:
    return {"reference": {"text": ref, "line": 1}, "candidate": {"text": cand, "line": 2},
            "similarity": similarity, **parts}


def test_thresholds_decide_between_partly_matched_and_extra() -> None:
    explanation = {
        "classes": {"matches": [
            _match("Customer", "Client", 0.84, name_similarity=0.82),  # a synonym
            _match("Member", "Banana", 0.62, name_similarity=0.55),  # unrelated
        ], "unmatched_reference": [], "unmatched_candidate": []},
        "relations": {"matches": [
            _match("A -- B", "A o-- B", 0.85, type_similarity=0.85,
                   multiplicity_similarity=1.0),
            _match("A -- B", "C -- D", 0.4),
        ]},
    }
    diff = diff_from_explanation(explanation)
    classes = _by(diff, "class")
    assert classes["Client"].status is Status.PARTLY
    assert classes["Client"].why == "named 'Customer' in the reference"
    assert classes["Banana"].status is Status.EXTRA
    assert [(e.kind, e.text) for e in diff.missing] == [("class", "Member"),
                                                        ("relation", "A -- B")]
    relations = _by(diff, "relation")
    assert relations["A o-- B"].status is Status.PARTLY
    assert relations["A o-- B"].why == "type differs (reference: A -- B)"
    strict = diff_from_explanation(explanation, DiffThresholds(name=0.9, partly=0.9))
    assert strict.status_of_class("Client") is Status.EXTRA
    assert _by(strict, "relation")["A o-- B"].status is Status.EXTRA


def test_relations_are_judged_by_the_classes_at_their_ends() -> None:
    reference = ("@startuml\nclass Order\nclass Item\ninterface Payable\nclass Customer\n"
                 "Order *-- Item\nOrder ..|> Payable\nCustomer -- Order\n@enduml")
    candidate = ("@startuml\nclass Order {\n  id : int\n}\nclass Item\ninterface Payable\n"
                 "class Customer\nOrder *-- Item\nOrder --|> Payable\nOrder -- Customer\n"
                 "@enduml")
    relations = _by(diff_texts(reference, candidate), "relation")
    # Right ends (Order only partly matched: an extra attribute) and type: matched.
    assert relations["Order *-- Item"].status is Status.MATCHED
    # Extends where the reference implements: CLUE rates it 0.96, but it is not the same.
    payable = relations["Order --|> Payable"]
    assert payable.status is Status.PARTLY and payable.why.startswith("type differs")
    reversed_ = relations["Order -- Customer"]
    assert reversed_.status is Status.PARTLY
    assert reversed_.why == "direction reversed (reference: Customer -- Order)"

@pytest.mark.parametrize("explanation", [
    {}, {"classes": None}, {"classes": [1, 2]}, {"classes": {"matches": [None, "x", {}]}},
    {"classes": {"matches": [{"reference": [], "candidate": 5, "similarity": "high"}]}},
    {"relations": {"unmatched_candidate": [{"text": "A -- B", "line": "7"}]}},
])
def test_a_malformed_explanation_gives_what_can_be_read(explanation: Any) -> None:
    diff = diff_from_explanation(explanation)
    assert all(e.line is None or isinstance(e.line, int) for e in diff.elements)
    json.dumps(diff.to_dict())


def test_diff_against_gives_the_annotation_too_and_bad_text_names_its_side() -> None:
    diff, annotation = diff_against(REFERENCE, CANDIDATE)
    assert annotation.text != CANDIDATE and annotation.legend_added
    assert {e.text for e in annotation.coloured} >= {"Member", "Loan", "Item"}
    assert diff.status_of_class("Item") is Status.EXTRA
    with pytest.raises(PlantUMLSyntaxError, match="candidate:2"):
        diff_texts(REFERENCE, "@startuml\nclass A {\n")
    with pytest.raises(PlantUMLSyntaxError, match="reference"):
        diff_texts("@startuml\nclass {\n@enduml", CANDIDATE)


# --- a submission of a workspace ----------------------------------------------------------------


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Any]:
    workspace = open_workspace(tmp_path / "course.sqlite")

    def seed(conn: sqlite3.Connection) -> dict[str, int]:
        ops.upsert_task(conn, Task("lib", "Library", "", REFERENCE))
        ops.upsert_task(conn, Task("arch", "Shop", "", "@startuml\ncomponent A\n@enduml\n",
                                   diagram_kind="component"))
        ops.upsert_task(conn, Task("noref", "No reference", "", ""))
        sid = ops.ensure_submission(conn, "lib", "s1", "student", None)[0]
        model_rev, _ = ops.add_revision(conn, sid, CANDIDATE, "converter", "model")
        ids = {"s1": sid, "model_rev": model_rev}
        ids["empty"] = ops.ensure_submission(conn, "lib", "s2", "student", None)[0]
        ids["arch"] = ops.ensure_submission(conn, "arch", "s1", "student", None)[0]
        ops.add_revision(conn, ids["arch"], "@startuml\ncomponent A\n@enduml\n", "i", "import")
        ids["noref"] = ops.ensure_submission(conn, "noref", "s1", "student", None)[0]
        ops.add_revision(conn, ids["noref"], CANDIDATE, "i", "import")
        return ids

    workspace.ids = workspace.write(seed)  # type: ignore[attr-defined]
    yield workspace
    workspace.close()


def test_the_stored_explanation_of_the_text_shown_is_used(ws) -> None:
    sid = ws.ids["s1"]
    computed = submission_diff(ws, sid)
    assert computed.diff.origin == "computed"
    run_job(score_workspace(ws, ScoringOptions(embedder="exact"), task_id="lib"))
    stored = submission_diff(ws, sid)
    assert stored.diff.origin == "stored" and "exact" in stored.diff.configuration
    assert stored.diff.elements == computed.diff.elements
    assert stored.diff.missing == computed.diff.missing
    # It is really read from the workspace: a stored explanation that says otherwise wins.
    head = ws.head_revision(sid)
    fake = {"classes": {"matches": [], "unmatched_reference": [],
                        "unmatched_candidate": [{"text": "Member", "line": 2}]},
            "relations": {}}
    ws.write(lambda c: ops.put_score(c, sid, ops.text_hash(head.puml), "clue", 0.1,
                                     embedder="fake", explanation=fake))
    assert [e.text for e in submission_diff(ws, sid).diff.elements] == ["Member"]
    assert submission_diff(ws, sid).diff.configuration == "fake"


def test_review_mode_diffs_any_revision_against_the_task_reference(ws) -> None:
    sid = ws.ids["s1"]
    run_job(score_workspace(ws, ScoringOptions(embedder="exact"), task_id="lib"))
    fixed = CANDIDATE.replace("  - email : String\n", "")
    revision = ws.execute(SaveRevision(sid, fixed, "ta")).result
    head = submission_diff(ws, sid)  # image B as the reviewer left it: not scored yet
    assert head.revision_id == revision and head.diff.origin == "computed"
    assert "email: String" not in _by(head.diff, "attribute")
    assert head.candidate_text == fixed and head.reference_text == REFERENCE
    model = submission_diff(ws, sid, revision_id=ws.ids["model_rev"])  # the converter's B
    assert model.diff.origin == "stored"
    assert _by(model.diff, "attribute")["email: String"].status is Status.EXTRA
    assert "<back:" in model.annotated.text


def test_no_diff_for_what_cannot_be_compared(ws) -> None:
    ids = ws.ids
    with pytest.raises(DiffUnavailable, match="is a component task"):
        submission_diff(ws, ids["arch"])
    with pytest.raises(DiffUnavailable, match="has no PlantUML reference"):
        submission_diff(ws, ids["noref"])
    with pytest.raises(DiffUnavailable, match="no PlantUML yet"):
        submission_diff(ws, ids["empty"])
    with pytest.raises(DiffUnavailable, match="has no revision 12345"):
        submission_diff(ws, ids["s1"], revision_id=12345)
    with pytest.raises(DiffUnavailable, match="no submission 999"):
        submission_diff(ws, 999)
    broken = ws.execute(SaveRevision(ids["s1"], "@startuml\nclass A {\n@enduml\n", "ta")).result
    with pytest.raises(PlantUMLSyntaxError):
        submission_diff(ws, ids["s1"], revision_id=broken)


def test_the_metric_panel_gets_extra_elements_and_the_element_diff(ws) -> None:
    # Issue 12: an added `email` attribute is in the explanation; the panel must show it.
    sid = ws.ids["s1"]
    run_job(score_workspace(ws, ScoringOptions(embedder="exact"), task_id="lib"))
    scores = load_submission(ws, sid, "ta", "class-diagram").scores
    # CLUE assigns Item to a reference class (so it is not unmatched there); the element
    # diff says what it is: extra. Classes CLUE leaves unassigned are listed as before.
    assert scores["explanation"]["unmatched_candidate"] == []
    assert scores["explanation"]["unmatched_reference"] == ["Fine"]  # Copy went to Item
    element_diff = scores["element_diff"]
    assert element_diff["origin"] == "stored" and "exact" in element_diff["configuration"]
    extra = [(e["kind"], e["text"], e["line"]) for e in element_diff["elements"]
             if e["status"] == "extra"]
    assert ("attribute", "email: String", 4) in extra and ("class", "Item", 10) in extra
    assert element_diff["counts"]["class"]["missing"] == 2  # Copy and Fine
    json.dumps(scores)


def test_the_worker_computes_the_diff_on_a_read_only_view(ws) -> None:
    result = submission_diff_job(str(ws.path), ws.ids["s1"], cancel=CancelToken(), emit=None)
    assert result.diff == submission_diff(ws, ws.ids["s1"]).diff
    import pickle

    assert pickle.loads(pickle.dumps(result)).annotated.text == result.annotated.text


def test_cli_diff_prints_writes_and_renders(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    from cluestudio.cli import main

    reference, candidate = tmp_path / "reference.puml", tmp_path / "s1.puml"
    reference.write_text(REFERENCE, encoding="utf-8")
    candidate.write_text(CANDIDATE, encoding="utf-8")
    out = tmp_path / "coloured.puml"
    assert main(["diff", str(reference), str(candidate), "-o", str(out)]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert "extra    attribute s1.puml:4                Member.email: String" in printed
    assert any(line.startswith("missing  class     reference.puml:12") for line in printed)
    assert out.read_text(encoding="utf-8") == diff_against(REFERENCE, CANDIDATE)[1].text
    assert main(["diff", str(reference), str(candidate), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["counts"]["attribute"]["extra"] == 1 and data["not_coloured"] == []
    candidate.write_bytes(b"\xff\xfe not utf-8")
    assert main(["diff", str(reference), str(candidate)]) == 2
    assert "s1.puml" in capsys.readouterr().err


@pytest.mark.java
@pytest.mark.xdist_group("java")
def test_cli_diff_renders_the_coloured_png(tmp_path: Path) -> None:
    from cluestudio.cli import main

    reference, candidate = tmp_path / "reference.puml", tmp_path / "s1.puml"
    reference.write_text(REFERENCE, encoding="utf-8")
    candidate.write_text(CANDIDATE, encoding="utf-8")
    assert main(["diff", str(reference), str(candidate), "--png", str(tmp_path / "d.png")]) == 0
    assert (tmp_path / "d.png").read_bytes().startswith(b"\x89PNG")

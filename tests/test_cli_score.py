"""``cluestudio score``: one pair, a pairs list (CSV/JSON), weights and explanations."""

from __future__ import annotations

import csv
import json

import pytest

from cluestudio.cli import main

pytest.importorskip("cluestudio.core.plantuml.parser")

REF = """@startuml
class Customer {
  name : String
  pay(amount : int) : void
}
class Order {
  id : int
}
Customer "1" --> "*" Order
@enduml
"""
CAND = """@startuml
class Customer {
  name : String
}
class Order
class Extra
Customer "1" --> "many" Order
@enduml
"""


@pytest.fixture
def files(tmp_path):
    (tmp_path / "ref.puml").write_text(REF, encoding="utf-8")
    (tmp_path / "cand.puml").write_text(CAND, encoding="utf-8")
    return tmp_path


def test_score_one_pair_json_with_explanation(files, capsys) -> None:
    code = main(["score", str(files / "ref.puml"), str(files / "cand.puml"),
                 "--embedder", "exact", "--json", "--explain"])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data["scores"]) == {"clue", "clue-class", "clue-attribute", "clue-method",
                                   "clue-relation"}
    assert data["scores"]["clue-class"] < 1  # Order lost its attribute, Customer a method
    classes = data["explanation"]["classes"]
    assert {m["reference"]["text"] for m in classes["matches"]} == {"Customer", "Order"}
    assert classes["matches"][0]["reference"]["line"] is not None
    assert [e["text"] for e in classes["unmatched_candidate"]] == ["Extra"]


def test_score_human_readable(files, capsys) -> None:
    assert main(["score", str(files / "ref.puml"), str(files / "cand.puml"),
                 "--embedder", "exact", "--explain"]) == 0
    out = capsys.readouterr().out
    assert "clue-relation" in out and "Customer <-> Customer" in out
    assert "missing method: pay(amount: int): void" in out


def test_batch_csv_and_json(files, capsys) -> None:
    (files / "pairs.csv").write_text("reference,candidate\nref.puml,cand.puml\n"
                                     "ref.puml,ref.puml\n", encoding="utf-8")
    out_csv = files / "scores.csv"
    assert main(["score", "--pairs", str(files / "pairs.csv"), "--embedder", "exact",
                 "-o", str(out_csv)]) == 0
    rows = list(csv.DictReader(out_csv.open(encoding="utf-8")))
    assert len(rows) == 2 and float(rows[1]["clue"]) == pytest.approx(1.0)
    assert "2/2" in capsys.readouterr().err  # progress on stderr
    (files / "pairs.json").write_text(json.dumps([{"reference": "ref.puml",
                                                   "candidate": "cand.puml", "id": "s1"}]))
    assert main(["score", "--pairs", str(files / "pairs.json"), "--embedder", "exact",
                 "--json", "--normalization", "paper-eq3"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data[0]["id"] == "s1" and data[0]["settings"]["normalization"] == "paper-eq3"


def test_bad_weights_file_is_a_clear_error(files, capsys) -> None:
    from cluestudio.core.clue.weights import default_weights_path

    text = default_weights_path().read_text(encoding="utf-8").replace("w_r = 0.190", "w_r = 0.3")
    (files / "w.toml").write_text(text, encoding="utf-8")
    code = main(["score", str(files / "ref.puml"), str(files / "cand.puml"),
                 "--embedder", "exact", "--weights", str(files / "w.toml")])
    assert code == 2
    assert "group [clue]" in capsys.readouterr().err

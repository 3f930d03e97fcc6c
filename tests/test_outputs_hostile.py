"""What we write must not attack the next program, nor be turned against the user (issue 25
items 3, 7, 8): CSV cells cannot be formulas, every output goes through one safe writer that
replaces a symlink instead of writing through it, and a pairs list is read by what it is."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from cluestudio.cli import main
from cluestudio.core.safe_output import atomic_open, neutralise
from cluestudio.core.workspace import SaveRating, SetReviewVerdict, open_workspace
from test_import import do_import, make_course

ROOT = Path(__file__).resolve().parents[1]
SCORES = {"classes": 4, "attributes": 3, "methods": 2, "relations": 4, "multiplicities": 1,
          "overall": 3.5}
FORMULAS = ["=HYPERLINK(\"http://evil\",\"x\")", "=cmd|' /C calc'!A0", "+1+cmd", "-2+3",
            "@SUM(A1)", "\t=1", "\r=1"]
PUML = "@startuml\nclass Customer {\n  name: String\n}\n@enduml\n"


@pytest.mark.parametrize(("cell", "written"), [
    *((formula, "'" + formula) for formula in FORMULAS),
    ("-3", "-3"), ("-0.5", "-0.5"), ("+2", "+2"), ("-1e-3", "-1e-3"), (-3, -3), (2.5, 2.5),
    ("plain", "plain"), ("a=b", "a=b"), ("", ""), (None, None),
])
def test_a_cell_starting_like_a_formula_is_neutralised_and_numbers_stay_numbers(
        cell: object, written: object) -> None:
    assert neutralise(cell) == written


def formula_workspace(tmp_path: Path) -> Path:
    """A course whose task id, submission id, grader, reviewer and comment are formulas."""
    course = make_course(tmp_path / "course")
    (course / "tasks" / "library").rename(course / "tasks" / "=1+1")
    for old in (course / "tasks" / "=1+1" / "submissions").glob("alice.*"):
        old.rename(old.with_name("@alice" + old.suffix))
    path = tmp_path / "w.sqlite"
    with open_workspace(path) as ws:
        do_import(ws, course)
        sub = ws.find_submission("=1+1", "@alice")
        assert sub is not None
        ws.execute(SaveRating(sub.id, "=cmd|' /C calc'!A0", SCORES,
                              comment="=HYPERLINK(\"http://evil\",\"x\")"))
        ws.execute(SetReviewVerdict(sub.id, "+reviewer", "needs_fix", ["class_missing"],
                                    comment="-2+3"))
    return path


def test_every_exported_csv_cell_is_neutralised(tmp_path: Path) -> None:
    path = formula_workspace(tmp_path)
    assert main(["export", str(path), str(tmp_path / "out")]) == 0
    cells = []
    for table in ("ratings", "reviews", "scores"):
        with open(tmp_path / "out" / f"{table}.csv", newline="", encoding="utf-8") as handle:
            cells += [cell for row in csv.reader(handle) for cell in row]
    assert "'=1+1" in cells and "'@alice" in cells and "'=cmd|' /C calc'!A0" in cells
    assert "'+reviewer" in cells and "'-2+3" in cells
    assert not [c for c in cells if c[:1] in ("=", "+", "@", "\t", "\r")
                or (c.startswith("-") and not c.lstrip("-").replace(".", "").isdigit())]
    ratings = json.loads((tmp_path / "out" / "ratings.json").read_text(encoding="utf-8"))
    assert ratings[0]["task_id"] == "=1+1"  # JSON keeps the text as it is


@pytest.fixture
def pair_files(tmp_path: Path) -> Path:
    (tmp_path / "ref.puml").write_text(PUML, encoding="utf-8")
    (tmp_path / "cand.puml").write_text(PUML.replace("name", "title"), encoding="utf-8")
    return tmp_path


def test_score_pairs_csv_neutralises_ids(pair_files: Path) -> None:
    (pair_files / "pairs.csv").write_text("id,reference,candidate\n\"=1+1\",ref.puml,cand.puml\n",
                                          encoding="utf-8")
    out = pair_files / "scores.csv"
    assert main(["score", "--pairs", str(pair_files / "pairs.csv"), "--embedder", "exact",
                 "-o", str(out)]) == 0
    rows = list(csv.DictReader(out.open(encoding="utf-8", newline="")))
    assert rows[0]["id"] == "'=1+1" and 0 <= float(rows[0]["clue"]) <= 1


def test_the_audit_summary_csv_neutralises_model_names() -> None:
    from cluestudio.core.vlm.report import Cell, to_csv

    text = to_csv([Cell("=evil()", "prior-conform", "all", 1.0, n=1, em=0.5, rel_acc=-0.25,
                        delta=None, pairs=1)])
    row = next(csv.DictReader(text.splitlines()))
    assert row["model"] == "'=evil()" and row["rel_acc"] == "-25.0"  # a number, not a formula


@pytest.mark.parametrize("name", ["pairs.jsonl", "pairs.ndjson", "pairs.txt"])
def test_score_pairs_reads_jsonl_by_extension_or_content(pair_files: Path, name: str,
                                                         capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    lines = [{"id": "p1", "reference": "ref.puml", "candidate": "cand.puml"},
             {"id": "p2", "reference": "ref.puml", "candidate": "ref.puml"}]
    (pair_files / name).write_text("\n".join(json.dumps(x) for x in lines) + "\n",
                                   encoding="utf-8")
    assert main(["score", "--pairs", str(pair_files / name), "--embedder", "exact",
                 "--json"]) == 0
    scored = json.loads(capsys.readouterr().out)
    assert [s["id"] for s in scored] == ["p1", "p2"]
    assert scored[1]["scores"]["clue"] == pytest.approx(1.0)


@pytest.mark.parametrize(("name", "content"), [
    ("pairs.jsonl", ""), ("pairs.csv", "reference,candidate\n"), ("pairs.json", "[]"),
    ("pairs.txt", "\n\n")])
def test_zero_pairs_is_an_error_not_success(pair_files: Path, name: str, content: str,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    (pair_files / name).write_text(content, encoding="utf-8")
    assert main(["score", "--pairs", str(pair_files / name), "--embedder", "exact",
                 "-o", str(pair_files / "out.csv")]) == 2
    err = capsys.readouterr().err
    assert f"{pair_files / name}: no pairs in the list (0 rows)" in err
    assert not (pair_files / "out.csv").exists()


def test_a_bad_jsonl_line_is_named(pair_files: Path, capsys: pytest.CaptureFixture[str]
                                   ) -> None:
    (pair_files / "pairs.jsonl").write_text('{"reference": "ref.puml", "candidate": '
                                            '"cand.puml"}\n{oops\n', encoding="utf-8")
    assert main(["score", "--pairs", str(pair_files / "pairs.jsonl"), "--embedder",
                 "exact"]) == 2
    assert f"{pair_files / 'pairs.jsonl'}:2: not valid JSON" in capsys.readouterr().err


def _symlinked_output(folder: Path, name: str) -> tuple[Path, Path]:
    victim = folder / "victim.txt"
    victim.write_text("precious\n", encoding="utf-8")
    link = folder / name
    link.symlink_to(victim)
    return link, victim


def _import_code_source(folder: Path) -> Path:
    source = folder / "shop.py"
    source.write_text("class Customer:\n    def __init__(self):\n        self.name = ''\n",
                      encoding="utf-8")
    return source


@pytest.mark.parametrize("command", ["diff", "score", "import-code", "export", "pack"])
def test_outputs_replace_a_symlink_instead_of_writing_through_it(
        pair_files: Path, tmp_path: Path, command: str) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    name = {"export": "ratings.csv", "pack": "p.zip"}.get(command, "result.txt")
    link, victim = _symlinked_output(folder, name)
    if command in ("export", "pack"):
        workspace = tmp_path / "w.sqlite"
        with open_workspace(workspace) as ws:
            do_import(ws, make_course(tmp_path / "course"))
    (pair_files / "pairs.csv").write_text("reference,candidate\nref.puml,cand.puml\n",
                                          encoding="utf-8")
    argv = {
        "diff": ["diff", str(pair_files / "ref.puml"), str(pair_files / "cand.puml"),
                 "-o", str(link)],
        "score": ["score", "--pairs", str(pair_files / "pairs.csv"), "--embedder", "exact",
                  "-o", str(link)],
        "import-code": ["import-code", str(_import_code_source(tmp_path)), "-o", str(link)],
        "export": ["export", str(tmp_path / "w.sqlite"), str(folder)],
        "pack": ["pack", "export", str(tmp_path / "w.sqlite"), str(link)],
    }[command]
    assert main(argv) == 0
    assert victim.read_text(encoding="utf-8") == "precious\n"
    assert not link.is_symlink() and link.stat().st_size > 0
    assert sorted(p.name for p in folder.iterdir() if p.name.startswith(".")) == []


def test_a_failed_write_leaves_the_old_file_and_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "out.csv"
    target.write_text("old\n", encoding="utf-8")
    with pytest.raises(RuntimeError), atomic_open(target) as handle:
        handle.write("half")
        raise RuntimeError("stopped")
    assert target.read_text(encoding="utf-8") == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.csv"]


def test_importing_an_empty_jsonl_is_an_error_not_nothing_to_do(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "export.jsonl"
    empty.write_text("\n\n", encoding="utf-8")
    assert main(["import", str(tmp_path / "w.sqlite"), str(empty)]) == 2
    assert f"{empty}: error: no records (the file is empty)" in capsys.readouterr().err


def test_a_stream_output_is_written_into_not_replaced(tmp_path: Path) -> None:
    import os
    import stat

    with atomic_open(Path(os.devnull)) as handle:  # -o /dev/null
        handle.write("discarded")
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    # Nobody reads: an error at once, not a hang.
    with pytest.raises(OSError, match=str(fifo)), atomic_open(fifo) as handle:
        handle.write("x")
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader, as a shell's pipe has
    try:
        with atomic_open(fifo) as handle:
            handle.write("through the pipe")
        assert os.read(reader, 100) == b"through the pipe"
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_every_gradebook_format_neutralises_names_and_comments(tmp_path: Path) -> None:
    from cluestudio.core.roster import read_roster
    from cluestudio.core.workspace import Report
    from cluestudio.core.workspace.students import replace_roster

    course = make_course(tmp_path / "course")
    path = tmp_path / "w.sqlite"
    roster_csv = tmp_path / "roster.csv"
    roster_csv.write_text("student_id,name,email,section\n"
                          "alice,\"=HYPERLINK(\"\"http://evil\"\",\"\"x\"\")\",a@uni.example,"
                          "@A\n", encoding="utf-8")
    with open_workspace(path) as ws:
        do_import(ws, course)
        replace_roster(ws, read_roster(roster_csv, Report()))
        alice = ws.find_submission("library", "alice")
        assert alice is not None
        ws.execute(SaveRating(alice.id, "ann", SCORES, comment="=cmd|' /C calc'!A0"))
    for fmt in ("moodle", "canvas", "blackboard", "csv"):
        out = tmp_path / f"{fmt}.csv"
        assert main(["grades", str(path), "--format", fmt, "-o", str(out)]) == 0
        cells = [c for row in csv.reader(out.open(encoding="utf-8", newline=""))
                 for c in row]
        assert not [c for c in cells if c[:1] in ("=", "+", "@", "\t", "\r")], (fmt, cells)
        assert any(c.startswith("'=") or c.startswith("'@") for c in cells), fmt

"""The teaching loop, as a course team runs it (issue 27): the sample course with a roster,
two graders with 20% overlap, merge, agreement, adjudication, the Moodle and Canvas
gradebooks and the feedback folder — every file checked for what an LMS or a student gets."""

from __future__ import annotations

import csv
import json
import re
import zipfile
from pathlib import Path

from cluestudio.cli import main
from cluestudio.core.workspace import SaveRating, open_workspace, sample_course_path
from cluestudio.core.workspace.feedback import AddItemComment, comment_bank

STUDENTS = [f"s{n:03d}" for n in range(1, 25)]  # s023 and s024 handed nothing in


def _roster(path: Path) -> Path:
    lines = ["student_id,first_name,last_name,email,section,participant_id"]
    lines += [f"{sid},Student,Nr{sid[1:]},{sid}@uni.example,{'AB'[n % 2]},{9000 + n}"
              for n, sid in enumerate(STUDENTS)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _oracle(course: Path) -> dict[tuple[str, str], dict[str, float]]:
    with open(course / "ratings.csv", newline="", encoding="utf-8") as handle:
        return {(r["task_id"], r["source_id"]): {k: float(r[k]) for k in (
            "classes", "attributes", "methods", "relations", "multiplicities", "overall")}
            for r in csv.DictReader(handle)}


def _json(capsys, argv: list[str]) -> object:
    capsys.readouterr()
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _grade(tmp: Path, grader: str, pack: Path, oracle: dict, harsh: bool) -> Path:
    """A grader's evening: open the pack, rate every submission, comment, send back."""
    mine = tmp / f"{grader}.sqlite"
    assert main(["pack", "merge", str(mine), str(pack)]) == 0
    with open_workspace(mine) as ws:
        bank = {b.item_id: b.uid for b in comment_bank(ws)}
        for number, sub in enumerate(ws.list_submissions()):
            scores = dict(oracle[(sub.task_id, sub.source_id)])
            if harsh and number % 2 == 0:  # bob reads "classes" much more strictly
                scores["classes"] = 0.0
            ws.execute(SaveRating(sub.id, grader, scores, comment=f"Checked by {grader}."))
            if scores["classes"] < 4:
                ws.execute(AddItemComment(sub.id, grader, "class-diagram", "classes",
                                          bank_uid=bank["classes"]))
    done = tmp / f"{grader}-done.zip"
    assert main(["pack", "export", str(mine), str(done), "--grader", grader]) == 0
    return done


def test_two_graders_twenty_percent_overlap_to_gradebooks_and_feedback(
        tmp_path: Path, capsys) -> None:
    course = sample_course_path()
    lead = str(tmp_path / "course.sqlite")
    assert main(["import", lead, str(course)]) == 0
    assert main(["roster", lead, str(_roster(tmp_path / "roster.csv"))]) == 0
    assert main(["feedback", lead, "--show-reference", "on"]) == 0
    assert main(["comments", "bank", lead, "--add", "classes",
                 "A class the requirement names is missing", "--points", "-2"]) == 0

    split = _json(capsys, ["team", "split", lead, str(tmp_path / "packs"),
                           "--graders", "ann,bob", "--overlap", "0.2", "--seed", "7"])
    assert isinstance(split, dict) and split["overlap"] == round(0.2 * 66)
    oracle = _oracle(course)
    done = [_grade(tmp_path, "ann", Path(split["packs"]["ann"]), oracle, harsh=False),
            _grade(tmp_path, "bob", Path(split["packs"]["bob"]), oracle, harsh=True)]

    merged = _json(capsys, ["team", "merge", lead, *map(str, done)])
    assert isinstance(merged, dict)
    assert merged["merge"]["counts"]["ratings_added"] == 66 + split["overlap"]
    agreement = merged["agreement"]
    assert agreement["graders"] == ["ann", "bob"] and agreement["items"] == split["overlap"]
    queue = _json(capsys, ["team", "queue", lead])
    assert isinstance(queue, list) and queue == sorted(queue, key=lambda e: -e["spread"])
    assert 0 < len(queue) == merged["adjudication_queue"] <= split["overlap"]
    for entry in queue:  # both ratings side by side, then the lead decides
        assert {r["grader"] for r in entry["ratings"]} == {"ann", "bob"}
        assert main(["team", "adjudicate", lead, entry["task_id"], entry["source_id"],
                     "--lead", "lee", "--take", "ann"]) == 0
    assert _json(capsys, ["team", "queue", lead]) == []

    # Moodle: the columns its grade import maps, every roster student exactly once
    moodle = tmp_path / "moodle.csv"
    report = _json(capsys, ["grades", lead, "--format", "moodle", "-o", str(moodle)])
    with open(moodle, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["ID number"] for r in rows] == STUDENTS
    columns = list(rows[0])
    assert columns[:4] == ["First name", "Last name", "ID number", "Email address"]
    graded = [c for c in columns if c.startswith("Assignment: ") and c.endswith("(Real)")]
    assert len(graded) == 3
    for row in rows:
        for column in graded:
            value = row[column]
            assert value == "" or 0 <= float(value) <= 100
    assert all(rows[i][c] for i in range(22) for c in graded)  # s001..s022: all graded
    assert not any(rows[i][c] for i in (22, 23) for c in graded)  # nothing handed in
    assert isinstance(report, dict) and len(report["missing"]) == 2 * 3
    assert {m["why"] for m in report["missing"]} == {"no submission"}
    assert report["unmatched"] == []

    # Canvas: Student, ID, SIS User ID, SIS Login ID, Section, Points Possible row
    canvas = tmp_path / "canvas.csv"
    assert main(["grades", lead, "--format", "canvas", "-o", str(canvas)]) == 0
    with open(canvas, newline="", encoding="utf-8") as handle:
        table = list(csv.reader(handle))
    assert table[0][:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    assert table[1][0].strip() == "Points Possible" and set(table[1][5:]) == {"100"}
    assert [r[2] for r in table[2:]] == STUDENTS and len(table[0]) == 8
    assert all(r[3].endswith("@uni.example") for r in table[2:])

    # the feedback folder: one page per student who handed something in
    out = tmp_path / "feedback"
    result = _json(capsys, ["feedback", lead, str(out), "--course", "Software Design"])
    assert isinstance(result, dict)
    assert sorted(Path(p).name for p in result["pages"]) == [f"{s}.html" for s in STUDENTS[:22]]
    assert "s023: no graded submission, no page" in result["skipped"]
    page = (out / "s003.html").read_text(encoding="utf-8")
    assert page.count('<section class="task"') == 3
    outside = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "", page)
    assert "://" not in outside and "url(" not in outside and "<script" not in outside
    assert page.count('alt="Element diff against the reference"') == 3
    assert page.count('alt="Your submitted diagram"') == 3
    assert "Checked by" in page
    for path in result["pages"]:  # a bank comment both graders used is said once per task
        said = Path(path).read_text(encoding="utf-8").count(
            "A class the requirement names is missing")
        assert said <= 3
    for task in ("hospital_appointments", "library_loans", "online_shop"):
        with zipfile.ZipFile(out / "moodle" / f"{task}.zip") as archive:
            names = archive.namelist()
        assert len(names) == 22
        # Moodle's upload splits the name at "_": full name, participant id, plugin, file
        parts = [n.split("_", 4) for n in names]
        assert all(p[1].isdigit() and p[2:4] == ["assignsubmission", "file"] for p in parts)

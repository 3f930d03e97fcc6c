"""Screenshots of a student's feedback page at a phone and a desktop width (issue 27).

    .venv/bin/python docs/screenshots/feedback_screenshots.py   # needs Chromium on PATH

Builds the teaching loop on a throw-away copy of the sample course in a temp dir: a small
roster, one grader's ratings (from the sample's synthetic oracle scores) with a bank comment
and an accepted element-diff suggestion, the course's show-reference switch on; writes the
feedback folder with ``cluestudio feedback`` and has headless Chromium photograph one page:
``feedback-phone.png`` (390 px wide) and ``feedback-desktop.png`` (1366 px).
"""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    engine = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")
                   if shutil.which(n)), None)
    if engine is None:
        print("no Chromium on PATH: install it (apt install chromium) to take these shots")
        return 1
    with tempfile.TemporaryDirectory(prefix="cluestudio-fb-") as tmp:
        root = Path(tmp)
        for name in ("DATA", "CONFIG", "CACHE", "LOG"):
            os.environ[f"CLUESTUDIO_{name}_DIR"] = str(root / name.lower())
        page = _build(root)
        for name, size in (("feedback-phone.png", "390,2400"),
                           ("feedback-desktop.png", "1366,2900")):
            subprocess.run([engine, "--headless", "--no-sandbox", "--disable-gpu",
                            "--hide-scrollbars", f"--user-data-dir={root / 'profile'}",
                            f"--window-size={size}", f"--screenshot={HERE / name}",
                            page.as_uri()], check=True, capture_output=True, timeout=120)
            print(HERE / name)
    return 0


def _build(root: Path) -> Path:
    from cluestudio.app.feedback_suggestions import accept, suggest
    from cluestudio.cli import main as cli
    from cluestudio.core.workspace import SaveRating, open_workspace, sample_course_path
    from cluestudio.core.workspace.feedback import AddItemComment, SaveBankComment

    course = sample_course_path()
    ws_path = root / "course.sqlite"
    roster = root / "roster.csv"
    roster.write_text("student_id,name,email,participant_id\n"
                      "s004,Maria Jensen,maria.jensen@uni.example,9004\n", encoding="utf-8")
    assert cli(["import", str(ws_path), str(course)]) == 0
    assert cli(["roster", str(ws_path), str(roster)]) == 0
    assert cli(["feedback", str(ws_path), "--show-reference", "on"]) == 0
    with open(course / "ratings.csv", newline="", encoding="utf-8") as handle:
        oracle = {(r["task_id"], r["source_id"]): r for r in csv.DictReader(handle)}
    with open_workspace(ws_path) as ws:
        bank = ws.execute(SaveBankComment("class-diagram", "relations",
                                          "Check the kind of each association (aggregation "
                                          "or composition?)", -2)).result
        for sub in ws.list_submissions():
            if sub.source_id != "s004":
                continue
            row = oracle[(sub.task_id, sub.source_id)]
            scores = {k: float(row[k]) for k in ("classes", "attributes", "methods",
                                                  "relations", "multiplicities", "overall")}
            ws.execute(SaveRating(sub.id, "ann", scores, comment="A clear diagram overall; "
                                  "look again at the relations marked below."))
            ws.execute(AddItemComment(sub.id, "ann", "class-diagram", "relations",
                                      bank_uid=bank))
            for suggestion in suggest(ws, sub.id, "ann")[:2]:
                accept(ws, sub.id, "ann", suggestion)
    out = root / "feedback"
    assert cli(["feedback", str(ws_path), str(out), "--course", "Software Design"]) == 0
    return out / "s004.html"


if __name__ == "__main__":
    sys.exit(main())

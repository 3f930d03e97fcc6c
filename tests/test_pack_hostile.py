"""Hostile and damaged packs (issue 14): every one is refused with a one-line error naming the
pack, memory stays bounded whatever the zip's headers claim, and nothing is written."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

from cluestudio.cli import main
from cluestudio.core.jobs import run_job
from cluestudio.core.workspace import import_path, open_workspace
from cluestudio.core.workspace.pack import export_pack, merge_packs

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def good_pack(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("pack")
    with open_workspace(folder / "source.sqlite") as ws:
        run_job(import_path(ws, ROOT / "annotations" / "sample"))
        export_pack(ws, folder / "good.zip")
    return folder / "good.zip"


def members(pack: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(pack) as zf:
        return {name: zf.read(name) for name in zf.namelist()}


def write_pack(path: Path, content: dict[str, bytes] | list[tuple[str, bytes]]) -> Path:
    items = content.items() if isinstance(content, dict) else content
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in items:
            zf.writestr(name, data)
    return path


def with_data(good_pack: Path, tmp_path: Path, change: object) -> Path:
    content = members(good_pack)
    data = json.loads(content["data.json"])
    if callable(change):
        change(data)
    else:
        data = change
    content["data.json"] = json.dumps(data).encode()
    return write_pack(tmp_path / "changed.zip", content)


def refused(tmp_path: Path, pack: Path, capsys: pytest.CaptureFixture[str]) -> str:
    ws = tmp_path / "target.sqlite"
    before = ws.read_bytes() if ws.exists() else None
    assert main(["pack", "merge", str(ws), str(pack)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert str(pack) in err
    if before is not None:
        with open_workspace(ws, readonly=True) as opened:
            assert opened.tasks() == []  # nothing was merged
    return err


def test_the_good_pack_merges(good_pack: Path, tmp_path: Path) -> None:
    with open_workspace(tmp_path / "w.sqlite") as ws:
        report = merge_packs(ws, [good_pack])
        assert report.counts["ratings_added"] > 0 and len(ws.tasks()) == 3


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d["ratings"][0]["scores"].update(classes=999), "out of range"),
    (lambda d: d["ratings"][0]["scores"].update(nonsense=2), "unknown rubric item"),
    (lambda d: d["ratings"][0].update(total=float("nan")), "bad 'total'"),
    (lambda d: d["ratings"][0].update(total=float("inf")), "bad 'total'"),
    (lambda d: d["ratings"][0].update(total=12.5), "does not match the item scores"),
    (lambda d: d["ratings"][0]["scores"].update(classes="lots"), "not a number"),
    (lambda d: d["ratings"][0].update(seconds=-5), "bad 'seconds'"),
])
def test_ratings_are_checked_against_their_rubric(good_pack: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str],
                                                   change: object, message: str) -> None:
    err = refused(tmp_path, with_data(good_pack, tmp_path, change), capsys)
    assert "ratings[0]" in err and message in err


@pytest.mark.parametrize(("change", "message"), [
    ([1, 2, 3], "not an object"),
    (lambda d: d.update(tasks={"id": "x"}), "tasks is not a list"),
    (lambda d: d["submissions"][0].pop("task_id"), "missing 'task_id'"),
    (lambda d: d["submissions"].__setitem__(0, "text"), "not an object"),
    (lambda d: d["conversions"][0].update(source_id="nobody"), "unknown submission"),
    (lambda d: d["submissions"][0].update(image_hash="ab" * 32), "neither in the pack"),
    (lambda d: d["submissions"][0].update(origin="martian"), "bad 'origin'"),
    (lambda d: d["conversions"][0].update(puml="x" * (2 << 20)), "bad 'puml'"),
    (lambda d: d["tasks"][0].update(diagram_kind="uml-dance"), "unknown diagram_kind"),
])
def test_malformed_data_is_reported_not_a_traceback(good_pack: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str],
                                                    change: object, message: str) -> None:
    err = refused(tmp_path, with_data(good_pack, tmp_path, change), capsys)
    assert message in err


def test_a_duplicate_member_is_refused(good_pack: Path, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    content = members(good_pack)
    evil = json.loads(content["data.json"])
    evil["ratings"] = []
    items = [*content.items(), ("data.json", json.dumps(evil).encode())]
    with pytest.warns(UserWarning, match="Duplicate name"):
        pack = write_pack(tmp_path / "dup.zip", items)
    assert "appears twice" in refused(tmp_path, pack, capsys)


@pytest.mark.parametrize("damage", ["truncated", "garbage", "bad deflate", "nested"])
def test_damaged_zips_are_one_line_errors(good_pack: Path, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str],
                                          damage: str) -> None:
    raw = good_pack.read_bytes()
    pack = tmp_path / f"{damage}.zip"
    if damage == "truncated":
        pack.write_bytes(raw[: len(raw) // 2])
    elif damage == "garbage":
        pack.write_bytes(b"PK\x03\x04" + bytes(range(256)) * 40)
    elif damage == "bad deflate":
        content = members(good_pack)
        write_pack(pack, content)
        data = bytearray(pack.read_bytes())
        start = data.find(b"data.json") + len(b"data.json")  # first local header's data
        data[start + 10: start + 400] = bytes(390)
        pack.write_bytes(bytes(data))
    else:
        content = members(good_pack)
        content["data.json"] = b"[" * 100_000 + b"]" * 100_000
        write_pack(pack, content)
    refused(tmp_path, pack, capsys)


def set_uncompressed_size(pack: Path, member: str, size: int) -> None:
    """Make the zip's headers lie about ``member``'s size (local and central headers)."""
    data = bytearray(pack.read_bytes())
    name = member.encode()
    for signature, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        at = 0
        while (at := data.find(signature, at)) >= 0:
            name_at = at + (30 if signature == b"PK\x03\x04" else 46)
            if data[name_at:name_at + len(name)] == name:
                data[at + offset: at + offset + 4] = struct.pack("<I", size)
            at += 4
    pack.write_bytes(bytes(data))


# Peak RSS of this process image: VmHWM (ru_maxrss survives exec on Linux, so it would
# report the parent's peak).
BOMB_SCRIPT = """
import json, re, sys
from pathlib import Path
from cluestudio.core.workspace.pack import read_pack
from cluestudio.core.workspace.report import Report
report = Report()
read_pack(Path(sys.argv[1]), report)
status = Path("/proc/self/status").read_text()
peak_mb = int(re.search(r"VmHWM:\\s*(\\d+)", status).group(1)) / 1024
print(json.dumps({"peak_mb": peak_mb, "errors": [p.message for p in report.errors]}))
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads Linux's VmHWM")
@pytest.mark.parametrize("shape", ["lying header", "many big members", "many tiny objects"])
def test_zip_bombs_are_refused_in_bounded_memory(good_pack: Path, tmp_path: Path,
                                                 shape: str) -> None:
    content = members(good_pack)
    pack = tmp_path / "bomb.zip"
    if shape == "lying header":
        content["data.json"] = b"[" + b" " * (300 << 20) + b"]"
        write_pack(pack, content)
        set_uncompressed_size(pack, "data.json", 1000)
    elif shape == "many big members":  # each under every limit a header could be held to
        bomb = [(f"images/{i:064x}.png", b"\x89PNG\r\n\x1a\n" + bytes(49 << 20))
                for i in range(24)]
        write_pack(pack, [*content.items(), *bomb])
    else:  # 60 MB of "{}," is 20 million Python dicts (1.6 GB) from a 1.4 MB pack
        content["data.json"] = b"[" + b"{}," * (20 << 20) + b"{}]"
        write_pack(pack, content)
    assert pack.stat().st_size < 40 << 20
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(BOMB_SCRIPT), str(pack)],
                          capture_output=True, text=True, timeout=300, check=True)
    outcome = json.loads(done.stdout)
    assert outcome["errors"], "the bomb was accepted"
    baseline_mb = 120  # Python, Pillow and the pack's own small members
    assert outcome["peak_mb"] < baseline_mb + 200, outcome


def test_a_graders_pack_cannot_rate_under_another_name(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Issue 25 item 1: bob's pack with every rating rewritten to ann's name.
    source = tmp_path / "bob.sqlite"
    with open_workspace(source) as ws:
        run_job(import_path(ws, ROOT / "annotations" / "sample"))
        # The sample's ratings are the oracle's: make them bob's.
        ws.write(lambda conn: conn.execute("UPDATE ratings SET grader = 'bob'"))
        export_pack(ws, tmp_path / "bob.zip", grader="bob")
    content = members(tmp_path / "bob.zip")
    data = json.loads(content["data.json"])
    assert data["ratings"] and json.loads(content["manifest.json"])["grader"] == "bob"
    for rating in data["ratings"]:
        rating["grader"] = "ann"
    content["data.json"] = json.dumps(data).encode()
    forged = write_pack(tmp_path / "forged.zip", content)
    err = refused(tmp_path, forged, capsys)
    assert "ratings[0]: grader 'ann' is not the pack's grader 'bob'" in err
    with open_workspace(tmp_path / "target.sqlite", readonly=True) as ws:
        assert ws._reader().execute("SELECT count(*) FROM ratings").fetchone() == (0,)


def test_the_merge_report_names_whose_ratings_it_adds(
        good_pack: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "target.sqlite"
    assert main(["pack", "merge", str(target), str(good_pack)]) == 0
    out = capsys.readouterr().out
    assert "ratings added by oracle 66" in out
    assert main(["pack", "merge", "--json", str(target), str(good_pack)]) == 0
    assert "added_by" not in json.loads(capsys.readouterr().out)  # nothing new the second time


def _png(index: int) -> bytes:
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (4, 4), (index % 256, index // 256 % 256, 7)).save(buffer, "PNG")
    return buffer.getvalue()


def _pack_with_images(good_pack: Path, path: Path, count: int, referenced: bool) -> Path:
    import hashlib

    content = members(good_pack)
    data = json.loads(content["data.json"])
    task = data["tasks"][0]["id"]
    for index in range(count):
        png = _png(index)
        digest = hashlib.sha256(png).hexdigest()
        content[f"images/{digest}.png"] = png
        if referenced:
            data["submissions"].append({"task_id": task, "source_id": f"extra{index}",
                                        "origin": "student", "image_hash": digest,
                                        "meta": {}})
    content["data.json"] = json.dumps(data).encode()
    return write_pack(path, content)


def test_images_no_submission_refers_to_are_not_stored(good_pack: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    padded = _pack_with_images(good_pack, tmp_path / "padded.zip", 30, referenced=False)
    with open_workspace(tmp_path / "plain.sqlite") as ws:
        merge_packs(ws, [good_pack])
        plain = ws._reader().execute("SELECT count(*), sum(size) FROM blobs").fetchone()
    target = tmp_path / "target.sqlite"
    assert main(["pack", "merge", str(target), str(padded)]) == 0
    err = capsys.readouterr().err
    assert "30 image(s) that no submission or task of the pack refers to: not stored" in err
    with open_workspace(target, readonly=True) as ws:
        assert ws._reader().execute("SELECT count(*), sum(size) FROM blobs").fetchone() == plain


def test_merge_work_grows_linearly_with_the_image_count(good_pack: Path, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    # Work counted as zip directory entries read (every ZipInfo made): reopening the zip
    # for each image reads the whole directory each time, which grows with the square.
    made = [0]
    original = zipfile.ZipInfo.__init__

    def counting(self: zipfile.ZipInfo, *args: object, **kwargs: object) -> None:
        made[0] += 1
        original(self, *args, **kwargs)  # type: ignore[arg-type]

    work = {}
    for count in (40, 120, 200):
        pack = _pack_with_images(good_pack, tmp_path / f"p{count}.zip", count, referenced=True)
        monkeypatch.setattr(zipfile.ZipInfo, "__init__", counting)
        made[0] = 0
        with open_workspace(tmp_path / f"w{count}.sqlite") as ws:
            report = merge_packs(ws, [pack])
        monkeypatch.setattr(zipfile.ZipInfo, "__init__", original)
        assert report.counts["submissions_added"] >= count
        work[count] = made[0]
    # Each 80 more images cost the same more work (linear), not more each time (square).
    assert (work[200] - work[120]) / (work[120] - work[40]) < 1.2, work


def test_a_graders_pack_cannot_comment_under_another_name(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from cluestudio.core.workspace.feedback import AddItemComment

    source = tmp_path / "bob.sqlite"
    with open_workspace(source) as ws:
        run_job(import_path(ws, ROOT / "annotations" / "sample"))
        sub = ws.list_submissions()[0]
        rating = ws.ratings(sub.id)[0]
        item = next(iter(rating.scores))
        ws.write(lambda conn: conn.execute("UPDATE ratings SET grader = 'bob'"))
        ws.execute(AddItemComment(sub.id, "bob", rating.rubric_id, item, text="Good"))
        export_pack(ws, tmp_path / "bob.zip", grader="bob")
    content = members(tmp_path / "bob.zip")
    data = json.loads(content["data.json"])
    assert data["item_comments"]
    data["item_comments"][0]["grader"] = "ann"
    content["data.json"] = json.dumps(data).encode()
    err = refused(tmp_path, write_pack(tmp_path / "forged.zip", content), capsys)
    assert "item_comments[0]: grader 'ann' is not the pack's grader 'bob'" in err

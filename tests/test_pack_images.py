"""A pack's image members are read like any other image a TA gives (issue 29): the same
accepted types, and a hostile member is refused with the one-line message a course import
or `check` gives for such a file, naming it as PACK:member, with nothing of the workspace
lost."""

from __future__ import annotations

import hashlib
import io
import sqlite3
from pathlib import Path

import pytest
from PIL import Image

from cluestudio.cli import main
from cluestudio.core.jobs import run_job
from cluestudio.core.workspace import import_path, open_workspace, ops
from cluestudio.core.workspace.images import MAX_IMAGE_BYTES, ImageError, check_image
from cluestudio.core.workspace.pack import export_pack, merge_packs
from test_pack_hostile import good_pack, members, write_pack  # noqa: F401 (fixture)

ROOT = Path(__file__).resolve().parents[1]


def _image(fmt: str, size: tuple[int, int] = (40, 30)) -> bytes:
    out = io.BytesIO()
    Image.new("L", size, 200).save(out, format=fmt)
    return out.getvalue()


HOSTILE = {
    "empty member": (b"", ".png", "empty file, not an image"),
    "text named .png": (b"my diagram, drawn on paper\n", ".png", "a text file, not an image"),
    "SVG member": (b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"/>\n',
                   ".png", "an SVG (vector) file, not an image"),
    "over-size image": (_image("PNG", (7_000, 6_000)), ".png", "over the 40 MP limit"),
    "HEIC member": (b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00" + bytes(64), ".heic",
                    "a HEIC photo, which cannot be read"),
}


def _dump(ws: Path) -> list[str]:
    connection = sqlite3.connect(ws)
    try:
        return list(connection.iterdump())
    finally:
        connection.close()


def _merge_refused(tmp_path: Path, pack: Path, capsys: pytest.CaptureFixture[str]
                   ) -> list[str]:
    """What `pack merge` says on stderr, into a workspace holding a course, once it has
    checked that the refused merge left every row of it as it was."""
    ws = tmp_path / "target.sqlite"
    with open_workspace(ws) as opened:
        run_job(import_path(opened, ROOT / "annotations" / "sample"))
    before = _dump(ws)
    capsys.readouterr()
    assert main(["pack", "merge", str(ws), str(pack)]) == 2
    assert _dump(ws) == before
    return capsys.readouterr().err.strip().splitlines()


@pytest.mark.parametrize("case", list(HOSTILE))
def test_a_hostile_image_member_is_refused_as_check_refuses_it_and_nothing_is_lost(
        good_pack: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],  # noqa: F811
        case: str) -> None:
    content, suffix, phrase = HOSTILE[case]
    member = f"images/{hashlib.sha256(content).hexdigest()}{suffix}"
    pack = write_pack(tmp_path / "hostile.zip", members(good_pack) | {member: content})
    lines = _merge_refused(tmp_path, pack, capsys)
    with pytest.raises(ImageError) as expected:  # what course import and `check` say
        check_image(content, "x")
    assert phrase in expected.value.message
    assert len(lines) == 1, lines
    assert lines[0] == ("error: 1 error(s), nothing was written: "
                        f"{pack}:{member}: error: {expected.value.message}"), lines


@pytest.mark.parametrize("fmt", ["GIF", "WEBP", "BMP"])
def test_a_screenshot_kept_as_gif_webp_or_bmp_travels_in_a_pack_as_itself(
        tmp_path: Path, fmt: str) -> None:
    """The pack names a member by the type its bytes are (the list every path shares), so
    a GIF goes out as .gif, not as a .png that is not one, and is merged back."""
    data = _image(fmt)
    digest = hashlib.sha256(data).hexdigest()
    with open_workspace(tmp_path / "a.sqlite") as source:
        run_job(import_path(source, ROOT / "annotations" / "sample"))
        task = source.tasks()[0].id

        def add(conn: sqlite3.Connection) -> None:
            ops.put_blob(conn, check_image(data, "shot"))
            ops.ensure_submission(conn, task, "shot_student", "student", digest, {})

        source.write(add)
        export_pack(source, tmp_path / "out.zip")
    suffix = check_image(data).extension
    assert f"images/{digest}.{suffix}" in members(tmp_path / "out.zip")
    with open_workspace(tmp_path / "b.sqlite") as target:
        merge_packs(target, [tmp_path / "out.zip"])
        assert target.image(digest) == data


def test_an_image_member_inflating_past_the_image_size_limit_is_named_and_nothing_is_lost(
        good_pack: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],  # noqa: F811
        ) -> None:
    content = _image("PNG") + bytes(MAX_IMAGE_BYTES)  # a real header, then 50 MB of zeros
    member = f"images/{hashlib.sha256(content).hexdigest()}.png"
    pack = write_pack(tmp_path / "big.zip", members(good_pack) | {member: content})
    lines = _merge_refused(tmp_path, pack, capsys)
    assert lines == ["error: 1 error(s), nothing was written: "
                     f"{pack}:{member}: error: {len(content):,} bytes unpacked, over the "
                     f"{MAX_IMAGE_BYTES >> 20} MB limit for one image; scale the image down "
                     "(a photo as JPEG of at most 4000×4000 pixels takes a few MB) and pack "
                     "it again"], lines


def test_a_ta_whose_pack_holds_a_63_mb_photo_is_told_its_size_and_what_to_do_not_of_a_bomb(
        good_pack: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],  # noqa: F811
        ) -> None:
    content = _image("JPEG") + bytes(63 << 20)  # a camera's uncompressed photo, say
    member = f"images/{hashlib.sha256(content).hexdigest()}.jpg"
    pack = write_pack(tmp_path / "photos.zip", members(good_pack) | {member: content})
    [line] = _merge_refused(tmp_path, pack, capsys)
    assert line.startswith("error: 1 error(s), nothing was written: "
                           f"{pack}:{member}: error: 63 MB unpacked, over the 50 MB limit "
                           "for one image; scale the image down"), line
    assert "bomb" not in line


@pytest.mark.parametrize("member,limit,advice", [
    ("data.json", "MAX_DATA_BYTES", "a merge accepts; export one grader's work at a time"),
    ("manifest.json", None, "the 1 MB a pack's manifest takes: not a ClueStudio pack"),
])
def test_a_pack_whose_data_is_over_a_merges_limit_says_which_member_and_what_to_do(
        good_pack: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],  # noqa: F811
        monkeypatch: pytest.MonkeyPatch, member: str, limit: str | None, advice: str) -> None:
    from cluestudio.core.workspace import pack as pack_module

    content = members(good_pack)
    if limit:
        monkeypatch.setattr(pack_module, limit, len(content[member]) - 1)
    else:
        content[member] += b" " * (1 << 20)
    pack = write_pack(tmp_path / "big-data.zip", content)
    [line] = _merge_refused(tmp_path, pack, capsys)
    assert f"{pack}:{member}: error: " in line and " unpacked, over " in line, line
    assert advice in line and "bomb" not in line, line


def test_a_pack_whose_images_together_are_over_a_merges_limit_says_to_send_it_in_parts(
        good_pack: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],  # noqa: F811
        monkeypatch: pytest.MonkeyPatch) -> None:
    from cluestudio.core.workspace import pack as pack_module

    images = {name: data for name, data in members(good_pack).items()
              if name.startswith("images/")}
    assert len(images) > 1
    monkeypatch.setattr(pack_module, "MAX_TOTAL_BYTES",
                        sum(map(len, images.values())) - 1)
    [line] = _merge_refused(tmp_path, good_pack, capsys)
    assert (f"{good_pack}:images/" in line and " unpacked, over what is left of the " in line
            and "for all of a pack's images together; send the course in parts" in line), line

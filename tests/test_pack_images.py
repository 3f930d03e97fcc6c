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
                     f"{pack}:{member}: error: inflates past {MAX_IMAGE_BYTES >> 20} MB "
                     "(zip bomb?)"], lines

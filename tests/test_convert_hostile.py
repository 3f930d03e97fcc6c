"""No model ever sees a file that is not a checked image (issue 14, item 5)."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from cluestudio.cli import main
from support.openai_stub import OpenAIStub


@pytest.fixture
def stub() -> Iterator[OpenAIStub]:
    server = OpenAIStub()
    server.start()
    yield server
    server.close()


def png_bomb() -> bytes:
    """A valid PNG header claiming 30,000 × 30,000 pixels (900 MP), with a tiny body."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    header = struct.pack(">IIBBBBB", 30_000, 30_000, 8, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(b"\x00" * 30_001)) + chunk(b"IEND", b""))


CASES = {
    "bomb.png": (png_bomb(), "bomb"),
    "notes.png": (b"just some text, not an image\n", "not an image"),
    "drawing.png": (b'<svg xmlns="http://www.w3.org/2000/svg"><rect/></svg>', "not an image"),
    "cut.png": (png_bomb()[:30], "corrupt or truncated"),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("command", ["convert", "probe"])
def test_bad_images_never_reach_the_model(stub: OpenAIStub, tmp_path: Path, name: str,
                                          command: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    content, message = CASES[name]
    image = tmp_path / name
    image.write_bytes(content)
    puml = tmp_path / "d.puml"
    puml.write_text("class A\n")
    args = ([str(image), "--out", str(tmp_path / "out"), "--no-render"]
            if command == "convert" else [str(image), str(puml)])
    assert main([command, *args, "--model", "m", "--base-url", stub.url]) == 2
    err = capsys.readouterr().err
    assert f"{image}:" in err and message in err and "Traceback" not in err
    assert "BytesIO" not in err
    assert stub.requests == []


def test_a_missing_image_is_a_one_line_error(stub: OpenAIStub, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "gone.png"
    assert main(["convert", str(missing), "--model", "m", "--base-url", stub.url]) == 2
    err = capsys.readouterr().err
    assert f"{missing}: cannot read: No such file" in err and stub.requests == []

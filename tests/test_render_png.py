"""PNG renders: our faster PNG steps (java/png_palette: twins of PlantUML's two packers and a
writer for palette images) give PlantUML's own image, only with the PlantUML they were ported
from, and the PNG is a whole image without the diagram's source in it."""

from __future__ import annotations

import hashlib
import io
import os
import re
import shutil
import struct
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from cluestudio.core.plantuml import renderer as renderer_module
from cluestudio.core.plantuml import runtime
from cluestudio.core.plantuml.renderer import (
    PNG_PALETTE_JAR,
    PNG_PALETTE_PORTED_FROM,
    PlantUMLRenderer,
    jvm_command,
    png_palette_port_fits,
)

_PALETTE_SOURCES = PNG_PALETTE_JAR.parent / "png_palette"
_COLOUR_TYPES = {2: "RGB", 3: "palette", 6: "RGBA"}

# Each of PlantUML's ways through its PNG writer: packed into a palette (up to 256 colour
# cubes; written by our writer), too many colours (gradients) or too few (under 32 cubes), so
# the second packer and the JDK's writer; a transparent background (no palette step).
DIAGRAMS = {
    "class diagram": (
        "abstract class Shape {\n  -name: String\n  +area(): double\n}\n"
        "class Circle {\n  -radius: double\n}\ninterface Drawable\n"
        'Shape <|-- Circle\nDrawable <|.. Shape\nCircle "1" *-- "many" Point : centre\n'
    ),
    "notes and packages": (
        "package shop {\n  class Order\n  class Item\n}\nOrder o-- Item\n"
        "note right of Order : placed by\\na customer\n"
    ),
    "gradients": "class A #red/blue\nclass B #green/yellow\nA --> B : grows\n",
    "few colours": (
        "skinparam monochrome true\nskinparam shadowing false\nhide circle\nhide members\n"
        'class " "\n'
    ),
    "transparent": "skinparam backgroundColor transparent\nclass A\nclass B\nA --> B\n",
}


def _header(png: bytes) -> tuple[int, int, int]:
    """Width, height and colour type from the IHDR chunk."""
    width, height, _, colour_type = struct.unpack(">IIBB", png[16:26])
    return width, height, colour_type


def _chunks(png: bytes) -> list[tuple[bytes, bytes]]:
    chunks, at = [], 8
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        chunks.append((png[at + 4 : at + 8], png[at + 8 : at + 8 + length]))
        at += 12 + length
    return chunks


def _row_filters(png: bytes) -> set[int]:
    """The filter byte of every row of an 8-bit palette PNG."""
    width, height, _ = _header(png)
    pixels = zlib.decompress(b"".join(data for kind, data in _chunks(png) if kind == b"IDAT"))
    return {pixels[row * (width + 1)] for row in range(height)}


def _require_the_ported_plantuml() -> None:
    """The bundled PlantUML must be the one our twins were ported from (pyproject pins it);
    a user's own jar (CLUESTUDIO_PLANTUML_JAR) need not be."""
    jar = runtime.plantuml_jar()
    if png_palette_port_fits(jar):
        return
    if os.environ.get("CLUESTUDIO_PLANTUML_JAR"):
        pytest.skip(f"{jar.name} is not the PlantUML our PNG steps were ported from")
    pytest.fail(f"the bundled {jar.name} has other PNG packer classes than java/png_palette "
                "was ported from: port them again (docs/adr/0002) or PNG costs twice the CPU")


@pytest.fixture(scope="module")
def both() -> Iterator[tuple[PlantUMLRenderer, PlantUMLRenderer]]:
    ours, plantumls = PlantUMLRenderer(), PlantUMLRenderer(fast_png=False)
    yield ours, plantumls
    ours.close()
    plantumls.close()


@pytest.mark.java
@pytest.mark.xdist_group("java")
def test_our_png_steps_give_plantumls_own_image(
        both: tuple[PlantUMLRenderer, PlantUMLRenderer]) -> None:
    ours, plantumls = both
    _require_the_ported_plantuml()
    assert str(PNG_PALETTE_JAR) in " ".join(jvm_command())  # the twins are really in use
    assert str(PNG_PALETTE_JAR) not in " ".join(jvm_command(fast_png=False))
    seen = set()
    for name, text in DIAGRAMS.items():
        fast, own = ours.render(text, "png"), plantumls.render(text, "png")
        kind = _COLOUR_TYPES[_header(fast)[2]]
        seen.add(kind)
        if kind != "palette":
            # Our packer twins, then the JDK's writer: PlantUML's bytes exactly.
            assert fast == own, f"{name}: our PNG steps changed the PNG"
            continue
        # Our writer: the same image (palette, indices, text chunks), rows unfiltered.
        assert _row_filters(fast) == {0} and _row_filters(own) != {0}, name
        with Image.open(io.BytesIO(fast)) as mine, Image.open(io.BytesIO(own)) as theirs:
            assert (mine.mode, mine.size, mine.info) == (theirs.mode, theirs.size, theirs.info)
            assert mine.getpalette() == theirs.getpalette(), name
            assert np.array_equal(np.asarray(mine), np.asarray(theirs)), name
        assert [k for k, _ in _chunks(fast)] == [k for k, _ in _chunks(own)], name
        assert len(fast) < len(own), name  # no filter suits palette images better
    assert seen == {"RGB", "palette", "RGBA"}  # every way through PlantUML's PNG writer


@pytest.mark.java
@pytest.mark.xdist_group("java")
def test_svg_is_the_same_with_or_without_our_png_steps(
        both: tuple[PlantUMLRenderer, PlantUMLRenderer]) -> None:
    ours, plantumls = both
    _require_the_ported_plantuml()
    for name, text in DIAGRAMS.items():
        assert ours.render(text, "svg") == plantumls.render(text, "svg"), name


@pytest.mark.java
@pytest.mark.xdist_group("java")
def test_a_png_decodes_to_its_declared_size_without_the_diagram_source(
        both: tuple[PlantUMLRenderer, PlantUMLRenderer]) -> None:
    png = both[0].render(DIAGRAMS["class diagram"], "png")
    width, height, _ = _header(png)
    with Image.open(io.BytesIO(png)) as image:
        image.load()
        assert image.size == (width, height)
        # The drawn diagram, not a blank: dark strokes and text on a light background.
        low, high = image.convert("L").getextrema()
        assert low < 80 and high > 200
    # PlantUML embeds the source (an iTXt/zTXt chunk) only when asked; we never ask.
    chunks = [kind for kind, _ in _chunks(png)]
    assert chunks[0] == b"IHDR" and chunks[-1] == b"IEND"
    assert not {b"iTXt", b"zTXt"} & set(chunks)
    assert b"Circle" not in png and b"radius" not in png


def _copy_with(tmp_path: Path, replaced: dict[str, bytes]) -> Path:
    """A copy of the PlantUML jar's palette classes, some of them replaced."""
    copy = tmp_path / "plantuml-copy.jar"
    with zipfile.ZipFile(runtime.plantuml_jar()) as source, \
            zipfile.ZipFile(copy, "w") as target:
        for name in PNG_PALETTE_PORTED_FROM:
            target.writestr(name, replaced.get(name, source.read(name)))
    return copy


def test_the_palette_twin_stays_out_of_any_other_plantuml(tmp_path: Path) -> None:
    _require_the_ported_plantuml()
    (tmp_path / "same").mkdir()
    same = _copy_with(tmp_path / "same", {})
    assert png_palette_port_fits(same)
    changed = _copy_with(tmp_path, {"net/sourceforge/plantuml/png/quant/Cube555.class": b"x"})
    assert not png_palette_port_fits(changed)
    assert str(PNG_PALETTE_JAR) not in " ".join(jvm_command(jar=changed))
    older = tmp_path / "older.jar"  # a jar without those classes (as PlantUML 1.2022.6)
    with zipfile.ZipFile(older, "w") as archive:
        archive.writestr("net/sourceforge/plantuml/Run.class", b"")
    assert not png_palette_port_fits(older)
    assert not png_palette_port_fits(tmp_path / "missing.jar")
    # A jar replaced in place (same path) is looked at again.
    shutil.copy(changed, same)
    assert not png_palette_port_fits(same)


def test_palette_jar_is_built_from_the_committed_source() -> None:
    with zipfile.ZipFile(renderer_module.PNG_PALETTE_JAR) as jar:
        manifest = jar.read("META-INF/MANIFEST.MF").decode().replace("\r\n ", "").replace(
            "\n ", "")
        classes = {name for name in jar.namelist() if name.endswith(".class")}
    recorded = re.search(r"Source-SHA256: (\w+)", manifest)
    assert recorded is not None
    sources = sorted(_PALETTE_SOURCES.rglob("*.java"),
                     key=lambda p: p.relative_to(_PALETTE_SOURCES).as_posix())
    assert {name for name in classes if "$" not in name} == {
        source.relative_to(_PALETTE_SOURCES).with_suffix(".class").as_posix()
        for source in sources}
    twins = {name for name in classes if name.startswith("net/sourceforge/plantuml/")}
    assert twins and set(PNG_PALETTE_PORTED_FROM) >= twins  # each twin where its class matches
    service = _PALETTE_SOURCES / "META-INF" / "services" / "javax.imageio.spi.ImageWriterSpi"
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in [*sources, service])).hexdigest()
    assert recorded.group(1) == digest, (
        "png_palette/ changed: run scripts/build_render_server.sh")

"""The class diagram an image file carries: PlantUML's source chunk, parsed, or why not.

:func:`read_embedded` is the one entry point (the draft and the check call it). It returns
the diagram only when every test passes; otherwise the reason, in one line naming the
file, and the caller reads the pixels as before:

- not a PNG, or a PNG without a ``plantuml`` chunk: nothing (no reason: nothing to say);
- the chunk is damaged, over :data:`~cluestudio.core.embedded.png.MAX_TEXT_BYTES`, not
  UTF-8, holds no ``@startuml``, does not parse, or draws no class;
- the source uses ``!include``/``!import`` or preprocessor directives and the file does not
  carry PlantUML's own expansion of them (PlantUML writes the expanded text as a second
  diagram after the source when the two differ): nothing is ever followed, read or run —
  the text is parsed without PlantUML's preprocessor;
- the file was saved again by another program after PlantUML wrote it (chunks PlantUML
  never writes): its pixels may no longer show the source (docs/adr/0016).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cluestudio.core.embedded.png import read_png_text
from cluestudio.core.model import ClassDiagram

PLANTUML_KEY = "plantuml"
DRAWIO_KEY = "mxfile"
# PlantUML cuts a render at this many pixels a side (PLANTUML_LIMIT_SIZE's default): a
# render that size shows less than its source names.
PLANTUML_LIMIT_PX = 4096

_START = re.compile(r"\s*@startuml\b", re.IGNORECASE)
_END = re.compile(r"\s*@enduml\b", re.IGNORECASE)


@dataclass(frozen=True)
class EmbeddedDiagram:
    """The diagram image A carries. ``diagram``'s line numbers are lines of the text the
    file carries (``puml`` starts at its line ``first_line``)."""

    kind: str  # "plantuml", or "draw.io" (its model converted by core/embedded/drawio.py)
    puml: str  # the diagram's text, @startuml … @enduml, as the file carries it
    diagram: ClassDiagram
    first_line: int
    width: int  # image A's pixels, from its header
    height: int
    cut: str = ""  # why image A may show less than the source ("" when it shows it all)

    @property
    def what(self) -> str:
        return "the PlantUML" if self.kind == "plantuml" else f"the {self.kind} model"


@dataclass(frozen=True)
class EmbeddedRead:
    diagram: EmbeddedDiagram | None
    # why the pixels are read although the file carries a diagram ("" when it carries none)
    reason: str = ""


def drawio_plantuml(mxfile: str, source: str) -> tuple[str | None, str]:
    """PlantUML of the draw.io model an "editable PNG" carries (its ``mxfile`` text, at most
    :data:`~cluestudio.core.embedded.png.MAX_TEXT_BYTES`), or None and why not (one line
    naming ``source``). It then goes through the same parse, class and pixel-box tests as
    PlantUML's own source."""
    from cluestudio.core.embedded.drawio import DrawioError, plantuml_from_mxfile

    try:
        return plantuml_from_mxfile(mxfile, source=source), ""
    except DrawioError as error:
        return None, str(error)


def _blocks(text: str) -> list[tuple[int, str]]:
    """Each ``@startuml … @enduml`` of ``text``: (its first line's index, its text)."""
    lines = text.splitlines()
    out: list[tuple[int, str]] = []
    start: int | None = None
    for index, line in enumerate(lines):
        if start is None and _START.match(line):
            start = index
        elif start is not None and _END.match(line):
            out.append((start, "\n".join(lines[start:index + 1]) + "\n"))
            start = None
    if start is not None:  # no @enduml: the rest is the diagram
        out.append((start, "\n".join(lines[start:]) + "\n"))
    return out


def _needs_more(block: str) -> bool:
    """Whether ``block`` names text it does not hold (``!include``, ``!import``) or needs
    PlantUML's preprocessor to mean what it drew."""
    from cluestudio.core.plantuml._preprocess import INCLUSION, needs_preprocessor

    return needs_preprocessor(block) or any(INCLUSION.match(line)
                                            for line in block.splitlines())


def _chosen_block(text: str, source: str) -> tuple[int, str] | str:
    """The block to read (index of its first line, its text), or why there is none."""
    blocks = _blocks(text)
    if not blocks:
        return f"{source}: the PlantUML it carries has no @startuml"
    first = blocks[0]
    if not _needs_more(first[1]):
        return first
    # PlantUML writes its own expansion after the source: what it drew, all in the file
    expanded = next((b for b in blocks[1:] if not _needs_more(b[1])), None)
    if expanded is not None:
        return expanded
    return (f"{source}: the PlantUML it carries uses !include or preprocessor directives "
            "that the file does not carry expanded (nothing is ever followed)")


def _diagram_from(text: str, kind: str, source: str, width: int, height: int
                  ) -> EmbeddedRead:
    from cluestudio.core.errors import ClueStudioError
    from cluestudio.core.plantuml import parse_plantuml

    chosen = _chosen_block(text, source)
    if isinstance(chosen, str):
        return EmbeddedRead(None, chosen)
    first, block = chosen
    try:
        # blank lines in front keep the line numbers of the text the file carries; no
        # preprocessor: nothing runs on an untrusted text (its expansion is in the file)
        parsed = parse_plantuml("\n" * first + block,
                                source=f"{source} (the PlantUML it carries)",
                                preprocessor=None)
    except ClueStudioError as error:
        return EmbeddedRead(None, f"{error} (does not parse)")
    if not parsed.diagram.classes:
        return EmbeddedRead(None, f"{source}: the PlantUML it carries draws no class "
                                  "(not a class diagram)")
    cut = ""
    # exactly at the limit: cut (a larger render had it raised); draw.io exports are not cut
    if kind == PLANTUML_KEY and PLANTUML_LIMIT_PX in (width, height):
        cut = (f"image A is {width}×{height} px: PlantUML cuts a render at "
               f"{PLANTUML_LIMIT_PX} px, so its source may name more than A shows")
    return EmbeddedRead(EmbeddedDiagram(kind, block, parsed.diagram, first + 1, width,
                                        height, cut))


def read_embedded(data: bytes, source: str = "image A") -> EmbeddedRead:
    """The class diagram PNG ``data`` carries, or why the pixels must be read (see the
    module docstring). Costs a walk over the chunk list and the parse of the source:
    milliseconds, never a pixel decoded."""
    png = read_png_text(data, frozenset({PLANTUML_KEY, DRAWIO_KEY}))
    if png is None:
        return EmbeddedRead(None)
    kind, text = PLANTUML_KEY, png.texts.get(PLANTUML_KEY)
    if text is None and DRAWIO_KEY in png.texts:
        kind, (text, refused) = "draw.io", drawio_plantuml(png.texts[DRAWIO_KEY], source)
        if text is None:
            return EmbeddedRead(None, f"{refused} (its pixels are read instead)")
    if text is None:
        key = next((k for k in (PLANTUML_KEY, DRAWIO_KEY) if k in png.unreadable), None)
        return EmbeddedRead(None, f"{source}: its {key} chunk cannot be read "
                                  f"({png.unreadable[key]})" if key else "")
    if kind == PLANTUML_KEY and png.foreign:
        marks = ", ".join(png.foreign[:4])
        return EmbeddedRead(None, f"{source} was saved again by another program after "
                                  f"PlantUML rendered it ({marks}): its pixels may no "
                                  "longer show the PlantUML it carries")
    return _diagram_from(text, kind, source, png.width, png.height)

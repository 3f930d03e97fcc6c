"""Which class a name means, as PlantUML 1.2022.6 decides it (checked against the jar).

A class is known by a *key*, PlantUML's code for it:

* a plain name declared or used inside ``package`` blocks is global: ``package a { class
  Node }`` and a later ``Node`` anywhere are one class (the package only places it) —
  unless a dotted name made a class in ``a`` before the block opens (``a.Game --> X``
  above ``package a { … }``): PlantUML has then made ``a`` a namespace, and the block
  scopes plain names like a ``namespace`` block (``class Game`` in it is ``a.Game``; a
  later top-level ``Game`` is another class);
* inside a ``namespace`` block a plain name gets the namespace as prefix (``ns.Node``);
  a lookup tries ``ns.Node`` first, then the global ``Node``;
* a dotted name (``a.b.C``, with the current ``set namespaceSeparator``) is its own key;
  if no class has that key, a class named ``C`` placed in package ``a.b`` is meant
  (``package factory_method { class Coupon }`` … ``factory_method.Coupon``); otherwise it is
  a new class ``C`` in package ``a.b``;
* a leading separator (``.Area``) means the top-level name; quotes only allow spaces (a
  quoted ``"a.b.C"`` is split like ``a.b.C``); ``set namespaceSeparator none`` turns all
  splitting off.

The table maps keys to classes; nothing here knows about the model's members or relations.
Every lookup is a dictionary access, so resolving a name costs the length of the name.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Scope:
    """Where a name is read: the package path (model notation, ``a.b``) and the namespace
    prefix plain names get (PlantUML notation, with the separator; ``""`` outside one)."""

    path: str = ""
    namespace: str = ""


TOP = Scope()


@dataclass(frozen=True)
class Place:
    """A new class's key, the package path it goes to and the name it shows."""

    key: str
    package: str
    display: str


class NameTable:
    def __init__(self) -> None:
        self.separator: str | None = "."
        self._keys: set[str] = set()
        self._by_place: dict[tuple[str, str], str] = {}  # (package path, short name) → key
        self.group_paths: dict[str, str] = {}  # `package "Shown" as code`: code → path

    def __contains__(self, key: str) -> bool:
        return key in self._keys

    def discard(self, key: str) -> None:
        self._keys.discard(key)
        for place, known in list(self._by_place.items()):
            if known == key:
                del self._by_place[place]

    def add(self, place: Place) -> None:
        self._keys.add(place.key)
        self._by_place.setdefault((place.package, place.display), place.key)

    def made_by_dotted_name(self, prefix: str) -> bool:
        """Whether a dotted name (``prefix`` + separator + …) already made a class."""
        sep = self.separator
        return bool(sep) and any(key.startswith(f"{prefix}{sep}") for key in self._keys)

    def package_path(self, name: str) -> str:
        """A package or namespace name in the model's dotted notation."""
        sep = self.separator
        return name.replace(sep, ".") if sep and sep != "." else name

    def find(self, token: str, scope: Scope) -> str | None:
        """The key of the class ``token`` names from ``scope``, or None if there is none."""
        return self._lookup(token, scope)[0]

    def resolve(self, token: str, scope: Scope, *, declaration: bool = False) -> tuple[str, Place]:
        """(key, place): the existing class ``token`` names, or where a new one would go.

        A dotted name in a *declaration* is placed relative to the enclosing package
        (``package p { class x.Y }`` puts ``Y`` in ``p.x``); in a link it is absolute.
        """
        key, place = self._lookup(token, scope, declaration)
        return (key if key is not None else place.key), place

    def _lookup(self, token: str, scope: Scope,
                declaration: bool = False) -> tuple[str | None, Place]:
        sep = self.separator
        if not sep:
            return (token if token in self._keys else None), Place(token, scope.path, token)
        absolute = token.startswith(sep) and len(token) > len(sep)
        name = token[len(sep):] if absolute else token
        prefix, found_sep, short = name.rpartition(sep)
        if not found_sep or not prefix or not short:
            return self._lookup_plain(name, scope, absolute)
        if name in self._keys:
            return name, Place(name, "", short)
        path = self.group_paths.get(prefix) or self.package_path(prefix)
        key = self._by_place.get((path, short))
        if declaration and scope.path:
            path = f"{scope.path}.{path}"
        return key, Place(name, path, short)

    def _lookup_plain(self, name: str, scope: Scope,
                      absolute: bool) -> tuple[str | None, Place]:
        if scope.namespace and not absolute:
            scoped = f"{scope.namespace}{self.separator}{name}"
            if scoped in self._keys:
                return scoped, Place(scoped, scope.path, name)
            if name in self._keys:
                return name, Place(name, scope.path, name)
            return None, Place(scoped, scope.path, name)
        return (name if name in self._keys else None), Place(name, scope.path, name)

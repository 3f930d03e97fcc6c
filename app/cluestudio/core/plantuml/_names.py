"""Which class a name means, as PlantUML 1.2026.2 decides it (checked against the jar).

Every class sits in a group (the top level, or a ``package``/``namespace`` block: the two
scope names alike since PlantUML 1.2023) under its short name:

* a declaration ``class X`` means the ``X`` of the enclosing group, new if that group has
  none, even where another group has an ``X`` (``package a { class Node }`` and ``package
  b { class Node }`` are two classes);
* a plain name in a link means the one class of that name wherever it sits, if there is
  exactly one; otherwise (none, or several) the ``X`` of the enclosing group, new if need be
  (``package p { class C }`` … ``C --> D`` links ``p``'s C);
* a dotted name (``a.b.C``, with the current ``set namespaceSeparator``) is its own key;
  if no class has that key, a class named ``C`` placed in package ``a.b`` is meant
  (``package factory_method { class Coupon }`` … ``factory_method.Coupon``); otherwise it is
  a new class ``C`` in package ``a.b``;
* a leading separator (``.Area``) means the top level's ``Area``, new if the only ``Area``
  sits in a package; quotes only allow spaces (a quoted ``"a.b.C"`` is split like
  ``a.b.C``); ``set namespaceSeparator none`` turns all splitting off.

PlantUML 1.2022.6 read plain names differently (a package only placed a class: one
``Node`` for both packages above; a namespace prefixed its plain names); docs/parser.md.
The table maps keys to classes; nothing here knows about the model's members or relations.
Every lookup is a dictionary access, so resolving a name costs the length of the name.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Scope:
    """Where a name is read: the path of the enclosing package or namespace, in the model's
    notation (``a.b``; ``""`` at the top level)."""

    path: str = ""


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
        self._by_short: dict[str, list[str]] = {}  # short name → keys, in order of creation
        self._top_twins = 0  # top-level classes whose name a packaged class has as key
        self.group_paths: dict[str, str] = {}  # `package "Shown" as code`: code → path

    def __contains__(self, key: str) -> bool:
        return key in self._keys

    def discard(self, key: str) -> None:
        self._keys.discard(key)
        for place, known in list(self._by_place.items()):
            if known == key:
                del self._by_place[place]
        for keys in self._by_short.values():
            if key in keys:
                keys.remove(key)

    def add(self, place: Place) -> None:
        self._keys.add(place.key)
        if place.key.startswith("\0lollipop"):
            return  # a lollipop is never found by its name again
        self._by_place.setdefault((place.package, place.display), place.key)
        self._by_short.setdefault(place.display, []).append(place.key)

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
            return self._lookup_plain(name, TOP if absolute else scope,
                                      declaration or absolute)
        if name in self._keys:
            return name, Place(name, "", short)
        path = self.group_paths.get(prefix) or self.package_path(prefix)
        if declaration and scope.path:
            # Relative to the enclosing package: its own key, which a later top-level
            # `x.y.Z` does not spell (that is another class, as in PlantUML 1.2026).
            path = f"{scope.path}.{path}"
            full = f"{scope.path.replace('.', sep)}{sep}{name}"
            return self._by_place.get((path, short)), Place(full, path, short)
        return self._by_place.get((path, short)), Place(name, path, short)

    def _lookup_plain(self, name: str, scope: Scope,
                      in_group_only: bool) -> tuple[str | None, Place]:
        """``name`` in ``scope``'s group (a declaration, a leading separator), or, in a link,
        the one class of that name anywhere first."""
        if not in_group_only:
            same = self._by_short.get(name, [])
            if len(same) == 1:
                return same[0], Place(same[0], scope.path, name)
        key = self._by_place.get((scope.path, name))
        return key, Place(key or self._new_key(name, scope), scope.path, name)

    def _new_key(self, name: str, scope: Scope) -> str:
        """A key for a new class ``name`` in ``scope``: the name itself where it is free,
        else its group's path before it (``b.Node``); a top-level twin of a packaged class
        gets a key no name can spell (it is shown as ``Node (2)``)."""
        if name not in self._keys:
            return name
        sep = self.separator or "."
        if scope.path:
            group = scope.path if sep == "." else scope.path.replace(".", sep)
            key = f"{group}{sep}{name}"
            if key not in self._keys:
                return key
        self._top_twins += 1
        return f"\0twin{self._top_twins}\0{name}"

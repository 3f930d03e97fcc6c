"""The import graph of ``cluestudio``: its circles, its floors and its largest modules.

Run from the repository root (``PYTHONPATH=app python scripts/import_graph.py``); the
numbers in docs/adr/0014 come from it. Every import counts, the ones inside functions and
under ``TYPE_CHECKING`` too, because a late import that holds a circle apart is still a
circle to a reader. A *circle* is a set of modules that import each other in a loop
(a strongly connected component of more than one module); a module's *floor* is one above
the highest floor it imports (floor 1 imports nothing of ours; a circle is one floor).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[1]


def circles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph.modules):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.find_modules_directly_imported_by(start))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(
                        graph.find_modules_directly_imported_by(child)))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def floors(graph: grimp.ImportGraph, found: list[list[str]]) -> dict[str, int]:
    """Each module's floor; the members of a circle share one."""
    home = {m: m for m in graph.modules}
    for component in found:
        for member in component:
            home[member] = component[0]
    imports: dict[str, set[str]] = {}
    for module in graph.modules:
        imports.setdefault(home[module], set()).update(
            home[m] for m in graph.find_modules_directly_imported_by(module))
    floor: dict[str, int] = {}

    def floor_of(node: str) -> int:
        if node not in floor:
            floor[node] = 0  # a circle's own members point back at it
            below = [floor_of(m) for m in imports.get(node, ()) if m != node]
            floor[node] = 1 + max(below, default=0)
        return floor[node]

    sys.setrecursionlimit(10_000)
    return {m: floor_of(home[m]) for m in graph.modules}


def _source(module: str) -> str:
    base = ROOT / "app" / Path(*module.split("."))
    path = base / "__init__.py" if base.is_dir() else base.with_suffix(".py")
    return path.read_text(encoding="utf-8") if path.exists() else ""


def lines(module: str) -> int:
    return len(_source(module).splitlines())


def ties(graph: grimp.ImportGraph, component: list[str]) -> list[str]:
    """``a -> b (line n)`` for each import inside a circle; ``late`` marks one in a function."""
    out = []
    for importer in component:
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            if imported not in component:
                continue
            source = _source(importer).splitlines()
            for detail in graph.get_import_details(importer=importer, imported=imported):
                line = source[detail["line_number"] - 1]
                late = " late" if line[:1].isspace() else ""  # inside a function or an if
                out.append(f"{importer} -> {imported} (line {detail['line_number']}{late})")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--largest", type=int, default=10, help="modules listed by size")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "app"))
    graph = grimp.build_graph("cluestudio", cache_dir=None)
    found = circles(graph)
    print(f"modules: {len(graph.modules)}")
    print(f"circles: {len(found)}")
    for number, component in enumerate(found, 1):
        print(f"  circle {number}: {', '.join(component)}")
        for tie in ties(graph, component):
            print(f"    {tie}")
    floor = floors(graph, found)
    print(f"floors: {max(floor.values())}")
    for layer in ("cli", "gui", "app", "core"):
        members = [m for m in floor if m.startswith(f"cluestudio.{layer}.")]
        if members:
            print(f"  cluestudio.{layer}: floors {min(floor[m] for m in members)}"
                  f"-{max(floor[m] for m in members)}")
    print("largest modules (lines):")
    for module in sorted(graph.modules, key=lambda m: (-lines(m), m))[:args.largest]:
        print(f"  {lines(module):5d} {module}")


if __name__ == "__main__":
    main()

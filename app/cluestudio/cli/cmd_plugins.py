"""``cluestudio plugins``: list the installed plugins and whether each one can be used."""

from __future__ import annotations

import argparse

NAME = "plugins"
HELP = "list installed plugins (metrics, converters, probes, io) and their status"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--kind", choices=["metric", "converter", "probe", "io"],
                        help="only plugins of this kind")
    parser.add_argument("--load", action="store_true",
                        help="import every plugin now, to report import errors")


def run(args: argparse.Namespace) -> int:
    from cluestudio.cli.output import print_json
    from cluestudio.core.plugins import PluginRegistry

    registry = PluginRegistry()
    if args.load:
        for status in registry.statuses(args.kind):
            registry.load(status.manifest.kind, status.manifest.name)
    statuses = registry.statuses(args.kind)
    if args.json:
        print_json([s.to_dict() for s in statuses])
        return 0
    if not statuses:
        print("no plugins installed")
        return 0
    rows = [("KIND", "NAME", "VERSION", "STATE", "DIAGRAMS", "DISTRIBUTION / NOTE")]
    for s in statuses:
        m = s.manifest
        note = s.error or "; ".join(s.warnings) or m.distribution
        rows.append((m.kind, m.name, m.version, s.state, ",".join(m.diagram_kinds), note))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        print("  ".join([*cells, row[-1]]).rstrip())
    return 0

"""How often the parser agrees with PlantUML 1.2026.2 itself: the differential test as a table.

    .venv/bin/python benchmarks/parser_agreement.py [--details] [FOLDER …]

Runs every ``.puml`` file of the folders (default: tests/corpus_differential, tests/corpus,
tests/corpus_invalid) through PlantUML (syntax check, XMI export and preprocessor on the
warm renderer's JVM) and through our parser, and prints how often the verdicts agree:
acceptance, class count, class names and relations against the XMI. ``--details`` lists
every disagreement. ``CLUESTUDIO_PARSER_ORACLE=1.2022.6`` asks the older jar the test extra
installs instead (docs/parser.md lists where the two versions differ).
The rules are those of ``tests/test_parser_differential.py``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from support.plantuml_differential import agreement_table, run_corpus  # noqa: E402

DEFAULT_FOLDERS = [ROOT / "tests" / name
                   for name in ("corpus_differential", "corpus", "corpus_invalid")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", type=Path, default=DEFAULT_FOLDERS)
    parser.add_argument("--details", action="store_true", help="list every disagreement")
    args = parser.parse_args(argv)
    paths = [p for folder in args.folders for p in sorted(folder.glob("*.puml"))]
    if not paths:
        print("no .puml files found", file=sys.stderr)
        return 1
    started = time.perf_counter()
    verdicts = run_corpus(paths)
    print(agreement_table(verdicts))
    print(f"({len(paths)} files from {', '.join(f.name for f in args.folders)}; "
          f"{time.perf_counter() - started:.0f} s)")
    if args.details:
        for verdict in verdicts:
            for problem in verdict.problems:
                print(f"{verdict.name}: {problem}")
    return 0 if all(v.agrees for v in verdicts) else 1


if __name__ == "__main__":
    sys.exit(main())

"""Import Python code as reference designs: a file, a folder, or an OpenClassGen-style corpus.

A file or folder becomes one diagram (a folder's modules become packages). A corpus — CSV,
JSON (a list of objects) or JSON Lines with OpenClassGen's fields (``id``, ``class_name``,
``human_written_class`` or ``class_skeleton``) — becomes one diagram per row; rows that do not
parse are skipped and reported, as the OpenClassGen curation drops them.
"""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cluestudio.core.errors import ClueStudioError
from cluestudio.core.model import ClassDiagram
from cluestudio_openclassgen.extract import PythonSyntaxError, diagram_from_modules

CODE_FIELDS = ("human_written_class", "class_skeleton", "code", "source")
CORPUS_SUFFIXES = (".csv", ".json", ".jsonl")
_SKIP_DIRS = {".git", ".venv", "venv", "__pycache__", "node_modules", ".tox", "build", "dist"}


class CorpusError(ClueStudioError):
    """A corpus file we cannot read (wrong format, no code column)."""


@dataclass(frozen=True)
class ImportedDesign:
    """One imported diagram and where each class came from (``file:line``)."""

    name: str
    diagram: ClassDiagram
    origins: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class CorpusImport:
    designs: tuple[ImportedDesign, ...]
    skipped: tuple[str, ...]  # "row <id>: <error>" for rows that did not parse


def _python_files(folder: Path) -> Iterator[Path]:
    for path in sorted(folder.rglob("*.py")):
        if not _SKIP_DIRS.intersection(path.relative_to(folder).parts[:-1]):
            yield path


def _module_package(folder: Path, path: Path) -> str:
    parts = [folder.resolve().name, *path.relative_to(folder).with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def import_code(path: Path, *, include_dunder: bool = False,
                skip_errors: bool = False) -> tuple[ImportedDesign, list[str]]:
    """A ``.py`` file or a folder of them → one design; warnings for skipped files.

    A syntax error raises :class:`PythonSyntaxError` (file and line), unless
    ``skip_errors``, which skips that file and says so in the warnings.
    """
    if path.is_dir():
        files = [(p, _module_package(path, p)) for p in _python_files(path)]
    elif path.is_file():
        files = [(path, "")]
    else:
        raise ClueStudioError(f"{path}: no such file or folder")
    modules, warnings = [], []
    for file, package in files:
        code = file.read_text(encoding="utf-8", errors="replace")
        if skip_errors:
            try:
                diagram_from_modules([(code, str(file), package)])
            except PythonSyntaxError as error:
                warnings.append(f"skipped {error}")
                continue
        modules.append((code, str(file), package))
    diagram, origins = diagram_from_modules(modules, include_dunder=include_dunder)
    return ImportedDesign(path.stem, diagram, origins), warnings


def _corpus_rows(path: Path) -> list[dict[str, Any]]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".csv":
        csv.field_size_limit(min(sys.maxsize, 2**31 - 1))  # whole classes sit in one cell
        return list(csv.DictReader(text.splitlines(keepends=True)))
    try:
        if path.suffix == ".jsonl":
            return [json.loads(line) for line in text.splitlines() if line.strip()]
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise CorpusError(f"{path}:{error.lineno}: not valid JSON: {error.msg}") from None
    if isinstance(data, dict):
        data = data.get("classes") or data.get("data") or [data]
    if not isinstance(data, list) or not all(isinstance(row, dict) for row in data):
        raise CorpusError(f"{path}: expected a list of objects, one per class")
    return data


def import_corpus(path: Path, *, include_dunder: bool = False, limit: int | None = None,
                  ) -> CorpusImport:
    """Each corpus row → its own design, named by the row's ``id`` (or its index)."""
    rows = _corpus_rows(path)
    if rows and not any(f in rows[0] for f in CODE_FIELDS):
        raise CorpusError(f"{path}: no code column; expected one of {', '.join(CODE_FIELDS)}")
    designs, skipped = [], []
    for index, row in enumerate(rows[:limit] if limit else rows):
        row_id = str(row.get("id", index))
        code = next((row[f] for f in CODE_FIELDS if row.get(f)), "")
        source = f"{path.name}#{row_id}"
        if row.get("file_path"):
            source += f" ({row.get('repository_name', '')}/{row['file_path']})"
        try:
            diagram, origins = diagram_from_modules([(str(code), source, "")],
                                                    include_dunder=include_dunder)
        except PythonSyntaxError as error:
            skipped.append(f"row {row_id}: {error}")
            continue
        designs.append(ImportedDesign(row_id, diagram, origins))
    return CorpusImport(tuple(designs), tuple(skipped))


def is_corpus(path: Path) -> bool:
    return path.is_file() and path.suffix.lower() in CORPUS_SUFFIXES

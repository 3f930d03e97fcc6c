"""Bounded fuzzing of every untrusted input path (issue 14): the PlantUML parser, course-folder
and JSONL imports, and the pack reader. Whatever the input, the outcome is a result or a
ClueStudio error naming the file — never another exception, never a half-written workspace.

Derandomised, so CI runs the same examples every time; ``CLUESTUDIO_FUZZ_EXAMPLES=5000``
runs a longer, random campaign locally.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sqlite3
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cluestudio.core.errors import ClueStudioError
from cluestudio.core.jobs import run_job

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_TASK = ROOT / "annotations" / "sample" / "tasks" / "online_shop"
_LONG = int(os.environ.get("CLUESTUDIO_FUZZ_EXAMPLES", "0"))
FUZZ = settings(max_examples=_LONG or 120, deadline=None, derandomize=not _LONG,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])

# Pieces of real PlantUML, recombined: the fuzzer reaches deep parser states quickly.
TOKENS = ["@startuml", "@enduml", "class", "abstract", "interface", "enum", "package",
          "namespace", "note", "end note", "{", "}", "(", ")", "<|--", "*--", "o--", "-->",
          "..>", "..|>", "--", "-[#red]->", "-up->", '"1"', '"*"', ":", "+", "-", "#", "~",
          "{static}", "{abstract}", "<<interface>>", "as", "A", "B", "Order", "Émile", "x",
          "int", "List<String>", "void", "name", "!define", "!procedure", "$x", "'", "/'",
          "'/", "skinparam", "hide", "together", "\n", "\n", "\n", " ", "\t", "\r\n", "\x00",
          "\ufeff", "[key]", "(A, B) .. C", "map", "object", "entity", "=>", "::", "."]
plantuml_text = st.one_of(
    st.lists(st.sampled_from(TOKENS), max_size=80).map(" ".join),
    st.lists(st.sampled_from(TOKENS), max_size=80).map("".join),
    st.text(max_size=400),
)


@FUZZ
@given(text=plantuml_text)
def test_parser_returns_or_raises_a_named_error(text: str) -> None:
    from cluestudio.core.plantuml.parser import parse_plantuml

    try:
        result = parse_plantuml(text, source="fuzz.puml")
    except ClueStudioError as error:
        assert "fuzz.puml" in str(error)
        return
    assert result.diagram is not None


def _good_files() -> dict[str, bytes]:
    return {
        "course.toml": b'origin = "student"\n',
        "tasks/shop/requirement.md": (SAMPLE_TASK / "requirement.md").read_bytes(),
        "tasks/shop/reference.puml": (SAMPLE_TASK / "reference.puml").read_bytes(),
        "tasks/shop/submissions/s1.puml": b"@startuml\nclass Customer\n@enduml\n",
        "tasks/shop/submissions/s1.json": b'{"origin": "llm"}',
        "tasks/shop/submissions/s2.png": next(SAMPLE_TASK.glob("submissions/*.png")).read_bytes(),
        "ratings.csv": b"task_id,source_id,grader,total\nshop,s1,ann,55\n",
    }


def _mutate(data: bytes, how: int, where: int, junk: bytes) -> bytes:
    if not data:
        return junk
    at = where % len(data)
    if how == 0:
        return data[:at]  # truncated
    if how == 1:
        return data[:at] + junk + data[at:]  # inserted
    if how == 2:
        return data[:at] + junk + data[at + len(junk):]  # overwritten
    return junk  # replaced


mutation = st.tuples(st.integers(0, 3), st.integers(0, 1 << 20), st.binary(max_size=64))


@FUZZ
@given(mutations=st.dictionaries(st.sampled_from(sorted(_good_files())), mutation, max_size=4),
       extra=st.dictionaries(st.sampled_from(["tasks/shop/submissions/z.puml", "tasks/x/a.md",
                                              "tasks/shop/task.toml", "tasks/empty/.keep"]),
                             st.binary(max_size=80), max_size=2))
def test_course_import_is_all_or_nothing_with_named_errors(
        tmp_path_factory: pytest.TempPathFactory, mutations: dict[str, tuple[int, int, bytes]],
        extra: dict[str, bytes]) -> None:
    from cluestudio.core.workspace import ImportFailed, import_path, open_workspace

    root = tmp_path_factory.mktemp("course")
    files = _good_files()
    for name, (how, where, junk) in mutations.items():
        files[name] = _mutate(files[name], how, where, junk)
    files.update(extra)
    for name, content in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(content)
    with open_workspace(root.parent / f"{root.name}.sqlite") as ws:
        try:
            run_job(import_path(ws, root))
        except ImportFailed as failed:
            assert failed.report.errors
            assert all(p.source for p in failed.report.errors)
            assert ws.tasks() == []  # nothing half-written
        except ClueStudioError:
            assert ws.tasks() == []


record = st.fixed_dictionaries({"task_id": st.one_of(st.just("t"), st.text(max_size=5),
                                                     st.integers())},
                               optional={"reference": st.one_of(st.just("class A"),
                                                                 plantuml_text, st.none()),
                                         "candidate": plantuml_text,
                                         "image": st.sampled_from(["a.png", "/etc/passwd",
                                                                   "../x.png", ""]),
                                         "rating": st.one_of(st.floats(), st.integers(),
                                                             st.text(max_size=4),
                                                             st.dictionaries(st.text(max_size=8),
                                                                             st.floats())),
                                         "origin": st.text(max_size=6),
                                         "diagram_kind": st.text(max_size=8)})
jsonl_line = st.one_of(record.map(json.dumps), st.text(max_size=60),
                       st.just("[" * 3000 + "]" * 3000))


@FUZZ
@given(lines=st.lists(jsonl_line, max_size=6))
def test_jsonl_import_is_all_or_nothing_with_named_errors(
        tmp_path_factory: pytest.TempPathFactory, lines: list[str]) -> None:
    from cluestudio.core.workspace import ImportFailed, import_path, open_workspace

    folder = tmp_path_factory.mktemp("jsonl")
    source = folder / "data.jsonl"
    source.write_bytes("\n".join(lines).encode("utf-8", "replace"))
    (folder / "a.png").write_bytes(_good_files()["tasks/shop/submissions/s2.png"])
    with open_workspace(folder / "w.sqlite") as ws:
        try:
            run_job(import_path(ws, source))
        except ImportFailed as failed:
            assert all(p.source == str(source) for p in failed.report.errors)
            assert ws.tasks() == []


_PACK: bytes | None = None


def _good_pack(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    global _PACK
    if _PACK is None:
        from cluestudio.core.workspace import import_path, open_workspace
        from cluestudio.core.workspace.pack import export_pack

        folder = tmp_path_factory.mktemp("packsource")
        for name, content in _good_files().items():  # a small course: fast merges
            (folder / "course" / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / "course" / name).write_bytes(content)
        with open_workspace(folder / "s.sqlite") as ws:
            run_job(import_path(ws, folder / "course"))
            export_pack(ws, folder / "p.zip")
        _PACK = (folder / "p.zip").read_bytes()
    return _PACK


odd_value = st.one_of(st.none(), st.integers(), st.floats(), st.text(max_size=10),
                      st.lists(st.integers(), max_size=2),
                      st.dictionaries(st.text(max_size=5), st.integers(), max_size=2))
data_change = st.tuples(st.sampled_from(["tasks", "submissions", "conversions", "ratings",
                                         "reviews"]),
                        st.integers(0, 50), st.text(max_size=10), odd_value)


@FUZZ
@given(raw=st.lists(mutation, min_size=1, max_size=3),
       data_change=st.one_of(st.none(), data_change))
def test_pack_merge_never_raises_anything_but_a_named_failure(
        tmp_path_factory: pytest.TempPathFactory, raw: list[tuple[int, int, bytes]],
        data_change: tuple[str, int, str, object] | None) -> None:
    from cluestudio.core.workspace import ImportFailed, open_workspace
    from cluestudio.core.workspace.pack import merge_packs

    pack = _good_pack(tmp_path_factory)
    if data_change is not None:  # a well-formed zip whose JSON says odd things
        section, index, key, value = data_change
        with zipfile.ZipFile(io.BytesIO(pack)) as zf:
            members = {n: zf.read(n) for n in zf.namelist()}
        data = json.loads(members["data.json"])
        records = data[section]
        if records:
            target = records[index % len(records)]
            target[key or next(iter(target))] = value
        members["data.json"] = json.dumps(data).encode()
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as zf:
            for name, content in members.items():
                zf.writestr(name, content)
        pack = buffer.getvalue()
    else:
        for how, where, junk in raw:
            pack = _mutate(pack, how, where, junk)
    folder = tmp_path_factory.mktemp("merge")
    path = folder / "p.zip"
    path.write_bytes(pack)
    with open_workspace(folder / "w.sqlite") as ws:
        try:
            merge_packs(ws, [path])
        except ImportFailed as failed:
            assert all(p.source == str(path) for p in failed.report.errors)
            assert ws.tasks() == []


_WORKSPACE: bytes | None = None


def _good_workspace(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    global _WORKSPACE
    if _WORKSPACE is None:
        from cluestudio.core.workspace import import_path, open_workspace

        folder = tmp_path_factory.mktemp("wssource")
        for name, content in _good_files().items():
            (folder / "course" / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / "course" / name).write_bytes(content)
        with open_workspace(folder / "w.sqlite") as ws:
            run_job(import_path(ws, folder / "course"))
        conn = sqlite3.connect(folder / "w.sqlite")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("PRAGMA journal_mode = DELETE")  # one file holds everything
        conn.close()
        _WORKSPACE = (folder / "w.sqlite").read_bytes()
    return _WORKSPACE


# What a shared workspace could carry: schema objects of every kind, changed definitions,
# odd versions and ids (issue 25).
PLANTS = [
    "CREATE TRIGGER t AFTER INSERT ON scores BEGIN UPDATE scores SET value = 0; END",
    "CREATE TRIGGER t2 BEFORE DELETE ON ratings BEGIN SELECT RAISE(ABORT, 'no'); END",
    "CREATE VIEW v AS WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) "
    "SELECT x FROM r",
    "CREATE TABLE extra (x)", "CREATE INDEX i ON ratings(total)",
    "DROP INDEX ratings_by_submission",
    "DROP TABLE audit_log", "PRAGMA user_version = 3", "PRAGMA user_version = 99",
    "PRAGMA user_version = -1", "PRAGMA application_id = 7",
    "PRAGMA writable_schema = ON",
    "UPDATE sqlite_master SET sql = replace(sql, 'value REAL', 'value REAL DEFAULT 1') "
    "WHERE name = 'scores'",
    "UPDATE sqlite_master SET sql = 'CREATE VIEW tasks AS SELECT 1' WHERE name = 'tasks'",
    "UPDATE sqlite_master SET name = 'x' WHERE name = 'meta'",
]


@FUZZ
@given(plants=st.lists(st.sampled_from(PLANTS), max_size=4),
       raw=st.lists(mutation, max_size=2))
def test_workspace_open_refuses_or_opens_never_anything_else(
        tmp_path_factory: pytest.TempPathFactory, plants: list[str],
        raw: list[tuple[int, int, bytes]]) -> None:
    from cluestudio.core.errors import describe_failure
    from cluestudio.core.workspace import open_workspace
    from cluestudio.core.workspace.foreign import ForeignSchema, foreign_objects

    path = tmp_path_factory.mktemp("open") / "w.sqlite"
    path.write_bytes(_good_workspace(tmp_path_factory))
    conn = sqlite3.connect(path, isolation_level=None)
    for statement in plants:
        with contextlib.suppress(sqlite3.DatabaseError):  # a plant the file's state refuses
            conn.execute(statement)
    conn.close()
    data = path.read_bytes()
    for how, where, junk in raw:
        data = _mutate(data, how, where, junk)
    path.write_bytes(data)
    for readonly in (True, False):
        try:
            with open_workspace(path, readonly=readonly) as ws:
                ws.tasks()
                # Whatever opened carries exactly our schema: no trigger, view or extra.
                assert foreign_objects(ws._reader(), schema_version(ws)) == []
        except ForeignSchema as error:
            assert str(path) in str(error) and "\n" not in str(error)
            _clean_copy_opens_or_refuses(path)
        except ClueStudioError as error:
            assert str(path) in str(error) and "\n" not in str(error)
        except sqlite3.DatabaseError as error:  # damaged pages found while reading
            assert describe_failure(error, path) is not None


def _clean_copy_opens_or_refuses(path: Path) -> None:
    """The data of a refused file, copied on request: a workspace of our schema, or a
    named error (a damaged file), never anything else."""
    from cluestudio.core.workspace import open_workspace
    from cluestudio.core.workspace.clean_copy import copy_to_clean
    from cluestudio.core.workspace.foreign import foreign_objects

    clean = path.with_name("clean.sqlite")
    clean.unlink(missing_ok=True)
    try:
        copy_to_clean(path, clean)
    except ClueStudioError as error:
        assert "\n" not in str(error)
        return
    with open_workspace(clean, readonly=True) as ws:
        assert foreign_objects(ws._reader(), schema_version(ws)) == []
        try:
            ws.tasks()
        except sqlite3.DatabaseError as error:  # damaged text comes along as it was
            from cluestudio.core.errors import describe_failure

            assert describe_failure(error, clean) is not None


def schema_version(ws: object) -> int:
    from cluestudio.core.workspace import schema

    return schema.user_version(ws._reader())  # type: ignore[attr-defined]

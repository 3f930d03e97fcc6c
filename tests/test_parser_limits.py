"""The parser's limits: input size, nesting depth, and the hostile inputs they guard against.

Speed is measured in ``benchmarks/bench_parse.py`` (time and memory per size and shape);
here only the outcomes: what is refused, with which message, and that refusing is cheap.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cluestudio.cli import main
from cluestudio.core.errors import ClueStudioError, PlantUMLSyntaxError
from cluestudio.core.plantuml.parser import (
    MAX_NESTING,
    MAX_PARSE_BYTES,
    ParseTooLarge,
    parse_file,
    parse_plantuml,
)


def test_text_over_the_limit_is_refused_naming_the_source() -> None:
    text = "class A\n" * (MAX_PARSE_BYTES // 8 + 1)
    with pytest.raises(ParseTooLarge) as caught:
        parse_plantuml(text, source="big.puml")
    assert isinstance(caught.value, ClueStudioError)
    assert str(caught.value).startswith("big.puml: the diagram is 1,024 KB")
    assert "limit of 1,024 KB" in str(caught.value)
    # The limit is a parameter: the same text passes with a larger one.
    assert len(parse_plantuml(text, max_bytes=2 * MAX_PARSE_BYTES).diagram.classes) == 1


def test_the_limit_counts_utf8_bytes_not_characters() -> None:
    text = "class Ü\n" + "' " + "ü" * 600 + "\n"  # 600 characters, 1,200 bytes
    assert parse_plantuml(text, max_bytes=1_300).diagram.class_names == ("Ü",)
    with pytest.raises(ParseTooLarge):
        parse_plantuml(text, max_bytes=1_000)


def test_a_large_file_is_refused_before_it_is_read(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    big = tmp_path / "big.puml"
    big.write_bytes(b"class A\n" * 200_000)
    read = []
    monkeypatch.setattr(Path, "read_bytes", lambda self: read.append(self) or b"")
    with pytest.raises(ParseTooLarge, match=r"big\.puml: the diagram is 1,562 KB"):
        parse_file(big)
    assert read == []


def test_cli_parse_refuses_a_large_file_and_takes_a_limit(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    source = tmp_path / "d.puml"
    source.write_text("class A\nclass B\nA --> B\n", encoding="utf-8")
    assert main(["parse", str(source), "--max-bytes", "10"]) == 2
    assert f"{source}: the diagram is" in capsys.readouterr().err
    assert main(["parse", str(source), "--json", "--no-preprocessor"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [c["name"] for c in data["classes"]] == ["A", "B"]
    assert data["warnings"] == [] and data["omitted_links"] == []


def test_nesting_deeper_than_the_limit_is_refused_at_the_line_that_opens_it() -> None:
    deep = "".join(f"package p{i} {{\nclass C{i}\n" for i in range(MAX_NESTING + 5))
    with pytest.raises(PlantUMLSyntaxError) as caught:
        parse_plantuml(deep)
    assert caught.value.line == 2 * MAX_NESTING + 1
    assert f"nested more than {MAX_NESTING} deep" in caught.value.message
    ok = "".join(f"package p{i} {{\nclass C{i}\n" for i in range(MAX_NESTING)) \
        + "}\n" * MAX_NESTING
    diagram = parse_plantuml(ok).diagram
    assert len(diagram.classes) == MAX_NESTING
    assert diagram.classes[-1].package == ".".join(f"p{i}" for i in range(MAX_NESTING))


def test_hostile_lines_are_read_in_one_pass() -> None:
    # Each of these cost the square of its length before (a slice per marker or word);
    # now they are read like any line. Their timing is in benchmarks/bench_parse.py.
    cls = parse_plantuml("class A {\n" + "{static}" * 100_000 + "x : int\n}").diagram.classes[0]
    assert (cls.attributes[0].name, cls.attributes[0].is_static) == ("x", True)
    cls = parse_plantuml("class A {\n" + "static " * 100_000 + "x : int\n}").diagram.classes[0]
    assert (cls.attributes[0].name, cls.attributes[0].is_static) == ("x", True)
    with pytest.raises(PlantUMLSyntaxError) as caught:
        parse_plantuml("class A\nclass B " + "/' '/ " * 50_000)
    assert caught.value.line == 2
    with pytest.raises(PlantUMLSyntaxError, match="left-hand side"):
        parse_plantuml("class A\n" + "-" * 300_000 + "> B")
    cls = parse_plantuml("class A " + "<<x>> " * 50_000).diagram.classes[0]
    assert cls.stereotype == ", ".join(["x"] * 50_000)

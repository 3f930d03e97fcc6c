"""OpenClassGen import (seed 004): Python code → skeletons → ClassDiagram → PlantUML; TSED."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "openclassgen"
try:
    import cluestudio_openclassgen  # noqa: F401  (installed once the entry points are registered)
except ImportError:
    sys.path.insert(0, str(ROOT / "plugins"))

from cluestudio.core.metrics import MetricInput  # noqa: E402
from cluestudio.core.model import (  # noqa: E402
    Attribute,
    ClassKind,
    Method,
    Multiplicity,
    Param,
    Relation,
    RelationType,
)
from cluestudio_openclassgen.extract import (  # noqa: E402
    PythonSyntaxError,
    class_skeletons,
    diagram_from_modules,
)
from cluestudio_openclassgen.importer import (  # noqa: E402
    CorpusError,
    import_code,
    import_corpus,
)
from cluestudio_openclassgen.tsed import Tree, tree_edit_distance, tsed  # noqa: E402


def diagram(code: str):
    return diagram_from_modules([(textwrap.dedent(code), "m.py", "")])[0]


def test_skeleton_keeps_signatures_and_docstrings_only() -> None:
    code = textwrap.dedent('''
        class TaskManager(object):
            """Multi threading manager"""
            limit: int = 3

            def __init__(self):
                """Initializes a TaskManager"""
                self.threads = list()

            def start_task(self, method, *args, **kwargs):
                thread = make(method)
                thread.start()

            class Inner:
                def go(self) -> None:
                    return None
    ''')
    skeleton = class_skeletons(code, "tm.py")["TaskManager"]
    assert skeleton == textwrap.dedent('''\
        class TaskManager(object):
            """Multi threading manager"""
            limit: int = 3

            def __init__(self):
                """Initializes a TaskManager"""
                pass

            def start_task(self, method, *args, **kwargs):
                pass

            class Inner:

                def go(self) -> None:
                    pass''')


def test_shop_package_to_diagram() -> None:
    design, warnings = import_code(FIXTURES / "shop")
    assert warnings == []
    d = design.diagram
    assert set(d.class_names) == {"Category", "Money", "Product", "Inventory", "Inventory.Entry",
                                  "Notifier", "Payment", "CardPayment", "EmailNotifier",
                                  "SmsNotifier", "Order"}
    product = d.class_named("Product")
    assert product is not None and product.stereotype == "dataclass"
    assert product.package == "shop.catalog"
    assert product.attributes == (
        Attribute("sku", "str", "+"), Attribute("title", "str", "+"),
        Attribute("price", "Money", "+"), Attribute("category", "Category", "+"),
        Attribute("tags", "list[str]", "+"),
        Attribute("registry", "dict[str, Product]", "+", is_static=True),  # ClassVar
        Attribute("display_name", "str", "+"),  # a property reads as an attribute
    )
    assert product.methods == (
        Method("lookup", "Optional[Product]", (Param("sku", "str"),), "+", is_static=True),)
    category = d.class_named("Category")
    assert category is not None and category.kind == ClassKind.ENUM
    assert category.attributes == (Attribute("BOOK"), Attribute("MUSIC"))
    assert d.class_named("Payment").kind == ClassKind.ABSTRACT  # type: ignore[union-attr]
    assert d.class_named("Payment").methods[0].is_abstract  # type: ignore[union-attr]
    assert d.class_named("Notifier").kind == ClassKind.INTERFACE  # type: ignore[union-attr]
    inventory = d.class_named("Inventory")
    assert inventory is not None
    # self.x in __init__ and in other methods, annotated or not; dunders other than
    # __init__ are left out.
    assert [(a.name, a.type, a.visibility) for a in inventory.attributes] == [
        ("_entries", "dict[str, Inventory.Entry]", "#"), ("owner", "", "+"),
        ("last_added", "Product | None", "+")]
    assert [m.name for m in inventory.methods] == ["__init__", "add"]
    card = d.class_named("CardPayment")
    assert card is not None
    # `self.x = param` takes the parameter's annotation; name mangling reads as private.
    assert card.attributes == (Attribute("__card_number", "str", "-"),)
    entry = d.class_named("Inventory.Entry")
    assert entry is not None and entry.attributes == (
        Attribute("product", "Product", "+"), Attribute("quantity", "int", "+"))
    order = d.class_named("Order")
    assert order is not None
    assert order.methods[-1] == Method(
        "parse", "Order", (Param("text", "str"), Param("*args"), Param("strict", "bool"),
                           Param("**kwargs")), "+", is_static=True)
    relations = {(r.type, r.begin, r.end): r for r in d.relations}
    assert set(relations) == {
        (RelationType.COMPOSITION, "Product", "Money"),
        (RelationType.COMPOSITION, "Product", "Category"),
        (RelationType.COMPOSITION, "Inventory", "Inventory.Entry"),
        (RelationType.COMPOSITION, "Inventory", "Product"),
        (RelationType.COMPOSITION, "Inventory.Entry", "Product"),
        (RelationType.GENERALIZATION, "CardPayment", "Payment"),
        (RelationType.REALIZATION, "SmsNotifier", "Notifier"),  # Protocol → realization
        (RelationType.COMPOSITION, "Order", "Product"),
        (RelationType.COMPOSITION, "Order", "Payment"),
        (RelationType.COMPOSITION, "Order", "Notifier"),
    }
    assert relations[(RelationType.COMPOSITION, "Order", "Product")] == Relation(
        RelationType.COMPOSITION, "Order", "Product", Multiplicity("", "*"), "lines")
    assert relations[(RelationType.COMPOSITION, "Order", "Notifier")].label.to == "0..1"
    assert design.origins["Inventory.Entry"].endswith("catalog.py:48")


def test_inheritance_chain_dataclass_and_forward_refs() -> None:
    d = diagram('''
        from dataclasses import dataclass
        import abc

        class Shape(metaclass=abc.ABCMeta):
            def area(self) -> float: ...

        class Square(Shape):
            pass

        @dataclass
        class Node:
            value: int
            children: "list[Node]"
            parent: "Node | None" = None
            shape: Square | None = None
    ''')
    assert d.class_named("Shape").kind == ClassKind.ABSTRACT  # type: ignore[union-attr]
    assert {(r.type, r.begin, r.end, r.label.to) for r in d.relations} == {
        (RelationType.GENERALIZATION, "Square", "Shape", ""),
        (RelationType.COMPOSITION, "Node", "Square", "0..1"),
    }  # Node's references to itself are not compositions
    assert d.class_named("Node").attributes[1] == Attribute(  # type: ignore[union-attr]
        "children", "list[Node]", "+")


@pytest.fixture()
def broken_py(tmp_path: Path) -> Path:
    # Kept as .txt in the repository so linters do not trip over the deliberate error.
    path = tmp_path / "src" / "broken.py"
    path.parent.mkdir()
    path.write_text((FIXTURES / "broken_module.txt").read_text())
    return path


def test_syntax_error_names_file_and_line(broken_py: Path) -> None:
    with pytest.raises(PythonSyntaxError) as caught:
        import_code(broken_py)
    error = caught.value
    assert error.line == 6 and str(error.source).endswith("broken.py")
    assert str(error).startswith(f"{broken_py}:6: Python syntax error")
    assert "def method(self:" in str(error)


def test_folder_with_a_broken_file_stops_or_skips(tmp_path: Path) -> None:
    (tmp_path / "good.py").write_text("class A:\n    pass\n")
    (tmp_path / "bad.py").write_text("class B:\n  def f(:\n    pass\n")
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "junk.py").write_text("class Junk(:\n")
    with pytest.raises(PythonSyntaxError, match=r"bad\.py:2"):
        import_code(tmp_path)
    design, warnings = import_code(tmp_path, skip_errors=True)
    assert design.diagram.class_names == ("A",)
    assert len(warnings) == 1 and "bad.py:2" in warnings[0]


def test_corpus_json_csv_and_bad_rows(tmp_path: Path) -> None:
    corpus = import_corpus(FIXTURES / "corpus.json")
    assert [d.name for d in corpus.designs] == ["101", "103"]
    assert len(corpus.skipped) == 1 and corpus.skipped[0].startswith("row 102: ")
    assert "legacy.py):3" in corpus.skipped[0]
    task = corpus.designs[0].diagram.class_named("TaskManager")
    assert task is not None and [a.name for a in task.attributes] == ["threads"]
    assert [m.name for m in task.methods] == ["__init__", "wait_until_exit", "start_task"]

    rows = json.loads((FIXTURES / "corpus.json").read_text())
    import csv

    with (tmp_path / "c.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=["id", "class_name", "human_written_class"])
        writer.writeheader()
        for row in rows:
            writer.writerow({k: row[k] for k in writer.fieldnames})
    assert [d.name for d in import_corpus(tmp_path / "c.csv").designs] == ["101", "103"]
    (tmp_path / "c.jsonl").write_text("\n".join(json.dumps(r) for r in rows[2:]))
    assert [d.name for d in import_corpus(tmp_path / "c.jsonl").designs] == ["103"]
    (tmp_path / "none.json").write_text('[{"id": 1, "text": "x"}]')
    with pytest.raises(CorpusError, match="no code column"):
        import_corpus(tmp_path / "none.json")
    (tmp_path / "bad.json").write_text('[{"id": 1,')
    with pytest.raises(CorpusError, match=r"bad\.json:1: not valid JSON"):
        import_corpus(tmp_path / "bad.json")


def test_degenerate_sources() -> None:
    assert diagram("").classes == ()
    assert diagram("x = 1\ndef f():\n    pass\n").classes == ()
    empty = diagram("class E:\n    pass\n").class_named("E")
    assert empty is not None and (empty.attributes, empty.methods) == ((), ())


# --- TSED -----------------------------------------------------------------------------------


def test_tree_edit_distance_by_hand() -> None:
    # Zhang & Shasha's example: f(d(a, c(b)), e) vs f(c(d(a, b)), e) → 2.
    t1 = Tree("f", [Tree("d", [Tree("a"), Tree("c", [Tree("b")])]), Tree("e")])
    t2 = Tree("f", [Tree("c", [Tree("d", [Tree("a"), Tree("b")])]), Tree("e")])
    assert tree_edit_distance(t1, t2) == 2
    assert tree_edit_distance(t1, t1) == 0
    assert tree_edit_distance(Tree("a"), Tree("a", [Tree("b"), Tree("c")])) == 2


def test_tsed_values() -> None:
    assert tsed("x = 1", "x = 1") == 1.0
    # Module(Assign(Name:x, Constant:1)) = 4 nodes; renaming both leaves costs 2 → 0.5.
    assert tsed("x = 1", "y = 2") == 0.5
    assert 0.0 <= tsed("class A:\n    pass", "import os\nprint(os.sep, 1, 2, 3)") < 0.5


def test_code_metric_uses_tsed_and_the_baselines() -> None:
    from cluestudio_openclassgen.plugin import OpenClassGenCodeMetric

    ref = "class A:\n    def f(self, x):\n        return x + 1\n"
    cand = "class A:\n    def f(self, y):\n        return y + 1\n"
    result = OpenClassGenCodeMetric().score(MetricInput(ref), MetricInput(cand))
    assert 0.7 < result.values["tsed"] < 1.0
    pytest.importorskip("cluestudio_baselines.bleu")
    assert 0.0 < result.values["bleu"] < 1.0 and 0.0 < result.values["rouge-l"] < 1.0
    with pytest.raises(PythonSyntaxError, match="candidate:1"):
        OpenClassGenCodeMetric().score(MetricInput(ref), MetricInput("def (:"))


# --- CLI ------------------------------------------------------------------------------------


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "plugins")}
    return subprocess.run([sys.executable, "-m", "cluestudio", "import-code", *args],
                          capture_output=True, text=True, timeout=120, env=env, cwd=cwd)


def _has_writer() -> bool:
    try:
        from cluestudio.core.plantuml import write_plantuml  # noqa: F401
    except ImportError:
        return False
    return True


needs_writer = pytest.mark.skipif(not _has_writer(), reason="PlantUML writer not there yet")


@needs_writer
def test_cli_import_code_writes_plantuml_that_parses_back(tmp_path: Path) -> None:
    from cluestudio.core.plantuml import parse_plantuml

    out = tmp_path / "shop.puml"
    result = _cli(str(FIXTURES / "shop"), "-o", str(out), "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert "Order" in summary["classes"] and summary["warnings"] == []
    parsed = parse_plantuml(out.read_text(), source=str(out)).diagram
    # What the file says is exactly the imported design (nested names, packages, statics).
    assert parsed.without_lines() == import_code(FIXTURES / "shop")[0].diagram.without_lines()
    assert len(parsed.relations) == 10


@needs_writer
def test_cli_import_code_corpus_writes_one_file_per_row(tmp_path: Path) -> None:
    result = _cli(str(FIXTURES / "corpus.json"), "-o", str(tmp_path / "out"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["101.puml", "103.puml"]
    assert "skipped row 102" in result.stderr


def test_cli_import_code_syntax_error_is_one_clear_line(tmp_path: Path, broken_py: Path
                                                         ) -> None:
    result = _cli(str(broken_py), "-o", str(tmp_path / "x.puml"), cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip().startswith("error: ")
    assert "broken.py:6: Python syntax error" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "x.puml").exists()


def test_io_plugin_loads_a_file_and_a_corpus() -> None:
    from cluestudio_openclassgen.plugin import PythonCodeImporter

    importer = PythonCodeImporter()
    assert importer.manifest.kind == "io" and importer.manifest.diagram_kinds == ("class",)
    assert "Order" in importer.load(FIXTURES / "shop" / "orders.py").class_names
    assert importer.load(FIXTURES / "corpus.json").class_names == ("TaskManager",)


def _ast_classes(folder: Path) -> int:
    """Independent count: every distinct (module, qualified name) ``ast`` finds."""
    import ast

    found = set()
    for path in folder.rglob("*.py"):
        def walk(body, prefix, module=path):
            for node in body:
                if isinstance(node, ast.ClassDef):
                    found.add((module, prefix + node.name))
                    walk(node.body, f"{prefix}{node.name}.")
        walk(ast.parse(path.read_text(encoding="utf-8")).body, "")
    return len(found)


@needs_writer
def test_stdlib_email_round_trips_with_every_class(tmp_path: Path) -> None:
    import email

    from cluestudio.core.plantuml import parse_plantuml

    folder = Path(email.__file__).parent
    out = tmp_path / "email.puml"
    result = _cli(str(folder), "-o", str(out), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    expected = _ast_classes(folder)
    if sys.version_info[:2] == (3, 11):
        assert expected == 129
    imported = import_code(folder)[0].diagram
    parsed = parse_plantuml(out.read_text(), source=str(out)).diagram
    assert len(imported.classes) == len(parsed.classes) == expected
    assert parsed.without_lines() == imported.without_lines()
    # The four names two modules share are told apart by their module.
    names = set(parsed.class_names)
    assert {"headerregistry.Address", "_header_value_parser.Address", "headerregistry.Group",
            "_header_value_parser.Group", "header.Header", "_header_value_parser.Header",
            "_parseaddr.AddressList", "_header_value_parser.AddressList"} <= names
    assert ("_header_value_parser.AddressList", "TokenList") in {
        (r.begin, r.end) for r in parsed.relations if r.type is RelationType.GENERALIZATION}


def test_same_name_in_two_modules_is_qualified_and_resolved_by_import() -> None:
    modules = [
        ("class Address:\n    street: str\n", "a/postal.py", "app.postal"),
        ("class Address:\n    host: str\n", "a/net.py", "app.net"),
        ("class Address:\n    pass\n", "b/net.py", "lib.net"),
        ("from .postal import Address\n"
         "class Customer:\n    home: Address\n", "a/shop.py", "app.shop"),
        ("from app.net import Address as NetAddress\n"
         "class Server(NetAddress):\n    pass\n", "a/srv.py", "app.srv"),
        ("class Twice:\n    x: int\nclass Twice:\n    y: int\n", "a/twice.py", "app.twice"),
    ]
    diagram, origins = diagram_from_modules(modules)
    names = [c.name for c in diagram.classes]
    # The shortest module tail that tells the three apart; unique names stay plain.
    assert names == ["postal.Address", "app.net.Address", "lib.net.Address", "Customer",
                     "Server", "Twice"]
    assert origins["app.net.Address"] == "a/net.py:1"
    edges = {(r.type, r.begin, r.end) for r in diagram.relations}
    assert (RelationType.COMPOSITION, "Customer", "postal.Address") in edges  # relative import
    assert (RelationType.GENERALIZATION, "Server", "app.net.Address") in edges  # import as
    assert diagram.classes[-1].attributes == (Attribute("x", "int", "+"),)  # first definition

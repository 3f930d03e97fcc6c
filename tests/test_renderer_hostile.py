"""Hostile diagrams against the warm renderer (issue 14, DESIGN §8).

No diagram may change which answer belongs to which request, read the JVM's environment,
system properties or command line, link to local files, or grow the JVM without bound.
"""

from __future__ import annotations

import hashlib
import io
import os
import random
import re
import zipfile
from collections.abc import Iterator

import pytest
from PIL import Image

from cluestudio.core.errors import RenderError
from cluestudio.core.plantuml import renderer as renderer_module
from cluestudio.core.plantuml import runtime
from cluestudio.core.plantuml.renderer import PlantUMLRenderer, safe_svg_links

pytestmark = [pytest.mark.java, pytest.mark.xdist_group("java")]

_TEXT = re.compile(rb"<text[^>]*>([^<]*)</text>")


def texts(svg: bytes) -> list[str]:
    return [t.decode("utf-8", "replace") for t in _TEXT.findall(svg)]


@pytest.fixture(scope="module")
def renderer() -> Iterator[PlantUMLRenderer]:
    fresh = PlantUMLRenderer()
    yield fresh
    fresh.close()


# What a diagram can do to reach the protocol: print the JVM's command line (it held PlantUML's
# pipe delimiter), imitate our headers and the old delimiter, print bare newlines and NULs,
# write to PlantUML's stderr, switch formats the way -pipe mode allowed, or fail and crash.
HOSTILE = [
    '!$c = %getenv("sun.java.command")\n!assert %false() : $c + %newline() + "tail"\nclass H1',
    'note as N\n%getenv("sun.java.command")\n%newline()%getenv("sun.java.command")\nend note',
    "note as N\n0123456789abcdef OK 4 0\nPNG!\n--cluestudio-0123456789abcdef--\nend note",
    "@@@format png\nclass H2\n@@@format svg",
    '!log 0123456789abcdef OK 3 0\n!log java.lang.IllegalStateException: fake\nclass H3',
    "class H4\x00Nul",
    "class H5 {\n  +x: int\n",  # syntax error
    "title " + "%newline()" * 200 + "\nclass H6",
    "!$s = \"ab\"\n!$t = %substr($s, 5)\n!$u = %strpos($t, \"x\")\nclass H7",
    '!procedure $p()\n!log %getenv("user.home")\n!endprocedure\n$p()\nclass H8',
    "@enduml\nclass AfterEnd",
    '!assert %false() : "0123456789abcdef OK 0 0" + %newline() + "0123456789abcdef OK 0 0"',
]


def benign(index: int) -> str:
    name = f"Benign{index:03d}"
    return f"class {name} {{\n  +field{index}: int\n}}\n{name} --> Other{index:03d}\n"


def test_hostile_diagrams_never_put_answers_out_of_step(renderer: PlantUMLRenderer) -> None:
    # Reference PNGs first: PlantUML's PNG bytes are deterministic for the same text.
    reference_png = {i: renderer.render(benign(i), "png") for i in range(0, 160, 8)}
    rng = random.Random(14)
    outcomes = {"rendered": 0, "refused": 0}
    for i in range(160):
        for _ in range(rng.randint(0, 2)):
            try:
                renderer.render(rng.choice(HOSTILE), rng.choice(["png", "svg"]))
                outcomes["rendered"] += 1
            except RenderError:
                outcomes["refused"] += 1
        if i in reference_png:
            assert renderer.render(benign(i), "png") == reference_png[i], f"PNG {i} not its own"
        else:
            shown = texts(renderer.render(benign(i), "svg"))
            assert f"Benign{i:03d}" in shown, f"answer {i} shows {shown}"
            assert not any(t.startswith("Benign") and t != f"Benign{i:03d}" for t in shown)
    # Both kinds of hostile answer were exercised, not just one.
    assert outcomes["rendered"] > 20 and outcomes["refused"] > 20


def test_environment_properties_and_command_line_are_out_of_reach(
        renderer: PlantUMLRenderer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", os.environ.get("HOME", "/root"))
    names = ["sun.java.command", "user.home", "user.name", "user.dir", "java.home",
             "java.class.path", "java.library.path", "jdk.module.path", "PATH", "HOME",
             "PLANTUML_SECURITY_PROFILE", "java.io.tmpdir"]
    lines = "\n".join(f'{name}=[%getenv("{name}")]' for name in names)
    svg = renderer.render(f"class Probe\nnote as N\n{lines}\nfe=[%file_exists(\"/etc/passwd\")]"
                          "\nend note\n", "svg")
    shown = " ".join(texts(svg))
    for name in names:
        assert f"{name}=[]" in shown.replace("\xa0", " "), f"{name} leaked: {shown}"
    assert "fe=[0]" in shown or "fe=[false]" in shown
    secrets_in_reach = [str(runtime.plantuml_jar()), str(runtime.java_executable().parent),
                        os.getcwd(), os.path.expanduser("~")]
    for secret in secrets_in_reach:
        assert secret.encode() not in svg


@pytest.mark.parametrize("link", ["file:///etc/passwd", "javascript:alert(1)",
                                  "data:text/html,x", "/etc/passwd", "../../secret.html"])
def test_svg_links_to_local_files_and_scripts_are_removed(renderer: PlantUMLRenderer,
                                                          link: str) -> None:
    svg = renderer.render(f"class A [[{link}]]\nclass B [[https://example.org/ok]]", "svg")
    hrefs = re.findall(rb'href="([^"]*)"', svg)
    assert b"https://example.org/ok" in hrefs
    assert all(h == b"#" or h.startswith(b"https://") for h in hrefs), hrefs


def test_safe_svg_links_keeps_web_mail_and_fragments() -> None:
    svg = (b'<a href="HTTPS://x.org"/><a xlink:href="mailto:a@b"/><a href="#n"/>'
           b'<a href=" file:/x"/><a xlink:href="smb://host/share"/>')
    assert safe_svg_links(svg) == (b'<a href="HTTPS://x.org"/><a xlink:href="mailto:a@b"/>'
                                   b'<a href="#n"/><a href="#"/><a xlink:href="#"/>')


BOMBS = {
    "string doubling": '!$s = "xxxxxxxxxxxxxxxx"\n!while %strlen($s) < 2000000000\n'
                       "!$s = $s + $s\n!endwhile\nclass A",
    "define bomb": "!define A0 xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n"
                   + "".join(f"!define A{i + 1} A{i} A{i}\n" for i in range(40))
                   + "class C\nnote as N\nA40\nend note",
}


def test_memory_bombs_stop_at_the_jvm_cap() -> None:
    with PlantUMLRenderer(max_memory_mb=128, timeout=60) as capped:
        for bomb in BOMBS.values():
            with pytest.raises(RenderError, match="memory") as caught:
                capped.render(bomb, "svg", source="bomb.puml")
            assert caught.value.source == "bomb.puml"
            assert "After" in texts(capped.render("class After", "svg"))


def test_renderer_memory_cap_reaches_the_jvm_command() -> None:
    assert "-Xmx300m" in renderer_module.jvm_command(300)
    assert not any(arg.startswith("-Xmx") and arg != "-Xmx300m"
                   for arg in renderer_module.jvm_command(300))


def test_syntax_preprocess_and_xmi_share_the_warm_jvm(renderer: PlantUMLRenderer) -> None:
    renderer.render("class Warm")
    pid = renderer.pid
    report = renderer.check_syntax("class A\nA --> B\nnote \"n\" as N1\n")
    assert (report.diagram_type, report.entities) == ("CLASS", 3)
    bad = renderer.check_syntax("' intro\n@startuml\nclass A\nA -->> B foo(\n@enduml\n")
    assert (bad.diagram_type, bad.error_line) == ("ERROR", 4)
    expanded = renderer.preprocess(
        "@startuml\n!procedure $pair($n)\nclass $n\nclass $n##Impl\n!endprocedure\n"
        "$pair(Shop)\n!$big = 3\n!if $big > 2\nclass Big\n!endif\n@enduml\n")
    assert list(zip(expanded.lines, expanded.origins, strict=True)) == [
        ("class Shop", 3), ("class ShopImpl", 4), ("class Big", 9)]
    with pytest.raises(RenderError) as caught:
        renderer.preprocess("class A\n!endif\n", source="pre.puml")
    assert (caught.value.line, caught.value.source) == (2, "pre.puml")
    xmi = renderer.xmi("class A\nA <|-- B\nA *-- C\n")
    assert b"UML:Generalization" in xmi and b'aggregation="composite"' in xmi
    assert renderer.pid == pid


def test_a_png_answer_is_a_whole_image(renderer: PlantUMLRenderer) -> None:
    png = renderer.render("class A\nnote as N\n%newline()PNG\n%newline()\nend note", "png")
    with Image.open(io.BytesIO(png)) as image:
        image.verify()


def test_server_jar_is_built_from_the_committed_source() -> None:
    source = renderer_module.SERVER_JAR.parent / "cluestudio" / "RenderServer.java"
    with zipfile.ZipFile(renderer_module.SERVER_JAR) as jar:
        # Manifest lines wrap at 72 bytes; a continuation line starts with a space.
        manifest = jar.read("META-INF/MANIFEST.MF").decode().replace("\r\n ", "").replace(
            "\n ", "")
    recorded = re.search(r"Source-SHA256: (\w+)", manifest)
    assert recorded is not None
    assert recorded.group(1) == hashlib.sha256(source.read_bytes()).hexdigest(), (
        "RenderServer.java changed: run scripts/build_render_server.sh")

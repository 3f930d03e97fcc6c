"""API keys never reach a message, the window or the log (issue 14, item 7)."""

from __future__ import annotations

import io
import logging
import os
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image

from cluestudio.cli import main
from cluestudio.core.redact import MASK, RedactingFilter, redact, remember_secret
from support.openai_stub import OpenAIStub, Reply

KEY = f"sk-proj-{secrets.token_urlsafe(24)}"


@pytest.fixture
def stub() -> Iterator[OpenAIStub]:
    server = OpenAIStub()
    server.start()
    yield server
    server.close()


@pytest.mark.parametrize("text", [
    f"Incorrect API key provided: {KEY}. You can find your key at ...",
    "Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345",
    'detail: {"api_key": "0123456789abcdef0123"}',
    "token=hf_abcdefghijklmnopqrstuvwxyz1234",
], ids=["echoed key", "bearer header", "json field", "hf token"])
def test_keys_and_key_shaped_strings_are_masked(text: str) -> None:
    cleaned = redact(text)
    assert MASK in cleaned
    for secret in (KEY, "abcdefghijklmnopqrstuvwxyz012345", "0123456789abcdef0123",
                   "hf_abcdefghijklmnopqrstuvwxyz1234"):
        assert secret not in cleaned


def test_a_remembered_key_of_any_shape_is_masked() -> None:
    odd = "plain-looking-" + secrets.token_hex(6)
    assert redact(f"server said {odd}") == f"server said {odd}"
    remember_secret(odd)
    assert redact(f"server said {odd}") == f"server said {MASK}"
    assert redact("ordinary text, 12 classes") == "ordinary text, 12 classes"


def test_log_records_and_tracebacks_are_redacted() -> None:
    remember_secret(KEY)
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RedactingFilter())
    logger = logging.getLogger("cluestudio.test.secrets")
    logger.addHandler(handler)
    try:
        logger.warning("retrying after %s", f"401 {KEY}")
        try:
            raise RuntimeError(f"echoed {KEY}")
        except RuntimeError:
            logger.exception("failed")
    finally:
        logger.removeHandler(handler)
    written = stream.getvalue()
    assert KEY not in written and written.count(MASK) == 2


def _png(path: Path) -> Path:
    Image.new("RGB", (40, 30), "white").save(path)
    return path


def test_an_endpoint_that_echoes_the_key_never_gets_it_printed_or_logged(
        stub: OpenAIStub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    echo = f"Incorrect API key provided: {KEY}"
    stub.script(*[Reply(echo, status=500, headers={"retry-after": "0"})] * 3,
                Reply(echo, status=401))
    image = _png(tmp_path / "a.png")
    code = main(["convert", str(image), "--out", str(tmp_path / "out"), "--model", "m",
                 "--base-url", stub.url, "--retries", "3", "--no-render",
                 "--no-plantuml-check"])
    captured = capsys.readouterr()
    log_text = "".join(p.read_text() for p in Path(os.environ["CLUESTUDIO_LOG_DIR"]).glob("*"))
    everything = captured.out + captured.err + log_text + "".join(
        p.read_text(errors="replace") for p in (tmp_path / "out").rglob("*") if p.is_file())
    assert len(stub.requests) == 4  # the key really went out, and came back four times
    assert KEY not in everything
    assert MASK in everything
    assert code in (0, 2)

"""Keeping API keys out of every message and log line (issue 14, DESIGN §8).

An endpoint that echoes the key in its error text ("Incorrect API key provided: sk-…") would
otherwise have it printed, shown in the window's error panel and written to the rotating log
file a bug report carries, once per retry. :func:`redact` replaces every key ClueStudio has
handed to a backend (:func:`remember_secret`), the values of the key environment variables,
and anything shaped like a key; :class:`RedactingFilter` does it for every log record.
"""

from __future__ import annotations

import logging
import os
import re
import threading

MASK = "[redacted]"
# Where keys come from (core.vlm.openai_backend and the settings' api_key_env default).
KEY_VARIABLES = ("CLUESTUDIO_API_KEY", "OPENAI_API_KEY")
_MIN_SECRET = 8  # shorter values ("not-needed", "EMPTY") are placeholders, not secrets

_SHAPED = re.compile(
    r"(?:\bsk-(?:proj-|ant-)?[A-Za-z0-9_\-]{16,})"  # OpenAI / Anthropic style keys
    r"|(?:\b[Bb]earer\s+[A-Za-z0-9._~+/\-]{16,}=*)"  # Authorization headers
    r"|(?:\bhf_[A-Za-z0-9]{20,})"  # Hugging Face tokens
    r"|(?:(?i:api[_-]?key|access[_-]?token|secret)[\"']?\s*[:=]\s*[\"']?)"
    r"(?P<value>[^\s\"',;}]{8,})"
)

_known: set[str] = set()
_lock = threading.Lock()


def remember_secret(value: str | None) -> None:
    """Mask ``value`` wherever it appears from now on (a key handed to a backend)."""
    if value and len(value) >= _MIN_SECRET:
        with _lock:
            _known.add(value)


def _secrets() -> list[str]:
    with _lock:
        found = set(_known)
    for name in KEY_VARIABLES:
        value = os.environ.get(name, "")
        if len(value) >= _MIN_SECRET:
            found.add(value)
    return sorted(found, key=len, reverse=True)  # a longer secret before its prefix


def redact(text: str) -> str:
    """``text`` with every known key and anything shaped like one replaced by ``[redacted]``."""
    if not text:
        return text
    for secret in _secrets():
        text = text.replace(secret, MASK)

    def mask(match: re.Match[str]) -> str:
        if match.group("value") is not None:  # keep "api_key=" so the message still reads
            return match.group(0)[: match.start("value") - match.start()] + MASK
        return MASK

    return _SHAPED.sub(mask, text)


class RedactingFilter(logging.Filter):
    """Redacts each record's message and traceback before any handler writes it."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True

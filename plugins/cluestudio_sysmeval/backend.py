"""The chat backend SysMEval uses when none is given: the ``[llm]`` section of settings."""

from __future__ import annotations

from typing import Any


def default_backend() -> Any:
    from cluestudio.core.settings import load_settings
    from cluestudio.core.vlm.factory import BackendOptions, make_backend

    settings, _ = load_settings()
    return make_backend(BackendOptions(model=settings.llm.model,
                                       base_url=settings.llm.base_url or None,
                                       api_key=settings.api_key()))

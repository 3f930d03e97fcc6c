"""User settings in a hand-editable TOML file (``settings.toml`` in the config dir).

What ClueStudio should use (embedder, device, weight profile, VLM/LLM endpoint, theme, blind
grading) lives here, Qt-free, so the CLI and the GUI read the same file. Window geometry is
not a setting and stays in QSettings (ADR 0007). Unknown keys a user added by hand are kept
on save; invalid values fall back to defaults and are reported, never fatal.
"""

from __future__ import annotations

import os
import tempfile
import tomllib
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from cluestudio.core.errors import ClueStudioError
from cluestudio.core.redact import remember_secret

FILE_NAME = "settings.toml"

EMBEDDERS = ("exact", "minilm", "codebert")
DEVICES = ("auto", "cpu", "cuda")
WEIGHT_PROFILES = ("paper", "oodeval-code", "calibrated")
THEMES = ("light", "dark")
# What image A's names may be written in ("auto": guessed); OCR reads all of them alike.
OCR_LANGUAGES = ("auto", "en", "de", "fr", "es")

_HEADER = """\
# ClueStudio settings. Edit freely while ClueStudio is closed; unknown keys are kept.
#
# [scoring]  embedder: exact | minilm | codebert | a Hugging Face model name or local path
#            device: auto | cpu | cuda;  weight_profile: paper | oodeval-code | calibrated
#            weights_file: the TOML `cluestudio calibrate -o FILE` wrote (for calibrated)
# [llm]      an OpenAI-compatible endpoint (vLLM, Ollama, ...). The key is never stored here:
#            it is read from the environment variable named by api_key_env, or from the
#            system keyring (service "cluestudio", user = base_url) when use_keyring = true.
#            max_answer_kb: answers past this size are refused; allow_cross_host_redirects:
#            follow a redirect to another host (off: such a redirect is an error).
# [ui]       theme: light | dark;  blind_grading hides metrics until a rating is saved.
# [workspace] last: the workspace opened last (empty: the bundled sample course).
# [renderer] timeout_s: seconds one diagram may take;  max_memory_mb: the PlantUML JVM's
#            heap limit (a hostile diagram stops there instead of filling the machine).

"""


class SettingsError(ClueStudioError):
    """The settings file could not be written."""


def config_dir() -> Path:
    """The user's config dir; ``CLUESTUDIO_CONFIG_DIR`` overrides it (tests, portable use)."""
    override = os.environ.get("CLUESTUDIO_CONFIG_DIR")
    if override:
        return Path(override)
    from platformdirs import user_config_dir

    return Path(user_config_dir("cluestudio", appauthor=False))


def settings_path() -> Path:
    return config_dir() / FILE_NAME


@dataclass(frozen=True)
class ScoringSettings:
    embedder: str = "minilm"
    device: str = "auto"
    weight_profile: str = "paper"
    weights_file: str = ""  # calibrated weights, used when weight_profile = "calibrated"


@dataclass(frozen=True)
class LLMSettings:
    base_url: str = "http://localhost:8000/v1"
    model: str = ""
    api_key_env: str = "OPENAI_API_KEY"
    use_keyring: bool = False
    max_answer_kb: int = 1024  # a longer answer is refused, never sent back in a repair
    allow_cross_host_redirects: bool = False  # a redirect elsewhere would get the image


@dataclass(frozen=True)
class UISettings:
    theme: str = "light"
    blind_grading: bool = False
    grader: str = ""  # empty: the login name


@dataclass(frozen=True)
class WorkspaceSettings:
    last: str = ""


@dataclass(frozen=True)
class RendererSettings:
    timeout_s: int = 20
    max_memory_mb: int = 1024


@dataclass(frozen=True)
class OcrSettings:
    # The language image A writes its names in ("auto": guessed from their spelling). The
    # conversion check uses it to tell a translated conversion from one that lost its names.
    # OCR reads all of these alike (one Latin-script recogniser; no per-language one ships).
    language: str = "auto"
    # Where image A carries the diagram it was rendered from (PlantUML's source chunk), the
    # check and the offline draft read that instead of the pixels; false: always the pixels
    # (`cluestudio check --pixels` for one run). docs/adr/0016-embedded-diagram-source.md.
    embedded_source: bool = True


@dataclass(frozen=True)
class Settings:
    scoring: ScoringSettings = ScoringSettings()
    llm: LLMSettings = LLMSettings()
    ui: UISettings = UISettings()
    workspace: WorkspaceSettings = WorkspaceSettings()
    renderer: RendererSettings = RendererSettings()
    ocr: OcrSettings = OcrSettings()
    # Keys found in the file that this version does not know, kept so a save loses nothing.
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def grader_name(self) -> str:
        if self.ui.grader:
            return self.ui.grader
        return os.environ.get("USER") or os.environ.get("USERNAME") or "grader"

    def keymap(self) -> dict[str, object]:
        """The settings file's ``[keys]`` table, action name to key (the workbench checks
        it: only it knows its actions)."""
        keys = self.extra.get("keys")
        return dict(keys) if isinstance(keys, dict) else {}

    def api_key(self) -> str | None:
        """The LLM key from the environment, else the keyring if enabled; never from the file.
        Whatever is found is masked in every later message and log line."""
        key = self._find_api_key()
        remember_secret(key)
        return key

    def _find_api_key(self) -> str | None:
        if self.llm.api_key_env and os.environ.get(self.llm.api_key_env):
            return os.environ[self.llm.api_key_env]
        if self.llm.use_keyring:
            try:
                import keyring  # optional; lazy so a missing backend costs nothing
            except ImportError:
                return None
            try:
                return keyring.get_password("cluestudio", self.llm.base_url)
            except Exception:  # a broken keyring backend must not break scoring settings
                return None
        return None


_SECTIONS: dict[str, type] = {
    "scoring": ScoringSettings, "llm": LLMSettings, "ui": UISettings,
    "workspace": WorkspaceSettings, "renderer": RendererSettings, "ocr": OcrSettings,
}
# Values restricted to a fixed set; the embedder may also be any model name, so it is free.
_CHOICES: dict[tuple[str, str], tuple[str, ...]] = {
    ("scoring", "device"): DEVICES,
    ("scoring", "weight_profile"): WEIGHT_PROFILES,
    ("ui", "theme"): THEMES,
    ("ocr", "language"): OCR_LANGUAGES,
}
# Numbers that only make sense above a floor (a JVM with 16 MB of heap does not start).
_MINIMUM: dict[tuple[str, str], int] = {
    ("renderer", "timeout_s"): 1,
    ("renderer", "max_memory_mb"): 64,
    ("llm", "max_answer_kb"): 1,
}


def settings_from_dict(data: dict[str, Any]) -> tuple[Settings, list[str]]:
    """Settings from parsed TOML, plus a warning for each value that was ignored."""
    warnings: list[str] = []
    extra: dict[str, Any] = {}
    sections: dict[str, Any] = {}
    for name, value in data.items():
        if name not in _SECTIONS or not isinstance(value, dict):
            extra[name] = value
            continue
        cls = _SECTIONS[name]
        default = cls()
        known = {f.name: f for f in fields(cls)}
        kwargs: dict[str, Any] = {}
        for key, raw in value.items():
            if key not in known:
                extra.setdefault(name, {})[key] = raw
                continue
            expected = type(getattr(default, key))
            if not isinstance(raw, expected) or (expected is not bool and isinstance(raw, bool)):
                warnings.append(f"[{name}] {key} = {raw!r}: expected {expected.__name__}; "
                                f"using {getattr(default, key)!r}")
                continue
            choices = _CHOICES.get((name, key))
            if choices and raw not in choices:
                warnings.append(f"[{name}] {key} = {raw!r}: not one of {', '.join(choices)}; "
                                f"using {getattr(default, key)!r}")
                continue
            minimum = _MINIMUM.get((name, key))
            if minimum is not None and raw < minimum:
                warnings.append(f"[{name}] {key} = {raw!r}: below {minimum}; "
                                f"using {getattr(default, key)!r}")
                continue
            kwargs[key] = raw
        sections[name] = cls(**kwargs)
    return Settings(**sections, extra=extra), warnings


def settings_to_dict(settings: Settings) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in _SECTIONS:
        section = dict(asdict(getattr(settings, name)))
        section.update(settings.extra.get(name, {}) if isinstance(settings.extra.get(name),
                                                                   dict) else {})
        out[name] = section
    for name, value in settings.extra.items():
        if name not in _SECTIONS:
            out[name] = value
    return out


def load_settings(path: Path | None = None) -> tuple[Settings, list[str]]:
    """The saved settings (defaults when there is no file) and warnings about bad values."""
    path = path or settings_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Settings(), []
    except OSError as error:
        return Settings(), [f"{path}: could not read ({error}); using defaults"]
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        return Settings(), [f"{path}: not valid TOML ({error}); using defaults"]
    settings, warnings = settings_from_dict(data)
    return settings, [f"{path}: {w}" for w in warnings]


def save_settings(settings: Settings, path: Path | None = None) -> Path:
    """Write atomically (temp file, then replace) so a crash never leaves half a file."""
    import tomli_w

    path = path or settings_path()
    text = _HEADER + tomli_w.dumps(settings_to_dict(settings))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".settings-", suffix=".toml", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except OSError as error:
        raise SettingsError(f"{path}: could not save settings: {error}") from error
    return path


def updated(settings: Settings, **sections: dict[str, Any]) -> Settings:
    """A copy with some fields of some sections changed: ``updated(s, ui={"theme": "dark"})``."""
    changes = {name: replace(getattr(settings, name), **values)
               for name, values in sections.items()}
    return replace(settings, **changes)

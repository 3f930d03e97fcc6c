"""User settings: defaults without a file, round trip, hand edits kept, bad values reported."""

from __future__ import annotations

from cluestudio.core.settings import (
    Settings,
    load_settings,
    save_settings,
    settings_path,
    updated,
)


def test_defaults_without_a_file_and_path_follows_env(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("CLUESTUDIO_CONFIG_DIR", str(tmp_path / "cfg"))
    assert settings_path() == tmp_path / "cfg" / "settings.toml"
    settings, warnings = load_settings()
    assert settings == Settings() and warnings == []


def test_round_trip_keeps_unknown_keys_and_writes_a_commented_file(tmp_path) -> None:
    path = tmp_path / "settings.toml"
    path.write_text('[ui]\ntheme = "dark"\nfont = "Iosevka"\n[plugins]\nfoo = 1\n')
    settings, warnings = load_settings(path)
    assert warnings == [] and settings.ui.theme == "dark"
    changed = updated(settings, scoring={"embedder": "exact", "device": "cpu"})
    save_settings(changed, path)
    text = path.read_text()
    assert text.startswith("# ClueStudio settings")
    assert 'font = "Iosevka"' in text and "[plugins]" in text
    again, _ = load_settings(path)
    assert again == changed and again.scoring.embedder == "exact"


def test_bad_values_fall_back_to_defaults_with_a_warning(tmp_path) -> None:
    path = tmp_path / "settings.toml"
    path.write_text('[ui]\ntheme = "neon"\nblind_grading = "yes"\n[scoring]\ndevice = "cpu"\n')
    settings, warnings = load_settings(path)
    assert settings.ui.theme == "light" and settings.ui.blind_grading is False
    assert settings.scoring.device == "cpu"
    assert len(warnings) == 2 and "neon" in warnings[0]
    path.write_text("[ui\n")
    settings, warnings = load_settings(path)
    assert settings == Settings() and "not valid TOML" in warnings[0]


def test_api_key_comes_from_the_environment_never_the_file(tmp_path, monkeypatch) -> None:
    settings = updated(Settings(), llm={"api_key_env": "MY_KEY"})
    monkeypatch.delenv("MY_KEY", raising=False)
    assert settings.api_key() is None
    monkeypatch.setenv("MY_KEY", "sk-test")
    assert settings.api_key() == "sk-test"
    path = save_settings(settings, tmp_path / "s.toml")
    assert "sk-test" not in path.read_text()

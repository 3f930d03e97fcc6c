"""The settings dialog: edits :class:`~cluestudio.core.settings.Settings`, nothing else.

The dialog returns new settings; saving them to the TOML file and applying them (theme,
blind grading) is the main window's job. The API key is never edited here: it comes from
the environment variable named in the form, or the system keyring.
"""

from __future__ import annotations

from cluestudio.core.ocr.engine import READS_NOTE
from cluestudio.core.settings import (
    DEVICES,
    EMBEDDERS,
    OCR_LANGUAGES,
    THEMES,
    WEIGHT_PROFILES,
    Settings,
    settings_path,
    updated,
)
from cluestudio.gui.qt import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)


def _combo(options: tuple[str, ...], current: str, editable: bool = False) -> QComboBox:
    box = QComboBox()
    box.setEditable(editable)
    box.addItems(list(options))
    if current not in options:
        box.addItem(current)
    box.setCurrentText(current)
    return box


class SettingsDialog(QDialog):
    """Scoring, LLM endpoint, the offline check's language and appearance;
    ``result_settings()`` after ``accept``."""

    def __init__(self, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("ClueStudio settings")
        self._settings = settings
        self.embedder = _combo(EMBEDDERS, settings.scoring.embedder, editable=True)
        self.embedder.setToolTip("exact, minilm, codebert, or a Hugging Face model name/path")
        self.device = _combo(DEVICES, settings.scoring.device)
        self.weights = _combo(WEIGHT_PROFILES, settings.scoring.weight_profile)
        self.base_url = QLineEdit(settings.llm.base_url)
        self.model = QLineEdit(settings.llm.model)
        self.key_env = QLineEdit(settings.llm.api_key_env)
        self.use_keyring = QCheckBox("Look the key up in the system keyring")
        self.use_keyring.setChecked(settings.llm.use_keyring)
        self.key_state = QLabel()
        self.theme = _combo(THEMES, settings.ui.theme)
        self.blind = QCheckBox("Blind grading: hide metrics until the rating is saved")
        self.blind.setChecked(settings.ui.blind_grading)
        self.grader = QLineEdit(settings.ui.grader)
        self.grader.setPlaceholderText(settings.grader_name())
        self.ocr_language = _combo(OCR_LANGUAGES, settings.ocr.language)
        self.ocr_language.setToolTip("auto: guessed from the names' spelling; en, de, fr, es")
        self.embedded = QCheckBox("Where image A carries its PlantUML source, compare with "
                                  "that (no OCR)")
        self.embedded.setToolTip("PlantUML writes the diagram's source into every PNG it "
                                 "renders; off: always read the pixels")
        self.embedded.setChecked(settings.ocr.embedded_source)
        self.ocr_reads = QLabel(READS_NOTE)
        self.ocr_reads.setWordWrap(True)

        scoring = QGroupBox("Scoring")
        form = QFormLayout(scoring)
        form.addRow("Embedder / model", self.embedder)
        form.addRow("Device", self.device)
        form.addRow("Weight profile", self.weights)
        llm = QGroupBox("Model endpoint (OpenAI-compatible VLM / LLM)")
        form = QFormLayout(llm)
        form.addRow("Base URL", self.base_url)
        form.addRow("Model", self.model)
        form.addRow("Key from env variable", self.key_env)
        form.addRow("", self.use_keyring)
        form.addRow("", self.key_state)
        check = QGroupBox("Offline check (OCR of image A)")
        form = QFormLayout(check)
        form.addRow("Language of image A's names", self.ocr_language)
        form.addRow("", self.embedded)
        form.addRow(self.ocr_reads)
        ui = QGroupBox("Appearance and grading")
        form = QFormLayout(ui)
        form.addRow("Theme", self.theme)
        form.addRow("Grader name", self.grader)
        form.addRow("", self.blind)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        where = QLabel(f"Saved to <code>{settings_path()}</code> (a TOML file you may edit).")
        where.setWordWrap(True)
        layout = QVBoxLayout(self)
        for widget in (scoring, llm, check, ui, where, buttons):
            layout.addWidget(widget)
        self.key_env.textChanged.connect(self._update_key_state)
        self.use_keyring.toggled.connect(self._update_key_state)
        self._update_key_state()

    def result_settings(self) -> Settings:
        return updated(
            self._settings,
            scoring={"embedder": self.embedder.currentText().strip() or "minilm",
                     "device": self.device.currentText(),
                     "weight_profile": self.weights.currentText()},
            llm={"base_url": self.base_url.text().strip(), "model": self.model.text().strip(),
                 "api_key_env": self.key_env.text().strip(),
                 "use_keyring": self.use_keyring.isChecked()},
            ui={"theme": self.theme.currentText(), "blind_grading": self.blind.isChecked(),
                "grader": self.grader.text().strip()},
            ocr={"language": self.ocr_language.currentText(),
                 "embedded_source": self.embedded.isChecked()},
        )

    def _update_key_state(self, *_: object) -> None:
        found = updated(self._settings, llm={"api_key_env": self.key_env.text().strip(),
                                             "use_keyring": self.use_keyring.isChecked()})
        self.key_state.setText("API key: found" if found.api_key() else "API key: not set")

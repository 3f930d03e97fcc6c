"""OpenClassGen plugins: the ``python-code`` importer and the ``openclassgen-code`` metric.

The metric compares two Python classes (reference = human-written, candidate = generated)
carried as text in ``MetricInput.plantuml`` — the contract's one text field. BLEU and ROUGE-L
come from the baseline plugins rather than a second implementation; when those are not
installed the values are left out and the explanation says why.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from cluestudio.core.metrics import MetricInput, MetricManifest, MetricResult
from cluestudio.core.model import ClassDiagram
from cluestudio.core.plugins import PluginManifest, metric_manifest, packaged_manifest

_BASELINES = (("bleu", "cluestudio_baselines.bleu", "BleuMetric"),
              ("rouge-l", "cluestudio_baselines.rouge", "RougeLMetric"))


class PythonCodeImporter:
    """``cluestudio.io`` plugin: a .py file, a folder or a corpus row → a class diagram."""

    manifest: ClassVar[PluginManifest] = packaged_manifest(__name__, "io", "python-code")

    def load(self, path: Path) -> ClassDiagram:
        """The diagram of a file or folder (a corpus gives its first parsable row)."""
        from cluestudio_openclassgen.importer import import_code, import_corpus, is_corpus

        if is_corpus(path):
            designs = import_corpus(path, limit=None).designs
            return designs[0].diagram if designs else ClassDiagram()
        return import_code(path)[0].diagram


class OpenClassGenCodeMetric:
    """TSED, BLEU and ROUGE-L between two Python classes (seed 004 §5.2.1, §5.2.3)."""

    manifest: ClassVar[MetricManifest] = metric_manifest(__name__, "openclassgen-code")

    def score(self, reference: MetricInput, candidate: MetricInput) -> MetricResult:
        import importlib

        from cluestudio_openclassgen.extract import parse_python
        from cluestudio_openclassgen.tsed import tsed

        # Parse first so a syntax error names the side and line, not a tree-edit internal.
        parse_python(reference.plantuml, reference.source or "reference")
        parse_python(candidate.plantuml, candidate.source or "candidate")
        values = {"tsed": tsed(reference.plantuml, candidate.plantuml)}
        explanation: dict[str, Any] = {"tsed": "1 - TED/max(|T1|,|T2|) on Python ASTs "
                                               "(Zhang-Shasha, unit costs)"}
        for key, module_name, class_name in _BASELINES:
            try:
                metric = getattr(importlib.import_module(module_name), class_name)()
                result = metric.score(reference, candidate)
                values[key] = float(result.values.get(key, next(iter(result.values.values()))))
            except Exception as error:  # the baseline is optional; say why the value is absent
                explanation[key] = f"not computed: {type(error).__name__}: {error}"
        return MetricResult(values, explanation)

"""Calibration and analysis (DESIGN §5): fit CLUE's weights to human totals and report.

- :class:`LeafCache` / :func:`build_leaf_cache`: leaves of many pairs, re-weighted in ms.
- :func:`calibrate` (a job): optuna TPE over the nine free weights of eq. 11–13 on a
  stratified split; :class:`CalibrationResult` saves a weight profile with provenance.
- :func:`correlation_report`: Pearson/Spearman, p-values, bootstrap CIs for any metrics.
- :func:`metric_disagreements` / :func:`grader_disagreements`: the disagreement queues.
- :mod:`.plots` (matplotlib, imported on use) and :func:`write_report` for the report folder.

Inter-rater agreement lives in :mod:`cluestudio.core.agreement`. optuna and matplotlib are
imported only inside the functions that need them.
"""

from __future__ import annotations

from cluestudio.core.calibrate.fit import CalibrationResult, Evaluation, calibrate, evaluate
from cluestudio.core.calibrate.leafcache import LeafCache, build_leaf_cache
from cluestudio.core.calibrate.queue import (
    GraderDisagreement,
    MetricDisagreement,
    grader_disagreements,
    metric_disagreements,
)
from cluestudio.core.calibrate.report import write_report
from cluestudio.core.calibrate.search import Objective
from cluestudio.core.calibrate.space import FREE_NAMES, to_free, to_weights, uniform_free
from cluestudio.core.calibrate.split import Split, score_bins, stratified_split
from cluestudio.core.calibrate.stats import (
    Correlation,
    CorrelationReport,
    correlate,
    correlation_report,
)

__all__ = [
    "FREE_NAMES", "CalibrationResult", "Correlation", "CorrelationReport", "Evaluation",
    "GraderDisagreement", "LeafCache", "MetricDisagreement", "Objective", "Split",
    "build_leaf_cache", "calibrate", "correlate", "correlation_report", "evaluate",
    "grader_disagreements", "metric_disagreements", "score_bins", "stratified_split",
    "to_free", "to_weights", "uniform_free", "write_report",
]

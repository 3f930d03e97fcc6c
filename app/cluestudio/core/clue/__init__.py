"""CLUE (OODEval §4, DESIGN §3): structural and semantic similarity of two class diagrams.

Public API: :class:`ClueScorer` (``score``, ``score_pairs`` job, ``build_leaves`` job,
``evaluate``), :class:`ClueResult`, :class:`ClueWeights`, :class:`LeafBatch` (re-weighting
cached leaves for calibration) and :data:`METRIC_NAMES`.
"""

from __future__ import annotations

from cluestudio.core.clue.batch import METRIC_NAMES, ClueScores, LeafBatch, PairMatrices
from cluestudio.core.clue.explain import ClueExplanation, Element, Match, Matching
from cluestudio.core.clue.leaves import DiagramIndex, PairLeaves
from cluestudio.core.clue.optmatch import NORMALIZATIONS, optmatch
from cluestudio.core.clue.relations import load_lut, multiplicity_match, sim_rm
from cluestudio.core.clue.scorer import ClueResult, ClueScorer, Pair, score
from cluestudio.core.clue.similarity import PROFILES, SimilarityProfile, get_profile
from cluestudio.core.clue.weights import GROUPS, ClueWeights, WeightsError

__all__ = [
    "GROUPS", "METRIC_NAMES", "NORMALIZATIONS", "PROFILES", "ClueExplanation", "ClueResult",
    "ClueScorer", "ClueScores", "ClueWeights", "DiagramIndex", "Element", "LeafBatch", "Match",
    "Matching", "Pair", "PairLeaves", "PairMatrices", "SimilarityProfile", "WeightsError",
    "get_profile", "load_lut", "multiplicity_match", "optmatch", "score", "sim_rm",
]

"""The element diff: pure model algorithms, no workspace.

- :mod:`.records`: the shared records (:class:`Status`, :class:`ElementDiff`,
  :class:`DiagramDiff`, :class:`DiffThresholds`);
- :mod:`.elements`: classify each element of a candidate from a CLUE explanation
  (:func:`diff_from_explanation`) or from two texts (:func:`diff_texts`);
- :mod:`.annotation` (on :mod:`.colouring`'s line edits): the candidate's own PlantUML
  coloured by the diff (:func:`annotate`).

The workspace side (the stored explanation of a submission's text, the worker-process job)
is the application layer's: app/diagram_diff.py.
"""

from cluestudio.core.diff.annotation import Annotation, annotate
from cluestudio.core.diff.elements import diff_diagrams, diff_from_explanation, diff_texts
from cluestudio.core.diff.records import DiagramDiff, DiffThresholds, ElementDiff, Status

__all__ = ["Annotation", "DiagramDiff", "DiffThresholds", "ElementDiff", "Status", "annotate",
           "diff_diagrams", "diff_from_explanation", "diff_texts"]

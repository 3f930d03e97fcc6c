"""Grade by group: submissions of a task whose diagrams say the same, so one rating serves them.

Gradescope's answer groups and Artemis Compass's clusters, for diagrams, with one rule that
keeps a bulk rating from ever being a wrong one: **a group holds only submissions whose
diagrams are equal once layout, declaration order, whitespace and case are ignored** (their
canonical forms, :mod:`cluestudio.core.canonical`: the same classes with the same attributes
and operations, the same relations with type, direction, multiplicities and roles, the same
notes). CLUE near 1 is not "the same diagram": it forgives wrong relation types,
multiplicities and renamed members by design, which is what a rubric marks down. So CLUE only
*suggests*: submissions at CLUE ≥ ``threshold`` both ways from a group's diagram are listed as
"near, differs" with their element differences (:func:`cluestudio.core.canonical.differences`),
and they get the group's rating only when the grader has seen those differences and
included them.

Cost: submissions of equal form share one bucket (never scored). Suggestions come from leader
clustering over the buckets (most common diagram first, each free bucket joining the first
leader it is near: the leader suggests those, they suggest the leader), so each suggestion
is near the group it is listed under (no chaining). A pair of buckets is scored only if an upper
bound of CLUE from their class-name sets and sizes (:func:`clue_upper_bound`) reaches the
threshold both ways: exact arithmetic on the weights, so pruning never drops a suggestion.

Non-class tasks (component, SysML, …) have no canonical form nor CLUE: their submissions
group when their texts are equal line by line, ignoring indentation, blank lines and ``'``
comments.

Modules: :mod:`.records` (the options, items and groups), :mod:`.bound` (CLUE's upper bound
from names and sizes), :mod:`.leaders` (the clustering, :func:`group_items`). The workspace
side (which texts to group, the worker-process job, applying a rating to a group) is the
application layer's: app/groups.py.
"""

from cluestudio.core.groups.bound import clue_upper_bound
from cluestudio.core.groups.leaders import group_items, text_view
from cluestudio.core.groups.records import (
    DEFAULT_THRESHOLD,
    Grouping,
    GroupItem,
    GroupMember,
    GroupOptions,
    SubmissionGroup,
)

__all__ = ["DEFAULT_THRESHOLD", "GroupItem", "GroupMember", "GroupOptions", "Grouping",
           "SubmissionGroup", "clue_upper_bound", "group_items", "text_view"]

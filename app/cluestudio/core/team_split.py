"""Splitting a course among graders, with an overlap graded twice for agreement (issue 27).

``by="submission"``: the submissions are shuffled (seeded); ``overlap`` of them go to two
graders (pairs in rotation), the rest to one grader each, always the least loaded, so every
grader gets an equal share ±1. ``by="task"``: each task goes to one grader (in rotation) and
``overlap`` of its submissions also to the next grader — a grader then knows one reference
solution well. Pure: in goes (submission id, task id), out comes who grades what.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from cluestudio.core.errors import ClueStudioError

SPLITS = ("submission", "task")


def _check_name(name: str) -> None:
    """A grader's name becomes their pack's file name (``packs/<name>.zip``): one that is a
    path (``../x``, ``a/b``) or hides the file (``.x``) would put the pack elsewhere."""
    if (any(c in name for c in "/\\:") or name.startswith(".")
            or any(ord(c) < 32 or ord(c) == 127 for c in name)):
        raise ClueStudioError(f"grader name {name!r} cannot name a pack file: no /, \\, :, "
                              "control characters or leading dot")


def plan_split(submissions: Sequence[tuple[int, str]], graders: Sequence[str], *,
               overlap: float = 0.1, by: str = "submission", seed: int = 0
               ) -> dict[int, tuple[str, ...]]:
    """submission id → the graders who grade it (one, or two on the overlap)."""
    names = list(dict.fromkeys(g.strip() for g in graders if g.strip()))
    for name in names:
        _check_name(name)
    if len(names) < 1:
        raise ClueStudioError("a split needs at least one grader")
    if not 0 <= overlap <= 1:
        raise ClueStudioError(f"the overlap is a fraction 0..1, not {overlap:g}")
    if overlap > 0 and len(names) < 2:
        raise ClueStudioError("an overlap needs two graders or more")
    if by not in SPLITS:
        raise ClueStudioError(f"split by {' or '.join(SPLITS)}, not {by!r}")
    rng = random.Random(seed)
    if by == "task":
        return _by_task(submissions, names, overlap, rng)
    order = [sid for sid, _ in submissions]
    rng.shuffle(order)
    twice = round(overlap * len(order))
    load = dict.fromkeys(names, 0)
    plan: dict[int, tuple[str, ...]] = {}
    for index, sid in enumerate(order[:twice]):
        pair = (names[index % len(names)], names[(index + 1) % len(names)])
        plan[sid] = pair
        for name in pair:
            load[name] += 1
    for sid in order[twice:]:
        least = min(names, key=lambda n: (load[n], names.index(n)))
        plan[sid] = (least,)
        load[least] += 1
    return plan


def _by_task(submissions: Sequence[tuple[int, str]], names: list[str], overlap: float,
             rng: random.Random) -> dict[int, tuple[str, ...]]:
    tasks = sorted({task for _, task in submissions})
    plan: dict[int, tuple[str, ...]] = {}
    for index, task in enumerate(tasks):
        owner, second = names[index % len(names)], names[(index + 1) % len(names)]
        ids = [sid for sid, t in submissions if t == task]
        rng.shuffle(ids)
        twice = round(overlap * len(ids))
        for position, sid in enumerate(ids):
            plan[sid] = (owner, second) if position < twice else (owner,)
    return plan

"""Issue 24, item 1: grade by group never writes a wrong grade.

A group may hold only submissions whose diagrams say the same once layout, declaration
order, whitespace and case are ignored (core/canonical.py); CLUE only suggests near members,
apart, with their differences. Measured on the sample course as build_sample.py makes it
(core/synth.py's seeded mutations and the oracle's rubric truth of each submission), and on
every mutation kind synth has.
"""

from __future__ import annotations

import importlib.util
import itertools
import random
from dataclasses import replace
from types import ModuleType

import pytest

from cluestudio.core import synth
from cluestudio.core.canonical import canonical_form, differences, same_diagram
from cluestudio.core.groups import Grouping, GroupItem, group_items
from cluestudio.core.jobs import run_job
from cluestudio.core.model import ClassDiagram
from cluestudio.core.plantuml import parse_plantuml, write_plantuml
from cluestudio.resources_path import annotations_dir

SAMPLE = annotations_dir() / "sample"
TASKS = sorted(p.name for p in (SAMPLE / "tasks").iterdir() if p.is_dir())


def _build_sample() -> ModuleType:
    """annotations/sample/build_sample.py: how the sample course and its truths are made."""
    spec = importlib.util.spec_from_file_location("build_sample", SAMPLE / "build_sample.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _reference(task: str) -> ClassDiagram:
    text = (SAMPLE / "tasks" / task / "reference.puml").read_text(encoding="utf-8")
    return parse_plantuml(text).diagram


def _rewritten(diagram: ClassDiagram, rng: random.Random, style: str) -> str:
    """The same diagram as another student would type it: classes, members and relations in
    another order, another visual style, other spacing and letter case in the header."""
    classes = [replace(c, attributes=tuple(rng.sample(c.attributes, len(c.attributes))),
                       methods=tuple(rng.sample(c.methods, len(c.methods))))
               for c in diagram.classes]
    rng.shuffle(classes)
    relations = rng.sample(diagram.relations, len(diagram.relations))
    text = write_plantuml(ClassDiagram(tuple(classes), tuple(relations), diagram.notes))
    text = text.replace(" : ", "  :  ").replace("(", "( ").replace("class ", "class  ")
    return synth.styled(text, style)


def _truth(scores: dict[str, float]) -> tuple[tuple[str, float], ...]:
    return tuple(sorted(scores.items()))


def _mixed(grouping: Grouping, truth: dict[int, object]) -> list[tuple[int, ...]]:
    return [g.submission_ids for g in grouping.groups
            if len({truth[sid] for sid in g.submission_ids}) > 1]


def test_the_sample_course_has_no_group_that_mixes_rubric_truths() -> None:
    build = _build_sample()
    groups_seen = near_mixing = 0
    for task in TASKS:
        candidates = synth.generate(_reference(task), 22, seed=2024, prefix="s")
        # Every submission twice: as generated and as another student would type it.
        rng = random.Random(task)
        items, truth = [], {}
        for i, candidate in enumerate(candidates):
            score = _truth(build.oracle_scores(candidate))
            for k, text in enumerate((write_plantuml(candidate.diagram),
                                      _rewritten(candidate.diagram, rng,
                                                 list(synth.STYLES)[i % 6]))):
                sid = 2 * i + k + 1
                items.append(GroupItem(sid, f"{candidate.source_id}{'ab'[k]}", text))
                truth[sid] = score
        grouping = run_job(group_items(items, task))
        assert not grouping.unreadable
        assert _mixed(grouping, truth) == []  # the measure: 0 groups mixing truths
        # Each submission is with its rewritten twin, so the groups are not trivially safe.
        for sid in range(1, len(items) + 1, 2):
            group = grouping.group_of(sid)
            assert group is not None and sid + 1 in group.submission_ids
        groups_seen += len(grouping.groups)
        # CLUE alone would have mixed them: its suggestions reach other truths, each one
        # shown with at least one difference.
        for group in grouping.groups:
            for member in group.near:
                assert member.differences
                near_mixing += truth[member.submission_id] != truth[group.representative]
    assert groups_seen >= 3 * 20 and near_mixing > 20


def _mutated(kind: str, reference: ClassDiagram, seed: int
             ) -> tuple[ClassDiagram, synth.Mutation]:
    for attempt in range(200):
        found = synth._apply(kind, reference, random.Random(f"{kind}:{seed}:{attempt}"))
        if found is not None:
            return found
    raise AssertionError(f"{kind} never applies to this reference")


@pytest.mark.parametrize("kind", synth.MUTATIONS)
def test_a_mutated_copy_is_never_grouped_with_the_original(kind: str) -> None:
    rng = random.Random(kind)
    for task, seed in itertools.product(TASKS, range(4)):
        reference = _reference(task)
        mutated, mutation = _mutated(kind, reference, seed)
        assert not same_diagram(reference, mutated), mutation
        assert differences(reference, mutated), mutation
        texts = [write_plantuml(reference), _rewritten(reference, rng, "plain"),
                 write_plantuml(mutated), _rewritten(mutated, rng, "handwritten")]
        grouping = run_job(group_items([GroupItem(i + 1, f"s{i + 1}", t)
                                        for i, t in enumerate(texts)], task))
        original, copy = grouping.group_of(1), grouping.group_of(3)
        assert original is not None and original.submission_ids == (1, 2), mutation
        assert copy is not None and copy.submission_ids == (3, 4), mutation
        # Near by CLUE or not, the mutated copy is at most a suggestion, with what differs.
        for member in original.near:
            assert member.submission_id in (3, 4) and member.differences


def test_the_canonical_form_ignores_layout_order_whitespace_and_case_only() -> None:
    base = parse_plantuml("""@startuml
abstract class Person {
  - name : String
  + greet(other : Person) : void
}
class Patient <<entity>>
Patient --|> Person
Person "1" -- "0..*" Patient : knows >
@enduml""").diagram
    same = parse_plantuml("""@startuml
skinparam monochrome true
left to right direction
person "1"   --   "0..*"   patient : KNOWS
class  patient  <<Entity>>
abstract class person {
  +greet( other:person ):VOID
  -NAME: string
}
patient -up-|> person
@enduml""").diagram
    assert canonical_form(base) == canonical_form(same) and differences(base, same) == ()
    assert canonical_form(base).digest == canonical_form(same).digest
    changes = {
        "visibility": base.__class__(tuple(
            replace(c, attributes=tuple(replace(a, visibility="+") for a in c.attributes))
            for c in base.classes), base.relations),
        "kind": base.__class__(tuple(replace(c, kind=type(c.kind)("class"))
                                     for c in base.classes), base.relations),
        "multiplicity": base.__class__(base.classes, tuple(
            replace(r, label=replace(r.label, to="1..*")) for r in base.relations)),
        "direction": base.__class__(base.classes, tuple(
            replace(r, begin=r.end, end=r.begin) for r in base.relations)),
        "role": base.__class__(base.classes, tuple(replace(r, name="treats")
                                                   for r in base.relations)),
    }
    for what, changed in changes.items():
        assert not same_diagram(base, changed), what
        found = differences(base, changed)
        assert found and all(d.change == "changed" for d in found), (what, found)


def test_differences_say_what_is_missing_extra_or_changed() -> None:
    base = parse_plantuml("@startuml\nclass A {\n  - x : int\n}\nclass B\nclass C\n"
                          "interface E\nA --> B\nA *-- C\nB --> C\n@enduml").diagram
    other = parse_plantuml("@startuml\nclass A {\n  - x : long\n  - y : int\n}\nclass B\n"
                           "class D\nA --> B\nA o-- C\nC --> B\n@enduml").diagram
    assert [str(d) for d in differences(base, other)] == [
        "changed attribute A: -x : int → -x : long",
        "extra attribute A: -y : int",
        "missing interface E",
        "extra class D",
        "changed relation A *-- C — composition → aggregation",
        "changed relation B --> C — direction reversed",
    ]
    assert differences(other, base)[0].text == "A: -x : long → -x : int"
    # Multiplicities are told by the class at their end, whichever way the arrow is written.
    one = parse_plantuml('@startuml\nA "1" -- "*" B : has\nA "0..1" -- "1" A\n@enduml').diagram
    two = parse_plantuml('@startuml\nB "1..*" -- "1" A : owns\nA "0..1" -- "*" A\n@enduml'
                         ).diagram
    assert [str(d) for d in differences(one, two)] == [
        'changed relation A "1" --> "*" B : has — direction reversed, multiplicity at B * '
        "→ 1..*, name 'has' → 'owns'",
        'changed relation A "0..1" --> "1" A — multiplicity at A 1 → *',
    ]


def test_a_student_whose_association_points_the_other_way_is_not_grouped() -> None:
    # `Doctor <-- Department` (Department navigates to Doctor) read as `Doctor --> Department`:
    # grade by group put the reversed arrow, a seeded mistake (reverse_relation), in the
    # rated diagram's group; `Department --> Doctor`, the same arrow written the other way
    # round, was "near, differs: direction reversed".
    def one(link: str) -> ClassDiagram:
        return parse_plantuml(f"@startuml\nclass Doctor\nclass Department\n{link}\n@enduml\n"
                              ).diagram

    rated = one('Doctor "*" --> "1" Department : works in')
    assert not same_diagram(rated, one('Doctor "*" <-- "1" Department : works in'))
    assert [str(d) for d in differences(rated, one('Doctor "*" <-- "1" Department : works in'))
            ] == ['changed relation Doctor "*" --> "1" Department : works in — direction '
                  'reversed']
    assert same_diagram(rated, one('Department "1" <-- "*" Doctor : works in'))
    assert not same_diagram(rated, one('Doctor "*" -- "1" Department : works in'))
    assert "navigability" in str(differences(rated, one('Doctor "*" -- "1" Department : works in'
                                                        ))[0])

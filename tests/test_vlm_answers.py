"""The deterministic answer parser, EM/RelAcc, and the prompts taken from seed 003 / 000."""

from __future__ import annotations

import pytest

from cluestudio.core.vlm.answers import (
    exact_match,
    normalize_name,
    parse_class_list,
    parse_truth,
    relation_correct,
)
from cluestudio.core.vlm.conversion import extract_plantuml
from cluestudio.core.vlm.prompts import (
    RELATIONS,
    load_convert_prompts,
    load_probe_prompts,
)


@pytest.mark.parametrize(("answer", "expected"), [
    # The output forms the paper asks for and the wrappers its parser handles (App. B).
    ("True", "True"), ("False", "False"), ("Unknown", "Unknown"),
    ("true.", "True"), ("false.", "False"), ("TRUE", "True"), ("  False\n", "False"),
    ("**False**", "False"), ("**True**.", "True"), ("*Unknown*", "Unknown"),
    ("`True`", "True"), ("'False'", "False"), ('"True"', "True"),
    ("```\nTrue\n```", "True"), ("```text\nFalse\n```", "False"),
    ("Answer: True", "True"), ("The answer is: False.", "False"),
    ("Final answer - true", "True"),
    ("Yes", "True"), ("No.", "False"), ("Yes, Dog inherits from Animal.", "True"),
    ("It is not true that Dog inherits from Animal.", "False"),
    ("The relation direction cannot be determined.", "Unknown"),
    ('{"answer": "False"}', "False"), ("{\"answer\": true}", "True"),
    ("<think>The arrow points up, so true... wait</think>False", "False"),
    ("True or False", "Unknown"), ("", "Unknown"), ("maybe", "Unknown"),
    ("I think it's unclear", "Unknown"),
])
def test_truth_parser(answer: str, expected: str) -> None:
    assert parse_truth(answer) == expected


@pytest.mark.parametrize(("answer", "expected"), [
    ('["Dog", "Animal"]', ["Dog", "Animal"]),
    ('```json\n["Dog", "Animal"]\n```', ["Dog", "Animal"]),
    ('Here are the classes: ["Dog", "Animal"]. Done.', ["Dog", "Animal"]),
    ("['Dog', 'Animal']", ["Dog", "Animal"]),
    ('{"classes": ["D", "A"]}', ["D", "A"]),
    ("[]", []),
    ('<think>["X"]</think>["Dog"]', ["Dog"]),
    ('["Dog", "Animal"', None),  # malformed JSON: unresolved, counts as wrong
    ("Dog, Animal", None),
    ("", None),
])
def test_class_list_parser(answer: str, expected: list[str] | None) -> None:
    assert parse_class_list(answer) == expected


def test_em_normalizes_case_punctuation_and_order() -> None:
    assert exact_match(["animal", "Dog "], ["Dog", "Animal"])
    assert exact_match(["Golden Retriever", "class Dog"], ["GoldenRetriever", "Dog"])
    assert exact_match(["Dog", "Dog", "Animal"], ["Dog", "Animal"])  # a set match
    assert not exact_match(["Dog"], ["Dog", "Animal"])
    assert not exact_match(["Dog", "Animal", "Cat"], ["Dog", "Animal"])
    assert not exact_match(None, ["Dog"])
    assert normalize_name("<<entity>> Order_Line") == "orderline"


def test_relacc_counts_unknown_as_wrong() -> None:
    assert relation_correct("True", True) and relation_correct("False", False)
    assert not relation_correct("Unknown", True) and not relation_correct("Unknown", False)


def test_probe_prompts_are_the_papers() -> None:
    prompts = load_probe_prompts("v1")
    assert prompts.system.text.startswith("You are an accurate UML diagram reasoning assistant.")
    stage1 = prompts.stage1.fill(relation="inheritance", number=2)
    assert "showing inheritance relationships" in stage1
    assert "contains 2 classes" in stage1
    assert stage1.endswith("Output [] if the image is missing or unreadable.")
    assert set(prompts.rules.rules) == set(RELATIONS)
    assert prompts.rules["inheritance"].ask("Dog", "Animal") == \
        "Does class Dog inherit from class Animal?"
    assert prompts.rules["aggregation"].ask("Team", "Player") == \
        "Is class Team the whole and class Player the part?"
    assert prompts.rules["dependency"].ask("A", "B") == "Does class A depend on class B?"
    assert "hollow diamond" in prompts.rules["aggregation"].rule
    stage2 = prompts.stage2.fill(relation="inheritance", count_word="Two",
                                 class_names="Animal, Dog", rule="R", question="Q?")
    assert "contains Two classes: Animal, Dog." in stage2
    assert "The question is: Q?" in stage2
    assert "<!--" not in stage2 and "{{" not in stage2
    assert prompts.version.startswith("probe_system_v1@")


def test_convert_prompt_keeps_seed000_instructions() -> None:
    prompts = load_convert_prompts("v1")
    assert "start with @startuml and end with @enduml tags" in prompts.instruction.fill()
    assert "{{" not in prompts.repair.fill(error="line 3: bad arrow")
    assert "line 3: bad arrow" in prompts.repair.fill(error="line 3: bad arrow")


@pytest.mark.parametrize(("answer", "expected"), [
    ("@startuml\nclass A\n@enduml", "@startuml\nclass A\n@enduml"),
    ("Sure!\n```plantuml\n@startuml\nclass A\n@enduml\n```\nHope it helps",
     "@startuml\nclass A\n@enduml"),
    ("```plantuml\nclass A\nA <|-- B\n```", "@startuml\nclass A\nA <|-- B\n@enduml"),
    ("@startuml\nclass A\nclass B", "@startuml\nclass A\nclass B\n@enduml"),  # cut off
    ("I cannot read this image.", None),
])
def test_extract_plantuml(answer: str, expected: str | None) -> None:
    assert extract_plantuml(answer) == expected


@pytest.mark.parametrize(("answer", "expected"), [
    # Models that reason before answering: the last verdict counts.
    ("The triangle points at Mammal, so Dog inherits from Mammal. True", "True"),
    ("True? Let me check. The hollow triangle is at Dog, so it is False.", "False"),
    ("False. Wait: the triangle touches Animal, so the answer is... True", "True"),
    ("Answer: True. Hmm, no. Final answer: False", "False"),
    ("No arrow is unclear here; the diamond sits at Team.\n\nTherefore: True", "True"),
    ("Looking at the arrowheads: no arrow is a", "Unknown"),  # cut off before a verdict
    ("The arrow points up. Is it True or False? Hard to say: True or False.", "Unknown"),
    ("<think>long reasoning that never ends", "Unknown"),
])
def test_truth_parser_reads_the_last_verdict(answer: str, expected: str) -> None:
    assert parse_truth(answer) == expected


def test_em_alias_table() -> None:
    from cluestudio.core.vlm.answers import alias_rules, name_aliases

    assert len(alias_rules()) >= 5 and all(rule.why for rule in alias_rules())
    gold = ["Dog", "Animal"]
    assert exact_match(["C Dog", "(C) Animal"], gold)  # the class icon read as text
    assert exact_match(["Ⓒ Dog", "CAnimal"], gold)
    assert exact_match(["Dog class", "zoo.Animal"], gold)
    assert exact_match(["1. Dog", "- Animal"], gold)
    assert exact_match(["Repository<T>"], ["Repository"])
    # An alias is used only where the name as read matches nothing, never against a
    # correct reading: "CD" stays "CD" for a prior-free gold name "CD".
    assert exact_match(["CD", "A"], ["CD", "A"]) and not exact_match(["D", "A"], ["CD", "A"])
    assert exact_match(["CDog"], ["CDog"]) and not exact_match(["CDog"], ["Dog", "CDog"])
    assert not exact_match(["C Dog"], ["Cat"])  # an alias is no licence to guess
    assert "dog" in name_aliases("C Dog")

"""The offline first-draft converter (image A → PlantUML without a VLM), tested through its
plugin class directly: its entry point appears in installed metadata only after a
reinstall, so the registry is built here from a hand-made entry point."""

from __future__ import annotations

import random
from importlib.metadata import EntryPoint

import pytest

from cluestudio.core.draft.plugin import OfflineDraftConverter
from cluestudio.core.jobs import CancelToken, run_job
from cluestudio.core.model import RelationType
from cluestudio.core.plugins import PluginRegistry
from cluestudio.core.vlm.backend import BackendError, ImageInput, VLMRequest
from cluestudio.core.vlm.conversion import convert_image, extract_plantuml, parser_checker
from cluestudio.core.vlm.factory import BackendOptions, make_backend

pytest.importorskip("rapidocr", reason="the ocr extra is not installed")
pytestmark = [pytest.mark.java, pytest.mark.xdist_group("ocr")]

TRUTH = """@startuml
abstract class Vehicle {
  - plate : String
  - seats : int
  + drive(distance : int) : void
}
class Car {
  - doors : int
}
class Garage {
  - address : String
}
Car --|> Vehicle
Garage "1" --> "0..*" Car : stores
@enduml
"""


@pytest.fixture(scope="module")
def images() -> dict[str, bytes]:
    from cluestudio.core.synth import render_look

    return {look: render_look(TRUTH, look, random.Random(7)) for look in ("default", "photo")}


def _draft(image: bytes):
    from cluestudio.core.plantuml import parse_plantuml

    answer = OfflineDraftConverter().complete(VLMRequest("convert", (ImageInput.from_bytes(
        image),))).text
    puml = extract_plantuml(answer)
    assert puml is not None
    return parse_plantuml(puml).diagram


@pytest.mark.parametrize("look", ["default", "photo"])
def test_the_draft_has_the_classes_and_members_of_the_image(images, look) -> None:
    draft = _draft(images[look])
    assert set(draft.class_names) == {"Vehicle", "Car", "Garage"}
    members = {c.name: ({a.name for a in c.attributes}, {m.name for m in c.methods})
               for c in draft.classes}
    assert members["Vehicle"] == ({"plate", "seats"}, {"drive"})
    assert members["Car"][0] == {"doors"} and members["Garage"][0] == {"address"}
    vehicle = draft.class_named("Vehicle")
    assert vehicle is not None and vehicle.methods[0].params[0].name == "distance"


def test_the_draft_traces_relations_with_direction_and_label(images) -> None:
    draft = _draft(images["default"])
    found = {(r.type, r.begin, r.end) for r in draft.relations}
    assert (RelationType.GENERALIZATION, "Car", "Vehicle") in found
    stores = [r for r in draft.relations if {r.begin, r.end} == {"Garage", "Car"}]
    assert len(stores) == 1 and stores[0].name == "stores"
    assert {stores[0].label.from_, stores[0].label.to} == {"1", "0..*"}


def test_it_runs_inside_the_vlm_conversion_job(images) -> None:
    backend = make_backend(BackendOptions(backend="offline"))  # no --model needed
    assert isinstance(backend, OfflineDraftConverter)
    result = run_job(convert_image(ImageInput.from_bytes(images["default"]), backend,
                                   CancelToken(), check=parser_checker, render=None))
    assert result.ok and len(result.attempts) == 1 and result.usage.total_tokens == 0
    assert "class Garage" in (result.puml or "")


def test_a_request_without_an_image_is_refused() -> None:
    with pytest.raises(BackendError, match="needs image A"):
        OfflineDraftConverter().complete(VLMRequest("convert"))


def test_the_plugin_is_declared_and_loads_from_its_entry_point() -> None:
    point = EntryPoint("offline-draft", "cluestudio.core.draft.plugin:OfflineDraftConverter",
                       "cluestudio.converters")
    registry = PluginRegistry([point])
    status = registry.status("converter", "offline-draft")
    assert status.usable and status.manifest.inputs == ("image",)
    assert status.manifest.optional_dependencies == ("rapidocr",)
    assert registry.load("converter", "offline-draft") is OfflineDraftConverter
    assert OfflineDraftConverter.manifest.kinds == ("converter",)


def test_a_first_letter_whose_case_ocr_cannot_see_follows_the_diagrams_convention() -> None:
    from cluestudio.core.draft.classes import DraftClass, in_diagram_case

    def named(*names: str) -> list[str]:
        return [c.name for c in in_diagram_case(
            [DraftClass(n, "class", "", (), None) for n in names])]  # type: ignore[arg-type]

    # an italic "Vehicle" read as "vehicle": Garage and Order say names are capitalised
    assert named("vehicle", "Garage", "Order") == ["Vehicle", "Garage", "Order"]
    # a letter whose lower case has its own shape is believed ("garage" stays)
    assert named("vehicle", "garage", "order") == ["vehicle", "garage", "order"]
    assert named("garage", "Part", "Team", "vehicle") == ["garage", "Part", "Team", "Vehicle"]
    # nothing to learn the convention from, or a name that would clash: left as read
    assert named("car", "seat") == ["car", "seat"]
    assert named("car", "Car", "Garage") == ["car", "Car", "Garage"]

"""The offline draft of renders in PlantUML themes whose class boxes are a dark or gradient
fill with light text, or a grey gradient with a faint border (silver, lightgray: these two
failed before preparation 7), or a dark page (crt-green): the layout finds their boxes by
the fill's edges, not by dark ink."""

from __future__ import annotations

import pytest

from cluestudio.core.draft.plugin import OfflineDraftConverter
from cluestudio.core.vlm.backend import ImageInput, VLMRequest
from cluestudio.core.vlm.conversion import extract_plantuml

pytest.importorskip("rapidocr", reason="the ocr extra is not installed")
pytestmark = [pytest.mark.java, pytest.mark.xdist_group("ocr")]

DIAGRAM = """@startuml
!theme {theme}
class Customer {{
  name : String
  email : String
  +order() : void
}}
class Invoice {{
  total : int
  +pay() : void
}}
class Item {{
  price : int
}}
Customer "1" -- "*" Invoice : places
Invoice *-- Item
@enduml
"""


@pytest.mark.parametrize("theme", ["spacelab", "amiga", "silver", "lightgray", "crt-green"])
def test_a_dark_filled_theme_drafts_its_classes_and_members(theme: str) -> None:
    from cluestudio.core.plantuml import parse_plantuml
    from cluestudio.core.synth import render_png_batch

    [png] = render_png_batch([DIAGRAM.format(theme=theme)])
    answer = OfflineDraftConverter().complete(VLMRequest("convert", (ImageInput.from_bytes(
        png),))).text
    puml = extract_plantuml(answer)
    assert puml is not None
    draft = parse_plantuml(puml).diagram
    assert set(draft.class_names) == {"Customer", "Invoice", "Item"}
    customer = draft.class_named("Customer")
    assert customer is not None
    assert {a.name for a in customer.attributes} == {"name", "email"}

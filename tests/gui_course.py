"""A small course folder for workbench tests: the sample tasks plus a few submissions.

Each submission has an image A (drawn with Pillow: boxes with class names, like a photo of a
diagram) and a model's PlantUML conversion; one conversion is a little wrong on purpose.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from cluestudio.resources_path import annotations_dir

CONVERSIONS = {
    "s01": "@startuml\nclass Book {\n  title : String\n}\nclass Member\n"
           "Member \"1\" -- \"*\" Book : borrows\n@enduml\n",
    "s02": "@startuml\nclass Book\nclass Loan {\n  due : Date\n}\nLoan --> Book\n@enduml\n",
    "s03": "@startuml\nclass Book\nclass Member\nclass Loan\nLoan --> Member\n"
           "Loan --> Book\n@enduml\n",
}


def _image(path: Path, names: list[str]) -> None:
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (520, 360), "white")
    draw = ImageDraw.Draw(image)
    for i, name in enumerate(names):
        x, y = 30 + 160 * (i % 3), 40 + 170 * (i // 3)
        draw.rectangle([x, y, x + 130, y + 90], outline="black", width=2)
        draw.line([x, y + 28, x + 130, y + 28], fill="black", width=2)
        draw.text((x + 10, y + 8), name, fill="black")
    image.save(path)


def make_course(root: Path, tasks: tuple[str, ...] = ("library_loans", "online_shop")) -> Path:
    """Copy the sample tasks under ``root`` and add three submissions to each."""
    for task in tasks:
        source = annotations_dir() / "sample" / "tasks" / task
        target = root / "tasks" / task
        (target / "submissions").mkdir(parents=True, exist_ok=True)
        for name in ("requirement.md", "reference.puml"):
            shutil.copy(source / name, target / name)
        for sid, puml in CONVERSIONS.items():
            (target / "submissions" / f"{sid}.puml").write_text(puml, encoding="utf-8")
            names = [line.split()[1] for line in puml.splitlines() if line.startswith("class ")]
            _image(target / "submissions" / f"{sid}.png", names)
    return root

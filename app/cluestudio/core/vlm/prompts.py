"""Prompt files of ``resources/prompts/``, loaded by name and version, filled by placeholder.

A prompt's identity is its file name (``probe_stage1_v1``) plus a short hash of its text, so
results record exactly which prompt produced them, and an edit without a version bump shows.
A leading ``<!-- ... -->`` comment in a file is provenance for people and is not sent.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from cluestudio.core.errors import ClueStudioError

_COMMENT = re.compile(r"\A\s*<!--.*?-->\s*", re.DOTALL)
_PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")

RELATIONS = ("inheritance", "aggregation", "composition", "dependency")


class PromptError(ClueStudioError):
    """A prompt file is missing, malformed, or a placeholder has no value."""


def prompts_dir() -> Path:
    from cluestudio.resources_path import resources_dir

    return resources_dir() / "prompts"


@dataclass(frozen=True)
class Prompt:
    name: str  # file stem, e.g. "probe_stage1_v1"
    text: str

    @property
    def version(self) -> str:
        """``name@hash``: what results store as the prompt version."""
        digest = hashlib.sha256(self.text.encode("utf-8")).hexdigest()[:8]
        return f"{self.name}@{digest}"

    def fill(self, **values: object) -> str:
        missing = set(_PLACEHOLDER.findall(self.text)) - set(values)
        if missing:
            raise PromptError(f"prompt {self.name}: no value for {sorted(missing)}")
        return _PLACEHOLDER.sub(lambda m: str(values[m.group(1)]), self.text)


@lru_cache(maxsize=64)
def _read(path: Path) -> str:
    return _COMMENT.sub("", path.read_text(encoding="utf-8")).strip()


def load_prompt(name: str, folder: Path | None = None) -> Prompt:
    path = (folder or prompts_dir()) / f"{name}.md"
    if not path.is_file():
        raise PromptError(f"no prompt file {path}")
    return Prompt(name, _read(path))


@dataclass(frozen=True)
class RelationRule:
    relation: str
    rule: str
    question: str  # with {{a}} and {{b}}

    def ask(self, a: str, b: str) -> str:
        return self.question.replace("{{a}}", a).replace("{{b}}", b)


@dataclass(frozen=True)
class RelationRules:
    prompt: Prompt
    rules: dict[str, RelationRule]

    def __getitem__(self, relation: str) -> RelationRule:
        try:
            return self.rules[relation]
        except KeyError:
            raise PromptError(f"{self.prompt.name}: no rule for {relation!r}") from None


def load_relation_rules(name: str = "relation_rules_v1", folder: Path | None = None
                        ) -> RelationRules:
    """Parse ``## relation`` sections with ``Rule:`` and ``Question:`` lines."""
    prompt = load_prompt(name, folder)
    rules: dict[str, RelationRule] = {}
    for section in re.split(r"^##\s+", prompt.text, flags=re.MULTILINE)[1:]:
        head, _, body = section.partition("\n")
        fields = dict(re.findall(r"^(Rule|Question):\s*(.+)$", body, flags=re.MULTILINE))
        if set(fields) != {"Rule", "Question"}:
            raise PromptError(f"{prompt.name}: section {head.strip()!r} needs Rule and Question")
        relation = head.strip().lower()
        rules[relation] = RelationRule(relation, fields["Rule"].strip(),
                                       fields["Question"].strip())
    return RelationRules(prompt, rules)


@dataclass(frozen=True)
class ProbePrompts:
    """The three seed-003 prompts and the relation rules, as one versioned set."""

    system: Prompt
    stage1: Prompt
    stage2: Prompt
    rules: RelationRules

    @property
    def version(self) -> str:
        return "+".join(p.version for p in (self.system, self.stage1, self.stage2,
                                              self.rules.prompt))


def load_probe_prompts(version: str = "v1", folder: Path | None = None) -> ProbePrompts:
    return ProbePrompts(
        system=load_prompt(f"probe_system_{version}", folder),
        stage1=load_prompt(f"probe_stage1_{version}", folder),
        stage2=load_prompt(f"probe_stage2_{version}", folder),
        rules=load_relation_rules(f"relation_rules_{version}", folder),
    )


@dataclass(frozen=True)
class ConvertPrompts:
    system: Prompt
    instruction: Prompt
    repair: Prompt

    @property
    def version(self) -> str:
        return "+".join(p.version for p in (self.system, self.instruction, self.repair))


def load_convert_prompts(version: str = "v1", folder: Path | None = None) -> ConvertPrompts:
    return ConvertPrompts(
        system=load_prompt(f"convert_system_{version}", folder),
        instruction=load_prompt(f"convert_{version}", folder),
        repair=load_prompt(f"convert_repair_{version}", folder),
    )


def count_word(n: int) -> str:
    """The paper writes "Two"/"Three" classes; larger diagrams get the number."""
    words = {1: "One", 2: "Two", 3: "Three", 4: "Four", 5: "Five", 6: "Six", 7: "Seven",
             8: "Eight", 9: "Nine", 10: "Ten"}
    return words.get(n, str(n))

"""Deterministic parsing of VLM answers, and the seed-003 metrics EM and RelAcc.

Models wrap answers in code fences, Markdown, prose, ``<think>`` blocks or JSON; the parser
strips those the same way every time. An answer that cannot be resolved unambiguously
becomes ``Unknown`` (stage 2) or ``None`` (stage 1), which both count as wrong, as in the
paper (Appendix B, "Parsing").
"""

from __future__ import annotations

import ast
import contextlib
import json
import re
import tomllib
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from cluestudio.core.errors import ClueStudioError

Truth = Literal["True", "False", "Unknown"]
TRUE: Truth = "True"
FALSE: Truth = "False"
UNKNOWN: Truth = "Unknown"

_THINK = re.compile(r"<think>.*?(</think>|\Z)", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```[\w+-]*\s*\n?(.*?)```", re.DOTALL)
_MARKUP = re.compile(r"[*_`#>~\"'“”‘’\[\](){}]")
# Whole-answer words and paraphrases; checked after Markdown and punctuation are stripped.
_WORDS: dict[str, Truth] = {
    "true": TRUE, "yes": TRUE, "correct": TRUE, "right": TRUE, "y": TRUE, "t": TRUE,
    "false": FALSE, "no": FALSE, "incorrect": FALSE, "wrong": FALSE, "n": FALSE, "f": FALSE,
    "unknown": UNKNOWN, "unclear": UNKNOWN, "uncertain": UNKNOWN, "unsure": UNKNOWN,
    "undetermined": UNKNOWN, "indeterminate": UNKNOWN,
}
# Phrases that contain a label word but mean something else; replaced before word search.
_PHRASES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b(is\s+not|isn't|not)\s+true\b"), " false "),
    (re.compile(r"\b(is\s+not|isn't|not)\s+false\b"), " true "),
    (re.compile(r"\b(can ?not|can't|unable to|impossible to)\s+(be\s+)?(determine|tell|say|"
                r"read|answer)\w*\b"), " unknown "),
    (re.compile(r"\bnot\s+(clear|visible|readable|sure|possible)\b"), " unknown "),
)
_ANSWER_IS = re.compile(r"\b(?:final\s+)?answer\s*(?:is|:|=|-)\s*([a-z]+)")
_LABEL_WORDS = re.compile(r"\b(true|false|unknown|yes|no|unclear|uncertain)\b")
# In reasoning, "no" and "yes" are often just words ("no arrow points ..."); a verdict at
# the end of a reply that reasons first is one of these.
_VERDICT_WORDS = re.compile(r"\b(true|false|unknown|unclear|uncertain)\b")
_SENTENCE_END = re.compile(r"[.!?;:\n]+")


def strip_wrappers(text: str) -> str:
    """Drop ``<think>`` reasoning and unwrap code fences (their content is the answer)."""
    text = _THINK.sub(" ", text or "")
    fenced = _FENCE.findall(text)
    if fenced:
        text = "\n".join(fenced)
    return text.strip()


def first_json(text: str) -> Any:
    """The first JSON value in a model's reply (code fences and ``<think>`` blocks stripped).

    Raises ``ValueError`` when the reply holds no JSON value at all.
    """
    body = strip_wrappers(text)
    decoder = json.JSONDecoder()
    for match in re.finditer(r"[\[{]", body):
        try:
            return decoder.raw_decode(body, match.start())[0]
        except ValueError:
            continue
    raise ValueError(f"no JSON in the answer: {text[:300]!r}")


def parse_truth(text: str) -> Truth:
    """``True``/``False``/``Unknown`` from a stage-2 answer; ambiguity gives ``Unknown``.

    A bare label, a wrapped one, or an "answer is ..." statement (the last one counts) are
    read directly. A reply that reasons before answering is judged by its last verdict:
    the last sentence that names a verdict, if it names exactly one.
    """
    body = strip_wrappers(text)
    from_json = _truth_from_json(body)
    if from_json is not None:
        return from_json
    lowered = unicodedata.normalize("NFKC", body).lower()
    words = _MARKUP.sub(" ", lowered)
    tokens = re.findall(r"[a-z]+", words)
    if not tokens:
        return UNKNOWN
    # "The answer is: False" / "Answer: true" name the answer outright; the last one
    # counts ("answer: true ... wait ... final answer: false").
    stated = [m.group(1) for m in _ANSWER_IS.finditer(words) if m.group(1) in _WORDS]
    if stated:
        return _WORDS[stated[-1]]
    for pattern, replacement in _PHRASES:
        words = pattern.sub(replacement, words)
    found = {_WORDS[w] for w in _LABEL_WORDS.findall(words)}
    # "True." / "**False**" / "Yes, D inherits from A": the first word is the answer,
    # unless the rest contradicts it ("True or False" is no answer).
    first = _WORDS.get(tokens[0]) if (len(tokens) == 1 or len(tokens[0]) > 1) else None
    if first is not None and found <= {first}:
        return first
    # A sentence that names exactly one verdict ("It is false that ..."); a lone "no" or
    # "yes" inside a sentence is not one ("no arrow points at ...").
    verdicts = {_WORDS[w] for w in _VERDICT_WORDS.findall(words)}
    if len(verdicts) == 1:
        return verdicts.pop()
    return _last_verdict(words)


def _last_verdict(words: str) -> Truth:
    """The verdict of the last sentence that names one ("..., so it is False.")."""
    for sentence in reversed(_SENTENCE_END.split(words)):
        verdicts = {_WORDS[w] for w in _VERDICT_WORDS.findall(sentence)}
        if verdicts:
            return verdicts.pop() if len(verdicts) == 1 else UNKNOWN
    return UNKNOWN


def _truth_from_json(body: str) -> Truth | None:
    if not body.startswith(("{", '"', "true", "false")):
        return None
    try:
        value = json.loads(body)
    except ValueError:
        return None
    if isinstance(value, dict):
        for key in ("answer", "label", "result", "prediction", "output"):
            if key in value:
                value = value[key]
                break
        else:
            return None
    if isinstance(value, bool):
        return TRUE if value else FALSE
    if isinstance(value, str):
        word = value.strip().strip(".!").lower()
        return _WORDS.get(word, UNKNOWN)
    return None


def parse_class_list(text: str) -> list[str] | None:
    """Class names from a stage-1 answer (a JSON array, possibly wrapped); ``None`` if none."""
    body = strip_wrappers(text)
    candidates: list[object] = []
    with contextlib.suppress(ValueError):
        candidates.append(json.loads(body))
    decoder = json.JSONDecoder()
    for match in re.finditer(r"[\[{]", body):
        start = match.start()
        try:
            candidates.append(decoder.raw_decode(body, start)[0])
            continue
        except ValueError:
            pass
        end = _matching_bracket(body, start)
        if end is not None:
            # ['Dog', 'Animal']: Python-style quotes are common in small models.
            with contextlib.suppress(ValueError, SyntaxError, MemoryError, RecursionError):
                candidates.append(ast.literal_eval(body[start:end + 1]))
    for value in candidates:
        names = _names_from(value)
        if names is not None:
            return names
    return None


def _names_from(value: object) -> list[str] | None:
    if isinstance(value, dict):
        lists = [v for v in value.values() if isinstance(v, list | tuple)]
        if len(lists) != 1:
            return None
        value = lists[0]
    if not isinstance(value, list | tuple):
        return None
    names: list[str] = []
    for item in value:
        if isinstance(item, dict):
            item = item.get("name", item.get("class"))
        if not isinstance(item, str | int | float) or isinstance(item, bool):
            return None
        names.append(str(item).strip())
    return names


def _matching_bracket(text: str, start: int) -> int | None:
    pairs = {"[": "]", "{": "}"}
    depth, quote = 0, ""
    for i in range(start, len(text)):
        ch = text[i]
        if quote:
            if ch == quote and text[i - 1] != "\\":
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in pairs:
            depth += 1
        elif ch in pairs.values():
            depth -= 1
            if depth == 0:
                return i
    return None


def normalize_name(name: str) -> str:
    """The paper's N: case folding, punctuation clean-up, simple alias clean-up."""
    text = unicodedata.normalize("NFKC", name).strip()
    text = re.sub(r"<<.*?>>|«.*?»", " ", text)  # stereotypes are not part of the name
    text = re.sub(r"^(abstract\s+class|class|interface|enum|abstract)\s+", "", text,
                  flags=re.IGNORECASE)
    return re.sub(r"[\W_]+", "", text.casefold())


def name_set(names: Iterable[str]) -> frozenset[str]:
    return frozenset(n for n in (normalize_name(x) for x in names) if n)


@dataclass(frozen=True)
class AliasRule:
    pattern: re.Pattern[str]
    replace: str
    why: str


ALIASES_FILE = "name_aliases_v1.toml"


@lru_cache(maxsize=4)
def alias_rules(path: Path | None = None) -> tuple[AliasRule, ...]:
    """The alias table (``resources/prompts/name_aliases_v1.toml``), checked on load."""
    if path is None:
        from cluestudio.core.vlm.prompts import prompts_dir

        path = prompts_dir() / ALIASES_FILE
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise ClueStudioError(f"cannot read alias table {path}: {error}") from error
    rules = []
    for number, rule in enumerate(data.get("rule", []), start=1):
        try:
            rules.append(AliasRule(re.compile(rule["pattern"]), str(rule.get("replace", "")),
                                   str(rule.get("why", ""))))
        except (KeyError, TypeError, re.error) as error:
            raise ClueStudioError(f"{path}: rule {number}: {error!r}") from error
    return tuple(rules)


def name_aliases(name: str, rules: Sequence[AliasRule] | None = None) -> list[str]:
    """Normalised aliases of a read name: each rule alone, then all of them in turn."""
    rules = alias_rules() if rules is None else rules
    out: list[str] = []
    text = unicodedata.normalize("NFKC", name)
    combined = text
    for rule in rules:
        out.append(normalize_name(rule.pattern.sub(rule.replace, text, count=1)))
        combined = rule.pattern.sub(rule.replace, combined, count=1)
    out.append(normalize_name(combined))
    return [a for a in dict.fromkeys(out) if a]


def resolve_names(predicted: Iterable[str], gold: Iterable[str]) -> frozenset[str]:
    """The predicted names as EM compares them: each normalised, or, when that matches no
    gold name, its first alias that does (the paper's alias normalisation)."""
    gold_keys = name_set(gold)
    out = set()
    for name in predicted:
        key = normalize_name(name)
        if key not in gold_keys:
            key = next((a for a in name_aliases(name) if a in gold_keys), key)
        if key:
            out.add(key)
    return frozenset(out)


def exact_match(predicted: Sequence[str] | None, gold: Iterable[str]) -> bool:
    """EM for one image: the predicted set, normalised, equals the gold set (None → wrong)."""
    if predicted is None:
        return False
    gold = list(gold)
    return resolve_names(predicted, gold) == name_set(gold)


def relation_correct(predicted: Truth, gold: bool) -> bool:
    """RelAcc for one question: Unknown is never correct."""
    return predicted == (TRUE if gold else FALSE)


def mean(values: Iterable[bool | float]) -> float | None:
    items = [float(v) for v in values]
    return sum(items) / len(items) if items else None

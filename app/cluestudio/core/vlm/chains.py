"""Seed 003's generator: an LLM proposes class chains, the project validates and repairs them.

The paper's pipeline (Section 3.1, Fig. 2): (1) an LLM proposes candidate chains for a
relation; (2) each is checked; (3) failures go back to the LLM with a structured error
description until enough pass. Any OpenAI-compatible endpoint serves step 1 (text only);
:func:`check_chain` is step 2. Accepted chains form a vocabulary file that
:func:`~cluestudio.core.vlm.conditions.generate` draws the audit's diagrams from, beside the
shipped :data:`~cluestudio.core.vlm.conditions.VOCABULARY`.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from cluestudio.core.errors import ClueStudioError
from cluestudio.core.jobs import CancelToken, Job, Progress
from cluestudio.core.safe_output import write_text
from cluestudio.core.vlm.answers import first_json
from cluestudio.core.vlm.backend import VLMBackend, VLMRequest
from cluestudio.core.vlm.conditions import Chain, Vocabulary
from cluestudio.core.vlm.prompts import RELATIONS, load_prompt, load_relation_rules

NAME = re.compile(r"[A-Z][A-Za-z0-9]{0,39}")
FILE_VERSION = 1

#: What "A → B" means per relation, and one example chain, for the proposal prompt.
DIRECTIONS: dict[str, tuple[str, str]] = {
    "inheritance": ("A is a kind of B and B is a kind of C (A inherits from B, B inherits "
                    "from C).", '["Dog", "Mammal", "Animal"]'),
    "aggregation": ("A is the whole that has B as a part and B is the whole that has C as a "
                    "part; a part can exist on its own.", '["League", "Team", "Player"]'),
    "composition": ("A is the whole that owns B and B is the whole that owns C; a part "
                    "cannot exist without its whole.", '["Building", "Floor", "Room"]'),
    "dependency": ("A depends on (uses) B and B depends on C.",
                   '["Controller", "Service", "Repository"]'),
}
# Accepted chains quoted back in each prompt so the model avoids them (the newest ones).
_AVOID_SHOWN = 30


class VocabularyError(ClueStudioError):
    """A vocabulary file that cannot be read or holds an invalid chain."""


class ChainSet:
    """One relation's accepted chains and the directions they state, grown one by one."""

    def __init__(self, relation: str, chains: Iterable[Chain] = ()) -> None:
        self.relation = relation
        self.chains: list[Chain] = []
        self._seen: set[Chain] = set()
        self._graph: dict[str, set[str]] = {}
        for chain in chains:
            self.add(chain)

    def __len__(self) -> int:
        return len(self.chains)

    def add(self, chain: Chain) -> None:
        self.chains.append(chain)
        self._seen.add(chain)
        for a, b in ((chain[0], chain[1]), (chain[1], chain[2])):
            self._graph.setdefault(a, set()).add(b)

    def check(self, proposal: object) -> list[str]:
        """Why a proposed chain is unusable here (empty: it passes).

        Constraint (ii) of seed 003 made checkable: three distinct UpperCamelCase names, not
        a repeat, and the prior stays unambiguous: no direction that accepted chains already
        state the other way round, and no cycle through them.
        """
        if (not isinstance(proposal, list | tuple) or len(proposal) != 3
                or not all(isinstance(n, str) for n in proposal)):
            return ["a chain must be a JSON array of three class names"]
        names = [n.strip() for n in proposal]
        problems = [f"{n!r} is not an UpperCamelCase identifier of at most 40 letters and "
                    "digits" for n in names if not NAME.fullmatch(n)]
        if len({n.casefold() for n in names}) != 3:
            problems.append("the three names must differ")
        if problems:
            return problems
        chain = _chain(names)
        if chain in self._seen:
            return ["repeats an accepted chain"]
        # The chain's own first edge counts when its second one is checked.
        added = (chain[0], chain[1])
        for a, b in ((chain[0], chain[1]), (chain[1], chain[2])):
            if self._reaches(b, a, added if (a, b) != added else None):
                problems.append(f"{a} → {b} contradicts accepted chains ({b} already leads "
                                f"to {a} for {self.relation}): the prior would be ambiguous")
        return problems

    def _reaches(self, start: str, goal: str, extra: tuple[str, str] | None) -> bool:
        seen, todo = {start}, [start]
        while todo:
            node = todo.pop()
            if node == goal:
                return True
            following = set(self._graph.get(node, ()))
            if extra is not None and node == extra[0]:
                following.add(extra[1])
            for nxt in following - seen:
                seen.add(nxt)
                todo.append(nxt)
        return False


def check_chain(proposal: object, relation: str, accepted: Iterable[Chain] = ()) -> list[str]:
    """:meth:`ChainSet.check` against ``accepted`` (for a single check)."""
    return ChainSet(relation, accepted).check(proposal)


def _chain(proposal: object) -> Chain:
    """A proposal that passed the checks, as a chain of trimmed names."""
    a, b, c = (str(n).strip() for n in cast(Sequence[str], proposal))
    return (a, b, c)


@dataclass(frozen=True)
class ChainReport:
    """What one relation's generation did: accepted chains, rejections and their reasons."""

    relation: str
    accepted: tuple[Chain, ...]
    rejected: tuple[tuple[str, str], ...] = ()  # (proposal as JSON, reasons)
    requests: int = 0
    unparsable: int = 0  # replies without a JSON array of chains
    new: int = field(default=0)  # accepted in this run (the rest came from the file)

    def to_dict(self) -> dict[str, Any]:
        return {"relation": self.relation, "chains": len(self.accepted), "new": self.new,
                "requests": self.requests, "rejected": len(self.rejected),
                "unparsable": self.unparsable,
                "rejections": [{"chain": c, "reasons": r} for c, r in self.rejected[:50]]}


def _proposal_request(relation: str, count: int, accepted: Sequence[Chain]) -> VLMRequest:
    direction, example = DIRECTIONS[relation]
    shown = accepted[-_AVOID_SHOWN:]
    avoid = ("\n".join(f"- {json.dumps(list(c))}" for c in shown)
             if shown else "(none yet)")
    text = load_prompt("audit_chains_v1").fill(
        count=count, relation=relation, rule=load_relation_rules()[relation].rule,
        direction=direction, example=example, avoid=avoid)
    return VLMRequest(prompt=text, max_tokens=max(256, 40 * count))


def _repair_request(sent: VLMRequest, reply: str, rejected: Sequence[tuple[str, str]],
                    count: int) -> VLMRequest:
    errors = "\n".join(f"- {chain}: {reasons}" for chain, reasons in rejected)
    repair = load_prompt("audit_chains_repair_v1").fill(errors=errors, count=count)
    # The proposal prompt stays the first turn; an earlier repair's turns are dropped.
    return VLMRequest(prompt=sent.prompt, max_tokens=sent.max_tokens,
                      history=(("assistant", reply), ("user", repair)))


def _proposals(text: str) -> list[object] | None:
    try:
        value = first_json(text)
    except ValueError:
        return None
    if isinstance(value, dict):  # {"chains": [...]}
        lists = [v for v in value.values() if isinstance(v, list)]
        value = lists[0] if len(lists) == 1 else None
    return value if isinstance(value, list) else None


def propose_chains(backend: VLMBackend, relation: str, count: int, *,
                   accepted: Sequence[Chain] = (), per_request: int = 20,
                   max_requests: int | None = None,
                   cancel: CancelToken | None = None) -> Job[ChainReport]:
    """Ask ``backend`` for chains until ``count`` are accepted (``accepted`` counts too).

    Rejected proposals go back to the model with their reasons (the paper's repair loop);
    a reply without JSON is asked again afresh. Stops after ``max_requests`` requests
    (default: 3 per chain still missing, at least 10) so a model that never complies
    cannot loop forever.
    """
    if relation not in DIRECTIONS:
        raise ClueStudioError(f"unknown relation {relation!r}; expected one of {RELATIONS}")
    cancel = cancel or CancelToken()
    chains = ChainSet(relation, accepted)
    start = len(chains)
    budget = max_requests if max_requests is not None else max(10, 3 * (count - start))
    rejected: list[tuple[str, str]] = []
    requests = unparsable = 0
    repair: VLMRequest | None = None
    while len(chains) < count and requests < budget:
        cancel.raise_if_cancelled()
        yield Progress(len(chains), count, f"{relation}: {len(chains)} chains",
                       phase="building chains")
        wanted = min(per_request, count - len(chains))
        request = repair or _proposal_request(relation, wanted, chains.chains)
        reply = backend.complete(request).text
        requests += 1
        proposals = _proposals(reply)
        repair = None
        if proposals is None:
            unparsable += 1
            continue
        failed: list[tuple[str, str]] = []
        for proposal in proposals:
            problems = chains.check(proposal)
            if problems:
                failed.append((json.dumps(proposal, ensure_ascii=False), "; ".join(problems)))
            elif len(chains) < count:
                chains.add(_chain(proposal))
        rejected += failed
        if failed and len(chains) < count:
            repair = _repair_request(request, reply, failed,
                                     min(len(failed), count - len(chains)))
    yield Progress(len(chains), count, f"{relation}: {len(chains)} chains", phase="building chains")
    return ChainReport(relation, tuple(chains.chains), tuple(rejected), requests, unparsable,
                       new=len(chains) - start)


def generate_vocabulary(backend: VLMBackend, count: int,
                        relations: Sequence[str] = RELATIONS,
                        existing: Vocabulary | None = None,
                        cancel: CancelToken | None = None
                        ) -> Job[tuple[dict[str, tuple[Chain, ...]], list[ChainReport]]]:
    """``count`` chains per relation, extending ``existing`` (a resumed file)."""
    vocabulary = {r: tuple(c) for r, c in (existing or {}).items()}
    reports = []
    for relation in relations:
        report = yield from propose_chains(backend, relation, count,
                                           accepted=vocabulary.get(relation, ()),
                                           cancel=cancel)
        vocabulary[relation] = report.accepted
        reports.append(report)
    return vocabulary, reports


# -- the vocabulary file -----------------------------------------------------------------------
def save_vocabulary(path: Path, vocabulary: Vocabulary, meta: Mapping[str, Any] | None = None
                    ) -> None:
    """JSON: ``{"version": 1, "relations": {"inheritance": [[c0, c1, c2], ...]}, "meta"}``,
    written atomically so an interrupted run never leaves half a file."""
    data = {"version": FILE_VERSION, "meta": dict(meta or {}),
            "relations": {r: [list(c) for c in chains] for r, chains in vocabulary.items()}}
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text(path, json.dumps(data, indent=1, ensure_ascii=False) + "\n")


def load_vocabulary(path: Path) -> dict[str, tuple[Chain, ...]]:
    """A vocabulary file, every chain checked as a proposal would be (the error names it)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise VocabularyError(f"cannot read vocabulary {path}: {error}") from error
    except ValueError as error:
        raise VocabularyError(f"{path}: not valid JSON: {error}") from error
    relations = data.get("relations") if isinstance(data, dict) else None
    if not isinstance(relations, dict):
        raise VocabularyError(f"{path}: expected {{\"relations\": {{RELATION: [[c0, c1, c2], "
                              "...]}}")
    out: dict[str, tuple[Chain, ...]] = {}
    for relation, chains in relations.items():
        if relation not in DIRECTIONS:
            raise VocabularyError(f"{path}: unknown relation {relation!r}; expected one of "
                                  f"{', '.join(RELATIONS)}")
        if not isinstance(chains, list):
            raise VocabularyError(f"{path}: {relation} must be a list of chains")
        accepted = ChainSet(relation)
        for number, chain in enumerate(chains, start=1):
            problems = accepted.check(chain)
            if problems:
                raise VocabularyError(f"{path}: {relation} chain {number} {chain!r}: "
                                      f"{'; '.join(problems)}")
            accepted.add(_chain(chain))
        out[relation] = tuple(accepted.chains)
    return out


def vocabulary_digest(vocabulary: Vocabulary) -> str:
    """A short hash of the chains, to say in reports which vocabulary an audit used."""
    blob = json.dumps({r: [list(c) for c in v] for r, v in sorted(vocabulary.items())})
    return hashlib.sha256(blob.encode()).hexdigest()[:12]

"""CLUE throughput: embedding (strings/s) and matching (pairs/s), cold and cached.

1,000 (reference, candidate) pairs of realistic size (~10 classes, 4–6 attributes and 3–5
methods each, ~12 relations), generated deterministically from domain vocabularies: 50
reference designs, each with 20 student-like candidates (synonyms, dropped and extra
members, changed relation types and multiplicities). Goals on 2 CPU cores with MiniLM:
cold (empty cache) ≤ 30 s, cached ≤ 3 s.

    python benchmarks/bench_clue.py [--n 1000] [--device cpu|cuda|auto]
                                    [--encoder minilm|codebert-random|NAME]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

from cluestudio.core.clue import ClueScorer
from cluestudio.core.embed import EmbeddingCache
from cluestudio.core.jobs import run_job
from cluestudio.core.model import (
    Attribute,
    Class,
    ClassDiagram,
    Method,
    Multiplicity,
    Param,
    Relation,
    RelationType,
)

NOUNS = ["Customer", "Order", "Invoice", "Product", "Payment", "Shipment", "Account", "Cart",
         "Supplier", "Warehouse", "Employee", "Department", "Course", "Student", "Teacher",
         "Library", "Book", "Loan", "Member", "Room", "Booking", "Hotel", "Flight", "Ticket",
         "Passenger", "Vehicle", "Driver", "Route", "Station", "Sensor", "Device", "Alarm",
         "Patient", "Doctor", "Appointment", "Prescription", "Restaurant", "Menu", "Dish",
         "Table", "Review", "Category", "Address", "Discount", "Coupon", "Report", "Schedule"]
SYNONYMS = {"Customer": "Client", "Order": "Purchase", "Teacher": "Tutor", "Book": "Title",
            "Employee": "Staff", "Vehicle": "Car", "Patient": "Case", "Room": "Chamber",
            "Product": "Item", "Payment": "Transaction", "Member": "User", "Loan": "Borrowing"}
FIELDS = ["id", "name", "date", "total", "status", "price", "quantity", "email", "phone",
          "address", "createdAt", "updatedAt", "title", "description", "code", "amount",
          "balance", "capacity", "rating", "duration", "startTime", "endTime", "owner", "level"]
TYPES = ["int", "String", "Date", "float", "boolean", "double", "long", "List<String>",
         "DateTime", "Money", "Status", "UUID"]
VERBS = ["get", "set", "add", "remove", "find", "update", "cancel", "confirm", "calculate",
         "validate", "send", "create", "close", "open", "print", "book", "pay", "check"]
MANY = ["1", "*", "0..*", "1..*", "0..1", "many", ""]


def _class(rng: random.Random, name: str) -> Class:
    attrs = tuple(Attribute(f, rng.choice(TYPES))
                  for f in rng.sample(FIELDS, rng.randint(4, 6)))
    methods = []
    for verb in rng.sample(VERBS, rng.randint(3, 5)):
        target = rng.choice(FIELDS + NOUNS)
        params = tuple(Param(p, rng.choice(TYPES))
                       for p in rng.sample(FIELDS, rng.choice([0, 1, 1, 2, 3])))
        methods.append(Method(f"{verb}{target[0].upper()}{target[1:]}",
                              rng.choice(["void", *TYPES]), params))
    return Class(name, attrs, tuple(methods))


def reference(rng: random.Random) -> ClassDiagram:
    names = rng.sample(NOUNS, rng.randint(8, 12))
    classes = tuple(_class(rng, n) for n in names)
    relations = tuple(
        Relation(rng.choice(list(RelationType)), rng.choice(names), rng.choice(names),
                 Multiplicity(rng.choice(MANY), rng.choice(MANY)))
        for _ in range(rng.randint(10, 14)))
    return ClassDiagram(classes, relations)


def candidate(rng: random.Random, ref: ClassDiagram) -> ClassDiagram:
    """A student-like variant: synonyms, lost and extra members, other relation types."""
    rename = {c.name: SYNONYMS.get(c.name, c.name) if rng.random() < 0.5 else c.name
              for c in ref.classes}
    classes = []
    for c in ref.classes:
        if rng.random() < 0.08:
            continue  # a missing class
        attrs = [a for a in c.attributes if rng.random() > 0.2]
        if rng.random() < 0.4:
            attrs.append(Attribute(rng.choice(FIELDS), rng.choice(TYPES)))
        methods = [m for m in c.methods if rng.random() > 0.25]
        if rng.random() < 0.3:
            methods.append(Method(f"{rng.choice(VERBS)}All", "void"))
        classes.append(Class(rename[c.name], tuple(attrs), tuple(methods)))
    if rng.random() < 0.5:
        classes.append(_class(rng, rng.choice(NOUNS) + "Manager"))
    relations = [
        Relation(rng.choice(list(RelationType)) if rng.random() < 0.3 else r.type,
                 rename[r.begin], rename[r.end],
                 Multiplicity(r.label.from_, rng.choice(MANY) if rng.random() < 0.3
                              else r.label.to))
        for r in ref.relations if rng.random() > 0.15]
    return ClassDiagram(tuple(classes), tuple(relations))


def make_pairs(n: int, seed: int = 7) -> list[tuple[ClassDiagram, ClassDiagram]]:
    rng = random.Random(seed)
    refs = [reference(rng) for _ in range(max(1, n // 20))]
    return [(refs[i % len(refs)], candidate(rng, refs[i % len(refs)])) for i in range(n)]


def codebert_random(folder: Path) -> Path:
    """A CodeBERT-sized (125M) RoBERTa with random weights, MiniLM's tokenizer: no download."""
    import shutil

    from transformers import RobertaConfig, RobertaModel

    from cluestudio.core.embed.hf import minilm_path

    config = RobertaConfig(vocab_size=50265, hidden_size=768, num_hidden_layers=12,
                           num_attention_heads=12, intermediate_size=3072,
                           max_position_embeddings=514, type_vocab_size=1, pad_token_id=1)
    RobertaModel(config).save_pretrained(folder)
    for name in ("tokenizer.json", "tokenizer_config.json", "vocab.txt",
                 "special_tokens_map.json"):
        shutil.copy(minilm_path() / name, folder / name)
    return folder


def timed_run(scorer: ClueScorer, pairs: list) -> tuple[float, float, int]:
    """(embedding + leaves seconds, matching seconds, strings encoded)."""
    start = time.perf_counter()
    batch = run_job(scorer.build_leaves(pairs))
    leaves = time.perf_counter() - start
    start = time.perf_counter()
    scorer.evaluate(batch)
    matching = time.perf_counter() - start
    return leaves, matching, int(getattr(scorer.embedder, "strings_encoded", 0))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--device", default="cpu", choices=("auto", "cpu", "cuda"))
    parser.add_argument("--encoder", default="minilm")
    args = parser.parse_args(argv)

    pairs = make_pairs(args.n)
    distinct = {s for pair in pairs for d in pair for s in _strings(d)}
    print(f"{len(pairs)} pairs, {len(distinct)} distinct strings, "
          f"{sum(len(d.classes) for p in pairs for d in p) / (2 * len(pairs)):.1f} "
          f"classes/diagram")
    with tempfile.TemporaryDirectory() as tmp:
        encoder = args.encoder
        if encoder == "codebert-random":
            encoder = str(codebert_random(Path(tmp) / "codebert-random"))
        cache_path = Path(tmp) / "cache.sqlite"
        load_start = time.perf_counter()
        cold = ClueScorer(encoder, device=args.device, cache=EmbeddingCache(cache_path))
        getattr(cold.embedder, "load", lambda: None)()
        print(f"model load: {time.perf_counter() - load_start:.1f} s "
              f"(embedder {cold.embedder.id})")
        leaves, matching, encoded = timed_run(cold, pairs)
        total = leaves + matching
        print(f"cold:   {total:6.2f} s total | embedding+leaves {leaves:6.2f} s "
              f"({encoded / max(leaves, 1e-9):,.0f} strings/s, {encoded} strings) | "
              f"matching {matching:5.2f} s ({len(pairs) / matching:,.0f} pairs/s) "
              f"| goal <= 30 s: {'ok' if total <= 30 else 'MISSED'}")
        warm = ClueScorer(encoder, device=args.device, cache=EmbeddingCache(cache_path))
        getattr(warm.embedder, "load", lambda: None)()
        leaves, matching, encoded = timed_run(warm, pairs)
        total = leaves + matching
        print(f"cached: {total:6.2f} s total | embedding+leaves {leaves:6.2f} s "
              f"({encoded} strings encoded) | matching {matching:5.2f} s "
              f"({len(pairs) / matching:,.0f} pairs/s) "
              f"| goal <= 3 s: {'ok' if total <= 3 else 'MISSED'}")
        cold.close()
        warm.close()
    return 0


def _strings(d: ClassDiagram) -> set[str]:
    from cluestudio.core.clue import DiagramIndex

    return set(DiagramIndex.of(d).strings())


if __name__ == "__main__":
    sys.exit(main())

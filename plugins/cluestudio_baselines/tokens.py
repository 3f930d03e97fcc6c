"""PlantUML token streams for the text baselines (BLEU, ROUGE-L).

Both metrics compare the same tokens: identifiers and numbers, quoted strings as one token,
arrow/operator runs (``<|--``, ``*--``, ``..>``) as one token, any other character alone.
Comment lines (``'``) and ``@startuml``/``@enduml`` are left out: they carry no design.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(r'"[^"\n]*"|\w+|[-.<>|*#~+]*[-.][-.<>|*#~+]*|\S')
_SKIP = re.compile(r"^\s*('|@startuml|@enduml)", re.IGNORECASE)


def plantuml_tokens(text: str) -> list[str]:
    tokens: list[str] = []
    for line in text.splitlines():
        if _SKIP.match(line):
            continue
        tokens.extend(_TOKEN.findall(line))
    return tokens

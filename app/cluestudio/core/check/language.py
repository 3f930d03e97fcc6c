"""Which language a diagram's names are written in, roughly, from their letters alone.

A German drawing converted into English PlantUML (``Kunde`` → ``Customer``) is not a
conversion that dropped every name and invented others: the check says the names are in
another language instead of listing them all. Names are short and made up, so no word list
or model would do much better than the spelling habits counted here: letters only one
language uses (``ä``, ``ß``, ``é``, ``ñ``), and letter groups and endings typical of one
language (``sch``, ``-ung``, ``-keit`` against ``th``, ``-ing``, ``-tion``). A guess needs
several words that lean the same way; otherwise it is ``""`` (unknown).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

NAMES = {"en": "English", "de": "German", "fr": "French", "es": "Spanish"}

_LETTERS = {"de": "äöüß", "fr": "éèêëàâçîïôûùœ", "es": "ñáíóú¿¡"}
_GROUPS = {
    "de": ("sch", "tz", "ei", "ie", "ck", "pf", "zahl", "nummer", "wert", "datum", "ae",
           "oe", "ue", "zeit", "stand", "kraft", "eh", "ah", "uhr", "lich", "ung", "keit",
           "heit", "schaft", "chen", "ort", "gruppe", "eintrag", "fahr", "bezeich", "konto",
           "z"),
    "en": ("th", "wh", "sh", "ing", "tion", "ment", "ness", "ship", "ity", "ou", "ea",
           "oo", "ay", "ey", "ed", "count", "number", "date", "name", "type",
           "id"),
    "fr": ("eau", "eur", "oi", "ou", "qu", "aire", "ette", "ille", "tion", "age", "ée",
           "gestion", "nom", "numero", "utilisateur", "joueur", "agent"),
    "es": ("ción", "dad", "ero", "ano", "ll", "ñ", "usuario", "nombre", "numero",
           "fecha", "cuenta"),
}
# How many words must lean one way, and by what share of all leaning words.
_MIN_WORDS = 3
_MIN_SHARE = 0.6


def _word_language(word: str) -> str:
    """The language one word leans to ("" when it does not lean)."""
    lowered = word.casefold()
    for language, letters in _LETTERS.items():
        if any(c in letters for c in lowered):
            return language
    scores = {language: sum(lowered.count(g) * len(g) for g in groups)
              for language, groups in _GROUPS.items()}
    best = max(scores, key=lambda k: scores[k])
    ranked = sorted(scores.values(), reverse=True)
    return best if ranked[0] >= 2 and ranked[0] >= 1.5 * ranked[1] else ""


def _parts(name: str) -> list[str]:
    """The words of an identifier (``firstName`` → first, Name; ``first_name`` the same)."""
    return [w for w in re.findall(r"[A-ZÄÖÜ]?[^\W\d_A-ZÄÖÜ]+|[A-ZÄÖÜ]{2,}(?![^\W\d_])",
                                  name) if len(w) >= 3]


def guess_language(names: Iterable[str]) -> str:
    """The language code most of ``names`` lean to, or "" when they do not say."""
    votes: dict[str, int] = {}
    for name in names:
        for word in _parts(name):
            language = _word_language(word)
            if language:
                votes[language] = votes.get(language, 0) + 1
    if not votes:
        return ""
    best = max(votes, key=lambda k: votes[k])
    total = sum(votes.values())
    return best if votes[best] >= _MIN_WORDS and votes[best] >= _MIN_SHARE * total else ""

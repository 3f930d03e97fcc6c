"""Pairing the image's tokens with the PlantUML's names, allowing for OCR noise.

Each token and each name is used at most once (a name drawn twice is read twice), in
rounds from the surest to the loosest, so a loose pairing never takes what an exact one
would have claimed:

1. same key (case, ``_`` and spaces ignored; multiplicity dots normalised);
2. near spellings (:func:`near_spelling`): names of four or more letters may differ by one
   edit, two beyond ten letters, with lengths at most one apart (OCR confuses ``l``/``I``,
   drops a letter, glues an icon on: ``obook``); shorter names must be exact;
3. OCR glued two neighbouring words (``employshead``): names that together make up the
   token; or it split one (``patient No``, or two lines side by side, ``conv`` ``eys``):
   neighbouring tokens that together make a name;
4. a name the drawing wrapped over two lines (``Research`` above ``Associate`` in a box
   too narrow for ``ResearchAssociate``): a token and the one just below or above it,
   paired already or not (the second word is often a name of its own, ``Employee``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from cluestudio.core.check.names import ModelName
from cluestudio.core.check.tokens import ImageToken


def edit_allowance(length: int) -> int:
    """Edits OCR noise may make in a name of ``length`` characters."""
    if length < 4:
        return 0
    return 1 if length <= 10 else 2


# Letter groups OCR reads for one another (``returnedOn`` → ``retumedOn``): folded to one
# spelling before counting edits, so each confusion costs nothing.
_CONFUSIONS = (("rn", "m"), ("cl", "d"), ("vv", "w"), ("0", "o"), ("5", "s"), ("1", "l"),
               ("i", "l"), ("|", "l"))


def ocr_fold(key: str) -> str:
    for many, one in _CONFUSIONS:
        key = key.replace(many, one)
    return key


def near_spelling(a: str, b: str) -> bool:
    """Whether keys ``a`` and ``b`` differ only as OCR noise would: a few edits once OCR's
    usual confusions are folded, and at most one character more or less after folding
    (``myName`` for ``name`` is a rename, not noise)."""
    if a == b:
        return True
    allowed = edit_allowance(min(len(a), len(b)))
    if allowed == 0:
        return False
    if abs(len(a) - len(b)) <= 1 and _distance(a, b) <= allowed:
        return True
    fa, fb = ocr_fold(a), ocr_fold(b)
    return abs(len(fa) - len(fb)) <= 1 and _distance(fa, fb) <= allowed


@dataclass(frozen=True)
class Pair:
    tokens: tuple[int, ...]  # indices into the token list
    names: tuple[int, ...]  # indices into the name list
    how: str  # exact | fuzzy | glued | split


def _distance(a: str, b: str) -> int:
    from rapidfuzz.distance import Levenshtein

    return int(Levenshtein.distance(a, b))


def match(tokens: Sequence[ImageToken], names: Sequence[ModelName]) -> list[Pair]:
    pairs: list[Pair] = []
    free_t = set(range(len(tokens)))
    free_n = set(range(len(names)))

    # 1. exact keys. Class names first: a header paired with its class tells whose box
    # each token sits in. Then every other name goes to the token in its own class's box
    # before one in another box (a name a diagram writes twice: ``bms_id`` as an
    # attribute and inside another member's initial value), and to a token read as its
    # kind before one read as a stereotype or keyword.
    by_key: dict[str, list[int]] = defaultdict(list)
    for i in sorted(free_n):
        by_key[names[i].key].append(i)
    box_owner: dict[int, str] = {}
    for headers in (True, False):
        candidates = []
        for t in free_t:
            if headers and tokens[t].kind != "class":
                continue
            for n in by_key.get(tokens[t].key, ()):
                if n not in free_n or (headers and names[n].kind != "class") \
                        or not _may_pair(tokens[t], names[n], box_owner):
                    continue
                candidates.append((-_owner_agrees(tokens[t], names[n], box_owner),
                                   -_kind_agrees(tokens[t], names[n]),
                                   -tokens[t].confidence, t, n))
        for *_rank, t, n in sorted(candidates):
            if t in free_t and n in free_n:
                pairs.append(Pair((t,), (n,), "exact"))
                free_t.discard(t)
                free_n.discard(n)
                box = tokens[t].class_box
                if headers and box is not None:
                    box_owner.setdefault(box, names[n].owner)
        if headers:  # a header OCR misspelt (``ClearlO``) before a type takes its class
            _pair_near_headers(tokens, names, free_t, free_n, pairs, box_owner)

    # 2. near spellings, closest first; among equally close, a name of the class whose box
    # the token sits in (``hul`` in Ferry's box is Ferry's ``hull``, not a ``haul``)
    near: list[tuple[int, int, float, int, int]] = []
    for t in free_t:
        tk = tokens[t].key
        if tokens[t].kind == "multiplicity" or tokens[t].weak:
            continue
        for n in free_n:
            nk = names[n].key
            if names[n].kind == "multiplicity" \
                    or not _may_pair(tokens[t], names[n], box_owner):
                continue
            if near_spelling(tk, nk):
                near.append((_distance(ocr_fold(tk), ocr_fold(nk)),
                             -_owner_agrees(tokens[t], names[n], box_owner),
                             -tokens[t].confidence, t, n))
    for _d, _o, _c, t, n in sorted(near):
        if t in free_t and n in free_n:
            pairs.append(Pair((t,), (n,), "fuzzy"))
            free_t.discard(t)
            free_n.discard(n)

    # 2b. multiplicities as OCR garbles them: the small ``*`` and dots get lost or read as a
    # digit (``0..*`` → ``0``, ``0..3``); only between leftovers, nearest in length first
    loose = []
    for t in free_t:
        if tokens[t].kind != "multiplicity":
            continue
        tk = tokens[t].key
        for n in free_n:
            nk = names[n].key
            if names[n].kind == "multiplicity" and _garbled_multiplicity(tk, nk):
                loose.append((abs(len(nk) - len(tk)), -tokens[t].confidence, t, n))
    for _d, _c, t, n in sorted(loose):
        if t in free_t and n in free_n:
            pairs.append(Pair((t,), (n,), "fuzzy"))
            free_t.discard(t)
            free_n.discard(n)

    # 2c. the rest of a multiplicity OCR read as two pieces: a raised ``*`` after ``0..``
    # comes out as a token (even a line) of its own; it joins the piece already paired
    # when the two, side by side, spell that name (PlantUML 1.2026's font, issue 28)
    for index, pair in enumerate(pairs):
        n = pair.names[0]
        if names[n].kind != "multiplicity" or len(pair.tokens) != 1:
            continue
        first = tokens[pair.tokens[0]]
        tail = next((t for t in sorted(free_t) if tokens[t].kind == "multiplicity"
                     and first.key + tokens[t].key == names[n].key
                     and _side_by_side(first, tokens[t])), None)
        if tail is not None:
            pairs[index] = Pair((pair.tokens[0], tail), (n,), "split")
            free_t.discard(tail)

    # 3a. one token glued from several names
    for t in sorted(free_t):
        tk = tokens[t].key
        if len(tk) < 5 or tokens[t].kind == "multiplicity":
            continue
        parts = [n for n in sorted(free_n, key=lambda i: -len(names[i].key))
                 if len(names[n].key) >= 2 and names[n].key in tk]
        covered, used, rest = 0, [], tk
        for n in parts:
            nk = names[n].key
            if nk in rest:
                rest = rest.replace(nk, "\0" * len(nk), 1)
                covered += len(nk)
                used.append(n)
        if len(used) >= 1 and covered >= 0.8 * len(tk) and covered >= 4:
            pairs.append(Pair((t,), tuple(used), "glued"))
            free_t.discard(t)
            free_n.difference_update(used)

    # 3b. one name split over neighbouring tokens: of one line, or of two OCR lines side by
    # side (``conv`` and ``eys``: OCR cut a label or a header in two pieces)
    line_ends: dict[int, int] = {}
    for token in tokens:
        line_ends[token.line] = max(line_ends.get(token.line, 0), token.position)
    for n in sorted(free_n):
        nk = names[n].key
        if len(nk) < 4:
            continue
        for t in sorted(free_t):
            run = [t]
            joined = tokens[t].key
            while len(joined) < len(nk):
                nxt = _next_piece(tokens, run[-1], free_t, line_ends)
                if nxt is None:
                    break
                run.append(nxt)
                joined += tokens[nxt].key
            lines = {tokens[u].line for u in run}
            if len(run) > 1 and _distance(joined, nk) <= edit_allowance(len(nk)) and (
                    len(lines) == 1 or all(not tokens[u].weak and _may_pair(
                        tokens[u], names[n], box_owner) for u in run)):
                # pieces of two lines: words of their own each, as a name of theirs may be
                pairs.append(Pair(tuple(run), (n,), "split"))
                free_t.difference_update(run)
                free_n.discard(n)
                break

    # 4. one name wrapped over two lines
    for n in sorted(free_n):
        nk = names[n].key
        if len(nk) < 6 or names[n].kind == "multiplicity":
            continue
        found = _wrapped(n, nk, tokens, free_t)
        if found is None:
            continue
        for u in found[1]:
            # the second word was paired with a name of its own (``Employee``) that another,
            # free token spells as well: that token takes the name, this one the wrap
            twin = next((v for v in sorted(free_t) if v not in found[0]
                         and tokens[v].key == tokens[u].key), None)
            owner = next((i for i, p in enumerate(pairs) if u in p.tokens), None)
            if twin is not None and owner is not None and len(pairs[owner].tokens) == 1:
                pairs[owner] = Pair((twin,), pairs[owner].names, pairs[owner].how)
                free_t.discard(twin)
                found = ((*found[0], u), ())
        pairs.append(Pair(found[0], (n,), "wrapped"))
        free_t.difference_update(found[0])
        free_n.discard(n)
    return pairs


def _next_piece(tokens: Sequence[ImageToken], t: int, free: set[int],
                line_ends: dict[int, int]) -> int | None:
    """The free token that goes on from token ``t``: the next one of its line, else the
    first of another line that starts where ``t``, its line's last, ends
    (:func:`_side_by_side`). ``line_ends``: each line's last token position."""
    token = tokens[t]
    if token.position < line_ends[token.line]:
        return next((u for u in free if tokens[u].line == token.line
                     and tokens[u].position == token.position + 1), None)
    return next((u for u in sorted(free) if tokens[u].line != token.line
                 and tokens[u].position == 0 and tokens[u].kind != "multiplicity"
                 and tokens[u].class_box == token.class_box
                 and _side_by_side(token, tokens[u])), None)


def _side_by_side(left: ImageToken, right: ImageToken) -> bool:
    """``right`` starts where ``left`` ends (a gap under a character's height) and overlaps
    it vertically: one piece of text that OCR cut in two."""
    _, l_top, l_right, l_bottom = left.box.rect
    r_left, r_top, _, r_bottom = right.box.rect
    height = max(l_bottom - l_top, r_bottom - r_top, 1.0)
    return (-height <= r_left - l_right <= height
            and min(l_bottom, r_bottom) - max(l_top, r_top) > -0.5 * height)


def _stacked(upper: ImageToken, lower: ImageToken) -> bool:
    """Whether ``lower`` is the next line of text below ``upper``: overlapping columns, a
    line's height or so apart."""
    ax0, ay0, ax1, ay1 = upper.box.rect
    bx0, by0, bx1, by1 = lower.box.rect
    height = max(ay1 - ay0, by1 - by0, 1.0)
    gap = by0 - ay1
    overlap = min(ax1, bx1) - max(ax0, bx0)
    return -0.3 * height <= gap <= 0.9 * height and overlap > -0.5 * height


def _wrapped(n: int, key: str, tokens: Sequence[ImageToken], free: set[int]
             ) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """(free, already paired) tokens of two stacked lines that together spell ``key``
    (one of the two may already be paired with a name of its own)."""
    words = [t for t, token in enumerate(tokens)
             if token.kind != "multiplicity" and 2 <= len(token.key) < len(key)]
    firsts = [t for t in words if key.startswith(tokens[t].key[:2])]
    seconds = [u for u in words if key.endswith(tokens[u].key[-2:])]
    allowed = edit_allowance(len(key))
    for t in firsts:
        for u in seconds:
            if u == t or (t not in free and u not in free):
                continue
            first, second = tokens[t], tokens[u]
            if second.line == first.line:
                continue
            joined = first.key + second.key
            if (abs(len(joined) - len(key)) <= allowed and _distance(joined, key) <= allowed
                    and _stacked(first, second)):
                return (tuple(x for x in (t, u) if x in free),
                        tuple(x for x in (t, u) if x not in free))
    return None


def _garbled_multiplicity(read: str, written: str) -> bool:
    if not read or not written:
        return False
    if written.startswith(read.rstrip(".")) or read.replace(".", "") == written.replace(".", ""):
        return True
    return ".." in read and ".." in written and _distance(read, written) <= 1


def _pair_near_headers(tokens: Sequence[ImageToken], names: Sequence[ModelName],
                       free_t: set[int], free_n: set[int], pairs: list[Pair],
                       box_owner: dict[int, str]) -> None:
    candidates = []
    for t in free_t:
        if tokens[t].kind != "class" or tokens[t].weak:
            continue
        for n in free_n:
            if names[n].kind == "class" and near_spelling(tokens[t].key, names[n].key):
                candidates.append((_distance(ocr_fold(tokens[t].key), ocr_fold(names[n].key)),
                                   -tokens[t].confidence, t, n))
    for _d, _c, t, n in sorted(candidates):
        if t in free_t and n in free_n:
            pairs.append(Pair((t,), (n,), "fuzzy"))
            free_t.discard(t)
            free_n.discard(n)
            box = tokens[t].class_box
            if box is not None:
                box_owner.setdefault(box, names[n].owner)


def _may_pair(token: ImageToken, name: ModelName, box_owner: dict[int, str]) -> bool:
    """A class box's header names that class: it pairs with a class name, a label, its own
    class's member, never with another class's member or type of the same spelling.
    When a conversion drops class ``Author`` but keeps an attribute typed ``Author``, the
    header read in image A is the dropped class, not that type."""
    if token.kind != "class" or name.kind not in ("attribute", "method", "parameter", "type"):
        return True  # a relation's label in a box the layout drew round it, a note
    return token.class_box is not None and box_owner.get(token.class_box) == name.owner


def _owner_agrees(token: ImageToken, name: ModelName, box_owner: dict[int, str]) -> int:
    """1 when ``token`` sits in the box of the class that owns ``name``."""
    return int(bool(name.owner) and token.class_box is not None
               and box_owner.get(token.class_box) == name.owner)


def _kind_agrees(token: ImageToken, name: ModelName) -> int:
    """2: the token reads as the name's kind; 1: a kindred kind (a member read as another
    member, a class name written as a type); 0: read as a stereotype or keyword."""
    if token.kind == name.kind:
        return 2
    if token.kind in ("stereotype", "keyword", "type keyword"):
        return 0
    return 1

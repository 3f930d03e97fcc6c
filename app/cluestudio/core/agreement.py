"""Inter-rater agreement of graders who rated the same submissions.

Before a metric is calibrated against "the human score", check the humans agree with each
other: Krippendorff's α (any number of graders, missing ratings allowed) for interval data
and for ordinal data — rubric scores are ordinal: "3" is more than "2", but the step from 2
to 3 need not equal the step from 3 to 4, and the ordinal metric does not assume it — the
intraclass correlations of Shrout & Fleiss (1979), ICC(2,k) being the reliability of the
mean of k graders, and Cohen's weighted κ for every pair of graders; plus per-item and
per-grader views for finding the submissions and graders behind a low figure.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

import numpy as np


@dataclass(frozen=True)
class Ratings:
    """Items × graders; NaN where a grader did not rate an item."""

    items: tuple[str, ...]
    graders: tuple[str, ...]
    values: np.ndarray

    @classmethod
    def from_records(cls, records: Iterable[tuple[str, str, float]]) -> Ratings:
        """From (item, grader, value) triples; a grader rating one item twice is an error."""
        table: dict[tuple[str, str], float] = {}
        items: dict[str, None] = {}
        graders: dict[str, None] = {}
        for item, grader, value in records:
            key = (str(item), str(grader))
            if key in table:
                raise ValueError(f"grader {key[1]!r} rated item {key[0]!r} twice")
            table[key] = float(value)
            items.setdefault(key[0])
            graders.setdefault(key[1])
        item_list, grader_list = tuple(items), tuple(graders)
        values = np.full((len(item_list), len(grader_list)), np.nan)
        row = {k: i for i, k in enumerate(item_list)}
        col = {k: j for j, k in enumerate(grader_list)}
        for (item, grader), value in table.items():
            values[row[item], col[grader]] = value
        return cls(item_list, grader_list, values)

    @classmethod
    def from_matrix(cls, values: Sequence[Sequence[float]] | np.ndarray,
                    items: Sequence[str] | None = None,
                    graders: Sequence[str] | None = None) -> Ratings:
        array = np.asarray(values, dtype=float)
        n, k = array.shape
        return cls(tuple(items or (str(i + 1) for i in range(n))),
                   tuple(graders or (f"g{j + 1}" for j in range(k))), array)


# -- Krippendorff's alpha --------------------------------------------------------------------
def krippendorff_alpha_interval(values: np.ndarray) -> float:
    """Krippendorff's α with the interval metric δ² = (c − k)², items × graders, NaN missing.

    Only items with at least two ratings are pairable. With Σ over ordered pairs i ≠ j,
    Σ (vᵢ − vⱼ)² = 2(m·Σv² − (Σv)²), so observed and expected disagreement need no pair
    loops (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability", §E).
    """
    v = np.asarray(values, dtype=float)
    mask = np.isfinite(v)
    m = mask.sum(axis=1)
    pairable = m >= 2
    v, mask, m = v[pairable], mask[pairable], m[pairable]
    n = int(m.sum())
    if n < 2:
        return math.nan
    filled = np.where(mask, v, 0.0)
    s1, s2 = filled.sum(axis=1), (filled * filled).sum(axis=1)
    observed = float(np.sum(2.0 * (m * s2 - s1 * s1) / (m - 1))) / n
    total1, total2 = float(s1.sum()), float(s2.sum())
    expected = 2.0 * (n * total2 - total1 * total1) / (n * (n - 1))
    if expected <= 0:
        return math.nan  # every rating equal: agreement is undefined, not perfect
    return 1.0 - observed / expected


def krippendorff_alpha_ordinal(values: np.ndarray) -> float:
    """Krippendorff's α with the ordinal metric, items × graders, NaN missing.

    From the coincidence matrix o_ck = Σᵤ (c-k pairs in unit u) / (mᵤ − 1) of the pairable
    units and the ordinal distance δ²_ck = (Σ_{g=c..k} n_g − (n_c + n_k)/2)², n_g the
    pairable frequency of value g (Krippendorff 2011, §B and §E): only the order of the
    values and how often each is used count, not their spacing. Values never used add
    nothing, so the categories are the distinct values present.
    """
    v = np.asarray(values, dtype=float)
    mask = np.isfinite(v)
    pairable = mask.sum(axis=1) >= 2
    v, mask = v[pairable], mask[pairable]
    if int(mask.sum()) < 2:
        return math.nan
    categories, codes = np.unique(v[mask], return_inverse=True)
    size = len(categories)
    counts = np.zeros((len(v), size))  # units × categories
    rows = np.nonzero(mask)[0]
    np.add.at(counts, (rows, codes), 1.0)
    m = counts.sum(axis=1)
    weights = 1.0 / (m - 1)
    coincidence = (counts * weights[:, None]).T @ counts
    coincidence -= np.diag((counts * weights[:, None]).sum(axis=0))
    n_c = coincidence.sum(axis=1)
    n = float(n_c.sum())
    cumulative = np.concatenate([[0.0], np.cumsum(n_c)])
    low = np.minimum.outer(np.arange(size), np.arange(size))
    high = np.maximum.outer(np.arange(size), np.arange(size))
    between = cumulative[high + 1] - cumulative[low]  # Σ n_g for g from c to k
    delta = (between - (n_c[:, None] + n_c[None, :]) / 2.0) ** 2
    expected = float((np.outer(n_c, n_c) * delta).sum())
    if expected <= 0:
        return math.nan  # one value only: agreement is undefined, not perfect
    return 1.0 - (n - 1.0) * float((coincidence * delta).sum()) / expected


# -- intraclass correlation ------------------------------------------------------------------
@dataclass(frozen=True)
class ICC:
    """Shrout & Fleiss (1979) intraclass correlations of a complete items × graders table.

    ``icc2k`` (two-way random, absolute agreement, average of k graders) is the reliability
    of the mean score used as "the human total"; ``icc21`` that of a single grader.
    """

    n: int  # items used (complete rows)
    k: int  # graders
    dropped: int  # items left out for a missing rating
    icc11: float
    icc21: float
    icc31: float
    icc1k: float
    icc2k: float
    icc3k: float
    msr: float  # between items
    msc: float  # between graders
    mse: float  # residual
    msw: float  # within items
    f: float  # MSR / MSE, tests ICC(2,·) = ICC(3,·) = 0
    p: float

    def to_dict(self) -> dict[str, float]:
        return asdict(self)


def icc(values: np.ndarray) -> ICC:
    """All six Shrout–Fleiss ICCs from the two-way ANOVA of the complete rows."""
    from scipy import stats as sps

    v = np.asarray(values, dtype=float)
    complete = np.all(np.isfinite(v), axis=1)
    x = v[complete]
    n, k = x.shape
    nan = math.nan
    if n < 2 or k < 2:
        return ICC(n, k, int((~complete).sum()), *([nan] * 12))
    grand = x.mean()
    ss_total = float(((x - grand) ** 2).sum())
    ss_rows = k * float(((x.mean(axis=1) - grand) ** 2).sum())
    ss_cols = n * float(((x.mean(axis=0) - grand) ** 2).sum())
    ss_err = ss_total - ss_rows - ss_cols
    msr, msc = ss_rows / (n - 1), ss_cols / (k - 1)
    mse = ss_err / ((n - 1) * (k - 1))
    msw = (ss_total - ss_rows) / (n * (k - 1))

    def ratio(num: float, den: float) -> float:
        return num / den if den != 0 else nan

    f = ratio(msr, mse)
    p = float(sps.f.sf(f, n - 1, (n - 1) * (k - 1))) if math.isfinite(f) else nan
    return ICC(
        n=n, k=k, dropped=int((~complete).sum()),
        icc11=ratio(msr - msw, msr + (k - 1) * msw),
        icc21=ratio(msr - mse, msr + (k - 1) * mse + k * (msc - mse) / n),
        icc31=ratio(msr - mse, msr + (k - 1) * mse),
        icc1k=ratio(msr - msw, msr),
        icc2k=ratio(msr - mse, msr + (msc - mse) / n),
        icc3k=ratio(msr - mse, msr),
        msr=msr, msc=msc, mse=mse, msw=msw, f=f, p=p)


# -- weighted kappa --------------------------------------------------------------------------
def weighted_kappa(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray, *,
                   weights: str = "quadratic",
                   categories: Sequence[float] | None = None) -> float:
    """Cohen's weighted κ of two graders on the items both rated.

    Disagreement weights are |i − j| (``linear``) or (i − j)² (``quadratic``) in category
    positions, as Cohen (1968) and scikit-learn define them. Categories default to every
    integer between the lowest and highest rating when all ratings are integers (so a
    rubric total's unused scores still count as distance), else the distinct ratings.
    """
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    keep = np.isfinite(x) & np.isfinite(y)
    x, y = x[keep], y[keep]
    if len(x) == 0:
        return math.nan
    if categories is None:
        both = np.concatenate([x, y])
        if np.all(both == np.round(both)):
            cats = np.arange(both.min(), both.max() + 1)
        else:
            cats = np.unique(both)
    else:
        cats = np.asarray(sorted(categories), dtype=float)
    index = {float(c): i for i, c in enumerate(cats)}
    try:
        xi = np.array([index[float(v)] for v in x])
        yi = np.array([index[float(v)] for v in y])
    except KeyError as missing:
        raise ValueError(f"rating {missing.args[0]} is not one of the categories") from None
    size = len(cats)
    observed = np.zeros((size, size))
    np.add.at(observed, (xi, yi), 1.0)
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0)) / len(x)
    grid = np.abs(np.subtract.outer(np.arange(size), np.arange(size))).astype(float)
    if weights == "quadratic":
        grid = grid**2
    elif weights != "linear":
        raise ValueError("weights must be 'linear' or 'quadratic'")
    denom = float((grid * expected).sum())
    return 1.0 - float((grid * observed).sum()) / denom if denom > 0 else math.nan


@dataclass(frozen=True)
class PairKappa:
    first: str
    second: str
    n: int
    linear: float
    quadratic: float


def pairwise_kappas(ratings: Ratings) -> list[PairKappa]:
    """Weighted κ (linear and quadratic) for every pair of graders with shared items."""
    out = []
    for i, j in itertools.combinations(range(len(ratings.graders)), 2):
        a, b = ratings.values[:, i], ratings.values[:, j]
        both = np.isfinite(a) & np.isfinite(b)
        if not both.any():
            continue
        out.append(PairKappa(ratings.graders[i], ratings.graders[j], int(both.sum()),
                             weighted_kappa(a, b, weights="linear"),
                             weighted_kappa(a, b, weights="quadratic")))
    return out


@dataclass(frozen=True)
class PairAgreement:
    """Two graders on the items both rated: α (interval and ordinal), ICC(2,k = 2) and
    weighted κ."""

    first: str
    second: str
    n: int  # items both rated
    alpha_interval: float
    icc2k: float
    kappa_linear: float
    kappa_quadratic: float
    alpha_ordinal: float = math.nan

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def pairwise_agreement(ratings: Ratings, *, categories: Sequence[float] | None = None
                       ) -> list[PairAgreement]:
    """Every pair of graders with shared items, in grader order.

    ``categories`` are the κ categories (e.g. a rubric item's scale steps); by default
    those of :func:`weighted_kappa`. α and ICC use only the items both graders rated.
    """
    out = []
    for i, j in itertools.combinations(range(len(ratings.graders)), 2):
        a, b = ratings.values[:, i], ratings.values[:, j]
        both = np.isfinite(a) & np.isfinite(b)
        if not both.any():
            continue
        table = np.column_stack([a[both], b[both]])
        out.append(PairAgreement(
            ratings.graders[i], ratings.graders[j], int(both.sum()),
            krippendorff_alpha_interval(table), icc(table).icc2k,
            weighted_kappa(a, b, weights="linear", categories=categories),
            weighted_kappa(a, b, weights="quadratic", categories=categories),
            krippendorff_alpha_ordinal(table)))
    return out


# -- per-item and per-grader views -----------------------------------------------------------
@dataclass(frozen=True)
class ItemAgreement:
    """How the graders of one item agree: spread of their ratings."""

    item: str
    n: int
    mean: float
    sd: float  # sample SD (ddof 1); NaN with one rating
    range: float
    ratings: dict[str, float]

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def item_agreement(ratings: Ratings) -> list[ItemAgreement]:
    """One entry per item, in input order."""
    out = []
    for i, item in enumerate(ratings.items):
        row = ratings.values[i]
        ok = np.isfinite(row)
        vals = row[ok]
        out.append(ItemAgreement(
            item=item, n=int(ok.sum()),
            mean=float(vals.mean()) if vals.size else math.nan,
            sd=float(vals.std(ddof=1)) if vals.size >= 2 else math.nan,
            range=float(np.ptp(vals)) if vals.size else math.nan,
            ratings={g: float(v) for g, v, o in zip(ratings.graders, row, ok, strict=True)
                     if o}))
    return out


@dataclass(frozen=True)
class GraderAgreement:
    """One grader against the others on the items they share.

    ``bias`` is the mean of (this grader − mean of the other graders); ``pearson`` the
    correlation with that leave-one-out mean; ``alpha_without`` the interval α of everyone
    else, so a grader whose removal raises α stands out.
    """

    grader: str
    n: int
    mean: float
    sd: float
    shared: int  # items also rated by someone else
    bias: float
    mae: float
    pearson: float
    alpha_without: float

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def grader_agreement(ratings: Ratings) -> list[GraderAgreement]:
    from cluestudio.core.calibrate.stats import pearson

    out = []
    v = ratings.values
    for j, grader in enumerate(ratings.graders):
        mine = v[:, j]
        others = np.delete(v, j, axis=1)
        with warnings.catch_warnings():  # an item only this grader rated: NaN, not a warning
            warnings.simplefilter("ignore", RuntimeWarning)
            other_mean = (np.nanmean(others, axis=1) if others.shape[1]
                          else np.full(len(mine), np.nan))
        own = np.isfinite(mine)
        shared = own & np.isfinite(other_mean)
        diff = mine[shared] - other_mean[shared]
        out.append(GraderAgreement(
            grader=grader, n=int(own.sum()),
            mean=float(mine[own].mean()) if own.any() else math.nan,
            sd=float(mine[own].std(ddof=1)) if own.sum() >= 2 else math.nan,
            shared=int(shared.sum()),
            bias=float(diff.mean()) if diff.size else math.nan,
            mae=float(np.abs(diff).mean()) if diff.size else math.nan,
            pearson=pearson(mine[shared], other_mean[shared]),
            alpha_without=krippendorff_alpha_interval(others) if others.shape[1] else math.nan))
    return out


@dataclass(frozen=True)
class AgreementReport:
    """Everything :func:`agreement_report` computes, ready for JSON or the GUI."""

    items: int
    graders: tuple[str, ...]
    ratings: int
    alpha_interval: float
    icc: ICC
    kappas: tuple[PairKappa, ...]
    per_item: tuple[ItemAgreement, ...]
    per_grader: tuple[GraderAgreement, ...]
    alpha_ordinal: float = math.nan

    def to_dict(self) -> dict[str, object]:
        return {"items": self.items, "graders": list(self.graders), "ratings": self.ratings,
                "alpha_interval": self.alpha_interval, "alpha_ordinal": self.alpha_ordinal,
                "icc": self.icc.to_dict(),
                "kappas": [asdict(k) for k in self.kappas],
                "per_item": [i.to_dict() for i in self.per_item],
                "per_grader": [g.to_dict() for g in self.per_grader]}

    def to_text(self) -> str:
        c = self.icc
        lines = [
            f"{self.items} items, {len(self.graders)} graders, {self.ratings} ratings",
            f"Krippendorff's alpha (interval): {self.alpha_interval:.3f}   "
            f"(ordinal): {self.alpha_ordinal:.3f}",
            f"ICC(2,1) {c.icc21:.3f}   ICC(2,k) {c.icc2k:.3f}   (k = {c.k}, {c.n} complete "
            f"items, {c.dropped} left out; ICC(1,1) {c.icc11:.3f}, ICC(3,1) {c.icc31:.3f})",
            "", f"{'grader pair':<30}{'n':>5}{'kappa lin':>11}{'kappa quad':>12}"]
        lines += [f"{k.first + ' / ' + k.second:<30}{k.n:>5}{k.linear:>11.3f}"
                  f"{k.quadratic:>12.3f}" for k in self.kappas]
        lines += ["", f"{'grader':<20}{'n':>5}{'mean':>8}{'bias':>8}{'MAE':>8}{'r':>7}"
                      f"{'alpha w/o (interval)':>22}"]
        lines += [f"{g.grader:<20}{g.n:>5}{g.mean:>8.2f}{g.bias:>8.2f}{g.mae:>8.2f}"
                  f"{g.pearson:>7.3f}{g.alpha_without:>22.3f}" for g in self.per_grader]
        return "\n".join(lines)


def agreement_report(ratings: Ratings) -> AgreementReport:
    """α, ICC, pairwise κ and the per-item / per-grader views of one ratings table."""
    return AgreementReport(
        items=len(ratings.items), graders=ratings.graders,
        ratings=int(np.isfinite(ratings.values).sum()),
        alpha_interval=krippendorff_alpha_interval(ratings.values),
        icc=icc(ratings.values), kappas=tuple(pairwise_kappas(ratings)),
        per_item=tuple(item_agreement(ratings)), per_grader=tuple(grader_agreement(ratings)),
        alpha_ordinal=krippendorff_alpha_ordinal(ratings.values))

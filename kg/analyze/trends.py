"""Trends of a concept over the years of its papers: first year, mean year, growth, bursts.

The "emerging" statistic is Kleinberg's burst detection on yearly batches (Kleinberg, "Bursty
and Hierarchical Structure in Streams", KDD 2002, section 4), the method CiteSpace uses for
"burst terms". Why it, and not a growth rate of raw counts: the corpus has a different number
of papers each year (venues come and go), so a concept's count grows with the corpus. The batch
model looks at the concept's *share* of each year's papers: a two-state automaton, a base state
with the concept's overall share p0 and a burst state with share s·p0; entering the burst state
costs γ·ln(n) for n years, so a one-year blip of a rare concept is not a burst. The optimal
state sequence (Viterbi) gives the burst years; a burst's weight is how much better the burst
state explains those years than the base state (the log-likelihood gained). A concept is
*emerging* when a burst is still on in the graph's last year: its emerging score is that
burst's weight (0 otherwise).

Growth is the yearly change of the concept's share, from a least-squares line through the log
share of each year from its first year to the graph's last (a year without papers of the
concept counts half a paper): 1.0 means the share doubles every year.

>>> [(b.start, b.end) for b in bursts([0, 0, 1, 5, 9], [10, 10, 10, 10, 10])]
[(3, 4)]
>>> round(growth([1, 2, 4, 8], [100, 100, 100, 100]), 6)
1.0
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

_MAX_RATE = 0.9999


@dataclass(frozen=True, slots=True)
class Burst:
    """A burst from batch `start` to batch `end` (inclusive) and its weight."""

    start: int
    end: int
    weight: float


@dataclass(frozen=True, slots=True)
class Trend:
    """A concept's trend figures (years as numbers)."""

    first_year: int
    last_year: int
    mean_year: float
    growth: float | None
    burst: Burst | None  # the strongest burst, its start and end as years
    emerging: float


def bursts(hits: Sequence[int], totals: Sequence[int], *, scale: float = 2.0,
           cost: float = 1.0) -> list[Burst]:
    """Kleinberg's two-state bursts of `hits[t]` out of `totals[t]` (batches in time order).

    Binomial costs: state i costs -ln(p_i^r (1-p_i)^(d-r)) in a batch of d papers with r hits
    (the binomial coefficient is the same in both states and drops out).
    """
    total_hits, total = sum(hits), sum(totals)
    n = len(hits)
    if n < 2 or total_hits == 0 or total == 0:
        return []
    p0 = total_hits / total
    p1 = min(scale * p0, _MAX_RATE)
    if p1 <= p0:
        return []

    def fit(p: float, r: int, d: int) -> float:
        return -(r * math.log(p) + (d - r) * math.log1p(-p))

    base = [fit(p0, r, d) for r, d in zip(hits, totals, strict=True)]
    high = [fit(p1, r, d) for r, d in zip(hits, totals, strict=True)]
    enter = cost * math.log(n)
    # Viterbi over the two states, starting in the base state.
    best = [base[0], enter + high[0]]
    came: list[tuple[int, int]] = [(0, 0)]
    for t in range(1, n):
        to_base = (best[0], 0) if best[0] <= best[1] else (best[1], 1)
        to_high = (best[0] + enter, 0) if best[0] + enter < best[1] else (best[1], 1)
        best = [to_base[0] + base[t], to_high[0] + high[t]]
        came.append((to_base[1], to_high[1]))
    state = 0 if best[0] <= best[1] else 1
    states = [state]
    for t in range(n - 1, 0, -1):
        state = came[t][state]
        states.append(state)
    states.reverse()
    found: list[Burst] = []
    t = 0
    while t < n:
        if states[t] == 1:
            start = t
            while t + 1 < n and states[t + 1] == 1:
                t += 1
            weight = sum(base[k] - high[k] for k in range(start, t + 1))
            found.append(Burst(start, t, weight))
        t += 1
    return found


def growth(hits: Sequence[int], totals: Sequence[int]) -> float | None:
    """exp(slope) - 1 of the least-squares line through ln(share) per batch; None below two
    batches. A batch without hits counts half a hit."""
    n = len(hits)
    if n < 2:
        return None
    logs = [math.log((r if r > 0 else 0.5) / d) for r, d in zip(hits, totals, strict=True)]
    mean_t = (n - 1) / 2
    mean_y = sum(logs) / n
    slope = sum((t - mean_t) * (y - mean_y) for t, y in enumerate(logs)) / sum(
        (t - mean_t) ** 2 for t in range(n)
    )
    return math.expm1(slope)


def concept_trend(
    paper_years: Sequence[int], year_totals: dict[int, int], *, scale: float = 2.0,
    cost: float = 1.0,
) -> Trend | None:
    """The trend of a concept whose papers appeared in `paper_years` (one year per paper),
    given the number of papers of each year in the graph. None without years."""
    if not paper_years:
        return None
    years = sorted(year_totals)
    counts = dict.fromkeys(years, 0)
    for year in paper_years:
        counts[year] += 1
    hits = [counts[y] for y in years]
    totals = [year_totals[y] for y in years]
    first = min(paper_years)
    since = years.index(first)
    found = bursts(hits, totals, scale=scale, cost=cost)
    strongest = max(found, key=lambda b: (b.weight, b.start), default=None)
    emerging = max((b.weight for b in found if b.end == len(years) - 1), default=0.0)
    return Trend(
        first_year=first,
        last_year=max(paper_years),
        mean_year=sum(paper_years) / len(paper_years),
        growth=growth(hits[since:], totals[since:]),
        burst=Burst(years[strongest.start], years[strongest.end], strongest.weight)
        if strongest else None,
        emerging=emerging,
    )

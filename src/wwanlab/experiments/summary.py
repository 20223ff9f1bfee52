"""Summaries of result rows that every reproduction needs: grouped means with Student t
intervals, and the relative gain of one mean over another with its interval.

The grouping is DuckDB's (the rows go into an in-memory table, the same typing rules as
the results store); the quantiles are scipy's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from scipy import stats

from wwanlab.experiments.scenario import Row
from wwanlab.experiments.store import ResultStore, quote_identifier

CONFIDENCE = 0.95
"""Two-sided confidence of every interval a summary reports."""


def t_quantile(df: int, confidence: float = CONFIDENCE) -> float:
    """The Student t quantile for a two-sided ``confidence`` interval; NaN when df < 1."""
    if df < 1:
        return math.nan
    return float(stats.t.ppf(0.5 + confidence / 2, df))


@dataclass(frozen=True)
class Summary:
    """One group's mean of a value over its completed runs, with its t interval.

    ``failed`` counts the group's runs that did not complete (left out of the mean);
    ``means`` holds the plain means of other columns over *all* the group's runs (NULLs
    left out; NaN when the column is NULL throughout).
    """

    key: tuple[object, ...]
    n: int
    mean: float
    sd: float
    failed: int = 0
    means: dict[str, float] = field(default_factory=dict)

    @property
    def se(self) -> float:
        return self.sd / math.sqrt(self.n) if self.n > 1 else math.nan

    @property
    def half_width(self) -> float:
        return t_quantile(self.n - 1) * self.se if self.n > 1 else math.nan


def summarize(
    rows: Sequence[Row],
    by: Sequence[str],
    value: str,
    *,
    complete: str | None = None,
    means: Sequence[str] = (),
) -> dict[tuple[object, ...], Summary]:
    """Group ``rows`` by the columns ``by`` and summarize ``value`` in each group.

    Only rows whose boolean column ``complete`` is true count towards the mean (all
    rows when it is None); ``means`` are averaged over every row of the group. The
    result is ordered by the group key.
    """
    if not rows:
        return {}
    q = quote_identifier
    ok = f"WHERE {q(complete)}" if complete else ""
    keys = ", ".join(q(c) for c in by)
    extra = "".join(f", avg(CAST({q(m)} AS DOUBLE))" for m in means)  # all-NULL: VARCHAR
    sql = (
        f"SELECT {keys}, count(*) FILTER ({ok or 'WHERE true'}), "
        f"avg({q(value)}) FILTER ({ok or 'WHERE true'}), "
        f"stddev_samp({q(value)}) FILTER ({ok or 'WHERE true'}), count(*){extra} "
        f"FROM rows GROUP BY {keys} ORDER BY {keys}"
    )
    with ResultStore(":memory:") as store:
        store.write("rows", rows)
        result = store.query(sql)
    out: dict[tuple[object, ...], Summary] = {}
    width = len(by)
    for record in result:
        key = tuple(record[:width])
        n, mean, sd, total = record[width : width + 4]
        out[key] = Summary(
            key,
            int(n),
            math.nan if mean is None else float(mean),
            math.nan if sd is None else float(sd),
            int(total) - int(n),
            {
                m: math.nan if v is None else float(v)
                for m, v in zip(means, record[width + 4 :], strict=True)
            },
        )
    return out


@dataclass(frozen=True)
class Gain:
    """How much larger one mean is than another, in percent, with its interval."""

    percent: float
    half_width: float


def relative_gain(a: Summary, b: Summary) -> Gain:
    """``a``'s mean over ``b``'s, in percent above 1, with a delta-method interval."""
    ratio = a.mean / b.mean
    rel = math.hypot(a.se / a.mean, b.se / b.mean)
    df = min(a.n, b.n) - 1
    return Gain(100 * (ratio - 1), 100 * ratio * rel * t_quantile(df))

"""Delay models: a packet reaching the stage at ``t`` leaves at ``t + d``, ``d`` drawn anew.

Each model is also a distribution that knows its own mean and quantiles, so a preset
can state the delay it configured (``wwanlab links``) and a test can compare what it
measures against the analytic value. Delays are in seconds. A delay stage does not
hold the line: two packets may be in flight at once and, with random delays, overtake
each other unless the ``Direction`` is FIFO.
"""

import bisect
import itertools
import math
import random
from collections.abc import Sequence
from statistics import NormalDist
from typing import Protocol

from wwanlab.core.errors import UsageError
from wwanlab.link import checks


class DelayDistribution(Protocol):
    """What presets, ARQ and service stages need from a delay model."""

    @property
    def mean(self) -> float: ...

    def quantile(self, q: float) -> float:
        """The delay below which a fraction ``q`` of draws fall."""
        ...

    def sample(self, rng: random.Random) -> float: ...


class _DelayStage:
    """``process`` for every delay model: leave after one fresh draw."""

    def sample(self, rng: random.Random) -> float:
        raise NotImplementedError

    def process(self, size: int, t: float, rng: random.Random) -> float:
        return t + self.sample(rng)


def _check_q(q: float) -> float:
    return checks.probability("quantile", q)


class _InverseCdfDelay(_DelayStage):
    """A model drawn by inversion: ``_at(p)`` is its quantile function."""

    def _at(self, p: float) -> float:
        raise NotImplementedError

    def quantile(self, q: float) -> float:
        return self._at(_check_q(q))

    def sample(self, rng: random.Random) -> float:
        return self._at(rng.random())


class ConstantDelay(_DelayStage):
    """A fixed delay: propagation, a node's processing time."""

    def __init__(self, delay: float) -> None:
        self.delay = checks.non_negative("delay", delay)

    @property
    def mean(self) -> float:
        return self.delay

    def quantile(self, q: float) -> float:
        _check_q(q)
        return self.delay

    def sample(self, rng: random.Random) -> float:
        return self.delay

    def process(self, size: int, t: float, rng: random.Random) -> float:
        return t + self.delay  # t + sample(rng), one call fewer on every packet

    def __repr__(self) -> str:
        return f"ConstantDelay({self.delay})"


class UniformDelay(_DelayStage):
    """A delay uniform on [lo, hi]: all a paper gives is often a range."""

    def __init__(self, lo: float, hi: float) -> None:
        self.lo = checks.non_negative("lo", lo)
        self.hi = checks.non_negative("hi", hi)
        if self.hi < self.lo:
            raise UsageError(f"hi must be >= lo, got lo={lo!r} hi={hi!r}")

    @property
    def mean(self) -> float:
        return (self.lo + self.hi) / 2

    def quantile(self, q: float) -> float:
        return self.lo + _check_q(q) * (self.hi - self.lo)

    def sample(self, rng: random.Random) -> float:
        return self.lo + rng.random() * (self.hi - self.lo)

    def __repr__(self) -> str:
        return f"UniformDelay({self.lo}, {self.hi})"


class ExponentialDelay(_DelayStage):
    """``shift`` plus an exponential part of mean ``mean - shift``: a memoryless wait."""

    def __init__(self, mean: float, shift: float = 0.0) -> None:
        checks.non_negative("mean", mean)
        self.shift = checks.non_negative("shift", shift)
        if mean < shift:
            raise UsageError(f"mean must be >= shift, got mean={mean!r} shift={shift!r}")
        self._scale = mean - shift

    @property
    def mean(self) -> float:
        return self.shift + self._scale

    def quantile(self, q: float) -> float:
        q = _check_q(q)
        return math.inf if q == 1.0 else self.shift - self._scale * math.log1p(-q)

    def sample(self, rng: random.Random) -> float:
        # rng.random() is in [0, 1), so 1 - u is in (0, 1] and the log is finite.
        return self.shift - self._scale * math.log(1.0 - rng.random())

    def __repr__(self) -> str:
        return f"ExponentialDelay(mean={self.mean}, shift={self.shift})"


class TruncatedNormalDelay(_InverseCdfDelay):
    """A normal delay (paper 002's "gaussian" Internet delay) truncated to [lo, hi].

    Drawn by inverting the CDF on [Phi(lo), Phi(hi)], so no draw is rejected and the
    number of random numbers used per packet is always one.
    """

    def __init__(self, mean: float, sd: float, lo: float = 0.0, hi: float = math.inf) -> None:
        self.mu = checks.non_negative("mean", mean)
        self.sd = checks.non_negative("sd", sd)
        self.lo = checks.non_negative("lo", lo)
        if not (isinstance(hi, int | float) and hi >= self.lo):
            raise UsageError(f"hi must be >= lo, got lo={lo!r} hi={hi!r}")
        self.hi = float(hi)
        if self.sd > 0:
            self._normal: NormalDist | None = NormalDist(self.mu, self.sd)
            self._p_lo = self._normal.cdf(self.lo)
            self._p_hi = 1.0 if math.isinf(self.hi) else self._normal.cdf(self.hi)
            if self._p_hi - self._p_lo < 1e-9:
                raise UsageError(
                    f"[lo, hi] = [{lo}, {hi}] holds almost none of normal({mean}, {sd})"
                )
        else:
            self._normal = None
            if not self.lo <= self.mu <= self.hi:
                raise UsageError(f"mean {mean} outside [lo, hi] with sd 0")

    @property
    def mean(self) -> float:
        if self._normal is None:
            return self.mu
        # E[X | lo <= X <= hi] = mu + sd * (phi(a) - phi(b)) / (Phi(b) - Phi(a))
        std = NormalDist()
        a = (self.lo - self.mu) / self.sd
        pdf_b = 0.0 if math.isinf(self.hi) else std.pdf((self.hi - self.mu) / self.sd)
        return self.mu + self.sd * (std.pdf(a) - pdf_b) / (self._p_hi - self._p_lo)

    def _at(self, p: float) -> float:
        if self._normal is None:
            return self.mu
        u = self._p_lo + p * (self._p_hi - self._p_lo)
        u = min(max(u, 1e-15), 1.0 - 1e-15)
        return min(max(self._normal.inv_cdf(u), self.lo), self.hi)

    def __repr__(self) -> str:
        return f"TruncatedNormalDelay({self.mu}, {self.sd}, {self.lo}, {self.hi})"


class HistogramDelay(_InverseCdfDelay):
    """An empirical delay: bin ``i`` spans ``[edges[i], edges[i+1])`` with weight ``weights[i]``.

    A bin is chosen in proportion to its weight, then the delay is uniform inside it,
    the usual reading of a measured delay histogram (paper 002 models the GPRS radio by
    an LLC frame delay histogram).
    """

    def __init__(self, edges: Sequence[float], weights: Sequence[float]) -> None:
        if len(edges) < 2 or len(weights) != len(edges) - 1:
            raise UsageError(
                f"a histogram needs n+1 edges for n weights, got {len(edges)} edges "
                f"and {len(weights)} weights"
            )
        self.edges = [checks.non_negative("edges", e) for e in edges]
        if any(b <= a for a, b in itertools.pairwise(self.edges)):
            raise UsageError("histogram edges must be strictly increasing")
        self.weights = [checks.non_negative("weights", w) for w in weights]
        total = sum(self.weights)
        if total <= 0:
            raise UsageError("histogram weights must not all be zero")
        # Only bins that can be drawn: (lo, hi, cumulative probability up to hi).
        self._bins: list[tuple[float, float, float]] = []
        running = 0.0
        for w, lo, hi in zip(self.weights, self.edges, self.edges[1:], strict=False):
            if w > 0:
                running += w / total
                self._bins.append((lo, hi, running))
        self._cumulative = [c for _, _, c in self._bins]
        self._cumulative[-1] = 1.0

    @property
    def mean(self) -> float:
        total = sum(self.weights)
        return (
            sum(
                w * (a + b) / 2
                for w, a, b in zip(self.weights, self.edges, self.edges[1:], strict=False)
            )
            / total
        )

    def _at(self, p: float) -> float:
        i = min(bisect.bisect_left(self._cumulative, p), len(self._bins) - 1)
        lo, hi, upto = self._bins[i]
        below = self._cumulative[i - 1] if i else 0.0
        return lo + (p - below) / (upto - below) * (hi - lo)

    def __repr__(self) -> str:
        return f"HistogramDelay({self.edges}, {self.weights})"


class DelaySum(_DelayStage):
    """The sum of independent delays: a procedure made of steps (a channel request's
    wait, then the access grant's).

    Quantiles come from a grid: each part's ``GRID`` quantile points, summed pairwise,
    sorted and thinned back to ``GRID`` points, so they are approximate to about
    1/``GRID`` in probability; the mean is exact.
    """

    GRID = 200

    def __init__(self, *parts: DelayDistribution) -> None:
        if not parts:
            raise UsageError("a sum of delays needs at least one part")
        self.parts = parts
        points = [0.0]
        for part in parts:
            grid = [part.quantile((i + 0.5) / self.GRID) for i in range(self.GRID)]
            sums = sorted(a + b for a, b in itertools.product(points, grid))
            points = [sums[(2 * i + 1) * len(sums) // (2 * self.GRID)] for i in range(self.GRID)]
        self._points = points

    @property
    def mean(self) -> float:
        return sum(part.mean for part in self.parts)

    def quantile(self, q: float) -> float:
        q = _check_q(q)
        if q == 0.0:
            return sum(part.quantile(0.0) for part in self.parts)
        if q == 1.0:
            return sum(part.quantile(1.0) for part in self.parts)
        # Linear interpolation, grid point i standing at probability (i + 0.5) / GRID.
        x = min(max(q * self.GRID - 0.5, 0.0), self.GRID - 1.0)
        i = min(math.floor(x), self.GRID - 2)
        return self._points[i] + (x - i) * (self._points[i + 1] - self._points[i])

    def sample(self, rng: random.Random) -> float:
        return sum(part.sample(rng) for part in self.parts)

    def __repr__(self) -> str:
        return f"DelaySum{self.parts!r}"

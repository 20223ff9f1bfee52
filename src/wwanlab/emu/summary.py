"""What one direction of the emulated link did: counters, delays, timer error, rate.

The forwarder's thread updates a ``DirectionStats`` for every packet, so the hot path
is a few integer increments. Delays are kept in a ``Histogram`` of whole microseconds:
exact percentiles at that resolution, in memory bounded by the range of the values
rather than by how many packets passed (an emulator may run for hours).
"""

import math
from dataclasses import dataclass, field
from typing import Any

from wwanlab.sim.stats import Counters

QUANTILES = (0.5, 0.95, 0.99)


class Histogram:
    """Durations counted per whole microsecond."""

    __slots__ = ("_counts", "count", "max_us")

    def __init__(self) -> None:
        self._counts: dict[int, int] = {}
        self.count = 0
        self.max_us = 0

    def add(self, seconds: float) -> None:
        us = round(seconds * 1_000_000)
        counts = self._counts
        counts[us] = counts.get(us, 0) + 1
        self.count += 1
        if us > self.max_us:
            self.max_us = us

    def quantile(self, q: float) -> float | None:
        """Nearest rank, in seconds: the smallest value with at least ``q`` of all at or
        below it (as ``experiments.probe.quantile``); None when empty."""
        if not self.count:
            return None
        rank = max(1, math.ceil(q * self.count))
        seen = 0
        for us in sorted(self._counts):
            seen += self._counts[us]
            if seen >= rank:
                return us / 1_000_000
        raise AssertionError("unreachable: the counts add up to count")

    def summary_ms(self) -> dict[str, float | None]:
        """p50, p95, p99 and max in milliseconds (None when empty)."""
        out: dict[str, float | None] = {}
        for q in QUANTILES:
            value = self.quantile(q)
            out[f"p{round(q * 100)}"] = None if value is None else round(value * 1000, 3)
        out["max"] = round(self.max_us / 1000, 3) if self.count else None
        return out


@dataclass(slots=True)
class DirectionStats:
    """One direction: packets offered, delivered and dropped, and how late each went.

    ``delay`` is the delay the link added (actual write minus read); ``timer_error``
    is the actual write minus the time the link model scheduled, the emulator's own
    error. ``first_arrival`` and ``last_departure`` (seconds since the start) bound
    the achieved rate.
    """

    counters: Counters = field(default_factory=Counters)
    delay: Histogram = field(default_factory=Histogram)
    timer_error: Histogram = field(default_factory=Histogram)
    first_arrival: float | None = None
    last_departure: float | None = None

    @property
    def in_flight(self) -> int:
        """Packets read but neither written nor dropped yet."""
        c = self.counters
        return c.sent_packets - c.delivered_packets - c.dropped_packets

    def rate_bps(self) -> float | None:
        """IP bits delivered per second, from the first arrival to the last departure."""
        if self.first_arrival is None or self.last_departure is None:
            return None
        span = self.last_departure - self.first_arrival
        if span <= 0:
            return None
        return self.counters.delivered_bytes * 8 / span

    def as_dict(self) -> dict[str, Any]:
        c = self.counters
        return {
            "packets": c.sent_packets,
            "bytes": c.sent_bytes,
            "delivered_packets": c.delivered_packets,
            "delivered_bytes": c.delivered_bytes,
            "dropped_packets": c.dropped_packets,
            "dropped": dict(sorted(c.dropped.items())),
            "in_flight": self.in_flight,
            "delay_ms": self.delay.summary_ms(),
            "timer_error_ms": self.timer_error.summary_ms(),
            "rate_bps": self.rate_bps(),
        }

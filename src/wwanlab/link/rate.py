"""Servers: stages that hold the line, so a packet waits for the one before it.

Each tracks when its line is next free; a packet that arrives while the line is busy
starts when it frees. Packets must reach a server in time order (the pipeline feeds
them in the order they were sent). Put a ``DropTailQueue`` around a server to bound
its backlog.
"""

import bisect
import itertools
import math
import random
from collections.abc import Sequence
from pathlib import Path

from wwanlab.core.errors import UsageError
from wwanlab.link import checks
from wwanlab.link.base import Drop, Verdict
from wwanlab.link.delay import DelayDistribution


class Rate:
    """A line of ``bps`` bits per second: ``(size + overhead_bytes) * bits_per_byte / bps``.

    ``overhead_bytes`` is the link's framing per packet (PPP, LLC headers...);
    ``bits_per_byte`` is 10 on an asynchronous serial line (start and stop bits).
    """

    def __init__(self, bps: float, overhead_bytes: int = 0, *, bits_per_byte: float = 8) -> None:
        self.bps = checks.positive("bps", bps)
        self.overhead_bytes = checks.count("overhead_bytes", overhead_bytes)
        self.bits_per_byte = checks.positive("bits_per_byte", bits_per_byte)
        self.busy_until = -math.inf

    def serialization(self, size: int) -> float:
        """Seconds the line is busy with a packet of ``size`` octets."""
        return (size + self.overhead_bytes) * self.bits_per_byte / self.bps

    def process(self, size: int, t: float, rng: random.Random) -> Verdict:
        # max(t, busy) + serialization(size), inline: this runs for every packet
        busy = self.busy_until
        start = busy if busy > t else t
        self.busy_until = start + (size + self.overhead_bytes) * self.bits_per_byte / self.bps
        return self.busy_until

    def __repr__(self) -> str:
        return (
            f"Rate({self.bps}, overhead_bytes={self.overhead_bytes}, "
            f"bits_per_byte={self.bits_per_byte})"
        )


class ServiceTime:
    """A line that is busy with each packet for a random time, whatever its size.

    The first GPRS presets served each packet for a whole drawn radio delay; the GPRS
    radio is now ``gprs_radio.GprsRadioStage`` (a rate plus overlapping latency), and a
    service time remains for lines measured that way (docs/links.md, finding 2).
    """

    def __init__(self, service: DelayDistribution) -> None:
        if not service.mean > 0:
            raise UsageError(f"service time must have a mean > 0, got {service.mean!r}")
        self.service = service
        self.busy_until = -math.inf

    def process(self, size: int, t: float, rng: random.Random) -> Verdict:
        self.busy_until = max(t, self.busy_until) + self.service.sample(rng)
        return self.busy_until

    def __repr__(self) -> str:
        return f"ServiceTime({self.service!r})"


MAHIMAHI_OPPORTUNITY_BYTES = 1500
"""Bytes one delivery opportunity carries (mahimahi's documentation: an MTU of 1500;
its link_queue.cc uses PACKET_SIZE = 1504, the TUN frame)."""


class TraceRate:
    """A link whose capacity is a Mahimahi delivery-opportunity trace.

    Each line of the trace is a time in integer milliseconds at which
    ``bytes_per_opportunity`` octets may leave (the same time repeated means several
    opportunities). As mahimahi's ``LinkQueue::rationalize`` (src/frontend/link_queue.cc)
    does: an opportunity serves the packet at the head of the queue; a packet larger
    than what is left of it takes further opportunities until its bytes are covered;
    the bytes an opportunity has left after a packet completes go to the next queued
    packet; opportunities that find the queue empty are wasted; a packet can only use
    opportunities strictly after it arrived (mahimahi burns the opportunities due at
    or before ``now`` before queueing the packet). With ``loop`` the trace repeats with
    period equal to its last timestamp (mahimahi's ``base_timestamp_ += schedule_.back()``);
    without, packets needing opportunities past its end are dropped ("trace-end").
    Times are relative to ``start`` (seconds).
    """

    def __init__(
        self,
        trace: Sequence[int] | str | Path,
        *,
        bytes_per_opportunity: int = MAHIMAHI_OPPORTUNITY_BYTES,
        loop: bool = True,
        start: float = 0.0,
    ) -> None:
        schedule = load_mahimahi_trace(trace) if isinstance(trace, str | Path) else list(trace)
        _check_schedule(schedule, "trace")
        self.schedule = schedule
        self.period_ms = schedule[-1]
        self.bytes_per_opportunity = checks.count(
            "bytes_per_opportunity", bytes_per_opportunity, minimum=1
        )
        self.loop = loop
        self.start = start
        self._next = 0  # index of the first opportunity not yet used
        self._open = -1  # index of the last opportunity used, which may have bytes left
        self._open_left = 0

    @property
    def mean_bps(self) -> float:
        """The capacity of one period of the trace, in bits per second."""
        return len(self.schedule) * self.bytes_per_opportunity * 8 / (self.period_ms / 1000)

    def opportunity_time(self, n: int) -> float:
        cycle, k = divmod(n, len(self.schedule))
        return self.start + (cycle * self.period_ms + self.schedule[k]) / 1000

    def _first_after(self, t: float) -> int:
        """Index of the first opportunity strictly after ``t``."""
        x = (t - self.start) * 1000
        cycle = max(0, math.floor(x / self.period_ms))
        k = bisect.bisect_right(self.schedule, x - cycle * self.period_ms)
        if k == len(self.schedule):
            cycle += 1
            k = bisect.bisect_right(self.schedule, x - cycle * self.period_ms)
        n = cycle * len(self.schedule) + k
        while self.opportunity_time(n) <= t:  # float rounding at a boundary
            n += 1
        return n

    def process(self, size: int, t: float, rng: random.Random) -> Verdict:
        remaining = size
        if self._open_left > 0 and self.opportunity_time(self._open) > t:
            remaining -= self._open_left
            if remaining <= 0:
                self._open_left = -remaining
                return self.opportunity_time(self._open)
            self._open_left = 0
            n = self._next
        else:
            n = max(self._next, self._first_after(t))
        while True:
            if not self.loop and n >= len(self.schedule):
                return Drop("trace-end")
            remaining -= self.bytes_per_opportunity
            if remaining <= 0:
                self._open, self._open_left, self._next = n, -remaining, n + 1
                return self.opportunity_time(n)
            n += 1


def _check_schedule(schedule: Sequence[int], name: str) -> None:
    if not schedule:
        raise UsageError(f"{name} has no delivery opportunities")
    if any(isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in schedule):
        raise UsageError(f"{name} timestamps must be integers >= 0 (milliseconds)")
    if any(b < a for a, b in itertools.pairwise(schedule)):
        raise UsageError(f"{name} timestamps must not decrease")
    if schedule[-1] == 0:
        raise UsageError(f"{name} must last a nonzero time (its last timestamp is 0)")


def load_mahimahi_trace(path: str | Path) -> list[int]:
    """Read a Mahimahi trace: one integer millisecond timestamp per line."""
    name = repr(str(path))
    text = checks.read_trace(path, "trace file")
    schedule: list[int] = []
    for number, line in enumerate(text.splitlines(), 1):
        word = line.strip()
        if not word.isdigit():
            raise UsageError(
                f"trace file {name} line {number}: expected an integer, got {word[:20]!r}"
            )
        schedule.append(int(word))
    if not schedule:
        raise UsageError(f"trace file {name} is empty")
    _check_schedule(schedule, f"trace file {name}")
    return schedule

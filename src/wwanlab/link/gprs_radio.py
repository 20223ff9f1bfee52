"""A GPRS radio direction: rate, overlapping latency, TBF set-up and release, LLC, outages.

One ``GprsRadioStage`` is one direction of one mobile's radio. It keeps a small state
table and answers, for a packet reaching the radio at ``t``, when it is delivered:

========================  ==============================================================
state                     what changes it
========================  ==============================================================
``busy_until``             the end of the last frame on the air: frames are serialized
                          at the radio's rate (coding scheme x timeslots), one behind
                          the other
``tbf_until``             when the direction's TBF is released: ``hold`` seconds after
                          its queue empties (downlink: T3192; uplink: 0, the countdown
                          ends the TBF with its last block, 3GPP TS 44.060 9.3.1)
``outages``               the next cell reselection or link stall of each process
========================  ==============================================================

A packet that finds its buffer (``buffer_bytes`` of IP packets not yet fully on the
air) full is dropped ("queue"). A packet that finds no TBF pays the set-up first
(``setup``: uplink access by channel request and access grant, or a downlink assignment
on the CCCH), then its frame at the radio's rate, then ``latency``, which does **not**
hold the line: frames of later packets go out while earlier ones are still in flight,
so goodput is the rate and the latency adds to every packet's delay once.

In LLC acknowledged mode a lost frame is resent after the acknowledgement wait; the
resend costs that wait plus one more frame on the air (``llc_retry="air"``), or, as the
first presets charged it, the wait plus a fresh full radio delay (``"full-delay"``).
``overlap=False`` makes the latency hold the line as well, the first presets' serialized
radio. Both are kept only so that a reproduction can show each phenomenon's effect.

An outage (cell reselection, stall) holds every frame that would be on the air during
it until it ends, and ends the TBF, so the frame after it pays the set-up again.

The stage never reads a clock or the global random module; outage times are drawn from
the ``rng`` of the packets that meet them, so a seeded run is reproducible.
"""

from __future__ import annotations

import math
import random
from collections import deque
from dataclasses import dataclass

from wwanlab.core.errors import UsageError
from wwanlab.link import checks
from wwanlab.link.base import Drop, Verdict
from wwanlab.link.delay import DelayDistribution
from wwanlab.link.rlc import TDMA_FRAME, coding_scheme

LLC_RETRIES = ("air", "full-delay")

MULTIFRAME_51 = 51 * TDMA_FRAME  # 3GPP TS 45.002 4.3.3: the 51-multiframe of the CCCH, 235.4 ms
T3182 = 5.0  # s, 3GPP TS 44.060 13.1: the MS's wait for a Packet Uplink Ack/Nack; a stalled
# RLC window is recovered only when it (or the network's T3190/T3195, also 5 s) expires


def gprs_rate(coding: str, timeslots: int) -> float:
    """RLC data rate (bit/s) of ``timeslots`` PDCHs at ``coding`` (3GPP TS 45.003 5.1)."""
    checks.count("timeslots", timeslots, minimum=1)
    if timeslots > 8:
        raise UsageError(f"a TDMA frame has 8 timeslots, got timeslots={timeslots}")
    return coding_scheme(coding).rate_bps * timeslots


@dataclass(frozen=True)
class Outages:
    """A Poisson process of outages: ``rate`` per second, each lasting ``duration``.

    Either kind ends the TBF: after a cell reselection the mobile sets up a new one in
    the new cell; a stalled RLC window ends with the expiry of T3182 (or the network's
    T3190/T3195), an abnormal release after which the mobile accesses again
    (3GPP TS 44.060 8.7).
    """

    kind: str
    rate: float
    duration: DelayDistribution

    def __post_init__(self) -> None:
        checks.non_negative(f"{self.kind} rate", self.rate)


@dataclass(frozen=True)
class RadioModel:
    """Everything one direction of a GPRS radio needs; ``stage()`` builds a fresh one.

    The radio serializes frames either at ``rate_bps`` (with ``overhead_bytes`` of LLC
    and SNDCP per IP packet) or, for a radio measured as per-packet service times (the
    emergent busy cell), by drawing ``service``.
    """

    latency: DelayDistribution
    per: float
    rate_bps: float | None = None
    overhead_bytes: int = 0
    service: DelayDistribution | None = None
    llc_ack: bool = False
    llc_retry: str = "air"
    ack_wait: float = 0.0
    max_retransmissions: int = 0
    setup: DelayDistribution | None = None
    hold: float = 0.0
    outages: tuple[Outages, ...] = ()
    buffer_bytes: int | None = None
    overlap: bool = True

    def __post_init__(self) -> None:
        if (self.rate_bps is None) == (self.service is None):
            raise UsageError("a GPRS radio needs exactly one of rate_bps and service")
        if self.rate_bps is not None:
            checks.positive("rate_bps", self.rate_bps)
        checks.count("overhead_bytes", self.overhead_bytes)
        checks.probability("per", self.per)
        if self.llc_retry not in LLC_RETRIES:
            raise UsageError(
                f"llc_retry must be one of {', '.join(LLC_RETRIES)}, got {self.llc_retry!r}"
            )
        checks.non_negative("ack_wait", self.ack_wait)
        checks.count("max_retransmissions", self.max_retransmissions)
        checks.non_negative("hold", self.hold)
        if self.buffer_bytes is not None:
            checks.count("buffer_bytes", self.buffer_bytes, minimum=1)

    @property
    def tries(self) -> int:
        return 1 + (self.max_retransmissions if self.llc_ack else 0)

    @property
    def residual_loss(self) -> float:
        """IP packets lost on the radio: every LLC try of the packet lost."""
        return self.per**self.tries

    def frame_mean(self, size: int) -> float:
        """Mean seconds on the air for one ``size``-octet IP packet."""
        if self.rate_bps is not None:
            return (size + self.overhead_bytes) * 8 / self.rate_bps
        assert self.service is not None
        return self.service.mean

    def retry_mean(self, size: int) -> float:
        """Mean delay one LLC retransmission adds."""
        extra = self.latency.mean if self.llc_retry == "full-delay" else 0.0
        return self.ack_wait + self.frame_mean(size) + extra

    def mean_added_delay(self, size: int) -> float:
        """Mean delay LLC resends add to a delivered ``size``-octet packet: it failed
        ``k`` tries first with probability ``per**k (1-per) / (1 - per**tries)``."""
        p = self.per
        delivered = 1 - p**self.tries
        if delivered == 0:
            return math.inf
        failed = sum(k * p**k * (1 - p) for k in range(self.tries)) / delivered
        return failed * self.retry_mean(size)

    def stage(self) -> GprsRadioStage:
        return GprsRadioStage(self)


class _OutageClock:
    """The current or next outage of one process, drawn lazily."""

    def __init__(self, outages: Outages) -> None:
        self.outages = outages
        self.start = math.inf if outages.rate == 0 else None
        self.end = math.inf

    def upto(self, t: float, rng: random.Random) -> float:
        """Draw until the current outage ends after ``t``; the start of the first outage
        passed over (one that fell between frames), or infinity."""
        if self.start is None:  # first use: the process starts at time 0
            self._next(0.0, rng)
        passed = math.inf
        while self.end <= t:
            assert self.start is not None
            passed = min(passed, self.start)
            self._next(self.end, rng)
        return passed

    def _next(self, after: float, rng: random.Random) -> None:
        o = self.outages
        self.start = after + rng.expovariate(o.rate)
        self.end = self.start + o.duration.sample(rng)


class GprsRadioStage:
    """One direction of a mobile's GPRS radio (see the module's state table)."""

    def __init__(self, model: RadioModel) -> None:
        self.model = model
        self.busy_until = -math.inf
        self.tbf_until = -math.inf
        self.setups = 0  # TBFs set up: what a test or a probe can count
        self._clocks = [_OutageClock(o) for o in model.outages]
        self._backlog: deque[tuple[float, int]] = deque()  # (off the air, size)
        self._backlog_bytes = 0

    def serialization(self, size: int) -> float:
        """Mean seconds a ``size``-octet packet holds the air (its frame, not the latency):
        what energy and timer models charge as airtime."""
        return self.model.frame_mean(size)

    def _frame(self, size: int, rng: random.Random) -> float:
        m = self.model
        if m.rate_bps is not None:
            return (size + m.overhead_bytes) * 8 / m.rate_bps
        assert m.service is not None
        return m.service.sample(rng)

    def _air(self, start: float, frame: float, rng: random.Random) -> tuple[float, float]:
        """The frame's (start, end) on the air once outages have held it: a frame that
        would start in an outage starts after it, in a new TBF; one that an outage
        interrupts finishes after it, in a new TBF."""
        end = start + frame
        changed = True
        while changed:
            changed = False
            for clock in self._clocks:
                # An outage between frames ends a TBF still held by its release timer.
                self.tbf_until = min(self.tbf_until, clock.upto(start, rng))
                assert clock.start is not None
                if clock.start <= start:
                    self.tbf_until = min(self.tbf_until, clock.start)
                    start = self._set_up(clock.end, rng)
                    end, changed = start + frame, True
                elif clock.start < end:
                    self.tbf_until = min(self.tbf_until, clock.start)
                    end = self._set_up(end + clock.end - clock.start, rng)
                    clock.upto(clock.end, rng)
                    changed = True
        return start, end

    def _set_up(self, start: float, rng: random.Random) -> float:
        """``start`` after a TBF set-up if the direction has none at ``start``."""
        setup = self.model.setup
        if setup is None or start <= self.tbf_until:
            return start
        self.setups += 1
        return start + setup.sample(rng)

    def _admit(self, size: int, t: float) -> bool:
        limit = self.model.buffer_bytes
        if limit is None:
            return True
        backlog = self._backlog
        while backlog and backlog[0][0] <= t:
            self._backlog_bytes -= backlog.popleft()[1]
        return self._backlog_bytes + size <= limit

    def process(self, size: int, t: float, rng: random.Random) -> Verdict:
        m = self.model
        if not self._admit(size, t):
            return Drop("queue")
        start = self._set_up(max(t, self.busy_until), rng)
        frame = self._frame(size, rng)
        start, end = self._air(start, frame, rng)
        delivered = end + m.latency.sample(rng)
        self.busy_until = end if m.overlap else delivered
        if m.buffer_bytes is not None:
            self._backlog.append((self.busy_until, size))
            self._backlog_bytes += size
        for attempt in range(m.tries):
            if rng.random() >= m.per:
                break
            if attempt == m.tries - 1:
                self.tbf_until = self.busy_until + m.hold
                return Drop("arq" if m.llc_ack else "loss:radio")
            # Resent after the acknowledgement wait: one more frame on the air.
            resend = self._frame(size, rng)
            self.busy_until += resend
            delivered += m.ack_wait + resend
            if m.llc_retry == "full-delay":
                delivered += m.latency.sample(rng)
        self.tbf_until = self.busy_until + m.hold
        return delivered

    def __repr__(self) -> str:
        return f"GprsRadioStage({self.model!r})"

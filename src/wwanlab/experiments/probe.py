"""The link probe: measure a preset's rate, one-way delay and loss in the simulator.

Two hosts joined by the preset's link send each other UDP probe datagrams to the
discard port, down (server to phone) and up (phone to server) at once:

* a **back-to-back train** of ``RATE_PACKET``-octet datagrams, all sent at one instant;
  the receiver's dispersion gives the bottleneck rate in IP bits per second: the
  least-squares slope of arrival time against the number of datagrams the bottleneck
  served before each one. Only what it carried counts: a datagram lost after the
  bottleneck took its time, one lost before it (NISTNet on the serial line's downlink,
  the Internet's 1% ahead of paper 002's radio) took none, and a GPRS train has both.
  So the rate is one datagram per mean spacing of neighbours (sequence numbers n and
  n + 1, both arrived), the bottleneck's service times, and a gap counts for nothing;
  only where delay jitter after the bottleneck hides them (vdeldrop) does the whole
  train follow one count, the one its arrivals fit best, every datagram sent or only
  those that arrived (``dispersion_rate``). Counting every sequence number read 8,215
  bit/s on serial-9k6's 7,551 bit/s downlink at 10% drop; one count for a GPRS train
  at 20% radio loss read gprs-one-user's downlink 0.9% high on average over 20 seeds
  (19 of them above 37,600 bit/s), the Internet's losses counted as radio time. A
  radio whose service time varies (paper 002's) gives each train a sample of it, so
  the train is at least ``RATE_TRAIN_MIN`` datagrams long and the rate carries its
  standard error;
* a **paced train** of ``count`` datagrams cycling through ``PACED_SIZES``, spaced far
  enough apart that no queue builds and a GPRS radio's TBF is released between them;
  it gives the loss and the one-way delay of a packet that finds the link idle.

One-way delay is reported without its per-octet part, the serialization on the link's
rate stages: the variable-packet-size method of pathchar, a least-squares line through
a low quantile of the delay at each size (``per_octet``), gives a per-octet slope, and
each sample minus ``slope * size`` is the size-independent delay (propagation, service
times, jitter), the quantity the presets configure. A line through all samples tilts
with the jitter (on ``vdeldrop``, 0 to 50 ms of it made the downlink's slope 1.43
instead of 0.8 us per octet, and the median delay -0.03 ms); pathchar's minima wander
on delays without a hard floor (the GPRS presets'), so the line goes through each
size's lower quartile, and the slope is kept between 0 and the smallest
``delay / size`` so that no size-independent delay comes out negative. Delays are
rounded to ``RESOLUTION``, a capture's microsecond, so that a constant delay reads as
one value rather than as float noise. The slope and the raw delays are reported too.

A third measurement is the **round trip** of 64-octet echo requests (paper 003 compares
links by the round trip of 64-octet packets), on a fresh copy of the link so that the
trains above are untouched: ``IDLE_PINGS`` requests each after an idle gap longer than
every TBF release timer plus a few configured delays (the first packet after idle: on a
GPRS radio it pays the TBF set-up), then ``STEADY_PINGS`` requests every
``STEADY_INTERVAL``, shorter than any operator's T3192, so the downlink TBF stays up
(on GPRS each uplink request still finds the uplink TBF ended with its queue and pays
access, as on a 2003 network).

Pacing and the rate train's length come from the configured values, as one would
calibrate a real probe from a link's data sheet: the paced gap is twice the configured
p95 delay plus a largest packet's serialization, and the rate train spans at least
``RATE_TRAIN_SPAN`` times the configured p95 delay so that delay jitter moves the
rate estimate by a few percent at most.
"""

from __future__ import annotations

import itertools
import math
import statistics
import struct
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wwanlab.core.address import Address
from wwanlab.core.contract import Echoer
from wwanlab.core.errors import UsageError
from wwanlab.core.events import Event
from wwanlab.core.progress import track
from wwanlab.experiments.reproduction import write_report_index
from wwanlab.experiments.scenario import Parameter, Row, experiment_kind
from wwanlab.link import checks
from wwanlab.link.base import Direction, Stage
from wwanlab.link.presets import DIRECTIONS, PRESETS, Preset, get_preset
from wwanlab.link.rate import Rate, TraceRate
from wwanlab.report.html import (
    Assumptions,
    Block,
    Figure,
    Params,
    ReportPage,
    Section,
    Table,
    Text,
)
from wwanlab.report.provenance import RunInfo
from wwanlab.sim.network import Network

SERVER_ADDRESS = "10.0.0.1"  # the fixed side; "down" is from it to the phone
PHONE_ADDRESS = "10.0.0.2"
DISCARD_PORT = 9  # RFC 863: the discard service, a sink for probe datagrams
PROBE_PORT = 40000  # the sender's source port

IP_UDP_HEADER = 28  # RFC 791 IPv4 header without options (20) + RFC 768 UDP header (8)
PAYLOAD = struct.Struct(">BI")  # train, sequence number; zero padding follows
TRAIN_RATE = 1
TRAIN_PACED = 2

PACED_SIZES = (100, 576, 1400)
"""IP sizes of the paced train: small, RFC 791's 576 every host accepts, near an MTU."""

RATE_PACKET = 470
"""IP size of the rate train: paper 002's TCP MSS 430 plus 40 octets of headers, the
packet the GPRS presets' configured rate refers to (their radio service time does not
depend on size, so their rate in bits per second does)."""

PING_SIZE = 64  # IP octets of an echo request and its reply (paper 003 section 5: RTTs
# "for 64 byte packets")
ECHO_PORT = 7  # RFC 862: the echo service
IDLE_PINGS = 20
STEADY_PINGS = 40
STEADY_INTERVAL = 0.25  # s: below the shortest operator T3192 (0.5 s), see link.presets
IDLE_MARGIN = 1.0  # s of idle beyond the release timers and configured delays

DEFAULT_COUNT = 1000
MAX_UNFORCED_COUNT = 100 * DEFAULT_COUNT  # a scenario's workload.count beyond it needs --force
RATE_TRAIN_MIN = 1000  # gprs-busy's uniform 0.8-2.0 s service: a 0.8% standard error
RATE_TRAIN_MAX = 5000
RATE_TRAIN_SPAN = 40  # the train spans >= 40 x the configured p95 delay
MIN_GAP = 0.001  # seconds between paced packets on links with no delay at all
RESOLUTION = 1e-6  # s: delays are reported to the microsecond of a pcap timestamp


@dataclass(frozen=True, slots=True)
class Probe:
    """One probe datagram: when it leaves, which train, its sequence number, IP size."""

    at: float
    train: int
    seq: int
    size: int


class ProbeSender:
    """A sans-IO endpoint that sends a fixed schedule of probe datagrams to ``peer``."""

    def __init__(self, peer: Address, schedule: Sequence[Probe]) -> None:
        self._peer = peer
        self._schedule = sorted(schedule, key=lambda p: (p.at, p.train, p.seq))
        self._next = 0
        self._out: list[tuple[bytes, Address]] = []

    def receive_datagram(self, data: bytes, addr: Address, now: float) -> None:
        """The probe expects no answers; anything arriving is ignored."""

    def handle_timer(self, now: float) -> None:
        while self._next < len(self._schedule) and self._schedule[self._next].at <= now:
            probe = self._schedule[self._next]
            payload = PAYLOAD.pack(probe.train, probe.seq)
            padding = bytes(probe.size - IP_UDP_HEADER - PAYLOAD.size)
            self._out.append((payload + padding, self._peer))
            self._next += 1

    def get_timer(self) -> float | None:
        if self._next < len(self._schedule):
            return self._schedule[self._next].at
        return None

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Address]]:
        out, self._out = self._out, []
        return out

    def next_event(self) -> Event | None:
        return None


class ProbeReceiver:
    """A sans-IO endpoint that notes when each probe datagram arrived."""

    def __init__(self) -> None:
        self.arrivals: dict[tuple[int, int], float] = {}
        self.malformed = 0

    def receive_datagram(self, data: bytes, addr: Address, now: float) -> None:
        if len(data) < PAYLOAD.size:
            self.malformed += 1
            return
        train, seq = PAYLOAD.unpack_from(data)
        self.arrivals.setdefault((train, seq), now)

    def handle_timer(self, now: float) -> None:
        """No timers."""

    def get_timer(self) -> float | None:
        return None

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Address]]:
        return []

    def next_event(self) -> Event | None:
        return None


class Pinger(ProbeSender):
    """Sends a schedule of echo requests and notes when each reply came back."""

    def __init__(self, peer: Address, schedule: Sequence[Probe]) -> None:
        super().__init__(peer, schedule)
        self.replies = ProbeReceiver()

    def receive_datagram(self, data: bytes, addr: Address, now: float) -> None:
        self.replies.receive_datagram(data, addr, now)


@dataclass
class LinkUnderTest:
    """A preset and the command line's overrides, which build each direction."""

    preset: Preset
    loss: float | None = None
    rate_bps: float | None = None
    trace: Path | None = None
    _trace_schedule: list[int] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        if self.loss is not None:
            self.preset = self.preset.with_loss(self.loss)
        if self.rate_bps is not None:
            self.rate_bps = checks.positive("rate", self.rate_bps)
        if self.trace is not None:
            self._trace_schedule = TraceRate(self.trace).schedule

    def build(self, direction: str) -> Direction:
        """The preset's direction behind the override's bottleneck, if any."""
        built = self.preset.build(direction)
        shapers: list[Stage] = []
        if self.rate_bps is not None:
            shapers.append(Rate(self.rate_bps))
        if self._trace_schedule:
            shapers.append(TraceRate(self._trace_schedule))
        if not shapers:
            return built
        return Direction([*shapers, *built.stages], fifo=built.fifo)

    def configured(self, direction: str) -> dict[str, Any]:
        """The preset's configured values, plus the overrides' bottlenecks."""
        configured = dict(self.preset.configured[direction])
        if self.rate_bps is not None:
            configured["override_rate_bps"] = self.rate_bps
        if self._trace_schedule:
            configured["override_trace_bps"] = TraceRate(self._trace_schedule).mean_bps
        return configured

    def expected_rate_bps(self, direction: str) -> float:
        """IP bits per second a train of ``RATE_PACKET``-octet packets should see.

        The preset's rate is a line rate: its framing octets and bits per octet (10 on
        an asynchronous serial line) are charged on top of the IP octets. A preset
        without a rate (``None``) is unlimited.
        """
        c = self.preset.configured[direction]
        rate = math.inf
        if c["rate_bps"] is not None:
            framed = (RATE_PACKET + c.get("overhead_bytes", 0)) * c.get("bits_per_byte", 8)
            rate = float(c["rate_bps"]) * RATE_PACKET * 8 / framed
        if self.rate_bps is not None:
            rate = min(rate, self.rate_bps)
        if self._trace_schedule:
            rate = min(rate, TraceRate(self._trace_schedule).mean_bps)
        return rate

    def expected_delay_ms(self, direction: str) -> dict[str, float]:
        """The configured delay percentiles plus the framing octets' serialization.

        A line charges its framing on every packet, so the probe's size-independent
        delay (its fit at size 0) includes ``overhead_bytes * bits_per_byte / rate``.
        On a GPRS radio every paced probe finds the link idle, its TBF released, so it
        is expected to take the first packet's delay (set-up included).
        """
        c = self.preset.configured[direction]
        framing = 0.0
        if c["rate_bps"] is not None:
            framing = c.get("overhead_bytes", 0) * c.get("bits_per_byte", 8) / c["rate_bps"]
        return {q: round(float(_idle_delay(c)[q]) + framing * 1000, 3) for q in ("p50", "p95")}


@dataclass(frozen=True)
class DirectionResult:
    """What the probe measured on one direction, with the configured values beside."""

    direction: str
    configured: dict[str, Any]
    expected_rate_bps: float
    expected_delay_ms: dict[str, float]
    rate_bps: float | None
    rate_served: str | None  # which count of served datagrams the rate train followed
    rate_standard_error_bps: float | None
    rate_train: int  # datagrams in the rate train, and how many arrived
    rate_received: int
    sent: int
    received: int
    delays: list[float]  # size-independent one-way delays of the paced train, seconds
    raw_delays: list[float]  # one-way delays as measured, seconds
    per_octet_s: float

    @property
    def loss(self) -> float:
        return 1 - self.received / self.sent

    @property
    def loss_standard_error(self) -> float:
        """The binomial standard error of ``loss`` (independent losses assumed); with
        no loss seen it is 1/n rather than 0, the resolution of n probes."""
        p = self.loss
        return math.sqrt(max(p * (1 - p), 1 / self.sent) / self.sent)

    def measured(self) -> dict[str, Any]:
        return {
            "rate_bps": _finite(self.rate_bps),
            "rate_served": self.rate_served,
            "rate_standard_error_bps": self.rate_standard_error_bps,
            "loss": self.loss,
            "loss_standard_error": self.loss_standard_error,
            "delay_ms": _summary(self.delays),
            "raw_delay_ms": _summary(self.raw_delays),
            "per_octet_us": round(self.per_octet_s * 1e6, 6),
            "sent": self.sent,
            "received": self.received,
            "rate_train": self.rate_train,
            "rate_received": self.rate_received,
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "measured": self.measured(),
            "configured": _json_safe(self.configured),
            "expected": {
                "rate_bps": _finite(self.expected_rate_bps),
                "rate_packet": RATE_PACKET,
                "delay_ms": self.expected_delay_ms,
            },
        }


@dataclass(frozen=True)
class RoundTrip:
    """Echo round trips: the first request after an idle gap, and requests in a steady
    stream; seconds, in sending order (a lost request or reply gives none)."""

    idle_gap: float
    first: list[float]
    steady: list[float]
    sent: int

    def to_json(self) -> dict[str, Any]:
        return {
            "size": PING_SIZE,
            "idle_gap_s": round(self.idle_gap, 6),
            "steady_interval_s": STEADY_INTERVAL,
            "first_packet_ms": _summary(self.first),
            "steady_ms": _summary(self.steady),
            "sent": self.sent,
            "received": len(self.first) + len(self.steady),
        }


@dataclass(frozen=True)
class ProbeResult:
    link: str
    seed: int
    count: int
    directions: dict[str, DirectionResult]
    round_trip: RoundTrip | None = None  # the emulated probe has none

    def to_json(self) -> dict[str, Any]:
        """Downlink at the top level (``measured``, ``configured``), both under
        ``directions``; the echo round trips under ``round_trip``."""
        down = self.directions["down"].to_json()
        return {
            "link": self.link,
            "seed": self.seed,
            "count": self.count,
            **down,
            "directions": {d: r.to_json() for d, r in self.directions.items()},
            "round_trip": None if self.round_trip is None else self.round_trip.to_json(),
        }


def quantile(values: Sequence[float], q: float) -> float:
    """Nearest-rank quantile: the smallest value with at least ``q`` of them at or below."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def _summary(delays: Sequence[float]) -> dict[str, float | None]:
    if not delays:
        return {"mean": None, "p50": None, "p95": None}
    return {
        "mean": round(sum(delays) / len(delays) * 1000, 3),
        "p50": round(quantile(delays, 0.5) * 1000, 3),
        "p95": round(quantile(delays, 0.95) * 1000, 3),
    }


def _finite(x: float | None) -> float | None:
    """JSON has no infinity: an unlimited rate is written as null."""
    return x if x is not None and math.isfinite(x) else None


def _json_safe(value: Any) -> Any:
    if isinstance(value, float):
        return _finite(value)
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(v) for v in value]
    return value


def _idle_delay(configured: dict[str, Any]) -> dict[str, float]:
    """The configured delay of a packet that finds the link idle: on a GPRS radio the
    first packet's (TBF set-up included), elsewhere the delay."""
    first: dict[str, float] | None = configured.get("first_packet_delay_ms")
    return first if first is not None else configured["delay_ms"]


def plan_probes(
    link: LinkUnderTest,
    direction: str,
    count: int,
    *,
    train: int | None = None,
    gap: float | None = None,
) -> list[Probe]:
    """The rate train at time 0, then the paced train once the rate train has drained.

    ``train`` and ``gap`` override the rate train's length and the paced gap, for a
    real-time probe that cannot take the simulator's minutes of probing.
    """
    configured = link.preset.configured[direction]
    p95 = float(_idle_delay(configured)["p95"]) / 1000
    rate = link.expected_rate_bps(direction)
    per_packet = RATE_PACKET * 8 / rate if math.isfinite(rate) else 0.0
    largest = max(PACED_SIZES) * 8 / rate if math.isfinite(rate) else 0.0
    if train is None and per_packet > 0:
        n = math.ceil(RATE_TRAIN_SPAN * p95 / per_packet)
        train = min(RATE_TRAIN_MAX, max(RATE_TRAIN_MIN, n))
    elif train is None:
        train = RATE_TRAIN_MIN
    if gap is None:
        # Beyond a TBF's release time (T3192) too: every probe finds the link idle.
        gap = max(MIN_GAP, 2 * (p95 + largest) + float(configured.get("release_s") or 0.0))
    start = 1.5 * train * per_packet + 2 * gap
    probes = [Probe(0.0, TRAIN_RATE, i, RATE_PACKET) for i in range(train)]
    probes += [
        Probe(start + i * gap, TRAIN_PACED, i, PACED_SIZES[i % len(PACED_SIZES)])
        for i in range(count)
    ]
    return probes


def _slope(points: Sequence[tuple[int, float]]) -> float:
    """Least-squares slope of delay against size (0 with fewer than two sizes)."""
    n = len(points)
    if n < 2:
        return 0.0
    mean_x = sum(x for x, _ in points) / n
    mean_y = sum(y for _, y in points) / n
    sxx = sum((x - mean_x) ** 2 for x, _ in points)
    if sxx == 0:
        return 0.0
    return sum((x - mean_x) * (y - mean_y) for x, y in points) / sxx


def _floors(points: Sequence[tuple[int, float]]) -> list[tuple[int, float]]:
    """The lower quartile of the delays at each size: jitter only adds delay, so a low
    quantile sits near the floor the serialization line runs through, as pathchar's
    minimum does, but stays put on delays without a hard floor (the GPRS presets'
    normal jitter), where the minimum wanders with the sample."""
    by_size: dict[int, list[float]] = {}
    for size, delay in points:
        by_size.setdefault(size, []).append(delay)
    return [
        (size, statistics.quantiles(d, n=4, method="inclusive")[0] if len(d) > 1 else d[0])
        for size, d in sorted(by_size.items())
    ]


def per_octet(points: Sequence[tuple[int, float]]) -> float:
    """Seconds per octet of serialization from ``(size, one-way delay)`` samples: the
    least-squares line through each size's lower quartile, kept within what can be
    true: not below 0 (a packet's size cannot shorten its delay) and not above any
    sample's ``delay / size`` (no size-independent delay is negative). The bounds matter
    for short probes whose every sample is jittered (60 probes inside one of
    ``vdeldrop``'s On phases fitted -7 to +12 us per octet against the line's 0.8)."""
    if not points:
        return 0.0
    ceiling = min(delay / size for size, delay in points)
    return min(max(0.0, _slope(_floors(points))), ceiling)


def _resolve(seconds: float) -> float:
    """``seconds`` to the probe's ``RESOLUTION``."""
    return round(seconds / RESOLUTION) * RESOLUTION


@dataclass(frozen=True, slots=True)
class Dispersion:
    """The rate train's rate, what it counted as served (``"neighbours"``: the spacings
    of neighbours that both arrived; under jitter, one count for the train: ``"sent"``,
    losses after the bottleneck, or ``"arrived"``, before it) and the rate's standard
    error from the spread of its service times."""

    rate_bps: float
    served: str
    standard_error_bps: float = 0.0


def _fit(xs: Sequence[int], ys: Sequence[float]) -> tuple[float, float]:
    """Least-squares slope of ``ys`` against ``xs`` and the residual sum of squares."""
    n = len(xs)
    mean_x, mean_y = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mean_x) ** 2 for x in xs)
    sxy = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True))
    slope = sxy / sxx
    rss = sum((y - mean_y - slope * (x - mean_x)) ** 2 for x, y in zip(xs, ys, strict=True))
    return slope, rss


SAME_SPACING = 1e-9
"""Relative spread of spacings that is float rounding of equal ones (a fixed-rate line)."""

ONE_SERVICE = (0.5, 1.5)
"""Spacings of neighbouring arrivals, as multiples of their median, within which every
one must fall for the spacings to be read as the bottleneck's service times."""


def _spacings(ordered: Sequence[tuple[int, float]]) -> list[float]:
    """Arrival spacings of neighbours in the train, sequence numbers ``n`` and ``n + 1``,
    both arrived: the bottleneck carried nothing between them."""
    return [b[1] - a[1] for a, b in itertools.pairwise(ordered) if b[0] == a[0] + 1]


def _service_times(spacings: Sequence[float]) -> bool:
    """Whether neighbours' spacings are the bottleneck's service times rather than delay
    jitter after it (vdeldrop's 0-50 ms against 4 ms a datagram): none is near zero or
    near two of them."""
    if len(spacings) < 2:
        return False
    cuts = statistics.quantiles(spacings, n=10, method="inclusive")
    median = statistics.median(spacings)
    low, high = ONE_SERVICE
    return median > 0 and cuts[0] > low * median and cuts[-1] < high * median


def dispersion_rate(arrivals: Sequence[tuple[int, float]]) -> Dispersion | None:
    """The rate of a back-to-back train from its ``(sequence number, arrival time)``
    pairs; None with fewer than two arrivals, infinite when they did not spread out.

    Only what the bottleneck carried counts. Where neighbours' spacings are its service
    times, the rate is one datagram per mean spacing, a gap in the sequence numbers
    counting for nothing: a datagram lost before the bottleneck took none of its time,
    one lost after it took some, and the probe cannot tell which (GPRS has both). Where
    delay jitter after the bottleneck hides the service times, the whole train follows
    one count, the one its arrivals fit best (every datagram sent, or only those that
    arrived): the gaps' slope against the line's then decides."""
    ordered = sorted(arrivals)
    if len(ordered) < 2:
        return None
    spacings = _spacings(ordered)
    if _service_times(spacings):
        slope, served = sum(spacings) / len(spacings), "neighbours"
    else:
        by_time = sorted(ordered, key=lambda a: a[1])  # a link that reorders (Internet)
        times = [t for _, t in by_time]
        by_seq = _fit([seq for seq, _ in by_time], times)
        by_rank = _fit(list(range(len(by_time))), times)
        # Ties (no loss, or losses that change neither fit) count as "sent".
        slope, served = (by_rank[0], "arrived") if by_rank[1] < by_seq[1] else (by_seq[0], "sent")
    rate = RATE_PACKET * 8 / slope if slope > 0 else math.inf
    return Dispersion(rate, served, _standard_error(spacings, rate))


def _standard_error(spacings: Sequence[float], rate: float) -> float:
    """The rate's standard error from the spacings of neighbouring arrivals: a link
    whose service time varies (paper 002's GPRS radio) gives each train a sample of it.
    Delay jitter after the bottleneck widens the spacings too, so this errs high."""
    mean = sum(spacings) / len(spacings) if spacings else 0.0
    if len(spacings) < 2 or mean <= 0 or not math.isfinite(rate):
        return 0.0
    spread = statistics.stdev(spacings) / mean
    if spread < SAME_SPACING:
        return 0.0
    return rate * spread / math.sqrt(len(spacings))


def analyse_probes(
    link: LinkUnderTest, direction: str, probes: Sequence[Probe], receiver: ProbeReceiver
) -> DirectionResult:
    """What ``probes`` measured on one direction: delays are arrival minus each ``at``."""
    arrivals = receiver.arrivals
    rate_arrivals = [
        (p.seq, arrivals[(p.train, p.seq)])
        for p in probes
        if p.train == TRAIN_RATE and (p.train, p.seq) in arrivals
    ]
    dispersion = dispersion_rate(rate_arrivals)
    rate_train = sum(1 for p in probes if p.train == TRAIN_RATE)
    paced = [p for p in probes if p.train == TRAIN_PACED]
    points = [
        (p.size, arrivals[(p.train, p.seq)] - p.at) for p in paced if (p.train, p.seq) in arrivals
    ]
    slope = per_octet(points)
    return DirectionResult(
        direction=direction,
        configured=link.configured(direction),
        expected_rate_bps=link.expected_rate_bps(direction),
        expected_delay_ms=link.expected_delay_ms(direction),
        rate_bps=None if dispersion is None else dispersion.rate_bps,
        rate_served=None if dispersion is None else dispersion.served,
        rate_standard_error_bps=None if dispersion is None else dispersion.standard_error_bps,
        rate_train=rate_train,
        rate_received=len(rate_arrivals),
        sent=len(paced),
        received=len(points),
        delays=[_resolve(d - slope * size) for size, d in points],
        raw_delays=[d for _, d in points],
        per_octet_s=slope,
    )


def probe(
    link: LinkUnderTest | str,
    *,
    seed: int = 1,
    count: int = DEFAULT_COUNT,
    pcap: Path | str | None = None,
    train: int | None = None,
    gap: float | None = None,
) -> ProbeResult:
    """Probe both directions of ``link`` at once (``train``, ``gap``: see ``plan_probes``).

    ``pcap`` captures every probe datagram as the link delivers it (both directions,
    stamped with its arrival time), the view of tcpdump on the receiving hosts.
    """
    if isinstance(link, str):
        link = LinkUnderTest(get_preset(link))
    count = checks.count("count", count, minimum=2)
    preset = link.preset
    if max(PACED_SIZES) > preset.mtu:
        raise UsageError(f"preset {preset.name!r} has MTU {preset.mtu}, below the probe's sizes")
    network = Network(seed)
    server = network.add_host("server", SERVER_ADDRESS)
    phone = network.add_host("phone", PHONE_ADDRESS)
    wire = network.connect(
        server, phone, link.build("down"), link.build("up"), mtu=preset.mtu, name=preset.name
    )
    if pcap is not None:
        try:
            network.capture(wire, pcap, point="rx")
        except OSError as exc:
            raise UsageError(f"cannot write pcap file {str(pcap)!r}: {exc}") from None
    plans: dict[str, list[Probe]] = {}
    receivers: dict[str, ProbeReceiver] = {}
    ends = {"down": (server, phone), "up": (phone, server)}
    for direction in DIRECTIONS:
        src, dst = ends[direction]
        plans[direction] = plan_probes(link, direction, count, train=train, gap=gap)
        receivers[direction] = ProbeReceiver()
        dst.bind_udp(DISCARD_PORT, receivers[direction])
        sender = ProbeSender((dst.address, DISCARD_PORT), plans[direction])
        src.bind_udp(PROBE_PORT, sender).flush()
    try:
        network.run()
    finally:
        network.close()
    results = {d: analyse_probes(link, d, plans[d], receivers[d]) for d in DIRECTIONS}
    return ProbeResult(preset.name, seed, count, results, round_trips(link, seed=seed))


def idle_gap(link: LinkUnderTest) -> float:
    """Seconds of silence after which every TBF is gone and nothing is in flight: the
    longest release timer, plus twice each direction's configured p95 delay and set-up,
    plus ``IDLE_MARGIN``."""
    release, busy = 0.0, 0.0
    for direction in DIRECTIONS:
        c = link.preset.configured[direction]
        release = max(release, float(c.get("release_s") or 0.0))
        busy += float(c["delay_ms"]["p95"]) / 1000
        setup = c.get("setup_ms")
        busy += 0.0 if setup is None else float(setup["p95"]) / 1000
    return release + 2 * busy + IDLE_MARGIN


def plan_pings(gap: float) -> list[Probe]:
    """``IDLE_PINGS`` requests ``gap`` apart, then ``STEADY_PINGS`` every
    ``STEADY_INTERVAL`` once another ``gap`` has passed."""
    pings = [Probe(gap * (i + 1), TRAIN_RATE, i, PING_SIZE) for i in range(IDLE_PINGS)]
    start = gap * (IDLE_PINGS + 1)
    pings += [
        Probe(start + i * STEADY_INTERVAL, TRAIN_PACED, i, PING_SIZE) for i in range(STEADY_PINGS)
    ]
    return pings


def round_trips(link: LinkUnderTest, *, seed: int) -> RoundTrip:
    """Echo round trips across a fresh copy of ``link`` (see the module's docstring)."""
    network = Network(seed)
    server = network.add_host("server", SERVER_ADDRESS)
    phone = network.add_host("phone", PHONE_ADDRESS)
    mtu = link.preset.mtu
    network.connect(server, phone, link.build("down"), link.build("up"), mtu=mtu, name="echo")
    gap = idle_gap(link)
    schedule = plan_pings(gap)
    server.bind_udp(ECHO_PORT, Echoer())  # RFC 862's echo service
    pinger = Pinger((server.address, ECHO_PORT), schedule)
    phone.bind_udp(PROBE_PORT, pinger).flush()
    try:
        network.run()
    finally:
        network.close()
    rtts: dict[int, list[float]] = {TRAIN_RATE: [], TRAIN_PACED: []}
    for ping in schedule:
        back = pinger.replies.arrivals.get((ping.train, ping.seq))
        if back is not None:
            rtts[ping.train].append(back - ping.at)
    return RoundTrip(gap, rtts[TRAIN_RATE], rtts[TRAIN_PACED], len(schedule))


PROBE_PARAMETERS = {
    "link.preset": Parameter(str, required=True, choices=PRESETS.keys()),
    "link.overrides.loss": Parameter(float, minimum=0.0, maximum=1.0),
    "link.overrides.rate_bps": Parameter(float, minimum=1.0),
    "workload.count": Parameter(int, minimum=2, bound=MAX_UNFORCED_COUNT),
}
"""What the ``probe`` kind reads; a scenario file is checked against it when loaded."""


@experiment_kind("probe", PROBE_PARAMETERS)
def run_probe(params: dict[str, Any], seed: int) -> list[Row]:
    """Scenario kind ``probe``: one row per direction (``link.preset``,
    ``link.overrides.loss``/``rate_bps``, ``workload.count``)."""
    link = LinkUnderTest(
        get_preset(str(params["link.preset"])),
        loss=params.get("link.overrides.loss"),
        rate_bps=params.get("link.overrides.rate_bps"),
    )
    result = probe(link, seed=seed, count=int(params.get("workload.count", DEFAULT_COUNT)))
    rows: list[Row] = []
    for direction, r in result.directions.items():
        m = r.measured()
        rows.append(
            {
                "direction": direction,
                "rate_bps": m["rate_bps"],
                "expected_rate_bps": _finite(r.expected_rate_bps),
                "loss": m["loss"],
                "configured_loss": float(r.configured["loss"]),
                "delay_p50_ms": m["delay_ms"]["p50"],
                "delay_p95_ms": m["delay_ms"]["p95"],
                "configured_delay_p50_ms": float(r.configured["delay_ms"]["p50"]),
                "configured_delay_p95_ms": float(r.configured["delay_ms"]["p95"]),
            }
        )
    return rows


def probe_all(
    out: Path,
    *,
    seed: int = 1,
    count: int = DEFAULT_COUNT,
    progress: bool = False,
    front: Callable[[], Sequence[Block]] = tuple,
) -> tuple[dict[str, ProbeResult], Path]:
    """Probe every preset and write ``out/index.html`` (``front()`` first: the papers'
    status) with a page of tables and CDFs. ``front`` is called after the probes: making
    it may import modules that register presets of their own, which this run did not
    start with."""
    started = time.time()
    results: dict[str, ProbeResult] = {}
    with track("presets probed", len(PRESETS), enabled=progress) as advance:
        for name in PRESETS:
            results[name] = probe(name, seed=seed, count=count)
            advance()
    page = probe_page(results, out, RunInfo.collect(f"all presets, {count} probes", started))
    return results, write_report_index(out, [page], front())


def probe_page(
    results: dict[str, ProbeResult], out: Path, run: RunInfo | None = None
) -> ReportPage:
    """One page: a summary table, then per preset its citation, delay CDF and assumptions,
    and the run's metadata."""
    from wwanlab.report.plots import cdf_plot  # matplotlib: only when drawing

    rows: list[Row] = []
    sections: list[Section] = []
    for name, result in results.items():
        preset = get_preset(name)
        for direction, r in result.directions.items():
            m = r.measured()
            rows.append(
                {
                    "preset": name,
                    "direction": direction,
                    "rate kbit/s (expected)": _kbps(r.expected_rate_bps),
                    "rate kbit/s (measured)": _kbps(r.rate_bps),
                    "rate ± kbit/s": _kbps(r.rate_standard_error_bps),
                    "rate: served counted as": r.rate_served or "n/a",
                    "loss (configured)": round(float(r.configured["loss"]), 5),
                    "loss (measured)": round(r.loss, 5),
                    "delay p50 ms (expected)": r.expected_delay_ms["p50"],
                    "delay p50 ms (measured)": m["delay_ms"]["p50"],
                    "delay p95 ms (expected)": r.expected_delay_ms["p95"],
                    "delay p95 ms (measured)": m["delay_ms"]["p95"],
                }
            )
        figure = cdf_plot(
            {d: [x * 1000 for x in r.delays] for d, r in result.directions.items()},
            out / "figures" / f"probe-{name}.png",
            xlabel="one-way delay without serialization (ms)",
            title=name,
        )
        sections.append(
            Section(
                f"{name}: {preset.title}",
                [
                    Params(
                        {
                            "citation": preset.citation,
                            "mtu": preset.mtu,
                            "seed": result.seed,
                            "paced probes per direction": result.count,
                        }
                    ),
                    Figure(figure, f"{name}: CDF of the size-independent one-way delay"),
                    Assumptions(list(preset.assumptions)),
                ],
            )
        )
    method = (
        "Each preset is probed in the simulator in both directions at once: a back-to-back "
        f"train of {RATE_PACKET}-octet UDP datagrams gives the rate (IP bits per second, "
        "the slope of arrival time against the datagrams the bottleneck carried before "
        "each one, i.e. one datagram per mean spacing of neighbours that both arrived, "
        "or, where delay jitter hides those, every datagram sent or only those that "
        "arrived, whichever line the arrivals follow; ± its standard error, as a radio "
        "whose service time varies gives each train a sample of it) "
        "and a paced train of "
        f"{'/'.join(map(str, PACED_SIZES))}-octet datagrams gives loss and one-way delay. "
        "Delay is shown without its per-octet part (a least-squares line through each "
        "size's median delay), to the microsecond. 'Configured' is what the preset sets; "
        "'expected' is what the probe should see given that: the line rate net of framing "
        "(and of start/stop bits on a serial line), the configured delay plus the framing "
        "octets' serialization."
    )
    summary = Section("Summary", [Text(method), Table.from_rows(rows)])
    meta = [Section("This run", [run.block()])] if run is not None else []
    return ReportPage(
        "Link presets probed",
        [summary, *sections, *meta],
        slug="probe",
        summary=f"{len(results)} presets, rate, delay and loss vs configured",
    )


def _kbps(bps: float | None) -> float | str:
    if bps is None:
        return "n/a"
    if not math.isfinite(bps):
        return "unlimited"
    return round(bps / 1000, 3)

"""The link probe: measure a preset's rate, one-way delay and loss in the simulator.

Two hosts joined by the preset's link send each other UDP probe datagrams to the
discard port, down (server to phone) and up (phone to server) at once:

* a **back-to-back train** of ``RATE_PACKET``-octet datagrams, all sent at one instant;
  the receiver's dispersion gives the bottleneck rate in IP bits per second: the
  least-squares slope of arrival time against the number of datagrams the bottleneck
  served before each one. That number is the sequence number when losses happen after
  the bottleneck, and the count of earlier arrivals when they happen before it (NISTNet
  on the serial line's downlink: a dropped datagram never occupies the line). The probe
  cannot know which, so it fits both lines and keeps the one the arrivals follow more
  closely (the smaller residual); on a line without jitter the right one fits exactly.
  Counting by sequence number alone read 8,215 bit/s on serial-9k6's 7,551 bit/s
  downlink at 10% drop;
* a **paced train** of ``count`` datagrams cycling through ``PACED_SIZES``, spaced far
  enough apart that no queue builds; it gives the loss and the one-way delay.

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

Pacing and the rate train's length come from the configured values, as one would
calibrate a real probe from a link's data sheet: the paced gap is twice the configured
p95 delay plus a largest packet's serialization, and the rate train spans at least
``RATE_TRAIN_SPAN`` times the configured p95 delay so that delay jitter moves the
rate estimate by a few percent at most.
"""

from __future__ import annotations

import math
import statistics
import struct
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wwanlab.core.address import Address
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

DEFAULT_COUNT = 1000
MAX_UNFORCED_COUNT = 100 * DEFAULT_COUNT  # a scenario's workload.count beyond it needs --force
RATE_TRAIN_MIN = 100
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
        """
        c = self.preset.configured[direction]
        framing = 0.0
        if c["rate_bps"] is not None:
            framing = c.get("overhead_bytes", 0) * c.get("bits_per_byte", 8) / c["rate_bps"]
        return {q: round(float(c["delay_ms"][q]) + framing * 1000, 3) for q in ("p50", "p95")}


@dataclass(frozen=True)
class DirectionResult:
    """What the probe measured on one direction, with the configured values beside."""

    direction: str
    configured: dict[str, Any]
    expected_rate_bps: float
    expected_delay_ms: dict[str, float]
    rate_bps: float | None
    rate_served: str | None  # which count of served datagrams the rate train followed
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
class ProbeResult:
    link: str
    seed: int
    count: int
    directions: dict[str, DirectionResult]

    def to_json(self) -> dict[str, Any]:
        """Downlink at the top level (``measured``, ``configured``), both under ``directions``."""
        down = self.directions["down"].to_json()
        return {
            "link": self.link,
            "seed": self.seed,
            "count": self.count,
            **down,
            "directions": {d: r.to_json() for d, r in self.directions.items()},
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
    p95 = float(configured["delay_ms"]["p95"]) / 1000
    rate = link.expected_rate_bps(direction)
    per_packet = RATE_PACKET * 8 / rate if math.isfinite(rate) else 0.0
    largest = max(PACED_SIZES) * 8 / rate if math.isfinite(rate) else 0.0
    if train is None and per_packet > 0:
        n = math.ceil(RATE_TRAIN_SPAN * p95 / per_packet)
        train = min(RATE_TRAIN_MAX, max(RATE_TRAIN_MIN, n))
    elif train is None:
        train = RATE_TRAIN_MIN
    if gap is None:
        gap = max(MIN_GAP, 2 * (p95 + largest))
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
    """The rate train's rate, and which count of served datagrams its arrivals followed:
    ``"sent"`` (losses after the bottleneck) or ``"arrived"`` (losses before it)."""

    rate_bps: float
    served: str


def _fit(xs: Sequence[int], ys: Sequence[float]) -> tuple[float, float]:
    """Least-squares slope of ``ys`` against ``xs`` and the residual sum of squares."""
    n = len(xs)
    mean_x, mean_y = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mean_x) ** 2 for x in xs)
    sxy = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True))
    slope = sxy / sxx
    rss = sum((y - mean_y - slope * (x - mean_x)) ** 2 for x, y in zip(xs, ys, strict=True))
    return slope, rss


def dispersion_rate(arrivals: Sequence[tuple[int, float]]) -> Dispersion | None:
    """The rate of a back-to-back train from its ``(sequence number, arrival time)``
    pairs; None with fewer than two arrivals, infinite when they did not spread out."""
    ordered = sorted(arrivals, key=lambda a: a[1])
    if len(ordered) < 2:
        return None
    times = [t for _, t in ordered]
    by_seq = _fit([seq for seq, _ in ordered], times)
    by_rank = _fit(list(range(len(ordered))), times)
    # Ties (no loss, or a train whose losses change neither fit) count as "sent".
    slope, served = (by_rank[0], "arrived") if by_rank[1] < by_seq[1] else (by_seq[0], "sent")
    rate = RATE_PACKET * 8 / slope if slope > 0 else math.inf
    return Dispersion(rate, served)


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
    return ProbeResult(preset.name, seed, count, results)


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
    out: Path, *, seed: int = 1, count: int = DEFAULT_COUNT, progress: bool = False
) -> tuple[dict[str, ProbeResult], Path]:
    """Probe every preset and write ``out/index.html`` with a page of tables and CDFs."""
    started = time.time()
    results: dict[str, ProbeResult] = {}
    with track("presets probed", len(PRESETS), enabled=progress) as advance:
        for name in PRESETS:
            results[name] = probe(name, seed=seed, count=count)
            advance()
    page = probe_page(results, out, RunInfo.collect(f"all presets, {count} probes", started))
    return results, write_report_index(out, [page])


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
        "the slope of arrival time against the datagrams served before each one, counted "
        "as those sent when losses follow the bottleneck or those that arrived when they "
        "precede it, whichever line the arrivals follow) and a paced train of "
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

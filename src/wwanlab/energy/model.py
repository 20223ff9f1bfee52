"""A radio as a state machine with a power per state, charged from a packet trace.

States (after Balasubramanian et al., "Energy consumption in mobile phones: a
measurement study and implications for network applications", IMC 2009, section 3,
and Qian et al., "Characterizing radio resource allocation for 3G networks", IMC 2010,
section 2)::

    IDLE --packet--> PROMOTION (fixed time) --> TX / RX while packets are on the air
    TX/RX --last bit--> TAIL_1 --t1--> TAIL_2 --t2--> ... --> IDLE

A packet occupies the radio for its airtime (``Airtime``: its serialization on the
link's line, or the radio's service time). One the mobile sends goes on the air when it
is sent or, if the radio is still sending an earlier one, when that one is done (the
mobile's own queue); one it receives is on the air up to when it arrives or, if the
next one arrives right behind it, up to when that one began. So every packet is charged
its whole airtime, however the trace bunches them. Overlapping transmit and receive
count as transmit. A gap between packets shorter than the tails keeps the radio in the tail
state it has reached; a longer one ends in IDLE, and the next packet pays a promotion
again (its energy is charged; the trace, recorded without it, is not delayed). After
the last packet the tails run out in full: that energy belongs to the transfer. Each
model's numbers carry their source in ``sources``; values no published study gave us
are marked "assumed".
"""

import functools
import itertools
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from wwanlab.core.errors import UsageError
from wwanlab.link.gprs_radio import GprsRadioStage
from wwanlab.link.presets import GPRS_REFERENCE_PACKET
from wwanlab.link.rate import Rate, ServiceTime

MEGABYTE = 1 << 20  # octets; paper 004's "5 MBytes" are 5,242,880 octets


@dataclass(frozen=True)
class TailStage:
    name: str
    power_w: float
    seconds: float


@dataclass(frozen=True)
class RadioModel:
    name: str
    tx_w: float
    rx_w: float
    idle_w: float
    tails: tuple[TailStage, ...]
    promotion_s: float
    promotion_w: float
    sources: dict[str, str] = field(default_factory=dict)


@dataclass
class EnergyReport:
    """Joules in all, and seconds and joules per state."""

    joules: float
    seconds: dict[str, float]
    by_state: dict[str, float]

    def per_megabyte(self, delivered: int) -> float:
        return self.joules / (delivered / MEGABYTE)

    def to_json(self, delivered: int | None = None) -> dict[str, object]:
        """Joules, J/MB of ``delivered`` octets (None without), seconds and joules per state."""
        return {
            "joules": self.joules,
            "j_per_mb": self.per_megabyte(delivered) if delivered else None,
            "seconds": self.seconds,
            "joules_by_state": self.by_state,
        }


Airtime = Callable[[str, int], float]
"""Seconds a packet is on the air: (``"tx"`` or ``"rx"``, IP octets) -> seconds."""


def at_rates(up_bps: float, down_bps: float) -> Airtime:
    """Airtime of IP octets at ``up_bps`` sending and ``down_bps`` receiving."""
    if not (up_bps > 0 and down_bps > 0):
        raise UsageError("radio rates must be positive")
    return lambda way, size: size * 8 / (up_bps if way == "tx" else down_bps)


def on_line(up: Iterable[object], down: Iterable[object]) -> Airtime:
    """Airtime on a link's uplink and downlink stages: serialization with framing on a
    ``Rate``; on a ``ServiceTime`` (the GPRS radio) the packet's share of the mean service
    time of the presets' reference packet, i.e. its size at the radio's rate (an ACK
    does not hold the radio as long as a full segment; the rest of the service time is
    waiting for the cell's scheduler); on a ``GprsRadioStage`` its frame at the radio's
    rate (the latency and the TBF set-up are not airtime)."""
    stages = {"tx": list(up), "rx": list(down)}

    @functools.cache
    def airtime(way: str, size: int) -> float:
        busy = 0.0
        for stage in stages[way]:
            if isinstance(stage, Rate):
                busy += stage.serialization(size)
            elif isinstance(stage, ServiceTime):
                busy += stage.service.mean * size / GPRS_REFERENCE_PACKET
            elif isinstance(stage, GprsRadioStage):
                busy += stage.serialization(size)
        return busy

    return airtime


Interval = tuple[float, float]


def _union(intervals: Iterable[Interval]) -> list[Interval]:
    out: list[Interval] = []
    for lo, hi in sorted(intervals):
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def _minus(a: Sequence[Interval], b: Sequence[Interval]) -> list[Interval]:
    """The parts of the disjoint sorted intervals ``a`` outside the disjoint sorted ``b``
    (one sweep over both)."""
    out: list[Interval] = []
    j = 0
    for lo, hi in a:
        while j < len(b) and b[j][1] <= lo:
            j += 1
        cut, k = lo, j
        while k < len(b) and b[k][0] < hi:
            if b[k][0] > cut:
                out.append((cut, b[k][0]))
            cut = max(cut, b[k][1])
            k += 1
        if cut < hi:
            out.append((cut, hi))
    return out


def _on_air(
    packets: Iterable[tuple[float, str, int]], airtime: Airtime
) -> tuple[list[Interval], list[Interval]]:
    """Each packet's time on the air: sends queue behind each other from when they are
    sent, receptions end when they arrive or when the next one began (module docstring)."""
    sent: list[tuple[float, int]] = []
    received: list[tuple[float, int]] = []
    for t, way, size in packets:
        if way == "tx":
            sent.append((t, size))
        elif way == "rx":
            received.append((t, size))
        else:
            raise ValueError(f"packet direction {way!r} is neither 'tx' nor 'rx'")
    tx, free = [], -math.inf
    for t, size in sorted(sent):
        start = max(t, free)
        free = start + airtime("tx", size)
        tx.append((start, free))
    rx, next_start = [], math.inf
    for t, size in sorted(received, reverse=True):
        end = min(t, next_start)
        next_start = end - airtime("rx", size)
        rx.append((next_start, end))
    return tx, rx


def account(
    packets: Iterable[tuple[float, str, int]], model: RadioModel, airtime: Airtime
) -> EnergyReport:
    """Charge ``(time, "tx"|"rx", IP octets)`` packets to ``model``'s states."""
    tx, rx = _on_air(packets, airtime)
    tx_on = _union(tx)
    rx_on = _minus(_union(rx), tx_on)
    seconds = {"tx": 0.0, "rx": 0.0, "promotion": 0.0, "idle": 0.0}
    seconds.update({stage.name: 0.0 for stage in model.tails})
    active = _union([*tx_on, *rx_on])
    seconds["tx"] = sum(hi - lo for lo, hi in tx_on)
    seconds["rx"] = sum(hi - lo for lo, hi in rx_on)
    tail_total = sum(stage.seconds for stage in model.tails)
    gaps = [b[0] - a[1] for a, b in itertools.pairwise(active)]
    promotions = 1 if active else 0
    for gap in [*gaps, tail_total if active else 0.0]:
        left = gap
        for stage in model.tails:
            spent = min(left, stage.seconds)
            seconds[stage.name] += spent
            left -= spent
        if left > 0:  # the tails ran out: idle until the next packet promotes again
            seconds["idle"] += left
            promotions += 1
    seconds["promotion"] = promotions * model.promotion_s
    power = {
        "tx": model.tx_w,
        "rx": model.rx_w,
        "promotion": model.promotion_w,
        "idle": model.idle_w,
        **{stage.name: stage.power_w for stage in model.tails},
    }
    by_state = {state: seconds[state] * power[state] for state in seconds}
    return EnergyReport(sum(by_state.values()), seconds, by_state)


BALASUBRAMANIAN = "Balasubramanian et al., IMC 2009, section 3 (measured on handsets)"
QIAN = "Qian et al., IMC 2010, section 2 (one UMTS carrier's RRC parameters)"

GPRS = RadioModel(
    name="gprs",
    tx_w=1.0,
    rx_w=0.5,
    idle_w=0.0,
    tails=(TailStage("tail", 0.25, 6.0),),
    promotion_s=0.0,
    promotion_w=0.0,
    sources={
        "tail": f"6 s tail after a transfer: {BALASUBRAMANIAN}, GSM",
        "promotion": f"none: GSM showed no ramp-up energy in {BALASUBRAMANIAN}",
        "tx_w": "assumed: 1 W transmitting (a GSM class-4 handset at 2 W peak, one slot "
        "of two busy)",
        "rx_w": "assumed: 0.5 W receiving",
        "tail_w": "assumed: 0.25 W in the tail",
        "idle_w": "0 W: only power above the handset's baseline is charged",
    },
)

UMTS = RadioModel(
    name="umts",
    tx_w=0.8,
    rx_w=0.8,
    idle_w=0.0,
    tails=(TailStage("dch-tail", 0.8, 5.0), TailStage("fach-tail", 0.46, 12.0)),
    promotion_s=2.0,
    promotion_w=0.55,
    sources={
        "tx_w/rx_w": f"DCH 800 mW: {QIAN}",
        "tails": f"DCH->FACH after 5 s, FACH (460 mW) -> IDLE after 12 s: {QIAN}",
        "promotion": f"IDLE->DCH promotion 2 s: {QIAN}; its 0.55 W is assumed",
        "idle_w": "0 W: only power above the handset's baseline is charged",
    },
)

MODELS: dict[str, RadioModel] = {m.name: m for m in (GPRS, UMTS)}


def get_model(name: str) -> RadioModel:
    try:
        return MODELS[name]
    except KeyError:
        raise UsageError(f"unknown radio model {name!r} (known: {', '.join(MODELS)})") from None

"""Link presets: the links of the papers, each value cited or listed as an assumption.

A ``Preset`` builds a fresh ``Direction`` ("down": towards the mobile or client,
"up": from it) of stateful stages on every call, states what it configured per
direction (``configured``: rate, analytic long-run loss, delay mean and quantiles) so a
probe can print its measurements beside them, and lists every value the paper did not
give (``assumptions``). Reproductions sweep drop rates with ``with_loss(p)`` or
``build(direction, loss=p)``; ``loss_knob`` says which model the override sets.
"""

import dataclasses
import functools
import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from wwanlab.core.errors import UsageError
from wwanlab.link import checks
from wwanlab.link.arq import LinkArq
from wwanlab.link.base import Direction, Stage
from wwanlab.link.delay import (
    ConstantDelay,
    DelayDistribution,
    TruncatedNormalDelay,
    UniformDelay,
)
from wwanlab.link.loss import BernoulliLoss, OnOffLoss, PhaseLength
from wwanlab.link.queue import DropTailQueue
from wwanlab.link.rate import Rate, ServiceTime

DIRECTIONS = ("down", "up")

PAPER_000 = "000_a380db17327288ab.txt"
PAPER_002 = "002_ca0a221da0385ee1.txt"
PAPER_003 = "003_7d8cd03c4c3de80c.txt"
PAPER_004 = "004_232d0d91326457d6.txt"

# Framing a link charges per IP packet, in octets.
PPP_HDLC_OVERHEAD = 8  # RFC 1662: flag, address, control, 2-octet protocol, FCS-16, flag
ETHERNET_OVERHEAD = 38  # IEEE 802.3: preamble+SFD 8, header 14, FCS 4, inter-frame gap 12
ASYNC_BITS_PER_BYTE = 10  # start bit, 8 data bits, stop bit


@dataclass(frozen=True, slots=True)
class Plan:
    """One direction of a preset: its stages and what they were configured to do."""

    stages: list[Stage]
    configured: dict[str, Any]
    fifo: bool = True


PlanFn = Callable[[str, float | None], Plan]
"""(direction, loss override or None) -> a fresh plan."""


@dataclass(frozen=True)
class Preset:
    """A named link with its citation, MTU, per-direction configuration and assumptions."""

    name: str
    title: str
    citation: str
    mtu: int
    assumptions: tuple[str, ...]
    loss_knob: str
    """What ``with_loss(p)`` / ``build(..., loss=p)`` sets."""
    plan: PlanFn = field(repr=False, compare=False)
    loss: float | None = None
    """A loss override set by ``with_loss``; None keeps the paper's value."""

    def build(self, direction: str, *, loss: float | None = None) -> Direction:
        """A fresh ``Direction`` for ``"down"`` or ``"up"``, with its own stage state."""
        plan = self._plan(direction, loss)
        return Direction(plan.stages, fifo=plan.fifo)

    def with_loss(self, p: float) -> "Preset":
        """The same link with its loss knob set to ``p``."""
        return dataclasses.replace(self, loss=checks.probability("loss", p))

    @functools.cached_property
    def configured(self) -> dict[str, dict[str, Any]]:
        """Per direction: rate_bps, loss (analytic long-run), delay_ms {mean, p50, p95}..."""
        return {d: self._plan(d, None).configured for d in DIRECTIONS}

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "citation": self.citation,
            "mtu": self.mtu,
            "loss_knob": self.loss_knob,
            "loss_override": self.loss,
            "configured": self.configured,
            "assumptions": list(self.assumptions),
        }

    def _plan(self, direction: str, loss: float | None) -> Plan:
        if direction not in DIRECTIONS:
            raise UsageError(f"link direction must be 'down' or 'up', got {direction!r}")
        if loss is not None:
            loss = checks.probability("loss", loss)
        return self.plan(direction, self.loss if loss is None else loss)


# --- what a plan configured ------------------------------------------------------------

_GRID = 200  # quantile points per delay component when summing distributions


def _grid(model: DelayDistribution) -> list[float]:
    return [model.quantile((i + 0.5) / _GRID) for i in range(_GRID)]


def delay_summary(delays: Sequence[DelayDistribution], *, active: float = 1.0) -> dict[str, float]:
    """Mean, p50 and p95 in ms of the sum of independent ``delays``.

    The mean is exact. Quantiles of a sum are computed from ``_GRID``-point quantile
    grids of each component (the sum's grid is the sorted pairwise sums thinned back to
    ``_GRID`` points), so they are approximate to about 1/``_GRID`` in probability.
    With ``active`` < 1 the delays apply to that fraction of packets only and the
    others see 0 (VDELDROP's On phases).
    """
    points = [0.0]
    for model in delays:
        sums = sorted(a + b for a, b in itertools.product(points, _grid(model)))
        points = [sums[(2 * i + 1) * len(sums) // (2 * _GRID)] for i in range(_GRID)]
    mean = sum(m.mean for m in delays)

    def at(q: float) -> float:
        if q <= 1 - active:  # a fraction 1 - active of packets sees no delay
            return 0.0
        q = (q - (1 - active)) / active
        if len(points) == 1:
            return points[0]
        # Linear interpolation, grid point i standing at probability (i + 0.5) / n.
        x = min(max(q * len(points) - 0.5, 0.0), len(points) - 1.0)
        i = min(math.floor(x), len(points) - 2)
        return points[i] + (x - i) * (points[i + 1] - points[i])

    return {
        "mean": round(active * mean * 1000, 3),
        "p50": round(at(0.5) * 1000, 3),
        "p95": round(at(0.95) * 1000, 3),
    }


def _configured(
    *,
    rate_bps: float | None,
    losses: Sequence[float],
    delays: Sequence[DelayDistribution],
    overhead_bytes: int = 0,
    bits_per_byte: float = 8,
    queue: dict[str, int] | None = None,
    delay_active: float = 1.0,
    **extra: Any,
) -> dict[str, Any]:
    delivered = math.prod(1 - p for p in losses)
    return {
        "rate_bps": rate_bps,
        "overhead_bytes": overhead_bytes,
        "bits_per_byte": bits_per_byte,
        "loss": round(1 - delivered, 12),
        "delay_ms": delay_summary(delays, active=delay_active),
        "queue": queue,
        **extra,
    }


# --- serial-9k6: paper 000 --------------------------------------------------------------

SERIAL_BPS = 9600  # paper 000 section 3.1: "serial cable that is set to a 9.6kbps data rate"
SERIAL_MTU = 1500  # paper 000 section 3.1: "The Maximum Transfer Unit (MTU) ... 1500 octets"


def _serial_9k6(direction: str, loss: float | None) -> Plan:
    p = 0.0 if loss is None else loss
    rate = Rate(SERIAL_BPS, PPP_HDLC_OVERHEAD, bits_per_byte=ASYNC_BITS_PER_BYTE)
    drop = BernoulliLoss(p)
    # NISTNet drops on the Ethernet side: before the serial line going down to the
    # client, after it coming up (paper 000 Figure 5 and section 3.1).
    stages: list[Stage] = [drop, rate] if direction == "down" else [rate, drop]
    return Plan(
        stages,
        _configured(
            rate_bps=SERIAL_BPS,
            overhead_bytes=PPP_HDLC_OVERHEAD,
            bits_per_byte=ASYNC_BITS_PER_BYTE,
            losses=[p],
            delays=[],
            ip_bytes_per_s=SERIAL_BPS / ASYNC_BITS_PER_BYTE,
        ),
    )


SERIAL_9K6 = Preset(
    name="serial-9k6",
    title="9.6 kbit/s GSM dial-up emulated by a serial cable, NISTNet drops",
    citation=f"{PAPER_000} section 3.1 (Experiment setup)",
    mtu=SERIAL_MTU,
    assumptions=(
        "PPP in HDLC-like framing (RFC 1662) over the serial cable: 8 octets per packet "
        "(flags, address, control, protocol, FCS-16); the paper does not name the framing",
        "asynchronous serial, 10 bits per octet (start and stop bits): 960 octets/s",
        "ACCM 0 negotiated, so byte stuffing (about 0.8% on random payload) is ignored",
        "no propagation delay: the paper configures NISTNet only to drop packets",
        "loss 0 by default; the paper's 0% and 10% (both directions) are applied with "
        "with_loss(p) as independent (Bernoulli) drops, NISTNet's uniform drop",
        "unbounded queue before the serial line (the paper gives no buffer size)",
    ),
    loss_knob="NISTNet drop probability, each direction",
    plan=_serial_9k6,
)


# --- GPRS in paper 002 -------------------------------------------------------------------

INTERNET_DELAY_MEAN = 0.100  # paper 002 section III and Table 1: "Mean Internet Delay 100 ms"
INTERNET_DELAY_SD = 0.020  # assumed: the paper gives no spread
INTERNET_LOSS = 0.01  # paper 002 section III: "loss packet probability (less than 1%)"
GGSN_SGSN_BPS = 2_000_000  # paper 002 section III: GGSN-SGSN link, 2 Mbps
SGSN_BSS_BPS = 64_000  # paper 002 section III: SGSN-BSS link, 64 Kbps
LLC_MAX_RETRANSMISSIONS = 2  # paper 002 section IV.4: "until 2 retransmissions"
LLC_ACK_WAIT = 0.1  # paper 002 Table 1: "Max. Time waiting for an acknowledgment 0.1 sec"
GPRS_MSS = 430  # paper 002 Table 1: TCP MSS 430 bytes
GPRS_REFERENCE_PACKET = GPRS_MSS + 40  # IPv4 + TCP headers without options


@dataclass(frozen=True, slots=True)
class GprsRadio:
    """A GPRS radio scenario of paper 002: packet error rate and IP-packet delay range."""

    per: float
    delay_lo: float
    delay_hi: float


GPRS_ONE_USER = GprsRadio(per=0.005, delay_lo=0.080, delay_hi=0.120)  # paper 002 section V
GPRS_BUSY = GprsRadio(per=0.023, delay_lo=0.800, delay_hi=2.000)  # paper 002 section IV

_GPRS_ASSUMPTIONS = (
    "the radio's IP-packet delay (the paper's range) is a service time: the radio "
    "carries one packet at a time, busy for a delay drawn uniformly from the range. "
    "The paper publishes only the range, not its LLC frame delay histogram. One "
    "MSS-sized packet per mean delay gives 470*8/0.1 = 37.6 kbit/s (one user) and "
    "470*8/1.4 = 2.69 kbit/s (busy), beside the paper's TCP Reno 36.47 and 2.73 kbit/s",
    "rate_bps is the radio's rate for 470-octet packets (MSS 430 + 40), its service time "
    "not depending on size",
    "radio loss is independent per IP packet (Bernoulli) at the paper's PER",
    "the uplink radio (ACKs) behaves as the downlink (same delay range and PER); the "
    "paper describes only the downlink transfer",
    "Internet delay: normal, mean 100 ms (paper), sd 20 ms (assumed), truncated at 0",
    "Internet loss 1%, independent per packet: the paper says only 'less than 1%'. Its "
    "tables bracket it: FH retransmissions minus PER are 0.46% (busy) and 0.91% (one "
    "user), and with LLC ACK (no radio loss) 0.98% and 1.07% (Tables 2 and 3)",
    "the GGSN-SGSN (2 Mbps) and SGSN-BSS (64 kbps) links are modelled as serialization "
    "at those rates; the SGSN's processing delay (not given) is 0",
    "unbounded queues (the paper gives no buffer sizes)",
    "MTU 1500 (GPRS default); the paper's TCP uses MSS 430",
)

_LLC_ASSUMPTIONS = (
    "LLC acknowledged mode: up to 2 retransmissions (paper); each failed try costs the "
    "acknowledgement wait (0.1 s, Table 1) plus another radio delay drawn from the range; "
    "retransmissions do not hold the radio for other packets",
)


def _internet() -> tuple[list[Stage], list[float], list[DelayDistribution]]:
    delay = TruncatedNormalDelay(INTERNET_DELAY_MEAN, INTERNET_DELAY_SD, lo=0.0)
    return [BernoulliLoss(INTERNET_LOSS), delay], [INTERNET_LOSS], [delay]


def _gprs_radio(
    radio: GprsRadio, loss: float | None, llc_ack: bool
) -> tuple[list[Stage], list[float], list[DelayDistribution], dict[str, Any]]:
    service = UniformDelay(radio.delay_lo, radio.delay_hi)
    retry = UniformDelay(LLC_ACK_WAIT + radio.delay_lo, LLC_ACK_WAIT + radio.delay_hi)
    return gprs_radio_stages(service, retry, radio.per if loss is None else loss, llc_ack)


def gprs_radio_stages(
    service: DelayDistribution, retry: DelayDistribution, per: float, llc_ack: bool
) -> tuple[list[Stage], list[float], list[DelayDistribution], dict[str, Any]]:
    """A GPRS radio direction: a ``service`` time per IP packet, then loss at ``per``, or
    with LLC acknowledged mode up to 2 retransmissions each costing ``retry``. Also
    returns its long-run loss, its delays and what else it configured."""
    extra: dict[str, Any] = {"frame_loss": per}
    radio_loss: BernoulliLoss | LinkArq = BernoulliLoss(per)
    residual = per
    if llc_ack:
        radio_loss = LinkArq(per, LLC_MAX_RETRANSMISSIONS, retry)
        residual = per**radio_loss.tries
        added = radio_loss.mean_added_delay
        extra["arq_mean_added_delay_ms"] = None if added is None else round(added * 1000, 3)
    # The radio's rate for the reference packet: its service time does not depend on size.
    extra["rate_bps"] = GPRS_REFERENCE_PACKET * 8 / service.mean
    return [ServiceTime(service), radio_loss], [residual], [service], extra


def _gprs_plan(radio: GprsRadio, *, llc_ack: bool, internet: bool) -> PlanFn:
    def plan(direction: str, loss: float | None) -> Plan:
        radio_stages, losses, delays, extra = _gprs_radio(radio, loss, llc_ack)
        if not internet:
            return Plan(radio_stages, _configured(losses=losses, delays=delays, **extra))
        net_stages, net_losses, net_delays = _internet()
        core: list[Stage] = [Rate(GGSN_SGSN_BPS), Rate(SGSN_BSS_BPS)]
        if direction == "down":
            stages = net_stages + core + radio_stages
        else:
            stages = radio_stages + core[::-1] + net_stages[::-1]
        return Plan(
            stages,
            _configured(losses=losses + net_losses, delays=delays + net_delays, **extra),
        )

    return plan


def _gprs_preset(
    name: str,
    radio: GprsRadio,
    section: str,
    scenario: str,
    *,
    llc_ack: bool = False,
    internet: bool = True,
) -> Preset:
    what = "radio only" if not internet else "FH to MH: Internet, core, radio"
    return Preset(
        name=name,
        title=f"GPRS 4 PDCH CS-2, {scenario}{', LLC ACK mode' if llc_ack else ''} ({what})",
        citation=f"{PAPER_002} section III, Table 1, section {section}"
        + (f", section {section}.4" if llc_ack else ""),
        mtu=1500,
        assumptions=_GPRS_ASSUMPTIONS + (_LLC_ASSUMPTIONS if llc_ack else ()),
        loss_knob="radio packet error rate (PER)" + (" per LLC try" if llc_ack else ""),
        plan=_gprs_plan(radio, llc_ack=llc_ack, internet=internet),
    )


def _internet_plan(direction: str, loss: float | None) -> Plan:
    p = INTERNET_LOSS if loss is None else loss
    delay = TruncatedNormalDelay(INTERNET_DELAY_MEAN, INTERNET_DELAY_SD, lo=0.0)
    # The Internet reorders packets (paper 002 section IV.2), so this direction is not FIFO.
    return Plan(
        [BernoulliLoss(p), delay],
        _configured(rate_bps=None, losses=[p], delays=[delay]),
        fifo=False,
    )


INTERNET_2002 = Preset(
    name="internet-gprs-2002",
    title="The Internet of paper 002's GPRS simulation: Gaussian delay, <1% loss",
    citation=f"{PAPER_002} section III and Table 1",
    mtu=1500,
    assumptions=(
        "delay: normal, mean 100 ms (paper), sd 20 ms (assumed), truncated at 0",
        "loss 1% (the paper: 'less than 1%'), independent per packet",
        "no rate limit (rate_bps null) and not FIFO: packets may overtake, as the paper "
        "notes out-of-order arrivals from the Internet (section IV.2)",
    ),
    loss_knob="Internet loss probability",
    plan=_internet_plan,
)


# --- paper 003: GPRS 3+1, CDMA 1x, V.90 dial-up ------------------------------------------

WWAN_MIN_RTT = 0.600  # paper 003 section 3: WWAN link latencies "in the range of 600 ms to 3 s"
WWAN_MAX_RTT = 3.0
GPRS_3PLUS1_DOWN_BPS = 39_600  # paper 003 section 3: "'3+1' GPRS phone ... 39.6 Kbps"
CDMA_1X_BPS = 144_000  # paper 003 section 3 and 5: "ideal downlink data rate of 144 Kbps"
V90_DOWN_BPS = 56_000  # paper 003 section 5: "a standard V90 56Kbps dialup modem"
V90_UP_BPS = 33_600  # ITU-T V.90: the upstream is V.34 modulation, at most 33.6 kbit/s
DIALUP_ONE_WAY = 0.060  # assumed: modem round trip about 120 ms


def _wwan_plan(
    down_bps: float, up_bps: float, one_way: float, buffer_s: float | None, overhead: int = 0
) -> PlanFn:
    def plan(direction: str, loss: float | None) -> Plan:
        p = 0.0 if loss is None else loss
        bps = down_bps if direction == "down" else up_bps
        server: Stage = Rate(bps, overhead)
        queue = None
        if buffer_s is not None:
            limit = math.ceil(bps * buffer_s / 8)
            server = DropTailQueue(server, bytes=limit)
            queue = {"bytes": limit}
        delay = ConstantDelay(one_way)
        return Plan(
            [server, delay, BernoulliLoss(p)],
            _configured(
                rate_bps=bps, overhead_bytes=overhead, losses=[p], delays=[delay], queue=queue
            ),
        )

    return plan


_BUFFER_S = WWAN_MAX_RTT - WWAN_MIN_RTT  # 2.4 s of queue at the link rate

GPRS_3PLUS1 = Preset(
    name="gprs-3plus1",
    title="GPRS '3+1' phone on a commercial network: 39.6 kbit/s down",
    citation=f"{PAPER_003} section 2-3 (testbed, text with Tables 1-2)",
    mtu=1500,
    assumptions=(
        "uplink 13.2 kbit/s: one slot of the '3+1' phone, 39.6/3 (the paper gives only "
        "the downlink)",
        "constant one-way delay 300 ms, half the paper's lowest WWAN latency (600 ms)",
        "a drop-tail buffer of 2.4 s at the link rate (11,880 octets down, 3,960 up), so "
        "a full buffer raises the round trip to about the paper's highest, 3 s; the "
        "paper blames 'large queues in typical WWAN networks'",
        "no framing overhead: 39.6 kbit/s is taken as the rate for IP octets",
        "loss 0 by default: link-layer ARQ hides most losses (section 4.4); set with_loss",
    ),
    loss_knob="independent IP packet loss after the link, each direction",
    plan=_wwan_plan(GPRS_3PLUS1_DOWN_BPS, GPRS_3PLUS1_DOWN_BPS / 3, WWAN_MIN_RTT / 2, _BUFFER_S),
)

CDMA_1X = Preset(
    name="cdma-1x",
    title="CDMA 2000 3G-1X handset: 144 kbit/s down",
    citation=f"{PAPER_003} section 3 and section 5 (Table 10)",
    mtu=1500,
    assumptions=(
        "uplink 144 kbit/s as the downlink (the paper gives only the downlink)",
        "constant one-way delay 300 ms and a 2.4 s drop-tail buffer, as gprs-3plus1: the "
        "paper gives no 3G-1X latency, only that its delay varies more than GPRS's",
        "no framing overhead",
        "loss 0 by default: 'RLP retransmissions ... ensure packet loss probability of "
        "less than 1%' (section 6); set with_loss",
    ),
    loss_knob="independent IP packet loss after the link, each direction",
    plan=_wwan_plan(CDMA_1X_BPS, CDMA_1X_BPS, WWAN_MIN_RTT / 2, _BUFFER_S),
)

DIALUP_56K = Preset(
    name="dialup-56k",
    title="V.90 56 kbit/s dial-up modem (wired comparison)",
    citation=f"{PAPER_003} section 5 (Tables 10 and 11)",
    mtu=1500,
    assumptions=(
        "uplink 33.6 kbit/s, the V.90 upstream maximum",
        "PPP framing, 8 octets per packet (RFC 1662); the modem's own V.42 framing and "
        "compression are ignored",
        "constant one-way delay 60 ms (the paper: RTT variability on dial-up is marginal)",
        "unbounded queue",
        "loss 0 by default: losses 'few and far in between' (section 5)",
    ),
    loss_knob="independent IP packet loss after the link, each direction",
    plan=_wwan_plan(V90_DOWN_BPS, V90_UP_BPS, DIALUP_ONE_WAY, None, PPP_HDLC_OVERHEAD),
)


# --- paper 004: VDELDROP ------------------------------------------------------------------

VDELDROP_PHASE = 10.0  # paper 004 Table 1: "10sec On/Off Drop phase"
VDELDROP_DROP = 0.10  # paper 004 Tables 1-2: drop rates 5%, 10%, 20%, 33%, 50%; 10% default
# Derived, paper 004 Table 1 row 1.2: error-free WWP put 5268495 transport octets on the
# wire in 40.5 s, 1.04 Mbit/s; the paper names no link, so it is taken as the link's rate.
VDELDROP_BPS = 1_040_690
VDELDROP_DELAY_HI = 0.050  # assumed: On-phase delay uniform on [0, 50 ms]


def vdeldrop_stages(p: float, on: PhaseLength, off: PhaseLength) -> tuple[Rate, OnOffLoss]:
    """One direction of VDELDROP: the line, then On/Off phases dropping ``p`` and
    delaying each surviving packet during On (fixed or random phase lengths)."""
    delay = UniformDelay(0.0, VDELDROP_DELAY_HI)
    return Rate(VDELDROP_BPS, ETHERNET_OVERHEAD), OnOffLoss(p, on, off, delay=delay)


def vdeldrop_preset(
    on: float = VDELDROP_PHASE, off: float = VDELDROP_PHASE, p: float = VDELDROP_DROP
) -> Preset:
    """Paper 004's VDELDROP with On and Off phases of ``on`` and ``off`` seconds."""
    checks.positive("on", on)
    checks.positive("off", off)
    checks.probability("p", p)

    def plan(direction: str, loss: float | None) -> Plan:
        drop = p if loss is None else loss
        rate, onoff = vdeldrop_stages(drop, on, off)
        assert onoff.delay is not None
        # Of the packets delivered, the fraction that crossed an On phase (and its delay).
        delivered = 1 - onoff.long_run_loss
        delayed = onoff.on_fraction * (1 - drop) / delivered if delivered > 0 else 1.0
        return Plan(
            [rate, onoff],
            _configured(
                rate_bps=VDELDROP_BPS,
                overhead_bytes=ETHERNET_OVERHEAD,
                losses=[onoff.long_run_loss],
                delays=[onoff.delay],
                delay_active=delayed,
                on_s=on,
                off_s=off,
                on_drop=drop,
            ),
        )

    name = (
        "vdeldrop"
        if (on, off, p) == (VDELDROP_PHASE, VDELDROP_PHASE, VDELDROP_DROP)
        else (f"vdeldrop-{on:g}-{off:g}-{p:g}")
    )
    return Preset(
        name=name,
        title=f"VDELDROP On/Off congestion: {on:g} s On dropping {p:.0%}, {off:g} s Off",
        citation=f"{PAPER_004} section 3 (Implementation & Testing), Tables 1-2",
        mtu=1500,
        assumptions=(
            "link rate 1.04 Mbit/s with Ethernet's 38 octets of framing: the paper gives "
            "none; error-free WWP moved 5268495 octets in 40.5 s (Table 1 row 1.2)",
            "On-phase delay uniform on [0, 50 ms]: the paper says only that the delay "
            "is random and differs per segment",
            "the first phase is On, starting at time 0",
            "VDELDROP acts on both directions, each with its own phase process (the paper "
            "does not say)",
            "phases of fixed length (Table 1: 10 s); Table 2's '4-10 sec' is read as a "
            "sweep of fixed lengths: use vdeldrop_preset(on, off, p)",
        ),
        loss_knob="drop probability during On phases (the paper's 'Drop Rate')",
        plan=plan,
    )


VDELDROP = vdeldrop_preset()


# --- a modern reference link --------------------------------------------------------------

REFERENCE_BPS = 10_000_000  # chosen: 1000 x serial-9k6, so a 1500-octet packet lasts 1.2 ms
REFERENCE_ONE_WAY = 0.050  # chosen: a continental round trip of 100 ms

REFERENCE_10M_50MS = Preset(
    name="ref-10m-50ms",
    title="Reference link: 10 Mbit/s, 50 ms one way, no loss (not from a paper)",
    citation=(
        "no paper: the real-time emulator's accuracy reference, a rate at which one "
        "packet's serialization is about a millisecond, so timer errors show"
    ),
    mtu=1500,
    assumptions=(
        "10 Mbit/s for IP octets (no framing), constant 50 ms one-way delay, both "
        "directions: chosen so the emulator is checked far above the 2003 links' rates",
        "unbounded queue",
        "loss 0 by default; set with_loss",
    ),
    loss_knob="independent IP packet loss after the link, each direction",
    plan=_wwan_plan(REFERENCE_BPS, REFERENCE_BPS, REFERENCE_ONE_WAY, None),
)


# --- serial-9k6-air: paper 000's line, its loss on the air -------------------------------


def _serial_9k6_air(direction: str, loss: float | None) -> Plan:
    p = 0.0 if loss is None else loss
    rate = Rate(SERIAL_BPS, PPP_HDLC_OVERHEAD, bits_per_byte=ASYNC_BITS_PER_BYTE)
    # A frame corrupted on the air has used its line time; its FCS fails at the far end.
    return Plan(
        [rate, BernoulliLoss(p)],
        _configured(
            rate_bps=SERIAL_BPS,
            overhead_bytes=PPP_HDLC_OVERHEAD,
            bits_per_byte=ASYNC_BITS_PER_BYTE,
            losses=[p],
            delays=[],
            ip_bytes_per_s=SERIAL_BPS / ASYNC_BITS_PER_BYTE,
        ),
    )


SERIAL_9K6_AIR = Preset(
    name="serial-9k6-air",
    title="9.6 kbit/s GSM data, frames lost on the air after using the line (not NISTNet)",
    citation=(
        f"{PAPER_000} section 3.1 for the line (as serial-9k6); the loss's place from GSM "
        "05.03 section 3.3 (TCH/F9.6: every frame is sent over the radio whatever "
        "corrupts it) and RFC 1662 section 3.1 (the FCS is checked at the receiver)"
    ),
    mtu=SERIAL_MTU,
    assumptions=(
        "serial-9k6's line: 9.6 kbit/s asynchronous (10 bits per octet), PPP in "
        "HDLC-like framing (8 octets per packet), MTU 1500, no propagation delay, "
        "unbounded queue",
        "loss happens on the air, after the line in both directions: a frame hit by radio "
        "errors was transmitted in full, so it costs line time, and the receiver's FCS "
        "check discards it. Paper 000's NISTNet dropped before the line going down, so a "
        "dropped packet cost none; here no transport can beat C(1-p)",
        "transparent GSM data (no RLP retransmission), errors independent per frame "
        "(Bernoulli); loss 0 by default, set with with_loss(p) as on serial-9k6",
    ),
    loss_knob="frames lost to radio errors after the line, each direction",
    plan=_serial_9k6_air,
)


# --- registry ------------------------------------------------------------------------------

PRESETS: dict[str, Preset] = {
    preset.name: preset
    for preset in (
        SERIAL_9K6,
        _gprs_preset("gprs-one-user", GPRS_ONE_USER, "V", "one user in the cell"),
        _gprs_preset("gprs-busy", GPRS_BUSY, "IV", "busy cell (15 users)"),
        _gprs_preset(
            "gprs-one-user-llc-ack", GPRS_ONE_USER, "V", "one user in the cell", llc_ack=True
        ),
        _gprs_preset("gprs-busy-llc-ack", GPRS_BUSY, "IV", "busy cell (15 users)", llc_ack=True),
        _gprs_preset(
            "gprs-radio-one-user", GPRS_ONE_USER, "V", "one user in the cell", internet=False
        ),
        _gprs_preset("gprs-radio-busy", GPRS_BUSY, "IV", "busy cell (15 users)", internet=False),
        _gprs_preset(
            "gprs-radio-one-user-llc-ack",
            GPRS_ONE_USER,
            "V",
            "one user in the cell",
            llc_ack=True,
            internet=False,
        ),
        _gprs_preset(
            "gprs-radio-busy-llc-ack",
            GPRS_BUSY,
            "IV",
            "busy cell (15 users)",
            llc_ack=True,
            internet=False,
        ),
        INTERNET_2002,
        GPRS_3PLUS1,
        CDMA_1X,
        DIALUP_56K,
        VDELDROP,
        REFERENCE_10M_50MS,
        SERIAL_9K6_AIR,
    )
}
"""Every preset by name."""


def get_preset(name: str) -> Preset:
    """The preset called ``name``; an unknown name is a ``UsageError`` listing the known."""
    try:
        return PRESETS[name]
    except KeyError:
        known = ", ".join(PRESETS)
        raise UsageError(f"unknown link preset {name!r} (known: {known})") from None

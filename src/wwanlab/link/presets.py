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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from wwanlab.core.errors import UsageError
from wwanlab.link import checks
from wwanlab.link.base import Direction, Stage
from wwanlab.link.delay import (
    ConstantDelay,
    DelayDistribution,
    DelaySum,
    TruncatedNormalDelay,
    UniformDelay,
)
from wwanlab.link.gprs_cell import CS2_RATE_BPS, LLC_OVERHEAD, PDCHS
from wwanlab.link.gprs_radio import MULTIFRAME_51, T3182, Outages, RadioModel
from wwanlab.link.loss import BernoulliLoss, OnOffLoss, PhaseLength
from wwanlab.link.queue import DropTailQueue
from wwanlab.link.rate import Rate

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


PlanFn = Callable[..., Plan]
"""(direction, loss override or None, **options) -> a fresh plan."""


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
    switches: dict[str, str] = field(default_factory=dict, compare=False)
    """The options ``with_options`` accepts, each with what it does."""
    options: dict[str, Any] = field(default_factory=dict, compare=False)
    """The options set by ``with_options``, passed to ``plan``."""

    def build(self, direction: str, *, loss: float | None = None) -> Direction:
        """A fresh ``Direction`` for ``"down"`` or ``"up"``, with its own stage state."""
        plan = self._plan(direction, loss)
        return Direction(plan.stages, fifo=plan.fifo)

    def with_loss(self, p: float) -> "Preset":
        """The same link with its loss knob set to ``p``."""
        return dataclasses.replace(self, loss=checks.probability("loss", p))

    def with_options(self, **options: Any) -> "Preset":
        """The same link with some phenomena switched (``switches`` lists them), named
        ``name[key=value,...]``; e.g. ``get_preset("gprs-one-user").with_options(tbf=False)``."""
        unknown = sorted(set(options) - set(self.switches))
        if unknown:
            known = ", ".join(self.switches) or "none"
            raise UsageError(f"preset {self.name!r} has no option {unknown[0]!r} (known: {known})")
        merged = {**self.options, **options}
        base = self.name.split("[", 1)[0]
        label = ",".join(f"{k}={v}" for k, v in sorted(merged.items()))
        return dataclasses.replace(self, name=f"{base}[{label}]", options=merged)

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
            "options": dict(self.options),
            "switches": dict(self.switches),
            "configured": self.configured,
            "assumptions": list(self.assumptions),
        }

    def _plan(self, direction: str, loss: float | None) -> Plan:
        if direction not in DIRECTIONS:
            raise UsageError(f"link direction must be 'down' or 'up', got {direction!r}")
        if loss is not None:
            loss = checks.probability("loss", loss)
        return self.plan(direction, self.loss if loss is None else loss, **self.options)


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
    return _serial_plan(stages, p)


def _serial_plan(stages: list[Stage], p: float) -> Plan:
    """The 9.6 kbit/s serial line's plan, its stages in the order given, loss ``p``."""
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

# --- the GPRS radio's parameters (the model: wwanlab.link.gprs_radio) ---------------------

GPRS_LLC_BPS = PDCHS * CS2_RATE_BPS  # paper 002 V.1: "12 Kbits/s x 4 PDCHs", 48 kbit/s of LLC
RACH_WAIT_MAX = 0.3  # s, paper 002 Table 1: "Max. time waiting for random access attempts
# per frame 0.3 sec"
AGN_WAIT_MAX = 0.1  # s, paper 002 Table 1: "Max. time waiting for an AGN (access grant
# notification) 0.1 sec"
BS_PA_MFRMS = 2  # 3GPP TS 45.002 6.5.6: a mobile in DRX reads its paging block (where the
# network's IMMEDIATE ASSIGNMENT for a new downlink TBF is sent, TS 44.018 3.5.3) once every
# BS_PA_MFRMS 51-multiframes, 2 to 9; the smallest is taken
T3192 = 0.5  # s: the release of a downlink TBF after its last block (TS 44.060 9.3.2.5); the
# operator default of the Huawei BSC parameter reference (500 ms; range 0-1500 ms)
T3192_BAND = (0.5, 1.5)  # s: operators' settings 500-1500 ms (GPRS parameter guide: 500 ms
# terrestrial to 1500 ms satellite-backhauled; BSC reference range up to 1500 ms)
RESELECTION_OUTAGE = (4.0, 5.0)  # s: a cell reselection in packet transfer mode without
# NACC interrupts data 4 to 5 s (Alcatel NACC feature description); 3GPP TR 44.901 puts the
# pre-NACC outage at "a few seconds" and NACC's (Rel-4, after 2003) at 300-700 ms
RESELECTION_RATE = 1 / 600  # per s, assumed: one reselection per 10 min for a terminal on a
# desk (ping-pong between cells of similar level); band 0 to 1/120 s
STALL_RATE = 1 / 600  # per s, assumed: one RLC stall per 10 min; band 0 to 1/120 s

GPRS_SWITCHES = {
    "tbf": "bool: downlink TBF set-up on an idle downlink (CCCH assignment, up to "
    f"{BS_PA_MFRMS} 51-multiframes) and its release T3192 after the last block (default on)",
    "access": "bool: uplink access for every uplink burst: channel request wait up to "
    f"{RACH_WAIT_MAX} s, then access grant up to {AGN_WAIT_MAX} s (default on)",
    "overlap": "bool: the radio latency overlaps between packets (default on); off: it "
    "holds the line, the first presets' serialized radio",
    "llc_retry": "'air' (default): an LLC resend costs the acknowledgement wait plus one "
    "frame on the air; 'full-delay': plus a fresh radio latency (the first presets')",
    "reselection": "bool: cell-reselection outages, "
    f"{RESELECTION_OUTAGE[0]:g}-{RESELECTION_OUTAGE[1]:g} s, Poisson "
    f"{RESELECTION_RATE * 3600:g}/h (default off for paper 002's simulated cell, on for "
    "gprs-3plus1)",
    "stalls": f"bool: RLC stalls of T3182 = {T3182:g} s, Poisson {STALL_RATE * 3600:g}/h "
    "(default as reselection)",
    "t3192": f"float s: the downlink release timer (default {T3192}; band "
    f"{T3192_BAND[0]}-{T3192_BAND[1]})",
    "rate_bps": "float: the radio's rate for this user, both directions (default: the preset's)",
    "buffer_s": "float s or None: the radio buffer as seconds at the rate, drop-tail "
    "(default: the preset's)",
}
"""What ``Preset.with_options`` switches on every GPRS preset; each phenomenon alone."""


def _flag(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise UsageError(f"option {name} must be true or false, got {value!r}")
    return value


def uplink_access() -> DelaySum:
    """An uplink TBF's set-up: the channel request's random wait, then the access grant."""
    return DelaySum(UniformDelay(0.0, RACH_WAIT_MAX), UniformDelay(0.0, AGN_WAIT_MAX))


def downlink_assignment() -> UniformDelay:
    """A downlink TBF's set-up on an idle mobile: the wait for its paging block."""
    return UniformDelay(0.0, BS_PA_MFRMS * MULTIFRAME_51)


@dataclass(frozen=True)
class GprsLink:
    """What one GPRS preset gives its radio; options switch phenomena of it."""

    rate_bps: Mapping[str, float]  # per direction
    overhead_bytes: int
    latency: DelayDistribution
    per: float
    llc_ack: bool = False
    buffer_s: float | None = None
    outages: bool = False

    def model(self, direction: str, loss: float | None, **options: Any) -> RadioModel:
        o = {
            "tbf": True,
            "access": True,
            "overlap": True,
            "llc_retry": "air",
            "reselection": self.outages,
            "stalls": self.outages,
            "t3192": T3192,
            "rate_bps": self.rate_bps[direction],
            "buffer_s": self.buffer_s,
            **options,
        }
        rate = checks.positive("option rate_bps", o["rate_bps"])
        setup: DelayDistribution | None = None
        if direction == "up" and _flag("access", o["access"]):
            setup = uplink_access()
        elif direction == "down" and _flag("tbf", o["tbf"]):
            setup = downlink_assignment()
        outages = []
        if _flag("reselection", o["reselection"]):
            outages.append(
                Outages("reselection", RESELECTION_RATE, UniformDelay(*RESELECTION_OUTAGE))
            )
        if _flag("stalls", o["stalls"]):
            outages.append(Outages("stall", STALL_RATE, ConstantDelay(T3182)))
        buffer = None
        if o["buffer_s"] is not None:
            buffer = math.ceil(rate * checks.positive("option buffer_s", o["buffer_s"]) / 8)
        return RadioModel(
            latency=self.latency,
            per=self.per if loss is None else loss,
            rate_bps=rate,
            overhead_bytes=self.overhead_bytes,
            llc_ack=self.llc_ack,
            llc_retry=o["llc_retry"],
            ack_wait=LLC_ACK_WAIT,
            max_retransmissions=LLC_MAX_RETRANSMISSIONS,
            setup=setup,
            hold=checks.non_negative("option t3192", o["t3192"]) if direction == "down" else 0.0,
            outages=tuple(outages),
            buffer_bytes=buffer,
            overlap=_flag("overlap", o["overlap"]),
        )


def radio_configured(
    model: RadioModel,
    extra_losses: Sequence[float] = (),
    extra_delays: Sequence[DelayDistribution] = (),
) -> dict[str, Any]:
    """What a GPRS radio (and the hops behind it) configured; ``delay_ms`` is the
    steady-state, size-independent delay (the latency), ``setup_ms`` what the first
    packet after idle adds, ``first_packet_delay_ms`` the two together."""
    extra: dict[str, Any] = {
        "frame_loss": model.per,
        "setup_ms": None if model.setup is None else delay_summary([model.setup]),
        "release_s": model.hold if model.setup is not None else None,
        "outages": {
            o.kind: {"per_hour": o.rate * 3600, "mean_s": o.duration.mean} for o in model.outages
        },
        "overlap": model.overlap,
    }
    if model.llc_ack:
        extra["llc_retry"] = model.llc_retry
        extra["llc_retry_mean_ms"] = round(model.retry_mean(GPRS_REFERENCE_PACKET) * 1000, 3)
        added = model.mean_added_delay(GPRS_REFERENCE_PACKET)
        extra["arq_mean_added_delay_ms"] = round(added * 1000, 3) if math.isfinite(added) else None
    if model.setup is not None:
        first = [model.latency, *extra_delays, model.setup]
        extra["first_packet_delay_ms"] = delay_summary(first)
    queue = None if model.buffer_bytes is None else {"bytes": model.buffer_bytes}
    return _configured(
        rate_bps=model.rate_bps,
        overhead_bytes=model.overhead_bytes,
        losses=[model.residual_loss, *extra_losses],
        delays=[model.latency, *extra_delays],
        queue=queue,
        **extra,
    )


def _paper_002_link(radio: GprsRadio, llc_ack: bool) -> GprsLink:
    """The radio of paper 002: LLC rate of V.1, and the rest of the given IP-packet delay
    (its range minus the reference packet's frame time) as latency."""
    frame = (GPRS_REFERENCE_PACKET + LLC_OVERHEAD) * 8 / GPRS_LLC_BPS
    latency = UniformDelay(radio.delay_lo - frame, radio.delay_hi - frame)
    bps = {"down": GPRS_LLC_BPS, "up": GPRS_LLC_BPS}
    return GprsLink(bps, LLC_OVERHEAD, latency, radio.per, llc_ack=llc_ack)


_GPRS_ASSUMPTIONS = (
    "the radio is a rate plus a latency that overlaps between packets "
    "(wwanlab.link.gprs_radio): 48 kbit/s of LLC frames (paper V.1: 12 kbit/s x 4 PDCHs), "
    "10 octets of LLC and SNDCP per IP packet (TS 44.064, TS 44.065), and as latency the "
    "rest of the paper's IP-packet delay: its range minus the 80 ms a 470-octet packet "
    "takes at 48 kbit/s, uniform (one user U(0, 40) ms, busy U(720, 1920) ms). The paper "
    "publishes only the range, not its LLC frame delay histogram",
    "uplink access for every uplink burst (a packet that finds the uplink queue empty): "
    "channel request wait U(0, 0.3 s) then access grant U(0, 0.1 s), paper Table 1's "
    "maxima taken as uniform waits, no collision (grant time-outs are the busy cell's, "
    "link/gprs_cell.py); the uplink TBF ends when its queue empties (countdown, TS 44.060 "
    "9.3.1: no extended uplink TBF before Rel-6)",
    "downlink TBF: set up on an idle downlink by an assignment in the mobile's paging "
    "block, U(0, 2 x 235 ms) (TS 45.002, BS_PA_MFRMS 2), released T3192 = 0.5 s after "
    "the last block (operator default; option t3192 for the 0.5-1.5 s band); the paper "
    "gives neither",
    "each direction's TBFs are independent: an uplink request piggybacked on a downlink "
    "TBF's acknowledgement (concurrent TBFs, TS 44.060 8.1.1.1) is not modelled, so "
    "access is an upper bound; option access=False gives the lower",
    "no cell reselection and no stalls: the paper simulates one cell; options "
    "reselection/stalls switch them on",
    "radio loss is independent per IP packet (Bernoulli) at the paper's PER",
    "the uplink radio (ACKs) has the downlink's rate, latency and PER; the paper describes "
    "only the downlink transfer",
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
    "LLC acknowledged mode: up to 2 retransmissions (paper); each costs the "
    "acknowledgement wait (0.1 s, Table 1) plus one more frame on the air at the radio's "
    "rate (option llc_retry='full-delay': plus a fresh radio latency, the first presets' "
    "cost); frames are delivered in order",
)


def _internet() -> tuple[list[Stage], list[float], list[DelayDistribution]]:
    delay = TruncatedNormalDelay(INTERNET_DELAY_MEAN, INTERNET_DELAY_SD, lo=0.0)
    return [BernoulliLoss(INTERNET_LOSS), delay], [INTERNET_LOSS], [delay]


def gprs_radio_stages(service: DelayDistribution, per: float, llc_ack: bool) -> list[Stage]:
    """A GPRS radio measured as per-packet service times (the emergent busy cell of
    ``gprs_cell``): frames drawn from ``service``, loss at ``per``, or with LLC
    acknowledged mode up to 2 resends each costing the acknowledgement wait plus one
    more service draw on the air."""
    model = RadioModel(
        latency=ConstantDelay(0.0),
        per=per,
        service=service,
        llc_ack=llc_ack,
        ack_wait=LLC_ACK_WAIT,
        max_retransmissions=LLC_MAX_RETRANSMISSIONS,
    )
    return [model.stage()]


def _gprs_plan(link: GprsLink, *, internet: bool) -> PlanFn:
    def plan(direction: str, loss: float | None, **options: Any) -> Plan:
        model = link.model(direction, loss, **options)
        radio = model.stage()
        if not internet:
            return Plan([radio], radio_configured(model))
        net_stages, net_losses, net_delays = _internet()
        core: list[Stage] = [Rate(GGSN_SGSN_BPS), Rate(SGSN_BSS_BPS)]
        if direction == "down":
            stages = [*net_stages, *core, radio]
        else:
            stages = [radio, *core[::-1], *net_stages[::-1]]
        return Plan(stages, radio_configured(model, net_losses, net_delays))

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
        plan=_gprs_plan(_paper_002_link(radio, llc_ack), internet=internet),
        switches=GPRS_SWITCHES,
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

GPRS_3PLUS1_LINK = GprsLink(
    rate_bps={"down": GPRS_3PLUS1_DOWN_BPS, "up": GPRS_3PLUS1_DOWN_BPS / 3},
    overhead_bytes=0,
    latency=ConstantDelay(WWAN_MIN_RTT / 2),
    per=0.0,
    buffer_s=_BUFFER_S,
    outages=True,
)

GPRS_3PLUS1 = Preset(
    name="gprs-3plus1",
    title="GPRS '3+1' phone on a commercial network: 39.6 kbit/s down, TBFs, outages",
    citation=f"{PAPER_003} section 2-3 (testbed, text with Tables 1-2)",
    mtu=1500,
    assumptions=(
        "uplink 13.2 kbit/s: one slot of the '3+1' phone, 39.6/3 (the paper gives only "
        "the downlink)",
        "latency 300 ms each way, half the paper's lowest WWAN latency (600 ms), "
        "overlapping between packets (wwanlab.link.gprs_radio)",
        "uplink access for every uplink burst, U(0, 0.3 s) + U(0, 0.1 s), and downlink TBF "
        "set-up on an idle downlink, U(0, 471 ms), released T3192 = 0.5 s after the last "
        "block: as gprs-one-user (paper 002 Table 1, TS 45.002, an operator default); the "
        "paper describes the first packet of a burst (600 ms to 3 s) but gives no values",
        "cell reselections: outages of U(4, 5) s (pre-NACC networks, vendor and 3GPP TR "
        "44.901 figures) at an assumed 6 per hour; RLC stalls of T3182 = 5 s (TS 44.060) "
        "at an assumed 6 per hour; each ends the TBF, so the next packet sets up a new "
        "one. The paper reports stalls and black-outs without rates; options "
        "reselection=False, stalls=False switch them off",
        "a drop-tail buffer of 2.4 s at the link rate (11,880 octets down, 3,960 up), so "
        "a full buffer raises the round trip to about the paper's highest, 3 s; the "
        "paper blames 'large queues in typical WWAN networks' (option buffer_s)",
        "no framing overhead: 39.6 kbit/s is taken as the rate for IP octets",
        "loss 0 by default: link-layer ARQ hides most losses (section 4.4); set with_loss",
    ),
    loss_knob="independent IP packet loss on the radio, each direction",
    plan=_gprs_plan(GPRS_3PLUS1_LINK, internet=False),
    switches=GPRS_SWITCHES,
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
    return _serial_plan([rate, BernoulliLoss(p)], p)


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
    """The preset called ``name``, or ``base[key=value,...]``: ``base`` with those options
    (``Preset.with_options``; values true/false, none, numbers, or words). An unknown
    name is a ``UsageError`` listing the known."""
    base, bracket, rest = name.partition("[")
    try:
        preset = PRESETS[name if not bracket else base]
    except KeyError:
        known = ", ".join(PRESETS)
        raise UsageError(f"unknown link preset {name!r} (known: {known})") from None
    if not bracket:
        return preset
    if not rest.endswith("]"):
        raise UsageError(f"link preset {name!r}: options must end with ']'")
    options: dict[str, Any] = {}
    for item in filter(None, rest[:-1].split(",")):
        key, eq, value = item.partition("=")
        if not eq:
            raise UsageError(f"link preset {name!r}: option {item!r} is not key=value")
        options[key.strip()] = _option_value(value.strip())
    return preset.with_options(**options)


def _option_value(text: str) -> Any:
    words = {"true": True, "false": False, "none": None}
    if text.lower() in words:
        return words[text.lower()]
    try:
        return float(text)
    except ValueError:
        return text

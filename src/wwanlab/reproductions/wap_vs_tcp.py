"""Reproduction of paper 000 (Ladas, Edwards, Manson, "WAP performance on an end-to-end
scheme"): WSP/WTP class 2 against HTTP/TCP with SACK over a 9.6 kbit/s serial line with
0% and 10% drop in both directions, goodput against file size (Figure 7), and the
protocol efficiency of the two stacks (Figure 6).

Every parameter is the paper's (section 3.1) or a cited default; ``ASSUMPTIONS`` lists
what the paper leaves open. The paper's TCP sender (Windows 2000) is not described, and
on this line the answer depends on its retransmission timer: today's RFC 6298 minimum
RTO of 1 s is shorter than one full packet's 1.57 s on the line, so the HTTP/TCP SACK
curve is a band over plausible senders (``SENDERS``), and each claim about it is judged
per sender. The experiment kind ``wap-vs-tcp`` runs one transfer
(``wwanlab.experiments.transfers``) per run.
"""

import statistics
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wwanlab.energy import energy_columns, on_line
from wwanlab.experiments.reproduction import (
    Claim,
    ClaimPart,
    Context,
    PaperFigure,
    Reproduction,
    ReproductionResult,
    register,
    reproduction_page,
)
from wwanlab.experiments.scenario import Parameter, Row, Scenario, experiment_kind
from wwanlab.experiments.summary import Summary, relative_gain, summarize
from wwanlab.experiments.transfers import (
    PPP_OVERHEAD,
    WTP_SEGMENT_SIZE,
    Transfer,
    http_transfer,
    wap_transfer,
)
from wwanlab.link.presets import ASYNC_BITS_PER_BYTE, SERIAL_BPS, SERIAL_MTU, get_preset
from wwanlab.report import Figure, Params, Table, Text
from wwanlab.report.html import Block
from wwanlab.tcp.config import (
    DELAYED_ACK_TIMEOUT,
    RTO_INITIAL,
    RTO_INITIAL_RFC2988,
    RTO_MIN_RFC,
    TcpConfig,
)
from wwanlab.wap.wtp.timers import (
    L_A_WITH_USER_ACK,
    L_R_WITH_USER_ACK,
    MAX_RCR,
    SAR_GROUP_LEN,
    W_WITH_USER_ACK,
)

NAME = "wap-vs-tcp"
KIND = "wap-vs-tcp"
PAPER = "papers/000 section 3 (Figures 6 and 7)"

# Paper 000 section 3.1: "file sizes ... from 1000 octets to 63500 octets with a steps
# of 1500 octets"; 1000 + 1500k never reaches 63500, so the grid ends with 62500 and the
# paper's 63500 (see ASSUMPTIONS).
SIZES = [*range(1000, 63500, 1500), 63500]
QUICK_SIZES = [*SIZES[::4], 63500]
LOSSES = [0.0, 0.10]  # paper 000 3.1: "without packet drops" and "10% ... both directions"


@dataclass(frozen=True)
class Sender:
    """A plausible TCP sender for the paper's HTTP/TCP: ``TcpConfig`` overrides."""

    label: str
    overrides: dict[str, Any]
    why: str


DEFAULT_SENDER = "rfc6298"
SENDERS = {
    DEFAULT_SENDER: Sender(
        "RFC 6298",
        {},
        f"today's RFCs: initial and minimum RTO {RTO_INITIAL:g} s (RFC 6298 2.1, 2.4), "
        "congestion avoidance by appropriate byte counting (RFC 5681 3.1, RFC 3465)",
    ),
    "2003-rto1": Sender(
        "2003, min RTO 1 s",
        {"rto_initial": RTO_INITIAL_RFC2988, "byte_counting": False},
        f"RFC 2988 (2000), in force in 2003: initial RTO {RTO_INITIAL_RFC2988:g} s (2.1), "
        f"minimum {RTO_MIN_RFC:g} s (2.4); congestion avoidance per ACK (RFC 2581 3.1 "
        "eq. 3): byte counting (RFC 3465, 2003) was experimental",
    ),
    "2003-rto3": Sender(
        "2003, min RTO 3 s",
        {
            "rto_initial": RTO_INITIAL_RFC2988,
            "rto_min": RTO_INITIAL_RFC2988,
            "byte_counting": False,
        },
        f"as the 2003 sender, with the RTO never below its initial "
        f"{RTO_INITIAL_RFC2988:g} s: the slow end of the band, our choice, longer than a "
        "full packet's 1.57 s on this line and most of the next one queued behind it",
    ),
}
BAND_VARIANT = "sack"  # the paper's TCP; Reno and NewReno stay references at RFC 6298
REFERENCE_VARIANTS = ("reno", "newreno")


def http_protocol(variant: str, sender: str = DEFAULT_SENDER) -> str:
    """``http-<variant>`` for the RFC 6298 sender, ``http-<variant>/<sender>`` otherwise."""
    return f"http-{variant}" + ("" if sender == DEFAULT_SENDER else f"/{sender}")


def sender_of(protocol: str) -> str:
    """The sender of an ``http-...`` protocol name."""
    return protocol.partition("/")[2] or DEFAULT_SENDER


BAND = [http_protocol(BAND_VARIANT, s) for s in SENDERS]
"""The HTTP/TCP SACK curves, one per sender, default first."""
PROTOCOLS = ["wap", *BAND, *(http_protocol(v) for v in REFERENCE_VARIANTS)]
VARIANT_LABELS = {"sack": "SACK", "reno": "Reno", "newreno": "NewReno"}


def label(protocol: str) -> str:
    """``WSP/WTP``, ``HTTP/TCP SACK``, ``HTTP/TCP SACK (2003, min RTO 3 s)``..."""
    if protocol == "wap":
        return "WSP/WTP"
    base, _, sender = protocol.removeprefix("http-").partition("/")
    name = f"HTTP/TCP {VARIANT_LABELS[base]}"
    return f"{name} ({SENDERS[sender].label})" if sender else name


REPETITIONS = 30  # the issue asks at least 20 per point
QUICK_REPETITIONS = 10
SEED = 2002  # the paper's year

# The serial line carries 9600 / 10 = 960 octets/s (start and stop bits): C in bit/s of
# IP octets. The ideal goodput bound at drop p is C * (1 - p).
CAPACITY_BPS = SERIAL_BPS / ASYNC_BITS_PER_BYTE * 8

# Paper 000 section 3.2, the numbers the text gives (the figures themselves did not
# survive extraction; no table is published).
PAPER_GAIN_RANGE = (16.0, 107.0)  # % goodput gain of WAP over HTTP/TCP at 10% loss
PAPER_WTP_KNEE = 12_000  # octets: "WTP becomes stable more quickly at 12Kb file size"
PAPER_TCP_KNEE = 35_000  # octets: TCP "stabilises only after file sizes of at least 35Kb"
PAPER_SMALL_GAIN = 5.0  # %: "the efficiency gain for small files can reach up to 5%"
PAPER_LARGE_GAIN = 1.0  # %: "for large ones (above 20Kbytes) it converges to 1%"
LARGE_FILE = 20_000  # octets: "large ones (above 20Kbytes)"

# Energy (ours; the paper measures none): the client's own packets charged to the radio
# model of GSM handsets (wwanlab.energy "gprs": Balasubramanian et al.'s GSM numbers),
# each on the air for its time on the serial line.
RADIOS = ("gprs",)
SERIAL = get_preset("serial-9k6")
AIRTIME = on_line(SERIAL.build("up").stages, SERIAL.build("down").stages)

STABLE_FRACTION = 0.9  # a curve is stable from the size where it stays >= 90% of plateau
PLATEAU_FROM = 50_000  # octets: the plateau is the mean goodput of sizes at or above this

ASSUMPTIONS = [
    "Link: preset serial-9k6 (paper 000 3.1): 9.6 kbit/s asynchronous serial, 10 bits per "
    "octet, PPP framing 8 octets per packet, no propagation delay, unbounded queue, MTU 1500; "
    "NISTNet's drop as independent Bernoulli loss, before the serial line downstream and "
    "after it upstream. The Ethernet between the sniffer, NISTNet and the server is modelled "
    "as instant (it is about a thousand times faster than the serial line).",
    "Ideal bound C*(1-p) with C = 7680 bit/s: the 960 octets/s the asynchronous line "
    "carries, counted in IP octets.",
    "File sizes 1000, 2500, ..., 62500 and 63500 octets: the paper's 'from 1000 to 63500 "
    "in steps of 1500' cannot hit both ends, so the grid keeps the steps and adds the end.",
    "Files are random octets (the paper: 'a raw data stream that cannot be compacted').",
    "Measured time: from the client's first packet (WSP Connect / TCP SYN) to the end of "
    "the teardown at the client: for WAP when the Disconnect (WTP class 0, unacknowledged) "
    "has left the client's serial line, for HTTP when the client's TCP has sent and seen "
    "acknowledged both FINs. Goodput = file size * 8 / that time.",
    "WAP: the project's WSP ClientSession and WspServer with their default capabilities "
    "(SDU sizes 358400, Session Resume, Method-MOR 1 proposed): Connect, one Get, "
    "Disconnect, over WTP class 2 with the U/P flag set (the client acknowledges each "
    "result at once); a 200 reply with Content-Type application/octet-stream, which WSP "
    "carries as text (it has no well-known code).",
    "WTP explicit acknowledgement (paper 000 2.2, Figure 3a, 3.1): the server's WTP runs "
    "with WtpConfig(explicit_ack=True), so the Ack of a method's invoke leaves at once, "
    "when WspServer acknowledges the method (TR-Invoke.res), ahead of the Result; the web "
    "server answers at once; the server answers Connect at once, so ConnectReply "
    "acknowledges the Connect implicitly.",
    f"WTP timers and SAR: Kannel 1.4.5's values for IP bearers (WTP Appendix A): retry "
    f"interval R = {L_R_WITH_USER_ACK:g} s, acknowledgement interval A = "
    f"{L_A_WITH_USER_ACK:g} s at both ends, wait timeout W = {W_WITH_USER_ACK:g} s, "
    f"MAX_RCR = {MAX_RCR}; packet groups of {SAR_GROUP_LEN} (Kannel; the paper: 'the size "
    f"of each group is implementation specific'); segments of {WTP_SEGMENT_SIZE} octets of "
    f"user data so that a packet fills the paper's MTU of {SERIAL_MTU} octets.",
    f"TCP: the project's sans-IO TCP (the paper names only SACK): MSS 1460 (MTU 1500), "
    f"initial window RFC 5681 (3 segments), delayed ACK {DELAYED_ACK_TIMEOUT:g} s (RFC "
    "1122), Nagle on, receive window 65535, no timestamps; SACK recovery per RFC 6675 "
    "(Reno RFC 5681 and NewReno RFC 6582 for reference, with today's RFC timers).",
    "TCP's retransmission timer, which the paper does not give, decides the HTTP/TCP "
    "curves on this line: after the handshake's 0.12 s RTT sample RFC 6298 clamps the "
    f"RTO to its {RTO_MIN_RFC:g} s minimum, shorter than one full packet's 1.57 s on the "
    "line, so a loss-free transfer has several spurious RTOs (ns-3 with the same settings "
    "agrees). The paper's Windows 2000 sender is not described, so HTTP/TCP SACK runs as "
    "a band of senders and each claim about it is judged per sender: "
    + "; ".join(f"{s.label}: {s.why}" for s in SENDERS.values())
    + ".",
    "HTTP: HTTP/1.0 (RFC 1945), one GET per connection, the server closes after the "
    "response; request and response headers as the project's HTTP client and origin write "
    "them (Host; Content-Type, Content-Length).",
    "Efficiency (Figure 6): file octets over all octets the loss-free exchange puts on the "
    "serial line (IP packets plus PPP framing, set-up, request, acknowledgements and "
    "teardown included), counted by running the same exchange on an instant line so that "
    "no timer fires; 'gain' is WAP's efficiency minus HTTP/TCP's in percentage points.",
    f"Stability (the knee of Figure 7): a curve is stable from the smallest file size from "
    f"which no larger size has its 95% interval entirely below {STABLE_FRACTION:.0%} of the "
    f"plateau, the mean goodput of files of {PLATEAU_FROM} octets and more (the paper does "
    "not define 'stable').",
    "Energy (ours; the paper measures none): the client's own packets (a tap on the "
    "client host: what it sent, what reached it) charged to wwanlab.energy's 'gprs' "
    "radio model, whose tail and absence of promotion are Balasubramanian et al.'s GSM "
    "measurements (IMC 2009) and whose powers are assumed (docs/energy.md). A packet is "
    "on the air for its time on the serial line (10 bits per octet plus PPP framing), "
    "sends queued behind each other; the 6 s tail after the teardown is charged. The "
    "paper's line stands for a GSM data call, whose channel a real handset holds for "
    "the whole call: the model charges the tail between packets instead. Joules per MB "
    "of the file (MB = 1048576 octets), over the completed runs.",
    "Confidence intervals: 95% Student t intervals of the mean over the repetitions; a "
    "gain's interval by the delta method from the two means' standard errors.",
]


# --- the experiment kind ---------------------------------------------------------------


def transfer(protocol: str, size: int, loss: float, seed: int) -> Transfer:
    """One run of ``protocol`` (``wap``, ``http-<variant>`` or ``http-<variant>/<sender>``)."""
    if protocol == "wap":
        return wap_transfer(size, loss, seed)
    variant, _, sender = protocol.removeprefix("http-").partition("/")
    sender = sender or DEFAULT_SENDER
    if protocol.startswith("http-") and sender in SENDERS:
        config = TcpConfig.for_variant(variant, **SENDERS[sender].overrides)
        return http_transfer(size, loss, seed, variant=variant, tcp=config)
    raise ValueError(f"unknown protocol {protocol!r} (known: {', '.join(PROTOCOLS)})")


PARAMETERS = {
    "link.preset": Parameter(str, choices=("serial-9k6",)),  # the only line paper 000 used
    "link.overrides.loss": Parameter(float, minimum=0.0, maximum=1.0),
    "stack.protocol": Parameter(str, required=True, choices=PROTOCOLS),
    "workload.size": Parameter(int, required=True, minimum=1),
}
"""What the kind reads; a scenario of this kind is checked against it when built."""


@experiment_kind(KIND, PARAMETERS)
def run_one(params: dict[str, Any], seed: int) -> list[Row]:
    """One file transfer; parameters ``stack.protocol``, ``workload.size`` and
    ``link.overrides.loss``."""
    result = transfer(
        str(params["stack.protocol"]),
        int(params["workload.size"]),
        float(params.get("link.overrides.loss", 0.0)),
        seed,
    )
    row = result.row()
    del row["protocol"], row["size"]
    delivered = result.size if result.complete else None
    return [{**row, **energy_columns(result.radio, AIRTIME, delivered, RADIOS)}]


def scenario(quick: bool) -> Scenario:
    return Scenario(
        name=NAME.replace("-", "_") + ("_quick" if quick else ""),
        kind=KIND,
        params={"link.preset": "serial-9k6"},
        sweep={
            "link.overrides.loss": LOSSES,
            "stack.protocol": PROTOCOLS,
            "workload.size": QUICK_SIZES if quick else SIZES,
        },
        repetitions=QUICK_REPETITIONS if quick else REPETITIONS,
        seed=SEED,
        description="Paper 000: WSP/WTP vs HTTP/TCP goodput over a 9.6 kbit/s serial line",
    )


# --- statistics ----------------------------------------------------------------------------


COUNTERS = ("timeouts", "retransmissions", "naks")
"""Per-run counters averaged per point (over every run, completed or not)."""

Curves = dict[tuple[str, float], dict[int, Summary]]
"""Per (protocol, loss): per file size, the goodput summary of its runs."""


def summarize_curves(rows: Sequence[Row]) -> Curves:
    """Per (protocol, loss) and size: the mean goodput of the completed runs, 95% CI."""
    groups = summarize(
        rows,
        by=("stack.protocol", "link.overrides.loss", "workload.size"),
        value="goodput_bps",
        complete="complete",
        means=COUNTERS,
    )
    curves: Curves = defaultdict(dict)
    for key, point in groups.items():
        protocol, loss, size = key
        assert isinstance(loss, float) and isinstance(size, int)
        curves[(str(protocol), loss)][size] = point
    return dict(curves)


ENERGY = "j_per_mb_gprs"


def summarize_energy(rows: Sequence[Row]) -> Curves:
    """Per (protocol, loss) and size: the mean joules per MB of the completed runs."""
    groups = summarize(
        rows,
        by=("stack.protocol", "link.overrides.loss", "workload.size"),
        value=ENERGY,
        complete="complete",
    )
    curves: Curves = defaultdict(dict)
    for (protocol, loss, size), point in groups.items():
        assert isinstance(loss, float) and isinstance(size, int)
        curves[(str(protocol), loss)][size] = point
    return dict(curves)


@dataclass(frozen=True)
class SizeGain:
    size: int
    percent: float
    half_width: float


def gains(curves: Curves, loss: float, tcp_protocol: str = BAND[0]) -> list[SizeGain]:
    """WAP's goodput over ``tcp_protocol``'s, in %, per size, with a delta-method interval."""
    wap, tcp = curves[("wap", loss)], curves[(tcp_protocol, loss)]
    out = []
    for size in sorted(wap):
        gain = relative_gain(wap[size], tcp[size])
        out.append(SizeGain(size, gain.percent, gain.half_width))
    return out


def knee(curve: dict[int, Summary]) -> int:
    """The smallest size from which no point is significantly below 90% of the plateau
    (its whole 95% interval under it)."""
    sizes = sorted(curve)
    plateau = statistics.fmean(curve[s].mean for s in sizes if s >= PLATEAU_FROM)
    stable = sizes[-1]
    for size in reversed(sizes):
        point = curve[size]
        if point.mean + point.half_width < STABLE_FRACTION * plateau:
            break
        stable = size
    return stable


# --- Figure 6: efficiency ----------------------------------------------------------------


def efficiency(sizes: Sequence[int]) -> dict[str, list[float]]:
    """File octets / serial-line octets of each loss-free exchange (in %), per size."""
    out: dict[str, list[float]] = {"wap": [], "http-sack": []}
    for size in sizes:
        for protocol, run in (("wap", wap_transfer), ("http-sack", http_transfer)):
            result = run(size, 0.0, SEED, ideal=True)
            out[protocol].append(100 * size / result.wire_bytes)
    return out


# --- claims -------------------------------------------------------------------------------


def _kb(octets: int) -> str:
    return f"{octets / 1000:g} KB"


def claims(curves: Curves, eff: dict[str, list[float]], sizes: Sequence[int]) -> list[Claim]:
    out: list[Claim] = []
    diff = [w - t for w, t in zip(eff["wap"], eff["http-sack"], strict=True)]
    large = [d for s, d in zip(sizes, diff, strict=True) if s > LARGE_FILE]
    out.append(
        Claim(
            claim="WAP is always more efficient in terms of protocol overhead (Figure 6)",
            paper="WAP efficiency above HTTP/TCP's at every file size",
            ours=f"WAP ahead at {sum(d > 0 for d in diff)} of {len(diff)} sizes "
            f"(gain {min(diff):.2f} to {max(diff):.2f} points)",
            holds=all(d > 0 for d in diff),
        )
    )
    out.append(
        Claim(
            claim="the efficiency gain for small files can reach up to 5%, whereas for large "
            "ones (above 20Kbytes) it converges to 1% (Figure 6)",
            paper=f"up to {PAPER_SMALL_GAIN:g}% small; ~{PAPER_LARGE_GAIN:g}% above 20 KB",
            ours=f"{diff[0]:.2f} points at {_kb(sizes[0])}; {min(large):.2f} to "
            f"{max(large):.2f} above 20 KB",
            holds=diff[0] <= PAPER_SMALL_GAIN + 0.5 and max(large) < 2 * PAPER_LARGE_GAIN,
        )
    )
    band = [p for p in BAND if (p, 0.0) in curves]
    out.append(lossless_claim(curves, band))
    out.append(gain_claim(curves, band))
    out.append(knee_claim(curves, band))
    return out


def _pct(x: float) -> str:
    """A signed whole percentage; a rounded zero is "+0%", never "-0%"."""
    return f"{round(x) + 0:+d}%"


def _range(gs: Sequence[SizeGain]) -> str:
    return f"{_pct(min(g.percent for g in gs))} to {_pct(max(g.percent for g in gs))}"


def _rtos(curves: Curves, protocol: str, loss: float) -> float:
    return statistics.fmean(p.means["timeouts"] for p in curves[(protocol, loss)].values())


def lossless_claim(curves: Curves, band: Sequence[str]) -> Claim:
    parts = []
    for tcp in band:
        lossless = gains(curves, 0.0, tcp)
        ahead = sum(g.percent > 0 for g in lossless)
        parts.append(
            ClaimPart(
                f"against {SENDERS[sender_of(tcp)].label}",
                ahead == len(lossless),
                f"WAP ahead at {ahead} of {len(lossless)} sizes, by {_range(lossless)}; "
                f"TCP {_rtos(curves, tcp, 0.0):.1f} RTOs per transfer",
            )
        )
    return Claim.of_parts(
        "For the error-less comparison WAP achieves higher goodput than the typical "
        "HTTP/TCP (Figure 7)",
        "WAP above HTTP/TCP at 0% drop",
        f"WAP ahead at every size against {sum(p.holds for p in parts)} of {len(parts)} "
        "TCP senders",
        parts,
    )


def gain_claim(curves: Curves, band: Sequence[str]) -> Claim:
    low, high = PAPER_GAIN_RANGE
    parts = []
    for tcp in band:
        lossy = gains(curves, 0.10, tcp)
        inside = [
            g
            for g in lossy
            if g.percent + g.half_width >= low and g.percent - g.half_width <= high
        ]
        lo_g = min(lossy, key=lambda g: g.percent)
        hi_g = max(lossy, key=lambda g: g.percent)
        parts.append(
            ClaimPart(
                f"against {SENDERS[sender_of(tcp)].label}",
                len(inside) == len(lossy),
                f"{_pct(lo_g.percent)} ±{lo_g.half_width:.0f} ({_kb(lo_g.size)}) to "
                f"{_pct(hi_g.percent)} ±{hi_g.half_width:.0f} ({_kb(hi_g.size)}); "
                f"{len(inside)} of {len(lossy)} sizes' 95% CIs meet the band",
            )
        )
    return Claim.of_parts(
        "the recovery mechanism of WTP improves the goodput of the connection radically at "
        "rates of between 16% and 107%. These depend on the file size. (10% drop, Figure 7)",
        f"+{low:g}% to +{high:g}%",
        f"the gain within the paper's range at every size against "
        f"{sum(p.holds for p in parts)} of {len(parts)} TCP senders",
        parts,
    )


def knee_claim(curves: Curves, band: Sequence[str]) -> Claim:
    step = 1500  # one grid step of tolerance either side of the paper's sizes
    wtp_knee = knee(curves[("wap", 0.10)])
    parts = [
        ClaimPart(
            "WTP knee",
            wtp_knee <= PAPER_WTP_KNEE + step,
            f"{_kb(wtp_knee)} ≤ {_kb(PAPER_WTP_KNEE + step)}",
        )
    ]
    knees = {tcp: knee(curves[(tcp, 0.10)]) for tcp in band}
    for tcp, tcp_knee in knees.items():
        holds = tcp_knee >= PAPER_TCP_KNEE - step
        parts.append(
            ClaimPart(
                f"TCP knee ({SENDERS[sender_of(tcp)].label})",
                holds,
                f"{_kb(tcp_knee)} {'≥' if holds else '<'} {_kb(PAPER_TCP_KNEE - step)}",
            )
        )
    first = sum(wtp_knee < k for k in knees.values())
    return Claim.of_parts(
        "WTP becomes stable more quickly at 12Kb file size ... TCP stabilises only after "
        "file sizes of at least 35Kb (10% drop, Figure 7)",
        f"WTP {_kb(PAPER_WTP_KNEE)}, TCP >= {_kb(PAPER_TCP_KNEE)}",
        f"WTP {_kb(wtp_knee)}; TCP {', '.join(_kb(k) for k in knees.values())} "
        f"(none after it significantly below {STABLE_FRACTION:.0%} of files >= "
        f"{_kb(PLATEAU_FROM)}); WTP stable first against {first} of {len(knees)} senders",
        parts,
    )


# --- findings ----------------------------------------------------------------------------

# One full packet on the line: 1500 IP octets + 8 PPP octets, 10 bits each at 9600 bit/s.
PACKET_LINE_TIME = (SERIAL_MTU + PPP_OVERHEAD) * ASYNC_BITS_PER_BYTE / SERIAL_BPS


def findings(curves: Curves) -> list[str]:
    """What the counters say about the curves' shapes, in numbers from this run."""

    def mean(protocol: str, loss: float, attr: str) -> float:
        return statistics.fmean(p.means[attr] for p in curves[(protocol, loss)].values())

    return [
        f"Without loss HTTP/TCP SACK times out {mean('http-sack', 0.0, 'timeouts'):.1f} times "
        f"and resends {mean('http-sack', 0.0, 'retransmissions'):.1f} segments per transfer "
        f"(mean over file sizes); WSP/WTP {mean('wap', 0.0, 'timeouts'):.1f} times. TCP's RTO "
        f"is clamped to RFC 6298's {RTO_MIN_RFC:g} s minimum after the handshake's RTT sample "
        f"(about 0.12 s), but one full packet takes {PACKET_LINE_TIME:.2f} s on the line and "
        "the initial window of three queues behind it, so the first RTOs are spurious; the "
        "go-back-N refill queues more, and the RTO fires again before the estimator catches up.",
        f"At 10% drop WTP's retry timer R ({L_R_WITH_USER_ACK:g} s) expires "
        f"{mean('wap', 0.10, 'timeouts'):.1f} times per transfer (NAKs: "
        f"{mean('wap', 0.10, 'naks'):.1f}; HTTP/TCP SACK RTOs: "
        f"{mean('http-sack', 0.10, 'timeouts'):.1f}). A NAK repairs a packet lost inside a "
        "group within one round trip, but a lost last packet of a group, a lost group Ack or "
        "a lost NAK or resent packet waits for R, as long as "
        f"{L_R_WITH_USER_ACK / PACKET_LINE_TIME:.1f} full packets on the line; the number of "
        "groups, and so of such stalls, grows with the file size.",
        *band_findings(curves),
    ]


def energy_finding(energy: Curves) -> str:
    """Joules per MB of the largest file, WAP against the default TCP sender, per drop."""
    largest = max(energy[("wap", 0.0)])

    def point(protocol: str, loss: float) -> str:
        p = energy[(protocol, loss)][largest]
        return f"{label(protocol)} {p.mean:.0f} ± {p.half_width:.0f}"

    said = [
        f"{loss:.0%} drop: {point('wap', loss)}, {point(BAND[0], loss)}"
        for loss in LOSSES
        if ("wap", loss) in energy and (BAND[0], loss) in energy
    ]
    return (
        f"Radio energy at the client (ours, GPRS/GSM model) for the {_kb(largest)} file, in "
        "J/MB with 95% intervals: " + "; ".join(said) + "."
    )


def band_findings(curves: Curves) -> list[str]:
    """How the TCP senders of the band differ: RTOs without loss, goodput at the end."""
    band = [p for p in BAND if (p, 0.0) in curves]
    if len(band) < 2:
        return []
    largest = max(curves[("wap", 0.0)])
    said = []
    for tcp in band:
        ends = [curves[(tcp, loss)][largest].mean for loss in LOSSES]
        said.append(
            f"{SENDERS[sender_of(tcp)].label}: {_rtos(curves, tcp, 0.0):.1f} RTOs per "
            f"loss-free transfer, {ends[0]:.0f} and {ends[1]:.0f} bit/s at "
            f"{_kb(largest)} with 0% and 10% drop"
        )
    wap = [curves[("wap", loss)][largest].mean for loss in LOSSES]
    return [
        "The TCP band (HTTP/TCP SACK per sender): "
        + "; ".join(said)
        + f". WSP/WTP: {wap[0]:.0f} and {wap[1]:.0f} bit/s. An RTO that covers a full "
        "packet's time on the line removes the spurious timeouts and with them most of "
        "WAP's loss-free lead."
    ]


# --- figures ---------------------------------------------------------------------------------


SENDER_MARKERS = {"rfc6298": "o", "2003-rto1": "s", "2003-rto3": "^"}


def figure7(curves: Curves, path: Path) -> Path:
    """(a) Goodput against file size: WSP/WTP, the HTTP/TCP SACK band over senders (each
    sender's means marked), Reno and NewReno for reference, the ideal bounds and the
    paper's knees; (b) WAP's gain over each sender at 10% drop, with the paper's range."""
    from matplotlib.figure import Figure as MplFigure

    from wwanlab.report.plots import PAPER_COLOUR, PAPER_SHADE, loss_style, protocol_colour, save

    fig = MplFigure(figsize=(9, 12), dpi=100)
    ax, gain_ax = fig.subplots(2, 1, height_ratios=(4, 2))
    for loss in LOSSES:
        style = loss_style(loss)
        wap = curves[("wap", loss)]
        sizes = sorted(wap)
        ax.errorbar(
            sizes,
            [wap[x].mean for x in sizes],
            yerr=[wap[x].half_width for x in sizes],
            linestyle=style,
            marker="o",
            markersize=3,
            capsize=2,
            color=protocol_colour("wap"),
            label=f"{label('wap')}, {loss:.0%} drop",
        )
        band = [p for p in BAND if (p, loss) in curves]
        means = [[curves[(p, loss)][x].mean for x in sizes] for p in band]
        colour = protocol_colour(http_protocol(BAND_VARIANT))
        if len(band) > 1:
            ax.fill_between(
                sizes,
                list(map(min, *means)),
                list(map(max, *means)),
                color=colour,
                alpha=0.15,
                linewidth=0,
                label=f"HTTP/TCP SACK band over senders, {loss:.0%} drop",
            )
        for p, ys in zip(band, means, strict=True):
            ax.plot(
                sizes,
                ys,
                linestyle=style,
                marker=SENDER_MARKERS[sender_of(p)],
                markersize=3,
                linewidth=1,
                color=colour,
                label=f"{label(p)}, {loss:.0%}",
            )
        for variant in REFERENCE_VARIANTS:
            ref = curves.get((http_protocol(variant), loss))
            if ref is not None:
                ax.plot(
                    sizes,
                    [ref[x].mean for x in sizes],
                    linestyle=style,
                    linewidth=0.8,
                    alpha=0.6,
                    color=protocol_colour(http_protocol(variant)),
                    label=f"{label(http_protocol(variant))}, {loss:.0%} (reference)",
                )
        ax.axhline(
            CAPACITY_BPS * (1 - loss),
            color="grey",
            linewidth=0.8,
            linestyle=style,
            label=f"ideal C(1-p), p = {loss:.0%}",
        )
    for x, what in ((PAPER_WTP_KNEE, "WTP stable from 12 KB"), (PAPER_TCP_KNEE, "TCP from 35 KB")):
        ax.axvline(x, color=PAPER_COLOUR, linewidth=1, linestyle=(0, (1, 2)))
        ax.text(
            x,
            300,
            f" paper: {what} (10%)",
            rotation=90,
            fontsize=7,
            va="bottom",
            color=PAPER_COLOUR,
        )
    ax.plot([], [], color=PAPER_COLOUR, linestyle=(0, (1, 2)), label="paper (knees, 10% drop)")
    rfc = curves.get((BAND[0], 0.0))
    if rfc is not None:
        x = sorted(rfc)[len(rfc) // 3]
        ax.annotate(
            f"RFC 6298: min RTO {RTO_MIN_RFC:g} s < {PACKET_LINE_TIME:.2f} s per full packet "
            "on the line:\nspurious RTOs without loss",
            xy=(x, rfc[x].mean),
            xytext=(x + 12_000, 1200),
            fontsize=7,
            arrowprops={"arrowstyle": "->", "linewidth": 0.8},
        )
    ax.set_xlabel("file size (octets)")
    ax.set_ylabel("goodput (bit/s)")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.08))
    ax.set_title("(a) Goodput against file size (paper 000 Figure 7), 95% CIs")
    low, high = PAPER_GAIN_RANGE
    gain_ax.axhspan(low, high, color=PAPER_SHADE, label=f"paper: +{low:g}% to +{high:g}%")
    gain_ax.axhline(0, color="grey", linewidth=0.8)
    colour = protocol_colour(http_protocol(BAND_VARIANT))
    for p in BAND:
        if (p, 0.10) not in curves:
            continue
        gs = gains(curves, 0.10, p)
        gain_ax.errorbar(
            [g.size for g in gs],
            [g.percent for g in gs],
            yerr=[g.half_width for g in gs],
            marker=SENDER_MARKERS[sender_of(p)],
            markersize=3,
            capsize=2,
            linewidth=1,
            color=colour,
            linestyle=loss_style(0.10),
            label=f"WAP over {label(p)}",
        )
    gain_ax.set_xlabel("file size (octets)")
    gain_ax.set_ylabel("WAP goodput gain (%)")
    gain_ax.grid(True, alpha=0.3)
    gain_ax.legend(fontsize=7)
    gain_ax.set_title("(b) WAP's gain over HTTP/TCP SACK at 10% drop, 95% CIs")
    fig.tight_layout()
    return save(fig, path)


def figure6(sizes: Sequence[int], eff: dict[str, list[float]], path: Path) -> Path:
    """(a) Efficiency of both loss-free exchanges; (b) WAP's lead in points, with the
    paper's "up to 5%" for small files and "converges to 1%" above 20 KB."""
    from matplotlib.figure import Figure as MplFigure

    from wwanlab.report.plots import PAPER_COLOUR, loss_style, protocol_colour, save

    fig = MplFigure(figsize=(8, 7), dpi=100)
    ax, gain_ax = fig.subplots(2, 1)
    for protocol, ys in eff.items():
        ax.plot(
            sizes,
            ys,
            marker="o",
            markersize=3,
            color=protocol_colour(protocol),
            linestyle=loss_style(0.0),
            label=label(protocol),
        )
    ax.set_ylabel("efficiency (%)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title("(a) Protocol efficiency of the loss-free exchange (paper 000 Figure 6)")
    diff = [w - t for w, t in zip(eff["wap"], eff[BAND[0]], strict=True)]
    gain_ax.plot(
        sizes,
        diff,
        marker="o",
        markersize=3,
        color=protocol_colour("wap"),
        label="ours: WAP minus HTTP/TCP",
    )
    gain_ax.plot(
        [sizes[0]],
        [PAPER_SMALL_GAIN],
        marker="x",
        markersize=9,
        linestyle="",
        color=PAPER_COLOUR,
        label=f"paper: up to {PAPER_SMALL_GAIN:g}% (small files)",
    )
    gain_ax.hlines(
        PAPER_LARGE_GAIN,
        LARGE_FILE,
        sizes[-1],
        color=PAPER_COLOUR,
        linestyle="--",
        label=f"paper: converges to {PAPER_LARGE_GAIN:g}% above 20 KB",
    )
    gain_ax.set_xlabel("file size (octets)")
    gain_ax.set_ylabel("efficiency gain (points)")
    gain_ax.set_ylim(bottom=0)
    gain_ax.grid(True, alpha=0.3)
    gain_ax.legend(fontsize=8)
    gain_ax.set_title("(b) WAP's efficiency gain")
    fig.tight_layout()
    return save(fig, path)


# --- the reproduction -------------------------------------------------------------------------


def body(ctx: Context) -> ReproductionResult:
    sc = scenario(ctx.quick)
    rows = ctx.execute(sc)
    curves = summarize_curves(rows)
    energy = summarize_energy(rows)
    sizes = QUICK_SIZES if ctx.quick else SIZES
    eff = efficiency(sizes)
    found = claims(curves, eff, sizes)
    table = [
        {
            "protocol": label(protocol),
            "drop": loss,
            "size": size,
            "n": p.n,
            "failed": p.failed,
            "goodput_bps": round(p.mean, 1),
            "ci95_bps": round(p.half_width, 1),
            **{c: round(p.means[c], 2) for c in COUNTERS},
            "j_per_mb_gprs": round(energy[(protocol, loss)][size].mean, 1),
            "ci95_j_per_mb": round(energy[(protocol, loss)][size].half_width, 1),
        }
        for (protocol, loss), curve in sorted(curves.items())
        for size, p in sorted(curve.items())
    ]
    eff_rows = [
        {
            "size": s,
            "wap_%": round(w, 3),
            "http_tcp_%": round(t, 3),
            "gain_points": round(w - t, 3),
        }
        for s, w, t in zip(sizes, eff["wap"], eff[BAND[0]], strict=True)
    ]
    lost = "Figure {n} did not survive text extraction; "
    figures = [
        PaperFigure(
            "Figure 7: goodput",
            Figure(
                figure7(curves, ctx.figure_path("goodput.png")),
                "(a) Goodput against file size, means with 95% CIs; HTTP/TCP SACK as a band "
                "over the TCP senders (markers: o RFC 6298, s 2003 min RTO 1 s, ^ 2003 min "
                "RTO 3 s). (b) WAP's gain over each sender at 10% drop. Black: the paper.",
            ),
            lost.format(n=7) + "its text gives the knees (WTP stable from 12 KB, TCP only "
            f"after at least 35 KB, at 10% drop), drawn as dotted verticals in (a), and WAP's "
            f"gain of +{PAPER_GAIN_RANGE[0]:g}% to +{PAPER_GAIN_RANGE[1]:g}% at 10% drop, "
            "the grey band in (b).",
            Table.from_rows(table, caption="Per point: mean goodput and mean counts"),
        ),
        PaperFigure(
            "Figure 6: efficiency",
            Figure(
                figure6(sizes, eff, ctx.figure_path("efficiency.png")),
                "(a) Efficiency of the loss-free exchange; (b) WAP's lead in points. "
                "Black: the paper.",
            ),
            lost.format(n=6) + f"its text gives WAP's efficiency gain, up to "
            f"{PAPER_SMALL_GAIN:g}% for small files and converging to {PAPER_LARGE_GAIN:g}% "
            "above 20 KB, drawn in (b) as a cross and a dashed line.",
            Table.from_rows(eff_rows, caption="Efficiency per file size"),
        ),
    ]
    setup: list[Block] = [
        Text(
            "A client on a 9.6 kbit/s serial line fetches one binary file from a content "
            "server, by WSP over WTP class 2 (SAR groups, NAKs, explicit acknowledgement) or "
            "by HTTP/1.0 over TCP with SACK; NISTNet drops 0% or 10% of packets in both "
            "directions. Each measurement covers connection set-up, request and reply, and "
            "teardown."
        ),
        Params(
            {
                "file sizes (octets)": f"{sizes[0]}..{sizes[-1]} ({len(sizes)} sizes)",
                "drop (each direction)": ", ".join(f"{p:.0%}" for p in LOSSES),
                "protocols": ", ".join(label(p) for p in PROTOCOLS),
                "repetitions per point": sc.repetitions,
                "seed": sc.seed,
                "runs": len(rows),
            }
        ),
    ]
    page = reproduction_page(
        ctx,
        title="WAP performance on an end-to-end scheme (paper 000)",
        summary="paper 000: WSP/WTP vs HTTP/TCP over 9.6 kbit/s with 0% and 10% drop",
        setup=setup,
        claims=found,
        figures=figures,
        assumptions=ASSUMPTIONS,
        findings=[*findings(curves), energy_finding(energy)],
    )
    largest = max(energy[("wap", LOSSES[0])])
    numbers = {
        "j_per_mb_gprs": [
            {
                "protocol": protocol,
                "drop": loss,
                "size": largest,
                "mean": curve[largest].mean,
                "ci95": curve[largest].half_width,
            }
            for (protocol, loss), curve in sorted(energy.items())
        ]
    }
    return ReproductionResult(NAME, found, page, numbers=numbers)


register(
    Reproduction(
        NAME,
        paper=PAPER,
        title="WAP (WSP/WTP class 2) vs HTTP/TCP SACK over a 9.6 kbit/s serial link",
        body=body,
    )
)

"""Every knob of the TCP endpoint, with the RFC each default comes from.

Defaults follow the RFCs; ``TcpConfig.linux()`` gives the values a current Linux kernel
uses where they differ (minimum RTO, initial window, delayed-ACK timer).
"""

import dataclasses
from dataclasses import dataclass
from enum import Enum

from wwanlab.core.errors import UsageError


class Variant(Enum):
    """Loss recovery, chosen by name."""

    RENO = "reno"  # RFC 5681 3.2: fast retransmit / fast recovery, exit on any new ACK
    NEWRENO = "newreno"  # RFC 6582: stay in recovery across partial ACKs
    SACK = "sack"  # RFC 2018 + RFC 6675: scoreboard, pipe, NextSeg


class InitialWindow(Enum):
    """Which RFC sets the initial congestion window."""

    RFC5681 = "rfc5681"  # RFC 5681 3.1: 2, 3 or 4 segments by SMSS (= RFC 3390 in bytes)
    RFC3390 = "rfc3390"  # RFC 3390 1: min(4*MSS, max(2*MSS, 4380))
    RFC6928 = "rfc6928"  # RFC 6928 2: min(10*MSS, max(2*MSS, 14600))
    ONE = "one"  # RFC 2581 3.1 / RFC 5681 3.1: 1 segment (pre-RFC 3390 stacks)
    TWO = "two"  # RFC 2581 3.1's upper bound, 2 segments (Windows 2000; ns-2's windowInit_)


DEFAULT_MSS = 536  # RFC 9293 3.7.1: send MSS assumed when the peer sends no MSS option
ETHERNET_MSS = 1460  # RFC 9293 3.7.1: 1500-byte MTU minus 20 IP and 20 TCP header bytes
DUP_THRESH = 3  # RFC 5681 2 / RFC 6675 2 "DupThresh"
RTO_INITIAL = 1.0  # RFC 6298 2.1: RTO before the first RTT sample
RTO_INITIAL_RFC2988 = 3.0  # RFC 2988 2.1 (and RFC 1122 4.2.3.1), before RFC 6298 (2011)
RTO_MIN_RFC = 1.0  # RFC 6298 2.4: RTO SHOULD be rounded up to 1 s
RTO_MIN_LINUX = 0.2  # Linux TCP_RTO_MIN (HZ/5)
RTO_MAX = 60.0  # RFC 6298 2.5: a maximum MAY be placed on RTO, at least 60 s
RTO_MAX_LINUX = 120.0  # Linux TCP_RTO_MAX
RTO_SYN_FALLBACK = 3.0  # RFC 6298 5.7: RTO after a SYN timed out
RTT_ALPHA = 1 / 8  # RFC 6298 2.3
RTT_BETA = 1 / 4  # RFC 6298 2.3
RTT_K = 4  # RFC 6298 2.3
CLOCK_GRANULARITY = 0.001  # RFC 6298 2 "G"; Linux counts in jiffies of 1-4 ms
DELAYED_ACK_TIMEOUT = 0.2  # RFC 1122 4.2.3.2 (< 0.5 s); BSD's 200 ms fast timer
DELAYED_ACK_LINUX = 0.04  # Linux TCP_DELACK_MIN (HZ/25)
QUICK_ACKS_LINUX = 16  # Linux TCP_MAX_QUICKACKS: ACK at once while a connection starts
MSL = 120.0  # RFC 9293 3.4.2: Maximum Segment Lifetime, 2 minutes
TIME_WAIT_LINUX = 60.0  # Linux TCP_TIMEWAIT_LEN
RECEIVE_BUFFER = 65535  # largest window without RFC 7323 scaling
MAX_RETRIES = 15  # Linux tcp_retries2; RFC 9293 3.8.3 "R2" at least 100 s
SYN_RETRIES = 6  # Linux tcp_syn_retries; RFC 9293 3.8.3 R2 for SYN at least 3 min
INITIAL_SSTHRESH = 1 << 30  # RFC 5681 3.1: "arbitrarily high"

# Windows 2000's documented TCP (Microsoft, "Microsoft Windows 2000 TCP/IP
# Implementation Details", and the Windows 2000 Resource Kit's registry reference for
# HKLM\SYSTEM\CurrentControlSet\Services\Tcpip\Parameters). Each value is the
# default when the registry entry is absent, as Windows 2000 installs it.
WIN2000_DUP_ACKS = 2  # TcpMaxDupAcks: range 1-3, default 2 ("Fast Retransmit")
WIN2000_INITIAL_RTT = 3.0  # s, TcpInitialRtt: default 3 ("Retransmission Behavior")
WIN2000_RECEIVE_WINDOW = 17_520  # TcpWindowSize: 12 segments of 1460 on Ethernet
WIN2000_DELACK_TICKS = 2  # TcpDelAckTicks: 100 ms ticks, default 2; ACK every 2nd segment
WIN2000_DATA_RETRIES = 5  # TcpMaxDataRetransmissions: default 5
WIN2000_CONNECT_RETRIES = 2  # TcpMaxConnectRetransmissions: default 2
# "Slow Start Algorithm and Congestion Avoidance": "the send window is set to two TCP
# segments" at the start: InitialWindow.TWO. SackOpts: default 1 (SACK on). Tcp1323Opts:
# default 0 (no window scaling, no timestamps offered). The document gives no minimum
# RTO; TcpInitialRtt accepts no value below 300 ms (Microsoft KB 170359), the lowest
# retransmission time the registry lets Windows be given.
WIN2000_LOWEST_RTT = 0.3  # s: TcpInitialRtt's valid range starts at 300 ms (KB 170359)

# ns-2's Agent/TCP defaults (tcl/lib/ns-default.tcl, ns-2.35; the comments there date
# each change), as its Reno agent (tcp/tcp-reno.cc) used them:
NS2_WINDOW = 20  # window_: packets the receiver's window allows
NS2_TCP_TICK = 0.01  # s, tcpTick_ (0.1 before 2002/03/07): the RTT timer's granularity
NS2_MIN_RTO = 0.2  # s, minrto_ (since 2004/10/14)
NS2_RTO_INITIAL = 3.0  # s, rtxcur_init_ (since 2006/01/21)
NS2_MAX_RTO = 60.0  # s, maxrto_ (since 2007/03/28, after RFC 2988)


@dataclass(frozen=True, slots=True)
class TcpConfig:
    """One connection's parameters; shared by all connections of an endpoint."""

    variant: Variant = Variant.SACK
    mss: int = ETHERNET_MSS  # RFC 9293 3.7.1: MSS we advertise and the cap on what we send
    initial_window: InitialWindow = InitialWindow.RFC5681
    receive_buffer: int = RECEIVE_BUFFER  # bytes; the window we advertise
    auto_consume: bool = True  # the user reads at once; else acknowledge_received()
    window_scale: bool = False  # RFC 7323 2: offer the option (used if both offer it)
    dup_thresh: int = DUP_THRESH
    limited_transmit: bool = True  # RFC 3042
    byte_counting: bool = True  # RFC 5681 3.1: CA grows 1 SMSS per cwnd of bytes acked
    delayed_ack: bool = True  # RFC 1122 4.2.3.2, RFC 5681 4.2
    delayed_ack_timeout: float = DELAYED_ACK_TIMEOUT
    quick_acks: int = 0  # first data segments ACKed at once (Linux "quickack" mode)
    nagle: bool = True  # RFC 1122 4.2.3.4 / RFC 896, in Minshall's form as Linux
    rto_initial: float = RTO_INITIAL
    rto_min: float = RTO_MIN_RFC
    rto_min_floors_variance: bool = False  # Linux tcp_set_rto: SRTT + max(K*RTTVAR, min)
    rto_max: float = RTO_MAX
    clock_granularity: float = CLOCK_GRANULARITY
    rtt_every_ack: bool = False  # RFC 6298 3 allows it; Linux samples every ACK
    max_retries: int = MAX_RETRIES
    syn_retries: int = SYN_RETRIES
    time_wait: float = 2 * MSL  # RFC 9293 3.4.2; shorten for simulations
    initial_ssthresh: int = INITIAL_SSTHRESH
    frto: bool = False  # RFC 5682: detect spurious RTOs (Linux: on, net.ipv4.tcp_frto)
    timestamps: bool = False  # RFC 7323 3: offer TSopt (Linux: on, net.ipv4.tcp_timestamps)
    # For a sender that knows the link it feeds (the TCP-WWAN proxy, paper 003 4.3.1):
    fixed_window: int = 0  # bytes: cwnd from the start and always (0: congestion control)
    pacing_bps: float = 0.0  # IP bits/s: data segments leave one segment time apart
    probe_on_timeout: bool = False  # at RTO expiry ask the receiver before resending
    # Reno only: no fast retransmit after a timeout until an ACK covers more than the
    # data sent before it (ns-2's bugFix_, tcp-reno.cc dupack_action; RFC 6582 3.2's
    # "recover" check, which NewReno always makes)
    reno_recover: bool = False

    def __post_init__(self) -> None:
        if not 88 <= self.mss <= 65495:
            raise UsageError(f"mss {self.mss} outside 88..65495")
        if self.receive_buffer < self.mss:
            raise UsageError(f"receive buffer {self.receive_buffer} smaller than mss")
        if not 0.0 < self.rto_min <= self.rto_initial <= self.rto_max:
            raise UsageError("need 0 < rto_min <= rto_initial <= rto_max")
        if self.dup_thresh < 1:
            raise UsageError(f"dup_thresh {self.dup_thresh} must be positive")
        if self.fixed_window and self.fixed_window < self.mss:
            raise UsageError(f"fixed window {self.fixed_window} smaller than mss")
        if self.fixed_window < 0 or self.pacing_bps < 0:
            raise UsageError("fixed window and pacing rate cannot be negative")
        if not 0.0 < self.delayed_ack_timeout < 0.5:
            raise UsageError("delayed_ack_timeout must be in (0, 0.5) s (RFC 1122 4.2.3.2)")

    @classmethod
    def for_variant(cls, name: str, **overrides: object) -> "TcpConfig":
        """A config for ``reno``, ``newreno`` or ``sack``; unknown names are UsageError."""
        try:
            variant = Variant(name.lower())
        except ValueError:
            known = ", ".join(v.value for v in Variant)
            raise UsageError(f"unknown TCP variant {name!r} (known: {known})") from None
        return cls(variant, **overrides)  # type: ignore[arg-type]

    @classmethod
    def linux(cls, variant: Variant = Variant.SACK, **overrides: object) -> "TcpConfig":
        """Linux's values: IW10, 200 ms RTO floor on the variance term, 120 s maximum
        RTO, 40 ms delayed ACK with 16 quick ACKs at the start, 60 s TIME_WAIT, window
        scaling, F-RTO with the undo of ``tcp_try_undo_loss``. Timestamps (Linux offers
        them) stay off unless asked for: the pinned reproductions were run without them;
        a comparison with a kernel octet for octet passes ``timestamps=True``."""
        base = cls(
            variant,
            initial_window=InitialWindow.RFC6928,
            rto_min=RTO_MIN_LINUX,
            rto_max=RTO_MAX_LINUX,
            delayed_ack_timeout=DELAYED_ACK_LINUX,
            quick_acks=QUICK_ACKS_LINUX,
            rto_min_floors_variance=True,
            rtt_every_ack=True,
            time_wait=TIME_WAIT_LINUX,
            window_scale=True,
            frto=True,
        )
        return dataclasses.replace(base, **overrides)  # type: ignore[arg-type]

    @classmethod
    def windows2000(cls, rto_min: float = RTO_MIN_RFC, **overrides: object) -> "TcpConfig":
        """Windows 2000's defaults as Microsoft documents them (the ``WIN2000_*``
        constants): SACK, IW 2, fast retransmit on the second duplicate ACK, initial RTO
        3 s, a 17,520-octet window, delayed ACK 200 ms. What the document does not give
        is the era's RFC: the minimum RTO (``rto_min``, RFC 2988 2.4's 1 s unless
        given), congestion avoidance per ACK (RFC 2581 3.1), no limited transmit (RFC
        3042 came in 2001, after Windows 2000)."""
        base = cls(
            Variant.SACK,
            initial_window=InitialWindow.TWO,
            receive_buffer=WIN2000_RECEIVE_WINDOW,
            dup_thresh=WIN2000_DUP_ACKS,
            limited_transmit=False,
            byte_counting=False,
            delayed_ack_timeout=WIN2000_DELACK_TICKS * 0.1,
            rto_initial=WIN2000_INITIAL_RTT,
            rto_min=rto_min,
            max_retries=WIN2000_DATA_RETRIES,
            syn_retries=WIN2000_CONNECT_RETRIES,
        )
        return dataclasses.replace(base, **overrides)  # type: ignore[arg-type]

    @classmethod
    def ns2_reno(cls, mss: int, **overrides: object) -> "TcpConfig":
        """ns-2's Reno agent with its default sink: the ``recover`` guard after a timeout
        (bugFix_ true), window_ 20 packets, windowInit_ 2, tcpTick_ 10 ms, minrto_,
        rtxcur_init_ and maxrto_ as ``NS2_*``; an ACK per segment (Agent/TCPSink does
        not delay), window growth counted per ACK, and one new segment per early
        duplicate ACK (singledup_ 1, RFC 3042). maxburst_ 0 sets no burst limit, as here."""
        base = cls(
            Variant.RENO,
            mss=mss,
            initial_window=InitialWindow.TWO,
            receive_buffer=NS2_WINDOW * mss,
            byte_counting=False,
            delayed_ack=False,
            rto_initial=NS2_RTO_INITIAL,
            rto_min=NS2_MIN_RTO,
            rto_max=NS2_MAX_RTO,
            clock_granularity=NS2_TCP_TICK,
            reno_recover=True,
        )
        return dataclasses.replace(base, **overrides)  # type: ignore[arg-type]

    def initial_cwnd(self, smss: int) -> int:
        """Initial window in bytes for sender MSS ``smss``."""
        if self.initial_window is InitialWindow.ONE:
            return smss
        if self.initial_window is InitialWindow.TWO:
            return 2 * smss
        if self.initial_window is InitialWindow.RFC6928:
            return min(10 * smss, max(2 * smss, 14600))
        if self.initial_window is InitialWindow.RFC3390:
            return min(4 * smss, max(2 * smss, 4380))
        # RFC 5681 3.1 states the same bound as whole segments.
        if smss > 2190:
            return 2 * smss
        if smss > 1095:
            return 3 * smss
        return 4 * smss

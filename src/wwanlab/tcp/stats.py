"""Per-connection counters and the optional congestion-window recorder."""

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(slots=True)
class TcpStats:
    """Counters one connection keeps; read them from ``TcpEndpoint.stats(conn_id)``."""

    segments_sent: int = 0
    segments_received: int = 0
    bytes_sent: int = 0  # payload bytes including retransmissions
    bytes_received: int = 0  # in-order payload bytes delivered
    retransmissions: int = 0  # segments sent again, by any mechanism
    timer_retransmissions: int = 0  # of which sent again because the RTO expired
    bytes_retransmitted: int = 0
    timeouts: int = 0  # RTO expiries (RFC 6298 5.4)
    fast_retransmits: int = 0  # entries into fast retransmit / loss recovery
    partial_acks: int = 0  # new ACKs inside recovery that do not end it (RFC 6582 term)
    dupacks_received: int = 0
    pure_acks_sent: int = 0
    window_probes: int = 0  # zero-window probes (RFC 9293 3.8.6.1)
    rtt_samples: int = 0
    recovery_time: float = 0.0  # seconds spent in fast recovery
    established_at: float | None = None
    closed_at: float | None = None


@dataclass(frozen=True, slots=True)
class CwndSample:
    """A change of cwnd or ssthresh, with the reason (``"ack"``, ``"fast_retransmit"``...)."""

    time: float
    conn_id: int
    cwnd: int
    ssthresh: int
    reason: str


Recorder = Callable[[CwndSample], None]

"""UDP-GPRS's parameters. Paper 003 section 4.3.2 describes the protocol only in words
(its reference [12], GPRSWeb, holds the design); every number here is derived from the
``gprs-3plus1`` link the paper measured, or chosen and argued in docs/udp-gprs.md.
"""

import math
from dataclasses import dataclass

from wwanlab.core.errors import UsageError
from wwanlab.link.presets import GPRS_3PLUS1_DOWN_BPS, WWAN_MAX_RTT, WWAN_MIN_RTT
from wwanlab.transports.udp_gprs.packet import DATA_OVERHEAD, MAX_CREDIT

IPV4_UDP_HEADERS = 28  # RFC 791 (20 octets without options) + RFC 768 (8)
MAX_DATAGRAM = 1500 - IPV4_UDP_HEADERS  # octets of UDP payload in the presets' 1500 MTU

# Paper 003 4.3.2: "The credit value is so chosen to ensure that the wireless link remains
# fully utilized even though the buffer occupancy in the cellular network remains low."
# The bandwidth-delay product of the '3+1' downlink (39.6 kbit/s, section 3) over the
# lowest WWAN round trip (600 ms, section 3) is 2,970 octets; two full datagrams more
# cover the one being serialised and the acknowledgement's own trip, so the line never
# idles while at most about one datagram (0.3 s) waits in the operator's queue.
BDP_3PLUS1 = math.ceil(GPRS_3PLUS1_DOWN_BPS * WWAN_MIN_RTT / 8)
CREDIT = BDP_3PLUS1 + 2 * MAX_DATAGRAM  # 5,914 octets

# Paper 003 4.3.2: "Periodic messages are generated every few seconds which allow hosts
# to detect serious link stalls." Assumed: a keep-alive after 2 s without sending; a stall
# after 6 s without hearing the peer (three keep-alive intervals, so one lost keep-alive
# on a 3 s round trip, the paper's worst WWAN latency, does not trip it).
KEEPALIVE_INTERVAL = 2.0
STALL_AFTER = 3 * KEEPALIVE_INTERVAL
FAIL_AFTER = 60.0  # assumed: a minute of silence, time for several GPRS re-attaches

# The longest a repair can take on gprs-3plus1: a round trip, a full credit queued ahead
# of it and the repair itself serialised. A gap NAKed that long ago is NAKed again.
NAK_INTERVAL = WWAN_MIN_RTT + (CREDIT + MAX_DATAGRAM) * 8 / GPRS_3PLUS1_DOWN_BPS  # 2.09 s

RTO_MIN = 1.0  # RFC 6298 2.4: "RTO SHOULD be rounded up to 1 second"
RTO_INITIAL = WWAN_MAX_RTT  # paper 003 section 3: WWAN round trips reach 3 s
RTO_MAX = 2 * STALL_AFTER  # beyond this the keep-alives, not the tail probe, watch the link
# Octets a receiver holds beyond a gap: the most the 16-bit credit field can say, 13 s
# of the '3+1' downlink, so only a repair lost several times in a row stops the sender.
BUFFER = MAX_CREDIT
MAX_MESSAGE = 4 * 1024 * 1024  # assumed: octets; the largest web object or page bundle


@dataclass(frozen=True)
class UdpGprsConfig:
    """One endpoint's parameters. ``credit`` is the octets this end lets its peer have
    in the network (sent, not yet arrived); ``buffer`` bounds what it holds past a gap."""

    max_datagram: int = MAX_DATAGRAM
    credit: int = CREDIT
    buffer: int = BUFFER
    keepalive_interval: float = KEEPALIVE_INTERVAL
    stall_after: float = STALL_AFTER
    fail_after: float = FAIL_AFTER
    nak_interval: float = NAK_INTERVAL
    rto_min: float = RTO_MIN
    rto_initial: float = RTO_INITIAL
    rto_max: float = RTO_MAX
    max_message: int = MAX_MESSAGE
    line_bps: float = 0.0  # ours: IP bit/s of the line towards the peer, if known (RTO floor)

    def __post_init__(self) -> None:
        if not DATA_OVERHEAD < self.max_datagram <= 65_507:  # RFC 768 over IPv4
            raise UsageError(
                f"max datagram {self.max_datagram} outside {DATA_OVERHEAD + 1}..65507"
            )
        if not self.max_datagram <= self.credit <= self.buffer <= MAX_CREDIT:
            raise UsageError(
                f"need max datagram <= credit <= buffer <= {MAX_CREDIT}, got "
                f"{self.max_datagram}, {self.credit}, {self.buffer}"
            )
        if not 0 < self.keepalive_interval < self.stall_after < self.fail_after:
            raise UsageError("need 0 < keep-alive interval < stall time < failure time")
        if not (self.nak_interval > 0 and 0 < self.rto_min <= self.rto_initial <= self.rto_max):
            raise UsageError("need a positive NAK interval and 0 < RTO min <= initial <= max")
        if self.line_bps < 0:
            raise UsageError("the line rate cannot be negative")
        if self.max_message < 0:
            raise UsageError("max message must not be negative")

    @property
    def max_payload(self) -> int:
        """Message octets one DATA datagram carries."""
        return self.max_datagram - DATA_OVERHEAD

    @property
    def window(self) -> int:
        """DATA sequence numbers a conforming peer can have beyond our cumulative ack:
        each datagram takes at least DATA_OVERHEAD octets of the buffer."""
        return self.buffer // DATA_OVERHEAD

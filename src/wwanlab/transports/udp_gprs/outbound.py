"""Our side of the data: messages cut into fragments, DATA in flight under the peer's
credit, and the round-trip estimate that times the tail probe."""

from collections import deque
from dataclasses import dataclass

from wwanlab.transports.udp_gprs.config import UdpGprsConfig
from wwanlab.transports.udp_gprs.packet import DATA_OVERHEAD

CLOCK_GRANULARITY = 0.001  # s: RFC 6298 2's G, the simulator's and asyncio's resolution
MAX_BACKOFF = 32  # the tail probe's interval doubles at most to 32 x RTO (then RTO_MAX caps)


@dataclass(slots=True)
class InFlight:
    """A DATA datagram sent and not yet below the peer's cumulative ack."""

    payload: bytes
    end: bool
    sent_at: float
    resent: bool = False

    @property
    def size(self) -> int:
        """Octets of the peer's credit it takes: the whole datagram."""
        return DATA_OVERHEAD + len(self.payload)


class Outbound:
    """Fragments waiting, DATA in flight, the peer's ack and credit, SRTT and RTO."""

    def __init__(self, config: UdpGprsConfig) -> None:
        self.config = config
        self.next_seq = 0  # the sequence number the next new fragment gets
        self.peer_ack = 0  # every sequence number below it has arrived
        # No handshake: until the peer's first datagram, assume it grants what we grant.
        self.peer_credit = config.credit
        self.outstanding = 0  # octets in flight
        self.waiting: deque[tuple[bytes, bool]] = deque()
        self.in_flight: dict[int, InFlight] = {}
        self.srtt: float | None = None
        self.rttvar = 0.0
        self.backoff = 1

    def queue(self, message: bytes) -> None:
        """Cut ``message`` into fragments of at most one datagram's payload; the last
        carries END (an empty message is one empty END fragment)."""
        size = self.config.max_payload
        cuts = range(0, max(len(message), 1), size)
        for start in cuts:
            self.waiting.append((message[start : start + size], start + size >= len(message)))

    def sendable(self) -> bool:
        """The next fragment fits in the peer's credit (or nothing is in flight at all)."""
        if not self.waiting:
            return False
        size = DATA_OVERHEAD + len(self.waiting[0][0])
        return not self.outstanding or self.outstanding + size <= self.peer_credit

    def take(self, now: float) -> tuple[int, InFlight]:
        """Give the next fragment a sequence number and count it in flight."""
        payload, end = self.waiting.popleft()
        seq, sent = self.next_seq, InFlight(payload, end, now)
        self.next_seq += 1
        self.in_flight[seq] = sent
        self.outstanding += sent.size
        return seq, sent

    def acknowledge(self, ack: int, credit: int, now: float) -> bool:
        """Take the peer's cumulative ack (``peer_ack <= ack <= next_seq``, checked by the
        caller) and its credit; True when the ack moved on."""
        if ack < self.peer_ack:
            return False  # an older datagram overtaken by newer ones: nothing new
        if ack == self.peer_ack:
            # for one ack the grant only grows (the peer holds more past its gap), so
            # the largest is the newest; a reordered older one cannot shrink it
            self.peer_credit = max(self.peer_credit, credit)
            return False
        self.peer_credit = credit
        newest: InFlight | None = None
        for seq in range(self.peer_ack, ack):
            sent = self.in_flight.pop(seq)
            self.outstanding -= sent.size
            newest = sent
        self.peer_ack = ack
        if newest is not None and not newest.resent:  # Karn: no sample from a repair
            self._sample(now - newest.sent_at)
        self.backoff = 1
        return True

    def _sample(self, rtt: float) -> None:
        """RFC 6298 2.2-2.3 (alpha 1/8, beta 1/4)."""
        if self.srtt is None:
            self.srtt, self.rttvar = rtt, rtt / 2
        else:
            self.rttvar += (abs(self.srtt - rtt) - self.rttvar) / 4
            self.srtt += (rtt - self.srtt) / 8

    @property
    def rto(self) -> float:
        """RFC 6298 2.1-2.4 and 5.5: SRTT + max(G, 4 RTTVAR), bounded, times the backoff.

        Ours: on a line of known rate, never less than the minimum RTO beyond the time
        the line needs for what is in flight. A round trip sampled on a small datagram
        (the reply's size field) would otherwise fire the tail probe while full
        datagrams still wait their turn on a slow line, and resend one for nothing.
        """
        c = self.config
        base = c.rto_initial
        if self.srtt is not None:
            base = max(c.rto_min, self.srtt + max(CLOCK_GRANULARITY, 4 * self.rttvar))
        if c.line_bps:
            base = max(base, c.rto_min + self.outstanding * 8 / c.line_bps)
        return min(base * self.backoff, c.rto_max)

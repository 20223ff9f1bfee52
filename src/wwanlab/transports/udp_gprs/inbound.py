"""The peer's data as it arrives: fragments held out of order, the cumulative ack,
gaps and when each was last NAKed, and the message being reassembled."""

from dataclasses import dataclass, field

from wwanlab.transports.udp_gprs.config import UdpGprsConfig
from wwanlab.transports.udp_gprs.packet import (
    CRC,
    DATA_OVERHEAD,
    HEADER,
    MAX_NAK_RANGES,
    NAK_RANGE,
)

MAX_RANGE = 0xFFFF  # a NAK range counts its sequence numbers in 16 bits


class MessageTooLarge(Exception):
    """The peer's fragments add up to more than ``max_message`` octets."""


@dataclass
class Inbound:
    """Delivers each message once and in order; holds at most ``buffer`` octets."""

    config: UdpGprsConfig
    next: int = 0  # cumulative: every sequence number below it has been delivered
    high: int = 0  # one past the highest sequence number held or delivered
    held_octets: int = 0  # the credit the held fragments take, as the sender counts it
    held: dict[int, tuple[bytes, bool]] = field(default_factory=dict)
    nakked: dict[int, float] = field(default_factory=dict)  # missing seq -> last NAKed
    message: bytearray = field(default_factory=bytearray)

    def plausible(self, seq: int, payload: bytes) -> bool:
        """What a sender within our credit can send: a repeat, or a new fragment that
        fits the window and the octets we promised to hold."""
        if seq < self.next or seq in self.held:
            return True
        fits = self.held_octets + DATA_OVERHEAD + len(payload) <= self.config.buffer
        return seq < self.next + self.config.window and fits

    @property
    def advertised(self) -> int:
        """The credit to grant: what the peer may have unacknowledged past our ack. What
        we hold past a gap has left the network, so it is granted again on top of the
        credit (up to the buffer) and a loss does not starve the link while it is
        repaired."""
        return min(self.config.credit + self.held_octets, self.config.buffer)

    def take(self, seq: int, payload: bytes, end: bool) -> list[bytes] | None:
        """Hold one plausible fragment; None for a repeat, else the messages it completes.
        Raises ``MessageTooLarge`` when reassembly would pass ``max_message``."""
        if seq < self.next or seq in self.held:
            return None
        self.held[seq] = (payload, end)
        self.held_octets += DATA_OVERHEAD + len(payload)
        self.high = max(self.high, seq + 1)
        self.nakked.pop(seq, None)
        done: list[bytes] = []
        while self.next in self.held:
            fragment, last = self.held.pop(self.next)
            self.held_octets -= DATA_OVERHEAD + len(fragment)
            self.next += 1
            if len(self.message) + len(fragment) > self.config.max_message:
                raise MessageTooLarge(f"a message over {self.config.max_message} octets")
            self.message += fragment
            if last:
                done.append(bytes(self.message))
                self.message.clear()
        return done

    @property
    def gaps(self) -> bool:
        return self.high > self.next

    def due(self, now: float) -> list[tuple[int, int]]:
        """Ranges of missing sequence numbers never NAKed or NAKed ``nak_interval`` ago,
        as many as one NAK datagram holds; they count as NAKed ``now``."""
        room = (self.config.max_datagram - HEADER - CRC - 1) // NAK_RANGE
        limit = min(MAX_NAK_RANGES, room)
        ranges: list[tuple[int, int]] = []
        for seq in range(self.next, self.high):
            if seq in self.held:
                continue
            last = self.nakked.get(seq)
            if last is not None and last + self.config.nak_interval > now:
                continue  # the same sum next_nak() arms the timer with, so it fires
            if ranges and sum(ranges[-1]) == seq and ranges[-1][1] < MAX_RANGE:
                ranges[-1] = (ranges[-1][0], ranges[-1][1] + 1)
            elif len(ranges) < limit:
                ranges.append((seq, 1))
            else:
                break
            self.nakked[seq] = now
        return ranges

    def next_nak(self) -> float | None:
        """When the oldest NAK of a gap still open comes due again."""
        if not self.nakked:
            return None
        return min(self.nakked.values()) + self.config.nak_interval

"""Segmentation and re-assembly with packet groups (WTP 7.14).

A message larger than one segment is sent as up to 256 packets (PSN 0..255): PSN 0 is
the Invoke or Result PDU, the rest Segmented Invoke/Result PDUs. Packets go out one
group at a time; the last packet of a group carries GTR, the last of the message TTR
(WTP 9.3.1: GTR=0,TTR=1 "last packet of message", GTR=1,TTR=0 "last packet of
group", GTR=1,TTR=1 "SAR not supported"). The receiver acknowledges each complete
group with one Ack carrying the PSN TPI of its last packet, or, when the group's last
packet arrives with holes, one Negative Ack listing exactly the missing PSNs; the
sender then resends just those.
"""

from dataclasses import dataclass
from enum import Enum


class OutgoingMessage:
    """The sender's side: the segments and the group now in flight."""

    def __init__(self, data: bytes, segment_size: int, group_size: int) -> None:
        self.segments = [data[i : i + segment_size] for i in range(0, len(data), segment_size)]
        if not self.segments:
            self.segments = [b""]
        self.last = len(self.segments) - 1
        self.group_size = group_size
        self.group_start = 0

    @property
    def segmented(self) -> bool:
        return self.last > 0

    @property
    def group_end(self) -> int:
        return min(self.group_start + self.group_size - 1, self.last)

    def current_group(self) -> range:
        return range(self.group_start, self.group_end + 1)

    def trailers(self, psn: int) -> tuple[bool, bool]:
        """(GTR, TTR) of packet ``psn``; groups are aligned to multiples of group_size."""
        if psn == self.last:
            return False, True
        return (psn + 1) % self.group_size == 0, False

    def is_final_ack(self, psn: int | None) -> bool:
        """An Ack without PSN TPI (Kannel's), or naming the last packet once the last
        group is in flight, ends the message. A receiver cannot have the last packet
        before it was sent: such an Ack is misnumbered and goes to ``advance``."""
        return psn is None or (psn == self.last and self.group_end == self.last)

    def advance(self, acked_psn: int) -> bool:
        """Move past the group in flight when ``acked_psn`` names its last packet;
        False for a stale (older) or impossible (not yet sent) group ack."""
        if acked_psn != self.group_end:
            return False
        self.group_start = self.group_end + 1
        return True


class Reaction(Enum):
    NOTHING = "nothing"  # wait for more packets
    ACK = "ack"  # a group is complete: acknowledge its last PSN
    NAK = "nak"  # a group's last packet arrived with holes
    COMPLETE = "complete"  # the whole message is here


@dataclass(frozen=True, slots=True)
class Outcome:
    reaction: Reaction
    psn: int = 0  # ACK: the PSN to name in the PSN TPI
    missing: tuple[int, ...] = ()  # NAK: exactly the missing packets


class IncomingMessage:
    """The receiver's side: collects packets and says when to Ack, Nak or deliver."""

    def __init__(self) -> None:
        self.segments: dict[int, bytes] = {}
        self.group_ends: set[int] = set()
        self.acked_upto = -1  # last PSN of the newest acknowledged group
        self.last: int | None = None  # PSN of the TTR packet once seen
        self.complete = False

    @property
    def segmented(self) -> bool:
        return bool(self.last)

    def add(self, psn: int, data: bytes, gtr: bool, ttr: bool) -> Outcome:
        if self.last is not None and psn > self.last:
            return Outcome(Reaction.NOTHING)  # past the end: a confused peer, ignore
        self.segments.setdefault(psn, data)
        if ttr:
            self.last = psn
        if gtr or ttr:
            self.group_ends.add(psn)
        if psn <= self.acked_upto:
            # a group we acknowledged: its last packet again means our Ack was lost
            return (
                Outcome(Reaction.ACK, psn) if psn in self.group_ends else Outcome(Reaction.NOTHING)
            )
        acked: int | None = None
        for end in sorted(e for e in self.group_ends if e > self.acked_upto):
            missing = tuple(
                p for p in range(self.acked_upto + 1, end + 1) if p not in self.segments
            )
            if missing:
                if psn == end:
                    return Outcome(Reaction.NAK, end, missing)
                break
            if end == self.last:
                self.complete = True
                return Outcome(Reaction.COMPLETE, end)
            self.acked_upto = acked = end
        return Outcome(Reaction.ACK, acked) if acked is not None else Outcome(Reaction.NOTHING)

    def data(self) -> bytes:
        return b"".join(self.segments[p] for p in sorted(self.segments))

"""Packet and byte counters kept by every simulated link direction and node."""

from dataclasses import dataclass, field


@dataclass(slots=True)
class Counters:
    """What passed through one point, and what was dropped there, by reason.

    For a link direction ``sent`` counts packets offered to it and ``delivered`` those
    that came out the far end. For a host ``sent`` counts packets it originated,
    ``received`` those that reached it and ``delivered`` those handed to an endpoint.
    For a router ``received`` counts arrivals, ``sent`` packets forwarded or injected,
    ``held`` packets its hook kept and ``injected`` packets its proxy added.
    """

    sent_packets: int = 0
    sent_bytes: int = 0
    received_packets: int = 0
    received_bytes: int = 0
    delivered_packets: int = 0
    delivered_bytes: int = 0
    held_packets: int = 0
    injected_packets: int = 0
    dropped: dict[str, int] = field(default_factory=dict)
    dropped_bytes: int = 0

    def drop(self, reason: str, size: int) -> None:
        self.dropped[reason] = self.dropped.get(reason, 0) + 1
        self.dropped_bytes += size

    @property
    def dropped_packets(self) -> int:
        return sum(self.dropped.values())

    def as_dict(self) -> dict[str, object]:
        """A JSON-ready copy, drop reasons sorted."""
        return {
            "sent_packets": self.sent_packets,
            "sent_bytes": self.sent_bytes,
            "received_packets": self.received_packets,
            "received_bytes": self.received_bytes,
            "delivered_packets": self.delivered_packets,
            "delivered_bytes": self.delivered_bytes,
            "held_packets": self.held_packets,
            "injected_packets": self.injected_packets,
            "dropped_packets": self.dropped_packets,
            "dropped_bytes": self.dropped_bytes,
            "dropped": dict(sorted(self.dropped.items())),
        }

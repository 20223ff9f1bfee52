"""Nodes and the point-to-point links between them: one ``wwanlab.link.base.Direction``
per direction plus an MTU.

A ``Node`` (what hosts and routers share: a name, attached link directions and a route
table) and a ``Channel`` refer to each other, so they live in one module.

A ``Channel`` is one direction. It refuses packets longer than the MTU (counted as
drop reason ``"mtu"``; DF is always set in wwanlab, so there is no fragmentation), asks
its ``Direction`` when the packet comes out, and schedules delivery to the far node.
The size given to the link models is the IP packet's; framing overhead belongs to the
models (``wwanlab.link.rate.Rate(overhead_bytes=...)``).
"""

import random
from collections.abc import Callable

from wwanlab.link.base import Direction, Drop
from wwanlab.sim.kernel import Kernel
from wwanlab.sim.stats import Counters

DEFAULT_MTU = 1500  # RFC 894: IPv4 over Ethernet; links override it (GPRS SNDCP: 1500)

Tap = Callable[[float, bytes], None]
"""Called with (virtual time, packet bytes); how captures watch a node or channel."""


class Node:
    """A point of the topology. ``routes`` maps a destination's 4 octets to a channel."""

    forwards = False  # whether shortest paths may pass through this node

    def __init__(self, kernel: Kernel, name: str) -> None:
        self.kernel = kernel
        self.name = name
        self.channels: list[Channel] = []  # outgoing directions, in order of creation
        self.routes: dict[bytes, Channel] = {}
        self.stats = Counters()
        self.taps: list[Tap] = []

    def receive(self, packet: bytes, channel: "Channel | None") -> None:
        """A packet arrived over ``channel`` (None: from the node itself)."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


class Channel:
    """One direction of a link, from ``src`` to ``dst``."""

    def __init__(
        self,
        kernel: Kernel,
        name: str,
        src: Node,
        dst: Node,
        direction: Direction,
        rng: random.Random,
        *,
        mtu: int,
    ) -> None:
        self.kernel = kernel
        self.name = name
        self.src = src
        self.dst = dst
        self.direction = direction
        self.rng = rng
        self.mtu = mtu
        self.stats = Counters()
        self.tx_taps: list[Tap] = []  # see packets as they are offered
        self.rx_taps: list[Tap] = []  # see packets as they are delivered

    def send(self, packet: bytes) -> None:
        """Offer a packet now; it is delivered later or dropped and counted."""
        kernel = self.kernel
        now = kernel.now
        size = len(packet)
        stats = self.stats
        stats.sent_packets += 1
        stats.sent_bytes += size
        for tap in self.tx_taps:
            tap(now, packet)
        if size > self.mtu:
            stats.drop("mtu", size)
            return
        verdict = self.direction.transmit(size, now, self.rng)
        if type(verdict) is not float and isinstance(verdict, Drop):
            stats.drop(verdict.reason, size)
            return
        kernel.post_at(verdict if verdict > now else now, self._deliver, packet)

    def _deliver(self, packet: bytes) -> None:
        stats = self.stats
        stats.delivered_packets += 1
        stats.delivered_bytes += len(packet)
        if self.rx_taps:
            now = self.kernel.now
            for tap in self.rx_taps:
                tap(now, packet)
        self.dst.receive(packet, self)

    def __repr__(self) -> str:
        return f"<Channel {self.name}>"


class Link:
    """Two nodes joined by two channels: ``ab`` from ``a`` to ``b``, ``ba`` back."""

    def __init__(self, name: str, ab: Channel, ba: Channel) -> None:
        self.name = name
        self.ab = ab
        self.ba = ba
        self.a = ab.src
        self.b = ab.dst

    @property
    def channels(self) -> tuple[Channel, Channel]:
        return (self.ab, self.ba)

    def channel_from(self, node: Node) -> Channel:
        """The direction leaving ``node``."""
        if node is self.a:
            return self.ab
        if node is self.b:
            return self.ba
        raise ValueError(f"{node!r} is not an end of link {self.name}")

    def __repr__(self) -> str:
        return f"<Link {self.name}>"

"""What hosts and routers share: a name, attached link directions and a route table."""

from collections.abc import Callable
from typing import TYPE_CHECKING

from wwanlab.sim.kernel import Kernel
from wwanlab.sim.stats import Counters

if TYPE_CHECKING:
    from wwanlab.sim.link import Channel

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

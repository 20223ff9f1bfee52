"""Routers: forward IPv4 packets along static shortest-path routes, with a proxy hook.

Forwarding follows RFC 1812 §5.2–5.3 in the parts that matter here: check the header
(version, length, checksum), drop a packet whose TTL would reach zero, decrement the
TTL and patch the header checksum incrementally (RFC 1624 eqn. 3), look up the
destination. No ICMP is generated.

A hook sees every arriving packet first, which is where performance-enhancing proxies
(Snoop, split TCP) sit: ``hook(packet, in_channel, now)`` answers ``FORWARD``,
``HOLD`` (the proxy keeps the packet and may ``inject`` it, or others, later),
``Replace(new_bytes)`` (forward these instead) or ``Drop(reason)``.
"""

import enum
from collections.abc import Callable
from dataclasses import dataclass

from wwanlab.link.base import Drop
from wwanlab.sim.ipv4 import IPV4_MIN_HEADER, checksum_update
from wwanlab.sim.kernel import Kernel, SimulationError
from wwanlab.sim.link import Channel, Node


class HookAction(enum.Enum):
    FORWARD = "forward"  # route the packet as it is
    HOLD = "hold"  # the hook keeps the packet; nothing is forwarded now


FORWARD = HookAction.FORWARD
HOLD = HookAction.HOLD


@dataclass(frozen=True, slots=True)
class Replace:
    """Forward ``packet`` (a complete IPv4 packet) in place of the one that arrived."""

    packet: bytes


HookResult = HookAction | Replace | Drop
Hook = Callable[[bytes, Channel | None, float], HookResult]


class Router(Node):
    """A forwarding node; ``hook`` (optional) inspects each packet before routing."""

    forwards = True

    def __init__(self, kernel: Kernel, name: str, hook: Hook | None = None) -> None:
        super().__init__(kernel, name)
        self.hook = hook

    def receive(self, packet: bytes, channel: Channel | None) -> None:
        stats = self.stats
        stats.received_packets += 1
        stats.received_bytes += len(packet)
        if self.taps:
            now = self.kernel.now
            for tap in self.taps:
                tap(now, packet)
        if self.hook is not None:
            verdict = self.hook(packet, channel, self.kernel.now)
            if verdict is FORWARD:
                pass
            elif verdict is HOLD:
                stats.held_packets += 1
                return
            elif isinstance(verdict, Replace):
                packet = verdict.packet
            elif isinstance(verdict, Drop):
                stats.drop(verdict.reason, len(packet))
                return
            else:
                raise SimulationError(f"router {self.name}: hook returned {verdict!r}")
        self._forward(packet, True)

    def inject(self, packet: bytes, now: float | None = None) -> None:
        """Send a packet from the router at ``now`` (default: the current time).

        The packet is routed as it is, without the hook and without a TTL decrement:
        it leaves the router as if the router's proxy had originated it.
        """
        kernel = self.kernel
        if now is not None and now > kernel.now:
            kernel.call_at(now, self.inject, packet)
            return
        self.stats.injected_packets += 1
        for tap in self.taps:
            tap(kernel.now, packet)
        self._forward(packet, False)

    def _forward(self, packet: bytes, decrement_ttl: bool) -> None:
        stats = self.stats
        size = len(packet)
        if size < IPV4_MIN_HEADER or packet[0] >> 4 != 4:
            stats.drop("malformed", size)
            return
        hlen = (packet[0] & 0x0F) * 4
        if hlen < IPV4_MIN_HEADER or hlen > size:
            stats.drop("malformed", size)
            return
        # Only the header is checked, as a router does (RFC 1812 §5.2.2); it is intact
        # when its value is a multiple of 0xFFFF (see internet_checksum).
        if int.from_bytes(packet[:hlen], "big") % 0xFFFF:
            stats.drop("checksum", size)
            return
        if decrement_ttl:
            ttl = packet[8]
            if ttl <= 1:  # RFC 1812 §5.3.1: a packet whose TTL would reach 0 is dropped
                stats.drop("ttl", size)
                return
            old_word = ttl << 8 | packet[9]
            old_checksum = packet[10] << 8 | packet[11]
            checksum = checksum_update(old_checksum, old_word, old_word - 0x100)
            packet = (
                packet[:8]
                + bytes((ttl - 1, packet[9], checksum >> 8, checksum & 0xFF))
                + packet[12:]
            )
        channel = self.routes.get(packet[16:20])
        if channel is None:
            stats.drop("no-route", size)
            return
        stats.sent_packets += 1
        stats.sent_bytes += size
        channel.send(packet)

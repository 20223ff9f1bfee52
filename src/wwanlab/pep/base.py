"""The contract of a proxy on the path: IP packets in, IP packets out, one timer.

A proxy sits where a router forwards (paper 002 puts it between the GGSN and the SGSN).
Every packet crossing that point is offered to it; it answers whether the packet goes on
unchanged or is taken (held, dropped or replaced by its own), and it may originate
packets of its own (a local retransmission, the segments of its own TCP connection)::

    proxy.receive_packet(packet, now) -> bool      # True: forward it as it is
    proxy.packets_to_send(now) -> [bytes, ...]     # IPv4 packets it sends, routed as any
    proxy.get_timer() -> float | None
    proxy.handle_timer(now)

Like every endpoint of the project it never reads a clock and draws no randomness of
its own; the simulator's router hook (``wwanlab.sim.proxy``) drives it, and any other
driver that sees packets (the emulator) can.
"""

from typing import Protocol


class PacketProxy(Protocol):
    def receive_packet(self, packet: bytes, now: float) -> bool:
        """Take a packet crossing the proxy's point; True forwards it unchanged."""
        ...

    def packets_to_send(self, now: float) -> list[bytes]:
        """IPv4 packets the proxy originates, emptied by the call."""
        ...

    def get_timer(self) -> float | None: ...

    def handle_timer(self, now: float) -> None: ...

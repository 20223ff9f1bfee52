"""The contract of a proxy on the path (``PacketProxy``: IP packets in, IP packets out,
one timer), and its driver from a router's hook.

A proxy sits where a router forwards (paper 002 puts it between the GGSN and the SGSN).
Every packet crossing that point is offered to it; it answers whether the packet goes on
unchanged or is taken (held, dropped or replaced by its own), and it may originate
packets of its own (a local retransmission, the segments of its own TCP connection)::

    proxy.receive_packet(packet, now) -> bool      # True: forward it as it is
    proxy.packets_to_send(now) -> [bytes, ...]     # IPv4 packets it sends, routed as any
    proxy.get_timer() -> float | None
    proxy.handle_timer(now)

Like every endpoint of the project it never reads a clock and draws no randomness of
its own; the simulator's router hook (``ProxyDriver``) drives it, and any other driver
that sees packets (the emulator) can. The contract lives here, beside its driver, so
that the simulator and the emulator need nothing of ``wwanlab.pep``, whose proxies
fulfil it.

The driver has the one shape of every driver here: after any input (a packet through the
router, the proxy's timer), send what the proxy queued, re-arm the one timer.
"""

from typing import Protocol

from wwanlab.sim.kernel import Handle
from wwanlab.sim.link import Channel
from wwanlab.sim.router import FORWARD, HOLD, HookResult, Router


class PacketProxy(Protocol):
    def receive_packet(self, packet: bytes, now: float) -> bool:
        """Take a packet crossing the proxy's point; True forwards it unchanged."""
        ...

    def packets_to_send(self, now: float) -> list[bytes]:
        """IPv4 packets the proxy originates, emptied by the call."""
        ...

    def get_timer(self) -> float | None: ...

    def handle_timer(self, now: float) -> None: ...


class ProxyDriver:
    """Makes ``proxy`` the hook of ``router``."""

    def __init__(self, router: Router, proxy: PacketProxy) -> None:
        self.router = router
        self.proxy = proxy
        self._timer: Handle | None = None
        router.hook = self._hook

    def _hook(self, packet: bytes, channel: Channel | None, now: float) -> HookResult:
        forward = self.proxy.receive_packet(packet, now)
        self._pump(now)
        return FORWARD if forward else HOLD

    def _fire(self) -> None:
        self._timer = None
        now = self.router.kernel.now
        self.proxy.handle_timer(now)
        self._pump(now)

    def _pump(self, now: float) -> None:
        for packet in self.proxy.packets_to_send(now):
            self.router.inject(packet)
        when = self.proxy.get_timer()
        timer = self._timer
        if timer is not None:
            if not timer.cancelled and timer.when == when:
                return
            timer.cancel()
        self._timer = None if when is None else self.router.kernel.call_at(when, self._fire)

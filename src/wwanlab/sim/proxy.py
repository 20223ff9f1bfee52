"""Drive a ``PacketProxy`` (``wwanlab.pep.base``) from a router's hook.

The driver has the one shape of every driver here: after any input (a packet through the
router, the proxy's timer), send what the proxy queued, re-arm the one timer.
"""

from wwanlab.pep.base import PacketProxy
from wwanlab.sim.kernel import Handle
from wwanlab.sim.link import Channel
from wwanlab.sim.router import FORWARD, HOLD, HookResult, Router


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

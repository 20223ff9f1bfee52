"""The one asyncio driver shape: input, drain events, send datagrams, re-arm the timer.

A ``UdpDriver`` owns a UDP socket and one sans-IO endpoint. Time given to the
endpoint is the event loop's monotonic clock. Events go to ``on_event``; a caller that
issues a command on the endpoint (``send_request``...) calls ``pump()`` afterwards so the
output leaves and the timer is re-armed.
"""

import asyncio
import logging
from collections.abc import Callable
from typing import cast

from wwanlab.core.address import Address
from wwanlab.core.contract import Endpoint
from wwanlab.core.events import Event

log = logging.getLogger(__name__)

EventHandler = Callable[[Event], None]


class UdpDriver(asyncio.DatagramProtocol):
    def __init__(self, endpoint: Endpoint, on_event: EventHandler) -> None:
        self.endpoint = endpoint
        self.on_event = on_event
        self.transport: asyncio.DatagramTransport | None = None
        self._loop = asyncio.get_running_loop()
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at: float | None = None
        self.closed = self._loop.create_future()
        # what crossed the socket: (datagrams, octets of UDP payload) each way
        self.sent = [0, 0]
        self.received = [0, 0]

    @classmethod
    async def bind(
        cls, endpoint: Endpoint, on_event: EventHandler, local: Address = ("127.0.0.1", 0)
    ) -> "UdpDriver":
        loop = asyncio.get_running_loop()
        _, driver = await loop.create_datagram_endpoint(
            lambda: cls(endpoint, on_event), local_addr=local
        )
        return driver

    @property
    def local_address(self) -> Address:
        assert self.transport is not None
        host, port = self.transport.get_extra_info("sockname")[:2]
        return (host, port)

    def now(self) -> float:
        return self._loop.time()

    # asyncio.DatagramProtocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # 3.11's selector transport does not subclass DatagramTransport, though it is one.
        self.transport = cast(asyncio.DatagramTransport, transport)

    def datagram_received(self, data: bytes, addr: tuple[str | object, int]) -> None:
        self.received[0] += 1
        self.received[1] += len(data)
        self.endpoint.receive_datagram(data, (str(addr[0]), int(addr[1])), self.now())
        self.pump()

    def error_received(self, exc: Exception) -> None:
        # ICMP port unreachable and the like: the protocol's own timers decide what next.
        log.debug("udp error: %s", exc)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
        if not self.closed.done():
            self.closed.set_result(None)

    # the driver shape

    def pump(self) -> None:
        """Drain events, send datagrams, re-arm the one timer."""
        endpoint = self.endpoint
        while (event := endpoint.next_event()) is not None:
            self.on_event(event)
        if self.transport is not None and not self.transport.is_closing():
            for data, addr in endpoint.datagrams_to_send(self.now()):
                self.transport.sendto(data, addr)
                self.sent[0] += 1
                self.sent[1] += len(data)
        self._rearm()

    def _rearm(self) -> None:
        at = self.endpoint.get_timer()
        if at == self._timer_at:
            return
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._timer_at = at
        if at is not None:
            self._timer = self._loop.call_at(at, self._fire)

    def _fire(self) -> None:
        self._timer = None
        self._timer_at = None
        self.endpoint.handle_timer(self.now())
        self.pump()

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()

"""A UDP relay on loopback that applies ``wwanlab.link`` models to real datagrams.

Clients send to the relay's address; each client gets its own upstream socket towards
the target, so the target sees one address per client as it would behind a NAT-less
radio network, and its own pair of link ``Direction`` objects (uplink, downlink) from
``make_link``, as each phone has its own radio link. Every datagram is offered to its
direction with its IP size (payload + 28 octets of IPv4 and UDP headers) and the event
loop's time; it is dropped or sent when the model says it is delivered. Time and the
``random.Random`` are the relay's, so a seed fixes the loss pattern for a given arrival
order.
"""

import asyncio
import random
from collections import Counter
from collections.abc import Callable
from typing import cast

from wwanlab.core.address import Address
from wwanlab.link.base import Direction, Drop

IP_UDP_HEADERS = 28  # octets: IPv4 (20) + UDP (8)

LinkFactory = Callable[[], tuple[Direction, Direction]]
"""Makes one client's (uplink, downlink)."""


class _Upstream(asyncio.DatagramProtocol):
    """The socket that speaks to the target for one client."""

    def __init__(self, relay: "LossyRelay", client: Address, downlink: Direction) -> None:
        self.relay = relay
        self.client = client
        self.downlink = downlink
        self.transport: asyncio.DatagramTransport | None = None
        self.waiting: list[bytes] = []  # uplink datagrams due before the socket was ready

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.DatagramTransport, transport)
        for data in self.waiting:
            self.transport.sendto(data)
        self.waiting.clear()

    def datagram_received(self, data: bytes, addr: tuple[str | object, int]) -> None:
        self.relay.forward(data, self.downlink, "down", lambda d: self.relay.send_down(d, self))

    def send(self, data: bytes) -> None:
        if self.transport is None:
            self.waiting.append(data)
        elif not self.transport.is_closing():
            self.transport.sendto(data)

    def error_received(self, exc: Exception) -> None:
        self.relay.stats["upstream_errors"] += 1


class LossyRelay(asyncio.DatagramProtocol):
    """``await LossyRelay.start(target, make_link, rng)``; clients use ``address``."""

    def __init__(self, target: Address, make_link: LinkFactory, rng: random.Random) -> None:
        self.target = target
        self.make_link = make_link
        self.rng = rng
        self.stats: Counter[str] = Counter()
        self.transport: asyncio.DatagramTransport | None = None
        self._loop = asyncio.get_running_loop()
        self._clients: dict[Address, tuple[Direction, _Upstream]] = {}
        self._closed = False

    @classmethod
    async def start(
        cls,
        target: Address,
        make_link: LinkFactory,
        rng: random.Random,
        local: Address = ("127.0.0.1", 0),
    ) -> "LossyRelay":
        loop = asyncio.get_running_loop()
        _, relay = await loop.create_datagram_endpoint(
            lambda: cls(target, make_link, rng), local_addr=local
        )
        return relay

    @property
    def address(self) -> Address:
        assert self.transport is not None
        host, port = self.transport.get_extra_info("sockname")[:2]
        return (host, port)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.DatagramTransport, transport)

    def datagram_received(self, data: bytes, addr: tuple[str | object, int]) -> None:
        client = (str(addr[0]), int(addr[1]))
        entry = self._clients.get(client)
        if entry is None:
            uplink, downlink = self.make_link()
            upstream = _Upstream(self, client, downlink)
            entry = self._clients[client] = (uplink, upstream)
            self._loop.create_task(self._connect(upstream))
        uplink, upstream = entry
        self.forward(data, uplink, "up", upstream.send)

    async def _connect(self, upstream: _Upstream) -> None:
        await self._loop.create_datagram_endpoint(
            lambda: upstream, local_addr=("127.0.0.1", 0), remote_addr=self.target
        )

    def forward(
        self, data: bytes, direction: Direction, name: str, send: Callable[[bytes], None]
    ) -> None:
        now = self._loop.time()
        verdict = direction.transmit(len(data) + IP_UDP_HEADERS, now, self.rng)
        if isinstance(verdict, Drop):
            self.stats[f"{name}_dropped"] += 1
            return
        self.stats[f"{name}_sent"] += 1
        self._loop.call_at(verdict, self._deliver, send, data)

    def _deliver(self, send: Callable[[bytes], None], data: bytes) -> None:
        if not self._closed:
            send(data)

    def send_down(self, data: bytes, upstream: _Upstream) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.sendto(data, upstream.client)

    def close(self) -> None:
        self._closed = True  # datagrams still in flight are dropped when they come due
        for _, upstream in self._clients.values():
            if upstream.transport is not None:
                upstream.transport.close()
        self._clients.clear()
        if self.transport is not None:
            self.transport.close()

"""UDP-GPRS on a real UDP socket: the sans-IO ``UdpGprsChannel`` under the one
``UdpDriver``, with ``send`` to queue a message and ``receive`` to await the next.

A client proxy ``connect``s to a server proxy's address (nothing crosses the network
until its first message); a server proxy ``listen``s and serves the first session that
reaches it. ``receive`` raises ``ChannelClosed`` once the channel has failed; link
stalls and resumptions go to ``on_event`` when one is given.
"""

import asyncio
import random
from collections.abc import Callable

from wwanlab.aio.udp import UdpDriver
from wwanlab.core.address import Address
from wwanlab.core.events import Event
from wwanlab.transports.udp_gprs import (
    ChannelFailed,
    MessageReceived,
    UdpGprsChannel,
    UdpGprsConfig,
)


class ChannelClosed(Exception):
    """The channel failed (the peer was silent for ``fail_after``) or was closed."""


class UdpGprsSocket:
    """One end of a UDP-GPRS session bound to a local UDP port."""

    def __init__(self, channel: UdpGprsChannel, on_event: Callable[[Event], None] | None) -> None:
        self.channel = channel
        self._on_event = on_event
        self._inbox: asyncio.Queue[bytes | ChannelFailed] = asyncio.Queue()
        self._driver: UdpDriver | None = None

    @classmethod
    async def connect(
        cls,
        peer: Address,
        *,
        rng: random.Random | None = None,
        config: UdpGprsConfig | None = None,
        local: Address = ("0.0.0.0", 0),
        on_event: Callable[[Event], None] | None = None,
    ) -> "UdpGprsSocket":
        """The client end; the session id comes from ``rng`` (the system's entropy when
        none is given: a restarted client must not reuse an id)."""
        channel = UdpGprsChannel.client(peer, rng or random.Random(), config)
        return await cls._bind(channel, local, on_event)

    @classmethod
    async def listen(
        cls,
        local: Address,
        *,
        config: UdpGprsConfig | None = None,
        on_event: Callable[[Event], None] | None = None,
    ) -> "UdpGprsSocket":
        """The server end, waiting on ``local`` for a client's first message."""
        return await cls._bind(UdpGprsChannel.server(config), local, on_event)

    @classmethod
    async def _bind(
        cls, channel: UdpGprsChannel, local: Address, on_event: Callable[[Event], None] | None
    ) -> "UdpGprsSocket":
        sock = cls(channel, on_event)
        sock._driver = await UdpDriver.bind(channel, sock._event, local)
        return sock

    @property
    def address(self) -> Address:
        assert self._driver is not None
        return self._driver.local_address

    def send(self, data: bytes) -> None:
        """Queue ``data`` as one message; it leaves as the peer's credit allows."""
        assert self._driver is not None
        self.channel.send_message(data, self._driver.now())
        self._driver.pump()

    async def receive(self) -> bytes:
        """The next whole message, in order; ``ChannelClosed`` once the channel failed."""
        item = await self._inbox.get()
        if isinstance(item, ChannelFailed):
            self._inbox.put_nowait(item)  # every later call fails the same way
            raise ChannelClosed(item.reason)
        return item

    def close(self) -> None:
        """Stop at once: nothing more is sent, and the peer sees silence."""
        if self._driver is not None:
            self._driver.close()
        self._inbox.put_nowait(ChannelFailed("closed", 0.0))

    def _event(self, event: Event) -> None:
        if isinstance(event, MessageReceived):
            self._inbox.put_nowait(event.data)
        elif isinstance(event, ChannelFailed):
            self._inbox.put_nowait(event)
        if self._on_event is not None:
            self._on_event(event)

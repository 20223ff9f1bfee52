"""A Forwarder between two socket pairs: the test holds the phone's and the server's ends."""

import asyncio
import contextlib
import random
import socket
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import pytest

from wwanlab.emu.forwarder import Forwarder
from wwanlab.link.base import Direction


@dataclass
class Rig:
    phone: socket.socket  # writes go up the link, reads are what came down
    server: socket.socket  # writes go down the link, reads are what came up
    forwarder: Forwarder

    async def receive(self, sock: socket.socket, n: int, timeout: float = 5.0) -> list[bytes]:
        """``n`` datagrams from ``sock``, waiting at most ``timeout`` seconds for each."""
        loop = asyncio.get_running_loop()
        sock.setblocking(False)
        return [await asyncio.wait_for(loop.sock_recv(sock, 65535), timeout) for _ in range(n)]


RigFactory = Callable[..., contextlib.AbstractAsyncContextManager[Rig]]


@pytest.fixture
def rig() -> RigFactory:
    @contextlib.asynccontextmanager
    async def make(down: Direction, up: Direction, **options: Any) -> AsyncIterator[Rig]:
        phone, inner = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
        server, outer = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
        with phone, inner, server, outer:
            forwarder = Forwarder(
                inner.fileno(),
                outer.fileno(),
                down,
                up,
                random.Random(1),
                random.Random(2),
                **options,
            )
            task = asyncio.create_task(forwarder.run())
            await asyncio.sleep(0)
            try:
                yield Rig(phone, server, forwarder)
            finally:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    return make

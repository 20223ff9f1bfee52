"""UDP-GPRS on real UDP sockets over loopback, straight and through the lossy relay."""

import asyncio
import random

from wwanlab.aio.relay import LossyRelay
from wwanlab.aio.udp_gprs import ChannelClosed, UdpGprsSocket
from wwanlab.link.base import Direction
from wwanlab.link.loss import BernoulliLoss
from wwanlab.transports.udp_gprs import UdpGprsConfig

LOOPBACK = ("127.0.0.1", 0)
# Loopback's round trip is well under a millisecond, not GPRS's 0.6-3 s: repair timers
# scaled down so the lossy run takes a fraction of a second, not GPRS seconds.
FAST = UdpGprsConfig(nak_interval=0.1, rto_min=0.05, rto_initial=0.2, rto_max=1.0)


async def echo(server: UdpGprsSocket, count: int) -> None:
    for _ in range(count):
        server.send((await server.receive())[::-1])


def test_messages_cross_loopback_both_ways_in_order() -> None:
    sent = [b"", b"GET /", random.Random(1).randbytes(40_000), b"x" * 1452]

    async def main() -> list[bytes]:
        server = await UdpGprsSocket.listen(LOOPBACK)
        client = await UdpGprsSocket.connect(server.address, rng=random.Random(2), local=LOOPBACK)
        serving = asyncio.create_task(echo(server, len(sent)))
        for m in sent:
            client.send(m)
        try:
            return [await asyncio.wait_for(client.receive(), 10) for _ in sent]
        finally:
            await serving
            client.close()
            server.close()

    assert asyncio.run(main()) == [m[::-1] for m in sent]


def test_lossy_relay_is_repaired_and_close_ends_receive() -> None:
    sent = [random.Random(i).randbytes(3000) for i in range(6)]

    def link() -> tuple[Direction, Direction]:
        return Direction([BernoulliLoss(0.2)]), Direction([BernoulliLoss(0.2)])

    async def main() -> tuple[list[bytes], dict[str, int], bool]:
        server = await UdpGprsSocket.listen(LOOPBACK, config=FAST)
        relay = await LossyRelay.start(server.address, link, random.Random(5))
        client = await UdpGprsSocket.connect(
            relay.address, rng=random.Random(3), local=LOOPBACK, config=FAST
        )
        serving = asyncio.create_task(echo(server, len(sent)))
        for m in sent:
            client.send(m)
        try:
            got = [await asyncio.wait_for(client.receive(), 30) for _ in sent]
            await serving
        finally:
            relay.close()
            client.close()
            server.close()
        try:
            await client.receive()
            closed = False
        except ChannelClosed:
            closed = True
        return got, dict(relay.stats), closed

    got, stats, closed = asyncio.run(main())
    assert got == [m[::-1] for m in sent]
    assert stats["up_dropped"] + stats["down_dropped"] > 0  # the path really dropped
    assert closed

"""The forwarder moves packets between its descriptors as its two Directions say."""

import asyncio
import random

import pytest

from wwanlab.emu.forwarder import Forwarder
from wwanlab.link.base import Direction
from wwanlab.link.delay import ConstantDelay
from wwanlab.link.loss import BernoulliLoss
from wwanlab.link.queue import DropTailQueue
from wwanlab.link.rate import Rate


def test_packets_pass_unchanged_and_in_order_both_ways(rig):
    packets = [bytes([i]) * (20 + i) for i in range(50)]

    async def main():
        async with rig(Direction([]), Direction([])) as r:
            for p in packets:
                r.phone.send(p)
                r.server.send(p[::-1])
            up = await r.receive(r.server, len(packets))
            down = await r.receive(r.phone, len(packets))
            return up, down, r.forwarder

    up, down, forwarder = asyncio.run(main())
    assert up == packets
    assert down == [p[::-1] for p in packets]
    s = forwarder.summary()
    size = sum(map(len, packets))
    for d in ("down", "up"):
        assert (s[d]["packets"], s[d]["bytes"]) == (50, size)
        assert (s[d]["delivered_packets"], s[d]["delivered_bytes"]) == (50, size)
        assert (s[d]["dropped_packets"], s[d]["in_flight"]) == (0, 0)


def test_each_direction_applies_its_own_delay_and_never_delivers_early(rig):
    async def main():
        async with rig(Direction([ConstantDelay(0.080)]), Direction([ConstantDelay(0.020)])) as r:
            loop = asyncio.get_running_loop()
            start = loop.time()
            r.server.send(b"d" * 100)
            r.phone.send(b"u" * 100)
            await r.receive(r.server, 1)
            up_at = loop.time() - start
            await r.receive(r.phone, 1)
            down_at = loop.time() - start
            return up_at, down_at, r.forwarder.summary()

    up_at, down_at, s = asyncio.run(main())
    assert 0.020 <= up_at < down_at
    assert down_at >= 0.080
    # The forwarder measures the added delay from its read to its write: at least the
    # configured delay, and its timer error is never negative.
    assert s["down"]["delay_ms"]["p50"] >= 80.0
    assert s["up"]["delay_ms"]["p50"] >= 20.0
    assert s["down"]["timer_error_ms"]["p50"] >= 0.0


def test_a_rate_stage_spaces_packets_by_their_serialization(rig):
    # 8000 bit/s: a 100-octet packet takes exactly 0.1 s on the line.
    async def main():
        async with rig(Direction([Rate(8000)]), Direction([])) as r:
            for _ in range(5):
                r.server.send(bytes(100))
            await r.receive(r.phone, 5)
            return r.forwarder.summary()["down"]

    down = asyncio.run(main())
    # Queued behind each other: the k-th leaves (k+1) * 0.1 s after the first arrived
    # (the five arrive within a millisecond of each other).
    assert 299.0 <= down["delay_ms"]["p50"] < 310.0
    assert 499.0 <= down["delay_ms"]["max"] < 510.0
    assert down["rate_bps"] == pytest.approx(8000, rel=0.02)


def test_drops_are_counted_by_reason(rig):
    down = Direction([DropTailQueue(Rate(8000), packets=2)])
    up = Direction([BernoulliLoss(1.0)])

    async def main():
        async with rig(down, up) as r:
            for _ in range(5):
                r.server.send(bytes(100))
                r.phone.send(bytes(40))
            await r.receive(r.phone, 2)
            await asyncio.sleep(0.05)
            return r.forwarder.summary()

    s = asyncio.run(main())
    # The queue holds two packets; the other three arrived while both places were taken.
    assert s["down"]["dropped"] == {"queue": 3}
    assert s["down"]["delivered_packets"] == 2
    assert s["up"]["dropped"] == {"loss:bernoulli": 5}
    assert s["up"]["dropped_packets"] == 5
    assert s["up"]["delivered_packets"] == 0
    assert s["up"]["delay_ms"]["p50"] is None
    assert s["up"]["rate_bps"] is None


def test_a_receiver_that_does_not_read_holds_packets_back_without_loss(rig):
    # A datagram socket accepts only so many octets unread: the forwarder waits for
    # room (EAGAIN) instead of dropping, and delivers everything once the reader reads.
    n, size = 2000, 1000

    async def main():
        async with rig(Direction([]), Direction([])) as r:
            loop = asyncio.get_running_loop()
            r.server.setblocking(False)
            for i in range(n):
                await loop.sock_sendall(r.server, i.to_bytes(4, "big") + bytes(size - 4))
            await asyncio.sleep(0.1)
            held = r.forwarder.summary()["down"]["in_flight"]
            got = await r.receive(r.phone, n)
            return held, got, r.forwarder.summary()["down"]

    held, got, down = asyncio.run(main())
    assert held > 0
    assert [int.from_bytes(p[:4], "big") for p in got] == list(range(n))
    assert down["delivered_packets"] == n
    assert down["dropped_packets"] == 0


def test_it_runs_once_and_stops_when_cancelled(rig):
    async def main():
        async with rig(Direction([]), Direction([])) as r:
            forwarder = r.forwarder
            with pytest.raises(RuntimeError):
                await forwarder.run()
        return forwarder.summary()

    s = asyncio.run(main())
    assert s["elapsed_s"] > 0


def test_an_error_on_a_descriptor_ends_run_with_it():
    import os

    async def main():
        r, w = os.pipe()
        os.close(r)
        os.close(w)
        forwarder = Forwarder(r, w, Direction([]), Direction([]), random.Random(), random.Random())
        await asyncio.wait_for(forwarder.run(), 5)

    with pytest.raises(OSError):
        asyncio.run(main())


def test_the_switch_interval_is_short_while_forwarders_run_and_restored_after(rig):
    import sys

    from wwanlab.emu.forwarder import SWITCH_INTERVAL

    before = sys.getswitchinterval()

    async def main():
        async with rig(Direction([]), Direction([])):
            async with rig(Direction([]), Direction([])):
                seen = [sys.getswitchinterval()]
            seen.append(sys.getswitchinterval())  # the first still runs
        return seen

    seen = asyncio.run(main())
    assert seen == pytest.approx([SWITCH_INTERVAL, SWITCH_INTERVAL])
    assert sys.getswitchinterval() == pytest.approx(before)


@pytest.mark.parametrize("fifo", [True, False])
def test_random_delays_reorder_packets_only_on_a_non_fifo_direction(rig, fifo):
    from wwanlab.link.delay import UniformDelay

    n = 40

    async def main():
        down = Direction([UniformDelay(0.0, 0.050)], fifo=fifo)
        async with rig(down, Direction([])) as r:
            for i in range(n):
                r.server.send(i.to_bytes(2, "big"))
            got = await r.receive(r.phone, n)
            return [int.from_bytes(p, "big") for p in got]

    order = asyncio.run(main())
    assert sorted(order) == list(range(n))
    # 40 independent delays of 0-50 ms sent within a millisecond: in order by chance
    # with probability about 1/40!, so a non-FIFO link reorders them.
    assert (order == list(range(n))) is fifo

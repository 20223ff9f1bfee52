"""WWP over real UDP sockets through the project's lossy relay on loopback."""

import asyncio
import itertools
import random

from wwanlab.aio.relay import LossyRelay
from wwanlab.aio.wwp import receive, send
from wwanlab.core.address import Address
from wwanlab.link.presets import vdeldrop_preset
from wwanlab.transports.wwp import WwpConfig

# Short VDELDROP phases (1 s On dropping 30% and delaying up to 50 ms, 1 s Off) at the
# preset's 1.04 Mbit/s: a 300 KB upload crosses several phases in a few seconds.
PRESET = vdeldrop_preset(on=1.0, off=1.0, p=0.3)
CONFIG = WwpConfig(baseline_bps=110_000.0)


def test_file_crosses_vdeldrop_relay_byte_exact() -> None:
    data = random.Random(4).randbytes(300 * 1024 + 99)

    heard: list[tuple[int, int]] = []

    async def main() -> tuple[bytes, dict[str, int]]:
        chunks: list[bytes] = []
        ready: asyncio.Future[Address] = asyncio.get_running_loop().create_future()
        receiving = asyncio.create_task(
            receive(chunks.append, ("127.0.0.1", 0), CONFIG, ready=ready.set_result)
        )
        target = await ready
        relay = await LossyRelay.start(
            target, lambda: (PRESET.build("up"), PRESET.build("down")), random.Random(9)
        )
        try:
            sending = send(
                data,
                relay.address,
                CONFIG,
                ("127.0.0.1", 0),
                progress=lambda a, b: heard.append((a, b)),
            )
            await asyncio.wait_for(sending, 120)
            await asyncio.wait_for(receiving, 30)
        finally:
            relay.close()
        return b"".join(chunks), dict(relay.stats)

    got, stats = asyncio.run(main())
    assert got == data
    assert stats["up_dropped"] > 0  # the path really dropped
    # progress every 2 s: acknowledged octets never go back, and end at the whole file
    assert len(heard) >= 2 and heard[-1] == (len(data), len(data))
    assert all(a[0] <= b[0] for a, b in itertools.pairwise(heard))

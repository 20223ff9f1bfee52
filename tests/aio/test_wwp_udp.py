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


def test_a_closed_port_is_given_up_at_once_on_icmp_port_unreachable() -> None:
    import socket
    import time

    import pytest

    from wwanlab.aio.wwp import WwpUnreachable

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = WwpConfig(probe_t=30.0)  # a second CONN would wait 30 s
    started = time.monotonic()  # the port is closed now: the kernel answers ICMP
    with pytest.raises(WwpUnreachable, match="port unreachable"):
        asyncio.run(send(b"x" * 5000, ("127.0.0.1", port), config))
    assert time.monotonic() - started < 30.0  # the first CONN's answer, not a retry


def test_a_silent_port_is_given_up_after_the_set_up_retries() -> None:
    import socket
    import time

    import pytest

    from wwanlab.aio.wwp import WwpUnreachable

    config = WwpConfig(probe_t=0.02, setup_retries=3)  # CONNs at 0, 0.02, 0.06, 0.14 s
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as silent:  # bound, never answers
        silent.bind(("127.0.0.1", 0))
        started = time.monotonic()
        with pytest.raises(WwpUnreachable, match="3 CONNs unanswered"):
            asyncio.run(send(b"x" * 5000, silent.getsockname(), config))
        elapsed = time.monotonic() - started
        conns = 0
        silent.setblocking(False)
        while True:
            try:
                silent.recv(100)
            except BlockingIOError:
                break
            conns += 1
    assert conns == 4 and elapsed >= 0.3  # the last CONN's 0.16 s timer ends at 0.30 s

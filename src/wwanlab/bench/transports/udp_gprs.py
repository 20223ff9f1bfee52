"""UDP-GPRS (paper 003 4.3.2): the client's first message names the file, the server
answers with its size and then the file in messages.

The reply is an 8-octet big-endian size (``ABSENT`` for a path the server lacks), then
the body cut into messages of ``CHUNK`` octets, so a file larger than one message's
bound still crosses. The credit is sized to the link under test as the transport's own
default is to '3+1' GPRS: the downlink's bandwidth-delay product plus two full
datagrams (docs/udp-gprs.md). UDP-GPRS has no handshake, so ``handshake_s`` is None; one
session per ``serve``, as the bench starts one per transfer.
"""

import asyncio
import contextlib
import dataclasses
import hashlib
import math
import socket
import time
from collections.abc import AsyncIterator

from wwanlab.aio.udp_gprs import UdpGprsSocket
from wwanlab.bench.http import MAX_BODY, BenchProtocolError, Fetched, free_port
from wwanlab.bench.registry import Params, ServeContext, Transport, register
from wwanlab.link.presets import Preset
from wwanlab.pep.tcp_wwan import link_of
from wwanlab.transports.udp_gprs import UdpGprsConfig
from wwanlab.transports.udp_gprs.config import MAX_DATAGRAM

SIZE = 8  # octets of the reply's size field
ABSENT = 2**64 - 1  # the size that says "no such file"
CHUNK = 1 << 20  # octets of body per message, well under the transport's message bound


def config_for(preset: Preset) -> UdpGprsConfig:
    """The default configuration sized to ``preset``'s downlink by the defaults' own
    rules for '3+1' (config.py): the credit its bandwidth-delay product plus two full
    datagrams, the NAK repeat the longest a repair can take (a round trip, then a full
    credit and the repair serialised), the RTO before any sample the link's round trip
    (not paper 003's worst WWAN one; at least RFC 6298's 1 s floor), and the line's
    rate for the RTO's floor."""
    bps, rtt = link_of(preset)
    base = UdpGprsConfig()
    credit = min(math.ceil(bps * rtt / 8) + 2 * MAX_DATAGRAM, base.buffer)
    return dataclasses.replace(
        base,
        credit=credit,
        nak_interval=rtt + (credit + MAX_DATAGRAM) * 8 / bps,
        rto_initial=min(max(base.rto_min, rtt), base.rto_max),
        line_bps=bps,
    )


@contextlib.asynccontextmanager
async def serve(ctx: ServeContext) -> AsyncIterator[Params]:
    port = free_port(ctx.host, socket.SOCK_DGRAM)
    config = config_for(ctx.preset)
    server = await UdpGprsSocket.listen((ctx.host, port), config=config)

    async def answer() -> None:
        path = (await server.receive()).decode("latin-1")
        body = ctx.files.get(path)
        server.send((ABSENT if body is None else len(body)).to_bytes(SIZE, "big"))
        data = body or b""
        for at in range(0, len(data), CHUNK):
            server.send(data[at : at + CHUNK])

    task = asyncio.create_task(answer())
    try:
        yield {
            "host": ctx.host,
            "port": port,
            "credit": config.credit,
            "nak_interval": config.nak_interval,
            "rto_initial": config.rto_initial,
            "line_bps": config.line_bps,
        }
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
        server.close()


async def fetch(params: Params, path: str) -> Fetched:
    config = dataclasses.replace(
        UdpGprsConfig(),
        credit=int(params["credit"]),
        nak_interval=float(params["nak_interval"]),
        rto_initial=float(params["rto_initial"]),
        line_bps=float(params["line_bps"]),
    )
    started = time.perf_counter()
    client = await UdpGprsSocket.connect((str(params["host"]), int(params["port"])), config=config)
    try:
        client.send(path.encode())
        head = await client.receive()
        if len(head) != SIZE:
            raise BenchProtocolError(f"a reply's size field of {len(head)} octets, not {SIZE}")
        size = int.from_bytes(head, "big")
        if size == ABSENT or size > MAX_BODY:
            raise BenchProtocolError(f"no file {path!r}" if size == ABSENT else "too large")
        digest, got = hashlib.sha256(), 0
        while got < size:
            chunk = await client.receive()
            got += len(chunk)
            digest.update(chunk)
        if got != size:
            raise BenchProtocolError(f"{got} octets for a file of {size}")
        return Fetched(None, time.perf_counter() - started, digest.hexdigest(), size)
    finally:
        client.close()


register(
    Transport(
        "udp-gprs",
        "UDP-GPRS",
        "paper 003's custom transport: credit sized to the link, NAKs, no handshake",
        serve=serve,
        fetch=fetch,
        ours=True,
    )
)

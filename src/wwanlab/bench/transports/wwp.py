"""WWP (paper 004): the client asks for the file with one request datagram, and the
server side runs a ``WwpSender`` back to it.

WWP's sender initiates (CONN), but the bench's client fetches. So the client sends a
REQ datagram (octet 0 = ``REQ``, type 12 in the high nibble as WWP's segment types,
then the path, 1 to ``MAX_PATH`` octets) from the socket its ``WwpReceiver`` listens
on, and resends it on WWP's PROBE_T back-off until the first CONN arrives, at most
``setup_retries`` times. The server answers the first REQ naming a file it has with a
sender from the same socket (so a NAT on the way sees one flow), ignores repeats from
that client while it sends, and serves one client per ``serve`` (the bench starts one
per transfer). BT, which both ends must share, is the payload rate of back-to-back DATA
segments on the link's downlink. docs/wwp.md describes the REQ.
"""

import asyncio
import hashlib
import socket
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager

from wwanlab.aio.udp import UdpDriver
from wwanlab.bench.http import MAX_BODY, BenchProtocolError, Fetched, free_port
from wwanlab.bench.registry import Params, ServeContext, Transport, register
from wwanlab.core.address import Address
from wwanlab.core.events import Event
from wwanlab.energy import on_line
from wwanlab.link.presets import Preset
from wwanlab.sim.ipv4 import IPV4_MIN_HEADER, UDP_HEADER
from wwanlab.transports.wwp import (
    DataReceived,
    Failed,
    Finished,
    StreamEnded,
    WwpConfig,
    WwpReceiver,
    WwpSender,
)
from wwanlab.transports.wwp.config import BASELINE_BPS, PAYLOAD_SIZE
from wwanlab.transports.wwp.segment import HEADER
from wwanlab.transports.wwp.sender import MAX_BACKOFF

REQ = 0xC0  # type 12: after WWP's FIN_ACK (11), unused by the protocol itself
MAX_PATH = 255  # octets of a REQ's path


def request(path: str) -> bytes:
    name = path.encode()
    if not 1 <= len(name) <= MAX_PATH:
        raise ValueError(f"a REQ's path must be 1..{MAX_PATH} octets, got {len(name)}")
    return bytes([REQ]) + name


def requested(datagram: bytes) -> str | None:
    """The path a REQ names, or None for anything else."""
    if not 2 <= len(datagram) <= 1 + MAX_PATH or datagram[0] != REQ:
        return None
    return datagram[1:].decode("latin-1")


def baseline(preset: Preset) -> float:
    """BT: payload octets per second of back-to-back DATA segments on the downlink."""
    packet = HEADER + PAYLOAD_SIZE + UDP_HEADER + IPV4_MIN_HEADER
    air = on_line(preset.build("up").stages, preset.build("down").stages)("rx", packet)
    return PAYLOAD_SIZE / air if air > 0 else BASELINE_BPS


class FileSender:
    """Sans-IO: waits for a REQ, then is a ``WwpSender`` of the file to its client."""

    def __init__(self, files: Mapping[str, bytes], config: WwpConfig) -> None:
        self.files = files
        self.config = config
        self.sender: WwpSender | None = None
        self.ignored = 0  # datagrams that were neither a known REQ nor from the client

    def receive_datagram(self, data: bytes, addr: Address, now: float) -> None:
        if self.sender is not None:
            if addr == self.sender.peer and requested(data) is None:
                self.sender.receive_datagram(data, addr, now)
            else:
                self.ignored += 1  # a repeated REQ (the CONN is on its way) or a stranger
            return
        body = self.files.get(requested(data) or "")
        if body is None:
            self.ignored += 1
            return
        self.sender = WwpSender(addr, self.config)
        self.sender.connect(now)
        self.sender.send(body, now)
        self.sender.close(now)

    def handle_timer(self, now: float) -> None:
        if self.sender is not None:
            self.sender.handle_timer(now)

    def get_timer(self) -> float | None:
        return None if self.sender is None else self.sender.get_timer()

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Address]]:
        return [] if self.sender is None else self.sender.datagrams_to_send(now)

    def next_event(self) -> Event | None:
        return None if self.sender is None else self.sender.next_event()


class FileReceiver:
    """Sans-IO: a ``WwpReceiver`` that asks ``server`` for ``path`` until CONN comes."""

    def __init__(self, server: Address, path: str, config: WwpConfig) -> None:
        self.server = server
        self.receiver = WwpReceiver(config)
        self.config = config
        self._request = request(path)
        self._out: list[tuple[bytes, Address]] = []
        self._events: list[Event] = []
        self._timer: float | None = None
        self.requests = 0

    def start(self, now: float) -> None:
        self._ask(now)

    def _ask(self, now: float) -> None:
        self._out.append((self._request, self.server))
        self._timer = now + self.config.probe_t * 2 ** min(self.requests, MAX_BACKOFF)
        self.requests += 1

    def receive_datagram(self, data: bytes, addr: Address, now: float) -> None:
        if addr != self.server:
            return
        self.receiver.receive_datagram(data, addr, now)
        if self.receiver.opened_at is not None:
            self._timer = None  # the sender has it: WWP's own timers from here

    def handle_timer(self, now: float) -> None:
        if self._timer is None or now < self._timer:
            return
        if self.requests > self.config.setup_retries:
            self._timer = None
            self._events.append(Failed(f"{self.requests} REQs unanswered", setup=True))
            return
        self._ask(now)

    def get_timer(self) -> float | None:
        timer = self.receiver.get_timer()
        if self._timer is None:
            return timer
        return self._timer if timer is None else min(timer, self._timer)

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Address]]:
        out, self._out = self._out, []
        return out + self.receiver.datagrams_to_send(now)

    def next_event(self) -> Event | None:
        return self._events.pop(0) if self._events else self.receiver.next_event()


@asynccontextmanager
async def serve(ctx: ServeContext) -> AsyncIterator[Params]:
    bt = baseline(ctx.preset)
    endpoint = FileSender(ctx.files, WwpConfig(baseline_bps=bt))
    port = free_port(ctx.host, socket.SOCK_DGRAM)
    driver = await UdpDriver.bind(endpoint, lambda event: None, (ctx.host, port))
    try:
        yield {"host": ctx.host, "port": port, "bt": bt}
    finally:
        driver.close()


async def fetch(params: Params, path: str) -> Fetched:
    loop = asyncio.get_running_loop()
    server = (str(params["host"]), int(params["port"]))
    client = FileReceiver(server, path, WwpConfig(baseline_bps=float(params["bt"])))
    body = bytearray()
    ended: asyncio.Future[Event] = loop.create_future()

    def on_event(event: Event) -> None:
        if isinstance(event, DataReceived):
            body.extend(event.data)
            if len(body) > MAX_BODY and not ended.done():
                ended.set_exception(BenchProtocolError(f"body over {MAX_BODY} octets"))
        elif isinstance(event, StreamEnded | Failed | Finished) and not ended.done():
            ended.set_result(event)

    driver = await UdpDriver.bind(client, on_event, ("0.0.0.0", 0))
    start = driver.now()
    try:
        client.start(start)
        driver.pump()
        outcome = await ended
        complete = driver.now() - start
    finally:
        driver.close()
    if isinstance(outcome, Failed):
        raise BenchProtocolError(f"no WWP sender: {outcome.reason}")
    opened = client.receiver.opened_at
    handshake = None if opened is None else opened - start
    return Fetched(handshake, complete, hashlib.sha256(body).hexdigest(), len(body))


register(
    Transport(
        "wwp",
        "WWP",
        "Wave & Wait (paper 004): a REQ datagram, then a WWP sender back to the client, "
        "BT from the link",
        serve=serve,
        fetch=fetch,
        ours=True,
    )
)

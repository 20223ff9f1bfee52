"""``wwanlab tunnel`` on real sockets: the sans-IO ends of ``wwanlab.tunnel.session``
under one ``UdpDriver`` each, with TCP on both sides.

The server resolves each OPEN's name itself, applies the destination policy to the
address it will connect to, connects, and relays. The client offers a SOCKS5 proxy
(RFC 1928, CONNECT, no authentication: it listens on loopback) and an HTTP proxy
(CONNECT, and absolute-URI requests for plain HTTP), and sends names, not addresses,
over the air. Both sides stop reading a TCP socket while the channel holds more than
``BACKLOG`` fragments unacknowledged, so a fast origin cannot fill the server's memory.
"""

from __future__ import annotations

import asyncio
import dataclasses
import ipaddress
import logging
import random
import socket
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from wwanlab.aio.udp import UdpDriver
from wwanlab.core.address import Address
from wwanlab.core.events import Event
from wwanlab.tunnel.frames import MAX_DATA, Refusal
from wwanlab.tunnel.policy import IpNetwork, permitted
from wwanlab.tunnel.seal import Keys
from wwanlab.tunnel.session import (
    CHANNEL_CONFIG,
    OpenRequested,
    StreamClosed,
    StreamData,
    StreamOpened,
    StreamRefused,
    StreamReset,
    TunnelClient,
    TunnelFailed,
    TunnelServer,
)

log = logging.getLogger(__name__)

BACKLOG = 64  # fragments unacknowledged on a channel before TCP reading pauses (~90 KB)
CONNECT_TIMEOUT = 20.0  # s: name resolution plus TCP connect at the server
PENDING_LIMIT = 256 * 1024  # octets a stream may carry before its connection is made
MAX_HEAD = 64 * 1024  # octets of an HTTP proxy request head
UNCOMPRESSED_PORTS = frozenset({443, 853, 993, 995})  # TLS: HTTPS, DNS, IMAP, POP3


async def _drain_channel(unacknowledged: Callable[[], int]) -> None:
    """Wait while the channel holds ``BACKLOG`` fragments or more."""
    while unacknowledged() >= BACKLOG:
        await asyncio.sleep(0.02)


@dataclass
class _Origin:
    """One stream's TCP connection at the server (or its data before it connects)."""

    writer: asyncio.StreamWriter | None = None
    pending: list[bytes] = field(default_factory=list)
    pending_octets: int = 0
    eof: bool = False
    task: asyncio.Task[None] | None = None


class TunnelServerProxy:
    """The server end on a UDP socket."""

    def __init__(self, keys: Sequence[Keys], allowed: Sequence[IpNetwork] = ()) -> None:
        self.endpoint = TunnelServer(list(keys), wall_offset=0.0)
        self.allowed = tuple(allowed)
        self.origins: dict[tuple[bytes, int], _Origin] = {}
        self._driver: UdpDriver | None = None

    async def start(self, local: Address) -> Address:
        self._driver = await UdpDriver.bind(self.endpoint, self._event, local)
        self.endpoint.wall_offset = time.time() - self._driver.now()
        return self._driver.local_address

    def close(self) -> None:
        for origin in self.origins.values():
            if origin.task is not None:
                origin.task.cancel()
            if origin.writer is not None:
                origin.writer.close()
        self.origins.clear()
        if self._driver is not None:
            self._driver.close()

    def _now(self) -> float:
        assert self._driver is not None
        return self._driver.now()

    def _event(self, event: Event) -> None:
        if isinstance(event, OpenRequested):
            origin = _Origin()
            self.origins[(event.client, event.stream)] = origin
            origin.task = asyncio.create_task(self._open(event))
        elif isinstance(event, StreamData | StreamClosed):
            found = self.origins.get((event.client, event.stream))
            if found is not None:
                self._to_origin(event, found)
        elif isinstance(event, StreamReset):
            self._drop((event.client, event.stream))
        elif isinstance(event, TunnelFailed):
            for key in [k for k in self.origins if k[0] == event.client]:
                self._drop(key)

    def _to_origin(self, event: StreamData | StreamClosed, origin: _Origin) -> None:
        if origin.writer is not None:
            if isinstance(event, StreamData):
                origin.writer.write(event.data)
            elif origin.writer.can_write_eof():
                origin.writer.write_eof()
            return
        if isinstance(event, StreamClosed):
            origin.eof = True
            return
        origin.pending_octets += len(event.data)
        if origin.pending_octets > PENDING_LIMIT:
            self.endpoint.reset(event.client, event.stream, self._now())
            self._drop((event.client, event.stream))
            return
        origin.pending.append(event.data)

    def _drop(self, key: tuple[bytes, int]) -> None:
        origin = self.origins.pop(key, None)
        if origin is None:
            return
        if origin.task is not None:
            origin.task.cancel()
        if origin.writer is not None:
            origin.writer.close()

    def _pump(self) -> None:
        assert self._driver is not None
        self._driver.pump()

    async def _open(self, event: OpenRequested) -> None:
        client, stream, key = event.client, event.stream, (event.client, event.stream)
        try:
            refusal, why, address = await asyncio.wait_for(
                self._resolve(event.host, event.port), CONNECT_TIMEOUT
            )
            if address is None:
                self.endpoint.refuse(client, stream, refusal, why, self._now())
                self.origins.pop(key, None)
                self._pump()
                return
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection(address, event.port), CONNECT_TIMEOUT
            )
        except (OSError, TimeoutError) as e:
            why = f"{event.host}:{event.port}: {getattr(e, 'strerror', None) or 'timed out'}"
            self.endpoint.refuse(client, stream, Refusal.UNREACHABLE, why, self._now())
            self.origins.pop(key, None)
            self._pump()
            return
        origin = self.origins.get(key)
        if origin is None:  # reset while connecting
            writer.close()
            return
        origin.writer = writer
        self.endpoint.accept(client, stream, self._now())
        for data in origin.pending:
            writer.write(data)
        origin.pending.clear()
        if origin.eof and writer.can_write_eof():
            writer.write_eof()
        self._pump()
        try:
            while data := await reader.read(MAX_DATA):
                self.endpoint.send(client, stream, data, self._now())
                self._pump()
                await _drain_channel(lambda: self.endpoint.unacknowledged(client))
            self.endpoint.close(client, stream, self._now())
            self._pump()
        except (OSError, KeyError):
            self._drop(key)

    async def _resolve(self, host: str, port: int) -> tuple[Refusal, str, str | None]:
        """The first address of ``host`` the policy permits, or why there is none."""
        loop = asyncio.get_running_loop()
        try:
            infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError:
            return Refusal.UNRESOLVED, f"{host} does not resolve", None
        addresses = [str(info[4][0]) for info in infos]
        for address in addresses:
            if permitted(address, self.allowed):
                return Refusal.POLICY, "", address
        return Refusal.POLICY, f"{host} is {addresses[0]}, not a global address", None


class Refused(Exception):
    """The server would not open a stream; ``refusal`` says why."""

    def __init__(self, refusal: Refusal, reason: str) -> None:
        super().__init__(reason)
        self.refusal = refusal


@dataclass
class _Local:
    """One local connection's stream at the client."""

    opened: asyncio.Future[None]
    writer: asyncio.StreamWriter


class TunnelClientProxy:
    """The client end: SOCKS5 and HTTP proxies on loopback, one channel to the server."""

    def __init__(
        self, server: Address, keys: Keys, *, compress: bool = True, credit: int | None = None
    ) -> None:
        config = CHANNEL_CONFIG
        if credit is not None:
            config = dataclasses.replace(config, credit=credit, buffer=max(credit, config.buffer))
        self.endpoint = TunnelClient(server, keys, random.SystemRandom(), time.time(), config)
        self.compress = compress
        self.locals: dict[int, _Local] = {}
        self._driver: UdpDriver | None = None
        self._servers: list[asyncio.Server] = []

    async def start(
        self, socks: Address | None, http: Address | None
    ) -> tuple[Address | None, Address | None]:
        """Bind the channel's socket and the proxies; their bound addresses."""
        self._driver = await UdpDriver.bind(self.endpoint, self._event, ("0.0.0.0", 0))
        bound: list[Address | None] = []
        for where, handler in ((socks, self._socks), (http, self._http)):
            if where is None:
                bound.append(None)
                continue
            server = await asyncio.start_server(handler, where[0], where[1])
            self._servers.append(server)
            name = server.sockets[0].getsockname()
            bound.append((str(name[0]), int(name[1])))
        return bound[0], bound[1]

    async def close(self) -> None:
        for server in self._servers:
            server.close()
        for local in self.locals.values():
            local.writer.close()
        if self._driver is not None:
            self._driver.close()

    def _now(self) -> float:
        assert self._driver is not None
        return self._driver.now()

    def _event(self, event: Event) -> None:
        if isinstance(event, TunnelFailed):
            for local in self.locals.values():
                if not local.opened.done():
                    local.opened.set_exception(Refused(Refusal.UNREACHABLE, event.reason))
                local.writer.close()
            self.locals.clear()
            return
        if not isinstance(
            event, StreamOpened | StreamRefused | StreamData | StreamClosed | StreamReset
        ):
            return  # the channel's own events (stalls)
        found = self.locals.get(event.stream)
        if found is None:
            return
        local = found
        if isinstance(event, StreamOpened) and not local.opened.done():
            local.opened.set_result(None)
        elif isinstance(event, StreamRefused):
            if not local.opened.done():
                local.opened.set_exception(Refused(event.refusal, event.reason))
            del self.locals[event.stream]
        elif isinstance(event, StreamData):
            local.writer.write(event.data)
        elif isinstance(event, StreamClosed) and local.writer.can_write_eof():
            local.writer.write_eof()
        elif isinstance(event, StreamReset):
            local.writer.close()
            del self.locals[event.stream]

    async def _open(self, host: str, port: int, writer: asyncio.StreamWriter) -> int:
        # TLS (443) is ciphertext already: compressing it costs time and saves nothing
        compress = self.compress and port not in UNCOMPRESSED_PORTS
        stream = self.endpoint.open_stream(host, port, self._now(), compress=compress)
        opened = asyncio.get_running_loop().create_future()
        self.locals[stream] = _Local(opened, writer)
        assert self._driver is not None
        self._driver.pump()
        return stream

    async def _relay(self, stream: int, reader: asyncio.StreamReader, first: bytes) -> None:
        """Local octets to the stream until the local side ends; then CLOSE it."""
        assert self._driver is not None
        try:
            if first:
                self.endpoint.send(stream, first, self._now())
                self._driver.pump()
            while data := await reader.read(MAX_DATA):
                self.endpoint.send(stream, data, self._now())
                self._driver.pump()
                await _drain_channel(lambda: self.endpoint.unacknowledged)
            self.endpoint.close(stream, self._now())
        except OSError:
            self.endpoint.reset(stream, self._now())
            self.locals.pop(stream, None)
        self._driver.pump()

    async def _socks(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """RFC 1928: greeting, CONNECT request, reply, then relay."""
        try:
            version, count = await reader.readexactly(2)
            methods = await reader.readexactly(count)
            if version != 5 or 0 not in methods:
                writer.write(b"\x05\xff")  # no acceptable method
                writer.close()
                return
            writer.write(b"\x05\x00")
            version, command, _, kind = await reader.readexactly(4)
            if kind == 1:
                host = str(ipaddress.IPv4Address(await reader.readexactly(4)))
            elif kind == 3:
                (length,) = await reader.readexactly(1)
                host = (await reader.readexactly(length)).decode("idna")
            elif kind == 4:
                host = str(ipaddress.IPv6Address(await reader.readexactly(16)))
            else:
                writer.write(_socks_reply(8))  # address type not supported
                writer.close()
                return
            port = int.from_bytes(await reader.readexactly(2), "big")
            if version != 5 or command != 1:
                writer.write(_socks_reply(7))  # command not supported
                writer.close()
                return
        except (asyncio.IncompleteReadError, UnicodeError, OSError):
            writer.close()
            return
        stream = await self._open(host, port, writer)
        try:
            await self.locals[stream].opened
        except Refused as e:
            writer.write(_socks_reply(SOCKS_REPLIES[e.refusal]))
            writer.close()
            return
        writer.write(_socks_reply(0))
        await self._relay(stream, reader, b"")

    async def _http(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """CONNECT, or one plain-HTTP request in absolute form, through the tunnel."""
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, OSError):
            writer.close()
            return
        request = _ProxyRequest.parse(head)
        if request is None:
            writer.write(b"HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n")
            writer.close()
            return
        stream = await self._open(request.host, request.port, writer)
        opened = self.locals[stream].opened
        relay = None
        if not request.connect:  # the request rides behind the OPEN: no round trip lost
            relay = asyncio.create_task(self._relay(stream, reader, request.forward))
        try:
            await opened
        except Refused as e:
            if relay is not None:
                relay.cancel()
            text = f"{e}\r\n".encode()
            writer.write(
                b"HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\nConnection: close\r\n"
                + f"Content-Length: {len(text)}\r\n\r\n".encode()
                + text
            )
            writer.close()
            return
        if relay is None:
            writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
            await self._relay(stream, reader, b"")
        else:
            await relay


SOCKS_REPLIES = {
    Refusal.POLICY: 2,  # RFC 1928 6: connection not allowed by ruleset
    Refusal.UNRESOLVED: 4,  # host unreachable
    Refusal.UNREACHABLE: 5,  # connection refused
    Refusal.LIMIT: 1,  # general SOCKS server failure
}


def _socks_reply(code: int) -> bytes:
    return bytes([5, code, 0, 1]) + bytes(6)  # bound address 0.0.0.0:0


@dataclass(frozen=True)
class _ProxyRequest:
    host: str
    port: int
    connect: bool
    forward: bytes  # what goes to the origin first (the rewritten head for plain HTTP)

    @classmethod
    def parse(cls, head: bytes) -> _ProxyRequest | None:
        """A proxy request's destination; ``None`` for anything this proxy cannot serve."""
        if len(head) > MAX_HEAD:
            return None
        try:
            line, *fields = head.decode("latin-1").split("\r\n")
            method, target, version = line.split(" ")
        except ValueError:
            return None
        if method == "CONNECT":
            host, _, digits = target.rpartition(":")
            host = host.strip("[]")
            if not host or not digits.isdigit() or not 0 < int(digits) < 65536:
                return None
            return cls(host, int(digits), True, b"")
        try:
            url = urlsplit(target)
            port = url.port or 80
        except ValueError:
            return None
        if url.scheme != "http" or not url.hostname:
            return None
        path = (url.path or "/") + (f"?{url.query}" if url.query else "")
        kept = [
            f
            for f in fields
            if f and f.split(":")[0].strip().lower() not in ("proxy-connection", "connection")
        ]
        rewritten = "\r\n".join([f"{method} {path} {version}", *kept, "Connection: close"])
        return cls(url.hostname, port, False, (rewritten + "\r\n\r\n").encode("latin-1"))

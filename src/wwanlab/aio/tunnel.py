"""``wwanlab tunnel`` on real sockets: the sans-IO ends of ``wwanlab.tunnel.session``
under one ``UdpDriver`` each, with TCP on both sides.

The server resolves each OPEN's name itself, applies the destination policy to the
address it will connect to, connects, and relays. The client offers a SOCKS5 proxy
(RFC 1928, CONNECT, no authentication: it listens on loopback) and an HTTP proxy
(CONNECT, and absolute-URI requests for plain HTTP), and sends names, not addresses,
over the air. Both sides stop reading a TCP socket while the channel holds more than
``BACKLOG`` fragments unacknowledged, so a fast origin cannot fill the server's memory.

The client's plain-HTTP GETs may go through paper 003's dual proxy instead of a stream
(``wwanlab.aio.tunnel_dual``): CHK caching with delta, parse-and-push and compression,
each as the client's ``Techniques`` say; the server runs its side for each client.

Where UDP is blocked the channel's sealed datagrams cross one TCP connection instead
(``wwanlab.tunnel.over_tcp``): the server listens on both, answers each datagram the way
it came, and the client falls back when UDP brings nothing back in time.
"""

from __future__ import annotations

import asyncio
import dataclasses
import ipaddress
import logging
import random
import socket
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from urllib.parse import urldefrag, urlsplit

import aiohttp

from wwanlab.aio.tunnel_dual import ClientDual, ServerDual
from wwanlab.aio.udp import UdpDriver
from wwanlab.core.address import Address
from wwanlab.core.events import Event
from wwanlab.pep.dual.store import DEFAULT_CAPACITY
from wwanlab.transports.udp_gprs.config import RTO_MIN
from wwanlab.tunnel.dual import browser_response, through_dual
from wwanlab.tunnel.frames import MAX_DATA, Refusal, Techniques
from wwanlab.tunnel.over_tcp import (
    FALLBACK_AFTER,
    FIRST_DATAGRAM_WITHIN,
    MAX_UNAUTHENTICATED,
    BadLength,
    Deframer,
    TcpInbound,
    framed,
)
from wwanlab.tunnel.policy import IpNetwork, permitted
from wwanlab.tunnel.seal import Keys
from wwanlab.tunnel.session import (
    CHANNEL_CONFIG,
    OpenRequested,
    ProxyMessage,
    StreamClosed,
    StreamData,
    StreamOpened,
    StreamRefused,
    StreamReset,
    TunnelClient,
    TunnelFailed,
    TunnelServer,
)
from wwanlab.web.fetcher import ObjectArrived

log = logging.getLogger(__name__)

BACKLOG = 64  # fragments unacknowledged on a channel before TCP reading pauses (~90 KB)
CONNECT_TIMEOUT = 20.0  # s: name resolution plus TCP connect at the server
PENDING_LIMIT = 256 * 1024  # octets a stream may carry before its connection is made
MAX_HEAD = 64 * 1024  # octets of an HTTP proxy request head
UNCOMPRESSED_PORTS = frozenset({443, 853, 993, 995})  # TLS: HTTPS, DNS, IMAP, POP3
RECONNECT_AFTER = RTO_MIN  # s: a lost TCP connection to the server is made again after
READ_SIZE = 64 * 1024  # octets read from a TCP connection at a time


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


class _Routes:
    """The server's endpoint as its UDP driver sees it: a datagram for a TCP
    connection's address is written to that connection, not sent by UDP (and dropped
    when that connection is gone: UDP-GPRS repairs it on the next one)."""

    def __init__(self, endpoint: TunnelServer) -> None:
        self.endpoint = endpoint
        self.connections: dict[Address, asyncio.StreamWriter] = {}

    def receive_datagram(self, data: bytes, addr: Address, now: float) -> None:
        self.endpoint.receive_datagram(data, addr, now)

    def handle_timer(self, now: float) -> None:
        self.endpoint.handle_timer(now)

    def get_timer(self) -> float | None:
        return self.endpoint.get_timer()

    def next_event(self) -> Event | None:
        return self.endpoint.next_event()

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Address]]:
        out = []
        for data, addr in self.endpoint.datagrams_to_send(now):
            if not addr[0].startswith("tcp:"):
                out.append((data, addr))
            elif (writer := self.connections.get(addr)) is not None and not writer.is_closing():
                writer.write(framed(data))
        return out


class TunnelServerProxy:
    """The server end on a UDP socket and, optionally, a TCP one.

    ``tcp_closed`` counts the TCP connections ended, by reason."""

    def __init__(
        self,
        keys: Sequence[Keys],
        allowed: Sequence[IpNetwork] = (),
        *,
        first_datagram_within: float = FIRST_DATAGRAM_WITHIN,
    ) -> None:
        self.endpoint = TunnelServer(list(keys), wall_offset=0.0)
        self.allowed = tuple(allowed)
        self.first_datagram_within = first_datagram_within
        self.origins: dict[tuple[bytes, int], _Origin] = {}
        self.tcp_closed: Counter[str] = Counter()
        self.tcp_local: Address | None = None
        self._routes = _Routes(self.endpoint)
        self._by_client: dict[bytes, tuple[TcpInbound, asyncio.StreamWriter]] = {}
        self._unauthenticated = 0
        self._driver: UdpDriver | None = None
        self._tcp: asyncio.Server | None = None
        self._duals: dict[bytes, ServerDual] = {}
        self._session: aiohttp.ClientSession | None = None
        self._closing: asyncio.Task[None] | None = None

    async def start(self, local: Address, tcp: Address | None = None) -> Address:
        """Bind UDP at ``local`` and, given ``tcp``, listen there too; the UDP address."""
        self._driver = await UdpDriver.bind(self._routes, self._event, local)
        self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=None))
        self.endpoint.wall_offset = time.time() - self._driver.now()
        if tcp is not None:
            self._tcp = await asyncio.start_server(self._tcp_connection, tcp[0], tcp[1])
            name = self._tcp.sockets[0].getsockname()
            self.tcp_local = (str(name[0]), int(name[1]))
        return self._driver.local_address

    async def _tcp_connection(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        """One client's datagrams over TCP, until ``TcpInbound`` or the peer ends it."""
        if self._unauthenticated >= MAX_UNAUTHENTICATED:
            self.tcp_closed["too many unauthenticated connections"] += 1
            writer.close()
            return
        host, port = writer.get_extra_info("peername")[:2]
        peer = (str(host), int(port))
        inbound = TcpInbound(self.endpoint, peer, self._now(), self.first_datagram_within)
        self._routes.connections[inbound.address] = writer
        self._unauthenticated += 1
        try:
            while inbound.closed is None:
                timer = inbound.get_timer()
                wait = None if timer is None else max(0.0, timer - self._now())
                try:
                    data = await asyncio.wait_for(reader.read(READ_SIZE), wait)
                except TimeoutError:
                    inbound.handle_timer(self._now())
                    continue
                if not data:
                    inbound.closed = inbound.closed or "closed by the peer"
                    break
                known = inbound.client is not None
                inbound.receive_data(data, self._now())
                if not known and inbound.client is not None:
                    self._authenticated(inbound, writer)
                self._pump()
        except OSError as e:
            inbound.closed = f"error: {e.strerror or e}"
        finally:
            if inbound.client is None:
                self._unauthenticated -= 1
            elif self._by_client.get(inbound.client, (None,))[0] is inbound:
                del self._by_client[inbound.client]
            self._routes.connections.pop(inbound.address, None)
            self.tcp_closed[inbound.closed or "server stopped"] += 1
            writer.close()

    def _authenticated(self, inbound: TcpInbound, writer: asyncio.StreamWriter) -> None:
        """A key's datagrams came on ``inbound``: its older connection, if any, closes."""
        assert inbound.client is not None
        self._unauthenticated -= 1
        older = self._by_client.get(inbound.client)
        if older is not None:
            older[0].closed = "a newer connection of its key"
            older[1].close()
        self._by_client[inbound.client] = (inbound, writer)

    def close(self) -> None:
        if self._tcp is not None:
            self._tcp.close()
        for writer in self._routes.connections.values():
            writer.close()
        for origin in self.origins.values():
            if origin.task is not None:
                origin.task.cancel()
            if origin.writer is not None:
                origin.writer.close()
        self.origins.clear()
        for dual in self._duals.values():
            dual.close()
        self._duals.clear()
        if self._session is not None:
            self._closing = asyncio.get_running_loop().create_task(self._session.close())
        if self._driver is not None:
            self._driver.close()

    async def wait_closed(self) -> None:
        """After ``close``: until the origin connections are closed too."""
        if self._closing is not None:
            await self._closing

    def _now(self) -> float:
        assert self._driver is not None
        return self._driver.now()

    def _dual(self, client: bytes, techniques: Techniques) -> ServerDual:
        """The client's dual-proxy side, made with its first PROXY frame's techniques."""
        dual = self._duals.get(client)
        if dual is None:
            assert self._session is not None

            def send(data: bytes, now: float) -> None:
                if client in self.endpoint.clients:
                    self.endpoint.send_proxy(client, data, techniques, now)

            session, resolve = self._session, self._resolve
            dual = ServerDual(send, techniques, session, resolve, self._now, self._pump)
            self._duals[client] = dual
        return dual

    def _event(self, event: Event) -> None:
        if isinstance(event, ProxyMessage):
            self._dual(event.client, event.techniques).on_message(event.data, self._now())
        elif isinstance(event, OpenRequested):
            origin = _Origin()
            self.origins[(event.client, event.stream)] = origin
            origin.task = asyncio.create_task(self._open(event))
        elif isinstance(event, StreamData | StreamClosed):
            found = self.origins.get((event.client, event.stream))
            if found is not None:
                self._to_origin(event, found)
                self._drop_if_done(event.client, event.stream)
        elif isinstance(event, StreamReset):
            self._drop((event.client, event.stream))
        elif isinstance(event, TunnelFailed):
            for key in [k for k in self.origins if k[0] == event.client]:
                self._drop(key)
            if (dual := self._duals.pop(event.client, None)) is not None:
                dual.close()

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

    def _drop_if_done(self, client: bytes, stream: int) -> None:
        """Both ways closed: the origin's connection and its entry go."""
        if not self.endpoint.holds(client, stream):
            origin = self.origins.pop((client, stream), None)
            if origin is not None and origin.writer is not None:
                origin.writer.close()

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
            self._drop_if_done(client, stream)
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


class _TcpDriver(asyncio.Protocol):
    """The client's channel over TCP: ``UdpDriver``'s shape (input, events, output,
    the one timer), each datagram framed on the connection of the moment. The timer runs
    while no connection is up, so UDP-GPRS repairs what a lost connection took."""

    def __init__(
        self, endpoint: TunnelClient, on_event: Callable[[Event], None], server: Address
    ) -> None:
        self.endpoint = endpoint
        self.on_event = on_event
        self.server = server  # the address the endpoint knows the server by
        self.transport: asyncio.Transport | None = None
        self.lost = asyncio.Event()
        self._deframer = Deframer()
        self._loop = asyncio.get_running_loop()
        self._timer: asyncio.TimerHandle | None = None

    def now(self) -> float:
        return self._loop.time()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self._deframer = Deframer()
        self.lost.clear()
        self.pump()

    def data_received(self, data: bytes) -> None:
        try:
            datagrams = self._deframer.feed(data)
        except BadLength as e:
            log.warning("tunnel server sent %s: closing the connection", e)
            assert self.transport is not None
            self.transport.close()
            return
        for datagram in datagrams:
            self.endpoint.receive_datagram(datagram, self.server, self.now())
        self.pump()

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None
        self.lost.set()

    def pump(self) -> None:
        while (event := self.endpoint.next_event()) is not None:
            self.on_event(event)
        datagrams = self.endpoint.datagrams_to_send(self.now())
        if self.transport is not None and not self.transport.is_closing():
            for data, _ in datagrams:
                self.transport.write(framed(data))
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if (at := self.endpoint.get_timer()) is not None:
            self._timer = self._loop.call_at(at, self._fire)

    def _fire(self) -> None:
        self._timer = None
        self.endpoint.handle_timer(self.now())
        self.pump()

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        if self.transport is not None:
            self.transport.close()


class TunnelClientProxy:
    """The client end: SOCKS5 and HTTP proxies on loopback, one channel to the server.

    ``transport`` is ``udp``, ``tcp`` (to ``tcp_server``, by default the same address)
    or ``auto``: UDP, then TCP if nothing authentic came back ``fallback_after`` after
    the first datagram left. ``carried_by`` says which carries the channel now."""

    def __init__(
        self,
        server: Address,
        keys: Keys,
        *,
        compress: bool = True,
        credit: int | None = None,
        transport: str = "auto",
        tcp_server: Address | None = None,
        fallback_after: float = FALLBACK_AFTER,
        techniques: Techniques | None = None,
        cache_size: int = DEFAULT_CAPACITY,
    ) -> None:
        config = CHANNEL_CONFIG
        if credit is not None:
            config = dataclasses.replace(config, credit=credit, buffer=max(credit, config.buffer))
        self.endpoint = TunnelClient(server, keys, random.SystemRandom(), time.time(), config)
        self.server = server
        self.compress = compress
        self.transport = transport
        self.tcp_server = tcp_server or server
        self.fallback_after = fallback_after
        self.carried_by = "tcp" if transport == "tcp" else "udp"
        self.locals: dict[int, _Local] = {}
        self._driver: UdpDriver | _TcpDriver | None = None
        self._fallback: asyncio.TimerHandle | None = None
        self._tcp_task: asyncio.Task[None] | None = None
        self._servers: list[asyncio.Server] = []
        self.dual: ClientDual | None = None
        if techniques is not None:

            def send(data: bytes, now: float) -> None:
                self.endpoint.send_proxy(data, techniques, now)

            self.dual = ClientDual(send, techniques, cache_size, self._now, self._pump)

    async def start(
        self, socks: Address | None, http: Address | None
    ) -> tuple[Address | None, Address | None]:
        """Bind the channel's socket and the proxies; their bound addresses."""
        if self.transport == "tcp":
            driver = _TcpDriver(self.endpoint, self._event, self.server)
            self._driver = driver
            self._tcp_task = asyncio.create_task(self._over_tcp(driver, falling_back=False))
        else:
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
        if self._fallback is not None:
            self._fallback.cancel()
        if self._tcp_task is not None:
            self._tcp_task.cancel()
        if self._driver is not None:
            self._driver.close()

    async def _over_tcp(self, driver: _TcpDriver, *, falling_back: bool) -> None:
        """Carry the channel over TCP: connect, and again ``RECONNECT_AFTER`` whenever
        the connection fails or drops. Falling back, UDP stays until TCP connects: a
        server that cannot be reached by TCP either is tried again ``fallback_after``
        later, and UDP may yet answer meanwhile."""
        loop = asyncio.get_running_loop()
        while not self.endpoint.streams.failed:  # a failed channel is over for good
            try:
                await loop.create_connection(lambda: driver, *self.tcp_server)
            except OSError as e:
                log.warning("tunnel server %s over tcp: %s", self.tcp_server, e.strerror or e)
                if falling_back:
                    self._tcp_task = None
                    self._fallback = loop.call_later(self.fallback_after, self._fall_back)
                    return
            else:
                if falling_back:
                    log.warning("no answer over udp: the tunnel goes over tcp from now on")
                    assert self._driver is not None
                    self._driver.close()
                    self._driver = driver
                    self.carried_by = "tcp"
                    falling_back = False
                await driver.lost.wait()
            await asyncio.sleep(RECONNECT_AFTER)

    def _fall_back(self) -> None:
        if not self.endpoint.heard and self._tcp_task is None:
            driver = _TcpDriver(self.endpoint, self._event, self.server)
            self._tcp_task = asyncio.create_task(self._over_tcp(driver, falling_back=True))

    def _now(self) -> float:
        assert self._driver is not None
        return self._driver.now()

    def _pump(self) -> None:
        assert self._driver is not None
        self._driver.pump()

    def _event(self, event: Event) -> None:
        if isinstance(event, ProxyMessage):
            if self.dual is not None:
                self.dual.on_message(event.data, self._now())
            return
        if isinstance(event, TunnelFailed):
            if self.dual is not None:
                self.dual.fail(event.reason, self._now())
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
        elif isinstance(event, StreamClosed):
            if local.writer.can_write_eof():
                local.writer.write_eof()
            self._forget_if_done(event.stream)
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
        if self.transport == "auto" and self._fallback is None:  # the first datagram left
            self._fallback = asyncio.get_running_loop().call_later(
                self.fallback_after, self._fall_back
            )
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
            self._driver.pump()
            self._forget_if_done(stream)
        except OSError:
            self.endpoint.reset(stream, self._now())
            self.locals.pop(stream, None)
            self._driver.pump()

    def _forget_if_done(self, stream: int) -> None:
        """Both ways closed: the local connection and its entry go."""
        if not self.endpoint.holds(stream) and (local := self.locals.pop(stream, None)):
            local.writer.close()

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
        if self.dual is not None and not request.connect and through_dual(*request.asked):
            answer = await self.dual.get(request.url)
            if isinstance(answer, ObjectArrived):
                writer.write(browser_response(answer, request.asked[1]))
                writer.close()
                return
            log.info("dual proxy: %s; %s goes as a stream", answer, request.url)
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
    url: str = ""  # plain HTTP: the absolute URL
    asked: tuple[str, dict[str, str]] = ("CONNECT", {})  # method, fields by lower-case name

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
        named = (f.partition(":") for f in kept)
        asked = (method, {n.strip().lower(): v.strip() for n, _, v in named})
        forward = (rewritten + "\r\n\r\n").encode("latin-1")
        return cls(url.hostname, port, False, forward, urldefrag(target).url, asked)

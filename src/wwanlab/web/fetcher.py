"""The part of a browser that turns "get this URL" into traffic: a ``Fetcher``.

A browser decides *what* to fetch (the main document, then what it embeds); a fetcher
decides *how*: which names to resolve, which connections to open to whom, how requests
share them. Paper 003 compares fetchers as much as pages: a browser talking straight to
the origins (``DirectFetcher``, every strategy of Table 5), the same browser behind a
URL-rewriting or DNS-boosting proxy (section 4.2.2: still a ``DirectFetcher``, the proxy
changes what it is told), and dual-proxy schemes whose client side is a fetcher of its
own (sections 4.1.3, 4.2.3, 4.3.2).

A fetcher is sans-IO, like every endpoint here, but it speaks on several local ports
and more than one IP protocol (DNS over UDP, HTTP over TCP), so its contract names both
where a datagram arrived and where one leaves from::

    fetcher.ports() -> [(ip_protocol, range_of_local_ports), ...]   # what to bind
    fetcher.receive(protocol, port, data, addr, now)                 # one arrival
    fetcher.datagrams_to_send(now) -> [Datagram(protocol, port, data, addr), ...]
    fetcher.handle_timer(now) / get_timer() / next_event()
    fetcher.fetch(url, now)                                          # the command

For TCP ``data`` is a whole segment (it carries its own ports), for UDP the payload.
Everything but ``fetch`` is a ``PortEndpoint``, which servers on several ports (the
URL-rewriting proxy, a dual proxy's server side) also are. Events say what the browser
and the latency breakdown need: an object arrived or failed, and the timeline of
Figure 3 (DNS lookups, connections opened and established, requests sent). A
simulator driver lives in ``wwanlab.web.topology``.
"""

import ipaddress
import random
from dataclasses import dataclass
from typing import NamedTuple, Protocol

from wwanlab.core.address import Address
from wwanlab.core.events import Event
from wwanlab.tcp import TcpConfig
from wwanlab.web.client import HttpClient, Strategy
from wwanlab.web.dns import ResolutionFailed, Resolved, StubResolver
from wwanlab.web.events import (
    ConnectionEnded,
    ConnectionReady,
    ConnectionStarted,
    RequestFailed,
    RequestWritten,
    ResponseReceived,
    WebEvent,
)
from wwanlab.web.http1 import Response
from wwanlab.web.page import split_url

PROTO_TCP = 6  # IANA protocol numbers (RFC 790)
PROTO_UDP = 17
HTTP_PORT = 80  # RFC 9110 4.2.1
RESOLVER_PORT = 32768  # the client's DNS socket: the first of Linux's ephemeral ports
FIRST_TCP_PORT = 49152  # RFC 6335 6: the dynamic/private port range
PORTS_PER_SERVER = 256  # local ports each server's connections may use (never reused)
MAX_SERVERS = 64  # servers one fetcher talks to; PORTS_PER_SERVER * MAX_SERVERS <= 16384


class Datagram(NamedTuple):
    """One datagram to send: IP protocol, the local port it leaves from, bytes, peer."""

    protocol: int
    port: int
    data: bytes
    addr: Address


# --- events -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LookupStarted(WebEvent):
    """A DNS query for ``name`` left."""

    name: str
    at: float


@dataclass(frozen=True, slots=True)
class LookupDone(WebEvent):
    """The lookup of ``name`` ended: ``address`` ("" when it failed, then ``reason``)."""

    name: str
    address: str
    reason: str
    at: float


@dataclass(frozen=True, slots=True)
class ConnectionOpened(WebEvent):
    """A connection (``connection``: its local port) to ``server`` sent its SYN."""

    connection: int
    server: str
    at: float


@dataclass(frozen=True, slots=True)
class ConnectionEstablished(WebEvent):
    """The handshake of ``connection`` completed."""

    connection: int
    at: float


@dataclass(frozen=True, slots=True)
class ConnectionClosed(WebEvent):
    """``connection`` will carry nothing more."""

    connection: int
    at: float


@dataclass(frozen=True, slots=True)
class RequestSent(WebEvent):
    """The GET for ``url`` was written to ``connection``."""

    url: str
    connection: int
    at: float


@dataclass(frozen=True, slots=True)
class ObjectArrived(WebEvent):
    """The whole response for ``url`` arrived at ``at`` over ``connection``."""

    url: str
    status: int
    body: bytes
    content_type: str
    encoding: str  # Content-Encoding, "identity" when absent
    connection: int
    at: float
    headers: tuple[tuple[str, str], ...] = ()  # the response's header fields (caching)


@dataclass(frozen=True, slots=True)
class FetchFailed(WebEvent):
    """``url`` will not arrive: ``reason`` says why (NXDOMAIN, reset, bad URL, ...)."""

    url: str
    reason: str
    at: float


class PortEndpoint(Protocol):
    """A sans-IO endpoint on several local ports and IP protocols of one host."""

    def ports(self) -> list[tuple[int, range]]: ...

    def receive(
        self, protocol: int, port: int, data: bytes, addr: Address, now: float
    ) -> None: ...

    def handle_timer(self, now: float) -> None: ...

    def get_timer(self) -> float | None: ...

    def datagrams_to_send(self, now: float) -> list[Datagram]: ...

    def next_event(self) -> Event | None: ...


class Fetcher(PortEndpoint, Protocol):
    """What the browser drives: see the module docstring."""

    def fetch(self, url: str, now: float) -> None: ...


def response_meta(response_headers: tuple[tuple[str, str], ...]) -> tuple[str, str]:
    """(Content-Type, Content-Encoding) of a response, with the HTTP defaults."""
    response = Response("HTTP/1.1", 200, "", response_headers, b"")
    content_type = response.header("content-type") or "application/octet-stream"
    return content_type, (response.header("content-encoding") or "identity").lower()


def _is_address(host: str) -> bool:
    try:
        ipaddress.IPv4Address(host)
    except ValueError:
        return False
    return True


# --- the direct fetcher ----------------------------------------------------------------


class DirectFetcher:
    """A browser's own networking: DNS through a stub resolver (one lookup per name,
    remembered for the page; glibc's retry defaults), then HTTP to each server under
    ``strategy``.

    Connections are pooled per server *address*: names that resolve to one address
    share its connections, which is what DNS boosting (paper 003 section 4.2.2) relies
    on. A URL whose host is an IPv4 literal needs no lookup (URL rewriting).
    """

    def __init__(
        self,
        local_ip: str,
        dns: Address,
        config: TcpConfig,
        rng: random.Random,
        strategy: Strategy,
        *,
        resolver_port: int = RESOLVER_PORT,
        first_port: int = FIRST_TCP_PORT,
        ports_per_server: int = PORTS_PER_SERVER,
        max_servers: int = MAX_SERVERS,
    ) -> None:
        self.local_ip = local_ip
        self._config = config
        self._rng = rng
        self._strategy = strategy
        self._resolver = StubResolver(dns, rng)
        self._resolver_port = resolver_port
        self._first_port = first_port
        self._per_server = ports_per_server
        self._max_servers = max_servers
        self._addresses: dict[str, str] = {}  # name -> address
        self._failed: dict[str, str] = {}  # name -> why its lookup failed
        self._waiting: dict[str, list[str]] = {}  # name being resolved -> URLs
        self._clients: dict[str, HttpClient] = {}  # server address -> its client
        self._by_slot: list[HttpClient] = []  # clients in port-block order
        self._urls: dict[tuple[str, str, str], list[str]] = {}  # (addr, host, target) -> URLs
        self._headers: dict[str, tuple[tuple[str, str], ...]] = {}  # URL -> its request headers
        self._events: list[Event] = []

    @property
    def dns_queries(self) -> int:
        """DNS query datagrams sent, retries included."""
        return self._resolver.queries_sent

    def ports(self) -> list[tuple[int, range]]:
        tcp = range(self._first_port, self._first_port + self._per_server * self._max_servers)
        return [(PROTO_UDP, range(self._resolver_port, self._resolver_port + 1)), (PROTO_TCP, tcp)]

    def fetch(self, url: str, now: float, headers: tuple[tuple[str, str], ...] = ()) -> None:
        """GET ``url`` with ``headers`` (a conditional request's validators)."""
        try:
            host, target = split_url(url)
        except ValueError:
            self._events.append(FetchFailed(url, "not an absolute http URL", now))
            return
        host = host.lower()
        if headers:
            self._headers[url] = headers
        if _is_address(host):
            self._send(url, host, target, host, now)
        elif host in self._addresses:
            self._send(url, host, target, self._addresses[host], now)
        elif host in self._failed:
            self._events.append(FetchFailed(url, self._failed[host], now))
        elif host in self._waiting:
            self._waiting[host].append(url)
        else:
            self._waiting[host] = [url]
            self._events.append(LookupStarted(host, now))
            self._resolver.resolve(host, now)

    def _send(self, url: str, host: str, target: str, address: str, now: float) -> None:
        client = self._clients.get(address)
        if client is None:
            if len(self._by_slot) >= self._max_servers:
                self._events.append(FetchFailed(url, "too many servers", now))
                return
            client = HttpClient(
                self.local_ip,
                (address, HTTP_PORT),
                self._config,
                self._rng,
                self._strategy,
                first_port=self._first_port + len(self._by_slot) * self._per_server,
                max_ports=self._per_server,
            )
            self._clients[address] = client
            self._by_slot.append(client)
        self._urls.setdefault((address, host, target), []).append(url)
        client.get(target, now, host, self._headers.pop(url, ()))

    def _url(self, client: HttpClient, host: str, target: str) -> str | None:
        urls = self._urls.get((client.server[0], host, target))
        return urls.pop(0) if urls else None

    def _pump(self, now: float) -> None:
        resolver = self._resolver
        while (event := resolver.next_event()) is not None:
            if isinstance(event, Resolved | ResolutionFailed):
                self._resolved(event, now)
        for client in self._by_slot:
            while (event := client.next_event()) is not None:
                self._client_event(client, event, now)

    def _resolved(self, event: Resolved | ResolutionFailed, now: float) -> None:
        name = event.name.lower()
        urls = self._waiting.pop(name, [])
        if isinstance(event, Resolved) and event.addresses:
            address = event.addresses[0]
            self._addresses[name] = address
            self._events.append(LookupDone(name, address, "", now))
            for url in urls:
                self._send(url, name, split_url(url)[1], address, now)
            return
        reason = event.reason if isinstance(event, ResolutionFailed) else "no address"
        self._failed[name] = reason
        self._events.append(LookupDone(name, "", reason, now))
        self._events.extend(FetchFailed(url, f"DNS: {reason}", now) for url in urls)

    def _client_event(self, client: HttpClient, event: Event, now: float) -> None:
        out = self._events
        if isinstance(event, ResponseReceived):
            url = self._url(client, event.host, event.target)
            if url is not None:
                content_type, encoding = response_meta(event.headers)
                out.append(
                    ObjectArrived(
                        url,
                        event.status,
                        event.body,
                        content_type,
                        encoding,
                        event.port,
                        event.at,
                        event.headers,
                    )
                )
        elif isinstance(event, RequestFailed):
            url = self._url(client, event.host, event.target)
            if url is not None:
                out.append(FetchFailed(url, event.reason, now))
        elif isinstance(event, RequestWritten):
            urls = self._urls.get((client.server[0], event.host, event.target))
            if urls:
                out.append(RequestSent(urls[0], event.port, event.at))
        elif isinstance(event, ConnectionStarted):
            out.append(ConnectionOpened(event.port, client.server[0], event.at))
        elif isinstance(event, ConnectionReady):
            out.append(ConnectionEstablished(event.port, event.at))
        elif isinstance(event, ConnectionEnded):
            out.append(ConnectionClosed(event.port, event.at))

    def _client_for(self, port: int) -> HttpClient | None:
        slot = (port - self._first_port) // self._per_server
        return self._by_slot[slot] if 0 <= slot < len(self._by_slot) else None

    # --- the fetcher contract ---------------------------------------------------------

    def receive(self, protocol: int, port: int, data: bytes, addr: Address, now: float) -> None:
        if protocol == PROTO_UDP and port == self._resolver_port:
            self._resolver.receive_datagram(data, addr, now)
        elif protocol == PROTO_TCP and (client := self._client_for(port)) is not None:
            client.receive_datagram(data, addr, now)
        self._pump(now)

    def handle_timer(self, now: float) -> None:
        resolver_due = self._resolver.get_timer()
        if resolver_due is not None and resolver_due <= now:
            self._resolver.handle_timer(now)
        for client in self._by_slot:
            due = client.get_timer()
            if due is not None and due <= now:
                client.handle_timer(now)
        self._pump(now)

    def get_timer(self) -> float | None:
        timers = [self._resolver.get_timer(), *(c.get_timer() for c in self._by_slot)]
        return min((t for t in timers if t is not None), default=None)

    def datagrams_to_send(self, now: float) -> list[Datagram]:
        self._pump(now)
        out = [
            Datagram(PROTO_UDP, self._resolver_port, data, addr)
            for data, addr in self._resolver.datagrams_to_send(now)
        ]
        for client in self._by_slot:
            for segment, addr in client.datagrams_to_send(now):
                out.append(Datagram(PROTO_TCP, int.from_bytes(segment[:2], "big"), segment, addr))
        self._pump(now)  # sending may have produced events (RequestWritten)
        return out

    def next_event(self) -> Event | None:
        return self._events.pop(0) if self._events else None

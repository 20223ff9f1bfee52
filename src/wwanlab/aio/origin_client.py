"""The gateway's HTTP/1.1 client: keep-alive connections to origins, one pool per origin.

A WAP gateway asks the same few origins for small documents over and over, so what
matters is that a fetch costs one write and one read on a connection already open
(RFC 9112 9.3, persistence): ``OriginClient.fetch`` takes an idle connection of the
origin's pool or opens one, writes the request (``web.http1.encode_request``), parses
the answer with ``web.http1.ResponseReader`` as its octets arrive, and puts the
connection back when the response allows (``Response.keep_alive``). One request at a
time per connection, no pipelining.

The ``OriginPolicy`` is checked on every address a connection would go to: an IP
literal before anything is sent, and each address a host name resolves to, so a name
that points at 127.0.0.1 is refused as surely as the literal (``OriginRefused``).

A connection idle for ``KEEPALIVE_TIMEOUT`` is closed rather than reused, and one the
origin closed while idle leaves its pool at once. A request written on a reused
connection that the origin closes before answering any octet is sent again once on a
new connection when its method is idempotent (RFC 9112 9.3.1, RFC 9110 9.2.2): the
origin may have closed the idle connection as the request was on its way.

Bodies are bounded (``max_body``, raised as ``web.http1.BodyTooLarge``), a gzip or
deflate content coding is removed, and the caller bounds the time (``asyncio.timeout``):
a fetch cancelled mid-way closes its connection.
"""

import asyncio
import ipaddress
import socket
import time
from collections.abc import Sequence
from typing import cast
from urllib.parse import urlsplit

from wwanlab.wap.gateway.policy import OriginPolicy
from wwanlab.web.http1 import (
    BodyTooLarge,
    HttpError,
    Response,
    ResponseReader,
    decode_body,
    encode_request,
)

KEEPALIVE_TIMEOUT = 15.0  # s an idle connection is kept for reuse (aiohttp's default)
MAX_IDLE_PER_ORIGIN = 64  # idle connections kept per origin; more are closed
ACCEPT_ENCODING = "gzip, deflate"  # the codings decode_body removes (RFC 9110 12.5.3)
IDEMPOTENT = frozenset({"GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"})  # RFC 9110 9.2.2
# Replaced by the client: framing and connection fields, and the codings it can undo.
_OWN_FIELDS = frozenset({"host", "content-length", "connection", "accept-encoding"})
_FORBIDDEN_IN_FIELDS = ("\r", "\n", "\0")  # would end a field early (RFC 9110 5.5)

Header = tuple[str, str]


class OriginRefused(OSError):
    """The origin's address is one the policy forbids."""


class OriginUnreachable(OSError):
    """No connection to the origin: its name did not resolve or every connect failed."""


class _Stale(ConnectionError):
    """A reused connection closed before the response's first octet."""


class _Connection(asyncio.Protocol):
    """One TCP connection to an origin, one request at a time."""

    def __init__(self, key: tuple[str, int], max_body: int) -> None:
        self.key = key
        self.reader = ResponseReader(max_body)
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self.reused = False
        self.idle_since = 0.0
        self._waiter: asyncio.Future[Response] | None = None
        self._received = False

    def request(self, data: bytes, head: bool) -> "asyncio.Future[Response]":
        assert self.transport is not None and self._waiter is None
        self._waiter = asyncio.get_running_loop().create_future()
        self._received = False
        if head:
            self.reader.expect_head_response()
        self.transport.write(data)
        return self._waiter

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()

    # asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transport is a Transport in all but its base classes
        self.transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        if self._waiter is None:
            self._fail(HttpError("origin sent octets while no request was waiting"))
            return
        self._received = True
        try:
            responses = self.reader.feed(data)
        except HttpError as exc:
            self._fail(exc)
            return
        responses = [r for r in responses if not 100 <= r.status < 200]  # RFC 9110 15.2
        if not responses:
            return
        if self._waiter.done() or len(responses) > 1:
            self._fail(HttpError("origin sent a response nobody asked for"))
            return
        self._waiter.set_result(responses[0])
        self._waiter = None

    def eof_received(self) -> bool:
        try:
            response = self.reader.eof()
        except HttpError as exc:
            self._fail(exc)
            return False
        if response is not None and self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(response)
            self._waiter = None
        self.closed = True  # the origin said it will not read our next request
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self._received or not self.reused:
            self._fail(ConnectionResetError("origin closed the connection before answering"))
        else:
            self._fail(_Stale("origin closed the idle connection"))

    def _fail(self, exc: Exception) -> None:
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_exception(exc)
        self.close()


def _forbidden_octets(*texts: str) -> bool:
    return any(c in text for text in texts for c in _FORBIDDEN_IN_FIELDS)


class OriginClient:
    """Fetches from origins the policy permits, over pooled keep-alive connections."""

    def __init__(self, policy: OriginPolicy, max_body: int) -> None:
        self.policy = policy
        self.max_body = max_body
        self._idle: dict[tuple[str, int], list[_Connection]] = {}
        self._busy: set[_Connection] = set()
        self.connections_opened = 0

    async def fetch(
        self, method: str, url: str, headers: Sequence[Header], body: bytes = b""
    ) -> Response:
        """The origin's response, its content coding removed.

        Raises ``OriginRefused``, ``OriginUnreachable``, ``BodyTooLarge``, ``HttpError``
        for a malformed response, ``ValueError`` for a URL or field that cannot be sent
        and ``ConnectionError`` when the origin drops the connection.
        """
        parts = urlsplit(url)
        host = parts.hostname
        if parts.scheme != "http" or not host:
            raise ValueError(f"not an absolute http URL: {url[:80]!r}")
        key = (host, parts.port or 80)  # parts.port raises ValueError when out of range
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        fields = [(k, v) for k, v in headers if k.lower() not in _OWN_FIELDS]
        fields.append(("Accept-Encoding", ACCEPT_ENCODING))
        if " " in target or _forbidden_octets(target, *(t for f in fields for t in f)):
            raise ValueError("a space, line break or NUL where HTTP forbids it")
        data = encode_request(
            target,
            parts.netloc.rpartition("@")[2],
            method=method,
            headers=tuple(fields),
            body=body,
        )
        head = method == "HEAD"
        connection = await self._acquire(key)
        try:
            response = await self._exchange(connection, data, head)
        except _Stale:
            if method not in IDEMPOTENT:
                raise ConnectionResetError(
                    f"origin closed a kept-alive connection; a {method} is not sent twice"
                ) from None
            connection = await self._connect(key)
            response = await self._exchange(connection, data, head)
        encoding = response.header("content-encoding")
        if encoding is None:
            return response
        decoded = decode_body(response.body, encoding)
        if len(decoded) > self.max_body:
            raise BodyTooLarge(f"response body over {self.max_body} octets once decoded")
        return Response(
            response.version, response.status, response.reason, response.headers, decoded
        )

    async def _exchange(self, connection: _Connection, data: bytes, head: bool) -> Response:
        self._busy.add(connection)
        try:
            response = await connection.request(data, head)
        except BaseException:
            connection.close()  # cancelled, timed out or failed: its state is unknown
            raise
        finally:
            self._busy.discard(connection)
        if response.keep_alive and not connection.closed and connection.reader.idle:
            self._release(connection)
        else:
            connection.close()
        return response

    async def _acquire(self, key: tuple[str, int]) -> _Connection:
        idle = self._idle.get(key)
        now = time.monotonic()
        while idle:
            connection = idle.pop()  # the most recently used: the least likely to be closed
            if not connection.closed and now - connection.idle_since < KEEPALIVE_TIMEOUT:
                connection.reused = True
                return connection
            connection.close()
        return await self._connect(key)

    def _release(self, connection: _Connection) -> None:
        idle = self._idle.setdefault(connection.key, [])
        now = time.monotonic()
        while idle and (idle[0].closed or now - idle[0].idle_since >= KEEPALIVE_TIMEOUT):
            idle.pop(0).close()
        if len(idle) >= MAX_IDLE_PER_ORIGIN:
            connection.close()
            return
        connection.idle_since = now
        idle.append(connection)

    async def _connect(self, key: tuple[str, int]) -> _Connection:
        host, port = key
        loop = asyncio.get_running_loop()
        addresses = await self._addresses(host, port)
        error: OSError | None = None
        for address in addresses:
            try:
                _, connection = await loop.create_connection(
                    lambda: _Connection(key, self.max_body), address, port
                )
            except OSError as exc:
                error = exc
                continue
            self.connections_opened += 1
            return connection
        raise OriginUnreachable(f"cannot connect to origin: {error}")

    async def _addresses(self, host: str, port: int) -> list[str]:
        """The addresses to try, in the resolver's order, all permitted by the policy."""
        try:
            literal = ipaddress.ip_address(host)
        except ValueError:
            literal = None
        if literal is not None:
            if not self.policy.permits(literal):
                raise OriginRefused(f"origin {host} is not allowed")
            return [str(literal)]
        try:
            infos = await asyncio.get_running_loop().getaddrinfo(
                host, port, type=socket.SOCK_STREAM
            )
        except OSError as exc:
            raise OriginUnreachable(f"cannot connect to origin: {exc}") from None
        found = list(dict.fromkeys(str(info[4][0]) for info in infos))
        allowed = [a for a in found if self.policy.permits(a)]
        if not allowed:
            raise OriginRefused(f"origin {host} resolves only to refused addresses")
        return allowed

    async def close(self) -> None:
        """Close every connection, idle or busy."""
        for pool in self._idle.values():
            for connection in pool:
                connection.close()
        self._idle.clear()
        for connection in list(self._busy):
            connection.close()

"""An HTTP/1.x client on the sans-IO TCP stack, with the strategies the papers compare.

- HTTP/1.0 (RFC 1945): one connection per request, up to ``connections`` at once; the
  server closes after each response.
- HTTP/1.1 persistent (RFC 9112 9.3): up to ``connections`` connections kept open, one
  request outstanding on each.
- HTTP/1.1 pipelined (RFC 9112 9.3.2): requests are written without waiting, spread
  over the open connections (fewest outstanding first).

The client is a contract endpoint for all of its local ports (``ports``).
"""

import random
from collections import deque
from dataclasses import dataclass, field

from wwanlab.core.address import Address
from wwanlab.core.contract import Endpoint
from wwanlab.core.errors import UsageError
from wwanlab.core.events import Event
from wwanlab.core.layer import Layer
from wwanlab.tcp import (
    ConnectionAborted,
    ConnectionEstablished,
    ConnectionReset,
    DataReceived,
    PeerClosed,
    TcpConfig,
)
from wwanlab.tcp.stack import Handle, TcpStack
from wwanlab.web.events import (
    ConnectionEnded,
    ConnectionReady,
    ConnectionStarted,
    PageLoaded,
    RequestFailed,
    RequestWritten,
    ResponseReceived,
)
from wwanlab.web.http1 import HttpError, Response, ResponseReader, encode_request


@dataclass(frozen=True, slots=True)
class Strategy:
    """How requests map onto connections."""

    version: str = "HTTP/1.1"  # or "HTTP/1.0"
    connections: int = 1
    pipelining: bool = False

    def __post_init__(self) -> None:
        if self.version not in ("HTTP/1.0", "HTTP/1.1"):
            raise UsageError(f"unknown HTTP version {self.version!r}")
        if self.connections < 1:
            raise UsageError(f"connections must be at least 1, not {self.connections}")
        if self.pipelining and self.version == "HTTP/1.0":
            raise UsageError("HTTP/1.0 has no pipelining")


@dataclass(frozen=True, slots=True)
class _Outgoing:
    """A request waiting for a connection."""

    target: str
    method: str = "GET"
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes = b""
    host: str = ""  # the Host header; the server's address when empty


@dataclass
class _Page:
    main: str
    embedded: list[str]
    started: float
    main_done: bool = False
    waiting: int = 0
    bytes: int = 0


@dataclass
class _Connection:
    handle: Handle
    reader: ResponseReader = field(default_factory=ResponseReader)
    outstanding: deque[_Outgoing] = field(default_factory=deque)
    open: bool = True


class HttpClient(Layer):
    """GETs (or POSTs to) paths of ``server`` following ``strategy``."""

    def __init__(
        self,
        local_ip: str,
        server: Address,
        config: TcpConfig,
        rng: random.Random,
        strategy: Strategy = Strategy(),
        first_port: int = 49152,
        max_ports: int = 64,
    ) -> None:
        self.stack = TcpStack(local_ip, config, rng, first_port, max_ports)
        self.server = server
        self.strategy = strategy
        self._queue: deque[_Outgoing] = deque()
        self._conns: dict[int, _Connection] = {}
        self._events: list[Event] = []
        self._page: _Page | None = None

    @property
    def ports(self) -> range:
        return self.stack.ports

    @property
    def connections_opened(self) -> int:
        return len(self._conns)

    def get(
        self, target: str, now: float, host: str = "", headers: tuple[tuple[str, str], ...] = ()
    ) -> None:
        """Queue a GET (naming ``host``, default the server's address, with ``headers``);
        it leaves as soon as the strategy allows."""
        self._queue.append(_Outgoing(target, headers=headers, host=host))
        self._dispatch(now)

    def post(
        self,
        target: str,
        content_type: str,
        body: bytes,
        now: float,
        headers: tuple[tuple[str, str], ...] = (),
    ) -> None:
        """Queue a POST of ``body``; it leaves as soon as the strategy allows."""
        head = (("Content-Type", content_type), *headers)
        self._queue.append(_Outgoing(target, "POST", head, body))
        self._dispatch(now)

    def get_page(self, main: str, embedded: list[str], now: float) -> None:
        """Fetch ``main``, then, once it has arrived, every embedded object (as a
        browser does after parsing); ``PageLoaded`` follows the last response."""
        self._page = _Page(main, embedded, now)
        self.get(main, now)

    def close_all(self) -> None:
        """Close every persistent connection (after their responses)."""
        for conn in self._conns.values():
            if conn.open:
                conn.open = False
                self.stack.close(conn.handle)

    def _dispatch(self, now: float) -> None:
        strategy = self.strategy
        while self._queue:
            conn = self._pick(now)
            if conn is None:
                break
            out = self._queue.popleft()
            conn.outstanding.append(out)
            host = out.host or self.server[0]
            request = encode_request(
                out.target,
                host,
                strategy.version,
                method=out.method,
                headers=out.headers,
                body=out.body,
            )
            self.stack.send(conn.handle, request)
            self._events.append(RequestWritten(host, out.target, conn.handle[0], now))
        if self._queue and self._out_of_ports():
            while self._queue:
                out = self._queue.popleft()
                self._events.append(RequestFailed(out.target, "no free local port", out.host))

    def _out_of_ports(self) -> bool:
        """Every local port has been used and no open connection can take a request."""
        if len(self._conns) < len(self.stack.ports):
            return False
        return not any(c.open for c in self._conns.values())

    def _pick(self, now: float) -> _Connection | None:
        """The connection for the next request, opening one if the strategy allows."""
        live = [c for c in self._conns.values() if c.open]
        strategy = self.strategy
        if strategy.version == "HTTP/1.0":
            busy = [c for c in live if c.outstanding]
            if len(busy) >= strategy.connections or len(self._conns) >= len(self.stack.ports):
                return None
            return self._open(now)
        idle = [c for c in live if not c.outstanding]
        if idle:
            return idle[0]
        if len(live) < strategy.connections and len(self._conns) < len(self.stack.ports):
            return self._open(now)
        if strategy.pipelining:
            return min(live, key=lambda c: len(c.outstanding))
        return None

    def _open(self, now: float) -> _Connection:
        handle = self.stack.open(self.server, now)
        conn = _Connection(handle)
        self._conns[handle[0]] = conn
        self._events.append(ConnectionStarted(handle[0], now))
        return conn

    def _pump(self, now: float) -> None:
        while (item := self.stack.next_stack_event()) is not None:
            port, event = item
            conn = self._conns.get(port)
            if conn is None:
                continue
            if isinstance(event, DataReceived):
                self._on_responses(conn, self._read(conn, event.data), now)
            elif isinstance(event, ConnectionEstablished):
                self._events.append(ConnectionReady(port, now))
            elif isinstance(event, PeerClosed):
                final = self._eof(conn)
                self._on_responses(conn, [final] if final else [], now)
                self._fail(conn, "connection closed before the response")
                if conn.open:
                    conn.open = False
                    self.stack.close(conn.handle)
                    self._events.append(ConnectionEnded(port, now))
            elif isinstance(event, ConnectionReset | ConnectionAborted):
                if conn.open:
                    self._events.append(ConnectionEnded(port, now))
                conn.open = False
                self._fail(conn, type(event).__name__)
        self._dispatch(now)

    def _read(self, conn: _Connection, data: bytes) -> list[Response]:
        try:
            return conn.reader.feed(data)
        except HttpError as error:
            self._fail(conn, str(error))
            return []

    def _eof(self, conn: _Connection) -> Response | None:
        try:
            return conn.reader.eof()
        except HttpError as error:
            self._fail(conn, str(error))
            return None

    def _on_responses(self, conn: _Connection, responses: list[Response], now: float) -> None:
        for response in responses:
            if not conn.outstanding:
                break  # a response nobody asked for
            out = conn.outstanding.popleft()
            self._events.append(
                ResponseReceived(
                    out.target,
                    response.status,
                    response.body,
                    now,
                    conn.handle[0],
                    out.host,
                    response.headers,
                )
            )
            self._page_progress(out.target, len(response.body), now)

    def _page_progress(self, target: str, size: int, now: float) -> None:
        page = self._page
        if page is None:
            return
        page.bytes += size
        if target == page.main and not page.main_done:
            page.main_done = True
            page.waiting = len(page.embedded)
            self._queue.extend(_Outgoing(target) for target in page.embedded)
        elif page.main_done and target in page.embedded:
            page.waiting -= 1
        else:
            return
        if page.waiting == 0:
            self._page = None
            self._events.append(PageLoaded(page.main, page.started, now, page.bytes))

    def _fail(self, conn: _Connection, reason: str) -> None:
        while conn.outstanding:
            out = conn.outstanding.popleft()
            self._events.append(RequestFailed(out.target, reason, out.host))

    def _lower(self) -> Endpoint:
        return self.stack

"""The operator's web proxy for URL rewriting and DNS boosting (paper 003 section 4.2.2).

Both techniques make the browser talk to one server, the proxy, which fetches from the
origins on the client's behalf over the wired side, with its own DNS and TCP:

- **URL rewriting**: the proxy rewrites every embedded URL of each HTML document it
  serves to point at itself, ``http://host/path`` becoming ``http://PROXY/host/path``
  (the real bytes of the document; everything else in it is left as it was; a gzipped
  document is inflated, rewritten and gzipped again). The client
  then needs one DNS lookup, for the page's own name, and opens its connections to one
  server.
- **DNS boosting**: the operator's DNS answers every name with the proxy's address; the
  proxy reads the origin from the Host header. No rewriting; the client still asks
  for each name, but its connections all go to one address.

As the paper's proxy "(pre-)fetches these objects", it parses each HTML document it
relays and starts fetching the embedded objects at once, so they are on their way (or
cached) before the client's GETs arrive. Responses go back in request order on each
connection (pipelining, RFC 9112 9.3.2); a failed upstream fetch is a 502.

| event | action |
|---|---|
| request, Host is the proxy's address, target /host/path | fetch http://host/path |
| request, Host is another name | fetch http://Host/target |
| request, anything else | 400 |
| object arrived, HTML | rewrite (URL rewriting), prefetch its embedded URLs |
| object arrived | answer every request waiting for it, in order per connection |
| fetch failed | 502 to every request waiting for it |
"""

import random
from collections import deque
from dataclasses import dataclass, field

from wwanlab.core.address import Address
from wwanlab.core.events import Event
from wwanlab.tcp import (
    ConnectionAborted,
    ConnectionReset,
    DataReceived,
    PeerClosed,
    TcpConfig,
    TcpEndpoint,
)
from wwanlab.web.client import Strategy
from wwanlab.web.fetcher import (
    HTTP_PORT,
    PROTO_TCP,
    Datagram,
    DirectFetcher,
    FetchFailed,
    ObjectArrived,
)
from wwanlab.web.http1 import (
    HttpError,
    Request,
    RequestReader,
    decode_body,
    encode_response,
)
from wwanlab.web.page import split_url
from wwanlab.web.pages.markup import references, rewrite
from wwanlab.web.pages.synth import gzip_body

# The proxy's own HTTP toward the origins, over the fast wired side (assumed: persistent
# connections, as many as Mozilla's HTTP/1.0 default, 8 per server).
UPSTREAM_STRATEGY = Strategy("HTTP/1.1", 8)
UPSTREAM_FIRST_PORT = 40000  # the proxy's local ports toward the origins
UPSTREAM_RESOLVER_PORT = 39999
MAX_PREFETCH = 20_000  # objects the proxy fetches ahead of the client for one page load


def rewritten_url(proxy_ip: str, url: str) -> str | None:
    """``http://host/path`` -> ``http://proxy_ip/host/path``; None for non-http URLs."""
    try:
        host, target = split_url(url)
    except ValueError:
        return None
    return f"http://{proxy_ip}/{host}{target}"


@dataclass(frozen=True, slots=True)
class _Answer:
    status: int
    content_type: str
    body: bytes
    headers: tuple[tuple[str, str], ...]


@dataclass
class _Slot:
    """One client request on one connection, answered when its object is ready."""

    url: str
    version: str
    close: bool
    answer: _Answer | None = None


@dataclass
class _Conn:
    reader: RequestReader = field(default_factory=RequestReader)
    slots: deque[_Slot] = field(default_factory=deque)
    closing: bool = False


class RewritingProxy:
    """The proxy host's HTTP server on ``(ip, 80)`` plus a ``DirectFetcher`` toward
    the origins through ``dns``; a port endpoint (see ``web.fetcher``)."""

    def __init__(
        self,
        ip: str,
        dns: Address,
        config: TcpConfig,
        rng: random.Random,
        *,
        rewrite: bool,
    ) -> None:
        self.ip = ip
        self.rewrite = rewrite
        self.tcp = TcpEndpoint(ip, HTTP_PORT, config, rng)
        self.tcp.listen()
        self.upstream = DirectFetcher(
            ip,
            dns,
            config,
            rng,
            UPSTREAM_STRATEGY,
            resolver_port=UPSTREAM_RESOLVER_PORT,
            first_port=UPSTREAM_FIRST_PORT,
            ports_per_server=64,
            max_servers=64,
        )
        self._conns: dict[int, _Conn] = {}
        self._cache: dict[str, _Answer] = {}
        self._fetching: set[str] = set()
        self.rewritten = 0  # embedded URLs rewritten, over all documents

    def ports(self) -> list[tuple[int, range]]:
        return [(PROTO_TCP, range(HTTP_PORT, HTTP_PORT + 1)), *self.upstream.ports()]

    def _get(self, url: str, now: float) -> None:
        """Fetch ``url`` from its origin, unless it is cached or coming."""
        if url not in self._cache and url not in self._fetching:
            self._fetching.add(url)
            self.upstream.fetch(url, now)

    def _origin_url(self, request: Request) -> str | None:
        host = (request.header("host") or "").split(":")[0].lower()
        if not host or not request.target.startswith("/"):
            return None
        if host == self.ip:  # a rewritten URL: /host/path
            name, _, rest = request.target[1:].partition("/")
            return f"http://{name}/{rest}" if name else None
        return f"http://{host}{request.target}"

    def _on_request(self, conn_id: int, conn: _Conn, request: Request, now: float) -> None:
        url = self._origin_url(request)
        slot = _Slot(url or "", request.version, not request.keep_alive)
        conn.slots.append(slot)
        if url is None or request.method != "GET":
            slot.answer = _Answer(400, "text/plain", b"", ())
            return
        cached = self._cache.get(url)
        if cached is not None:
            slot.answer = cached
        else:
            self._get(url, now)

    def _on_object(self, event: ObjectArrived, now: float) -> None:
        headers: tuple[tuple[str, str], ...] = ()
        body = event.body
        if event.encoding != "identity":
            headers = (("Content-Encoding", event.encoding),)
        if event.status == 200 and "html" in event.content_type.lower():
            body = self._relay_document(event, now)
        self._settle(event.url, _Answer(event.status, event.content_type, body, headers))

    def _relay_document(self, event: ObjectArrived, now: float) -> bytes:
        """Prefetch what the document embeds; rewrite it when URL rewriting is on."""
        try:
            document = decode_body(event.body, event.encoding)
            embedded = references(document, event.url)
        except (ValueError, AssertionError):  # undecodable or unparsable: relayed as is
            return event.body
        for url in embedded[: max(0, MAX_PREFETCH - len(self._cache))]:
            self._get(url, now)
        if not self.rewrite or event.encoding not in ("identity", "gzip"):
            return event.body  # another coding is relayed as it came
        changes = {
            url: [new] for url in embedded if (new := rewritten_url(self.ip, url)) is not None
        }
        self.rewritten += len(changes)
        rewritten = rewrite(document, event.url, changes)
        return rewritten if event.encoding == "identity" else gzip_body(rewritten)

    def _settle(self, url: str, answer: _Answer) -> None:
        self._fetching.discard(url)
        self._cache[url] = answer
        for conn in self._conns.values():
            for slot in conn.slots:
                if slot.url == url and slot.answer is None:
                    slot.answer = answer

    def _respond(self) -> None:
        for conn_id, conn in self._conns.items():
            while conn.slots and conn.slots[0].answer is not None and not conn.closing:
                slot = conn.slots.popleft()
                answer = slot.answer
                assert answer is not None
                response = encode_response(
                    answer.status,
                    answer.body,
                    slot.version,
                    slot.close,
                    answer.content_type,
                    answer.headers,
                )
                self.tcp.send(conn_id, response)
                if slot.close:
                    conn.closing = True
                    self.tcp.close(conn_id)

    def _pump(self, now: float) -> None:
        tcp = self.tcp
        while (event := tcp.next_event()) is not None:
            if isinstance(event, DataReceived):
                conn = self._conns.setdefault(event.conn_id, _Conn())
                if conn.closing:
                    continue
                try:
                    requests = conn.reader.feed(event.data)
                except HttpError as error:
                    conn.slots.append(
                        _Slot("", "HTTP/1.1", True, _Answer(error.status, "", b"", ()))
                    )
                    continue
                for request in requests:
                    self._on_request(event.conn_id, conn, request, now)
            elif isinstance(event, PeerClosed):
                peer = self._conns.get(event.conn_id)
                if peer is not None and not peer.closing and not peer.slots:
                    peer.closing = True
                    tcp.close(event.conn_id)
            elif isinstance(event, ConnectionReset | ConnectionAborted):
                self._conns.pop(event.conn_id, None)
        upstream = self.upstream
        while (up := upstream.next_event()) is not None:
            if isinstance(up, ObjectArrived):
                self._on_object(up, now)
            elif isinstance(up, FetchFailed):
                self._settle(up.url, _Answer(502, "text/plain", up.reason.encode(), ()))
        self._respond()

    # --- the port-endpoint contract ---------------------------------------------------

    def receive(self, protocol: int, port: int, data: bytes, addr: Address, now: float) -> None:
        if protocol == PROTO_TCP and port == HTTP_PORT:
            self.tcp.receive_datagram(data, addr, now)
        else:
            self.upstream.receive(protocol, port, data, addr, now)
        self._pump(now)

    def handle_timer(self, now: float) -> None:
        due = self.tcp.get_timer()
        if due is not None and due <= now:
            self.tcp.handle_timer(now)
        due = self.upstream.get_timer()
        if due is not None and due <= now:
            self.upstream.handle_timer(now)
        self._pump(now)

    def get_timer(self) -> float | None:
        timers = [t for t in (self.tcp.get_timer(), self.upstream.get_timer()) if t is not None]
        return min(timers, default=None)

    def datagrams_to_send(self, now: float) -> list[Datagram]:
        self._pump(now)
        out = [Datagram(PROTO_TCP, HTTP_PORT, d, a) for d, a in self.tcp.datagrams_to_send(now)]
        out.extend(self.upstream.datagrams_to_send(now))
        self._pump(now)
        return out

    def next_event(self) -> Event | None:
        return None

"""An HTTP origin server on the sans-IO TCP endpoint: static resources by path (bare
bodies, or ``WebObject``s served with their Content-Type and Content-Encoding), or a
handler that answers each request (a web service).

It is itself a contract endpoint (bind it where the TCP endpoint would go): it passes
segments to its ``TcpEndpoint`` and answers each complete request at once, in order,
so pipelined requests get pipelined responses (RFC 9112 9.3.2).

A ``WebObject`` with a modification time is served as a static file of the period was:
with Date, Last-Modified and a strong ETag, and a conditional GET whose validators still
match gets 304 Not Modified (RFC 9110 13.2.2, 15.4.5); one without is dynamic content,
served with Date only. ``clock`` places the simulation's time 0 on the cache clock
(``web.cache``), so two downloads of one page can happen minutes apart.
"""

import random
from collections.abc import Callable, Mapping

from wwanlab.core.contract import Endpoint
from wwanlab.core.events import Event
from wwanlab.core.layer import Layer
from wwanlab.tcp import (
    ConnectionAborted,
    ConnectionReset,
    DataReceived,
    PeerClosed,
    TcpConfig,
    TcpEndpoint,
)
from wwanlab.web.cache import etag_of, not_modified, served_headers
from wwanlab.web.events import RequestServed
from wwanlab.web.http1 import NOT_MODIFIED, HttpError, Request, RequestReader, encode_response
from wwanlab.web.page import WebObject

Handler = Callable[[Request], tuple[int, str, bytes]]
"""A request -> (status, content type, body)."""

DEFAULT_TYPE = "application/octet-stream"


class HttpOrigin(Layer):
    """Serves ``resources`` (path -> body) on ``(ip, port)``, 404 for anything else; or,
    given ``handler``, whatever it answers to each request."""

    def __init__(
        self,
        ip: str,
        port: int,
        config: TcpConfig,
        rng: random.Random,
        resources: Mapping[str, bytes] | None = None,
        handler: Handler | None = None,
        objects: Mapping[str, WebObject] | None = None,
        clock: float = 0.0,
    ) -> None:
        self.tcp = TcpEndpoint(ip, port, config, rng)
        self.clock = clock
        self.tcp.listen()
        self._resources = resources or {}
        self._handler = handler
        self._objects = objects or {}
        self._readers: dict[int, RequestReader] = {}
        self._closing: set[int] = set()
        self._events: list[Event] = []

    def _pump(self, now: float) -> None:
        tcp = self.tcp
        while (event := tcp.next_event()) is not None:
            if isinstance(event, DataReceived):
                self._on_data(event.conn_id, event.data, now)
            elif isinstance(event, PeerClosed):
                self._close(event.conn_id)
            elif isinstance(event, ConnectionReset | ConnectionAborted):
                self._readers.pop(event.conn_id, None)

    def _on_data(self, conn_id: int, data: bytes, now: float) -> None:
        if conn_id in self._closing:
            return  # a response with "close" was sent: later requests are ignored
        reader = self._readers.setdefault(conn_id, RequestReader())
        try:
            requests = reader.feed(data)
        except HttpError as error:
            self._respond(conn_id, "", error.status, b"", "HTTP/1.1", close=True)
            return
        for request in requests:
            headers: tuple[tuple[str, str], ...] = ()
            obj = self._objects.get(request.target)
            if obj is not None:
                status, content_type, body = 200, obj.content_type, obj.body
                if obj.encoding != "identity":
                    headers = (("Content-Encoding", obj.encoding),)
                headers += served_headers(obj, self.clock + now)
                etag = None if obj.modified is None else etag_of(obj.body)
                if etag is not None and not_modified(request.headers, etag, obj.modified):
                    status, body = NOT_MODIFIED, b""
            elif self._handler is not None:
                status, content_type, body = self._handler(request)
            else:
                found = self._resources.get(request.target)
                status, content_type, body = (
                    (404, DEFAULT_TYPE, b"")
                    if found is None
                    else (
                        200,
                        DEFAULT_TYPE,
                        found,
                    )
                )
            close = not request.keep_alive
            self._respond(
                conn_id,
                request.target,
                status,
                body,
                request.version,
                close,
                content_type,
                headers,
            )
            if close:
                break

    def _respond(
        self,
        conn_id: int,
        target: str,
        status: int,
        body: bytes,
        version: str,
        close: bool,
        content_type: str = DEFAULT_TYPE,
        headers: tuple[tuple[str, str], ...] = (),
    ) -> None:
        response = encode_response(status, body, version, close, content_type, headers)
        self.tcp.send(conn_id, response)
        self._events.append(RequestServed(conn_id, target, status, len(body)))
        if close:
            self._close(conn_id)

    def _close(self, conn_id: int) -> None:
        self._readers.pop(conn_id, None)
        if conn_id not in self._closing:
            self._closing.add(conn_id)
            self.tcp.close(conn_id)

    def _lower(self) -> Endpoint:
        return self.tcp

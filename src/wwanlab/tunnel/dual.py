"""Paper 003's dual proxy inside the tunnel: ``pep.dual``'s two sides, their message
channel the tunnel's PROXY frames, and the browser's side of it.

The tunnel client's HTTP proxy answers a browser's plain GET through ``pep.dual``'s
``ClientProxy`` (CHK caching with delta, parse-and-push, compression: section 4 of paper
003) when the answer cannot depend on what the dual proxy leaves out: a GET with no
body, no credentials and no range. Anything else crosses as a stream, unchanged.

A validator the browser sends (``If-None-Match``, ``If-Modified-Since``) is answered
here, from the object the dual proxy delivered: the proxy fetched it unconditionally,
so it knows the current version, and a ``304`` costs nothing on the slow link.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Mapping
from http import HTTPStatus

from wwanlab.transports.channel import CarriedChannel
from wwanlab.tunnel.frames import MAX_PROXY_MESSAGE
from wwanlab.web.fetcher import ObjectArrived

LENGTH = struct.Struct(">I")  # before each message of a PROXY frame
NOT_MODIFIED = 304  # RFC 9110 15.4.5
# Request fields whose answer the dual proxy cannot give: it fetches without them.
STREAM_ONLY = frozenset({"authorization", "cookie", "range", "if-range", "content-length"})
# RFC 9110 15.4.5: what a 304 carries of the 200 it stands for.
NOT_MODIFIED_FIELDS = frozenset(
    {"cache-control", "content-location", "date", "etag", "expires", "last-modified", "vary"}
)


class ProxyLink(CarriedChannel):
    """A ``MessageChannel`` for ``pep.dual`` whose messages ride PROXY frames: sent
    messages wait for ``flush``, which hands them to ``send`` (a tunnel end's
    ``send_proxy``) as one frame's payload, each behind its length; ``deliver`` takes a
    payload apart. A page's pushes, tens of small messages within milliseconds, so
    cross in a few datagrams rather than one each (and as few acknowledgements come
    back)."""

    def __init__(self, send: Callable[[bytes, float], None]) -> None:
        super().__init__()
        self._send = send
        self._pending: list[bytes] = []
        self._pending_octets = 0

    def send_message(self, data: bytes, now: float) -> None:
        if self._pending_octets + LENGTH.size + len(data) > MAX_PROXY_MESSAGE:
            self.flush(now)
        self._pending.append(LENGTH.pack(len(data)) + data)
        self._pending_octets += LENGTH.size + len(data)

    @property
    def waiting(self) -> bool:
        """Whether messages wait for ``flush``."""
        return bool(self._pending)

    def flush(self, now: float) -> None:
        if self._pending:
            self._send(b"".join(self._pending), now)
            self._pending.clear()
            self._pending_octets = 0

    def deliver(self, payload: bytes, now: float) -> None:
        """The messages of one PROXY frame's ``payload``; a length that runs past its end
        fails the link (an authenticated peer that sends one is broken)."""
        at = 0
        while at < len(payload):
            if at + LENGTH.size > len(payload):
                self.fail("a PROXY frame cut inside a length", now)
                return
            (size,) = LENGTH.unpack_from(payload, at)
            at += LENGTH.size
            if size > len(payload) - at:
                self.fail(f"a PROXY message of {size} octets past its frame's end", now)
                return
            super().deliver(payload[at : at + size], now)
            at += size


def through_dual(method: str, fields: Mapping[str, str]) -> bool:
    """Whether a browser's request (``fields`` by lower-case name) may be answered by the
    dual proxy."""
    return method == "GET" and not STREAM_ONLY & fields.keys()


def _not_modified(arrived: ObjectArrived, fields: Mapping[str, str]) -> bool:
    """RFC 9110 13.1.1-13.1.3, for a GET: the browser's copy is the current one."""
    if arrived.status != HTTPStatus.OK:
        return False
    mine = {name.lower(): value for name, value in arrived.headers}
    if "if-none-match" in fields:
        tags = [t.strip().removeprefix("W/") for t in fields["if-none-match"].split(",")]
        etag = mine.get("etag", "").removeprefix("W/")
        return "*" in tags or (bool(etag) and etag in tags)
    since = fields.get("if-modified-since")
    return since is not None and since == mine.get("last-modified")


def browser_response(arrived: ObjectArrived, fields: Mapping[str, str]) -> bytes:
    """The HTTP/1.1 response for the browser: the object as its origin served it, or a
    ``304`` when the browser's validator names it; one response per connection."""
    if _not_modified(arrived, fields):
        status = NOT_MODIFIED
        kept = [(n, v) for n, v in arrived.headers if n.lower() in NOT_MODIFIED_FIELDS]
        body = b""
    else:
        status, kept, body = arrived.status, list(arrived.headers), arrived.body
        if arrived.content_type:
            kept.append(("Content-Type", arrived.content_type))
        if arrived.encoding != "identity":
            kept.append(("Content-Encoding", arrived.encoding))
        kept.append(("Content-Length", str(len(body))))
    try:
        reason = HTTPStatus(status).phrase
    except ValueError:
        reason = ""
    lines = [f"HTTP/1.1 {status} {reason}", *(f"{n}: {v}" for n, v in kept), "Connection: close"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1", "replace") + body

"""HTTP/1.0 and HTTP/1.1 messages as bytes (RFC 1945, RFC 9112), parsed incrementally.

Only what the experiments need: requests (a body framed by Content-Length), responses framed by
Content-Length, by chunked transfer coding (RFC 9112 7.1) or by the connection closing
(RFC 9112 6.3 rule 8). Every length read from the wire is bounded.
"""

import zlib
from dataclasses import dataclass

from wwanlab.core.errors import WwanlabError

CRLF = b"\r\n"
MAX_HEAD = 16 * 1024  # bytes allowed for a start line plus headers
MAX_CHUNK_LINE = 1024
MAX_BODY = 8 * 1024 * 1024  # octets of request body accepted
MAX_DECODED = 8 * 1024 * 1024  # octets a content-coded body may inflate to


class HttpError(WwanlabError):
    """Malformed or oversized HTTP message; ``status`` is the code a server answers."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


class BodyTooLarge(HttpError):
    """A response body longer than the reader's ``max_body``."""


@dataclass(frozen=True, slots=True)
class Request:
    method: str
    target: str
    version: str  # "HTTP/1.0" or "HTTP/1.1"
    headers: tuple[tuple[str, str], ...]
    body: bytes = b""

    def header(self, name: str) -> str | None:
        return _header(self.headers, name)

    @property
    def keep_alive(self) -> bool:
        return _persists(self.version, self.headers)


@dataclass(frozen=True, slots=True)
class Response:
    version: str
    status: int
    reason: str
    headers: tuple[tuple[str, str], ...]
    body: bytes

    def header(self, name: str) -> str | None:
        return _header(self.headers, name)

    @property
    def keep_alive(self) -> bool:
        """The connection persists after this response (the same rule as a request's)."""
        return _persists(self.version, self.headers)


def _persists(version: str, headers: tuple[tuple[str, str], ...]) -> bool:
    """RFC 9112 9.3: 1.1 persists unless "close"; 1.0 only with "keep-alive"."""
    connection = (_header(headers, "connection") or "").lower()
    if version == "HTTP/1.1":
        return "close" not in connection
    return "keep-alive" in connection


def _header(headers: tuple[tuple[str, str], ...], name: str) -> str | None:
    name = name.lower()
    for key, value in headers:
        if key.lower() == name:
            return value
    return None


def encode_request(
    target: str,
    host: str,
    version: str = "HTTP/1.1",
    close: bool = False,
    *,
    method: str = "GET",
    headers: tuple[tuple[str, str], ...] = (),
    body: bytes = b"",
) -> bytes:
    """A request with the Host header (required in 1.1, RFC 9112 3.2); a body is framed
    by Content-Length (RFC 9112 6.2)."""
    lines = [f"{method} {target} {version}", f"Host: {host}"]
    lines.extend(f"{k}: {v}" for k, v in headers)
    if body or method == "POST":
        lines.append(f"Content-Length: {len(body)}")
    if close:
        lines.append("Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def encode_response(
    status: int,
    body: bytes,
    version: str = "HTTP/1.1",
    close: bool = False,
    content_type: str = "application/octet-stream",
    headers: tuple[tuple[str, str], ...] = (),
) -> bytes:
    reason = REASONS.get(status, "Unknown")
    lines = [f"{version} {status} {reason}"]
    if status != NOT_MODIFIED:  # RFC 9110 8.6: a 304's length would be the 200's; none sent
        lines += [f"Content-Type: {content_type}", f"Content-Length: {len(body)}"]
    lines.extend(f"{k}: {v}" for k, v in headers)
    if close and version == "HTTP/1.1":
        lines.append("Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


NOT_MODIFIED = 304  # RFC 9110 15.4.5

REASONS = {
    200: "OK",
    304: "Not Modified",
    400: "Bad Request",
    404: "Not Found",
    411: "Length Required",
    413: "Content Too Large",
    500: "Internal Server Error",
    502: "Bad Gateway",
    505: "HTTP Version Not Supported",
}


def _split_head(buffer: bytearray) -> tuple[str, tuple[tuple[str, str], ...]] | None:
    """Remove and parse one head (start line and headers) from ``buffer``."""
    end = buffer.find(b"\r\n\r\n")
    if end < 0:
        if len(buffer) > MAX_HEAD:
            raise HttpError(f"header section over {MAX_HEAD} bytes", 431)
        return None
    if end > MAX_HEAD:
        raise HttpError(f"header section over {MAX_HEAD} bytes", 431)
    head = bytes(buffer[:end]).decode("latin-1")
    del buffer[: end + 4]
    start, *lines = head.split("\r\n")
    headers = []
    for line in lines:
        name, sep, value = line.partition(":")
        if not sep or not name or name != name.strip():
            raise HttpError(f"bad header line {line[:40]!r}")
        headers.append((name, value.strip()))
    return start, tuple(headers)


class RequestReader:
    """Feeds bytes, yields complete ``Request``s (pipelined ones in order).

    A body is framed by Content-Length (RFC 9112 6.2) and bounded by ``MAX_BODY``; a
    chunked request body is refused (411: the client may resend it with a length).
    """

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._head: tuple[str, str, str, tuple[tuple[str, str], ...], int] | None = None

    def feed(self, data: bytes) -> list[Request]:
        self._buffer += data
        out: list[Request] = []
        while True:
            if self._head is None:
                parsed = _split_head(self._buffer)
                if parsed is None:
                    return out
                self._head = self._start(*parsed)
            method, target, version, headers, length = self._head
            if len(self._buffer) < length:
                return out
            body = bytes(self._buffer[:length])
            del self._buffer[:length]
            self._head = None
            out.append(Request(method, target, version, headers, body))

    @staticmethod
    def _start(
        start: str, headers: tuple[tuple[str, str], ...]
    ) -> tuple[str, str, str, tuple[tuple[str, str], ...], int]:
        parts = start.split(" ")
        if len(parts) != 3 or not parts[2].startswith("HTTP/"):
            raise HttpError(f"bad request line {start[:60]!r}")
        method, target, version = parts
        if version not in ("HTTP/1.0", "HTTP/1.1"):
            raise HttpError(f"unsupported version {version[:20]!r}", 505)
        if (_header(headers, "transfer-encoding") or "").lower() not in ("", "identity"):
            raise HttpError("a request body needs a Content-Length", 411)
        text = _header(headers, "content-length") or "0"
        if not text.isdigit() or len(text) > 12:
            raise HttpError(f"bad Content-Length {text[:20]!r}")
        length = int(text)
        if length > MAX_BODY:
            raise HttpError(f"request body of {length} octets exceeds {MAX_BODY}", 413)
        return method, target, version, headers, length


class ResponseReader:
    """Feeds bytes, yields complete ``Response``s; call ``eof()`` when the peer closes.

    With ``max_body`` set, a body that would exceed it (by its Content-Length, its chunks
    or the octets before the close) raises ``BodyTooLarge`` as soon as that is known.
    """

    def __init__(self, max_body: int | None = None) -> None:
        self.max_body = max_body
        self._buffer = bytearray()
        self._head: tuple[str, int, str, tuple[tuple[str, str], ...]] | None = None
        self._chunks: list[bytes] = []
        self._chunked_size = 0
        self._heads_expected = 0

    @property
    def idle(self) -> bool:
        """No response begun and no octet waiting: the connection may carry another."""
        return self._head is None and not self._buffer

    def expect_head_response(self) -> None:
        """The next response answers a HEAD request: it has no body whatever its
        Content-Length says (RFC 9112 6.3 rule 1)."""
        self._heads_expected += 1

    def feed(self, data: bytes) -> list[Response]:
        self._buffer += data
        out = []
        while (response := self._step()) is not None:
            out.append(response)
        if self.max_body is not None and self._head is not None:
            waiting = len(self._buffer) + self._chunked_size
            if waiting > self.max_body + MAX_CHUNK_LINE:  # body octets plus framing
                raise BodyTooLarge(f"response body over {self.max_body} octets")
        return out

    def eof(self) -> Response | None:
        """The response delimited by the connection closing, if one was open."""
        if self._head is None:
            if self._buffer:
                raise HttpError("connection closed inside a response head")
            return None
        version, status, reason, headers = self._head
        if _header(headers, "content-length") is not None or self._is_chunked(headers):
            raise HttpError("connection closed before the response body ended")
        if self.max_body is not None and len(self._buffer) > self.max_body:
            raise BodyTooLarge(f"response body over {self.max_body} octets")
        body = bytes(self._buffer)
        self._buffer.clear()
        self._head = None
        return Response(version, status, reason, headers, body)

    @staticmethod
    def _is_chunked(headers: tuple[tuple[str, str], ...]) -> bool:
        return "chunked" in (_header(headers, "transfer-encoding") or "").lower()

    def _step(self) -> Response | None:
        if self._head is None:
            parsed = _split_head(self._buffer)
            if parsed is None:
                return None
            start, headers = parsed
            version, _, rest = start.partition(" ")
            code, _, reason = rest.partition(" ")
            if version not in ("HTTP/1.0", "HTTP/1.1") or len(code) != 3 or not code.isdigit():
                raise HttpError(f"bad status line {start[:60]!r}")
            self._head = (version, int(code), reason, headers)
        version, status, reason, headers = self._head
        body: bytes | None
        if self._heads_expected and status >= 200:
            self._heads_expected -= 1
            body = b""
        elif status in (204, 304) or 100 <= status < 200:
            body = b""  # RFC 9112 6.3 rule 1: no content, whatever the header fields say
        elif self._is_chunked(headers):
            body = self._dechunk()
            if body is None:
                return None
        else:
            length_text = _header(headers, "content-length")
            if length_text is None:
                return None  # delimited by close: see eof()
            else:
                if not length_text.isdigit() or len(length_text) > 15:
                    raise HttpError(f"bad Content-Length {length_text[:20]!r}")
                length = int(length_text)
                if self.max_body is not None and length > self.max_body:
                    raise BodyTooLarge(f"response body of {length} octets over {self.max_body}")
                if len(self._buffer) < length:
                    return None
                body = bytes(self._buffer[:length])
                del self._buffer[:length]
        self._head = None
        return Response(version, status, reason, headers, body)

    def _dechunk(self) -> bytes | None:
        """RFC 9112 7.1: consume chunks as they complete; the body once the last one has."""
        buffer = self._buffer
        while True:
            end = buffer.find(CRLF)
            if end < 0:
                if len(buffer) > MAX_CHUNK_LINE:
                    raise HttpError("chunk size line too long")
                return None
            size_text = bytes(buffer[:end]).split(b";")[0].strip()
            try:
                size = int(size_text, 16)
            except ValueError:
                raise HttpError(f"bad chunk size {size_text[:20]!r}") from None
            if size == 0:
                trailer_end = buffer.find(b"\r\n\r\n", end)
                if trailer_end < 0:
                    return None
                del buffer[: trailer_end + 4]
                body = b"".join(self._chunks)
                self._chunks.clear()
                self._chunked_size = 0
                return body
            if self.max_body is not None and self._chunked_size + size > self.max_body:
                raise BodyTooLarge(f"chunked response body over {self.max_body} octets")
            if len(buffer) < end + 2 + size + 2:
                return None
            if buffer[end + 2 + size : end + 4 + size] != CRLF:
                raise HttpError("chunk not followed by CRLF")
            self._chunks.append(bytes(buffer[end + 2 : end + 2 + size]))
            self._chunked_size += size
            del buffer[: end + 4 + size]


def decode_body(body: bytes, encoding: str) -> bytes:
    """The body without its Content-Encoding (RFC 9110 8.4.1: gzip or deflate), at
    most ``MAX_DECODED`` octets; ValueError for an unknown coding or corrupt data."""
    coding = encoding.lower()
    if coding in ("", "identity"):
        return body[:MAX_DECODED]
    if coding not in ("gzip", "x-gzip", "deflate"):
        raise ValueError(f"unknown content coding {encoding[:30]!r}")
    # wbits 47: zlib or gzip header, detected (RFC 9110 8.4.1.2-3 name both).
    inflater = zlib.decompressobj(47)
    try:
        data = inflater.decompress(body, MAX_DECODED)
    except zlib.error as error:
        raise ValueError(f"corrupt {coding} body: {error}") from None
    return data

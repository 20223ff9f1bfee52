"""A minimal HTTP/1.1 file server and GET client over asyncio streams, for the bench.

The server answers ``GET /f/<size>`` from memory with ``Content-Length`` and closes the
connection after the body (RFC 9112 9.6, ``Connection: close``), so one transfer is one
TCP connection. It can pin the kernel's congestion control of every connection it
accepts (``TCP_CONGESTION``, Linux tcp(7)): the server sends the file, so its
congestion control is the one measured.

The client times the TCP handshake (``connect`` returned) and the last octet of the
body, and hashes the body; every length read from the wire is bounded first.
"""

import asyncio
import hashlib
import socket
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

MAX_HEAD = 8192  # octets of a request or response head we accept
MAX_BODY = 1 << 24  # octets of a body we accept (the bench moves tens of kilobytes)
READ_CHUNK = 65536
NOT_FOUND = b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


class BenchProtocolError(Exception):
    """A peer of the bench answered something that is not the file."""


@dataclass(frozen=True, slots=True)
class Fetched:
    """What one client saw: times since it started, and the body's digest."""

    handshake_s: float | None  # None: the transport has no handshake of its own
    complete_s: float  # start to the body's last octet
    sha256: str
    size: int

    def to_json(self) -> dict[str, Any]:
        return {
            "handshake_s": self.handshake_s,
            "complete_s": self.complete_s,
            "sha256": self.sha256,
            "size": self.size,
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "Fetched":
        handshake = obj.get("handshake_s")
        return cls(
            None if handshake is None else float(handshake),
            float(obj["complete_s"]),
            str(obj["sha256"]),
            int(obj["size"]),
        )


def file_path(size: int) -> str:
    """The path the bench serves a ``size``-octet file at."""
    return f"/f/{size}"


def set_congestion_control(sock: socket.socket, name: str) -> None:
    """Linux tcp(7) ``TCP_CONGESTION`` for this socket (root may pick any loaded one)."""
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, name.encode())


TCP_CA_NAME_MAX = 16  # linux/tcp.h: the longest congestion control name, NUL included


def congestion_control(sock: Any) -> str:
    """The congestion control the kernel runs on this TCP socket (``TCP_CONGESTION``
    read back), so a row says what ran rather than what was asked for."""
    raw = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, TCP_CA_NAME_MAX)
    return bytes(raw).split(b"\0", 1)[0].decode("ascii")


class FileServer:
    """Serves ``files`` (path -> body) over HTTP/1.1 on ``host``; ``port`` after start."""

    def __init__(
        self, host: str, files: Mapping[str, bytes], *, congestion_control: str | None = None
    ) -> None:
        self.host = host
        self.files = dict(files)
        self.congestion_control = congestion_control
        self.port = 0
        self.served = 0
        self.congestion_controls: list[str] = []
        """Each accepted connection's congestion control, read from its socket."""
        self._server: asyncio.Server | None = None

    async def __aenter__(self) -> "FileServer":
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if self.congestion_control is not None:
            set_congestion_control(listener, self.congestion_control)  # accepted inherit
        listener.bind((self.host, 0))
        self._server = await asyncio.start_server(self._serve, sock=listener, limit=MAX_HEAD)
        self.port = listener.getsockname()[1]
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            writer.close()
            return
        sock = writer.get_extra_info("socket")
        if sock is not None:
            self.congestion_controls.append(congestion_control(sock))
        request = head.split(b"\r\n", 1)[0].split(b" ")
        body = self.files.get(request[1].decode("latin-1")) if len(request) == 3 else None
        if request[0] != b"GET" or body is None:
            writer.write(NOT_FOUND)
        else:
            # One write: a head written alone leaves at once (the socket is idle) and
            # costs a segment of its own, which servers that cork or use writev avoid.
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
                b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body
            )
            self.served += 1
        try:
            await writer.drain()
            writer.close()
            await writer.wait_closed()
        except ConnectionError:
            pass


async def read_to_eof(reader: asyncio.StreamReader, limit: int) -> bytes:
    """Everything up to the end of the stream, at most ``limit`` octets."""
    chunks: list[bytes] = []
    size = 0
    while chunk := await reader.read(READ_CHUNK):
        size += len(chunk)
        if size > limit:
            raise BenchProtocolError(f"stream longer than {limit} octets")
        chunks.append(chunk)
    return b"".join(chunks)


def free_port(host: str, kind: socket.SocketKind) -> int:
    """A port the kernel had free on ``host`` a moment ago (for programs that need one
    on their command line)."""
    with socket.socket(socket.AF_INET, kind) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


async def read_response(reader: asyncio.StreamReader) -> bytes:
    """The body of one HTTP/1.1 200 response with a Content-Length."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.LimitOverrunError:
        raise BenchProtocolError(f"response head longer than {MAX_HEAD} octets") from None
    lines = head.decode("latin-1").split("\r\n")
    status = lines[0].split(" ")
    if len(status) < 2 or status[1] != "200":
        raise BenchProtocolError(f"response {lines[0]!r}")
    length = next(
        (
            v.strip()
            for k, _, v in (line.partition(":") for line in lines[1:])
            if k.strip().lower() == "content-length"
        ),
        None,
    )
    if length is None or not length.isdigit() or int(length) > MAX_BODY:
        raise BenchProtocolError(f"Content-Length {length!r} missing or above {MAX_BODY}")
    return await reader.readexactly(int(length))


async def http_get(host: str, port: int, path: str) -> Fetched:
    """One GET on a new connection, timed from just before ``connect``."""
    started = time.perf_counter()
    reader, writer = await asyncio.open_connection(host, port, limit=MAX_HEAD)
    handshake = time.perf_counter() - started
    writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
    try:
        body = await read_response(reader)
        complete = time.perf_counter() - started
    finally:
        writer.close()
    return Fetched(handshake, complete, hashlib.sha256(body).hexdigest(), len(body))

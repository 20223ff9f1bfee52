"""The tunnel's frames: many TCP streams multiplexed on one reliable message channel.

Each message of the channel (UDP-GPRS, or TCP as the fallback) is one frame. The
channel already delivers messages whole, once and in order, and the datagrams under it
are authenticated (``seal``), so a frame needs no checksum; it still never trusts a
length it reads. Layout (big-endian)::

    type      1 octet   Kind
    stream    4 octets  chosen by the client, odd numbers from 1
    OPEN      port (2), flags (1), then the destination host as UTF-8 (1..MAX_HOST
              octets): a name (resolved by the server: the client resolves nothing over
              the air, paper 003 4.2.2's DNS boosting) or an IP literal. Flag DEFLATE:
              both ends send this stream's octets compressed (paper 003 4.1.1's lossless
              compression, as one raw DEFLATE stream per direction, RFC 1951, flushed at
              every frame so nothing waits for more data)
    OPENED    nothing
    REFUSED   a Refusal code (1), then a UTF-8 explanation
    DATA      the stream's octets (1..MAX_DATA)
    CLOSE     nothing: the sender will send no more on this stream (TCP half-close)
    RESET     nothing: the stream is gone both ways
    PROXY     on stream 0, the association's own: the sender's techniques (2,
              ``Techniques``), then messages of paper 003's dual proxy
              (``pep.dual.messages``), each behind its length (4), up to MAX_PROXY
              octets in all, DEFLATE'd on one stream per direction when the
              techniques compress: the HTTP proxy's plain GETs, with CHK caching,
              delta, parse-and-push and compression
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from wwanlab.core.errors import WwanlabError
from wwanlab.pep.dual.config import DualConfig
from wwanlab.transports.udp_gprs.config import MAX_MESSAGE

MAX_HOST = 253  # RFC 1035 2.3.4: a domain name's text is at most 253 octets
MAX_DATA = 16 * 1024  # octets of one DATA frame: small enough to interleave streams
MAX_STREAM = 2**32 - 1
DEFLATE = 0x01  # OPEN flag
TECHNIQUES_LEN = 2
MAX_PROXY = MAX_MESSAGE - 5 - TECHNIQUES_LEN  # a PROXY frame fills one channel message
# A dual-proxy message DEFLATE cannot grow past MAX_PROXY: zlib adds at most 5 octets a
# 16 KB stored block, and a few for the flush.
MAX_PROXY_MESSAGE = MAX_PROXY - MAX_PROXY // 3000 - 64


class Kind(IntEnum):
    OPEN = 1
    OPENED = 2
    REFUSED = 3
    DATA = 4
    CLOSE = 5
    RESET = 6
    PROXY = 7


class Refusal(IntEnum):
    """Why the server would not open a stream (shown to the user by the client)."""

    POLICY = 1  # the destination policy forbids the address
    UNRESOLVED = 2  # the name did not resolve
    UNREACHABLE = 3  # the connection failed or timed out
    LIMIT = 4  # the client has its most streams open


class FrameError(WwanlabError):
    """A frame no conforming peer sends; the channel carrying it is closed."""


@dataclass(frozen=True, slots=True)
class Techniques:
    """Paper 003's techniques a tunnel client runs on plain HTTP: its dual-proxy
    settings, and the JPEG quality of lossy image recompression (0: off), which the
    server applies to what it fetches for this client."""

    push: bool = True  # 4.2.3 parse-and-push
    chk: bool = True  # 4.1.3 CHK caching, with delta encoding
    compress: bool = True  # 4.1.1 lossless compression: deflate or brotli, the smaller
    images: int = 0  # 4.1.1 lossy compression of images (opt-in: it changes them)

    PUSH, CHK, COMPRESS = 0x01, 0x02, 0x04

    def encode(self) -> bytes:
        bits = (
            (self.PUSH if self.push else 0)
            | (self.CHK if self.chk else 0)
            | (self.COMPRESS if self.compress else 0)
        )
        return bytes([bits, self.images])

    @classmethod
    def decode(cls, data: bytes) -> Techniques:
        bits, images = data[0], data[1]
        if bits & ~(cls.PUSH | cls.CHK | cls.COMPRESS):
            raise FrameError(f"PROXY with unknown technique bits {bits:#04x}")
        if images > 100:
            raise FrameError(f"PROXY with image quality {images} above 100")
        return cls(bool(bits & cls.PUSH), bool(bits & cls.CHK), bool(bits & cls.COMPRESS), images)

    def dual_config(self) -> DualConfig:
        """The dual proxy's settings: delta rides with CHK caching, brotli with
        compression, and the origins' header fields always (a real browser is behind)."""
        return DualConfig(
            push=self.push,
            chk=self.chk,
            delta=self.chk,
            compress=self.compress,
            brotli=self.compress,
            fields=True,
        )


@dataclass(frozen=True, slots=True)
class Frame:
    kind: Kind
    stream: int
    data: bytes = b""  # DATA's octets, REFUSED's explanation
    host: str = ""  # OPEN only
    port: int = 0  # OPEN only
    flags: int = 0  # OPEN only
    refusal: Refusal | None = None  # REFUSED only
    techniques: Techniques | None = None  # PROXY only

    def encode(self) -> bytes:
        if not (0 if self.kind is Kind.PROXY else 1) <= self.stream <= MAX_STREAM:
            raise ValueError(f"stream {self.stream} out of range")
        head = bytes([self.kind]) + self.stream.to_bytes(4, "big")
        if self.kind is Kind.PROXY:
            assert self.techniques is not None
            if not 0 < len(self.data) <= MAX_PROXY:
                raise ValueError(f"PROXY of {len(self.data)} octets")
            return head + self.techniques.encode() + self.data
        if self.kind is Kind.OPEN:
            host = self.host.encode("utf-8")
            if not 0 < len(host) <= MAX_HOST or not 0 < self.port < 65536:
                raise ValueError(f"bad destination {self.host!r}:{self.port}")
            return head + self.port.to_bytes(2, "big") + bytes([self.flags]) + host
        if self.kind is Kind.REFUSED:
            assert self.refusal is not None
            return head + bytes([self.refusal]) + self.data
        if self.kind is Kind.DATA and not 0 < len(self.data) <= MAX_DATA:
            raise ValueError(f"DATA of {len(self.data)} octets")
        return head + self.data


def decode(message: bytes) -> Frame:
    """The frame in ``message``; ``FrameError`` naming what is wrong otherwise."""
    if len(message) < 5:
        raise FrameError(f"frame of {len(message)} octets, shorter than its header")
    try:
        kind = Kind(message[0])
    except ValueError:
        raise FrameError(f"unknown frame type {message[0]}") from None
    stream = int.from_bytes(message[1:5], "big")
    body = message[5:]
    if kind is Kind.PROXY:
        if stream != 0:
            raise FrameError(f"PROXY on stream {stream}, not 0")
        if not TECHNIQUES_LEN < len(body) <= TECHNIQUES_LEN + MAX_PROXY:
            raise FrameError(f"PROXY of {len(body)} octets")
        techniques = Techniques.decode(body[:TECHNIQUES_LEN])
        return Frame(kind, 0, data=body[TECHNIQUES_LEN:], techniques=techniques)
    if stream == 0:
        raise FrameError("stream 0")
    if kind is Kind.OPEN:
        if not 3 < len(body) <= 3 + MAX_HOST:
            raise FrameError(f"OPEN with a destination of {max(len(body) - 3, 0)} octets")
        port, flags = int.from_bytes(body[:2], "big"), body[2]
        try:
            host = body[3:].decode("utf-8")
        except UnicodeDecodeError:
            raise FrameError("OPEN with a host name that is not UTF-8") from None
        if port == 0:
            raise FrameError("OPEN to port 0")
        if flags & ~DEFLATE:
            raise FrameError(f"OPEN with unknown flags {flags:#04x}")
        return Frame(kind, stream, host=host, port=port, flags=flags)
    if kind is Kind.REFUSED:
        if not body:
            raise FrameError("REFUSED without a code")
        try:
            refusal = Refusal(body[0])
        except ValueError:
            raise FrameError(f"unknown refusal {body[0]}") from None
        return Frame(kind, stream, data=body[1:], refusal=refusal)
    if kind is Kind.DATA:
        if not 0 < len(body) <= MAX_DATA:
            raise FrameError(f"DATA of {len(body)} octets")
        return Frame(kind, stream, data=body)
    if body:
        raise FrameError(f"{kind.name} with {len(body)} octets of body")
    return Frame(kind, stream)

"""UDP-GPRS datagrams as octets (layout and reasons in docs/udp-gprs.md).

Every datagram is a 12-octet header, a body that depends on the type, and a CRC-32
trailer; all integers are big-endian::

     0  version (4 bits) | type (4 bits)
     1  flags: END (0x01, DATA only: the message's last fragment); others reserved, 0
     2  session id (32)   chosen by the client from its random stream
     6  ack (32)          the next DATA sequence number this end expects: all below arrived
    10  credit (16)       octets of DATA the peer may have outstanding beyond ``ack``
    12  body:
          DATA       seq (32), then the fragment (0 or more octets)
          ACK        nothing
          NAK        n (8), then n x (first missing seq (32), how many (16))
          KEEPALIVE  serial (32): 1, 2, ... per sender, so a replayed one is told apart
    -4  CRC-32 (ISO 3309, as zlib.crc32) of every octet before it

Every datagram carries ``ack`` and ``credit``, so data, NAKs and keep-alives all
acknowledge and grant credit; a pure ACK is sent only when nothing else is.
"""

import struct
import zlib
from dataclasses import dataclass
from enum import IntEnum

VERSION = 1
HEADER = 12  # octets before the body
CRC = 4  # octets of the trailer
SEQ = 4  # octets of a DATA sequence number
DATA_OVERHEAD = HEADER + SEQ + CRC  # 20 octets around each fragment
NAK_RANGE = 6  # octets per (first, count) pair
MAX_NAK_RANGES = 255  # n is one octet
MAX_CREDIT = 0xFFFF  # credit is 16 bits
SEQ_LIMIT = 1 << 32  # sequence numbers and acks are 32 bits and never wrap
END = 0x01  # flag: this DATA fragment ends its message

_HEADER = struct.Struct("!BBIIH")
_RANGE = struct.Struct("!IH")


class Kind(IntEnum):
    DATA = 1
    ACK = 2
    NAK = 3
    KEEPALIVE = 4


class PacketError(ValueError):
    """Octets that are not a UDP-GPRS datagram; the message names the field."""


@dataclass(frozen=True, slots=True)
class Packet:
    """One decoded datagram; fields a kind does not use stay 0 or empty."""

    kind: Kind
    session: int
    ack: int
    credit: int
    seq: int = 0  # DATA: the fragment's sequence number; KEEPALIVE: its serial
    end: bool = False  # DATA only
    payload: bytes = b""  # DATA only
    missing: tuple[tuple[int, int], ...] = ()  # NAK only: (first seq, count) ranges

    def encode(self) -> bytes:
        if not (0 <= self.session < SEQ_LIMIT and 0 <= self.ack < SEQ_LIMIT):
            raise PacketError("session id and ack are 32 bits")
        if not 0 <= self.credit <= MAX_CREDIT:
            raise PacketError(f"credit {self.credit} outside 0..{MAX_CREDIT}")
        flags = END if self.end else 0
        if flags and self.kind is not Kind.DATA:
            raise PacketError(f"END flag on {self.kind.name}")
        head = _HEADER.pack(VERSION << 4 | self.kind, flags, self.session, self.ack, self.credit)
        if self.kind in (Kind.DATA, Kind.KEEPALIVE):
            if not 0 <= self.seq < SEQ_LIMIT:
                raise PacketError(f"sequence number {self.seq} needs more than 32 bits")
            body = self.seq.to_bytes(SEQ, "big") + self.payload
        elif self.kind is Kind.NAK:
            if not 1 <= len(self.missing) <= MAX_NAK_RANGES:
                raise PacketError(f"NAK of {len(self.missing)} ranges (1..{MAX_NAK_RANGES})")
            if any(
                not (0 < n <= 0xFFFF and s >= 0 and s + n <= SEQ_LIMIT) for s, n in self.missing
            ):
                raise PacketError("NAK range out of bounds")
            body = bytes((len(self.missing),)) + b"".join(_RANGE.pack(*r) for r in self.missing)
        else:
            body = b""
        data = head + body
        return data + zlib.crc32(data).to_bytes(CRC, "big")


def decode(data: bytes, max_datagram: int) -> Packet:
    """Parse one datagram; its length is bounded before any field is read."""
    if not HEADER + CRC <= len(data) <= max_datagram:
        raise PacketError(f"{len(data)} octets (a datagram has {HEADER + CRC}..{max_datagram})")
    if zlib.crc32(data[:-CRC]) != int.from_bytes(data[-CRC:], "big"):
        raise PacketError("CRC-32 mismatch")
    first, flags, session, ack, credit = _HEADER.unpack_from(data)
    if first >> 4 != VERSION:
        raise PacketError(f"version {first >> 4} (this is version {VERSION})")
    try:
        kind = Kind(first & 0x0F)
    except ValueError:
        raise PacketError(f"unknown type {first & 0x0F}") from None
    if flags & ~END or (flags and kind is not Kind.DATA):
        raise PacketError(f"flags {flags:#04x} on {kind.name}")
    body = data[HEADER:-CRC]
    if kind is Kind.DATA:
        if len(body) < SEQ:
            raise PacketError("DATA without a sequence number")
        seq = int.from_bytes(body[:SEQ], "big")
        return Packet(kind, session, ack, credit, seq, bool(flags), body[SEQ:])
    if kind is Kind.NAK:
        if not body or body[0] == 0 or len(body) != 1 + NAK_RANGE * body[0]:
            raise PacketError(f"NAK body of {len(body)} octets")
        missing = tuple(_RANGE.iter_unpack(body[1:]))
        if any(n == 0 or s + n > SEQ_LIMIT for s, n in missing):
            raise PacketError("NAK range empty or beyond the sequence space")
        return Packet(kind, session, ack, credit, missing=missing)
    if kind is Kind.KEEPALIVE:
        if len(body) != SEQ:
            raise PacketError(f"KEEPALIVE with a {len(body)}-octet body (must be {SEQ})")
        return Packet(kind, session, ack, credit, int.from_bytes(body, "big"))
    if body:
        raise PacketError(f"{kind.name} with a {len(body)}-octet body")
    return Packet(kind, session, ack, credit)

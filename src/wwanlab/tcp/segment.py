"""TCP segments as bytes: header, options and the Internet checksum (RFC 9293 3.1).

Headers are packed with ``struct``. The checksum is the ones'-complement sum of 16-bit
big-endian words (RFC 1071), computed as a remainder: since 2**16 = 1 modulo 0xFFFF, a
byte string read as one big integer is congruent modulo 0xFFFF to the sum of its words,
and the folded ones'-complement sum of a non-zero total is its remainder by 0xFFFF with
0 read as 0xFFFF. A few ``int.from_bytes`` and one remainder replace a loop over words.
"""

import socket
import struct
from typing import Final

from wwanlab.tcp.errors import MalformedSegment

IPPROTO_TCP: Final = 6  # RFC 9293 3.1, "Protocol" in the pseudo-header
HEADER_LEN: Final = 20  # RFC 9293 3.1: minimum header, Data Offset = 5
MAX_HEADER_LEN: Final = 60  # RFC 9293 3.1: Data Offset is 4 bits of 32-bit words

# Control bits, RFC 9293 3.1.
FIN: Final = 0x01
SYN: Final = 0x02
RST: Final = 0x04
PSH: Final = 0x08
ACK: Final = 0x10
URG: Final = 0x20

# Option kinds.
OPT_EOL: Final = 0  # RFC 9293 3.2
OPT_NOP: Final = 1  # RFC 9293 3.2
OPT_MSS: Final = 2  # RFC 9293 3.2, length 4
OPT_WSCALE: Final = 3  # RFC 7323 2.2, length 3
OPT_SACK_PERMITTED: Final = 4  # RFC 2018 2, length 2
OPT_SACK: Final = 5  # RFC 2018 3, length 2 + 8n
OPT_TIMESTAMPS: Final = 8  # RFC 7323 3.2, length 10: TSval, TSecr
MAX_WSCALE: Final = 14  # RFC 7323 2.3: a larger shift is used as 14
MAX_SACK_BLOCKS: Final = 4  # RFC 2018 3: 40 option bytes hold at most 4 blocks
MAX_SACK_BLOCKS_WITH_TS: Final = 3  # RFC 2018 3: "a maximum of 3 SACK blocks" with TSopt
TIMESTAMPS_LEN: Final = 12  # RFC 7323 Appendix A: TSopt with two NOPs before it

_PIECE: Final = 384  # octets per partial sum in _words; even, so every piece is whole words

_HEADER = struct.Struct("!HHIIBBHHH")
_WORD = struct.Struct("!H")


class Segment:
    """A decoded segment; sequence numbers are the 32-bit wire values.

    A plain class, not a dataclass: mypyc compiles this ``__init__``, where a
    dataclass's is written at import time and runs interpreted, once per segment."""

    __slots__ = (
        "ack", "dst_port", "flags", "mss", "payload", "sack_blocks", "sack_permitted", "seq",
        "src_port", "tsecr", "tsval", "window", "wscale",
    )  # fmt: skip

    def __init__(
        self,
        src_port: int,
        dst_port: int,
        seq: int,
        ack: int,
        flags: int,
        window: int,
        payload: bytes,
    ) -> None:
        self.src_port = src_port
        self.dst_port = dst_port
        self.seq = seq
        self.ack = ack
        self.flags = flags
        self.window = window
        self.payload = payload
        self.mss: int | None = None
        self.wscale: int | None = None
        self.sack_permitted = False
        self.sack_blocks: tuple[tuple[int, int], ...] = ()
        self.tsval: int | None = None  # RFC 7323 3.2: None when the segment has no TSopt
        self.tsecr = 0


def _words(data: bytes) -> int:
    """An integer congruent modulo 0xFFFF to the sum of ``data``'s 16-bit big-endian
    words, an odd length padded with a zero octet (RFC 9293 3.1).

    Read in pieces of ``_PIECE`` octets, which start on word boundaries, and added up:
    dividing the small sum costs far less than dividing one integer of the whole
    segment (a bignum remainder is one machine division per 30 bits)."""
    size = len(data)
    value = 0
    if size & 1:
        size -= 1
        value = data[size] << 8
    for start in range(0, size, _PIECE):
        value += int.from_bytes(data[start : min(start + _PIECE, size)], "big")
    return value


def pseudo_header_sum(src_ip: str, dst_ip: str) -> int:
    """The constant part of the IPv4 pseudo-header (RFC 9293 3.1): addresses, zero and
    protocol, as ``_words`` counts them; the segment length is added per segment."""
    return int.from_bytes(socket.inet_aton(src_ip) + socket.inet_aton(dst_ip), "big") + IPPROTO_TCP


def encode_options(
    mss: int | None = None,
    wscale: int | None = None,
    sack_permitted: bool = False,
    sack_blocks: tuple[tuple[int, int], ...] = (),
    timestamps: tuple[int, int] | None = None,
) -> bytes:
    """Options padded to 32 bits with NOPs, in the order Linux writes them (a SYN's
    SACK-permitted takes the place of the NOPs before TSopt)."""
    out = b""
    if mss is not None:
        out += struct.pack("!BBH", OPT_MSS, 4, mss)
    if sack_permitted:
        pad = () if timestamps else (OPT_NOP, OPT_NOP)
        out += bytes((*pad, OPT_SACK_PERMITTED, 2))
    elif timestamps:
        out += bytes((OPT_NOP, OPT_NOP))
    if timestamps:
        out += struct.pack("!BBII", OPT_TIMESTAMPS, 10, *timestamps)
    if wscale is not None:
        out += bytes((OPT_NOP, OPT_WSCALE, 3, wscale))
    if sack_blocks:
        blocks = sack_blocks[:MAX_SACK_BLOCKS]
        out += bytes((OPT_NOP, OPT_NOP, OPT_SACK, 2 + 8 * len(blocks)))
        out += struct.pack(f"!{2 * len(blocks)}I", *(v for block in blocks for v in block))
    return out


def encode_segment(
    src_port: int,
    dst_port: int,
    seq: int,
    ack: int,
    flags: int,
    window: int,
    options: bytes,
    payload: bytes,
    pseudo_sum: int,
) -> bytes:
    """A complete segment with its checksum; ``pseudo_sum`` from ``pseudo_header_sum``."""
    offset = (HEADER_LEN + len(options)) >> 2
    header = _HEADER.pack(src_port, dst_port, seq, ack, offset << 4, flags, window, 0, 0)
    header += options
    total = pseudo_sum + len(header) + len(payload) + int.from_bytes(header, "big")
    total += _words(payload)
    # The complement of the folded sum; a sum folding to 0xFFFF gives 0 (never 0xFFFF,
    # the total being non-zero: the pseudo-header holds the protocol).
    checksum = -total % 0xFFFF
    return header[:16] + _WORD.pack(checksum) + header[18:] + payload


def checksum_ok(data: bytes, pseudo_sum: int) -> bool:
    """Whether ``data``'s checksum verifies under the pseudo-header (RFC 9293 3.1)."""
    return (pseudo_sum + len(data) + _words(data)) % 0xFFFF == 0


def decode_segment(data: bytes) -> Segment:
    """Parse a segment; every length is bounded, bad input raises ``MalformedSegment``."""
    if len(data) < HEADER_LEN:
        raise MalformedSegment(f"segment of {len(data)} bytes is shorter than a header")
    src, dst, seq, ack, offset_byte, flags, window, _csum, _urg = _HEADER.unpack_from(data)
    header_len = (offset_byte >> 4) * 4
    if header_len < HEADER_LEN or header_len > len(data):
        raise MalformedSegment(f"data offset {header_len} outside 20..{len(data)}")
    segment = Segment(src, dst, seq, ack, flags & 0x3F, window, bytes(data[header_len:]))
    _decode_options(segment, data[HEADER_LEN:header_len])
    return segment


def _decode_options(segment: Segment, options: bytes) -> None:
    i = 0
    end = len(options)
    while i < end:
        kind = options[i]
        if kind == OPT_EOL:
            return
        if kind == OPT_NOP:
            i += 1
            continue
        if i + 1 >= end:
            raise MalformedSegment(f"option kind {kind} has no length byte")
        length = options[i + 1]
        if length < 2 or i + length > end:
            raise MalformedSegment(f"option kind {kind} length {length} overruns the header")
        body = options[i + 2 : i + length]
        if kind == OPT_MSS:
            if length != 4:
                raise MalformedSegment(f"MSS option length {length}, expected 4")
            segment.mss = int.from_bytes(body, "big")
        elif kind == OPT_WSCALE:
            if length != 3:
                raise MalformedSegment(f"window scale option length {length}, expected 3")
            segment.wscale = min(body[0], MAX_WSCALE)
        elif kind == OPT_SACK_PERMITTED:
            if length != 2:
                raise MalformedSegment(f"SACK-permitted option length {length}, expected 2")
            segment.sack_permitted = True
        elif kind == OPT_SACK:
            if (length - 2) % 8 or length == 2:
                raise MalformedSegment(f"SACK option length {length} is not 2 + 8n")
            words = struct.unpack(f"!{(length - 2) // 4}I", body)
            segment.sack_blocks = tuple(zip(words[::2], words[1::2], strict=True))
        elif kind == OPT_TIMESTAMPS:
            if length != 10:
                raise MalformedSegment(f"timestamps option length {length}, expected 10")
            segment.tsval, segment.tsecr = struct.unpack("!II", body)
        # RFC 9293 3.1: options we do not implement are skipped by their length.
        i += length

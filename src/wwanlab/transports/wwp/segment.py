"""WWP segments: the 6-octet data header of paper 004 section 2.2 and the control
segments of section 2.3, as octets (layout in docs/wwp.md).

Every segment starts with one octet: the type in the high nibble, a wave level in the
next two bits and the LAST flag in bit 1 (bit 0 is reserved, zero). The paper fixes
only the data header's size ("a 6-byte header and a fixed-sized data payload") and
refers the formats to its reference [3]; the fields here are ours:

    DATA      type|level|LAST  wave  count  seq(24)        + payload    6 octets + data
    CONN      type|max level   unit  0      payload size(24)            6 octets
    CONN_ACK  type|level       unit  0      payload size(24)            6 octets
    N-S_ACK   type|level       wave  n      cum(24) high(24) n x seq(24)   9 + 3n
    PROBEk/PRk_ACK, FIN, FIN_ACK  type  wave  0  seq(24)               6 octets

``wave`` is the wave (or probe cycle) number modulo 256, ``count`` the segments in the
wave, ``seq`` a segment's index in the stream (so a stream holds at most 2^24 segments),
``cum`` the first segment not yet received in order and ``high`` one past the highest
received; the ``n`` sequence numbers listed lie between them and are missing.
"""

from dataclasses import dataclass
from enum import IntEnum

HEADER = 6  # octets, paper 004 2.2: "a 6-byte header"
NSACK_FIXED = 9  # N-S_ACK octets before its list of missing sequence numbers
SEQ_LIMIT = 1 << 24  # sequence numbers are 24 bits
MAX_MISSING = 255  # the N-S_ACK counts its list in one octet
MAX_LEVEL = 3  # two bits of level; paper 004 2.2: "four wave levels, i=0, 1, 2, 3"
LAST = 0x02  # flag: this DATA segment ends the stream


class Kind(IntEnum):
    DATA = 1
    CONN = 2
    CONN_ACK = 3
    NSACK = 4
    PROBE1 = 5
    PROBE2 = 6
    PROBE3 = 7
    PR1_ACK = 8
    PR2_ACK = 9
    FIN = 10
    FIN_ACK = 11


class SegmentError(ValueError):
    """Octets that are not a WWP segment; the message names the field."""


@dataclass(frozen=True, slots=True)
class Segment:
    """One decoded segment; fields a kind does not use stay 0 or empty."""

    kind: Kind
    level: int = 0
    wave: int = 0
    count: int = 0  # DATA: segments in the wave; CONN/CONN_ACK: the wave unit
    seq: int = 0  # DATA/PROBE/FIN: sequence number; CONN: payload size; N-S_ACK: cum
    last: bool = False
    high: int = 0  # N-S_ACK only
    missing: tuple[int, ...] = ()  # N-S_ACK only
    payload: bytes = b""  # DATA only

    def encode(self) -> bytes:
        if not 0 <= self.level <= MAX_LEVEL:
            raise SegmentError(f"level {self.level} outside 0..{MAX_LEVEL}")
        if not (0 <= self.wave <= 0xFF and 0 <= self.count <= 0xFF):
            raise SegmentError("wave and count are one octet each")
        if not 0 <= self.seq < SEQ_LIMIT:
            raise SegmentError(f"sequence number {self.seq} needs more than 24 bits")
        first = self.kind << 4 | self.level << 2 | (LAST if self.last else 0)
        if self.kind is Kind.NSACK:
            if len(self.missing) > MAX_MISSING or not 0 <= self.high < SEQ_LIMIT:
                raise SegmentError("N-S_ACK list or high mark out of range")
            head = bytes((first, self.wave, len(self.missing)))
            seqs = (self.seq, self.high, *self.missing)
            return head + b"".join(s.to_bytes(3, "big") for s in seqs)
        return bytes((first, self.wave, self.count)) + self.seq.to_bytes(3, "big") + self.payload


def decode(data: bytes, max_payload: int) -> Segment:
    """Parse one datagram; any length is checked before it is used."""
    if len(data) < HEADER:
        raise SegmentError(f"{len(data)} octets, shorter than the {HEADER}-octet header")
    first, wave, count = data[0], data[1], data[2]
    try:
        kind = Kind(first >> 4)
    except ValueError:
        raise SegmentError(f"unknown segment type {first >> 4}") from None
    if first & 0x01:
        raise SegmentError("reserved bit set")
    level, last = first >> 2 & 0x03, bool(first & LAST)
    seq = int.from_bytes(data[3:6], "big")
    if kind is Kind.DATA:
        payload = data[HEADER:]
        if not payload or len(payload) > max_payload:
            raise SegmentError(f"DATA payload of {len(payload)} octets (1..{max_payload})")
        if count == 0:
            raise SegmentError("DATA in a wave of 0 segments")
        return Segment(kind, level, wave, count, seq, last, payload=payload)
    if last:
        raise SegmentError(f"LAST flag on {kind.name}")
    if kind is Kind.NSACK:
        if len(data) != NSACK_FIXED + 3 * count:
            raise SegmentError(f"N-S_ACK of {len(data)} octets listing {count} segments")
        seqs = [int.from_bytes(data[i : i + 3], "big") for i in range(3, len(data), 3)]
        cum, high, missing = seqs[0], seqs[1], tuple(seqs[2:])
        if high < cum or any(not cum <= s < high for s in missing):
            raise SegmentError("N-S_ACK lists a segment outside [cum, high)")
        return Segment(kind, level, wave, seq=cum, high=high, missing=missing)
    if len(data) != HEADER:
        raise SegmentError(f"{kind.name} of {len(data)} octets (must be {HEADER})")
    return Segment(kind, level, wave, count, seq)

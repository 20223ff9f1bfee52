"""IPv4 and UDP headers as real bytes, built and parsed.

Formats: IPv4 header, RFC 791 §3.1; UDP header and its pseudo-header checksum,
RFC 768; the Internet checksum (one's-complement sum of 16-bit words), RFC 1071 §1;
incremental update of a checksum after a field changes, RFC 1624 §3 (eqn. 3).
Every parser checks lengths before reading and raises ``PacketError``.
"""

import struct
from typing import Final, NamedTuple

from wwanlab.core.errors import WwanlabError

IPV4_VERSION: Final = 4  # RFC 791 §3.1 "Version"
IPV4_MIN_HEADER: Final = 20  # RFC 791 §3.1: IHL >= 5 words
IPV4_MAX_TOTAL_LENGTH: Final = 65535  # RFC 791 §3.1 "Total Length" is 16 bits
DEFAULT_TTL: Final = 64  # RFC 1700 "IP TTL" recommended default
FLAG_DF: Final = 0x4000  # RFC 791 §3.1 "Flags" bit 1: Don't Fragment
FLAG_MF: Final = 0x2000  # RFC 791 §3.1 "Flags" bit 2: More Fragments
FRAGMENT_OFFSET_MASK: Final = 0x1FFF  # RFC 791 §3.1 "Fragment Offset", 13 bits

PROTO_TCP: Final = 6  # IANA protocol numbers (RFC 790 "Assigned Internet Protocol Numbers")
PROTO_UDP: Final = 17

UDP_HEADER: Final = 8  # RFC 768: source port, destination port, length, checksum
UDP_ZERO_CHECKSUM: Final = 0xFFFF  # RFC 768: a computed checksum of zero is sent as all ones

_IPV4 = struct.Struct("!BBHHHBBH4s4s")
_UDP = struct.Struct("!HHHH")


class PacketError(WwanlabError, ValueError):
    """Bytes that are not a well-formed IPv4 packet or UDP datagram."""


def internet_checksum(data: bytes, initial: int = 0) -> int:
    """RFC 1071 checksum: the complement of the one's-complement sum of 16-bit words.

    Because 2**16 == 1 (mod 0xFFFF), the one's-complement sum of the big-endian words
    of ``data`` is congruent to ``data`` read as one big integer, modulo 0xFFFF; the sum
    itself is 0 only when every word is 0, which is why a zero remainder of a non-zero
    value stands for 0xFFFF. ``initial`` is a one's-complement partial sum to add in.
    """
    if len(data) & 1:
        data += b"\x00"  # RFC 1071 §4.1: an odd byte is padded with zero
    value = int.from_bytes(data, "big") + initial
    total = value % 0xFFFF
    if total == 0 and value:
        total = 0xFFFF
    return ~total & 0xFFFF


def checksum_update(old_checksum: int, old_word: int, new_word: int) -> int:
    """RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m') after word m became m'."""
    total = (~old_checksum & 0xFFFF) + (~old_word & 0xFFFF) + new_word
    total = (total & 0xFFFF) + (total >> 16)
    total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


_ADDR_CACHE: dict[str, bytes] = {}


def ip_to_bytes(address: str) -> bytes:
    """The four octets of a dotted-quad IPv4 address ("10.0.0.1")."""
    packed = _ADDR_CACHE.get(address)
    if packed is None:
        parts = address.split(".")
        if len(parts) != 4 or not all(p.isdigit() and len(p) <= 3 for p in parts):
            raise PacketError(f"not a dotted-quad IPv4 address: {address!r}")
        octets = [int(p) for p in parts]
        if any(o > 255 for o in octets):
            raise PacketError(f"IPv4 address octet above 255: {address!r}")
        packed = bytes(octets)
        if len(_ADDR_CACHE) < 65536:
            _ADDR_CACHE[address] = packed
    return packed


_DOTTED_CACHE: dict[bytes, str] = {}


def bytes_to_ip(packed: bytes) -> str:
    """The dotted-quad form of four octets."""
    dotted = _DOTTED_CACHE.get(packed)
    if dotted is None:
        if len(packed) != 4:
            raise PacketError(f"an IPv4 address is 4 octets, got {len(packed)}")
        dotted = "{}.{}.{}.{}".format(*packed)
        if len(_DOTTED_CACHE) < 65536:  # bounded: simulated networks are small
            _DOTTED_CACHE[bytes(packed)] = dotted
    return dotted


class IPv4Header(NamedTuple):
    """The fields of an RFC 791 header that wwanlab reads (options are kept raw).

    A named tuple rather than a frozen dataclass: every simulated packet is parsed at
    least once, and a tuple is several times cheaper to build.
    """

    src: str
    dst: str
    protocol: int
    ttl: int = DEFAULT_TTL
    identification: int = 0
    dont_fragment: bool = True
    more_fragments: bool = False
    fragment_offset: int = 0
    tos: int = 0
    total_length: int = 0
    header_length: int = IPV4_MIN_HEADER
    checksum: int = 0
    options: bytes = b""


def build_ipv4(
    src: str,
    dst: str,
    protocol: int,
    payload: bytes,
    *,
    ttl: int = DEFAULT_TTL,
    identification: int = 0,
    dont_fragment: bool = True,
    tos: int = 0,
) -> bytes:
    """A complete IPv4 packet (20-octet header, no options) carrying ``payload``."""
    total = IPV4_MIN_HEADER + len(payload)
    if total > IPV4_MAX_TOTAL_LENGTH:
        raise PacketError(f"IPv4 total length {total} exceeds {IPV4_MAX_TOTAL_LENGTH}")
    if not (0 <= ttl <= 255 and 0 <= protocol <= 255 and 0 <= tos <= 255):
        raise PacketError("TTL, protocol and TOS are single octets")
    flags = FLAG_DF if dont_fragment else 0
    fields = (0x45, tos, total, identification & 0xFFFF, flags, ttl, protocol)  # 0x45: v4, IHL 5
    addresses = (ip_to_bytes(src), ip_to_bytes(dst))
    checksum = internet_checksum(_IPV4.pack(*fields, 0, *addresses))
    return _IPV4.pack(*fields, checksum, *addresses) + payload


def parse_ipv4(packet: bytes, *, verify: bool = True) -> tuple[IPv4Header, bytes]:
    """Split a packet into its header and payload; reject anything malformed.

    Octets beyond the header's Total Length (link padding) are ignored, as RFC 791
    makes Total Length authoritative.
    """
    if len(packet) < IPV4_MIN_HEADER:
        raise PacketError(f"IPv4 packet of {len(packet)} octets is shorter than 20")
    (vihl, tos, total, ident, frag, ttl, proto, checksum, src, dst) = _IPV4.unpack_from(packet)
    if vihl >> 4 != IPV4_VERSION:
        raise PacketError(f"IP version {vihl >> 4}, expected 4")
    hlen = (vihl & 0x0F) * 4
    if hlen < IPV4_MIN_HEADER:
        raise PacketError(f"IPv4 header length {hlen} is below 20")
    if total < hlen or total > len(packet):
        raise PacketError(
            f"IPv4 total length {total} does not fit header {hlen} and packet {len(packet)}"
        )
    if verify and internet_checksum(packet[:hlen]) != 0:
        raise PacketError(f"bad IPv4 header checksum 0x{checksum:04x}")
    header = IPv4Header(
        src=bytes_to_ip(src),
        dst=bytes_to_ip(dst),
        protocol=proto,
        ttl=ttl,
        identification=ident,
        dont_fragment=bool(frag & FLAG_DF),
        more_fragments=bool(frag & FLAG_MF),
        fragment_offset=frag & FRAGMENT_OFFSET_MASK,
        tos=tos,
        total_length=total,
        header_length=hlen,
        checksum=checksum,
        options=bytes(packet[IPV4_MIN_HEADER:hlen]),
    )
    return header, bytes(packet[hlen:total])


IPv4Addr = str | bytes
"""An address in dotted form or as its four octets (as parsers find it in a header)."""


def _packed(address: IPv4Addr) -> bytes:
    return address if isinstance(address, bytes) else ip_to_bytes(address)


def pseudo_header_sum(src: IPv4Addr, dst: IPv4Addr, protocol: int, length: int) -> int:
    """The RFC 768 pseudo-header (addresses, zero, protocol, length) as an integer."""
    return int.from_bytes(_packed(src) + _packed(dst), "big") + (protocol << 16 | length)


def transport_checksum(src: IPv4Addr, dst: IPv4Addr, protocol: int, segment: bytes) -> int:
    """The checksum over pseudo-header and segment (RFC 768; RFC 793 §3.1 for TCP).

    A segment whose checksum field is already filled in gives 0 when it is correct.
    """
    return internet_checksum(segment, pseudo_header_sum(src, dst, protocol, len(segment)))


def build_udp(src: IPv4Addr, dst: IPv4Addr, src_port: int, dst_port: int, payload: bytes) -> bytes:
    """A UDP header and payload with the RFC 768 checksum filled in."""
    length = UDP_HEADER + len(payload)
    if length > IPV4_MAX_TOTAL_LENGTH - IPV4_MIN_HEADER:
        raise PacketError(f"UDP length {length} does not fit one IPv4 packet")
    if not (0 <= src_port <= 0xFFFF and 0 <= dst_port <= 0xFFFF):
        raise PacketError(f"UDP ports out of range: {src_port}, {dst_port}")
    # The header is whole 16-bit words, so its words add to the sum independently of the
    # payload's: checksum the payload with pseudo-header and header as the initial sum.
    header_sum = int.from_bytes(_UDP.pack(src_port, dst_port, length, 0), "big")
    initial = pseudo_header_sum(src, dst, PROTO_UDP, length) + header_sum
    checksum = internet_checksum(payload, initial) or UDP_ZERO_CHECKSUM
    return _UDP.pack(src_port, dst_port, length, checksum) + payload


_IPV4_UDP = struct.Struct("!BBHHHBBH4s4sHHHH")  # both headers, 28 octets


class UdpFlow:
    """Builds the IPv4 packets of one UDP flow (addresses and ports fixed).

    Produces exactly ``build_ipv4(src, dst, PROTO_UDP, build_udp(...))`` with the same
    defaults, faster: both checksums are Internet checksums, so they only depend on the
    sum of their 16-bit words modulo 0xFFFF (RFC 1071 §2: the sum is commutative and
    2**16 == 1 mod 0xFFFF). The words that never change for the flow (version, flags,
    TTL, protocol, the addresses, the ports) are summed once here; a packet adds its
    lengths, its Identification and its payload read as one integer, and takes one
    remainder per checksum.
    """

    __slots__ = ("_ip_sum", "_udp_sum", "dst", "dst_port", "src", "src_port")

    def __init__(self, src: IPv4Addr, dst: IPv4Addr, src_port: int, dst_port: int) -> None:
        if not (0 <= src_port <= 0xFFFF and 0 <= dst_port <= 0xFFFF):
            raise PacketError(f"UDP ports out of range: {src_port}, {dst_port}")
        self.src = _packed(src)
        self.dst = _packed(dst)
        self.src_port = src_port
        self.dst_port = dst_port
        addresses = int.from_bytes(self.src + self.dst, "big")
        # IPv4 words other than Total Length and Identification (checksum field 0).
        self._ip_sum = (0x45 << 8) + FLAG_DF + (DEFAULT_TTL << 8 | PROTO_UDP) + addresses
        # RFC 768 pseudo-header (its length word aside) and UDP header (length aside).
        self._udp_sum = addresses + PROTO_UDP + src_port + dst_port

    def packet(self, payload: bytes, identification: int = 0) -> bytes:
        """One packet carrying ``payload``."""
        size = len(payload)
        length = UDP_HEADER + size
        if length > IPV4_MAX_TOTAL_LENGTH - IPV4_MIN_HEADER:
            raise PacketError(f"UDP length {length} does not fit one IPv4 packet")
        # The UDP length is counted twice (pseudo-header and header); an odd payload
        # is padded with a zero octet (RFC 1071 §4.1), i.e. shifted one octet left.
        value = self._udp_sum + 2 * length + (int.from_bytes(payload, "big") << (size & 1) * 8)
        udp_checksum = 0xFFFF - value % 0xFFFF  # never 0: a zero sum is sent as 0xFFFF
        identification &= 0xFFFF
        total = IPV4_MIN_HEADER + length
        ip_checksum = -(self._ip_sum + total + identification) % 0xFFFF
        return (
            _IPV4_UDP.pack(
                0x45,
                0,
                total,
                identification,
                FLAG_DF,
                DEFAULT_TTL,
                PROTO_UDP,
                ip_checksum,
                self.src,
                self.dst,
                self.src_port,
                self.dst_port,
                length,
                udp_checksum,
            )
            + payload
        )


class IpFlow:
    """Builds the IPv4 packets of one (source, destination, protocol) flow.

    Produces exactly ``build_ipv4(src, dst, protocol, payload, identification=i)``
    with the defaults, as ``UdpFlow`` does for UDP: the header words that never change
    for the flow are summed once, a packet adds its Total Length and Identification
    and takes one remainder. Hosts use it for transports that bring whole segments.
    """

    __slots__ = ("_ip_sum", "dst", "protocol", "src")

    def __init__(self, src: IPv4Addr, dst: IPv4Addr, protocol: int) -> None:
        if not 0 <= protocol <= 255:
            raise PacketError("TTL, protocol and TOS are single octets")
        self.src = _packed(src)
        self.dst = _packed(dst)
        self.protocol = protocol
        addresses = int.from_bytes(self.src + self.dst, "big")
        self._ip_sum = (0x45 << 8) + FLAG_DF + (DEFAULT_TTL << 8 | protocol) + addresses

    def packet(self, payload: bytes, identification: int = 0) -> bytes:
        """One packet carrying ``payload``."""
        total = IPV4_MIN_HEADER + len(payload)
        if total > IPV4_MAX_TOTAL_LENGTH:
            raise PacketError(f"IPv4 total length {total} exceeds {IPV4_MAX_TOTAL_LENGTH}")
        identification &= 0xFFFF
        checksum = -(self._ip_sum + total + identification) % 0xFFFF
        header = _IPV4.pack(
            0x45, 0, total, identification, FLAG_DF, DEFAULT_TTL, self.protocol, checksum,
            self.src, self.dst,
        )  # fmt: skip
        return header + payload


class UdpHeader(NamedTuple):
    src_port: int
    dst_port: int
    length: int
    checksum: int


def parse_udp(
    src: IPv4Addr, dst: IPv4Addr, datagram: bytes, *, verify: bool = True
) -> tuple[UdpHeader, bytes]:
    """Split a UDP datagram carried between ``src`` and ``dst``; check its checksum."""
    if len(datagram) < UDP_HEADER:
        raise PacketError(f"UDP datagram of {len(datagram)} octets is shorter than 8")
    src_port, dst_port, length, checksum = _UDP.unpack_from(datagram)
    if length < UDP_HEADER or length > len(datagram):
        raise PacketError(f"UDP length {length} does not fit datagram of {len(datagram)}")
    datagram = datagram[:length]
    # RFC 768: a zero checksum field means the sender computed none.
    if verify and checksum != 0 and transport_checksum(src, dst, PROTO_UDP, datagram) != 0:
        raise PacketError(f"bad UDP checksum 0x{checksum:04x}")
    return UdpHeader(src_port, dst_port, length, checksum), bytes(datagram[UDP_HEADER:])

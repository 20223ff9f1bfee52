"""Reading pcapng files, the format tshark and dumpcap write by default.

File format: the PCAP Next Generation capture file format (IETF draft
draft-ietf-opsawg-pcapng, sections 3-4). A file is a sequence of blocks, each ``type``,
``total length``, body, ``total length`` again, all 32-bit aligned. A Section Header
Block (SHB) starts every section and fixes its byte order by its byte-order magic; an
Interface Description Block (IDB) gives each interface its link type and timestamp
resolution; packets come in Enhanced Packet Blocks (EPB), Simple Packet Blocks (SPB) or
the obsolete Packet Blocks (PB). Every other block is skipped. Every length read from
the file is checked against what is left of its block before use.

``read_capture`` reads either this format or the classic pcap file of ``sim.pcap``.
"""

import struct
from dataclasses import dataclass

from wwanlab.sim.pcap import MAX_SNAPLEN, PCAP_MAGIC_MICROSECONDS, PcapError, read_pcap

BLOCK_SHB = 0x0A0D0D0A  # pcapng 4.1: the same in either byte order
BLOCK_IDB = 0x00000001  # pcapng 4.2
BLOCK_PB = 0x00000002  # pcapng appendix: obsolete Packet Block
BLOCK_SPB = 0x00000003  # pcapng 4.4
BLOCK_EPB = 0x00000006  # pcapng 4.3
BYTE_ORDER_MAGIC = 0x1A2B3C4D  # pcapng 4.1
OPT_ENDOFOPT = 0  # pcapng 3.5
IF_TSRESOL = 9  # pcapng 4.2: if_tsresol, one octet
DEFAULT_TSRESOL = 6  # pcapng 4.2: "If the Option is missing, ... 10^-6"
BLOCK_HEADER = 8  # type and total length
BLOCK_TRAILER = 4  # total length again
MIN_BLOCK = BLOCK_HEADER + BLOCK_TRAILER
PACKET_FIELDS = 20  # EPB and PB: interface, timestamp (2 words), captured and original length


@dataclass(frozen=True)
class CapturedPacket:
    """One packet of a capture: its interface's link type, time in seconds, octets."""

    linktype: int
    time: float
    data: bytes


@dataclass(frozen=True)
class _Interface:
    linktype: int
    snaplen: int
    units_per_second: int


def read_capture(data: bytes) -> list[CapturedPacket]:
    """The packets of a pcapng or classic (microsecond) pcap file, in file order."""
    magic = data[:4]
    if len(magic) == 4 and struct.unpack("<I", magic)[0] == BLOCK_SHB:
        return read_pcapng(data)
    if len(magic) == 4 and PCAP_MAGIC_MICROSECONDS in struct.unpack("<I", magic) + struct.unpack(
        ">I", magic
    ):
        linktype, records = read_pcap(data)
        return [CapturedPacket(linktype, t, packet) for t, packet in records]
    raise PcapError(f"neither pcapng nor a microsecond pcap file (magic {magic.hex()})")


def read_pcapng(data: bytes) -> list[CapturedPacket]:
    """The packets of every section of a pcapng file."""
    packets: list[CapturedPacket] = []
    order = "<"
    interfaces: list[_Interface] = []
    offset = 0
    while offset < len(data):
        if len(data) - offset < MIN_BLOCK:
            raise PcapError(f"truncated block header at offset {offset}")
        block_type = struct.unpack_from("<I", data, offset)[0]
        if block_type == BLOCK_SHB:
            order = _section_order(data, offset)
            interfaces = []
        block_type, length = struct.unpack_from(order + "II", data, offset)
        if length < MIN_BLOCK or length % 4 or length > len(data) - offset:
            raise PcapError(f"block of {length} octets at offset {offset} is impossible here")
        trailer = struct.unpack_from(order + "I", data, offset + length - BLOCK_TRAILER)[0]
        if trailer != length:
            raise PcapError(f"block at offset {offset} ends with length {trailer}, not {length}")
        body = data[offset + BLOCK_HEADER : offset + length - BLOCK_TRAILER]
        if block_type == BLOCK_IDB:
            interfaces.append(_interface(body, order, offset))
        elif block_type in (BLOCK_EPB, BLOCK_PB, BLOCK_SPB):
            packets.append(_packet(block_type, body, order, interfaces, offset))
        offset += length
    return packets


def _section_order(data: bytes, offset: int) -> str:
    if len(data) - offset < BLOCK_HEADER + 4:
        raise PcapError(f"truncated section header at offset {offset}")
    for order in ("<", ">"):
        if struct.unpack_from(order + "I", data, offset + BLOCK_HEADER)[0] == BYTE_ORDER_MAGIC:
            return order
    raise PcapError(f"section header at offset {offset} has no byte-order magic")


def _interface(body: bytes, order: str, offset: int) -> _Interface:
    if len(body) < 8:
        raise PcapError(f"interface description at offset {offset} is truncated")
    linktype, _reserved, snaplen = struct.unpack_from(order + "HHI", body)
    resolution = DEFAULT_TSRESOL
    for code, value in _options(body[8:], order, offset):
        if code == IF_TSRESOL and len(value) == 1:
            resolution = value[0]
    exponent = resolution & 0x7F
    if exponent > 30:  # beyond nanoseconds by far: a corrupt option
        raise PcapError(f"interface at offset {offset} has timestamp resolution {resolution}")
    units = 2**exponent if resolution & 0x80 else 10**exponent  # pcapng 4.2: MSB set: 2^-n
    return _Interface(linktype, snaplen, units)


def _options(area: bytes, order: str, offset: int) -> list[tuple[int, bytes]]:
    options: list[tuple[int, bytes]] = []
    at = 0
    while at + 4 <= len(area):
        code, length = struct.unpack_from(order + "HH", area, at)
        if code == OPT_ENDOFOPT:
            break
        if at + 4 + length > len(area):
            raise PcapError(f"option {code} of the block at offset {offset} overruns it")
        options.append((code, area[at + 4 : at + 4 + length]))
        at += 4 + (length + 3) // 4 * 4
    return options


def _packet(
    block_type: int, body: bytes, order: str, interfaces: list[_Interface], offset: int
) -> CapturedPacket:
    if block_type == BLOCK_SPB:  # pcapng 4.4: interface 0, no timestamp
        if len(body) < 4:
            raise PcapError(f"simple packet block at offset {offset} is truncated")
        (original,) = struct.unpack_from(order + "I", body)
        interface = _interface_of(interfaces, 0, offset)
        captured = min(original, interface.snaplen or original, len(body) - 4)
        return CapturedPacket(interface.linktype, 0.0, body[4 : 4 + captured])
    if len(body) < PACKET_FIELDS:
        raise PcapError(f"packet block at offset {offset} is truncated")
    if block_type == BLOCK_EPB:
        index, high, low, captured, _original = struct.unpack_from(order + "IIIII", body)
    else:  # the obsolete Packet Block: a 16-bit interface id, then a drops count
        index, _drops, high, low, captured, _original = struct.unpack_from(order + "HHIIII", body)
    if captured > MAX_SNAPLEN or PACKET_FIELDS + captured > len(body):
        raise PcapError(f"packet of {captured} octets at offset {offset} overruns its block")
    interface = _interface_of(interfaces, index, offset)
    time = ((high << 32) | low) / interface.units_per_second
    return CapturedPacket(interface.linktype, time, body[PACKET_FIELDS : PACKET_FIELDS + captured])


def _interface_of(interfaces: list[_Interface], index: int, offset: int) -> _Interface:
    if index >= len(interfaces):
        raise PcapError(f"packet at offset {offset} names interface {index}, never described")
    return interfaces[index]

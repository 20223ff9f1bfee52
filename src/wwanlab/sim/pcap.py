"""Classic pcap files of raw IPv4 packets stamped with virtual time.

File format: the libpcap savefile of tcpdump.org's pcap-savefile(5) (24-octet file
header with magic 0xA1B2C3D4, version 2.4; a 16-octet record header of seconds,
microseconds, captured length, original length before each packet). Link type
LINKTYPE_RAW = 101 from tcpdump.org's "Link-layer header types" list: each record is
one IP packet, no link header. Records are written little-endian; the magic number
tells readers the byte order.
"""

import struct
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import BinaryIO

from wwanlab.core.errors import WwanlabError

PCAP_MAGIC_MICROSECONDS = 0xA1B2C3D4  # pcap-savefile(5): timestamps in microseconds
PCAP_VERSION = (2, 4)  # pcap-savefile(5): current major.minor version
LINKTYPE_RAW = 101  # tcpdump.org linktypes: "Raw IP; the packet begins with an IP header"
LINKTYPE_IPV4 = 228  # tcpdump.org linktypes: "Raw IPv4; the packet begins with IPv4"
DEFAULT_SNAPLEN = 65535
MAX_SNAPLEN = 262144  # tcpdump's MAXIMUM_SNAPLEN; larger record lengths are corrupt

_FILE_HEADER = struct.Struct("<IHHiIII")
_RECORD_HEADER = struct.Struct("<IIII")


class PcapError(WwanlabError, ValueError):
    """A pcap file that is truncated, of an unknown kind, or has an impossible record."""


def timestamp_us(t: float) -> tuple[int, int]:
    """Virtual time in seconds as (seconds, microseconds), rounded to the microsecond."""
    if not t >= 0:
        raise PcapError(f"pcap timestamps cannot be negative: {t!r}")
    return divmod(round(t * 1_000_000), 1_000_000)


class PcapWriter:
    """Writes records to a file; the caller (or ``Network.close``) closes it."""

    def __init__(
        self,
        file: str | Path | BinaryIO,
        *,
        linktype: int = LINKTYPE_RAW,
        snaplen: int = DEFAULT_SNAPLEN,
    ) -> None:
        if isinstance(file, str | Path):
            self._file: BinaryIO = open(file, "wb")  # noqa: SIM115 - closed in close()
            self._owned = True
        else:
            self._file = file
            self._owned = False
        self.snaplen = snaplen
        self.packets = 0
        major, minor = PCAP_VERSION
        header = _FILE_HEADER.pack(PCAP_MAGIC_MICROSECONDS, major, minor, 0, 0, snaplen, linktype)
        self._file.write(header)

    def write(self, t: float, packet: bytes) -> None:
        """Append one packet seen at virtual time ``t``."""
        seconds, micros = timestamp_us(t)
        captured = packet[: self.snaplen]
        self._file.write(_RECORD_HEADER.pack(seconds, micros, len(captured), len(packet)))
        self._file.write(captured)
        self.packets += 1

    def close(self) -> None:
        if self._owned:
            self._file.close()
        else:
            self._file.flush()

    def __enter__(self) -> "PcapWriter":
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def read_pcap(data: bytes) -> tuple[int, list[tuple[float, bytes]]]:
    """The link type and the ``(time, packet)`` records of a microsecond pcap file."""
    return _parse(data)[0], list(_records(data))


def _parse(data: bytes) -> tuple[int, str]:
    if len(data) < _FILE_HEADER.size:
        raise PcapError(f"pcap file of {len(data)} octets is shorter than its header")
    for order in ("<", ">"):
        (magic,) = struct.unpack_from(order + "I", data)
        if magic == PCAP_MAGIC_MICROSECONDS:
            fields = struct.unpack_from(order + "IHHiIII", data)
            return fields[6], order
    raise PcapError(f"not a microsecond pcap file (magic {data[:4].hex()})")


def _records(data: bytes) -> Iterator[tuple[float, bytes]]:
    _, order = _parse(data)
    record = struct.Struct(order + "IIII")
    offset = _FILE_HEADER.size
    while offset < len(data):
        if offset + record.size > len(data):
            raise PcapError(f"truncated record header at offset {offset}")
        seconds, micros, captured, _original = record.unpack_from(data, offset)
        offset += record.size
        if captured > MAX_SNAPLEN or offset + captured > len(data):
            raise PcapError(f"record of {captured} octets at offset {offset} overruns the file")
        if micros >= 1_000_000:
            raise PcapError(f"record microseconds {micros} out of range at offset {offset}")
        yield seconds + micros / 1_000_000, data[offset : offset + captured]
        offset += captured

"""WSP redirect addresses (WSP 8.2.2.3), also the value of the Aliases capability.

One address: an Address Type And Length octet (bearer type included | port number
included | 6-bit address length), then the bearer type octet and the 16-bit port when
flagged, then the address octets (e.g. four for IPv4).
"""

from dataclasses import dataclass

from wwanlab.wap.wsp.constants import (
    ADDRESS_BEARER_TYPE_INCLUDED,
    ADDRESS_LENGTH_MASK,
    ADDRESS_PORT_NUMBER_INCLUDED,
)
from wwanlab.wap.wsp.encoding import Reader, WspCodecError


@dataclass(frozen=True, slots=True)
class Address:
    """A bearer address; ``bearer_type`` (WDP bearer type) and ``port`` are optional."""

    address: bytes
    bearer_type: int | None = None
    port: int | None = None


def read_addresses(reader: Reader) -> tuple[Address, ...]:
    """Addresses until the reader's end."""
    addresses = []
    while not reader.at_end():
        head = reader.octet()
        bearer = reader.octet() if head & ADDRESS_BEARER_TYPE_INCLUDED else None
        port = None
        if head & ADDRESS_PORT_NUMBER_INCLUDED:
            port = int.from_bytes(reader.take(2, "port number"), "big")
        addresses.append(Address(reader.take(head & ADDRESS_LENGTH_MASK, "address"), bearer, port))
    return tuple(addresses)


def put_address(address: Address) -> bytes:
    if len(address.address) > ADDRESS_LENGTH_MASK:
        raise WspCodecError(f"address of {len(address.address)} octets exceeds 63")
    head = len(address.address)
    out = bytearray()
    if address.bearer_type is not None:
        if not 0 <= address.bearer_type <= 0xFF:
            raise WspCodecError(f"bearer type {address.bearer_type} outside one octet")
        head |= ADDRESS_BEARER_TYPE_INCLUDED
        out.append(address.bearer_type)
    if address.port is not None:
        if not 0 <= address.port <= 0xFFFF:
            raise WspCodecError(f"port {address.port} outside 16 bits")
        head |= ADDRESS_PORT_NUMBER_INCLUDED
        out += address.port.to_bytes(2, "big")
    return bytes([head]) + out + address.address

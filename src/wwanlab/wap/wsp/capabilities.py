"""WSP capabilities (WSP 8.3.2), carried by Connect, ConnectReply and Resume.

Each capability is Length (uintvar, covering the rest) | Identifier | Parameters. A
well-known identifier is a Short-integer (0x80 | id, WSP Table 37); any other is a
Text-string. Capabilities this codec does not know stay raw in ``UnknownCapability``.
"""

from dataclasses import dataclass

from wwanlab.wap.wsp.address import Address, put_address, read_addresses
from wwanlab.wap.wsp.constants import CapabilityId
from wwanlab.wap.wsp.encoding import (
    Reader,
    WspCodecError,
    put_short_integer,
    put_text_string,
    put_uintvar,
)


@dataclass(frozen=True, slots=True)
class ClientSduSize:
    """WSP 8.3.2.1: largest SDU the client can receive; 0 means no limit."""

    size: int


@dataclass(frozen=True, slots=True)
class ServerSduSize:
    """WSP 8.3.2.1: largest SDU the server can receive; 0 means no limit."""

    size: int


@dataclass(frozen=True, slots=True)
class ClientMessageSize:
    """WAP-230 8.3.2.2: largest message the client can receive."""

    size: int


@dataclass(frozen=True, slots=True)
class ServerMessageSize:
    """WAP-230 8.3.2.2: largest message the server can receive."""

    size: int


@dataclass(frozen=True, slots=True)
class ProtocolOptions:
    """WSP 8.3.2.3: option flags (``OPTION_*``), big-endian over ``width`` octets."""

    flags: int
    width: int = 1


@dataclass(frozen=True, slots=True)
class MethodMor:
    """WSP 8.3.2.4: maximum outstanding method requests."""

    count: int


@dataclass(frozen=True, slots=True)
class PushMor:
    """WSP 8.3.2.4: maximum outstanding push requests."""

    count: int


@dataclass(frozen=True, slots=True)
class ExtendedMethods:
    """WSP 8.3.2.5: (PDU type, method name) pairs for methods beyond HTTP/1.1's."""

    methods: tuple[tuple[int, str], ...]


@dataclass(frozen=True, slots=True)
class HeaderCodePages:
    """WSP 8.3.2.6: header code pages; the client names them, a reply may list codes only
    (name None). Code page 0 is the default page and is not listed bare."""

    pages: tuple[tuple[int, str | None], ...]


@dataclass(frozen=True, slots=True)
class Aliases:
    """WSP 8.3.2.7: other addresses of the server."""

    addresses: tuple[Address, ...]


@dataclass(frozen=True, slots=True)
class UnknownCapability:
    """A capability with an identifier this codec does not know, kept raw."""

    identifier: int | str
    data: bytes = b""


Capability = (
    ClientSduSize
    | ServerSduSize
    | ClientMessageSize
    | ServerMessageSize
    | ProtocolOptions
    | MethodMor
    | PushMor
    | ExtendedMethods
    | HeaderCodePages
    | Aliases
    | UnknownCapability
)

_SIZES: dict[int, type[ClientSduSize | ServerSduSize | ClientMessageSize | ServerMessageSize]] = {
    CapabilityId.CLIENT_SDU_SIZE: ClientSduSize,
    CapabilityId.SERVER_SDU_SIZE: ServerSduSize,
    CapabilityId.CLIENT_MESSAGE_SIZE: ClientMessageSize,
    CapabilityId.SERVER_MESSAGE_SIZE: ServerMessageSize,
}
_SIZE_IDS = {cls: ident for ident, cls in _SIZES.items()}


def decode_capabilities(data: bytes) -> tuple[Capability, ...]:
    """The capabilities of a capability block; raises ``WspCodecError``."""
    reader = Reader(data)
    out = []
    while not reader.at_end():
        length = reader.uintvar()
        out.append(_decode_one(reader.sub(length, "capability")))
    return tuple(out)


def _decode_one(reader: Reader) -> Capability:
    if reader.peek() & 0x80:
        ident = reader.octet() & 0x7F
    else:
        return UnknownCapability(reader.text_string(), reader.rest())
    value: Capability
    if ident in _SIZES:
        value = _SIZES[ident](reader.uintvar())
    elif ident == CapabilityId.PROTOCOL_OPTIONS:
        raw = reader.rest()
        if not raw:
            raise WspCodecError("protocol options capability without flags")
        value = ProtocolOptions(int.from_bytes(raw, "big"), len(raw))
    elif ident == CapabilityId.METHOD_MOR:
        value = MethodMor(reader.octet())
    elif ident == CapabilityId.PUSH_MOR:
        value = PushMor(reader.octet())
    elif ident == CapabilityId.EXTENDED_METHODS:
        methods = []
        while not reader.at_end():
            methods.append((reader.octet(), reader.text_string()))
        return ExtendedMethods(tuple(methods))
    elif ident == CapabilityId.HEADER_CODE_PAGES:
        return HeaderCodePages(_code_pages(reader))
    elif ident == CapabilityId.ALIASES:
        return Aliases(read_addresses(reader))
    else:
        return UnknownCapability(ident, reader.rest())
    if not reader.at_end():
        raise WspCodecError(f"{reader.remaining()} stray octets in capability {ident:#x}")
    return value


def _code_pages(reader: Reader) -> tuple[tuple[int, str | None], ...]:
    """(code, name) pairs when the octets read so, else bare codes (name None)."""
    start = reader.pos
    named: list[tuple[int, str | None]] = []
    try:
        while not reader.at_end():
            named.append((reader.octet(), reader.text_string()))
        return tuple(named)
    except WspCodecError:
        reader.pos = start
    return tuple((code, None) for code in reader.rest())


def encode_capabilities(capabilities: tuple[Capability, ...] | list[Capability]) -> bytes:
    out = bytearray()
    for capability in capabilities:
        body = _encode_one(capability)
        out += put_uintvar(len(body)) + body
    return bytes(out)


def _octet(value: int, what: str) -> bytes:
    if not 0 <= value <= 0xFF:
        raise WspCodecError(f"{what} {value} outside one octet")
    return bytes([value])


def _encode_one(capability: Capability) -> bytes:
    match capability:
        case ClientSduSize() | ServerSduSize() | ClientMessageSize() | ServerMessageSize():
            return put_short_integer(_SIZE_IDS[type(capability)]) + put_uintvar(capability.size)
        case ProtocolOptions(flags, width):
            if width < 1 or not 0 <= flags < 1 << 8 * width:
                raise WspCodecError(f"protocol options {flags:#x} do not fit {width} octets")
            return put_short_integer(CapabilityId.PROTOCOL_OPTIONS) + flags.to_bytes(width, "big")
        case MethodMor(count):
            return put_short_integer(CapabilityId.METHOD_MOR) + _octet(count, "method MOR")
        case PushMor(count):
            return put_short_integer(CapabilityId.PUSH_MOR) + _octet(count, "push MOR")
        case ExtendedMethods(methods):
            body = b"".join(_octet(code, "PDU type") + put_text_string(n) for code, n in methods)
            return put_short_integer(CapabilityId.EXTENDED_METHODS) + body
        case HeaderCodePages(pages):
            body = b"".join(
                _octet(code, "code page") + (b"" if name is None else put_text_string(name))
                for code, name in pages
            )
            return put_short_integer(CapabilityId.HEADER_CODE_PAGES) + body
        case Aliases(addresses):
            return put_short_integer(CapabilityId.ALIASES) + b"".join(
                put_address(a) for a in addresses
            )
        case UnknownCapability(identifier, data):
            if isinstance(identifier, str):
                return put_text_string(identifier) + data
            return put_short_integer(identifier) + data

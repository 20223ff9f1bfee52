"""WSP protocol data units (WAP-203-WSP 8.2): typed frozen dataclasses and a pure codec.

``decode(data)`` reads one PDU as carried by WTP (connection-oriented, port 9201);
``decode_connectionless(data)`` first takes the one-octet TID that connectionless WSP
puts in front (WSP 8.2.1, port 9200). ``encode`` and ``encode_connectionless`` are their
inverses. Header blocks and content types stay raw encoded bytes here; ``headers``
decodes them. Capabilities are decoded (``capabilities``).

Layouts after the PDU Type octet (WSP 8.2.2-8.2.5)::

    Connect        Version, CapabilitiesLen, HeadersLen (uintvars), Capabilities, Headers
    ConnectReply   ServerSessionId, CapabilitiesLen, HeadersLen, Capabilities, Headers
    Redirect       Flags, then redirect addresses to the end
    Disconnect     ServerSessionId
    Get family     URILen, URI, Headers to the end
    Post family    URILen, HeadersLen, URI, ContentType + Headers (HeadersLen), Data
    Reply          Status, HeadersLen, ContentType + Headers (HeadersLen), Data
    Push, ConfirmedPush   HeadersLen, ContentType + Headers (HeadersLen), Data
    Suspend        SessionId
    Resume         SessionId, CapabilitiesLen, Capabilities, Headers to the end
"""

from dataclasses import dataclass

from wwanlab.wap.wsp.address import Address, put_address, read_addresses
from wwanlab.wap.wsp.capabilities import Capability, decode_capabilities, encode_capabilities
from wwanlab.wap.wsp.constants import (
    GET_METHODS,
    POST_METHODS,
    REDIRECT_PERMANENT,
    REDIRECT_REUSE_SECURITY_SESSION,
    WSP_VERSION,
    PduType,
)
from wwanlab.wap.wsp.encoding import Reader, WspCodecError, put_uintvar

__all__ = [
    "ConfirmedPush",
    "Connect",
    "ConnectReply",
    "Disconnect",
    "Get",
    "Pdu",
    "Post",
    "Push",
    "Redirect",
    "Reply",
    "Resume",
    "Suspend",
    "WspCodecError",
    "decode",
    "decode_connectionless",
    "encode",
    "encode_connectionless",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class Connect:
    """WSP 8.2.2.1: the client asks for a session."""

    version: int = WSP_VERSION
    capabilities: tuple[Capability, ...] = ()
    headers: bytes = b""


@dataclass(frozen=True, slots=True, kw_only=True)
class ConnectReply:
    """WSP 8.2.2.2: the server accepts the session ``session_id``."""

    session_id: int
    capabilities: tuple[Capability, ...] = ()
    headers: bytes = b""


@dataclass(frozen=True, slots=True, kw_only=True)
class Redirect:
    """WSP 8.2.2.3: the server sends the client elsewhere."""

    addresses: tuple[Address, ...]
    permanent: bool = False
    reuse_security_session: bool = False
    reserved: int = 0  # the six low bits of Flags, kept for an exact round trip


@dataclass(frozen=True, slots=True, kw_only=True)
class Disconnect:
    """WSP 8.2.2.4: ends session ``session_id``."""

    session_id: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Get:
    """WSP 8.2.3.1: GET, OPTIONS, HEAD, DELETE, TRACE or an extended method 0x50-0x5F.

    ``uri`` is the URI's octets read as UTF-8, undecodable octets kept by surrogateescape.
    """

    uri: str
    method: int = PduType.GET
    headers: bytes = b""


@dataclass(frozen=True, slots=True, kw_only=True)
class Post:
    """WSP 8.2.3.2: POST, PUT or an extended method 0x70-0x7F, with content."""

    uri: str
    content_type: bytes
    method: int = PduType.POST
    headers: bytes = b""
    data: bytes = b""


@dataclass(frozen=True, slots=True, kw_only=True)
class Reply:
    """WSP 8.2.3.3: the answer to a method; ``status`` is the WSP status octet
    (``status.http_to_wsp`` converts)."""

    status: int
    content_type: bytes
    headers: bytes = b""
    data: bytes = b""


@dataclass(frozen=True, slots=True, kw_only=True)
class Push:
    """WSP 8.2.4.1: unconfirmed push."""

    content_type: bytes
    headers: bytes = b""
    data: bytes = b""


@dataclass(frozen=True, slots=True, kw_only=True)
class ConfirmedPush:
    """WSP 8.2.4.1: push the client acknowledges (connection-oriented only)."""

    content_type: bytes
    headers: bytes = b""
    data: bytes = b""


@dataclass(frozen=True, slots=True, kw_only=True)
class Suspend:
    """WSP 8.2.2.5: suspends session ``session_id``."""

    session_id: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Resume:
    """WSP 8.2.2.6: resumes session ``session_id``, maybe over another bearer."""

    session_id: int
    capabilities: tuple[Capability, ...] = ()
    headers: bytes = b""


Pdu = (
    Connect
    | ConnectReply
    | Redirect
    | Disconnect
    | Get
    | Post
    | Reply
    | Push
    | ConfirmedPush
    | Suspend
    | Resume
)


# --- decoding ----------------------------------------------------------------------------


def decode(data: bytes) -> Pdu:
    """One connection-mode PDU filling ``data``; raises ``WspCodecError``."""
    reader = Reader(data)
    kind = reader.octet()
    match kind:
        case PduType.CONNECT:
            version = reader.octet()
            caps_len = reader.uintvar()
            headers_len = reader.uintvar()
            caps = decode_capabilities(reader.take(caps_len, "capabilities"))
            pdu: Pdu = Connect(
                version=version, capabilities=caps, headers=reader.take(headers_len, "headers")
            )
        case PduType.CONNECT_REPLY:
            session_id = reader.uintvar()
            caps_len = reader.uintvar()
            headers_len = reader.uintvar()
            caps = decode_capabilities(reader.take(caps_len, "capabilities"))
            pdu = ConnectReply(
                session_id=session_id,
                capabilities=caps,
                headers=reader.take(headers_len, "headers"),
            )
        case PduType.REDIRECT:
            flags = reader.octet()
            pdu = Redirect(
                addresses=read_addresses(reader),
                permanent=bool(flags & REDIRECT_PERMANENT),
                reuse_security_session=bool(flags & REDIRECT_REUSE_SECURITY_SESSION),
                reserved=flags & 0x3F,
            )
        case PduType.DISCONNECT:
            pdu = Disconnect(session_id=reader.uintvar())
        case PduType.SUSPEND:
            pdu = Suspend(session_id=reader.uintvar())
        case PduType.RESUME:
            session_id = reader.uintvar()
            caps_len = reader.uintvar()
            caps = decode_capabilities(reader.take(caps_len, "capabilities"))
            pdu = Resume(session_id=session_id, capabilities=caps, headers=reader.rest())
        case PduType.REPLY:
            status = reader.octet()
            content_type, headers, body = _typed_block(reader)
            pdu = Reply(status=status, content_type=content_type, headers=headers, data=body)
        case PduType.PUSH | PduType.CONFIRMED_PUSH:
            content_type, headers, body = _typed_block(reader)
            cls = Push if kind == PduType.PUSH else ConfirmedPush
            pdu = cls(content_type=content_type, headers=headers, data=body)
        case _ if kind in GET_METHODS:
            uri = _uri(reader.take(reader.uintvar(), "URI"))
            pdu = Get(uri=uri, method=kind, headers=reader.rest())
        case _ if kind in POST_METHODS:
            uri_len = reader.uintvar()
            headers_len = reader.uintvar()
            uri = _uri(reader.take(uri_len, "URI"))
            block = reader.sub(headers_len, "headers")
            content_type = block.skip_value()
            pdu = Post(
                uri=uri,
                method=kind,
                content_type=content_type,
                headers=block.rest(),
                data=reader.rest(),
            )
        case _:
            raise WspCodecError(f"PDU type {kind:#04x} is not assigned")
    if not reader.at_end():
        raise WspCodecError(f"{reader.remaining()} octets after the {type(pdu).__name__} PDU")
    return pdu


def decode_connectionless(data: bytes) -> tuple[int, Pdu]:
    """Connectionless WSP (WSP 8.2.1): the TID octet, then one PDU."""
    if not data:
        raise WspCodecError("empty datagram")
    return data[0], decode(data[1:])


def _typed_block(reader: Reader) -> tuple[bytes, bytes, bytes]:
    """HeadersLen, then ContentType and Headers within it, then Data to the end."""
    block = reader.sub(reader.uintvar(), "headers")
    content_type = block.skip_value() if not block.at_end() else b""
    return content_type, block.rest(), reader.rest()


def _uri(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


# --- encoding ----------------------------------------------------------------------------


def encode(pdu: Pdu) -> bytes:
    """The octets of one connection-mode PDU; raises ``WspCodecError``."""
    match pdu:
        case Connect():
            caps = encode_capabilities(pdu.capabilities)
            return (
                bytes([PduType.CONNECT])
                + _octet(pdu.version, "version")
                + put_uintvar(len(caps))
                + put_uintvar(len(pdu.headers))
                + caps
                + pdu.headers
            )
        case ConnectReply():
            caps = encode_capabilities(pdu.capabilities)
            return (
                bytes([PduType.CONNECT_REPLY])
                + put_uintvar(pdu.session_id)
                + put_uintvar(len(caps))
                + put_uintvar(len(pdu.headers))
                + caps
                + pdu.headers
            )
        case Redirect():
            if not 0 <= pdu.reserved <= 0x3F:
                raise WspCodecError("redirect reserved flags must fit in 6 bits")
            flags = (
                (REDIRECT_PERMANENT if pdu.permanent else 0)
                | (REDIRECT_REUSE_SECURITY_SESSION if pdu.reuse_security_session else 0)
                | pdu.reserved
            )
            addresses = b"".join(put_address(a) for a in pdu.addresses)
            return bytes([PduType.REDIRECT, flags]) + addresses
        case Disconnect():
            return bytes([PduType.DISCONNECT]) + put_uintvar(pdu.session_id)
        case Suspend():
            return bytes([PduType.SUSPEND]) + put_uintvar(pdu.session_id)
        case Resume():
            caps = encode_capabilities(pdu.capabilities)
            return (
                bytes([PduType.RESUME])
                + put_uintvar(pdu.session_id)
                + put_uintvar(len(caps))
                + caps
                + pdu.headers
            )
        case Reply():
            block = _typed(pdu.content_type, pdu.headers)
            return (
                bytes([PduType.REPLY])
                + _octet(pdu.status, "status")
                + put_uintvar(len(block))
                + block
                + pdu.data
            )
        case Push() | ConfirmedPush():
            kind = PduType.PUSH if isinstance(pdu, Push) else PduType.CONFIRMED_PUSH
            block = _typed(pdu.content_type, pdu.headers)
            return bytes([kind]) + put_uintvar(len(block)) + block + pdu.data
        case Get():
            if pdu.method not in GET_METHODS:
                raise WspCodecError(f"{pdu.method:#04x} is not a Get-family method")
            uri = _uri_octets(pdu.uri)
            return bytes([pdu.method]) + put_uintvar(len(uri)) + uri + pdu.headers
        case Post():
            if pdu.method not in POST_METHODS:
                raise WspCodecError(f"{pdu.method:#04x} is not a Post-family method")
            uri = _uri_octets(pdu.uri)
            block = _typed(pdu.content_type, pdu.headers)
            return (
                bytes([pdu.method])
                + put_uintvar(len(uri))
                + put_uintvar(len(block))
                + uri
                + block
                + pdu.data
            )


def encode_connectionless(tid: int, pdu: Pdu) -> bytes:
    """Connectionless WSP (WSP 8.2.1): the TID octet, then the PDU."""
    return _octet(tid, "connectionless TID") + encode(pdu)


def _typed(content_type: bytes, headers: bytes) -> bytes:
    """ContentType then Headers, checking the content type is exactly one value."""
    if content_type:
        reader = Reader(content_type)
        reader.skip_value()
        if not reader.at_end():
            raise WspCodecError("content type is not exactly one encoded value")
    elif headers:
        raise WspCodecError("headers without a content type")
    return content_type + headers


def _uri_octets(uri: str) -> bytes:
    try:
        return uri.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError as exc:
        raise WspCodecError(f"URI cannot be encoded: {exc.reason}") from None


def _octet(value: int, what: str) -> bytes:
    if not 0 <= value <= 0xFF:
        raise WspCodecError(f"{what} {value} outside one octet")
    return bytes([value])

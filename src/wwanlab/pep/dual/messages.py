"""The messages between the client-side and the server-side proxy of the dual proxy
(paper 003 section 2.1, "Explicit Proxy Mode"), as bytes.

Every message is carried whole by a ``transports.channel.MessageChannel``, so it needs
no framing of its own. All integers are big-endian; docs/web-dualproxy.md draws the
octet tables.

    common header   version u8 (= 1) | type u8
    REQUEST  (1)    id u32 | flags u8 (bit 0: base present) | url (u16 length + octets)
                    | [base CHK 20] | have count u16 | have CHKs 20 each
    RESPONSE (2)    id u32 | object
    PUSH     (3)    object                       (unsolicited: parse-and-push, 4.2.3)
    LIST     (4)    page url | flags u8 (bit 0: the objects will be pushed, bit 1: CHKs
                    present) | count u16 | per entry: url [| CHK 20]
    object          status u16 | form u8 | coding u8 | url | content type (u8 length +
                    octets) | encoding (u8 length + octets) | [fields (u16 length +
                    octets) if coding has bit 7] | CHK 20 | [base CHK 20 if form is
                    DELTA] | body length u32 | body

A CHK (content hash key, 4.1.3) is the SHA-1 of an object's body as the origin served it.
``form`` says what the body is: the object (FULL), a bsdiff delta against the version
whose CHK is the base (DELTA), or nothing because the client holds the CHK (HAVE).
``coding`` is the proxy link's own transfer coding of the body (4.1.1): IDENTITY,
DEFLATE (zlib) or BROTLI (RFC 7932); its bit 7 says the origin's other header fields
follow (``name: value`` lines, ISO 8859-1, RFC 9110 5), which a real browser behind the
proxy needs (validators, redirects, caching) and the simulated one does not. Decoding
bounds every length before it reads or allocates.
"""

import enum
import struct
from dataclasses import dataclass
from typing import TypeVar

from wwanlab.core.errors import WwanlabError

VERSION = 1
CHK_SIZE = 20  # SHA-1 (paper 003 4.1.3: "indexes web-objects by their SHA-1 fingerprint")
MAX_URL = 8192  # octets of a URL; longer ones are refused (common servers stop at 8 KB)
MAX_TEXT = 255  # octets of a content type or encoding: the u8 length field
MAX_BODY = 16 * 1024 * 1024  # octets of an object body, decoded or on the wire
MAX_HAVE = 10_000  # CHKs in one REQUEST's have-list
MAX_LIST = 10_000  # entries of one LIST (issue 14: a page of 10,000 objects is bad input)
MAX_STATUS = 999  # RFC 9110 15: three digits
MAX_FIELDS = 16 * 1024  # octets of an object's header fields (common servers' 8-16 KB)
WITH_FIELDS = 0x80  # coding bit: header fields follow the encoding
CODECS = {"utf-8": "UTF-8", "latin-1": "ISO 8859-1"}  # text fields' charsets, by name


class MessageError(WwanlabError):
    """The bytes are not a well-formed message; the text says what is wrong."""


class Type(enum.IntEnum):
    REQUEST = 1
    RESPONSE = 2
    PUSH = 3
    LIST = 4


class Form(enum.IntEnum):
    """What an object's body carries."""

    FULL = 0  # the whole body
    DELTA = 1  # a bsdiff patch against the body whose CHK is ``base``
    HAVE = 2  # no body: the client already holds ``chk`` (4.1.3 CHK caching)


class Coding(enum.IntEnum):
    """The proxy link's transfer coding of the body (4.1.1 compression)."""

    IDENTITY = 0
    DEFLATE = 1  # zlib (RFC 1950) stream
    BROTLI = 2  # RFC 7932 stream


REQUEST_BASE = 0x01
LIST_PUSHED = 0x01
LIST_CHKS = 0x02


@dataclass(frozen=True, slots=True)
class Request:
    """The client asks for ``url``; ``base`` is the CHK of the version it holds, ``have``
    the CHKs it holds of the page's objects (so a push can skip or delta them)."""

    id: int
    url: str
    base: bytes | None = None
    have: tuple[bytes, ...] = ()


@dataclass(frozen=True, slots=True)
class WireObject:
    """One object as it crosses the proxy link."""

    url: str
    status: int
    content_type: str
    encoding: str  # the origin's Content-Encoding ("identity", "gzip")
    chk: bytes
    form: Form = Form.FULL
    coding: Coding = Coding.IDENTITY
    base: bytes | None = None  # the delta's base CHK (DELTA only)
    body: bytes = b""
    fields: str = ""  # the origin's other header fields, "name: value\r\n" each


@dataclass(frozen=True, slots=True)
class Response:
    """The answer to request ``id``."""

    id: int
    object: WireObject


@dataclass(frozen=True, slots=True)
class Push:
    """An object the server sends before anyone asked (4.2.3)."""

    object: WireObject


@dataclass(frozen=True, slots=True)
class ListEntry:
    url: str
    chk: bytes | None = None


@dataclass(frozen=True, slots=True)
class PageList:
    """The embedded objects of ``page``: with CHKs (4.1.3) and/or a promise to push them."""

    page: str
    entries: tuple[ListEntry, ...]
    pushed: bool = False


Message = Request | Response | Push | PageList

_E = TypeVar("_E", bound=enum.IntEnum)
_U16 = struct.Struct(">H")
_U32 = struct.Struct(">I")
_HEAD = struct.Struct(">BB")
_OBJECT_HEAD = struct.Struct(">HBB")


# --- encoding -----------------------------------------------------------------------------


def _text(value: str, limit: int, what: str, wide: bool, codec: str = "utf-8") -> bytes:
    try:
        raw = value.encode(codec)
    except UnicodeEncodeError:
        raise MessageError(f"{what} is not {CODECS[codec]}") from None
    if len(raw) > limit:
        raise MessageError(f"{what} of {len(raw)} octets exceeds {limit}")
    return (_U16.pack(len(raw)) if wide else bytes([len(raw)])) + raw


def _chk(value: bytes, what: str) -> bytes:
    if len(value) != CHK_SIZE:
        raise MessageError(f"{what} must be {CHK_SIZE} octets, not {len(value)}")
    return value


def _encode_object(obj: WireObject) -> bytes:
    if not 0 <= obj.status <= MAX_STATUS:
        raise MessageError(f"status {obj.status} outside 0..{MAX_STATUS}")
    if len(obj.body) > MAX_BODY:
        raise MessageError(f"body of {len(obj.body)} octets exceeds {MAX_BODY}")
    if (obj.form is Form.DELTA) != (obj.base is not None):
        raise MessageError("a base CHK goes with a DELTA body and only with one")
    if obj.form is Form.HAVE and obj.body:
        raise MessageError("a HAVE object carries no body")
    parts = [
        _OBJECT_HEAD.pack(obj.status, obj.form, obj.coding | (WITH_FIELDS if obj.fields else 0)),
        _text(obj.url, MAX_URL, "url", wide=True),
        _text(obj.content_type, MAX_TEXT, "content type", wide=False),
        _text(obj.encoding, MAX_TEXT, "encoding", wide=False),
    ]
    if obj.fields:
        parts.append(_text(obj.fields, MAX_FIELDS, "header fields", wide=True, codec="latin-1"))
    parts.append(_chk(obj.chk, "chk"))
    if obj.base is not None:
        parts.append(_chk(obj.base, "base"))
    parts += [_U32.pack(len(obj.body)), obj.body]
    return b"".join(parts)


def encode(message: Message) -> bytes:
    """The message's bytes; MessageError for a value the format cannot carry."""
    if isinstance(message, Request):
        if len(message.have) > MAX_HAVE:
            raise MessageError(f"have-list of {len(message.have)} exceeds {MAX_HAVE}")
        parts = [
            _HEAD.pack(VERSION, Type.REQUEST),
            _U32.pack(message.id),
            bytes([REQUEST_BASE if message.base is not None else 0]),
            _text(message.url, MAX_URL, "url", wide=True),
        ]
        if message.base is not None:
            parts.append(_chk(message.base, "base"))
        parts.append(_U16.pack(len(message.have)))
        parts.extend(_chk(c, "have") for c in message.have)
        return b"".join(parts)
    if isinstance(message, Response):
        return (
            _HEAD.pack(VERSION, Type.RESPONSE)
            + _U32.pack(message.id)
            + _encode_object(message.object)
        )
    if isinstance(message, Push):
        return _HEAD.pack(VERSION, Type.PUSH) + _encode_object(message.object)
    if len(message.entries) > MAX_LIST:
        raise MessageError(f"list of {len(message.entries)} entries exceeds {MAX_LIST}")
    with_chks = bool(message.entries) and message.entries[0].chk is not None
    flags = (LIST_PUSHED if message.pushed else 0) | (LIST_CHKS if with_chks else 0)
    parts = [
        _HEAD.pack(VERSION, Type.LIST),
        _text(message.page, MAX_URL, "page url", wide=True),
        bytes([flags]),
        _U16.pack(len(message.entries)),
    ]
    for entry in message.entries:
        if (entry.chk is not None) != with_chks:
            raise MessageError("a list's entries all carry a CHK or none does")
        parts.append(_text(entry.url, MAX_URL, "url", wide=True))
        if entry.chk is not None:
            parts.append(_chk(entry.chk, "chk"))
    return b"".join(parts)


# --- decoding -----------------------------------------------------------------------------


class _Reader:
    """Reads fields off ``data``, refusing any that would run past its end."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._at = 0

    def take(self, size: int, what: str) -> bytes:
        end = self._at + size
        if end > len(self._data):
            raise MessageError(f"truncated {what}: {size} octets wanted, {self.left} left")
        chunk = self._data[self._at : end]
        self._at = end
        return chunk

    @property
    def left(self) -> int:
        return len(self._data) - self._at

    def u8(self, what: str) -> int:
        return self.take(1, what)[0]

    def u16(self, what: str) -> int:
        value: int = _U16.unpack(self.take(2, what))[0]
        return value

    def u32(self, what: str) -> int:
        value: int = _U32.unpack(self.take(4, what))[0]
        return value

    def text(self, limit: int, what: str, wide: bool, codec: str = "utf-8") -> str:
        size = self.u16(what) if wide else self.u8(what)
        if size > limit:
            raise MessageError(f"{what} of {size} octets exceeds {limit}")
        try:
            return self.take(size, what).decode(codec)
        except UnicodeDecodeError:
            raise MessageError(f"{what} is not {CODECS[codec]}") from None

    def count(self, limit: int, per_item: int, what: str) -> int:
        """A u16 count, bounded by ``limit`` and by what is left at ``per_item`` octets
        at least per item, before any item is read."""
        count = self.u16(what)
        if count > limit:
            raise MessageError(f"{what} of {count} exceeds {limit}")
        if count * per_item > self.left:
            raise MessageError(f"truncated {what}: {count} items cannot fit in {self.left}")
        return count

    def end(self) -> None:
        if self.left:
            raise MessageError(f"{self.left} octets after the end of the message")


def _enum(kind: type[_E], value: int, what: str) -> _E:
    try:
        return kind(value)
    except ValueError:
        raise MessageError(f"unknown {what} {value}") from None


def _decode_object(reader: _Reader) -> WireObject:
    status, form_value, coding_value = _OBJECT_HEAD.unpack(reader.take(4, "object header"))
    if status > MAX_STATUS:
        raise MessageError(f"status {status} outside 0..{MAX_STATUS}")
    form = _enum(Form, form_value, "form")
    coding = _enum(Coding, coding_value & ~WITH_FIELDS, "coding")
    url = reader.text(MAX_URL, "url", wide=True)
    content_type = reader.text(MAX_TEXT, "content type", wide=False)
    encoding = reader.text(MAX_TEXT, "encoding", wide=False)
    fields = ""
    if coding_value & WITH_FIELDS:
        fields = reader.text(MAX_FIELDS, "header fields", wide=True, codec="latin-1")
    chk = reader.take(CHK_SIZE, "chk")
    base = reader.take(CHK_SIZE, "base") if form is Form.DELTA else None
    size = reader.u32("body length")
    if size > MAX_BODY:
        raise MessageError(f"body of {size} octets exceeds {MAX_BODY}")
    if form is Form.HAVE and size:
        raise MessageError("a HAVE object carries no body")
    body = reader.take(size, "body")
    return WireObject(url, status, content_type, encoding, chk, form, coding, base, body, fields)


def decode(data: bytes) -> Message:
    """One message from exactly ``data``; MessageError names what is wrong."""
    reader = _Reader(data)
    version, type_value = _HEAD.unpack(reader.take(2, "header"))
    if version != VERSION:
        raise MessageError(f"version {version}, expected {VERSION}")
    kind = _enum(Type, type_value, "message type")
    message: Message
    if kind is Type.REQUEST:
        ident = reader.u32("id")
        flags = reader.u8("flags")
        if flags & ~REQUEST_BASE:
            raise MessageError(f"unknown request flags {flags:#04x}")
        url = reader.text(MAX_URL, "url", wide=True)
        base = reader.take(CHK_SIZE, "base") if flags & REQUEST_BASE else None
        count = reader.count(MAX_HAVE, CHK_SIZE, "have-list")
        have = tuple(reader.take(CHK_SIZE, "have") for _ in range(count))
        message = Request(ident, url, base, have)
    elif kind is Type.RESPONSE:
        ident = reader.u32("id")
        message = Response(ident, _decode_object(reader))
    elif kind is Type.PUSH:
        message = Push(_decode_object(reader))
    else:
        page = reader.text(MAX_URL, "page url", wide=True)
        flags = reader.u8("flags")
        if flags & ~(LIST_PUSHED | LIST_CHKS):
            raise MessageError(f"unknown list flags {flags:#04x}")
        with_chks = bool(flags & LIST_CHKS)
        count = reader.count(MAX_LIST, 2 + (CHK_SIZE if with_chks else 0), "list")
        entries = []
        for _ in range(count):
            url = reader.text(MAX_URL, "url", wide=True)
            chk = reader.take(CHK_SIZE, "chk") if with_chks else None
            entries.append(ListEntry(url, chk))
        message = PageList(page, tuple(entries), bool(flags & LIST_PUSHED))
    reader.end()
    return message

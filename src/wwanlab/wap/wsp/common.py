"""Pieces both WSP modes share: method names, requests and replies as PDUs and back."""

from collections import deque

from wwanlab.wap.wsp.constants import METHOD_NAMES, PduType
from wwanlab.wap.wsp.encoding import WspCodecError
from wwanlab.wap.wsp.events import Headers, WspEvent
from wwanlab.wap.wsp.headers import (
    decode_content_type,
    decode_header_block,
    encode_content_type,
    encode_headers,
)
from wwanlab.wap.wsp.pdu import Get, Post, Reply
from wwanlab.wap.wsp.status import http_to_wsp, wsp_to_http

METHOD_CODES: dict[str, int] = {name: code for code, name in METHOD_NAMES.items()}
DEFAULT_CONTENT_TYPE = "application/octet-stream"
UNNAMED_CONTENT_TYPE = "application/x-wsp-content-type"


class WspError(WspCodecError):
    """A WSP command that cannot be carried out now; ``reason`` is a WSP abort reason."""


class EventQueue:
    """The events half of the sans-IO contract: handlers queue, ``next_event`` drains."""

    def __init__(self) -> None:
        self._events: deque[WspEvent] = deque()

    def next_event(self) -> WspEvent | None:
        return self._events.popleft() if self._events else None


class MethodRequests:
    """``get`` and ``post`` for a client, both in terms of its S-MethodInvoke.req."""

    def request(self, method: str, uri: str, headers: Headers, body: bytes, now: float) -> int:
        """Send one request; returns the number its events carry."""
        raise NotImplementedError

    def get(self, uri: str, now: float, headers: Headers = ()) -> int:
        return self.request("GET", uri, headers, b"", now)

    def post(
        self, uri: str, content_type: str, body: bytes, now: float, headers: Headers = ()
    ) -> int:
        return self.request("POST", uri, (("Content-Type", content_type), *headers), body, now)


def split_content_type(headers: Headers) -> tuple[str | None, Headers]:
    """The Content-Type header's value and the other headers."""
    ctype = next((v for n, v in headers if n.lower() == "content-type"), None)
    return ctype, tuple((n, v) for n, v in headers if n.lower() != "content-type")


def request_pdu(method: str, uri: str, headers: Headers, body: bytes) -> Get | Post:
    """A Get or Post PDU for an HTTP-style request (WSP 8.2.3)."""
    code = METHOD_CODES.get(method.upper())
    if code is None:
        raise WspError(f"method {method!r} has no WSP PDU")
    ctype, rest = split_content_type(headers)
    if code in (PduType.POST, PduType.PUT):
        return Post(
            uri=uri,
            method=code,
            content_type=encode_content_type(ctype or DEFAULT_CONTENT_TYPE),
            headers=encode_headers(rest),
            data=body,
        )
    return Get(uri=uri, method=code, headers=encode_headers(rest))


def request_fields(pdu: Get | Post) -> tuple[str, Headers, bytes]:
    """(method name, headers with Content-Type, body) of a received request."""
    method = METHOD_NAMES.get(pdu.method, f"X-{pdu.method:02X}")  # extended: by number
    headers = decode_header_block(pdu.headers)
    if isinstance(pdu, Post):
        return (
            method,
            (("Content-Type", decode_content_type(pdu.content_type)), *headers),
            pdu.data,
        )
    return method, headers, b""


def reply_pdu(status: int, headers: Headers, body: bytes) -> Reply:
    ctype, rest = split_content_type(headers)
    return Reply(
        status=http_to_wsp(status),
        content_type=encode_content_type(ctype or DEFAULT_CONTENT_TYPE),
        headers=encode_headers(rest),
        data=body,
    )


def text_reply(status: int, message: str) -> Reply:
    """A short text/plain Reply a server or gateway makes up itself (refusals, errors)."""
    body = (message.rstrip() + "\n").encode("utf-8", "replace")
    return reply_pdu(status, (("Content-Type", "text/plain"),), body)


def name_content_type(raw: bytes) -> str:
    """The media type of a Reply's Content-Type field, or, for a code the header codec
    cannot name (e.g. the unassigned 0x59), ``application/x-wsp-content-type;
    raw=<hex>`` so the body still reaches the user."""
    try:
        return decode_content_type(raw)
    except WspCodecError:
        return f"{UNNAMED_CONTENT_TYPE}; raw={raw.hex()}"


def reply_fields(pdu: Reply) -> tuple[int, Headers, bytes]:
    """(HTTP status, headers with Content-Type first, body) of a received Reply.

    The content type is named by ``name_content_type``.
    """
    headers = decode_header_block(pdu.headers)
    ctype = name_content_type(pdu.content_type)
    return wsp_to_http(pdu.status), (("Content-Type", ctype), *headers), pdu.data

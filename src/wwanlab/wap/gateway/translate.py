"""WSP method <-> HTTP/1.1 exchange: what a WAP gateway changes on the way through.

Request side: a WSP method as the WSP server reports it (``MethodInvoke``: method
name, URI, headers decoded to HTTP, body) becomes an HTTP request to the absolute URI
it names, hop-by-hop fields removed (RFC 9110 7.6.1) and, when the phone accepts
WMLC, ``text/vnd.wap.wml`` added to Accept so the origin sends the deck the gateway
will compile (Kannel does the same).

Response side: the HTTP status becomes the WSP status octet (WSP Table 36), the header
list is encoded back (a field the compact encoding cannot carry travels as an
application header; one that cannot be encoded at all is left out rather than failing
the reply), and a WML deck is compiled to WMLC when the phone's Accept allows
``application/vnd.wap.wmlc`` -- Kannel 1.4 compiles for ``Accept: */*`` too, which is
what fakewap sends. SOAP in WBXML (``wwanlab.wap.wbxml.soap``, paper 001) is decoded to
XML for the service, and a SOAP reply encoded when the phone's Accept names that type.
Any other content passes through byte for byte.
"""

import contextlib
from dataclasses import dataclass

from wwanlab.core.memo import small_input_cache
from wwanlab.wap.wbxml.content_types import BINARY_TYPES, compile_content
from wwanlab.wap.wbxml.errors import WbxmlError
from wwanlab.wap.wbxml.soap import (
    SOAP_WBXML,
    XML_CONTENT_TYPE,
    SoapError,
    from_wbxml,
    to_wbxml,
)
from wwanlab.wap.wsp.constants import METHOD_NAMES
from wwanlab.wap.wsp.encoding import WspCodecError
from wwanlab.wap.wsp.events import MethodInvoke
from wwanlab.wap.wsp.headers import Header, encode_content_type, encode_headers
from wwanlab.wap.wsp.pdu import Reply
from wwanlab.wap.wsp.status import http_to_wsp
from wwanlab.web.media_type import MediaTypeError, parse_media_ranges, parse_media_type

WML = "text/vnd.wap.wml"
WMLC = BINARY_TYPES[WML]
OCTET_STREAM = "application/octet-stream"


# RFC 9110 7.6.1 hop-by-hop fields, plus the ones the HTTP client computes itself.
_REQUEST_DROPPED = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "host",
        "content-length",
        "expect",
    }
)
# Response fields the gateway replaces: the body may be decompressed or compiled.
_RESPONSE_DROPPED = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "content-length",
        "content-type",
        "content-encoding",
        "content-md5",
    }
)


CACHED_CHARS = 512  # Accept lists and content types up to this long are parsed once


class TranslateError(Exception):
    """A method the gateway cannot forward; ``status`` is the HTTP status to answer."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True, slots=True)
class HttpRequest:
    """An HTTP/1.1 request to an origin, as the gateway will send it."""

    method: str
    url: str
    headers: tuple[Header, ...]
    body: bytes = b""

    @property
    def accept(self) -> tuple[str, ...]:
        """The Accept values, one media range each, as the phone sent them."""
        return tuple(v for k, v in self.headers if k.lower() == "accept")


def accepts(accept: tuple[str, ...] | list[str], media_type: str) -> bool:
    """Whether an Accept list permits ``media_type`` (RFC 9110 12.5.1; q=0 refuses).

    An empty list accepts everything. The most specific matching range decides.
    """
    return not accept or _accepts(tuple(accept), media_type)


@small_input_cache(CACHED_CHARS)  # a phone sends the same Accept list every time
def _accepts(accept: tuple[str, ...], media_type: str) -> bool:
    media = parse_media_type(media_type)
    matching = [(r.matches(media), q) for r, q in parse_media_ranges(accept) if r.matches(media)]
    best = max(matching, key=lambda m: m[0], default=None)
    return best is not None and best[1] > 0


def to_http(invoke: MethodInvoke) -> HttpRequest:
    """The HTTP request for a WSP method; raises ``TranslateError``."""
    if invoke.method not in _METHODS:  # WSP Table 34; extended methods are refused
        raise TranslateError(f"method {invoke.method} is not supported", 501)
    url = invoke.uri
    scheme = url.split(":", 1)[0].lower() if ":" in url else ""
    if scheme != "http":
        raise TranslateError(f"only absolute http:// URIs are fetched, got {url[:80]!r}")
    try:
        url.encode("ascii")
    except UnicodeEncodeError:
        raise TranslateError("URI has octets outside ASCII") from None
    headers = [(k, v) for k, v in invoke.headers if k.lower() not in _REQUEST_DROPPED]
    accept = tuple(v for k, v in headers if k.lower() == "accept")
    if accept and _wml_to_add(accept):
        headers.append(("Accept", WML))
    body = invoke.body
    if _media_type(headers) == SOAP_WBXML:
        # the phone's WBXML SOAP becomes the XML envelope the HTTP service reads
        try:
            body = from_wbxml(body)
        except SoapError as exc:
            raise TranslateError(str(exc), 415) from None
        headers = [(k, v) for k, v in headers if k.lower() != "content-type"]
        headers.append(("Content-Type", XML_CONTENT_TYPE))
    return HttpRequest(invoke.method, url, tuple(headers), body)


@small_input_cache(CACHED_CHARS)
def _wml_to_add(accept: tuple[str, ...]) -> bool:
    """Whether the phone takes WMLC without naming WML, which the origin must hear."""
    named = {r.essence for r, _ in parse_media_ranges(accept)}
    return accepts(accept, WMLC) and WML not in named


def _media_type(headers: list[Header]) -> str:
    """The essence of the request's Content-Type ("" when absent or unreadable)."""
    value = next((v for k, v in headers if k.lower() == "content-type"), "")
    try:
        return parse_media_type(value).essence
    except MediaTypeError:
        return ""


_METHODS = frozenset(METHOD_NAMES.values())


def to_reply(
    status: int, headers: list[Header], body: bytes, accept: tuple[str, ...] | list[str]
) -> Reply:
    """The WSP Reply for an origin's HTTP response, compiling WML when the phone allows."""
    content_type = next((v for k, v in headers if k.lower() == "content-type"), OCTET_STREAM)
    content_type, base = _canonical_media(content_type)
    if base in BINARY_TYPES and accepts(accept, BINARY_TYPES[base]):
        compiled = _compile(content_type, body)
        if compiled is not None:  # else not well-formed: pass the text through
            content_type, body = compiled
    elif base == "text/xml" and any(
        r.essence == SOAP_WBXML and q > 0 for r, q in parse_media_ranges(accept)
    ):
        # only a phone that names WBXML SOAP gets it (not */*); XML the encoder
        # refuses passes through as it came
        with contextlib.suppress(SoapError):
            content_type, body = SOAP_WBXML, to_wbxml(body)
    kept = [(k, v) for k, v in headers if k.lower() not in _RESPONSE_DROPPED]
    kept.append(("Content-Length", str(len(body))))
    return Reply(
        status=http_to_wsp(status if 100 <= status <= 599 else 502),
        content_type=_content_type(content_type),
        headers=_encode_leniently(tuple(kept)),
        data=body,
    )


@small_input_cache(CACHED_CHARS)  # an origin serves the same few types
def _canonical_media(content_type: str) -> tuple[str, str]:
    """(canonical spelling, essence) of an origin's Content-Type."""
    try:
        media = parse_media_type(content_type)
    except MediaTypeError:  # RFC 9110 8.3: the recipient may treat it as octets
        media = parse_media_type(OCTET_STREAM)
    return str(media), media.essence


COMPILE_CACHE_LIMIT = 64 * 1024  # octets; a deck is small, a cache of big ones is not


@small_input_cache(COMPILE_CACHE_LIMIT, entries=128)  # origins serve the same decks again
def _compile(content_type: str, body: bytes) -> tuple[str, bytes] | None:
    """The compiled form, or None when the body is not well-formed."""
    try:
        return compile_content(content_type, body)
    except (WbxmlError, ValueError):
        return None


@small_input_cache(CACHED_CHARS)
def _content_type(value: str) -> bytes:
    try:
        return encode_content_type(value)
    except WspCodecError:
        return encode_content_type(OCTET_STREAM)


@small_input_cache(CACHED_CHARS)  # the same fields again, but for the Date each second
def _encode_leniently(headers: tuple[Header, ...]) -> bytes:
    """Encode the whole list at once; on failure, field by field, leaving out the bad."""
    try:
        return encode_headers(headers)
    except WspCodecError:
        out = bytearray()
        for header in headers:
            try:
                out += encode_headers([header])
            except WspCodecError:
                continue
        return bytes(out)

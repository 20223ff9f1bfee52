"""WSP header encoding (WAP-203-WSP 8.4, WAP-230-WSP for encoding versions 1.2-1.5).

Converts a WSP header block to an HTTP/1.1 header list, ``[(name, value), ...]``, and
back. Well-known fields and their compact values are used where the encoding version
allows; anything else travels as an application header (Token-text name and Text-string
value), which every WSP peer accepts. Decoding renders each value the way HTTP writes
it, so ``decode_headers(encode_headers(h)) == h`` for every list ``decode_headers``
produces.

A header block is a sequence of (WSP 8.4.1)::

    Well-known-header   Short-integer field code, then its value
    Application-header  Token-text name, then Text-string value
    Shift-sequence      127 and a page number, or a short-cut 1..31: the code page of
                        the well-known fields that follow (page 1 is the default)

and every value has one of three shapes (WSP 8.4.1.2): a Short-integer, a Text-string,
or a Value-length followed by that many octets; so an unknown value can still be
skipped.
"""

import base64
import binascii
import email.utils
import re
from collections.abc import Callable, Iterable
from datetime import UTC

from wwanlab.core.memo import small_input_cache
from wwanlab.wap.wsp.assigned import (
    CHARSET_NAMES,
    CHARSETS,
    CONTENT_TYPE_ALIASES,
    CONTENT_TYPE_NAMES,
    DEFAULT_ENCODING_VERSION,
    FIELD_NAMES,
    LANGUAGE_NAMES,
    LANGUAGES,
    PARAMETER_INFO,
    REGISTERED_CONTENT_TYPES,
    EncodingVersion,
    content_type_code,
    field_code,
    parameter_code,
)
from wwanlab.wap.wsp.constants import METHOD_NAMES
from wwanlab.wap.wsp.encoding import (
    LENGTH_QUOTE,
    QUOTED_STRING_START,
    Reader,
    WspCodecError,
    put_integer_value,
    put_length,
    put_long_integer,
    put_short_integer,
    put_text_string,
    put_uintvar,
)
from wwanlab.web.media_type import MediaTypeError, parse_media_type, quote

__all__ = [
    "Header",
    "WspCodecError",
    "decode_content_type",
    "decode_header_block",
    "decode_headers",
    "encode_content_type",
    "encode_headers",
    "split_http_lists",
]

Header = tuple[str, str]

DEFAULT_CODE_PAGE = 1  # WSP 8.4.1.1
SHIFT_DELIMITER = 127  # WSP 8.4.1.1: followed by the page identity
MAX_SHORT_CUT_SHIFT = 31  # WSP 8.4.1.1: Short-cut-shift-delimiter 1..31
NO_VALUE = 0x00  # WSP 8.4.2.3: No-value
_DECIMAL = re.compile(r"[0-9]+")
_WS = " \t"  # HTTP whitespace; str.strip() alone would also eat \x1c-\x1f and \xa0
_TOKEN = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")  # RFC 9110 token

# WSP 8.4.2.x well-known value tokens, each a Short-integer 0x80 + index.
_ENCODINGS = ("gzip", "compress", "deflate", "*")  # Content-encoding-value, Any-encoding
_RANGES = ("none", "bytes")
_CACHE_DIRECTIVES = (
    "no-cache",
    "no-store",
    "max-age",
    "max-stale",
    "min-fresh",
    "only-if-cached",
    "public",
    "private",
    "no-transform",
    "must-revalidate",
    "proxy-revalidate",
    "s-maxage",
)
_CACHE_DELTA = frozenset({"max-age", "max-stale", "min-fresh", "s-maxage"})
_CACHE_FIELDS = frozenset({"no-cache", "private"})
_DISPOSITIONS = ("form-data", "attachment", "inline")
_TE_CODES = {
    0x01: "trailers",
    0x02: "chunked",
    0x03: "identity",
    0x04: "gzip",
    0x05: "compress",
    0x06: "deflate",
}
_APPLICATION_IDS = (  # OMNA push application ids 0x00-0x0A
    "x-wap-application:*",
    "x-wap-application:push.sia",
    "x-wap-application:wml.ua",
    "x-wap-application:wta.ua",
    "x-wap-application:mms.ua",
    "x-wap-application:push.syncml",
    "x-wap-application:loc.ua",
    "x-wap-application:syncml.dm",
    "x-wap-application:drm.ua",
    "x-wap-application:emn.ua",
    "x-wap-application:wv.ua",
)
# WSP 8.4.2.46 Warn-code: the HTTP warning code less its first digit, 214 and 199/299 apart
_WARN_CODES = {10: 110, 11: 111, 12: 112, 13: 113, 14: 214, 99: 199}
_WARN_NUMBERS = {v: k for k, v in _WARN_CODES.items()} | {299: 99}


class _Unencodable(Exception):
    """The value has no compact form: the header goes as an application header."""


# --- small renderers ----------------------------------------------------------------------


def _unquote(value: str) -> str:
    value = value.strip(_WS)
    if len(value) < 2 or value[0] != '"' or value[-1] != '"':
        return value
    out, escaped = [], False
    for char in value[1:-1]:
        if escaped or char != "\\":
            out.append(char)
            escaped = False
        else:
            escaped = True
    return "".join(out)


def _split(value: str, separator: str) -> list[str]:
    """Split on ``separator`` outside quoted strings (which may hold backslash escapes)."""
    parts: list[str] = []
    current: list[str] = []
    quoted = escaped = False
    for char in value:
        if escaped:
            escaped = False
        elif quoted and char == "\\":
            escaped = True
        elif char == '"':
            quoted = not quoted
        elif char == separator and not quoted:
            parts.append("".join(current).strip(_WS))
            current = []
            continue
        current.append(char)
    parts.append("".join(current).strip(_WS))
    return parts


def _split_params(value: str) -> list[str]:
    return _split(value, ";")


def _split_list(value: str) -> list[str]:
    return [part for part in _split(value, ",") if part]


def _http_date(seconds: int) -> str:
    if seconds > 253402300799:  # past 9999-12-31: no HTTP-date can say it
        raise WspCodecError(f"date {seconds} is beyond year 9999")
    return email.utils.formatdate(seconds, usegmt=True)


def _parse_date(value: str) -> int:
    try:
        parsed = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        raise _Unencodable from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    seconds = int(parsed.timestamp())
    if seconds < 0 or _http_date(seconds) != value:
        raise _Unencodable
    return seconds


def _q_text(raw: int) -> str:
    """WSP 8.4.2.3 Q-value: 1..100 two decimals (q*100+1), 101..1099 three (q*1000+100)."""
    if 1 <= raw <= 100:
        text = f"{(raw - 1) / 100:.2f}"
    elif 101 <= raw <= 1099:
        text = f"{(raw - 100) / 1000:.3f}"
    else:
        raise WspCodecError(f"q-value {raw} out of range")
    return text.rstrip("0").rstrip(".") if "." in text else text


def _q_raw(text: str) -> int:
    match = re.fullmatch(r"0(?:\.(\d{1,3}))?", text)
    if not match:
        raise _Unencodable
    digits = match.group(1) or ""
    if len(digits) <= 2:
        return int(digits.ljust(2, "0")) + 1
    return int(digits) + 100


def _decimal(text: str) -> bool:
    """ASCII digits only (str.isdigit also takes superscripts such as Latin-1's '²')."""
    return _DECIMAL.fullmatch(text) is not None


def _integer(text: str) -> int:
    if not _decimal(text) or len(text) > 75:
        raise _Unencodable
    return int(text)


def _read_q(reader: Reader) -> int:
    start = reader.pos
    value = reader.uintvar()
    if reader.pos - start > 2:
        raise WspCodecError("q-value longer than two octets")
    return value


# --- value decoders ---------------------------------------------------------------------
#
# Each takes a Reader over exactly one value and returns its HTTP rendering.


def _text(reader: Reader) -> str:
    """Text-string, Quoted-string or No-value; a quoted string keeps its quotes."""
    if reader.peek() == QUOTED_STRING_START:
        reader.octet()
        return '"' + reader.cstring().decode("latin-1") + '"'
    return reader.text_string()


def _token_or(table: tuple[str, ...] | dict[int, str]) -> Callable[[Reader], str]:
    def decode(reader: Reader) -> str:
        if reader.peek() & 0x80:
            index = reader.short_integer()
            name = (
                table.get(index)
                if isinstance(table, dict)
                else (table[index] if index < len(table) else None)
            )
            if name is None:
                raise WspCodecError(f"well-known value {index} is not assigned")
            return name
        return _unquoted_text(reader)

    return decode


def _unquoted_text(reader: Reader) -> str:
    """A Text-string where the grammar has Token-text or Extension-media: a Quoted-string
    cannot stand there (its rendering would run into the parameters that follow)."""
    if reader.peek() == QUOTED_STRING_START:
        raise WspCodecError("quoted string where a token or media type belongs")
    return reader.text_string()


def _token(reader: Reader) -> str:
    """Token-text (WSP 8.4.2.1): a text string that is an RFC 9110 token."""
    text = reader.text_string()
    if not _TOKEN.match(text):
        raise WspCodecError(f"{text!r} is not a token")
    return text


def _integer_text(reader: Reader) -> str:
    return str(reader.integer_value())


def _date(reader: Reader) -> str:
    return _http_date(reader.long_integer())


def _media(reader: Reader) -> str:
    """Content-type-value / Accept-value (WSP 8.4.2.24, 8.4.2.7)."""
    first = reader.peek()
    if first & 0x80:
        return _content_type_name(reader.short_integer())
    if first > LENGTH_QUOTE:
        return _text(reader)
    inner = reader.sub(reader.length())
    if inner.peek() > LENGTH_QUOTE and not inner.peek() & 0x80:
        media = _unquoted_text(inner)
    else:
        media = _content_type_name(inner.integer_value())
    return media + _params(inner)


def _content_type_name(code: int) -> str:
    name = CONTENT_TYPE_NAMES.get(code) or REGISTERED_CONTENT_TYPES.get(code)
    if name is None:
        raise WspCodecError(f"content type {code:#x} is not assigned")
    return name


def _charset_name(code: int) -> str:
    if code == 0:
        return "*"  # Any-charset (WSP 8.4.2.8)
    return CHARSET_NAMES.get(code, f"x-mibenum-{code}")


def _charset_code(name: str) -> int:
    if name == "*":
        return 0
    if name in CHARSETS:
        return CHARSETS[name]
    match = re.fullmatch(r"x-mibenum-([1-9]\d{0,8})", name)
    if match:
        return int(match.group(1))
    raise _Unencodable


def _language_name(code: int) -> str:
    name = LANGUAGE_NAMES.get(code)
    if name is None:
        raise WspCodecError(f"language {code:#x} is not assigned")
    return name


def _with_q(reader: Reader, first: str) -> str:
    if reader.at_end():
        return first
    q = _q_text(_read_q(reader))
    reader.done()
    return f"{first};q={q}"


def _accept_charset(reader: Reader) -> str:
    first = reader.peek()
    if first & 0x80:
        return _charset_name(reader.short_integer())
    if first > LENGTH_QUOTE:
        return _text(reader)
    inner = reader.sub(reader.length())
    if inner.peek() > LENGTH_QUOTE and not inner.peek() & 0x80:
        name = _unquoted_text(inner)
    else:
        name = _charset_name(inner.integer_value())
    return _with_q(inner, name)


def _accept_encoding(reader: Reader) -> str:
    if reader.peek() > LENGTH_QUOTE:
        return _token_or(_ENCODINGS[:3])(reader)
    inner = reader.sub(reader.length())
    return _with_q(inner, _token_or(_ENCODINGS)(inner))


def _language(reader: Reader) -> str:
    first = reader.peek()
    if first & 0x80:
        return _language_name(reader.short_integer())
    if first > LENGTH_QUOTE:
        return _unquoted_text(reader)
    return _language_name(reader.long_integer())


def _accept_language(reader: Reader) -> str:
    first = reader.peek()
    if first & 0x80 or first > LENGTH_QUOTE:
        return _language(reader)
    inner = reader.sub(reader.length())
    if inner.peek() & 0x80 or inner.peek() > LENGTH_QUOTE:
        name = _language(inner)
    else:
        name = _language_name(inner.long_integer())
    return _with_q(inner, name)


def _field_name(reader: Reader) -> str:
    if reader.peek() & 0x80:
        code = reader.short_integer()
        if code not in FIELD_NAMES:
            raise WspCodecError(f"field code {code:#x} is not assigned")
        return FIELD_NAMES[code]
    return _text(reader)


def _method(reader: Reader) -> str:
    if reader.peek() & 0x80:
        code = reader.short_integer()
        if code not in METHOD_NAMES:
            raise WspCodecError(f"method {code:#x} is not a well-known method")
        return METHOD_NAMES[code]
    return _text(reader)


def _cache_control(reader: Reader) -> str:
    first = reader.peek()
    if first & 0x80:
        index = reader.short_integer()
        if index >= len(_CACHE_DIRECTIVES):
            raise WspCodecError(f"cache directive {index} is not assigned")
        return _CACHE_DIRECTIVES[index]
    if first > LENGTH_QUOTE:
        return _text(reader)
    inner = reader.sub(reader.length())
    if not inner.peek() & 0x80:
        name = _token(inner)  # Cache-extension and its value
        value = _param_value_text(inner)
        inner.done()
        return f"{name}={value}"
    index = inner.short_integer()
    if index >= len(_CACHE_DIRECTIVES):
        raise WspCodecError(f"cache directive {index} is not assigned")
    directive = _CACHE_DIRECTIVES[index]
    if directive in _CACHE_DELTA:
        seconds = inner.integer_value()
        inner.done()
        return f"{directive}={seconds}"
    if directive in _CACHE_FIELDS:
        fields = [_field_name(inner)]
        while not inner.at_end():
            fields.append(_field_name(inner))
        return f'{directive}="{", ".join(fields)}"'
    raise WspCodecError(f"cache directive {directive} takes no argument")


def _pragma(reader: Reader) -> str:
    if reader.peek() & 0x80:
        if reader.short_integer() != 0:
            raise WspCodecError("Pragma short value other than no-cache")
        return "no-cache"
    inner = reader.sub(reader.length())
    return _params(inner).removeprefix("; ")


def _md5(reader: Reader) -> str:
    inner = reader.sub(reader.length())
    return base64.b64encode(inner.rest()).decode("ascii")


def _range(reader: Reader) -> str:
    inner = reader.sub(reader.length())
    kind = inner.octet()
    if kind == 0x80:
        first = inner.uintvar()
        last = "" if inner.at_end() else str(inner.uintvar())
        inner.done()
        return f"bytes={first}-{last}"
    if kind == 0x81:
        suffix = inner.uintvar()
        inner.done()
        return f"bytes=-{suffix}"
    raise WspCodecError(f"range kind {kind:#x} is not assigned")


def _retry_after(reader: Reader) -> str:
    inner = reader.sub(reader.length())
    kind = inner.octet()
    if kind == 0x80:
        text = _http_date(inner.long_integer())
    elif kind == 0x81:
        text = str(inner.integer_value())
    else:
        raise WspCodecError(f"retry-after kind {kind:#x} is not assigned")
    inner.done()
    return text


def _warn_code(reader: Reader) -> int:
    number = reader.short_integer()
    if number not in _WARN_CODES:
        raise WspCodecError(f"warn code {number} is not assigned")
    return _WARN_CODES[number]


def _warning(reader: Reader) -> str:
    if reader.peek() & 0x80:
        return str(_warn_code(reader))
    inner = reader.sub(reader.length())
    code = _warn_code(inner)
    agent = inner.text_string()
    text = inner.text_string()
    inner.done()
    return f'{code} {agent} "{text}"'


def _credentials(reader: Reader) -> str:
    inner = reader.sub(reader.length())
    if inner.peek() == 0x80:
        inner.octet()
        user = inner.text_string()
        password = inner.text_string()
        inner.done()
        return "Basic " + base64.b64encode(f"{user}:{password}".encode("latin-1")).decode()
    scheme = _token(inner)
    return _scheme_params(scheme, inner)


def _challenge(reader: Reader) -> str:
    inner = reader.sub(reader.length())
    if inner.peek() == 0x80:
        inner.octet()
        realm = inner.text_string()
        inner.done()
        return f"Basic realm={quote(realm)}"
    scheme = _token(inner)
    realm = inner.text_string()
    rest = _scheme_params(scheme, inner).removeprefix(scheme)
    return f"{scheme} realm={quote(realm)}" + ("," + rest if rest else "")


def _scheme_params(scheme: str, reader: Reader) -> str:
    params = []
    while not reader.at_end():
        name, value = _param(reader)
        params.append(name if value is None else f"{name}={quote(value)}")
    return scheme + (" " + ", ".join(params) if params else "")


def _disposition(reader: Reader) -> str:
    inner = reader.sub(reader.length())
    return _token_or(_DISPOSITIONS)(inner) + _params(inner)


def _application_id(reader: Reader) -> str:
    if reader.peek() > LENGTH_QUOTE and not reader.peek() & 0x80:
        return _text(reader)
    number = reader.integer_value()
    return _APPLICATION_IDS[number] if number < len(_APPLICATION_IDS) else str(number)


def _version(reader: Reader) -> str:
    if reader.peek() & 0x80:
        octet = reader.short_integer()
        major, minor = octet >> 4, octet & 0x0F
        return f"{major}" if minor == 0x0F else f"{major}.{minor}"
    return _text(reader)


def _encoding_version(reader: Reader) -> str:
    if reader.peek() & 0x80 or reader.peek() > LENGTH_QUOTE:
        return _version(reader)
    inner = reader.sub(reader.length())
    page = inner.short_integer()
    if inner.at_end():
        return f"{page}"
    version = _version(inner)
    inner.done()
    return f"{page} {version}"


def _te(reader: Reader) -> str:
    if reader.peek() & 0x80:
        if reader.short_integer() != 0x01:
            raise WspCodecError("TE short value other than trailers")
        return "trailers"
    inner = reader.sub(reader.length())
    name = _token_or(_TE_CODES)(inner)
    return _with_q(inner, name)


def _profile_warning(reader: Reader) -> str:
    code = reader.short_integer()
    return str((code >> 4) * 100 + (code & 0x0F))


def _security(reader: Reader) -> str:
    if reader.short_integer() != 0:
        raise WspCodecError("X-WAP-Security value other than close-subordinate")
    return "close-subordinate"


def _expect(reader: Reader) -> str:
    if reader.short_integer() != 0:
        raise WspCodecError("Expect short value other than 100-continue")
    return "100-continue"


def _if_range(reader: Reader) -> str:
    if NO_VALUE < reader.peek() < LENGTH_QUOTE:  # Date-value is a Long-integer
        return _date(reader)
    return _text(reader)


def _generic(reader: Reader) -> str:
    """A value of a field without its own rule here: text, or a short integer."""
    first = reader.peek()
    if first & 0x80:
        return str(reader.short_integer())
    if first > LENGTH_QUOTE or first == NO_VALUE:
        return _text(reader)
    raise WspCodecError("binary value of a field this codec does not decode")


# --- parameters (WSP 8.4.2.4) -----------------------------------------------------------


def _params(reader: Reader) -> str:
    out = ""
    while not reader.at_end():
        name, value = _param(reader)
        out += f"; {name}" if value is None else f"; {name}={quote(value)}"
    return out


def _param(reader: Reader) -> tuple[str, str | None]:
    first = reader.peek()
    if LENGTH_QUOTE < first < 0x80:  # Untyped-parameter: Token-text Untyped-value
        name = _token(reader)
        return name, _untyped_value(reader)
    code = reader.integer_value()
    if code not in PARAMETER_INFO:
        raise WspCodecError(f"parameter {code:#x} is not assigned")
    name, kind = PARAMETER_INFO[code]
    if kind == "q-value":
        return name, _q_text(_read_q(reader))
    if kind == "no-value":
        if reader.octet() != NO_VALUE:
            raise WspCodecError(f"parameter {name} carries a value")
        return name, None
    first = reader.peek()
    if first == NO_VALUE or LENGTH_QUOTE < first < 0x80:
        return name, _text_value(reader)  # text kinds, and any typed value sent as text
    match kind:
        case "charset":
            return name, _charset_name(reader.integer_value())
        case "version":
            return name, _version(reader)
        case "integer" | "delta-seconds" | "untyped":
            return name, str(reader.integer_value())
        case "short-integer":
            return name, str(reader.short_integer())
        case "field-name":
            return name, _field_name(reader)
        case "constrained-encoding":
            return name, _content_type_name(reader.short_integer())
        case "date":
            return name, _date(reader)
    raise WspCodecError(f"parameter {name} expects text")


def _untyped_value(reader: Reader) -> str | None:
    """Untyped-value: Integer-value | Text-value."""
    first = reader.peek()
    if first & 0x80 or NO_VALUE < first <= LENGTH_QUOTE:
        return str(reader.integer_value())
    return _text_value(reader)


def _text_value(reader: Reader) -> str | None:
    """Text-value: No-value | Token-text | Quoted-string."""
    if reader.peek() == NO_VALUE:
        reader.octet()
        return None
    if reader.peek() == QUOTED_STRING_START:
        reader.octet()
        return reader.cstring().decode("latin-1")
    return reader.text_string()


def _param_value_text(reader: Reader) -> str:
    value = _untyped_value(reader)
    return "" if value is None else quote(value)


_DECODERS: dict[str, Callable[[Reader], str]] = {
    "accept": _media,
    "content-type": _media,
    "accept-charset": _accept_charset,
    "accept-encoding": _accept_encoding,
    "accept-language": _accept_language,
    "content-language": _language,
    "accept-ranges": _token_or(_RANGES),
    "age": _integer_text,
    "max-forwards": _integer_text,
    "content-length": _integer_text,
    "bearer-indication": _integer_text,
    "push-flag": _integer_text,
    "allow": _method,
    "public": _method,
    "authorization": _credentials,
    "proxy-authorization": _credentials,
    "cache-control": _cache_control,
    "connection": _token_or(("close",)),
    "content-encoding": _token_or(_ENCODINGS[:3]),
    "transfer-encoding": _token_or(("chunked",)),
    "content-md5": _md5,
    "date": _date,
    "expires": _date,
    "if-modified-since": _date,
    "if-unmodified-since": _date,
    "last-modified": _date,
    "x-wap-tod": _date,
    "if-range": _if_range,
    "pragma": _pragma,
    "range": _range,
    "retry-after": _retry_after,
    "vary": _field_name,
    "trailer": _field_name,
    "warning": _warning,
    "www-authenticate": _challenge,
    "proxy-authenticate": _challenge,
    "content-disposition": _disposition,
    "x-wap-application-id": _application_id,
    "accept-application": _application_id,
    "encoding-version": _encoding_version,
    "te": _te,
    "profile-warning": _profile_warning,
    "x-wap-security": _security,
    "expect": _expect,
}
_TEXT_FIELDS = frozenset(
    {
        "content-base",
        "content-location",
        "location",
        "referer",
        "x-wap-content-uri",
        "x-wap-initiator-uri",
        "profile",
        "etag",
        "from",
        "host",
        "if-match",
        "if-none-match",
        "server",
        "user-agent",
        "upgrade",
        "via",
        "content-id",
    }
)


# --- decoding a block -----------------------------------------------------------------


CACHED_BLOCK_LIMIT = 512  # octets: a header block this short is decoded once
CACHED_FIELD_LIMIT = 256  # characters: a field this short is encoded once


@small_input_cache(CACHED_BLOCK_LIMIT)
def decode_header_block(block: bytes) -> tuple[Header, ...]:
    """``decode_headers`` as a tuple. A phone sends the same block with every request
    and a gateway much the same fields with every reply, so a short block is decoded
    once (one that fails is decoded, and fails, every time)."""
    return tuple(decode_headers(block))


def decode_headers(block: bytes) -> list[Header]:
    """An HTTP header list from a WSP header block; raises ``WspCodecError``."""
    reader = Reader(block)
    headers: list[Header] = []
    page = DEFAULT_CODE_PAGE
    while not reader.at_end():
        first = reader.octet()
        if first == SHIFT_DELIMITER:
            page = reader.octet()
            continue
        if 1 <= first <= MAX_SHORT_CUT_SHIFT:
            page = first
            continue
        if first & 0x80:
            code = first & 0x7F
            value = Reader(reader.data, reader.pos)
            reader.skip_value()
            value.end = reader.pos
            if page != DEFAULT_CODE_PAGE or code not in FIELD_NAMES:
                name = f"X-Wsp-Page{page}-Field{code:02X}"
                headers.append((name, _generic(value)))
                continue
            name = FIELD_NAMES[code]
            headers.append((name, _decode_value(name, value)))
            continue
        if first == NO_VALUE:
            raise WspCodecError("header with an empty name")
        reader.pos -= 1
        name = _token(reader)
        headers.append((name, _text(reader)))
    return headers


def _decode_value(name: str, reader: Reader) -> str:
    key = name.lower()
    decoder = _DECODERS.get(key)
    if decoder is None:
        decoder = _text if key in _TEXT_FIELDS else _generic
    text = decoder(reader)
    if not reader.at_end():
        raise WspCodecError(f"{reader.remaining()} stray octets in the {name} value")
    return text


def decode_content_type(value: bytes) -> str:
    """The HTTP rendering of the raw ContentType field of a Reply, Post or Push."""
    reader = Reader(value)
    text = _media(reader)
    if not reader.at_end():
        raise WspCodecError("stray octets after the content type")
    return text


# --- value encoders ---------------------------------------------------------------------
#
# Each takes the HTTP value and the encoding version and returns the WSP value octets,
# or raises _Unencodable when the compact form cannot say it.


def _enc_text(value: str) -> bytes:
    """Text-string, or Quoted-string for a value in quotes; a value that opens a quote
    it does not close has no WSP form."""
    try:
        if len(value) >= 2 and value[0] == value[-1] == '"':
            return bytes([QUOTED_STRING_START]) + value[1:-1].encode("latin-1") + b"\x00"
        if value.startswith('"'):
            raise _Unencodable
        raw = value.encode("latin-1")
    except UnicodeEncodeError:
        raise _Unencodable from None
    if b"\x00" in raw or (raw and raw[0] < 0x20):
        raise _Unencodable
    return put_text_string(value)


def _enc_token_text(value: str) -> bytes:
    if not _TOKEN.match(value):
        raise _Unencodable
    return put_text_string(value)


def _enc_token_or(
    table: tuple[str, ...] | dict[int, str],
) -> Callable[[str, EncodingVersion], bytes]:
    items = table.items() if isinstance(table, dict) else enumerate(table)
    index = {name: code for code, name in items}

    def encode(value: str, version: EncodingVersion) -> bytes:
        code = index.get(value)
        return put_short_integer(code) if code is not None else _enc_token_text(value)

    return encode


def _enc_integer(value: str, version: EncodingVersion) -> bytes:
    return put_integer_value(_integer(value))


def _enc_short(value: str, version: EncodingVersion) -> bytes:
    number = _integer(value)
    if number > 0x7F:
        raise _Unencodable
    return put_short_integer(number)


def _enc_date(value: str, version: EncodingVersion) -> bytes:
    return put_long_integer(_parse_date(value))


def _general(body: bytes) -> bytes:
    return put_length(len(body)) + body


def _split_media(value: str) -> tuple[str, list[tuple[str, str | None]]]:
    parts = _split_params(value)
    params: list[tuple[str, str | None]] = []
    for part in parts[1:]:
        if not part:
            raise _Unencodable
        name, eq, raw = part.partition("=")
        params.append((name.strip(_WS), _unquote(raw) if eq else None))
    return parts[0], params


def _enc_media(value: str, version: EncodingVersion) -> bytes:
    media, params = _split_media(value)
    code = content_type_code(media, version)
    if not params:
        if code is not None and code <= 0x7F:
            return put_short_integer(code)
        if code is None:
            return _enc_token_or_media(media)
    head = put_integer_value(code) if code is not None else _enc_token_or_media(media)
    return _general(head + _enc_params(params, version))


def _enc_token_or_media(media: str) -> bytes:
    if not re.fullmatch(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+/[!#$%&'*+\-.^_`|~0-9A-Za-z]+", media):
        raise _Unencodable
    return put_text_string(media)


def _enc_params(params: list[tuple[str, str | None]], version: EncodingVersion) -> bytes:
    return b"".join(_enc_param(name, value, version) for name, value in params)


def _enc_param(name: str, value: str | None, version: EncodingVersion) -> bytes:
    if not _TOKEN.match(name):
        raise _Unencodable
    code = parameter_code(name, version)
    if name.lower() == "type" and value is not None:
        code = 0x03 if _decimal(value) else (0x09 if version >= (1, 2) else None)
    if code is not None and name == PARAMETER_INFO[code][0]:
        kind = PARAMETER_INFO[code][1]
        try:
            return put_integer_value(code) + _enc_typed(kind, value, version)
        except (_Unencodable, WspCodecError):
            if kind not in ("q-value", "no-value"):  # these have no text form
                return put_integer_value(code) + _enc_text_value(value)
    # Untyped-parameter: Token-text then Integer-value or Text-value
    if value is not None and _decimal(value) and len(value) < 60 and str(int(value)) == value:
        return put_text_string(name) + put_integer_value(int(value))
    return put_text_string(name) + _enc_text_value(value)


def _enc_text_value(value: str | None) -> bytes:
    if value is None:
        return bytes([NO_VALUE])
    if value and _TOKEN.match(value):
        return put_text_string(value)
    try:
        raw = value.encode("latin-1")
    except UnicodeEncodeError:
        raise _Unencodable from None
    if b"\x00" in raw:
        raise _Unencodable
    return bytes([QUOTED_STRING_START]) + raw + b"\x00"


def _enc_typed(kind: str, value: str | None, version: EncodingVersion) -> bytes:
    if kind == "no-value":
        if value is not None:
            raise _Unencodable
        return bytes([NO_VALUE])
    if value is None:
        raise _Unencodable
    match kind:
        case "q-value":
            return put_uintvar(_q_raw(value))
        case "charset":
            return put_integer_value(_charset_code(value))
        case "version":
            return _enc_version(value)
        case "integer" | "delta-seconds" | "untyped":
            return put_integer_value(_integer(value))
        case "short-integer":
            return _enc_short(value, version)
        case "field-name":
            return _enc_field_name(value, version)
        case "constrained-encoding":
            code = content_type_code(value, version)
            if code is None or code > 0x7F or CONTENT_TYPE_NAMES.get(code) != value:
                raise _Unencodable
            return put_short_integer(code)
        case "date":
            return put_long_integer(_parse_date(value))
        case "text-string" | "text-value":
            return _enc_text_value(value)
    raise _Unencodable


def _enc_field_name(value: str, version: EncodingVersion) -> bytes:
    code = field_code(value, version)
    if code is not None and FIELD_NAMES[code] == value:
        return put_short_integer(code)
    return _enc_token_text(value)


def _enc_version(value: str) -> bytes:
    match = re.fullmatch(r"([1-7])(?:\.(\d|1[0-4]))?", value)
    if not match:
        return _enc_token_text(value)
    minor = 0x0F if match.group(2) is None else int(match.group(2))
    return put_short_integer(int(match.group(1)) << 4 | minor)


def _enc_with_q(value: str, version: EncodingVersion) -> tuple[str, int | None]:
    head, params = _split_media(value)
    if not params:
        return head, None
    if len(params) != 1 or params[0][0] != "q" or params[0][1] is None:
        raise _Unencodable
    return head, _q_raw(params[0][1])


def _enc_accept_charset(value: str, version: EncodingVersion) -> bytes:
    name, q = _enc_with_q(value, version)
    try:
        code: int | None = _charset_code(name)
    except _Unencodable:
        code = None
    if q is None:
        if code is not None and code <= 0x7F:
            return put_short_integer(code)
        if code is None:
            return _enc_token_text(name)
    head = put_integer_value(code) if code is not None else _enc_token_text(name)
    return _general(head + (b"" if q is None else put_uintvar(q)))


def _enc_accept_encoding(value: str, version: EncodingVersion) -> bytes:
    name, q = _enc_with_q(value, version)
    code = _ENCODINGS.index(name) if name in _ENCODINGS else None
    if q is None and code != 3:
        return put_short_integer(code) if code is not None else _enc_token_text(name)
    head = put_short_integer(code) if code is not None else _enc_token_text(name)
    return _general(head + (b"" if q is None else put_uintvar(q)))


def _enc_language(value: str, version: EncodingVersion) -> bytes:
    code = LANGUAGES.get(value)
    if code is None:
        return _enc_token_text(value)
    return put_integer_value(code)


def _enc_accept_language(value: str, version: EncodingVersion) -> bytes:
    name, q = _enc_with_q(value, version)
    code = LANGUAGES.get(name)
    if q is None and (code is None or code <= 0x7F):
        return _enc_language(name, version)
    head = put_integer_value(code) if code is not None else _enc_token_text(name)
    return _general(head + (b"" if q is None else put_uintvar(q)))


def _enc_method(value: str, version: EncodingVersion) -> bytes:
    for code, name in METHOD_NAMES.items():
        if name == value:
            return put_short_integer(code)
    raise _Unencodable


def _enc_public(value: str, version: EncodingVersion) -> bytes:
    try:
        return _enc_method(value, version)
    except _Unencodable:
        return _enc_token_text(value)


def _enc_cache_control(value: str, version: EncodingVersion) -> bytes:
    name, eq, arg = value.partition("=")
    name = name.strip(_WS)
    if name in _CACHE_DIRECTIVES:
        index = _CACHE_DIRECTIVES.index(name)
        if index == 0x0B and version < (1, 3):
            raise _Unencodable
        if not eq:
            if name in _CACHE_DELTA and name != "max-stale":
                raise _Unencodable
            return put_short_integer(index)
        if name in _CACHE_DELTA:
            return _general(put_short_integer(index) + put_integer_value(_integer(arg)))
        if name in _CACHE_FIELDS:
            fields = [f.strip(_WS) for f in _unquote(arg).split(",")]
            if not all(fields):
                raise _Unencodable
            body = b"".join(_enc_field_name(f, version) for f in fields)
            return _general(put_short_integer(index) + body)
        raise _Unencodable
    if not eq:
        return _enc_token_text(name)
    if _decimal(arg) and len(arg) < 60 and str(int(arg)) == arg:
        return _general(_enc_token_text(name) + put_integer_value(int(arg)))
    return _general(_enc_token_text(name) + _enc_text_value(_unquote(arg)))


def _enc_pragma(value: str, version: EncodingVersion) -> bytes:
    if value == "no-cache":
        return put_short_integer(0)
    _, params = _split_media("x;" + value)
    return _general(_enc_params(params, version))


def _enc_md5(value: str, version: EncodingVersion) -> bytes:
    try:
        digest = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise _Unencodable from None
    if base64.b64encode(digest).decode("ascii") != value:
        raise _Unencodable
    return _general(digest)


def _enc_range(value: str, version: EncodingVersion) -> bytes:
    match = re.fullmatch(r"bytes=(\d*)-(\d*)", value)
    if not match or not (match.group(1) or match.group(2)):
        raise _Unencodable
    first, last = match.groups()
    if not first:
        return _general(b"\x81" + put_uintvar(_integer(last)))
    body = b"\x80" + put_uintvar(_integer(first))
    if last:
        body += put_uintvar(_integer(last))
    return _general(body)


def _enc_retry_after(value: str, version: EncodingVersion) -> bytes:
    if _decimal(value):
        return _general(b"\x81" + put_integer_value(_integer(value)))
    return _general(b"\x80" + put_long_integer(_parse_date(value)))


def _enc_warning(value: str, version: EncodingVersion) -> bytes:
    match = re.fullmatch(r'(\d{3})(?: (\S+) "([^"\x00]*)")?', value)
    if not match or int(match.group(1)) not in _WARN_NUMBERS:
        raise _Unencodable
    code = put_short_integer(_WARN_NUMBERS[int(match.group(1))])
    if match.group(2) is None:
        return code
    return _general(code + put_text_string(match.group(2)) + put_text_string(match.group(3)))


def _enc_credentials(value: str, version: EncodingVersion) -> bytes:
    scheme, _, rest = value.partition(" ")
    if scheme == "Basic":
        try:
            cookie = base64.b64decode(rest, validate=True).decode("latin-1")
        except (binascii.Error, ValueError):
            raise _Unencodable from None
        user, colon, password = cookie.partition(":")
        if not colon or "\x00" in user + password:
            raise _Unencodable
        if "Basic " + base64.b64encode(f"{user}:{password}".encode("latin-1")).decode() != value:
            raise _Unencodable
        return _general(b"\x80" + put_text_string(user) + put_text_string(password))
    return _general(_enc_token_text(scheme) + _enc_auth_params(rest, version))


def _enc_auth_params(text: str, version: EncodingVersion) -> bytes:
    out = b""
    for item in _split_list(text):
        name, eq, raw = item.partition("=")
        out += _enc_param(name.strip(_WS), _unquote(raw) if eq else None, version)
    return out


def _enc_challenge(value: str, version: EncodingVersion) -> bytes:
    match = re.fullmatch(r'(\S+) realm=("(?:[^"\\]|\\")*"|[^,\s]+)(?:, (.*))?', value)
    if not match:
        raise _Unencodable
    scheme, realm, rest = match.group(1), _unquote(match.group(2)), match.group(3)
    if scheme == "Basic" and rest is None:
        return _general(b"\x80" + put_text_string(realm))
    body = _enc_token_text(scheme) + put_text_string(realm)
    return _general(body + (_enc_auth_params(rest, version) if rest else b""))


def _enc_disposition(value: str, version: EncodingVersion) -> bytes:
    kind, params = _split_media(value)
    if kind == "inline" and version < (1, 4):
        raise _Unencodable
    return _general(_enc_token_or(_DISPOSITIONS)(kind, version) + _enc_params(params, version))


def _enc_application_id(value: str, version: EncodingVersion) -> bytes:
    if value in _APPLICATION_IDS:
        return put_integer_value(_APPLICATION_IDS.index(value))
    if _decimal(value):
        number = _integer(value)
        if number < len(_APPLICATION_IDS) or str(number) != value:
            raise _Unencodable
        return put_integer_value(number)
    return _enc_text(value)


def _enc_encoding_version(value: str, version: EncodingVersion) -> bytes:
    match = re.fullmatch(r"(\d{1,3})(?: (.+))?", value)
    if match and match.group(2) is not None:
        page = int(match.group(1))
        if page > 0x7F:
            raise _Unencodable
        return _general(put_short_integer(page) + _enc_version(match.group(2)))
    encoded = _enc_version(value)
    if encoded[0] < 0x80:  # a text version: fine, unless it reads as a page number
        raise _Unencodable
    return encoded


def _enc_te(value: str, version: EncodingVersion) -> bytes:
    if value == "trailers":
        return put_short_integer(0x01)
    name, q = _enc_with_q(value, version)
    codes = {v: k for k, v in _TE_CODES.items() if k != 0x01}
    head = put_short_integer(codes[name]) if name in codes else _enc_token_text(name)
    return _general(head + (b"" if q is None else put_uintvar(q)))


def _enc_profile_warning(value: str, version: EncodingVersion) -> bytes:
    number = _integer(value)
    klass, detail = divmod(number, 100)
    if not (1 <= klass <= 7 and detail <= 0x0F):
        raise _Unencodable
    return put_short_integer(klass << 4 | detail)


def _enc_fixed(text: str) -> Callable[[str, EncodingVersion], bytes]:
    def encode(value: str, version: EncodingVersion) -> bytes:
        if value != text:
            raise _Unencodable
        return put_short_integer(0)

    return encode


def _enc_if_range(value: str, version: EncodingVersion) -> bytes:
    try:
        return _enc_date(value, version)
    except _Unencodable:
        return _enc_text(value)


def _enc_text_field(value: str, version: EncodingVersion) -> bytes:
    return _enc_text(value)


_ENCODERS: dict[str, Callable[[str, EncodingVersion], bytes]] = {
    "accept": _enc_media,
    "content-type": _enc_media,
    "accept-charset": _enc_accept_charset,
    "accept-encoding": _enc_accept_encoding,
    "accept-language": _enc_accept_language,
    "content-language": _enc_language,
    "accept-ranges": _enc_token_or(_RANGES),
    "age": _enc_integer,
    "max-forwards": _enc_integer,
    "content-length": _enc_integer,
    "bearer-indication": _enc_integer,
    "push-flag": _enc_short,
    "allow": _enc_method,
    "public": _enc_public,
    "authorization": _enc_credentials,
    "proxy-authorization": _enc_credentials,
    "cache-control": _enc_cache_control,
    "connection": _enc_token_or(("close",)),
    "content-encoding": _enc_token_or(_ENCODINGS[:3]),
    "transfer-encoding": _enc_token_or(("chunked",)),
    "content-md5": _enc_md5,
    "date": _enc_date,
    "expires": _enc_date,
    "if-modified-since": _enc_date,
    "if-unmodified-since": _enc_date,
    "last-modified": _enc_date,
    "x-wap-tod": _enc_date,
    "if-range": _enc_if_range,
    "pragma": _enc_pragma,
    "range": _enc_range,
    "retry-after": _enc_retry_after,
    "vary": _enc_field_name,
    "trailer": _enc_field_name,
    "warning": _enc_warning,
    "www-authenticate": _enc_challenge,
    "proxy-authenticate": _enc_challenge,
    "content-disposition": _enc_disposition,
    "x-wap-application-id": _enc_application_id,
    "accept-application": _enc_application_id,
    "encoding-version": _enc_encoding_version,
    "te": _enc_te,
    "profile-warning": _enc_profile_warning,
    "x-wap-security": _enc_fixed("close-subordinate"),
    "expect": _enc_fixed("100-continue"),
} | {name: _enc_text_field for name in _TEXT_FIELDS}

# HTTP list-valued fields: WSP sends each element as a header of its own (WSP 8.4.1)
_LIST_FIELDS = frozenset(
    {
        "accept",
        "accept-charset",
        "accept-encoding",
        "accept-language",
        "accept-ranges",
        "allow",
        "cache-control",
        "connection",
        "content-encoding",
        "content-language",
        "pragma",
        "public",
        "transfer-encoding",
        "vary",
        "trailer",
        "te",
        "expect",
        "upgrade",
        "via",
    }
)


def _text_form(value: str) -> bool:
    """Whether ``value`` can travel as a Text-string or Quoted-string."""
    if value.startswith('"'):
        return len(value) >= 2 and value.endswith('"')
    return value[0] >= " "


def split_http_lists(headers: Iterable[Header]) -> list[Header]:
    """The header list as WSP carries it: each element of an HTTP list value (Accept,
    Cache-Control, ...) as a header of its own."""
    out: list[Header] = []
    for name, value in headers:
        items = _split_list(value) if name.lower() in _LIST_FIELDS else []
        if len(items) > 1 and all(_text_form(item) for item in items):
            out += [(name, item) for item in items]
        else:
            out.append((name, value))
    return out


def encode_headers(
    headers: Iterable[Header], version: EncodingVersion = DEFAULT_ENCODING_VERSION
) -> bytes:
    """A WSP header block for an HTTP header list, using codes ``version`` knows."""
    return b"".join(_encode_one(name, value, version) for name, value in split_http_lists(headers))


@small_input_cache(CACHED_FIELD_LIMIT, entries=1024)  # clients send the same fields again
def _encode_one(name: str, value: str, version: EncodingVersion) -> bytes:
    """The compact form when there is one and it decodes to exactly ``value`` (HTTP
    spellings the compact form cannot keep, such as extra spaces, go as text)."""
    code = field_code(name, version)
    encoder = _ENCODERS.get(name.lower())
    if code is not None and encoder is not None:
        try:
            compact = encoder(value, version)
            if _same_value(_decode_value(FIELD_NAMES[code], Reader(compact)), value):
                return put_short_integer(code) + compact
        except (_Unencodable, WspCodecError):
            pass  # no compact form for this value: send it as text
    return _application_header(name, value)


def _same_value(decoded: str, value: str) -> bool:
    """Whether ``decoded`` says ``value``; a disputed media type spelling counts as the
    OMNA one it is encoded as (docs/wsp-headers.md)."""
    media, separator, rest = value.partition(";")
    if media in CONTENT_TYPE_ALIASES:
        value = CONTENT_TYPE_NAMES[CONTENT_TYPE_ALIASES[media]] + separator + rest
    return decoded == value


def _application_header(name: str, value: str) -> bytes:
    """Token-text name and Text-string value (WSP 8.4.2.6)."""
    if not _TOKEN.match(name):
        raise WspCodecError(f"header name {name!r} is not a token")
    try:
        return put_text_string(name) + _enc_text(value)
    except _Unencodable:
        raise WspCodecError(f"header {name} value cannot be sent as text") from None


def encode_content_type(value: str, version: EncodingVersion = DEFAULT_ENCODING_VERSION) -> bytes:
    """The ContentType field of a Reply, Post or Push for an HTTP media type.

    Any spelling RFC 9110 allows (spacing, case, quoted parameters) is accepted: the
    field carries the type's canonical form (``web.media_type``), with the assigned
    spelling of a well-known type, so ``TEXT/HTML;charset="UTF-8"`` is 0x82 and charset
    106 like ``text/html; charset=utf-8``. The field has no text fallback for a whole
    header, so only a value that is not a media type at all is refused.
    """
    try:
        media = parse_media_type(value, media_range=True)  # WSP Table 40 assigns */* too
    except MediaTypeError as exc:
        raise WspCodecError(f"content type cannot be encoded: {exc}") from None
    essence = _ASSIGNED_SPELLING.get(media.essence, media.essence)
    canonical = essence + str(media)[len(media.essence) :]
    try:
        encoded = _enc_media(canonical, version)
        if _same_value(decode_content_type(encoded), canonical):
            return encoded
    except (_Unencodable, WspCodecError):
        pass
    raise WspCodecError(f"content type {value!r} cannot be encoded")


# Lower-case media type -> the spelling its number is assigned under (e.g. text/x-vCard).
_ASSIGNED_SPELLING = {
    name.lower(): name
    for name in (*CONTENT_TYPE_NAMES.values(), *REGISTERED_CONTENT_TYPES.values())
} | {alias.lower(): alias for alias in CONTENT_TYPE_ALIASES}

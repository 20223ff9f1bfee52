"""HTTP media types and media ranges (RFC 9110 8.3.1, 12.5.1), parsed once for everyone.

    media-type = type "/" subtype parameters
    parameters = *( OWS ";" OWS [ parameter ] )
    parameter  = parameter-name "=" parameter-value
    parameter-value = ( token / quoted-string )

Type, subtype and parameter names are case-insensitive (RFC 9110 8.3.1), and so is the
value of ``charset`` (8.3.2); they are kept lower-case, so two spellings of one type
compare equal. Whitespace around ``;`` and an empty parameter (``a/b;;c=d``) are
allowed; whitespace around ``=`` is not, but origins send it, so it is tolerated. Other
parameter values keep their case. ``str()`` gives the canonical spelling: ``"; "``
between parameters, a value quoted only when it is not a token.

A media range (Accept) is the same grammar with ``*`` allowed as subtype, or as type
with subtype ``*``.
"""

import re
from dataclasses import dataclass

from wwanlab.core.errors import WwanlabError

TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")  # RFC 9110 5.6.2 token
OWS = " \t"  # RFC 9110 5.6.3
MAX_MEDIA_TYPE = 1024  # characters parsed at most; a real Content-Type is far shorter


class MediaTypeError(WwanlabError, ValueError):
    """Text that is not a media type (or media range)."""


@dataclass(frozen=True, slots=True)
class MediaType:
    type: str
    subtype: str
    params: tuple[tuple[str, str], ...] = ()

    @property
    def essence(self) -> str:
        """``type/subtype`` without parameters."""
        return f"{self.type}/{self.subtype}"

    def param(self, name: str) -> str | None:
        """The value of parameter ``name`` (case-insensitive), the first if repeated."""
        key = name.lower()
        return next((v for k, v in self.params if k == key), None)

    def without(self, name: str) -> "MediaType":
        """This type without parameter ``name``."""
        key = name.lower()
        return MediaType(self.type, self.subtype, tuple(p for p in self.params if p[0] != key))

    def matches(self, media: "MediaType") -> int:
        """How specifically this range covers ``media``: 3 exact, 2 ``type/*``,
        1 ``*/*``, 0 not at all (RFC 9110 12.5.1)."""
        if self.type == "*":
            return 1
        if self.type != media.type:
            return 0
        if self.subtype == "*":
            return 2
        return 3 if self.subtype == media.subtype else 0

    def __str__(self) -> str:
        return self.essence + "".join(f"; {k}={quote(v)}" for k, v in self.params)


def quote(value: str) -> str:
    """A parameter value as HTTP writes it: a token as is, else a quoted-string."""
    if TOKEN.fullmatch(value):
        return value
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def parse_media_type(text: str, *, media_range: bool = False) -> MediaType:
    """The media type ``text`` names; ``MediaTypeError`` says why it is not one."""
    if len(text) > MAX_MEDIA_TYPE:
        raise MediaTypeError(f"media type longer than {MAX_MEDIA_TYPE} characters")
    pos = _skip_ows(text, 0)
    kind, pos = _token(text, pos, "type")
    if text[pos : pos + 1] != "/":
        raise MediaTypeError(f"{text!r} has no '/' after its type")
    subtype, pos = _token(text, pos + 1, "subtype")
    kind, subtype = kind.lower(), subtype.lower()
    if "*" in (kind, subtype) and not (media_range and subtype == "*"):
        raise MediaTypeError(f"{text!r}: '*' is only allowed in a media range")
    params: list[tuple[str, str]] = []
    pos = _skip_ows(text, pos)
    while pos < len(text):
        if text[pos] != ";":
            raise MediaTypeError(f"{text!r}: unexpected {text[pos]!r} at {pos}")
        pos = _skip_ows(text, pos + 1)
        if pos == len(text) or text[pos] == ";":
            continue  # an empty parameter
        name, pos = _token(text, pos, "parameter name")
        pos = _skip_ows(text, pos)
        if text[pos : pos + 1] != "=":
            raise MediaTypeError(f"{text!r}: parameter {name!r} has no value")
        pos = _skip_ows(text, pos + 1)
        if text[pos : pos + 1] == '"':
            value, pos = _quoted_string(text, pos)
        else:
            value, pos = _token(text, pos, f"value of {name!r}")
        name = name.lower()
        params.append((name, value.lower() if name == "charset" else value))
        pos = _skip_ows(text, pos)
    return MediaType(kind, subtype, tuple(params))


def parse_media_ranges(values: list[str] | tuple[str, ...]) -> list[tuple[MediaType, float]]:
    """Each media range of Accept field values with its weight (``q``, RFC 9110 12.4.2;
    an unreadable weight counts as 0, refusing). Elements that do not parse are skipped,
    as RFC 9110 5.6.1 lets a recipient ignore a bad list element."""
    ranges: list[tuple[MediaType, float]] = []
    for value in values:
        for element in split_list(value):
            try:
                media = parse_media_type(element, media_range=True)
            except MediaTypeError:
                continue
            ranges.append((media.without("q"), _weight(media.param("q"))))
    return ranges


def split_list(value: str) -> list[str]:
    """The non-empty elements of a comma-separated field value, commas inside
    quoted-strings kept (RFC 9110 5.6.1)."""
    elements: list[str] = []
    start, quoted, escaped = 0, False, False
    for i, char in enumerate(value):
        if escaped:
            escaped = False
        elif quoted and char == "\\":
            escaped = True
        elif char == '"':
            quoted = not quoted
        elif char == "," and not quoted:
            elements.append(value[start:i])
            start = i + 1
    elements.append(value[start:])
    return [e.strip(OWS) for e in elements if e.strip(OWS)]


def _weight(text: str | None) -> float:
    if text is None:
        return 1.0
    if not re.fullmatch(r"0(\.[0-9]{0,3})?|1(\.0{0,3})?", text):  # RFC 9110 12.4.2 qvalue
        return 0.0
    return float(text)


def _skip_ows(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in OWS:
        pos += 1
    return pos


def _token(text: str, pos: int, what: str) -> tuple[str, int]:
    match = TOKEN.match(text, pos)
    if match is None:
        raise MediaTypeError(f"{text!r} has no {what} at {pos}")
    return match.group(), match.end()


def _quoted_string(text: str, pos: int) -> tuple[str, int]:
    """The unescaped content of the quoted-string at ``pos`` and the position after it."""
    out: list[str] = []
    i = pos + 1
    while i < len(text):
        char = text[i]
        if char == '"':
            return "".join(out), i + 1
        if char == "\\":
            i += 1
            if i == len(text):
                break
            char = text[i]
        if char in "\r\n\x00":
            raise MediaTypeError(f"{text!r}: control character in a quoted value")
        out.append(char)
        i += 1
    raise MediaTypeError(f"{text!r}: quoted value not closed")

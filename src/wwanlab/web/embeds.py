"""Which URLs an HTML document makes a browser fetch, and how to rewrite them.

A browser loads, besides the document, every resource an element pulls in to render
it (HTML 4.01: IMG, SCRIPT, LINK rel=stylesheet, frames, OBJECT/EMBED, INPUT
type=image, and the BACKGROUND attribute of BODY and table cells); hyperlinks (A,
AREA) are not fetched. ``embedded_references`` lists their attribute values as
written, in document order, using ``html.parser`` (lenient: malformed markup yields
what can be read, never an exception). ``rewrite_references`` replaces exactly those
values in the document's text, leaving every other byte as it was.
"""

import html
import re
import zlib
from collections.abc import Callable
from html.parser import HTMLParser

MAX_DOCUMENT = 8 * 1024 * 1024  # octets of decoded HTML a browser or proxy will parse

# (tag, attribute) pairs that load a resource; LINK and INPUT are checked further below.
_FETCHING = {
    ("img", "src"),
    ("script", "src"),
    ("embed", "src"),
    ("frame", "src"),
    ("iframe", "src"),
    ("input", "src"),
    ("link", "href"),
    ("body", "background"),
    ("table", "background"),
    ("td", "background"),
    ("th", "background"),
}
_LINK_RELS = {"stylesheet", "icon", "shortcut"}


def _fetches(tag: str, name: str, attrs: dict[str, str | None]) -> bool:
    if (tag, name) not in _FETCHING:
        return False
    if tag == "link":
        rels = set((attrs.get("rel") or "").lower().split())
        return bool(rels & _LINK_RELS)
    if tag == "input":
        return (attrs.get("type") or "").lower() == "image"
    return True


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        table = dict(attrs)
        for name, value in attrs:
            if value is not None and value.strip() and _fetches(tag, name, table):
                self.found.append(value.strip())

    handle_startendtag = handle_starttag


def embedded_references(html: str) -> list[str]:
    """Attribute values of the elements that load a resource, in document order."""
    collector = _Collector()
    collector.feed(html)
    collector.close()
    return collector.found


def decode_body(body: bytes, encoding: str) -> bytes:
    """The body without its Content-Encoding (gzip or deflate), at most
    ``MAX_DOCUMENT`` octets; ValueError for an unknown coding or corrupt data."""
    coding = encoding.lower()
    if coding in ("", "identity"):
        return body[:MAX_DOCUMENT]
    if coding not in ("gzip", "x-gzip", "deflate"):
        raise ValueError(f"unknown content coding {encoding[:30]!r}")
    # wbits 47: zlib or gzip header, detected (RFC 9110 8.4.1.2-3 name both).
    inflater = zlib.decompressobj(47)
    try:
        data = inflater.decompress(body, MAX_DOCUMENT)
    except zlib.error as error:
        raise ValueError(f"corrupt {coding} body: {error}") from None
    return data


# A comment, a raw-text element (its content is not markup: HTML 4.01 B.3.2), or a tag.
_MARKUP = re.compile(
    r"(<!--.*?-->)|(<(script|style)\b[^>]*>)(.*?)(</\3\s*>)|(<[A-Za-z][^>]*>)",
    re.DOTALL | re.IGNORECASE,
)
_NAME = re.compile(r"<([A-Za-z][-A-Za-z0-9]*)")
_ATTR = re.compile(r"""([A-Za-z_:][-A-Za-z0-9_:.]*)(\s*=\s*)("([^"]*)"|'([^']*)'|([^\s"'>]+))""")


def rewrite_references(document: str, rewrite: Callable[[str], str | None]) -> tuple[str, int]:
    """``document`` with each value ``v`` that ``embedded_references`` would list
    replaced by ``rewrite(v)`` (kept when it answers None); also how many were."""
    count = 0

    def tag(text: str) -> str:
        nonlocal count
        name = _NAME.match(text)
        if name is None:
            return text
        element = name.group(1).lower()
        attrs: dict[str, str | None] = {
            m.group(1).lower(): html.unescape(_value(m)) for m in _ATTR.finditer(text)
        }

        def attr(m: re.Match[str]) -> str:
            nonlocal count
            value = html.unescape(_value(m)).strip()
            if not value or not _fetches(element, m.group(1).lower(), attrs):
                return m.group(0)
            new = rewrite(value)
            if new is None:
                return m.group(0)
            count += 1
            return f'{m.group(1)}{m.group(2)}"{html.escape(new)}"'

        return _ATTR.sub(attr, text)

    def markup(match: re.Match[str]) -> str:
        if match.group(1) is not None:  # a comment
            return match.group(0)
        if match.group(2) is not None:  # script or style: only the opening tag
            return tag(match.group(2)) + match.group(4) + match.group(5)
        return tag(match.group(6))

    return _MARKUP.sub(markup, document), count


def _value(m: re.Match[str]) -> str:
    for group in (4, 5, 6):
        if m.group(group) is not None:
            return str(m.group(group))
    return ""

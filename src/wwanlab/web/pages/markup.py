"""What an HTML document embeds, and the same document with some references changed.

A browser of the paper's time fetched, for a page, the images (``<img src>``), the
scripts (``<script src>``) and the style sheets (``<link rel=stylesheet href>``) its
HTML names; those are the embedded objects here. Relative references are resolved
against the document's URL (RFC 3986 5), fragments dropped. ``html.parser`` is lenient:
any text parses, so a malformed page yields the references it does have.
"""

import re
from html import escape
from html.parser import HTMLParser
from urllib.parse import urldefrag, urljoin

# The attribute holding the object's URL, per embedding tag.
EMBEDDING = {"img": "src", "script": "src", "link": "href"}
ATTRIBUTE = re.compile(r"""(?is)(?<=\s)(src|href)(\s*=\s*)("[^"]*"|'[^']*'|[^\s>]+)""")


def _embedded(tag: str, attrs: list[tuple[str, str | None]]) -> str | None:
    """The raw URL a start tag embeds, if it embeds one."""
    name = EMBEDDING.get(tag)
    if name is None:
        return None
    values = dict(attrs)
    if tag == "link" and "stylesheet" not in (values.get("rel") or "").lower().split():
        return None
    return values.get(name) or None


class _References(HTMLParser):
    def __init__(self, base: str) -> None:
        super().__init__(convert_charrefs=True)
        self.base = base
        self.found: list[tuple[str, tuple[int, int], str]] = []  # url, (line, col), tag text

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        raw = _embedded(tag, attrs)
        if raw is not None:
            url = urldefrag(urljoin(self.base, raw.strip())).url
            self.found.append((url, self.getpos(), self.get_starttag_text() or ""))

    handle_startendtag = handle_starttag


def _scan(document: str, base: str) -> list[tuple[str, tuple[int, int], str]]:
    parser = _References(base)
    parser.feed(document)
    parser.close()
    return parser.found


def references(document: bytes, base: str) -> list[str]:
    """The absolute URLs of the objects ``document`` embeds, in document order, each
    once."""
    text = document.decode("utf-8", errors="replace")
    return list(dict.fromkeys(url for url, _, _ in _scan(text, base)))


def rewrite(document: bytes, base: str, changes: dict[str, list[str]]) -> bytes:
    """``document`` with every embedding of a URL in ``changes`` replaced by one copy of
    its tag per new URL (one URL: a rename; two: the object embedded twice; none: the
    embedding removed, leaving a script's end tag)."""
    text = document.decode("utf-8", errors="surrogateescape")
    starts = [0, *(match.end() for match in re.finditer("\n", text))]  # as HTMLParser counts
    out: list[str] = []
    done = 0
    for url, (line, col), tag in _scan(text, base):
        new = changes.get(url)
        if new is None:
            continue
        at = starts[line - 1] + col
        out.append(text[done:at])
        copies = [_retarget(tag, target) for target in new]
        if tag[1:7].lower() == "script":  # a script's content is raw text: close each copy
            copies[:-1] = [copy + "</script>" for copy in copies[:-1]]
        out.extend(copies)
        done = at + len(tag)
    out.append(text[done:])
    return "".join(out).encode("utf-8", errors="surrogateescape")


def _retarget(tag: str, url: str) -> str:
    """The start tag ``tag`` with its URL attribute set to ``url``."""
    name = "href" if tag[1:5].lower() == "link" else "src"

    def replace(match: re.Match[str]) -> str:
        if match.group(1).lower() != name:
            return match.group(0)
        return f'{match.group(1)}{match.group(2)}"{escape(url)}"'

    return ATTRIBUTE.sub(replace, tag)


def embedding_tag(content_type: str, url: str) -> str:
    """A tag that embeds ``url`` as a browser would fetch an object of ``content_type``."""
    target = escape(url)
    if content_type.startswith("text/css"):
        return f'<link rel="stylesheet" type="text/css" href="{target}">'
    if "javascript" in content_type or "ecmascript" in content_type:
        return f'<script type="text/javascript" src="{target}"></script>'
    return f'<img src="{target}" alt="">'

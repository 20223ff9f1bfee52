"""The embedded objects of an HTML document, as the server-side proxy finds them for
parse-and-push (paper 003 4.2.3) and for the page's CHK list (4.1.3)."""

from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

from wwanlab.pep.dual.messages import MAX_LIST

# element -> the attribute naming an object the browser fetches to render the page
_EMBEDDING = {"img": "src", "script": "src", "input": "src", "embed": "src", "frame": "src"}


class _Finder(HTMLParser):
    def __init__(self, base: str) -> None:
        super().__init__(convert_charrefs=True)
        self.base = base
        self.urls: dict[str, None] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "link":
            rel = (values.get("rel") or "").lower().split()
            name = "href" if "stylesheet" in rel or "icon" in rel else None
        else:
            name = _EMBEDDING.get(tag)
        target = values.get(name) if name else None
        if target and len(self.urls) < MAX_LIST:
            url = urljoin(self.base, target.strip())
            if urlsplit(url).scheme == "http" and url != self.base:
                self.urls[url] = None


def embedded_urls(html: bytes, base: str) -> list[str]:
    """Absolute http URLs the document embeds, once each, in document order, at most
    ``MAX_LIST``; the document itself is never one of them."""
    finder = _Finder(base)
    finder.feed(html.decode("utf-8", errors="replace"))
    finder.close()
    return list(finder.urls)

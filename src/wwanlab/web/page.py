"""A web page as the browser model sees it: one HTML document and the objects it embeds.

Paper 003 measures pages by what they are made of (Table 1: object count, total and
largest size, number of domains) and splits content by fidelity (section 4.1.1): fixed
fidelity (HTML, CSS, JavaScript: only lossless compression is allowed) and variable
fidelity (images: a lossy reduction is acceptable). A ``Page`` carries real bytes, so
every optimization works on content (gzip, SHA-1, a delta) and every byte crosses the
simulated link.

The main document's body is the truth about what it embeds: a browser finds the
embedded objects by parsing it, a URL-rewriting proxy rewrites it. ``objects`` lists
what the origins serve besides the main document, in document order.
"""

from dataclasses import dataclass
from urllib.parse import urlsplit

FIXED = "fixed"  # paper 003 section 4.1.1: "HTML, CSS, JS files"
VARIABLE = "variable"  # paper 003 section 4.1.1: "all images"


def split_url(url: str) -> tuple[str, str]:
    """``http://host/path?q`` -> ``("host", "/path?q")``; ValueError for anything else."""
    parts = urlsplit(url)
    if parts.scheme != "http" or not parts.hostname:
        raise ValueError(f"not an absolute http URL: {url!r}")
    target = parts.path or "/"
    if parts.query:
        target += "?" + parts.query
    return parts.hostname, target


def fidelity(content_type: str) -> str:
    """Variable fidelity for images, fixed for everything else (section 4.1.1)."""
    return VARIABLE if content_type.split("/", 1)[0].strip().lower() == "image" else FIXED


@dataclass(frozen=True, slots=True)
class WebObject:
    """One resource as its origin serves it."""

    url: str  # absolute: http://host/path
    content_type: str
    body: bytes
    encoding: str = "identity"  # the Content-Encoding it is served with ("gzip" once compressed)
    modified: float | None = None  # Last-Modified on the cache clock (web.cache); None: dynamic
    max_age: int | None = None  # Cache-Control max-age the origin sends; None: none sent

    def __post_init__(self) -> None:
        split_url(self.url)

    @property
    def host(self) -> str:
        return split_url(self.url)[0]

    @property
    def target(self) -> str:
        return split_url(self.url)[1]

    @property
    def fidelity(self) -> str:
        return fidelity(self.content_type)


@dataclass(frozen=True, slots=True)
class Page:
    """A main HTML document and the objects the origins serve for it."""

    name: str
    main: WebObject
    objects: tuple[WebObject, ...]

    def site(self) -> dict[str, WebObject]:
        """URL -> object for everything the origins serve, the main document included."""
        served = {obj.url: obj for obj in self.objects}
        served[self.main.url] = self.main
        return served

    def hosts(self) -> list[str]:
        """Every host name the page touches, the main document's first."""
        seen = dict.fromkeys([self.main.host, *(obj.host for obj in self.objects)])
        return list(seen)

    @property
    def total_bytes(self) -> int:
        return len(self.main.body) + sum(len(obj.body) for obj in self.objects)

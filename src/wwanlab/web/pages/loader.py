"""A user's own page: from a HAR 1.2 file or from a folder holding ``index.html``.

HAR (W3C Web Performance WG draft, "HTTP Archive (HAR) format" 1.2): each of
``log.entries`` gives ``request.url``, ``response.status`` and ``response.content``
(``mimeType``, ``size``, optional ``text``, optional ``encoding`` = "base64"). The main
document is the first successful ``text/html`` entry with text; every other successful
http(s) entry is an embedded object, once per URL. Choices, each documented in
docs/web-pages.md:

- https is read as http (the simulator has no TLS); other schemes (data:, blob:) and
  unsuccessful responses (redirects, errors) are left out.
- An entry saved without its text (browsers omit bodies) gets ``size`` bytes made as
  ``generate`` makes them: incompressible bytes behind a header for an image, text of
  the four sites' mean gzip ratio otherwise. Zeros would gzip to nothing.
- The HTML is the truth about what a page embeds (``web.page``): an entry the HTML does
  not embed (loaded by a script, a style sheet) gets a tag before ``</body>``, and an
  embedded URL without an entry loses its tag, so the browser model fetches exactly
  what the HAR recorded.

A folder is served as ``http://local.example/``: ``index.html`` is the main document,
and each file it embeds, by a URL relative to the folder, is an object; an embedded URL
outside the folder or naming no file there is an error.

Bad input is a ``UsageError`` with one line: not JSON, a missing field, no HTML entry,
an object that is the page itself, more than ``MAX_OBJECTS`` objects, too many bytes.
"""

import base64
import binascii
import json
import mimetypes
import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urldefrag, urlsplit, urlunsplit

from wwanlab.core.errors import UsageError
from wwanlab.core.rng import derive_seed
from wwanlab.web.cache import parse_date
from wwanlab.web.page import Page, WebObject, split_url
from wwanlab.web.pages import synth
from wwanlab.web.pages.markup import embedding_tag, references, rewrite
from wwanlab.web.pages.tables import MEAN_LOSSLESS_RATIO

MAX_OBJECTS = 1000  # embedded objects: 15x CNN's 67 (Table 1), beyond any page of the period
MAX_FILE_BYTES = 64 * 2**20  # a HAR file, or a folder's files together
MAX_HTML_BYTES = 4 * 2**20  # the main document: scanned in about a second at worst
MAX_SYNTHESIZED_BYTES = 16 * 2**20  # bytes made for entries saved without their text
FOLDER_ORIGIN = "http://local.example/"
DEFAULT_TYPE = "application/octet-stream"


def load(path: str | Path) -> Page:
    """The page saved at ``path``: a HAR file, or a folder with ``index.html``."""
    where = Path(path)
    try:
        if where.is_dir():
            return _load_folder(where)
        if where.is_file():
            return _load_har(where)
    except UsageError:
        raise
    except ValueError as error:  # a URL in the markup that does not parse
        raise UsageError(f"{where}: {error}") from None
    raise UsageError(f"{where}: no such file or folder")


def _load_folder(folder: Path) -> Page:
    index = folder / "index.html"
    if not index.is_file():
        raise UsageError(f"{folder}: a page folder needs an index.html")
    root = _resolve(folder)
    html = _read(index, MAX_HTML_BYTES)
    main = WebObject(FOLDER_ORIGIN, "text/html", html)
    budget = MAX_FILE_BYTES - len(html)
    objects = []
    for url in _embedded(html, main.url, {FOLDER_ORIGIN + "index.html"}):
        parts = urlsplit(url)
        file = _resolve(root / unquote(parts.path).lstrip("/"))
        if parts.hostname != "local.example" or not file.is_relative_to(root):
            raise UsageError(f"{index}: embeds {url}, outside the folder")
        if not file.is_file():
            raise UsageError(f"{index}: embeds {url}, but there is no file {file}")
        body = _read(file, budget)
        budget -= len(body)
        content_type = mimetypes.guess_type(file.name)[0] or DEFAULT_TYPE
        objects.append(WebObject(url, content_type, body))
    return Page(root.name, main, tuple(objects))


def _resolve(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError) as error:  # RuntimeError: a symlink loop (Python < 3.13)
        raise UsageError(f"{path}: cannot resolve: {error}") from None


def _embedded(html: bytes, base: str, itself: set[str]) -> list[str]:
    """The URLs ``html`` embeds; an error if one is the page itself or if too many."""
    urls = references(html, base)
    for url in urls:
        if url in itself or url == base:
            raise UsageError(f"the page embeds itself ({url})")
    if len(urls) > MAX_OBJECTS:
        raise UsageError(f"the page embeds {len(urls)} objects, more than {MAX_OBJECTS}")
    return urls


def _read(file: Path, limit: int) -> bytes:
    """The bytes of ``file``, an error if it holds more than ``limit``."""
    try:
        if file.stat().st_size > limit:
            raise UsageError(f"{file}: over the {limit} bytes left for the page")
        return file.read_bytes()
    except OSError as error:
        raise UsageError(f"{file}: cannot read: {error.strerror}") from None


@dataclass(frozen=True, slots=True)
class _Entry:
    """What an entry of a HAR file says about one response."""

    url: str
    mime: str
    text: bytes | None  # None: saved without its body
    size: int
    modified: float | None = None  # its Last-Modified on the cache clock (web.cache)

    @property
    def is_html(self) -> bool:
        return self.mime.split(";", 1)[0].strip().lower() == "text/html"


def _load_har(file: Path) -> Page:
    raw = _read(file, MAX_FILE_BYTES)
    try:
        har = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise UsageError(f"{file}: not a HAR file: not UTF-8 text") from None
    except json.JSONDecodeError as error:
        where = f"{error.msg}, line {error.lineno}"
        raise UsageError(f"{file}: not a HAR file: not JSON ({where})") from None
    except RecursionError:
        raise UsageError(f"{file}: not a HAR file: JSON nested too deeply") from None
    try:
        return _page_from_har(har, file)
    except _Missing as missing:
        raise UsageError(f"{file}: not a HAR 1.2 file: {missing}") from None


class _Missing(Exception):
    """A field the HAR format requires is absent or of the wrong type."""


def _get(node: Any, key: str, kind: type, where: str) -> Any:
    value = node.get(key) if isinstance(node, dict) else None
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        field = f"{where}.{key}" if where else key
        raise _Missing(f"{field} missing or not {_KIND_NAMES[kind]}")
    return value


_KIND_NAMES: dict[type, str] = {
    dict: "an object",
    list: "a list",
    str: "a string",
    int: "an integer",
}


def _page_from_har(har: Any, file: Path) -> Page:
    log = _get(har, "log", dict, "")
    entries = _get(log, "entries", list, "log")
    kept: dict[str, _Entry] = {}
    for n, node in enumerate(entries):
        entry = _entry(node, f"log.entries[{n}]")
        if entry is not None and entry.url not in kept:
            kept[entry.url] = entry
            if len(kept) > MAX_OBJECTS + 1:
                raise UsageError(f"{file}: more than {MAX_OBJECTS} objects")
    main_entry = next((e for e in kept.values() if e.is_html and e.text), None)
    if main_entry is None or main_entry.text is None:
        raise UsageError(f"{file}: no HTML entry with text: nothing to start the page from")
    del kept[main_entry.url]
    made = sum(e.size for e in kept.values() if e.text is None)
    if made > MAX_SYNTHESIZED_BYTES:
        raise UsageError(
            f"{file}: entries without text claim {made} bytes, over {MAX_SYNTHESIZED_BYTES}"
        )
    html = main_entry.text
    if len(html) > MAX_HTML_BYTES:
        raise UsageError(f"{file}: the HTML entry is larger than {MAX_HTML_BYTES} bytes")
    embedded = _embedded(html, main_entry.url, set())
    missing = [url for url in embedded if url not in kept]
    extra = [url for url in kept if url not in embedded]
    html = rewrite(html, main_entry.url, {url: [] for url in missing})
    html = _append_tags(html, [embedding_tag(kept[url].mime, url) for url in extra])
    bodies = _bodies(list(kept.values()))
    main = WebObject(main_entry.url, main_entry.mime, html, modified=main_entry.modified)
    order = references(html, main.url)
    objects = tuple(
        WebObject(url, kept[url].mime, bodies[url], modified=kept[url].modified) for url in order
    )
    pages = log.get("pages")
    first = pages[0] if isinstance(pages, list) and pages else None
    title = first.get("title") if isinstance(first, dict) else None
    return Page(title if isinstance(title, str) and title else file.stem, main, objects)


def _entry(node: Any, where: str) -> _Entry | None:
    """The entry's response, or None for one that is not part of the page."""
    request = _get(node, "request", dict, where)
    response = _get(node, "response", dict, where)
    url = _get(request, "url", str, where + ".request")
    status = _get(response, "status", int, where + ".response")
    content = _get(response, "content", dict, where + ".response")
    size = _get(content, "size", int, where + ".response.content")
    mime = _get(content, "mimeType", str, where + ".response.content") or DEFAULT_TYPE
    if not 200 <= status < 300:
        return None
    modified = _last_modified(response.get("headers"))
    try:
        parts = urlsplit(urldefrag(url).url)
        if parts.scheme.lower() not in ("http", "https"):
            return None
        url = urlunsplit(("http", *parts[1:]))
        split_url(url)
    except ValueError:
        raise UsageError(f"{where}.request.url is not a URL: {url[:80]!r}") from None
    text = content.get("text")
    if text is None:
        if size < 0:
            raise UsageError(f"{where}.response.content.size is negative")
        return _Entry(url, mime, None, size, modified)
    if not isinstance(text, str):
        raise _Missing(f"{where}.response.content.text not a string")
    encoding = content.get("encoding")
    if encoding is None:
        return _Entry(url, mime, text.encode("utf-8", errors="replace"), size, modified)
    if encoding != "base64":
        raise UsageError(f"{where}.response.content.encoding {str(encoding)[:20]!r} is not base64")
    try:
        return _Entry(url, mime, base64.b64decode(text, validate=True), size, modified)
    except binascii.Error:
        raise UsageError(f"{where}.response.content.text is not base64") from None


def _last_modified(headers: Any) -> float | None:
    """The response's Last-Modified (HAR ``response.headers``) on the cache clock, so the
    origin serves the object with its validators; None when absent or unreadable."""
    if not isinstance(headers, list):
        return None
    for header in headers:
        if isinstance(header, dict) and str(header.get("name", "")).lower() == "last-modified":
            return parse_date(str(header.get("value", "")))
    return None


def _append_tags(html: bytes, tags: list[str]) -> bytes:
    """``html`` with ``tags`` before its last ``</body>`` (at its end if it has none)."""
    if not tags:
        return html
    added = ("\n".join(tags) + "\n").encode("utf-8")
    ends = [m.start() for m in re.finditer(rb"(?i)</body\s*>", html)]
    at = ends[-1] if ends else len(html)
    return html[:at] + added + html[at:]


def _bodies(entries: list[_Entry]) -> dict[str, bytes]:
    """Each entry's bytes: its text, or bytes made for an entry saved without it."""
    bodies = {e.url: e.text for e in entries if e.text is not None}
    texts: dict[str, list[synth.Part]] = {}
    for e in entries:
        if e.text is not None:
            continue
        rng = random.Random(derive_seed(0, "har", e.url))
        essence = e.mime.split(";", 1)[0].strip().lower()
        if essence in ("image/gif", "image/jpeg", "image/png"):
            bodies[e.url] = synth.image(essence, e.size, 1, 1, rng)[: e.size]
        elif essence.startswith("image/"):
            bodies[e.url] = rng.randbytes(e.size)
        else:
            texts[e.url] = [synth.Filler(synth.kind(essence), e.size, rng)]
    share = synth.calibrate(list(texts.values()), MEAN_LOSSLESS_RATIO) if texts else 0.0
    bodies.update({url: synth.render(parts, share) for url, parts in texts.items()})
    return bodies


ASSUMPTIONS = [
    "A HAR entry saved without its text gets its content.size in bytes, made as generated "
    "pages are (an image incompressible, text at the four sites' mean gzip ratio); https is "
    "read as http; unsuccessful responses and non-http URLs are left out; entries the HTML "
    "does not embed get a tag, embedded URLs without an entry lose theirs.",
]

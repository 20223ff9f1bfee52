"""Application-layer transforms of a page (paper 003 section 4.1): each takes a ``Page``
and gives a new one whose bytes really changed.

- Dynamic content compression (4.1.1): "for all fixed fidelity data we applied lossless
  data compression, using gzip and for all variable fidelity data we applied lossy data
  compression, by reducing the depth level of images". Lossless is real gzip, served
  with ``Content-Encoding: gzip``. A depth reduction needs the decoded pixels of a real
  image; synthetic images have none, so the lossy step is modelled as what Table 3
  measures, a size reduction: each image keeps its format header and trailer and loses
  payload down to the site's ratio. The bytes stand for a reduced image; they are not
  a decodable one.
- A revisit (4.1.3), for CHK caching and delta encoding: the page some minutes later,
  with some objects edited a little, a few replaced, most unchanged, and some served
  again under a second URL (response aliasing).
- ``compressibility``: Table 3 measured on a page.
"""

import math
import random
import re
from dataclasses import replace

from wwanlab.core.errors import UsageError
from wwanlab.web.page import FIXED, VARIABLE, Page, WebObject
from wwanlab.web.pages import synth
from wwanlab.web.pages.markup import rewrite
from wwanlab.web.pages.tables import KB, SITES, Compressibility, lossy_ratio

IDENTITY = "identity"
GZIP = "gzip"


def compress_lossless(page: Page) -> Page:
    """Every fixed-fidelity object not yet encoded, the main document included, gzipped
    (level ``synth.GZIP_LEVEL``) and served with ``encoding="gzip"``."""

    def gzipped(obj: WebObject) -> WebObject:
        if obj.fidelity != FIXED or obj.encoding != IDENTITY:
            return obj
        return replace(obj, body=synth.gzip_body(obj.body), encoding=GZIP)

    return replace(page, main=gzipped(page.main), objects=tuple(map(gzipped, page.objects)))


def ratio_for(site_or_ratio: str | float) -> float:
    """The lossy size ratio: Table 3's for a site (its mean for the other Table 1 sites),
    or a ratio in (0, 1] given as is."""
    if isinstance(site_or_ratio, str):
        if site_or_ratio not in SITES:
            raise UsageError(f"unknown site {site_or_ratio!r}; known: {', '.join(SITES)}")
        return lossy_ratio(site_or_ratio)
    if not 0 < site_or_ratio <= 1:
        raise UsageError(f"lossy size ratio must be in (0, 1], not {site_or_ratio}")
    return float(site_or_ratio)


def _framing(obj: WebObject) -> tuple[int, int]:
    """Bytes of an image's header and trailer that a reduction keeps."""
    body = obj.body
    if body.startswith(b"GIF8"):
        return 13, int(body.endswith(synth.GIF_TRAILER))
    if body.startswith(b"\xff\xd8"):
        return 20, 2 if body.endswith(synth.JPEG_TRAILER) else 0
    if body.startswith(synth.PNG_SIGNATURE):
        return 33, len(synth.PNG_IEND) if body.endswith(synth.PNG_IEND) else 0
    return 0, 0


def reduce_image(obj: WebObject, ratio: float) -> WebObject:
    """``obj`` cut to ``ratio`` of its size, header and trailer kept (never below them)."""
    head, tail = _framing(obj)
    body = obj.body
    if head + tail >= len(body):
        return obj
    size = max(head + tail, round(len(body) * ratio))
    kept = body[: size - tail] + (body[-tail:] if tail else b"")
    return replace(obj, body=kept)


def compress_lossy(page: Page, site_or_ratio: str | float) -> Page:
    """Every image (variable fidelity) not yet encoded reduced to the size ratio Table 3
    reports for the site (or to the ratio given)."""
    ratio = ratio_for(site_or_ratio)

    def reduced(obj: WebObject) -> WebObject:
        if obj.fidelity != VARIABLE or obj.encoding != IDENTITY:
            return obj
        return reduce_image(obj, ratio)

    return replace(page, objects=tuple(map(reduced, page.objects)))


def compress_full(page: Page, site_or_ratio: str | float) -> Page:
    """Full compression (Table 4): lossless and lossy together."""
    return compress_lossless(compress_lossy(page, site_or_ratio))


def compressibility(page: Page, site_or_ratio: str | float) -> Compressibility:
    """Table 3's row measured on ``page``: KB of fixed-fidelity content before and after
    gzip, of images before and after the lossy reduction, and the total compression."""
    before = [page.main, *page.objects]
    after = [(compressed := compress_full(page, site_or_ratio)).main, *compressed.objects]
    sums = {FIXED: [0, 0], VARIABLE: [0, 0]}
    for old, new in zip(before, after, strict=True):
        sums[old.fidelity][0] += len(old.body)
        sums[old.fidelity][1] += len(new.body)
    total, total_after = sum(s[0] for s in sums.values()), sum(s[1] for s in sums.values())
    saved = 100 * (1 - total_after / total) if total else 0.0
    (fixed, lossless), (variable, lossy) = sums[FIXED], sums[VARIABLE]
    return Compressibility(fixed / KB, lossless / KB, variable / KB, lossy / KB, saved)


# Revisit (section 4.1.3): "websites like cnn.com and bbc.co.uk, where the content changes
# incrementally, but frequently"; section 2.2: "in CNN content changes within minutes". The
# paper gives no shares; these are chosen once (ASSUMPTIONS).
REVISIT_EDITED = 0.25  # of fixed-fidelity objects besides the HTML (always edited): edited
EDIT_FRACTION = 0.03  # of an edited object's bytes rewritten ("a few percent")
EDIT_RUN = (8, 40)  # characters per edit: a word to a headline
REVISIT_REPLACED = 0.05  # of embedded objects: new URL, new bytes (a rotated ad, a new photo)
REVISIT_ALIASED = 0.05  # of embedded objects: also embedded under a second URL, same bytes
REVISIT_AFTER = 600.0  # s from the end of the first visit to the revisit: "within minutes"
EDITABLE = re.compile(rb"[A-Za-z0-9 ]{8,}")  # runs of words; entities and markup untouched
TAG = re.compile(rb"<[^>]*>")


def revisit(
    page: Page,
    rng: random.Random,
    *,
    edited: float = REVISIT_EDITED,
    edit_fraction: float = EDIT_FRACTION,
    replaced: float = REVISIT_REPLACED,
    aliased: float = REVISIT_ALIASED,
    changed: float | None = None,
) -> Page:
    """``page`` some minutes later. The HTML is always edited; ``ceil(edited * n)`` of the
    other n fixed-fidelity objects get ``edit_fraction`` of their bytes rewritten in
    place; ``ceil(replaced * m)`` of the m embedded objects are replaced by new ones
    under new URLs; ``ceil(aliased * m)`` others are embedded a second time under a URL
    with a query string, same bytes; the rest are byte for byte the same. Edited and
    replaced static objects get ``changed`` as their modification time (web.cache) when
    given. Works on unencoded pages (compress after revisiting)."""
    if any(o.encoding != IDENTITY for o in [page.main, *page.objects]):
        raise ValueError("revisit a page before compressing it")
    count = len(page.objects)
    order = list(range(count))
    rng.shuffle(order)
    n_replaced = math.ceil(replaced * count)
    n_aliased = min(count - n_replaced, math.ceil(aliased * count))
    replacing = set(order[:n_replaced])
    aliasing = set(order[n_replaced : n_replaced + n_aliased])
    text = [i for i in order[n_replaced:] if page.objects[i].fidelity == FIXED]
    editing = set(text[: math.ceil(edited * len(text))])
    changes: dict[str, list[str]] = {}
    objects: list[WebObject] = []
    for i, obj in enumerate(page.objects):
        if i in replacing:
            new = _stamped(_replacement(obj, rng), changed)
            changes[obj.url] = [new.url]
            objects.append(new)
            continue
        current = _stamped(_edit(obj, edit_fraction, rng), changed) if i in editing else obj
        objects.append(current)
        if i in aliasing:
            alias = replace(current, url=_with_query(obj.url, rng))
            changes[obj.url] = [obj.url, alias.url]
            objects.append(alias)
    html = rewrite(page.main.body, page.main.url, changes)
    main = _edit(replace(page.main, body=html), edit_fraction, rng)
    return Page(page.name, main, tuple(objects))


def _stamped(obj: WebObject, changed: float | None) -> WebObject:
    """``obj`` modified at ``changed`` if it is static content and a time is given."""
    if changed is None or obj.modified is None:
        return obj
    return replace(obj, modified=changed)


def _with_query(url: str, rng: random.Random) -> str:
    """``url`` with an ad server's cache-busting query (``?ord=`` and a random number)."""
    return f"{url}{'&' if '?' in url else '?'}ord={rng.randrange(10**9, 10**10)}"


def _renamed(url: str, rng: random.Random) -> str:
    """A new URL on the same host and folder: the last path segment gets a suffix."""
    head, _, query = url.partition("?")
    stem, dot, extension = head.rpartition(".")
    if not dot or "/" in extension:
        stem, extension = head, ""
    suffix = f"-{rng.randrange(16**6):06x}"
    return stem + suffix + (f".{extension}" if extension else "") + (f"?{query}" if query else "")


def _replacement(obj: WebObject, rng: random.Random) -> WebObject:
    """A new object of the same type and size under a new URL: an image's payload drawn
    anew behind its header, a text with its letters permuted (same structure and
    compressibility, other bytes)."""
    if obj.fidelity == VARIABLE:
        head, tail = _framing(obj)
        if head + tail >= len(obj.body):
            head, tail = 0, 0
        middle = rng.randbytes(max(0, len(obj.body) - head - tail))
        body = obj.body[:head] + middle + (obj.body[-tail:] if tail else b"")
    else:
        lower = list(b"abcdefghijklmnopqrstuvwxyz")
        upper = list(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        rng.shuffle(lower)
        rng.shuffle(upper)
        table = bytes.maketrans(
            b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", bytes(lower + upper)
        )
        body = obj.body.translate(table)
    return replace(obj, url=_renamed(obj.url, rng), body=body)


def _edit(obj: WebObject, fraction: float, rng: random.Random) -> WebObject:
    """``obj`` with about ``fraction`` of its bytes rewritten, in runs of ``EDIT_RUN``
    characters of words, some longer or shorter than what they replace; in HTML only
    text between tags is touched, so the references stay."""
    body = obj.body
    spans = _editable(body, html=obj.content_type.startswith("text/html"))
    budget = round(len(body) * fraction)
    weights = [end - start for start, end in spans]
    if not spans or budget == 0:
        return obj
    edits: list[tuple[int, int, bytes]] = []
    taken = 0
    while taken < budget:
        start, end = rng.choices(spans, weights=weights)[0]
        length = min(rng.randint(*EDIT_RUN), end - start)
        at = rng.randint(start, end - length)
        new = _words(rng.randint(length // 2, length * 3 // 2), rng)
        edits.append((at, at + length, new))
        taken += length
    out: list[bytes] = []
    done = 0
    for at, stop, new in sorted(edits):
        if at < done:
            continue  # overlaps an earlier edit
        out += [body[done:at], new]
        done = stop
    out.append(body[done:])
    return replace(obj, body=b"".join(out))


def _editable(body: bytes, *, html: bool) -> list[tuple[int, int]]:
    """Spans of word runs that an edit may rewrite: outside tags for HTML."""
    if not html:
        return [m.span() for m in EDITABLE.finditer(body)]
    spans = []
    done = 0
    for tag in [*TAG.finditer(body), None]:
        stop = tag.start() if tag else len(body)
        spans += [(done + m.start(), done + m.end()) for m in EDITABLE.finditer(body[done:stop])]
        done = tag.end() if tag else stop
    return spans


def _words(n: int, rng: random.Random) -> bytes:
    """``n`` bytes of vocabulary words: the new text of an edit."""
    words: list[str] = []
    while sum(map(len, words)) + len(words) < n + 1:
        words.append(rng.choice(synth.VOCABULARY))
    return " ".join(words)[:n].encode("ascii")


ASSUMPTIONS = [
    "Lossy compression (section 4.1.1, 'reducing the depth level of images') is modelled as "
    "a size reduction to Table 3's ratio per site: synthetic images have no pixels to "
    "requantize; a reduced image keeps its header and trailer and is not decodable.",
    f"gzip level {synth.GZIP_LEVEL} on every fixed-fidelity object, however small (the "
    "paper compresses 'all fixed fidelity data').",
    f"A revisit edits the HTML and {REVISIT_EDITED:.0%} of the other text objects "
    f"({EDIT_FRACTION:.0%} of their bytes, runs of {EDIT_RUN[0]}-{EDIT_RUN[1]} characters), "
    f"replaces {REVISIT_REPLACED:.0%} of the objects and aliases {REVISIT_ALIASED:.0%} under "
    "a second URL (section 4.1.3 names incremental change and response aliasing, no shares); "
    f"it comes {REVISIT_AFTER / 60:g} minutes after the first visit ended (section 2.2: CNN "
    "'changes within minutes'), its changes made half-way between.",
]

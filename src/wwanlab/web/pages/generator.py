"""A concrete page for one of Table 1's sites: real bytes with the row's statistics.

For a site and a seed, ``generate`` builds a main HTML document and its embedded
objects so that the page has exactly the row's object count (the main document
included), total bytes, largest object and number of domains (``tables``); sizes
follow ``sizes``; the fixed-fidelity share of the bytes and the gzip ratio of the
fixed-fidelity content follow Table 3 (its mean for the other six sites); images are
incompressible (``synth``). The same site and seed give the same bytes.
"""

import functools
import random
from dataclasses import dataclass

from wwanlab.core.errors import UsageError
from wwanlab.core.rng import RngStreams
from wwanlab.web.page import Page, WebObject
from wwanlab.web.pages import sizes as sizing
from wwanlab.web.pages import synth
from wwanlab.web.pages.hosts import AD, AD_OBJECTS, BEACON, IMAGES, MAIN, ROLES, SCRIPT, place
from wwanlab.web.pages.markup import embedding_tag
from wwanlab.web.pages.tables import SITES, fixed_share, lossless_ratio

# Host names with their role, the main document's first. CNN's are Figure 3's where it
# spells them (www2.cnn.com, i2.cnn.net, ads.web.aol.com, ping.nnselect.com); its elided
# Akamai name and its server known only by an IP address get invented names. The other
# sites' names are invented under .example (the paper names none): a main server, then
# image, script and advertising servers as pages of the period used them. Roles
# (``hosts``): MAIN serves the HTML and, where the site has no SCRIPT host, its style
# sheets and scripts; IMAGES (the site's image servers and CDN) share its images; an AD
# server serves ``hosts.AD_OBJECTS`` images, a BEACON (counter, ping) one.
HOSTS_ROLES: dict[str, tuple[tuple[str, str], ...]] = {
    "altavista": (("www.altavista.example", MAIN), ("img.altavista.example", IMAGES)),
    "mail": (
        ("www.mail.example", MAIN), ("img.mail.example", IMAGES),
        ("ads.adserver.example", AD), ("stats.counter.example", BEACON),
    ),
    "yahoo": (
        ("www.yahoo.example", MAIN), ("us.i1.yimg.example", IMAGES),
        ("us.js2.yimg.example", SCRIPT), ("us.a1.yimg.example", AD),
        ("ads.yahoo.example", AD), ("geo.yahoo.example", BEACON),
    ),
    "go": (("www.go.example", MAIN), ("img.go.example", IMAGES), ("ads.go.example", AD)),
    "bbc": (("www.bbc.example", MAIN), ("newsimg.bbc.example", IMAGES)),
    "amazon": (
        ("www.amazon.example", MAIN), ("images.amazon.example", IMAGES),
        ("g-images.amazon.example", IMAGES),
    ),
    "aol": (
        ("www.aol.example", MAIN), ("cdn.aol.example", IMAGES), ("img.aol.example", IMAGES),
        ("js.aol.example", SCRIPT), ("ads.web.aol.example", AD), ("stats.aol.example", BEACON),
        ("ar.atwola.example", AD), ("a1.akamai.example", IMAGES),
    ),
    "sourceforge": (
        ("sourceforge.example", MAIN), ("images.sourceforge.example", IMAGES),
        ("ads.osdn.example", AD), ("c.sf.example", BEACON), ("pixel.counter.example", BEACON),
    ),
    "fortunecity": (("www.fortunecity.example", MAIN),),
    "cnn": (
        ("www2.cnn.com", MAIN), ("i2.cnn.net", IMAGES), ("ads.web.aol.com", AD),
        ("a1.deploy.akamai.example", IMAGES), ("ping.nnselect.com", BEACON),
        ("svcs.cnn.example", BEACON),
    ),
}  # fmt: skip
HOSTS: dict[str, tuple[str, ...]] = {
    site: tuple(name for name, _ in hosts) for site, hosts in HOSTS_ROLES.items()
}

CSS_SHARE = 1 / 3  # of the fixed-fidelity objects besides the HTML; the rest is JavaScript
SMALL_IMAGE = 2000  # bytes: under it an image is a GIF (or PNG), over it mostly a JPEG
SMALL_GIF_SHARE = 0.85  # of small images (buttons, spacers, icons); the rest PNG
LARGE_JPEG_SHARE = 0.7  # of large images (photos); the rest GIF
PAGES_CACHED = 64  # about 0.1-0.2 MB each
# Embedded objects are static files, served with Last-Modified and ETag; the HTML is
# generated per request, with neither (Wills and Mikhailov, WWW8 1999: HTML often carries
# no validator, embedded images are reused across versions of a page). Their age is
# assumed; any age over ten times the revisit interval gives the same browser-cache
# outcome (RFC 9111 4.2.2's heuristic lifetime, a tenth of the age, then outlasts it).
STATIC_AGE = 7 * 86400.0  # s before the cache clock's 0
MAX_PIXELS = (468, 300)  # image width, height drawn up to these (468: the banner ad width)


@dataclass(frozen=True, slots=True)
class _Object:
    url: str
    content_type: str
    size: int
    width: int = 0
    height: int = 0


@functools.lru_cache(maxsize=PAGES_CACHED)
def generate(site: str, seed: int, spread: str = ROLES) -> Page:
    """The page of Table 1's ``site`` for ``seed``, its objects placed on hosts by
    ``spread`` (``hosts``; kept for reuse: a page is immutable, and a reproduction
    downloads the same page in many configurations)."""
    row = SITES.get(site)
    if row is None:
        raise UsageError(f"unknown site {site!r}; known: {', '.join(SITES)}")
    streams = RngStreams(seed)
    rng = streams.stream("web-page", site)
    sizes = sizing.allocate(row.count, row.total_bytes, row.max_bytes, rng)
    fixed = sizing.split(sizes, round(fixed_share(site) * row.total_bytes), row.max_bytes)
    main_size, css_js, images = _classify(sizes, fixed, rng)
    objects = _place(site, css_js, images, spread, rng)
    head = [o for o in objects if o.content_type == "text/css"]
    body = [o for o in objects if o.content_type != "text/css"]
    rng.shuffle(body)
    ordered = head + body
    html = _document(site, head, body, main_size, streams.stream("web-page", site, "html"))
    texts = {
        o.url: [
            synth.Filler(
                synth.kind(o.content_type), o.size, streams.stream("web-page", site, o.url)
            )
        ]
        for o in ordered
        if not o.content_type.startswith("image/")
    }
    share = synth.calibrate([html, *texts.values()], lossless_ratio(site))
    main_url = f"http://{HOSTS[site][0]}/"
    main = WebObject(main_url, "text/html", synth.render(html, share))
    served = []
    for o in ordered:
        if o.url in texts:
            body_bytes = synth.render(texts[o.url], share)
        else:
            image_rng = streams.stream("web-page", site, o.url)
            body_bytes = synth.image(o.content_type, o.size, o.width, o.height, image_rng)
        served.append(WebObject(o.url, o.content_type, body_bytes, modified=-STATIC_AGE))
    return Page(site, main, tuple(served))


def _classify(
    sizes: list[int], fixed: list[bool], rng: random.Random
) -> tuple[int, list[tuple[str, int]], list[tuple[str, int]]]:
    """The main document's size (the largest fixed-fidelity object), then the other
    objects as (content type, size): style sheets and scripts, images."""
    text = sorted((s for s, f in zip(sizes, fixed, strict=True) if f), reverse=True)
    css_js = [
        ("text/css" if rng.random() < CSS_SHARE else "application/x-javascript", s)
        for s in text[1:]
    ]
    images = []
    for size in (s for s, f in zip(sizes, fixed, strict=True) if not f):
        if size < SMALL_IMAGE:
            kind = "image/gif" if rng.random() < SMALL_GIF_SHARE else "image/png"
        else:
            kind = "image/jpeg" if rng.random() < LARGE_JPEG_SHARE else "image/gif"
        images.append((kind, size))
    return text[0], css_js, images


EXTENSION = {
    "text/css": ("css", "css"),
    "application/x-javascript": ("js", "js"),
    "image/gif": ("images", "gif"),
    "image/jpeg": ("images", "jpg"),
    "image/png": ("images", "png"),
}


def _place(
    site: str,
    css_js: list[tuple[str, int]],
    images: list[tuple[str, int]],
    spread: str,
    rng: random.Random,
) -> list[_Object]:
    """Each embedded object on a host by ``spread`` (``hosts.place``), with a path of its
    type."""
    hosts = HOSTS[site]
    typed = css_js + images
    roles = [role for _, role in HOSTS_ROLES[site]]
    where = place([k for k, _ in typed], [s for _, s in typed], roles, spread, rng)
    objects = []
    for i, ((content_type, size), host) in enumerate(zip(typed, where, strict=True)):
        folder, extension = EXTENSION[content_type]
        word = rng.choice(synth.VOCABULARY)
        url = f"http://{hosts[host]}/{folder}/{word}{i}.{extension}"
        if content_type.startswith("image/"):
            width, height = (rng.randint(1, m) for m in MAX_PIXELS)
            objects.append(_Object(url, content_type, size, width, height))
        else:
            objects.append(_Object(url, content_type, size))
    return objects


DOCTYPE = '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN">\n'


def _document(
    site: str, head: list[_Object], body: list[_Object], size: int, rng: random.Random
) -> list[synth.Part]:
    """The main document's parts, ``size`` bytes once rendered: the style sheets in the
    head, the scripts and images in the body with text before each and at the end."""
    skeleton = [f"{DOCTYPE}<html><head><title>{site}</title>\n"]
    skeleton += [embedding_tag(o.content_type, o.url) + "\n" for o in head]
    skeleton.append("</head><body>\n")
    tags = []
    for o in body:
        if o.content_type.startswith("image/"):
            tags.append(f'<img src="{o.url}" width="{o.width}" height="{o.height}" alt="">\n')
        else:
            tags.append(embedding_tag(o.content_type, o.url) + "\n")
    end = "</body></html>\n"
    room = size - sum(map(len, skeleton)) - sum(map(len, tags)) - len(end)
    if room < 0:
        raise ValueError(f"{site}: the HTML ({size} bytes) cannot hold its {len(tags)} tags")
    weights = [rng.random() for _ in range(len(tags) + 1)]
    cuts = [round(room * sum(weights[: i + 1]) / sum(weights)) for i in range(len(weights))]
    lengths = [b - a for a, b in zip([0, *cuts[:-1]], cuts, strict=True)]
    parts: list[synth.Part] = list(skeleton)
    for tag, length in zip([*tags, end], lengths, strict=True):
        parts += [synth.Filler("html", length, random.Random(rng.getrandbits(64))), tag]
    return parts


ASSUMPTIONS = [
    f"Object sizes are lognormal with shape {sizing.SIGMA} for every site (chosen so that "
    "CNN has over 60% of its objects under 1 KB and over 70% under 2 KB, sections 3 and "
    f"4.1.2), at least {sizing.MIN_OBJECT} bytes; sites whose other objects average about "
    "1 KB (bbc, amazon) get many objects at that floor.",
    "The largest objects are the fixed-fidelity ones (HTML, CSS, JavaScript) until Table 3's "
    "share is reached, the main HTML being the largest of them; images are the rest.",
    f"{CSS_SHARE:.0%} of the other text objects are style sheets, the rest scripts; images "
    f"under {SMALL_IMAGE} bytes are GIF ({SMALL_GIF_SHARE:.0%}) or PNG, larger ones JPEG "
    f"({LARGE_JPEG_SHARE:.0%}) or GIF.",
    "Host names: CNN's from Figure 3 (its Akamai server and the one shown as an IP address "
    "get invented names); the other sites' are invented under .example. Objects are placed "
    "by their host's role (web.pages.hosts): the HTML, style sheets and scripts on the main "
    f"(or script) server, {AD_OBJECTS} images on each ad server and one on each counter, "
    "as Figure 3's connections to CNN's servers show, the other images shared evenly by the "
    "image servers and CDNs (Krishnamurthy, Wills, Zhang 2001: CDNs serve images).",
    f"Embedded objects are static (Last-Modified {STATIC_AGE / 86400:g} days before the "
    "first visit, an ETag); the main HTML is dynamic (no validator), so a browser cache "
    "reuses the former and always fetches the latter.",
    "Text is synthesized from a markup grammar whose one knob, the share of random tokens "
    "among its words, is bisected per page so that gzip shrinks the fixed-fidelity content "
    "by Table 3's ratio; words follow Zipf's law with exponent "
    f"{synth.ZIPF_EXPONENT}.",
]

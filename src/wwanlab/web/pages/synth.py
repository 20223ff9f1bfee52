"""Content bytes for synthetic pages: text with a chosen gzip ratio, images gzip cannot shrink.

Text (HTML, CSS, JavaScript) comes from a small markup grammar per type: templates of
markup with word slots. Each slot holds either a word of a fixed vocabulary or a random
alphanumeric token, and the share of random tokens is the one knob that sets how well
the text compresses: vocabulary words repeat and gzip finds them, random tokens carry
about 6 bits a character. Every slot's coin, word and token are drawn once per object,
from the object's own stream, so a text rendered at a higher share only swaps more
words for their tokens: the compressed size grows with the share, and ``calibrate``
bisects on it.

Images are random bytes behind a real signature and header (GIF89a, JPEG/JFIF, PNG with
a valid IHDR), so a client, a proxy or tshark sees an image, and gzip cannot shrink it.
"""

import gzip
import itertools
import random
import struct
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

GZIP_LEVEL = 9  # the proxy compresses each object once; CPU is cheap next to 40 kbit/s
MIN_TOKEN, MAX_TOKEN = 3, 24  # random token length: identifiers, ids, session keys, hashes
ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
CALIBRATION_STEPS = 10  # bisection steps: 1/1024 of the share moves the ratio < 0.001


def gzip_body(body: bytes) -> bytes:
    """``body`` as a gzip member (RFC 1952), reproducible: no name, mtime 0."""
    return gzip.compress(body, compresslevel=GZIP_LEVEL, mtime=0)


# The vocabulary in rank order (most frequent first): function words, then a web
# page's words of the period.
WORDS = """
the of and to a in is for on that with as at by from it be are was this will you your
our their more than after over says said news world business sport weather travel health
science money market stocks search mail home page index top story stories video photo
gallery latest update updated today local politics election report analysis comment
opinion shop cart books music movies games deals offer price sale free new best sign
register account help about contact privacy terms advertise jobs site map section header
footer nav menu item list link title main content column left right center banner logo
image small large table row cell text bold font color style width height border margin
padding display block inline none hidden value window document function return var if
else while true false null length write open close load click submit form input button
select option year week day time people city state government president minister police
court team game win lose cup league season
"""
VOCABULARY = tuple(dict.fromkeys(WORDS.split()))

# Markup templates; "{}" is a word slot. Braces meant literally are doubled.
HTML_TEMPLATES = (
    '<div class="{}"><a href="/{}/{}.html">{} {} {}</a></div>\n',
    "<p>{} {} {} {} {} {} {} {} {} {}.</p>\n",
    '<li><a href="/{}/index.html">{} {}</a></li>\n',
    '<td class="{}" valign="top"><span>{} {} {}</span></td>\n',
    "<h3>{} {} {} {}</h3>\n",
    '<tr><td width="50%"><b>{}</b> {} {}</td></tr>\n',
)
CSS_TEMPLATES = (
    ".{}-{} {{ color: #336699; margin: 0 4px; }}\n",
    "#{} .{} {{ font-family: {}, sans-serif; padding: 2px; }}\n",
    ".{} a:hover {{ text-decoration: underline; }}\n",
    "div.{} {{ width: 100%; border: 1px solid #ccc; background: url(/{}/{}.gif); }}\n",
)
JS_TEMPLATES = (
    'var {} = document.getElementById("{}");\n',
    'function {}({}, {}) {{ return {} + "{}"; }}\n',
    'if ({}.{} == null) {{ {}.{}("{}"); }}\n',
    'document.cookie = "{}=" + escape({}) + "; path=/{}";\n',
)
# Words are drawn by Zipf's law, weight rank**-ZIPF_EXPONENT, as words of real text are;
# the exponent, steeper than English prose's 1, is chosen once so that share 0 compresses
# below Table 3's best ratio (yahoo's 0.19 on one 36 KB document) as markup-heavy pages do.
ZIPF_EXPONENT = 1.6
ZIPF_WEIGHTS = list(
    itertools.accumulate(rank**-ZIPF_EXPONENT for rank in range(1, len(VOCABULARY) + 1))
)
TEMPLATES = {"html": HTML_TEMPLATES, "css": CSS_TEMPLATES, "js": JS_TEMPLATES}
SLOTS = {kind: [t.count("{}") for t in templates] for kind, templates in TEMPLATES.items()}


def kind(content_type: str) -> str:
    """The grammar for text of ``content_type``: HTML, CSS, or JavaScript for any other."""
    essence = content_type.split(";", 1)[0].strip().lower()
    return {"text/html": "html", "text/css": "css"}.get(essence, "js")


Slot = tuple[float, str, str]
"""A word slot: its coin, its vocabulary word, its random token (taken if coin < share)."""


@dataclass(slots=True)
class Filler:
    """``length`` characters of one kind of text, drawn from ``rng`` once and rendered
    at any share of random tokens."""

    kind: str  # "html", "css" or "js"
    length: int
    rng: random.Random
    _pieces: list[tuple[str, list[Slot]]] = field(default_factory=list)  # template, slots
    _tail: list[Slot] = field(default_factory=list)

    def _slot(self) -> Slot:
        rng = self.rng
        coin = rng.random()
        word = rng.choices(VOCABULARY, cum_weights=ZIPF_WEIGHTS)[0]
        return coin, word, "".join(rng.choices(ALNUM, k=rng.randint(MIN_TOKEN, MAX_TOKEN)))

    def _draw(self) -> None:
        template = self.rng.randrange(len(TEMPLATES[self.kind]))
        slots = [self._slot() for _ in range(SLOTS[self.kind][template])]
        self._pieces.append((TEMPLATES[self.kind][template], slots))

    def render(self, share: float) -> str:
        """Whole template pieces while they fit, then plain words (inside a comment for
        CSS and JavaScript) to exactly ``length`` characters: a cut never splits a tag."""
        out: list[str] = []
        used = 0
        i = 0
        while True:
            if i == len(self._pieces):
                self._draw()
            template, slots = self._pieces[i]
            piece = template.format(*[t if c < share else w for c, w, t in slots])
            if used + len(piece) > self.length:
                break
            out.append(piece)
            used += len(piece)
            i += 1
        out.append(self._words(self.length - used, share))
        return "".join(out)

    def _words(self, n: int, share: float) -> str:
        """``n`` characters of words: the rest of a filler after its last whole piece."""
        opener, closer = ("", "") if self.kind == "html" or n < 4 else ("/*", "*/")
        room = n - len(opener) - len(closer)
        words: list[str] = []
        size = -1
        i = 0
        while size < room:
            if i == len(self._tail):
                self._tail.append(self._slot())
            coin, word, token = self._tail[i]
            words.append(token if coin < share else word)
            size += len(words[-1]) + 1
            i += 1
        return opener + " ".join(words)[:room] + closer


Part = str | Filler
"""A text object is literal markup (a string) and fillers, in order."""


def render(parts: Sequence[Part], share: float) -> bytes:
    return "".join(p if isinstance(p, str) else p.render(share) for p in parts).encode("ascii")


def calibrate(
    texts: Sequence[Sequence[Part]], ratio: float, measure: Callable[[bytes], int] | None = None
) -> float:
    """The share of random tokens at which the texts, each gzipped on its own, shrink
    to ``ratio`` of their size; the share seen nearest the target if it is out of reach."""
    size = measure or (lambda body: len(gzip_body(body)))

    def achieved(share: float) -> float:
        bodies = [render(parts, share) for parts in texts]
        return sum(size(b) for b in bodies) / max(1, sum(len(b) for b in bodies))

    low, high = 0.0, 1.0
    best, best_error = 0.0, abs(achieved(0.0) - ratio)
    for _ in range(CALIBRATION_STEPS):
        middle = (low + high) / 2
        value = achieved(middle)
        if abs(value - ratio) < best_error:
            best, best_error = middle, abs(value - ratio)
        if value < ratio:
            low = middle
        else:
            high = middle
    return best


# Image headers: the smallest real prefix of each format, and its trailer.
GIF_TRAILER = b";"  # GIF89a: the trailer block 0x3B
JPEG_TRAILER = b"\xff\xd9"  # EOI marker
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
PNG_IEND = struct.pack(">I", 0) + b"IEND" + struct.pack(">I", zlib.crc32(b"IEND"))


def image_header(content_type: str, width: int, height: int) -> tuple[bytes, bytes]:
    """The header and trailer of an image of the given type and size in pixels."""
    if content_type == "image/gif":
        # Logical screen descriptor: no global colour table, then an image descriptor.
        screen = struct.pack("<HHBBB", width, height, 0, 0, 0)
        image = b"," + struct.pack("<HHHHB", 0, 0, width, height, 0) + b"\x08"
        return b"GIF89a" + screen + image, GIF_TRAILER
    if content_type == "image/jpeg":
        app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00\x01\x01\x00"
        return b"\xff\xd8" + app0 + struct.pack(">HHBB", 1, 1, 0, 0), JPEG_TRAILER
    if content_type == "image/png":
        ihdr = b"IHDR" + struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
        chunk = struct.pack(">I", 13) + ihdr + struct.pack(">I", zlib.crc32(ihdr))
        return PNG_SIGNATURE + chunk, PNG_IEND
    raise ValueError(f"no synthetic image of type {content_type!r}")


def image(content_type: str, size: int, width: int, height: int, rng: random.Random) -> bytes:
    """An image of exactly ``size`` bytes (at least its header and trailer): a real
    header, random bytes, the format's trailer."""
    head, tail = image_header(content_type, width, height)
    return head + rng.randbytes(max(0, size - len(head) - len(tail))) + tail

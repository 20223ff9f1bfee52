"""Decodable images for the real-browser bench, each the size the page model gives it.

The page model's images are a real header around random bytes (``web.pages.synth``): the
right size on the wire, but nothing a browser can draw or a proxy can recompress. Here
each is replaced by a real picture of the same format whose encoded size is within
``SIZE_TOLERANCE`` of the model's, so that the lossy reduction of paper 003 4.1.1 acts on
the bench's pages as it would on a photograph or a button.

The picture is photo-like: a luminance and two colour-difference fields whose amplitude
spectrum falls as 1/f, the statistic natural images share (Field, J. Opt. Soc. Am. A 4,
1987), over a gentle gradient, plus a little sensor noise. Its shape and every sample are
drawn from a stream seeded by the URL, so a page gets the same bytes on every run. The
size is reached by cropping the picture: a bisection on the area, then the crops a few
pixels around the best one, a bounded number of encodings in all.

Assumptions (the paper describes none of its images): a JPEG is saved at the IJG
encoder's default quality 75, as web photographs were; a GIF or PNG is the same picture
quantized, without dithering, to the largest palette of 2**k colours that takes at most a
quarter of the file (a 64-octet spacer has 4 colours, an 11 KB GIF 256). The smallest
picture a format can hold (a 1x1 PNG is about 80 octets) is larger than a few of the
model's tiny images; those get that smallest picture, a few octets over.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import io
import math

import numpy as np
from PIL import Image

from wwanlab.web.page import WebObject

SIZE_TOLERANCE = 0.05  # of the model's size
JPEG_QUALITY = 75  # the IJG encoder's default (cjpeg -quality)
PALETTE_SHARE = 0.25  # of a GIF's or PNG's octets its palette may take at most
FIELD_CONTRAST = 40.0  # standard deviation of each 1/f field, in 8-bit levels
GRADIENT = 60.0  # levels a gradient adds across the picture
SENSOR_NOISE = 3.0  # standard deviation of the white noise, in levels
ASPECT = 3.0  # width/height drawn log-uniformly in [1/ASPECT, ASPECT]
BISECTION_STEPS = 16
NEIGHBOURHOOD = 2  # pixels each way around the bisection's crop tried after it
FORMATS = {"image/jpeg": "JPEG", "image/gif": "GIF", "image/png": "PNG"}
IMAGES_CACHED = 512  # the four pages of paper 003 have 119 images


def served_object(obj: WebObject) -> WebObject:
    """``obj``, or a decodable picture in its place if it is a GIF, JPEG or PNG."""
    if obj.content_type not in FORMATS:
        return obj
    return dataclasses.replace(obj, body=picture(obj.url, obj.content_type, len(obj.body)))


@functools.lru_cache(maxsize=IMAGES_CACHED)
def picture(url: str, content_type: str, size: int) -> bytes:
    """A picture of ``content_type`` of about ``size`` octets, the same for the same URL."""
    fmt = FORMATS[content_type]
    rng = np.random.default_rng(int.from_bytes(hashlib.sha256(url.encode()).digest()[:8]))
    aspect = ASPECT ** rng.uniform(-1, 1)
    colours = _palette_colours(size) if fmt != "JPEG" else 0
    seed = int(rng.integers(2**63))
    # Texture big enough for the crops: guess the area from a 32x32 trial, grow if short.
    area = 32 * 32 * size / len(_encode(_texture(seed, 32, 32, colours), fmt))
    while True:
        width, height = _shape(2 * area, aspect)
        full = _texture(seed, width, height, colours)
        if len(_encode(full, fmt)) >= size or area > 2**24:
            break
        area *= 4
    return _closest_crop(full, fmt, size, aspect)


def _palette_colours(size: int) -> int:
    """The largest 2**k (2 to 256) colours whose palette, 3 octets each, fits the share."""
    bits = int(math.log2(max(2.0, PALETTE_SHARE * size / 3)))
    return 1 << min(8, max(1, bits))


def _shape(area: float, aspect: float) -> tuple[int, int]:
    return max(1, round(math.sqrt(area * aspect))), max(1, round(math.sqrt(area / aspect)))


def _texture(seed: int, width: int, height: int, colours: int) -> Image.Image:
    """The picture of ``seed`` at ``width`` x ``height``: RGB, or P with ``colours``."""
    rng = np.random.default_rng(seed)
    luma, red, blue = (_pink(rng, height, width) for _ in range(3))
    y, x = np.mgrid[0:height, 0:width] / max(width, height, 2)
    angle = rng.uniform(0, 2 * math.pi)
    ramp = GRADIENT * (math.cos(angle) * x + math.sin(angle) * y)
    planes = np.stack([luma + 0.4 * red, luma - 0.2 * red - 0.2 * blue, luma + 0.4 * blue], -1)
    rgb = 128 + FIELD_CONTRAST * planes + ramp[..., None]
    rgb += rng.normal(0, SENSOR_NOISE, rgb.shape)
    image = Image.fromarray(np.clip(rgb, 0, 255).astype(np.uint8))
    return image.quantize(colours, dither=Image.Dither.NONE) if colours else image


def _pink(rng: np.random.Generator, height: int, width: int) -> np.ndarray:
    """A field of unit variance whose amplitude spectrum falls as 1/f."""
    f = np.hypot(np.fft.fftfreq(height)[:, None], np.fft.rfftfreq(width)[None, :])
    f[0, 0] = 1.0
    spectrum = (rng.normal(size=f.shape) + 1j * rng.normal(size=f.shape)) / f
    spectrum[0, 0] = 0.0
    field = np.fft.irfft2(spectrum, s=(height, width))
    spread = field.std()
    return field / spread if spread > 0 else field


def _encode(image: Image.Image, fmt: str) -> bytes:
    out = io.BytesIO()
    if fmt == "JPEG":
        image.save(out, fmt, quality=JPEG_QUALITY)
    else:
        image.save(out, fmt)
    return out.getvalue()


def _closest_crop(full: Image.Image, fmt: str, size: int, aspect: float) -> bytes:
    """The top-left crop of ``full`` whose encoding is nearest ``size`` octets."""
    tried: dict[tuple[int, int], bytes] = {}

    def encoded(width: int, height: int) -> bytes:
        key = (min(max(1, width), full.width), min(max(1, height), full.height))
        if key not in tried:
            tried[key] = _encode(full.crop((0, 0, *key)), fmt)
        return tried[key]

    low, high = 0.0, math.log(full.width * full.height)
    for _ in range(BISECTION_STEPS):
        middle = (low + high) / 2
        if len(encoded(*_shape(math.exp(middle), aspect))) < size:
            low = middle
        else:
            high = middle
    width, height = _shape(math.exp(high), aspect)
    for dw in range(-NEIGHBOURHOOD, NEIGHBOURHOOD + 1):
        for dh in range(-NEIGHBOURHOOD, NEIGHBOURHOOD + 1):
            encoded(width + dw, height + dh)
    return min(tried.values(), key=lambda body: abs(len(body) - size))

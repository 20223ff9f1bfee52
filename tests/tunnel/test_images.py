"""Lossy image recompression: smaller, same format and size, None for all else."""

import io
import struct
import time
import warnings
import zlib

import numpy as np
import pytest
from PIL import Image

from wwanlab.tunnel.images import (
    DEFAULT_QUALITY,
    EXIF_ORIENTATION,
    MAX_BODY,
    PALETTE_COLOURS,
    recompress,
)

ORIGINAL_JPEG_QUALITY = 75  # the IJG encoder's default, what web photographs were saved at


def photo(width: int = 320, height: int = 240, seed: int = 7) -> Image.Image:
    """A gradient in three colours with noise of 10 levels: something a JPEG must spend
    bits on."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width] / max(width, height)
    base = np.stack([60 + 150 * x, 40 + 160 * y, 200 - 60 * (x + y)], -1)
    pixels = base + rng.normal(0, 10, (height, width, 3))
    return Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))


def encode(image: Image.Image, fmt: str, **options: object) -> bytes:
    out = io.BytesIO()
    image.save(out, fmt, **options)
    return out.getvalue()


def decode(body: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(body))
    image.load()
    return image


def png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png(width: int, height: int, idat: bytes, colour_type: int = 2) -> bytes:
    """A PNG built by hand (RFC 2083): signature, IHDR claiming the size, IDAT, IEND."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, colour_type, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + png_chunk(b"IHDR", ihdr)
        + png_chunk(b"IDAT", idat)
        + png_chunk(b"IEND", b"")
    )


def test_a_photo_jpeg_at_the_default_quality_is_a_third_of_its_size_or_less() -> None:
    original = encode(photo(), "JPEG", quality=ORIGINAL_JPEG_QUALITY)
    smaller = recompress(original, "image/jpeg")
    assert smaller is not None
    assert len(smaller) <= len(original) / 3  # measured 0.21
    image = decode(smaller)
    assert (image.format, image.size, image.mode) == ("JPEG", (320, 240), "RGB")
    # Still the same picture: the mean error per sample stays within the noise's level.
    error = np.abs(np.asarray(image, float) - np.asarray(photo(), float)).mean()
    assert error < 10


def test_the_quality_is_the_one_asked_for() -> None:
    original = encode(photo(), "JPEG", quality=95)
    low, high = recompress(original, "image/jpeg", 20), recompress(original, "image/jpeg", 60)
    assert low is not None and high is not None
    assert len(low) < len(high) < len(original)
    assert DEFAULT_QUALITY == 30


def test_a_truecolour_png_becomes_a_palette_png_of_the_stated_depth() -> None:
    original = encode(photo(), "PNG")
    smaller = recompress(original, "image/png")
    assert smaller is not None
    assert len(smaller) <= len(original) / 4  # measured 0.15
    image = decode(smaller)
    assert (image.format, image.size, image.mode) == ("PNG", (320, 240), "P")
    assert len(image.getcolors() or []) <= PALETTE_COLOURS


def test_a_256_colour_gif_is_cut_to_the_palette_and_stays_a_gif() -> None:
    original = encode(photo().quantize(256), "GIF")
    smaller = recompress(original, "image/gif")
    assert smaller is not None
    assert len(smaller) <= len(original) / 2  # measured 0.32
    image = decode(smaller)
    assert (image.format, image.size) == ("GIF", (320, 240))
    assert len(image.convert("RGB").getcolors() or []) <= PALETTE_COLOURS


def test_the_palette_is_the_size_asked_for() -> None:
    original = encode(photo().quantize(256), "GIF")
    few, more = (
        recompress(original, "image/gif", colours=4),
        recompress(original, "image/gif", colours=64),
    )
    assert few is not None and more is not None
    assert len(decode(few).convert("RGB").getcolors() or []) <= 4
    assert 16 < len(decode(more).convert("RGB").getcolors() or []) <= 64
    assert len(few) < len(more) < len(original)


@pytest.mark.parametrize(("quality", "colours"), [(0, 16), (101, 16), (30, 1), (30, 257)])
def test_settings_out_of_range_are_refused(quality: int, colours: int) -> None:
    with pytest.raises(ValueError, match="not in"):
        recompress(encode(photo(), "PNG"), "image/png", quality, colours)


def test_a_gif_keeps_its_transparent_pixels_exactly() -> None:
    noise = np.random.default_rng(1).integers(0, 256, (100, 120, 3), dtype=np.uint8)
    original = encode(Image.fromarray(noise).quantize(64), "GIF", transparency=5)
    smaller = recompress(original, "image/gif")
    assert smaller is not None
    before = np.asarray(decode(original).convert("RGBA"))[..., 3] == 0
    after = np.asarray(decode(smaller).convert("RGBA"))[..., 3] == 0
    assert before.any()
    assert (before == after).all()


def test_a_png_keeps_its_alpha_channel() -> None:
    pixels = np.asarray(photo().convert("RGBA")).copy()
    pixels[:50, :50, 3] = 0
    smaller = recompress(encode(Image.fromarray(pixels), "PNG"), "image/png")
    assert smaller is not None
    alpha = decode(smaller).convert("RGBA").getchannel("A")
    assert alpha.getpixel((10, 10)) == 0
    assert alpha.getpixel((100, 100)) == 255


def test_a_jpeg_keeps_its_orientation() -> None:
    exif = Image.Exif()
    exif[EXIF_ORIENTATION] = 6  # rotate 90 degrees clockwise to display
    original = encode(photo(), "JPEG", quality=90, exif=exif.tobytes())
    smaller = recompress(original, "image/jpeg")
    assert smaller is not None
    assert decode(smaller).getexif().get(EXIF_ORIENTATION) == 6


def test_an_animated_gif_is_left_alone() -> None:
    frames = [photo(seed=s).quantize(256) for s in range(3)]
    original = encode(frames[0], "GIF", save_all=True, append_images=frames[1:], duration=100)
    assert getattr(decode(original), "n_frames", 1) == 3
    assert recompress(original, "image/gif") is None


def test_an_image_not_made_smaller_is_none() -> None:
    tiny = encode(Image.new("P", (1, 1)), "GIF")
    assert recompress(tiny, "image/gif") is None


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (encode(photo(), "JPEG", quality=90)[:3000], "image/jpeg"),  # truncated
        (np.random.default_rng(3).bytes(5000), "image/jpeg"),  # not an image
        (encode(photo(), "PNG"), "image/jpeg"),  # a PNG declared a JPEG: no change of format
        (encode(photo(), "JPEG", quality=90), "text/html"),  # not an image type
        (encode(photo(), "BMP"), "image/bmp"),  # a type it does not reduce
    ],
    ids=["truncated", "random-bytes", "wrong-type", "not-image-type", "bmp"],
)
def test_what_is_not_a_decodable_image_of_its_type_is_none(body: bytes, content_type: str) -> None:
    assert recompress(body, content_type) is None


def test_the_declared_type_may_carry_parameters() -> None:
    original = encode(photo(), "JPEG", quality=90)
    assert recompress(original, "Image/JPEG; charset=binary") is not None


def test_a_body_over_the_bound_is_not_decoded() -> None:
    padded = encode(photo(), "JPEG", quality=90)
    padded += b"\0" * (MAX_BODY + 1 - len(padded))  # data after EOI: a decoder ignores it
    assert decode(padded).size == (320, 240)
    assert recompress(padded, "image/jpeg") is None


def test_a_header_claiming_ten_gigapixels_is_none_at_once_and_silently() -> None:
    bomb = png(100_000, 100_000, zlib.compress(b"\0" * 1000))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning that escaped would fail the test
        start = time.perf_counter()
        assert recompress(bomb, "image/png") is None
        assert time.perf_counter() - start < 0.1


def test_a_bomb_under_pillows_own_guard_is_refused_before_decoding() -> None:
    # 4100 x 4100 grey pixels: over our bound, under Pillow's, 16 KB of PNG; decoding and
    # quantizing it would take seconds and 64 MiB.
    rows = b"\0" * (4100 * 4101)
    bomb = png(4100, 4100, zlib.compress(rows, 9), colour_type=0)
    assert Image.open(io.BytesIO(bomb)).size == (4100, 4100)
    start = time.perf_counter()
    assert recompress(bomb, "image/png") is None
    assert time.perf_counter() - start < 0.1

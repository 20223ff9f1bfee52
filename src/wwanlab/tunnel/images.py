"""Lossy recompression of images, paper 003's reduction of variable-fidelity content.

Section 4.1.1 splits a page into fixed-fidelity content (HTML, CSS, JS: lossless
compression only) and variable-fidelity content (images), which the paper's proxy
shrinks "by reducing the depth level of images"; Table 3 gives what that saved per site
(images to 0.45-0.78 of their size). Here a JPEG is re-encoded at a low quality and a
GIF or PNG has its palette cut to a few colours. The format never changes: the browser
gets what the Content-Type declares, a GIF stays a GIF. Animations are left alone (a
frame-by-frame reduction would have to keep every frame's timing and disposal).

The input comes from any server on the Internet, so it is bounded before it is decoded:
its size, then its pixel count read from the header (a few octets can claim a picture of
gigapixels: a decompression bomb). Every failure, Pillow's own bomb guard included, is
``None``: the caller forwards the original.
"""

from __future__ import annotations

import io
import warnings

from PIL import Image

# Paper 003 4.1.1 gives no quality. 30 is well below the IJG encoder's default 75 (the
# quality web photos were saved at), the "low fidelity" end a transcoding proxy offers.
DEFAULT_QUALITY = 30
# Colours kept in a GIF or PNG: 4 bits of depth, down from 8 ("reducing the depth level",
# 4.1.1); a palette of 16 is what 4-bit displays of the era showed.
PALETTE_COLOURS = 16
MAX_BODY = 8 * 1024 * 1024  # octets: no web image of paper 003's pages is near it
# Pixels decoded at most: 4096 x 4096, 64 MiB as RGBA, a bound on the server's memory per
# image far below Pillow's own guard (89 million pixels).
MAX_PIXELS = 4096 * 4096

FORMATS = {"image/jpeg": "JPEG", "image/gif": "GIF", "image/png": "PNG"}
JPEG_MODES = ("L", "RGB", "CMYK")  # what the JPEG encoder takes as it is
EXIF_ORIENTATION = 0x0112  # TIFF tag 274: the one EXIF field that changes how it displays


def recompress(
    body: bytes,
    content_type: str,
    quality: int = DEFAULT_QUALITY,
    colours: int = PALETTE_COLOURS,
) -> bytes | None:
    """``body`` re-encoded smaller in the format ``content_type`` declares (JPEG at
    ``quality``, GIF and PNG cut to ``colours``, 2 to 256), or None when it would not be
    smaller, is not a decodable image of that type, is animated or is out of bounds."""
    if not (1 <= quality <= 100 and 2 <= colours <= 256):
        raise ValueError(f"quality {quality} not in 1..100 or colours {colours} not in 2..256")
    fmt = FORMATS.get(content_type.split(";", 1)[0].strip().lower())
    if fmt is None or len(body) > MAX_BODY:
        return None
    with warnings.catch_warnings():
        # Pillow warns (then raises) on huge pictures; as an error it is caught below. The
        # filters are process-wide: should another thread reset them meanwhile, the warning
        # is only printed, and MAX_PIXELS refuses the picture all the same.
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            smaller = _reencode(body, fmt, quality, colours)
        except Exception:  # Pillow raises many kinds on bad input, all meaning "not an image"
            return None
    return smaller if smaller is not None and len(smaller) < len(body) else None


def _reencode(body: bytes, fmt: str, quality: int, colours: int) -> bytes | None:
    with Image.open(io.BytesIO(body), formats=[fmt]) as im:
        width, height = im.size
        if width * height > MAX_PIXELS or getattr(im, "n_frames", 1) > 1:
            return None
        im.load()
        out = io.BytesIO()
        if fmt == "JPEG":
            _save_jpeg(im, out, quality)
        else:
            reduced = _reduce_palette(im, fmt, colours)
            reduced.save(out, fmt, optimize=True)
        return out.getvalue()


def _save_jpeg(im: Image.Image, out: io.BytesIO, quality: int) -> None:
    """Re-encode at ``quality``, keeping the colour profile and the orientation (other
    metadata is dropped: thumbnails and camera notes are what shrink most for free)."""
    extra: dict[str, bytes] = {}
    if icc := im.info.get("icc_profile"):
        extra["icc_profile"] = icc
    orientation = im.getexif().get(EXIF_ORIENTATION)
    if orientation not in (None, 1):
        exif = Image.Exif()
        exif[EXIF_ORIENTATION] = orientation
        extra["exif"] = exif.tobytes()
    pixels = im if im.mode in JPEG_MODES else im.convert("RGB")
    pixels.save(out, "JPEG", quality=quality, optimize=True, **extra)


def _reduce_palette(im: Image.Image, fmt: str, colours: int) -> Image.Image:
    """The picture in at most ``colours``, its transparency kept: a PNG's alpha channel
    as it is, a GIF's one transparent colour as the palette's last entry."""
    if not (im.mode in ("RGBA", "LA", "PA") or "transparency" in im.info):
        return im.convert("RGB").quantize(colours)
    rgba = im.convert("RGBA")
    if fmt == "PNG":
        # Fast octree is the quantizer Pillow has for pictures with an alpha channel.
        return rgba.quantize(colours, method=Image.Quantize.FASTOCTREE)
    clear = colours - 1
    reduced = rgba.convert("RGB").quantize(clear)
    reduced.paste(clear, mask=rgba.getchannel("A").point(lambda a: 255 if a < 128 else 0))
    reduced.info["transparency"] = clear
    return reduced

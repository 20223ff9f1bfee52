"""What the dual proxy does to bodies: content hash keys, the proxy link's deflate coding
(paper 003 4.1.1) and bsdiff deltas (4.1.3), each undone with every size bounded before
anything is allocated, so a forged message cannot make the client inflate a bomb.
"""

import bz2
import hashlib
import zlib

import brotli
import bsdiff4
import bsdiff4.core

from wwanlab.core.errors import WwanlabError
from wwanlab.pep.dual.messages import MAX_BODY

DEFLATE_LEVEL = 9  # zlib's best: the proxy link is the bottleneck, CPU is not
# Brotli's quality 9 of 11: within a few percent of 11's size for web text at a tenth of
# its time (RFC 7932 leaves levels to the encoder; 10-11 are offline settings).
BROTLI_QUALITY = 9
BSDIFF_MAGIC = b"BSDIFF40"  # bsdiff 4 patch format: magic, then three 8-octet sizes
BSDIFF_HEADER = 32
CONTROL_TRIPLE = 24  # one (add, copy, seek) triple of the control block, 3 x 8 octets


class CodingError(WwanlabError):
    """A body could not be decoded within its bounds."""


def chk(body: bytes) -> bytes:
    """The content hash key: SHA-1 of the body (4.1.3)."""
    return hashlib.sha1(body).digest()


def deflate(body: bytes) -> bytes:
    return zlib.compress(body, DEFLATE_LEVEL)


def inflate(data: bytes, limit: int = MAX_BODY) -> bytes:
    """The zlib stream ``data`` decoded, refused past ``limit`` octets."""
    inflater = zlib.decompressobj()
    try:
        body = inflater.decompress(data, limit + 1)
    except zlib.error as error:
        raise CodingError(f"bad deflate stream: {error}") from None
    if len(body) > limit:
        raise CodingError(f"deflated body inflates past {limit} octets")
    if not inflater.eof or inflater.unused_data:
        raise CodingError("deflate stream truncated or followed by other octets")
    return body


def brotli_compress(body: bytes) -> bytes:
    packed: bytes = brotli.compress(body, quality=BROTLI_QUALITY)
    return packed


def unbrotli(data: bytes, limit: int = MAX_BODY) -> bytes:
    """The brotli stream ``data`` decoded, refused past ``limit`` octets."""
    decoder = brotli.Decompressor()
    try:
        body: bytes = decoder.process(data, output_buffer_limit=limit + 1)
    except brotli.error as error:
        raise CodingError(f"bad brotli stream: {error}") from None
    if len(body) > limit or not decoder.is_finished():
        raise CodingError(f"brotli body larger than {limit} octets or truncated")
    return body


def make_delta(old: bytes, new: bytes) -> bytes:
    """A bsdiff 4 patch that turns ``old`` into ``new``."""
    patch: bytes = bsdiff4.diff(old, new)
    return patch


def _bunzip(data: bytes, limit: int, what: str) -> bytes:
    inflater = bz2.BZ2Decompressor()
    try:
        out = inflater.decompress(data, limit + 1)
    except (OSError, ValueError) as error:
        raise CodingError(f"bad {what} block: {error}") from None
    if len(out) > limit or not inflater.eof or inflater.unused_data:
        raise CodingError(f"{what} block larger than {limit} octets or truncated")
    return out


def apply_delta(old: bytes, patch: bytes, limit: int = MAX_BODY) -> bytes:
    """``patch`` applied to ``old``. The header's sizes are checked against ``limit`` and
    each block is decompressed no further than the new body's size, before bsdiff sees it.
    """
    if len(patch) < BSDIFF_HEADER or patch[:8] != BSDIFF_MAGIC:
        raise CodingError("not a bsdiff 4 patch")
    sizes = [bsdiff4.core.decode_int64(patch[at : at + 8]) for at in (8, 16, 24)]
    len_control, len_diff, len_new = sizes
    if min(sizes) < 0 or len_new > limit or len_control + len_diff > len(patch) - BSDIFF_HEADER:
        raise CodingError(f"bsdiff header sizes {sizes} out of bounds")
    at = BSDIFF_HEADER
    # Each control triple copies or adds at least nothing; more triples than octets of
    # output plus one cannot be a patch bsdiff wrote.
    control = _bunzip(patch[at : at + len_control], (len_new + 1) * CONTROL_TRIPLE, "control")
    diff = _bunzip(patch[at + len_control : at + len_control + len_diff], len_new, "diff")
    extra = _bunzip(patch[at + len_control + len_diff :], len_new, "extra")
    if len(control) % CONTROL_TRIPLE:
        raise CodingError("bsdiff control block is not whole triples")
    try:
        body: bytes = bsdiff4.core.patch(old, len_new, control, diff, extra)
    except (ValueError, MemoryError, SystemError) as error:
        raise CodingError(f"bsdiff patch does not apply: {error}") from None
    return body

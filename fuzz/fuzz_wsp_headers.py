"""Fuzz the WSP header codec.

    python fuzz/fuzz_wsp_headers.py --count 1000000 --seed 1 [--json]

Every block must either raise ``WspCodecError`` or decode to an HTTP header list that,
encoded again at any encoding version, decodes to the same list (HTTP list values split
into one header each, names compared case-insensitively). Anything else is a finding.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from wwanlab.wap.wsp.assigned import V1_1, V1_2, V1_3, V1_4, V1_5, EncodingVersion
from wwanlab.wap.wsp.headers import (
    Header,
    WspCodecError,
    decode_headers,
    encode_headers,
    split_http_lists,
)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fuzz.fuzz_wtp import run

VERSIONS = (V1_1, V1_2, V1_3, V1_4, V1_5)
SAMPLES: list[Header] = [
    ("Accept", "text/vnd.wap.wml, */*; q=0.5"),
    ("Accept-Charset", "utf-8, big5;q=0.333"),
    ("Accept-Language", "en, fo;q=0.1"),
    ("Accept-Encoding", "gzip, *;q=0"),
    ("Content-Type", "text/html; charset=utf-8; level=1"),
    ("Content-Type", "multipart/related; type=text/html; start=x"),
    ("Content-Length", "123456"),
    ("Date", "Sun, 06 Nov 1994 08:49:37 GMT"),
    ("Cache-Control", 'max-age=60, no-cache="Set-Cookie", private, s-maxage=1, x=1'),
    ("Authorization", "Basic dXNlcjpwYXNz"),
    ("Proxy-Authorization", "Digest user=a, q=0.5"),
    ("WWW-Authenticate", 'Digest realm="r", nonce=abc'),
    ("Content-Disposition", 'attachment; filename="a b.txt"; size=10'),
    ("Range", "bytes=0-99"),
    ("Retry-After", "Sun, 06 Nov 1994 08:49:37 GMT"),
    ("Warning", '110 gw "stale"'),
    ("Pragma", "no-cache"),
    ("TE", "trailers, gzip;q=0.5"),
    ("Encoding-Version", "1 1.3"),
    ("X-Wap-Application-Id", "x-wap-application:push.sia"),
    ("Vary", "User-Agent, X-Foo"),
    ("If-Range", '"etag"'),
    ("Allow", "GET, POST"),
    ("X-Foo", "bar"),
]


def seeds(rng: random.Random) -> list[bytes]:
    out = []
    for version in VERSIONS:
        out += [encode_headers([header], version) for header in SAMPLES]
        out += [encode_headers(rng.sample(SAMPLES, 4), version) for _ in range(20)]
    return [*out, bytes.fromhex("7f02800078000105838500")]


def expected_after_round_trip(headers: list[Header], version: EncodingVersion) -> list[Header]:
    """Decoded values come back exactly; an HTTP list split into elements comes back as
    those elements, each in its decoded form."""
    out: list[Header] = []
    for name, value in headers:
        parts = split_http_lists([(name, value)])
        if parts == [(name, value)]:
            out.append((name.lower(), value))
        else:
            out += [(n.lower(), v) for n, v in decode_headers(encode_headers(parts, version))]
    return out


def check(data: bytes) -> str | None:
    try:
        headers = decode_headers(data)
    except WspCodecError:
        return None
    except Exception as exc:
        return f"decode raised {type(exc).__name__}: {exc}"
    for version in VERSIONS:
        try:
            expected = expected_after_round_trip(headers, version)
            again = decode_headers(encode_headers(headers, version))
        except Exception as exc:
            return f"round trip at {version} raised {type(exc).__name__}: {exc}"
        if [(name.lower(), value) for name, value in again] != expected:
            return f"round trip at {version} changed {headers} into {again}"
    return None


if __name__ == "__main__":
    sys.exit(run("WSP headers", check, seeds(random.Random(0))))

"""Fuzz the WSP PDU codec (connection-oriented and connectionless framing).

    python fuzz/fuzz_wsp.py --count 1000000 --seed 1 [--json]

Every input must either raise ``WspCodecError`` or decode to a PDU that encodes back to
the same octets, whose header block and content type decode or raise ``WspCodecError``
too. Anything else is a finding.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from wwanlab.wap.wsp.address import Address
from wwanlab.wap.wsp.capabilities import (
    ClientSduSize,
    ExtendedMethods,
    HeaderCodePages,
    MethodMor,
    ProtocolOptions,
    UnknownCapability,
)
from wwanlab.wap.wsp.headers import decode_content_type, decode_headers, encode_headers
from wwanlab.wap.wsp.pdu import (
    Connect,
    ConnectReply,
    Disconnect,
    Get,
    Pdu,
    Post,
    Push,
    Redirect,
    Reply,
    Resume,
    WspCodecError,
    decode,
    decode_connectionless,
    encode,
    encode_connectionless,
)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fuzz.fuzz_wtp import run

HEADERS = encode_headers(
    [("Accept", "text/vnd.wap.wml, */*; q=0.5"), ("User-Agent", "fuzz"), ("X-A", "b")]
)


def random_pdu(rng: random.Random) -> Pdu:
    uri = rng.choice(["http://a/", "http://example.org/index.wml?x=1", ""])
    body = bytes(rng.randrange(256) for _ in range(rng.randrange(10)))
    caps = (
        ClientSduSize(rng.randrange(1 << 20)),
        MethodMor(1),
        ProtocolOptions(0xC0),
        ExtendedMethods(((0x50, "PROPFIND"),)),
        HeaderCodePages(((2, "x-up-1"),)),
        UnknownCapability("X-Cap", b"\x01"),
    )[: rng.randrange(7)]
    options: list[Pdu] = [
        Connect(capabilities=caps, headers=HEADERS),
        ConnectReply(session_id=rng.randrange(1 << 32), capabilities=caps),
        Redirect(permanent=True, addresses=(Address(b"\x7f\x00\x00\x01", 0, 9201),)),
        Disconnect(session_id=rng.randrange(1 << 32)),
        Resume(session_id=7, capabilities=caps, headers=HEADERS),
        Get(uri=uri, headers=HEADERS),
        Post(uri=uri, content_type=b"\x92", headers=HEADERS, data=body),
        Reply(status=0x20, content_type=b"\x03\x82\x81\xea", headers=HEADERS, data=body),
        Push(content_type=b"\xae", data=body),
    ]
    return rng.choice(options)


def seeds(rng: random.Random) -> list[bytes]:
    out = [encode(random_pdu(rng)) for _ in range(150)]
    return out + [encode_connectionless(rng.randrange(256), random_pdu(rng)) for _ in range(50)]


def check(data: bytes) -> str | None:
    for connectionless in (False, True):
        try:
            if connectionless:
                tid, pdu = decode_connectionless(data)
                again = encode_connectionless(tid, pdu)
            else:
                pdu = decode(data)
                again = encode(pdu)
        except WspCodecError:
            continue
        except Exception as exc:
            return f"raised {type(exc).__name__}: {exc}"
        if again != data:
            return f"re-encoded as {again.hex()}"
        try:
            if isinstance(pdu, (Get, Post, Reply, Push, Connect, ConnectReply, Resume)):
                decode_headers(pdu.headers)
            if isinstance(pdu, (Post, Reply, Push)) and pdu.content_type:
                decode_content_type(pdu.content_type)
        except WspCodecError:
            pass
        except Exception as exc:
            return f"headers raised {type(exc).__name__}: {exc}"
    return None


if __name__ == "__main__":
    sys.exit(run("WSP", check, seeds(random.Random(0))))

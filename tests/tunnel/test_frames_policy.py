"""Tunnel frames round-trip exactly and refuse what no peer sends; the destination
policy refuses every non-global address unless allowed."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wwanlab.core.errors import UsageError
from wwanlab.tunnel.frames import (
    DEFLATE,
    MAX_DATA,
    MAX_HOST,
    Frame,
    FrameError,
    Kind,
    Refusal,
    Techniques,
    decode,
)
from wwanlab.tunnel.policy import parse_networks, permitted


def test_exact_bytes() -> None:
    assert Frame(Kind.OPEN, 1, host="example.org", port=443, flags=DEFLATE).encode() == (
        b"\x01\x00\x00\x00\x01\x01\xbb\x01example.org"
    )
    assert Frame(Kind.DATA, 3, b"hi").encode() == b"\x04\x00\x00\x00\x03hi"
    refused = Frame(Kind.REFUSED, 5, b"10.0.0.1", refusal=Refusal.POLICY)
    assert refused.encode() == b"\x03\x00\x00\x00\x05\x0110.0.0.1"
    assert Frame(Kind.CLOSE, 7).encode() == b"\x05\x00\x00\x00\x07"
    proxy = Frame(Kind.PROXY, 0, b"m", techniques=Techniques(push=False, images=30))
    assert proxy.encode() == b"\x07\x00\x00\x00\x00\x06\x1em"
    assert decode(proxy.encode()) == proxy


@given(
    st.sampled_from([Kind.OPENED, Kind.CLOSE, Kind.RESET]) | st.just(Kind.DATA),
    st.integers(1, 2**32 - 1),
    st.binary(min_size=1, max_size=64),
)
def test_round_trip(kind: Kind, stream: int, data: bytes) -> None:
    frame = Frame(kind, stream, data if kind is Kind.DATA else b"")
    assert decode(frame.encode()) == frame


@pytest.mark.parametrize(
    ("message", "error"),
    [
        (b"", "shorter than its header"),
        (b"\x04\x00\x00\x01", "shorter than its header"),
        (b"\x09\x00\x00\x00\x01", "unknown frame type 9"),
        (b"\x04\x00\x00\x00\x00x", "stream 0"),
        (b"\x04\x00\x00\x00\x01", "DATA of 0 octets"),
        (b"\x04\x00\x00\x00\x01" + bytes(MAX_DATA + 1), f"DATA of {MAX_DATA + 1} octets"),
        (b"\x01\x00\x00\x00\x01\x00\x50\x00", "destination of 0 octets"),
        (b"\x01\x00\x00\x00\x01\x00\x50\x00" + b"a" * (MAX_HOST + 1), "destination of 254"),
        (b"\x01\x00\x00\x00\x01\x00\x00\x00host", "port 0"),
        (b"\x01\x00\x00\x00\x01\x00\x50\x00\xff", "not UTF-8"),
        (b"\x01\x00\x00\x00\x01\x00\x50\x02host", "unknown flags 0x02"),
        (b"\x03\x00\x00\x00\x01", "without a code"),
        (b"\x03\x00\x00\x00\x01\x63", "unknown refusal 99"),
        (b"\x05\x00\x00\x00\x01x", "CLOSE with 1 octets"),
        (b"\x07\x00\x00\x00\x01\x07\x00m", "PROXY on stream 1, not 0"),
        (b"\x07\x00\x00\x00\x00\x07\x00", "PROXY of 2 octets"),
        (b"\x07\x00\x00\x00\x00\x0f\x00m", "unknown technique bits 0x0f"),
        (b"\x07\x00\x00\x00\x00\x07\x65m", "image quality 101 above 100"),
    ],
)
def test_malformed(message: bytes, error: str) -> None:
    with pytest.raises(FrameError, match=error):
        decode(message)


@given(st.binary(max_size=300))
def test_anything_decodes_or_raises_frame_error(message: bytes) -> None:
    try:
        frame = decode(message)
    except FrameError:
        return
    assert decode(frame.encode()) == frame


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "10.1.2.3",
        "192.168.0.1",
        "172.16.0.1",
        "169.254.169.254",
        "100.64.0.1",
        "0.0.0.0",
        "224.0.0.1",
        "255.255.255.255",
        "::1",
        "fe80::1",
        "fc00::1",
        "::ffff:127.0.0.1",
        "::",
    ],
)
def test_non_global_refused(address: str) -> None:
    assert not permitted(address)


def test_global_permitted_and_allow_list() -> None:
    assert permitted("93.184.216.34") and permitted("2606:2800:220:1::1")
    allowed = parse_networks(["127.0.0.0/8", "fc00::/7"])
    assert permitted("127.0.0.1", allowed) and permitted("fc00::5", allowed)
    assert not permitted("10.0.0.1", allowed)
    with pytest.raises(UsageError, match="--allow 'ten' is not an IP network"):
        parse_networks(["ten"])

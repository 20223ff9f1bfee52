"""Segment codec: exact header bytes, the checksum against RFC 1071's plain algorithm,
option parsing and bounded rejection of malformed input."""

import contextlib
import socket
import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wwanlab.tcp.errors import MalformedSegment
from wwanlab.tcp.segment import (
    ACK,
    SYN,
    checksum_ok,
    decode_segment,
    encode_options,
    encode_segment,
    pseudo_header_sum,
)

SRC, DST = "10.0.0.1", "10.0.0.2"


def rfc1071_checksum(data: bytes) -> int:
    """RFC 1071 4.1's reference loop, big-endian words, written out plainly."""
    if len(data) % 2:
        data += b"\x00"
    total = 0
    for i in range(0, len(data), 2):
        total += (data[i] << 8) | data[i + 1]
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def pseudo(src: str, dst: str, length: int) -> bytes:
    return socket.inet_aton(src) + socket.inet_aton(dst) + struct.pack("!BBH", 0, 6, length)


def test_syn_header_bytes_and_options_are_exact() -> None:
    options = encode_options(mss=1460, wscale=7, sack_permitted=True)
    # MSS; NOP NOP SACK-permitted; NOP window-scale(7): 12 bytes, as Linux orders them.
    assert options == bytes.fromhex("020405b40101040201030307")
    data = encode_segment(
        49152, 80, 0x01020304, 0, SYN, 65535, options, b"", pseudo_header_sum(SRC, DST)
    )
    assert data[:12] == bytes.fromhex("c00000500102030400000000")
    assert data[12] == (32 // 4) << 4  # data offset: 8 words
    assert data[13] == SYN
    assert data[14:16] == b"\xff\xff"
    assert data[18:20] == b"\x00\x00"  # urgent pointer
    zeroed = data[:16] + b"\x00\x00" + data[18:]
    expected = rfc1071_checksum(pseudo(SRC, DST, len(data)) + zeroed)
    assert struct.unpack("!H", data[16:18])[0] == expected


@given(
    payload=st.binary(max_size=1500),
    seq=st.integers(0, 2**32 - 1),
    ack=st.integers(0, 2**32 - 1),
    window=st.integers(0, 0xFFFF),
    blocks=st.lists(st.tuples(st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1)), max_size=4),
)
def test_round_trip_and_checksum_match_rfc1071(payload, seq, ack, window, blocks) -> None:
    options = encode_options(sack_blocks=tuple(blocks))
    data = encode_segment(
        1, 2, seq, ack, ACK, window, options, payload, pseudo_header_sum(SRC, DST)
    )
    zeroed = data[:16] + b"\x00\x00" + data[18:]
    assert struct.unpack("!H", data[16:18])[0] == rfc1071_checksum(
        pseudo(SRC, DST, len(data)) + zeroed
    )
    assert checksum_ok(data, pseudo_header_sum(SRC, DST))
    assert not checksum_ok(data, pseudo_header_sum(SRC, "10.0.0.3"))
    seg = decode_segment(data)
    assert (seg.src_port, seg.dst_port, seg.seq, seg.ack, seg.flags, seg.window) == (
        1,
        2,
        seq,
        ack,
        ACK,
        window,
    )
    assert seg.payload == payload
    assert seg.sack_blocks == tuple(blocks)


@given(payload=st.binary(min_size=300, max_size=5000))
def test_long_payloads_read_in_pieces_match_rfc1071(payload: bytes) -> None:
    # Payloads of several pieces (even and odd lengths) against the reference loop.
    data = encode_segment(1, 2, 3, 4, ACK, 5, b"", payload, pseudo_header_sum(SRC, DST))
    zeroed = data[:16] + b"\x00\x00" + data[18:]
    expected = rfc1071_checksum(pseudo(SRC, DST, len(data)) + zeroed)
    assert struct.unpack("!H", data[16:18])[0] == expected
    assert checksum_ok(data, pseudo_header_sum(SRC, DST))
    assert not checksum_ok(data[:-1] + bytes([data[-1] ^ 0x80]), pseudo_header_sum(SRC, DST))


def test_checksums_that_wrap_to_zero_match_rfc1071() -> None:
    # A sum folding to 0xFFFF is the one place where one's-complement arithmetic has
    # two zeros: the checksum field must then be 0x0000, as RFC 1071's loop gives.
    pseudo_sum = pseudo_header_sum(SRC, DST)
    zeros = 0
    for n in range(0x10000):
        data = encode_segment(1, 2, n, 0, ACK, 5, b"", b"", pseudo_sum)
        if data[16:18] == b"\x00\x00":
            zeros += 1
            zeroed = data[:16] + b"\x00\x00" + data[18:]
            assert rfc1071_checksum(pseudo(SRC, DST, len(data)) + zeroed) == 0
            assert checksum_ok(data, pseudo_sum)
    assert zeros >= 1


def test_a_flipped_bit_fails_the_checksum() -> None:
    data = bytearray(
        encode_segment(1, 2, 3, 4, ACK, 5, b"", b"hello", pseudo_header_sum(SRC, DST))
    )
    data[-1] ^= 0x01
    assert not checksum_ok(bytes(data), pseudo_header_sum(SRC, DST))


def test_every_truncation_of_a_segment_with_options_is_rejected_or_parsed() -> None:
    options = encode_options(mss=536, wscale=2, sack_permitted=True)
    data = encode_segment(1, 2, 3, 4, SYN, 5, options, b"", pseudo_header_sum(SRC, DST))
    for cut in range(len(data)):
        with pytest.raises(MalformedSegment):
            decode_segment(data[:cut])


@pytest.mark.parametrize(
    "options",
    [
        bytes.fromhex("0203"),  # MSS with length 3
        bytes.fromhex("02"),  # kind without a length byte
        bytes.fromhex("0500"),  # length below 2
        bytes.fromhex("050a0000"),  # SACK longer than the header
        bytes.fromhex("0506000000000000"),  # SACK length 6, not 2 + 8n
        bytes.fromhex("0302"),  # window scale with length 2
    ],
)
def test_malformed_options_raise_the_codec_error(options: bytes) -> None:
    options += b"\x00" * (-len(options) % 4)
    data = encode_segment(1, 2, 3, 4, ACK, 5, options, b"", pseudo_header_sum(SRC, DST))
    with pytest.raises(MalformedSegment):
        decode_segment(data)


def test_unknown_options_are_skipped_and_wscale_is_capped() -> None:
    options = bytes.fromhex("080a00000000000000000103030f")  # timestamps; wscale 15
    data = encode_segment(
        1, 2, 3, 4, ACK, 5, options + b"\x00\x00", b"", pseudo_header_sum(SRC, DST)
    )
    seg = decode_segment(data)
    assert seg.wscale == 14  # RFC 7323 2.3


@given(st.binary(max_size=80))
def test_arbitrary_bytes_never_leak_other_exceptions(data: bytes) -> None:
    with contextlib.suppress(MalformedSegment):
        decode_segment(data)

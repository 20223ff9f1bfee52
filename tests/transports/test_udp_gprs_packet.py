"""UDP-GPRS datagrams: exact octets of every kind, and every malformed shape refused."""

import zlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wwanlab.transports.udp_gprs import Kind, Packet, PacketError, decode

MAX = 1472


def crc(prefix: bytes) -> bytes:
    return zlib.crc32(prefix).to_bytes(4, "big")


def test_crc_is_crc32_iso_hdlc() -> None:
    # the check value of CRC-32 (ISO 3309 / ITU-T V.42), the trailer's algorithm
    assert zlib.crc32(b"123456789") == 0xCBF43926


def test_data_octets() -> None:
    pkt = Packet(Kind.DATA, 0x0A0B0C0D, ack=2, credit=5914, seq=7, end=True, payload=b"hi")
    prefix = bytes.fromhex("11 01 0a0b0c0d 00000002 171a 00000007 6869")
    assert pkt.encode() == prefix + crc(prefix)
    assert decode(pkt.encode(), MAX) == pkt


def test_empty_fragment_is_twenty_octets() -> None:
    data = Packet(Kind.DATA, 1, 0, 5914, seq=0, end=False).encode()
    assert len(data) == 20 and data[:2] == b"\x11\x00"


def test_ack_keepalive_nak_octets() -> None:
    ack = bytes.fromhex("12 00 00000001 00000003 0064")
    assert Packet(Kind.ACK, 1, 3, 100).encode() == ack + crc(ack)
    keepalive = bytes.fromhex("14 00 00000001 00000003 0064 00000005")
    assert Packet(Kind.KEEPALIVE, 1, 3, 100, seq=5).encode() == keepalive + crc(keepalive)
    nak = bytes.fromhex("13 00 00000001 00000003 0064 02 00000003 0002 00000009 0001")
    pkt = Packet(Kind.NAK, 1, 3, 100, missing=((3, 2), (9, 1)))
    assert pkt.encode() == nak + crc(nak)
    assert decode(nak + crc(nak), MAX) == pkt


def with_crc(prefix: str) -> bytes:
    octets = bytes.fromhex(prefix)
    return octets + crc(octets)


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (b"", "0 octets"),
        (with_crc("12 00 00000001 00000003"), "14 octets"),
        (with_crc("12 00 00000001 00000003 0064")[:-1] + b"\x00", "CRC-32"),
        (with_crc("22 00 00000001 00000003 0064"), "version 2"),
        (with_crc("10 00 00000001 00000003 0064"), "unknown type 0"),
        (with_crc("15 00 00000001 00000003 0064"), "unknown type 5"),
        (with_crc("12 01 00000001 00000003 0064"), "flags 0x01 on ACK"),
        (with_crc("11 02 00000001 00000003 0064 00000000"), "flags 0x02 on DATA"),
        (with_crc("11 00 00000001 00000003 0064 0000"), "without a sequence number"),
        (with_crc("12 00 00000001 00000003 0064 00"), "ACK with a 1-octet body"),
        (with_crc("14 00 00000001 00000003 0064 00"), "KEEPALIVE with a 1-octet body"),
        (with_crc("14 00 00000001 00000003 0064"), "KEEPALIVE with a 0-octet body"),
        (with_crc("13 00 00000001 00000003 0064"), "NAK body of 0"),
        (with_crc("13 00 00000001 00000003 0064 00"), "NAK body of 1"),
        (with_crc("13 00 00000001 00000003 0064 02 00000003 0002"), "NAK body of 7"),
        (with_crc("13 00 00000001 00000003 0064 01 00000003 0000"), "range empty"),
        (with_crc("13 00 00000001 00000003 0064 01 ffffffff 0002"), "beyond the sequence"),
        (b"\x11" * (MAX + 1), "1473 octets"),
    ],
)
def test_malformed_is_refused_with_its_reason(data: bytes, why: str) -> None:
    with pytest.raises(PacketError, match=why):
        decode(data, MAX)


def test_encode_refuses_fields_out_of_range() -> None:
    with pytest.raises(PacketError, match="credit"):
        Packet(Kind.ACK, 1, 0, 0x10000).encode()
    with pytest.raises(PacketError, match="32 bits"):
        Packet(Kind.ACK, 1 << 32, 0, 1).encode()
    with pytest.raises(PacketError, match="END flag on ACK"):
        Packet(Kind.ACK, 1, 0, 1, end=True).encode()
    with pytest.raises(PacketError, match="NAK of 0 ranges"):
        Packet(Kind.NAK, 1, 0, 1).encode()
    with pytest.raises(PacketError, match="NAK range"):
        Packet(Kind.NAK, 1, 0, 1, missing=((5, 0),)).encode()


u32 = st.integers(0, (1 << 32) - 1)
packets = st.one_of(
    st.builds(
        Packet,
        st.just(Kind.DATA),
        u32,
        u32,
        st.integers(0, 0xFFFF),
        seq=u32,
        end=st.booleans(),
        payload=st.binary(max_size=MAX - 20),
    ),
    st.builds(Packet, st.just(Kind.ACK), u32, u32, st.integers(0, 0xFFFF)),
    st.builds(Packet, st.just(Kind.KEEPALIVE), u32, u32, st.integers(0, 0xFFFF), seq=u32),
    st.builds(
        Packet,
        st.just(Kind.NAK),
        u32,
        u32,
        st.integers(0, 0xFFFF),
        missing=st.lists(
            st.tuples(st.integers(0, (1 << 32) - 0x10000), st.integers(1, 0xFFFF)),
            min_size=1,
            max_size=40,
        ).map(tuple),
    ),
)


@given(packets)
def test_round_trip(pkt: Packet) -> None:
    assert decode(pkt.encode(), MAX) == pkt


@given(packets, st.data())
def test_any_single_bit_flip_is_caught(pkt: Packet, data: st.DataObject) -> None:
    octets = bytearray(pkt.encode())
    bit = data.draw(st.integers(0, len(octets) * 8 - 1))
    octets[bit // 8] ^= 1 << (bit % 8)
    with pytest.raises(PacketError):
        decode(bytes(octets), MAX)

import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wwanlab.sim.ipv4 import (
    PROTO_TCP,
    PROTO_UDP,
    IpFlow,
    PacketError,
    UdpFlow,
    build_ipv4,
    build_udp,
    checksum_update,
    internet_checksum,
    ip_to_bytes,
    parse_ipv4,
    parse_udp,
    transport_checksum,
)

# The packet of test_udp_packet_bytes_are_exact, worked by hand:
# IPv4: 45 00 | 0021 (33) | 0001 (id) | 4000 (DF) | 40 11 (TTL 64, UDP) | cksum | src | dst
# header words 0x4500+0x0021+0x0001+0x4000+0x4011+0x0a00+0x0001+0x0a00+0x0002 = 0xd936,
# so the header checksum is ~0xd936 = 0x26c9.
EXPECTED = bytes.fromhex("4500002100014000401126c90a0000010a00000204d20007000da32668656c6c6f")

addresses = st.tuples(*[st.integers(0, 255)] * 4).map(lambda t: "{}.{}.{}.{}".format(*t))


def test_rfc1071_section_3_example():
    # RFC 1071 §3: words 0001 f203 f4f5 f6f7 sum (with carries folded) to 0xddf2.
    data = bytes.fromhex("0001f203f4f5f6f7")
    assert internet_checksum(data) == ~0xDDF2 & 0xFFFF
    assert internet_checksum(b"") == 0xFFFF
    assert internet_checksum(b"\xff\xff") == 0x0000
    assert internet_checksum(b"\x01") == 0xFEFF  # odd octet padded with a zero


def test_udp_packet_bytes_are_exact():
    udp = build_udp("10.0.0.1", "10.0.0.2", 1234, 7, b"hello")
    packet = build_ipv4("10.0.0.1", "10.0.0.2", PROTO_UDP, udp, identification=1)
    assert packet == EXPECTED
    assert internet_checksum(packet[:20]) == 0
    assert transport_checksum("10.0.0.1", "10.0.0.2", PROTO_UDP, packet[20:]) == 0


def test_parse_gives_back_every_field():
    packet = build_ipv4(
        "192.168.1.9", "8.8.4.4", PROTO_TCP, b"\x00" * 24, ttl=3, identification=0xBEEF, tos=0x10
    )
    header, payload = parse_ipv4(packet)
    assert (header.src, header.dst, header.protocol, header.ttl) == (
        "192.168.1.9",
        "8.8.4.4",
        6,
        3,
    )
    assert (header.identification, header.tos, header.total_length) == (0xBEEF, 0x10, 44)
    assert header.dont_fragment and not header.more_fragments and header.fragment_offset == 0
    assert payload == b"\x00" * 24
    assert not parse_ipv4(build_ipv4("1.2.3.4", "5.6.7.8", 17, b"", dont_fragment=False))[
        0
    ].dont_fragment


def test_trailing_link_padding_is_ignored():
    packet = build_ipv4("1.2.3.4", "5.6.7.8", 99, b"abc")
    assert parse_ipv4(packet + b"\x00\x00\x00")[1] == b"abc"


def test_udp_checksum_of_zero_is_sent_as_all_ones():
    # Find a payload whose checksum computes to zero: its field must carry 0xFFFF.
    for n in range(70000):
        payload = n.to_bytes(4, "big")
        data = build_udp("10.0.0.1", "10.0.0.2", 1, 2, payload)
        if data[6:8] == b"\xff\xff":
            assert parse_udp("10.0.0.1", "10.0.0.2", data)[1] == payload
            return
    pytest.fail("no payload with a zero checksum found")


@given(
    addresses, addresses, st.integers(0, 0xFFFF), st.integers(0, 0xFFFF), st.binary(max_size=300)
)
def test_udp_ipv4_round_trip(src, dst, sport, dport, payload):
    packet = build_ipv4(src, dst, PROTO_UDP, build_udp(src, dst, sport, dport, payload))
    header, segment = parse_ipv4(packet)
    udp, data = parse_udp(header.src, header.dst, segment)
    assert (header.src, header.dst, udp.src_port, udp.dst_port, data) == (
        src,
        dst,
        sport,
        dport,
        payload,
    )


@given(st.binary(min_size=20, max_size=20).map(bytearray), st.integers(2, 255))
def test_incremental_ttl_update_matches_recomputation(header, ttl):
    header[8] = ttl
    header[10:12] = b"\x00\x00"
    header[10:12] = internet_checksum(bytes(header)).to_bytes(2, "big")
    old_word = ttl << 8 | header[9]
    patched = checksum_update(int.from_bytes(header[10:12], "big"), old_word, old_word - 0x100)
    header[8] = ttl - 1
    header[10:12] = patched.to_bytes(2, "big")
    assert internet_checksum(bytes(header)) == 0


@pytest.mark.parametrize(
    ("packet", "message"),
    [
        (b"", "shorter than 20"),
        (EXPECTED[:19], "shorter than 20"),
        (b"\x65" + EXPECTED[1:], "version 6"),
        (b"\x44" + EXPECTED[1:], "header length 16"),
        (EXPECTED[:2] + b"\x00\x30" + EXPECTED[4:], "total length 48"),
        (EXPECTED[:2] + b"\x00\x10" + EXPECTED[4:], "total length 16"),
        (EXPECTED[:10] + b"\x00\x00" + EXPECTED[12:], "checksum"),
    ],
)
def test_malformed_ipv4_raises_packet_error(packet, message):
    with pytest.raises(PacketError, match=message):
        parse_ipv4(packet)


@pytest.mark.parametrize(
    ("segment", "message"),
    [
        (EXPECTED[20:27], "shorter than 8"),
        (EXPECTED[20:24] + b"\x00\x07" + EXPECTED[26:], "UDP length 7"),
        (EXPECTED[20:24] + b"\x00\x20" + EXPECTED[26:], "UDP length 32"),
        (EXPECTED[20:-1] + b"O", "bad UDP checksum"),
    ],
)
def test_malformed_udp_raises_packet_error(segment, message):
    with pytest.raises(PacketError, match=message):
        parse_udp("10.0.0.1", "10.0.0.2", segment)


@given(st.binary(max_size=64))
def test_parsers_never_leak_other_errors(data):
    for parse in (parse_ipv4, lambda d: parse_udp("1.1.1.1", "2.2.2.2", d)):
        with contextlib.suppress(PacketError):
            parse(data)


@pytest.mark.parametrize("bad", ["10.0.0", "10.0.0.256", "a.b.c.d", "1.2.3.4.5", "", "1..2.3"])
def test_bad_addresses_are_rejected(bad):
    with pytest.raises(PacketError):
        ip_to_bytes(bad)


def test_oversize_packets_cannot_be_built():
    with pytest.raises(PacketError, match="exceeds 65535"):
        build_ipv4("1.1.1.1", "2.2.2.2", 17, b"\x00" * 65516)
    with pytest.raises(PacketError, match="does not fit"):
        build_udp("1.1.1.1", "2.2.2.2", 1, 2, b"\x00" * 65508)


@given(
    addresses,
    addresses,
    st.integers(0, 0xFFFF),
    st.integers(0, 0xFFFF),
    st.binary(max_size=300),
    st.integers(0, 0x1FFFF),
)
def test_udp_flow_builds_exactly_what_build_udp_and_build_ipv4_build(
    src, dst, sport, dport, payload, ident
):
    expected = build_ipv4(
        src, dst, PROTO_UDP, build_udp(src, dst, sport, dport, payload), identification=ident
    )
    assert UdpFlow(src, dst, sport, dport).packet(payload, ident) == expected


def test_udp_flow_agrees_where_the_checksums_wrap():
    # Where the one's-complement arithmetic has its two zeros: a UDP sum of 0xFFFF
    # (sent as 0xFFFF, not 0) and an IPv4 header whose checksum is 0x0000.
    flow = UdpFlow("10.0.0.1", "10.0.0.2", 1, 2)
    wraps = {"udp": 0, "ip": 0}
    for n in range(70000):
        payload = n.to_bytes(4, "big")
        packet = flow.packet(payload, n)
        udp = packet[26:28] == b"\xff\xff"
        ip = packet[10:12] == b"\x00\x00"
        if udp or ip:
            wraps["udp"] += udp
            wraps["ip"] += ip
            segment = build_udp("10.0.0.1", "10.0.0.2", 1, 2, payload)
            assert packet == build_ipv4(
                "10.0.0.1", "10.0.0.2", PROTO_UDP, segment, identification=n
            )
    assert wraps["udp"] >= 1 and wraps["ip"] >= 1


def test_udp_flow_rejects_what_build_udp_rejects():
    with pytest.raises(PacketError):
        UdpFlow("10.0.0.1", "10.0.0.2", 1, 0x10000)
    with pytest.raises(PacketError):
        UdpFlow("10.0.0.1", "10.0.0.256", 1, 2)
    with pytest.raises(PacketError):
        UdpFlow("10.0.0.1", "10.0.0.2", 1, 2).packet(bytes(65508))


@given(
    addresses,
    addresses,
    st.integers(0, 255),
    st.binary(max_size=300),
    st.integers(0, 0x1FFFF),
)
def test_ip_flow_builds_exactly_what_build_ipv4_builds(src, dst, protocol, payload, ident):
    expected = build_ipv4(src, dst, protocol, payload, identification=ident)
    assert IpFlow(src, dst, protocol).packet(payload, ident) == expected


def test_ip_flow_agrees_where_the_header_checksum_is_zero():
    flow = IpFlow("10.0.0.1", "10.0.0.2", PROTO_TCP)
    zeros = 0
    for ident in range(0x10000):
        packet = flow.packet(b"x", ident)
        if packet[10:12] == b"\x00\x00":
            zeros += 1
            expected = build_ipv4("10.0.0.1", "10.0.0.2", PROTO_TCP, b"x", identification=ident)
            assert packet == expected
    assert zeros >= 1


def test_ip_flow_rejects_what_build_ipv4_rejects():
    with pytest.raises(PacketError):
        IpFlow("10.0.0.1", "10.0.0.2", 256)
    with pytest.raises(PacketError):
        IpFlow("10.0.0.1", "10.0.0.256", PROTO_TCP)
    with pytest.raises(PacketError):
        IpFlow("10.0.0.1", "10.0.0.2", PROTO_TCP).packet(bytes(65516))

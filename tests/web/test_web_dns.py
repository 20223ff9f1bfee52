"""DNS messages (RFC 1035) as exact bytes, bounded decoding, and the stub resolver's
retry timing in the Pair harness."""

import random

import pytest

from wwanlab.core.pair import CLIENT_ADDR, SERVER_ADDR, Pair
from wwanlab.web.dns import (
    FLAG_RD,
    DnsError,
    Message,
    Question,
    ResolutionFailed,
    Resolved,
    StubResolver,
    ZoneServer,
    decode_message,
    encode_message,
)

QUERY = bytes.fromhex(
    "1234"
    "0100"
    "0001"
    "0000"
    "0000"
    "0000"  # ID, RD, QDCOUNT 1
    "07"
    "6578616d706c65"
    "03"
    "636f6d"
    "00"  # example.com
    "0001"
    "0001"  # A, IN
)


def test_query_bytes_are_exact() -> None:
    message = Message(0x1234, FLAG_RD, (Question("example.com"),))
    assert encode_message(message) == QUERY
    assert decode_message(QUERY) == message


def test_server_answer_uses_a_pointer_and_decodes() -> None:
    server = ZoneServer({"example.com": ["10.0.0.2", "10.0.0.3"]}, ttl=60)
    server.receive_datagram(QUERY, CLIENT_ADDR, 0.0)
    ((reply, addr),) = server.datagrams_to_send(0.0)
    assert addr == CLIENT_ADDR
    assert reply[:12] == bytes.fromhex("123481800001000200000000")
    assert reply[len(QUERY) :] == bytes.fromhex(
        "c00c000100010000003c00040a000002c00c000100010000003c00040a000003"
    )
    message = decode_message(reply)
    assert [(r.name, r.data) for r in message.answers] == [
        ("example.com", b"\x0a\x00\x00\x02"),
        ("example.com", b"\x0a\x00\x00\x03"),
    ]


def test_every_truncation_raises_dns_error() -> None:
    server = ZoneServer({"example.com": ["10.0.0.2"]})
    server.receive_datagram(QUERY, CLIENT_ADDR, 0.0)
    ((reply, _),) = server.datagrams_to_send(0.0)
    for cut in range(len(reply)):
        with pytest.raises(DnsError):
            decode_message(reply[:cut])


@pytest.mark.parametrize(
    "name_bytes",
    [
        b"\xc0\x0c",  # a pointer to itself
        b"\x80abc\x00",  # reserved label type
        b"\x40" + b"a" * 64 + b"\x00",  # label type bits set by a 64-octet "length"
        b"\x3f"
        + b"a" * 63
        + b"\x3f"
        + b"a" * 63
        + b"\x3f"
        + b"a" * 63
        + b"\x3f"
        + b"a" * 63
        + b"\x00",
    ],
)
def test_bad_names_raise_dns_error(name_bytes: bytes) -> None:
    with pytest.raises(DnsError):
        decode_message(QUERY[:12] + name_bytes + b"\x00\x01\x00\x01")


def test_server_answers_formerr_and_nxdomain() -> None:
    server = ZoneServer({})
    server.receive_datagram(QUERY[:14], CLIENT_ADDR, 0.0)
    server.receive_datagram(QUERY, CLIENT_ADDR, 0.0)
    formerr, nxdomain = [decode_message(d) for d, _ in server.datagrams_to_send(0.0)]
    assert (formerr.id, formerr.rcode) == (0x1234, 1)
    assert (nxdomain.id, nxdomain.rcode) == (0x1234, 3)


def test_stub_resolves_in_one_round_trip() -> None:
    stub = StubResolver(SERVER_ADDR, random.Random(1))
    pair = Pair(stub, ZoneServer({"www.example.com": ["10.0.0.2"]}), latency=0.3)
    stub.resolve("www.example.com", 0.0)
    pair.run()
    assert pair.client_events == [Resolved("www.example.com", ("10.0.0.2",), 0.6)]


def test_stub_retries_after_the_timeout_then_gives_up() -> None:
    stub = StubResolver(SERVER_ADDR, random.Random(1), timeout=5.0, attempts=2)
    pair = Pair(stub, ZoneServer({"a.b": ["10.0.0.9"]}), latency=0.1, drop=lambda *a: True)
    stub.resolve("a.b", 0.0)
    pair.run()
    assert [round(s.sent_at, 9) for s in pair.sent("client")] == [0.0, 5.0]
    assert pair.client_events == [ResolutionFailed("a.b", "timeout")]
    assert pair.now == 10.0


def test_stub_ignores_answers_with_the_wrong_id_or_name() -> None:
    stub = StubResolver(SERVER_ADDR, random.Random(1))
    stub.resolve("x.y", 0.0)
    ((query, _),) = stub.datagrams_to_send(0.0)
    asked = decode_message(query)
    forged = Message(asked.id ^ 1, 0x8180, (Question("x.y"),))
    wrong_name = Message(asked.id, 0x8180, (Question("z.y"),))
    for message in (forged, wrong_name):
        stub.receive_datagram(encode_message(message), SERVER_ADDR, 0.1)
    assert stub.next_event() is None

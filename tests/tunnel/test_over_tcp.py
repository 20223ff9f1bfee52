"""Sealed datagrams over TCP, sans-IO: the framing, and a server connection that answers
nothing unauthenticated and hangs up on bad lengths, forgeries and silence."""

import random

import pytest

from wwanlab.core.pair import SERVER_ADDR
from wwanlab.tunnel.over_tcp import (
    FALLBACK_AFTER,
    FIRST_DATAGRAM_WITHIN,
    MAX_BAD,
    BadLength,
    Deframer,
    TcpInbound,
    framed,
    tcp_address,
)
from wwanlab.tunnel.seal import MAX_DATAGRAM, Keys
from wwanlab.tunnel.session import OpenRequested, TunnelClient, TunnelServer

KEYS_PSK = bytes(range(32))
WALL = 1_765_000_000.0
PEER = ("192.0.2.9", 40000)


def first_datagrams(psk: bytes = KEYS_PSK) -> list[bytes]:
    client = TunnelClient(SERVER_ADDR, Keys.from_psk(psk), random.Random(1), WALL)
    client.open_stream("example.org", 80, 0.0)
    return [d for d, _ in client.datagrams_to_send(0.0)]


def server() -> TunnelServer:
    return TunnelServer([Keys.from_psk(KEYS_PSK)], wall_offset=WALL)


def test_the_stated_times() -> None:
    assert FALLBACK_AFTER == 9.0  # three 3 s round trips (paper 003 section 3)
    assert FIRST_DATAGRAM_WITHIN == 10.0  # twice a 2 s keep-alive plus a 3 s round trip


def test_framing_round_trips_in_any_pieces() -> None:
    datagrams = [bytes([i]) * n for i, n in enumerate((41, 100, MAX_DATAGRAM))]
    wire = b"".join(framed(d) for d in datagrams)
    assert wire[:2] == b"\x00\x29" and len(wire) == 6 + 41 + 100 + MAX_DATAGRAM
    deframer = Deframer()
    got = [d for i in range(0, len(wire), 7) for d in deframer.feed(wire[i : i + 7])]
    assert got == datagrams


@pytest.mark.parametrize("length", [0, 40, MAX_DATAGRAM + 1, 0xFFFF])
def test_a_length_out_of_bounds_is_refused_before_its_octets(length: int) -> None:
    with pytest.raises(BadLength, match=f"a length of {length} octets"):
        Deframer().feed(length.to_bytes(2, "big"))


def test_a_genuine_datagram_is_answered_on_its_connection() -> None:
    tunnel = server()
    inbound = TcpInbound(tunnel, PEER, 0.0)
    inbound.receive_data(b"".join(framed(d) for d in first_datagrams()), 0.5)
    assert inbound.closed is None and inbound.client is not None
    assert inbound.get_timer() is None  # authenticated: no deadline any more
    assert [type(e) for e in iter(tunnel.next_event, None)] == [OpenRequested]
    replies = tunnel.datagrams_to_send(0.5)
    assert replies and {a for _, a in replies} == {("tcp:192.0.2.9", 40000)}
    assert tcp_address(PEER) == ("tcp:192.0.2.9", 40000)


def test_a_huge_length_closes_at_once_and_creates_nothing() -> None:
    tunnel = server()
    inbound = TcpInbound(tunnel, PEER, 0.0)
    inbound.receive_data(b"\xff\xff" + bytes(100), 0.0)
    assert inbound.closed == "a length of 65535 octets"
    assert tunnel.clients == {} and tunnel.datagrams_to_send(0.0) == []


def test_forged_datagrams_close_after_max_bad_without_a_reply() -> None:
    tunnel = server()
    inbound = TcpInbound(tunnel, PEER, 0.0)
    rng = random.Random(3)
    garbage = [bytes([1]) + rng.randbytes(200) for _ in range(MAX_BAD + 3)]
    for i, datagram in enumerate(garbage[:MAX_BAD]):
        assert inbound.closed is None
        inbound.receive_data(framed(datagram), 0.1 * i)
    assert inbound.closed == f"{MAX_BAD} datagrams that did not authenticate"
    inbound.receive_data(b"".join(framed(d) for d in garbage[MAX_BAD:]), 1.0)  # ignored
    foreign = first_datagrams(bytes(32))  # a key the server does not hold
    other = TcpInbound(tunnel, PEER, 0.0)
    other.receive_data(b"".join(framed(d) for d in foreign), 0.0)
    assert tunnel.rejected == {"key": MAX_BAD + len(foreign)}
    assert tunnel.clients == {} and tunnel.datagrams_to_send(1.0) == []


def test_silence_and_a_trickle_close_at_the_deadline() -> None:
    tunnel = server()
    silent = TcpInbound(tunnel, PEER, 5.0)
    assert silent.get_timer() == 5.0 + FIRST_DATAGRAM_WITHIN
    closed = []
    for now in (14.9, 15.0):
        silent.handle_timer(now)
        closed.append(silent.closed)
    assert closed == [None, "no authentic datagram in time"]
    trickle = TcpInbound(tunnel, PEER, 0.0)
    wire = framed(first_datagrams()[0])
    for i, octet in enumerate(wire[:20]):  # one octet a second: never a whole datagram
        trickle.receive_data(bytes([octet]), float(i))
    assert trickle.closed == "no authentic datagram in time"
    assert tunnel.clients == {} and tunnel.rejected == {}

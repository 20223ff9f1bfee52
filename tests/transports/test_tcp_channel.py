"""The message channel over one TCP connection: framing, ordering under loss, the one
peer it accepts, and failure on an oversized frame or a closing peer."""

import random

import pytest

from wwanlab.core.events import Event
from wwanlab.core.pair import CLIENT_ADDR, SERVER_ADDR, Pair
from wwanlab.tcp import TcpConfig, TcpEndpoint
from wwanlab.tcp.events import ConnectionReset
from wwanlab.transports.channel import ChannelFailed, MessageReceived
from wwanlab.transports.tcp_channel import ChannelState, TcpChannel


def pair(loss: float = 0.0, max_message: int = 1 << 20) -> tuple[TcpChannel, TcpChannel, Pair]:
    rng = random.Random(1)
    config = TcpConfig()
    client = TcpChannel.connect(CLIENT_ADDR, SERVER_ADDR, config, rng, max_message)
    server = TcpChannel.listen(SERVER_ADDR, config, rng, max_message)
    return client, server, Pair(client, server, latency=0.1, loss=loss, rng=random.Random(2))


def received(events: list[Event]) -> list[bytes]:
    return [e.data for e in events if isinstance(e, MessageReceived)]


def test_frame_is_a_length_then_the_message() -> None:
    client, _, p = pair()
    client.send_message(b"hello", 0.0)
    client.send_message(b"", 0.0)
    p.run(until=5.0)
    data = b"".join(
        s.data[(s.data[12] >> 4) * 4 :] for s in p.sent("client")
    )  # TCP payloads, past each header's data offset
    assert data == b"\x00\x00\x00\x05hello\x00\x00\x00\x00"
    assert received(p.server_events) == [b"hello", b""]


def test_messages_arrive_whole_once_and_in_order_under_loss_both_ways() -> None:
    client, server, p = pair(loss=0.05)
    up = [bytes([i]) * (i * 701) for i in range(30)]
    for message in up:
        client.send_message(message, 0.0)
    p.run(until=2.0)  # the server end may answer once the connection is up
    down = [bytes([255 - i]) * (i * 1303 + 1) for i in range(20)]
    for message in down:
        server.send_message(message, p.now)
    p.run(until=300.0)
    assert received(p.server_events) == up
    assert received(p.client_events) == down


def test_the_listening_end_cannot_send_before_a_peer_connects() -> None:
    server = TcpChannel.listen(SERVER_ADDR, TcpConfig(), random.Random(1))
    with pytest.raises(ValueError, match="once a peer has connected"):
        server.send_message(b"x", 0.0)


def test_an_oversized_frame_fails_the_channel_and_resets_the_connection() -> None:
    client, server, p = pair(max_message=100)
    client.send_message(b"x" * 50, 0.0)
    p.run(until=2.0)
    assert client.connection is not None
    # the connecting end frames honestly: forge a header past the bound beneath it
    client.tcp.send(client.connection, (101).to_bytes(4, "big") + b"y" * 101)
    p.run(until=10.0)
    assert received(p.server_events) == [b"x" * 50]
    failed = [e for e in p.server_events if isinstance(e, ChannelFailed)]
    assert [e.reason for e in failed] == ["frame of 101 octets exceeds 100"]
    assert server.state is ChannelState.FAILED
    assert [e.reason for e in p.client_events if isinstance(e, ChannelFailed)] == [
        "the peer reset the connection"
    ]
    server.send_message(b"dropped", p.now)  # after failing, a send is dropped quietly
    with pytest.raises(ValueError, match="exceeds 100"):
        client.send_message(b"z" * 101, p.now)


def test_a_peer_closing_fails_the_channel() -> None:
    client, _, p = pair()
    client.send_message(b"a", 0.0)
    p.run(until=2.0)
    assert client.connection is not None
    client.tcp.close(client.connection)
    p.run(until=10.0)
    assert received(p.server_events) == [b"a"]
    assert [e.reason for e in p.server_events if isinstance(e, ChannelFailed)] == [
        "the peer closed the connection"
    ]


def test_a_second_connection_to_the_listening_end_is_reset() -> None:
    client, server, p = pair()
    client.send_message(b"first", 0.0)
    p.run(until=2.0)
    intruder = TcpEndpoint(CLIENT_ADDR[0], CLIENT_ADDR[1] + 1, TcpConfig(), random.Random(3))
    second = Pair(intruder, server, latency=0.1, client_addr=(CLIENT_ADDR[0], CLIENT_ADDR[1] + 1))
    intruder.connect(SERVER_ADDR, 2.0)
    second.now = 2.0
    second.run(until=10.0)
    assert any(isinstance(e, ConnectionReset) for e in second.client_events)
    assert server.connection == 1 and server.state is ChannelState.OPEN

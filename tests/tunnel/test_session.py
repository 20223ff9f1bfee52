"""The tunnel's ends on the pair harness: streams open, carry data both ways and close;
what does not authenticate creates no state and gets no answer."""

import random
import zlib

import pytest

from wwanlab.core.pair import SERVER_ADDR, Pair
from wwanlab.transports.udp_gprs import UdpGprsChannel
from wwanlab.tunnel.frames import DEFLATE, MAX_PROXY, Frame, FrameError, Kind, Refusal, Techniques
from wwanlab.tunnel.seal import Association, Keys, client_pair
from wwanlab.tunnel.session import (
    CHANNEL_CONFIG,
    MAX_INFLATE,
    OpenRequested,
    ProxyMessage,
    SealedChannel,
    StreamClosed,
    StreamData,
    StreamOpened,
    StreamRefused,
    StreamReset,
    Streams,
    TunnelClient,
    TunnelFailed,
    TunnelServer,
)

KEYS = Keys.from_psk(bytes(range(32)))
WALL = 1_765_000_000.0
A = Association(1_765_000_000, 1)


def tunnel(*, loss: float = 0.0, seed: int = 1) -> Pair:
    client = TunnelClient(SERVER_ADDR, KEYS, random.Random(seed), WALL)
    server = TunnelServer([KEYS], wall_offset=WALL)
    return Pair(client, server, latency=0.3, rate_bps=40_000, loss=loss, rng=random.Random(seed))


def serve(pair: Pair, reply: bytes) -> None:
    """Play the server's driver: accept every OPEN, answer each request with ``reply``."""
    server = pair.server
    assert isinstance(server, TunnelServer)
    for event in pair.server_events:
        if isinstance(event, OpenRequested):
            server.accept(event.client, event.stream, pair.now)
        elif isinstance(event, StreamData):
            server.send(event.client, event.stream, reply, pair.now)
            server.close(event.client, event.stream, pair.now)
    pair.server_events.clear()


def test_a_stream_opens_carries_both_ways_and_closes() -> None:
    pair = tunnel()
    client = pair.client
    assert isinstance(client, TunnelClient)
    stream = client.open_stream("example.org", 80, 0.0)
    client.send(stream, b"GET / HTTP/1.0\r\n\r\n", 0.0)
    pair.run(until=1.0)
    opened = [e for e in pair.server_events if isinstance(e, OpenRequested)]
    assert opened == [OpenRequested(1, KEYS.key_id, "example.org", 80)]
    body = bytes(range(256)) * 200  # 51,200 octets: several DATA frames and datagrams
    serve(pair, body)
    pair.run(until=5.0)
    serve(pair, body)
    pair.run(until=60.0)
    got = b"".join(e.data for e in pair.client_events if isinstance(e, StreamData))
    assert StreamOpened(1) in pair.client_events and got == body
    assert pair.client_events[-1] == StreamClosed(1)


def test_lossy_link_still_delivers_every_octet() -> None:
    pair = tunnel(loss=0.2, seed=4)
    client = pair.client
    assert isinstance(client, TunnelClient)
    stream = client.open_stream("example.org", 80, 0.0)
    client.send(stream, b"x" * 3000, 0.0)
    body = bytes(random.Random(9).randbytes(20_000))
    for until in range(2, 120, 2):
        serve(pair, body)
        pair.run(until=until)
    got = b"".join(e.data for e in pair.client_events if isinstance(e, StreamData))
    assert got == body


def test_refusal_reaches_the_client() -> None:
    pair = tunnel()
    client, server = pair.client, pair.server
    assert isinstance(client, TunnelClient) and isinstance(server, TunnelServer)
    client.open_stream("intranet.local", 22, 0.0)
    pair.run(until=1.0)
    server.refuse(KEYS.key_id, 1, Refusal.POLICY, "10.0.0.5 is not a global address", pair.now)
    pair.run(until=3.0)
    assert StreamRefused(1, b"", Refusal.POLICY, "10.0.0.5 is not a global address") in (
        pair.client_events
    )


def test_forged_and_foreign_datagrams_make_no_state_and_no_reply() -> None:
    server = TunnelServer([KEYS], wall_offset=WALL)
    other = TunnelClient(SERVER_ADDR, Keys.from_psk(bytes(32)), random.Random(1), WALL)
    other.open_stream("example.org", 80, 0.0)
    for data, _ in other.datagrams_to_send(0.0):
        server.receive_datagram(data, ("192.0.2.9", 4000), 0.0)
    for junk in (b"", b"\x01" * 60, bytes(2000)):
        server.receive_datagram(junk, ("192.0.2.9", 4000), 0.0)
    assert server.clients == {} and server.datagrams_to_send(0.0) == []
    assert server.get_timer() is None and server.next_event() is None
    assert server.rejected == {"key": 2, "length": 2}


def test_replayed_and_stale_associations_are_refused() -> None:
    server = TunnelServer([KEYS], wall_offset=WALL)
    old = TunnelClient(SERVER_ADDR, KEYS, random.Random(1), WALL - 121)  # beyond MAX_SKEW
    old.open_stream("example.org", 80, 0.0)
    (stale, _), *_ = old.datagrams_to_send(0.0)
    server.receive_datagram(stale, ("192.0.2.9", 4000), 0.0)
    assert server.clients == {} and server.rejected == {"association": 1}
    first = TunnelClient(SERVER_ADDR, KEYS, random.Random(2), WALL)
    first.open_stream("example.org", 80, 0.0)
    (d1, _), *_ = first.datagrams_to_send(0.0)
    server.receive_datagram(d1, ("192.0.2.9", 4000), 0.0)
    server.receive_datagram(d1, ("192.0.2.9", 4000), 0.1)  # the same datagram again
    assert server.rejected["replay"] == 1
    assert [type(e) for e in iter(server.next_event, None)] == [OpenRequested]
    restarted = TunnelClient(SERVER_ADDR, KEYS, random.Random(3), WALL + 5)
    restarted.open_stream("example.org", 443, 0.0)
    (d2, _), *_ = restarted.datagrams_to_send(0.0)
    server.receive_datagram(d2, ("192.0.2.9", 4001), 5.0)
    events = list(iter(server.next_event, None))
    assert isinstance(events[0], TunnelFailed) and events[1] == OpenRequested(
        1, KEYS.key_id, "example.org", 443
    )
    server.receive_datagram(d1, ("192.0.2.9", 4000), 6.0)  # the older association: never again
    assert server.rejected["association"] == 2
    same_second = TunnelClient(SERVER_ADDR, KEYS, random.Random(4), WALL + 5)
    same_second.open_stream("example.org", 80, 0.0)
    (d3, _), *_ = same_second.datagrams_to_send(0.0)
    server.receive_datagram(d3, ("192.0.2.9", 4002), 5.5)  # another restart in that second
    server.receive_datagram(d2, ("192.0.2.9", 4001), 5.6)  # the one before it, replayed
    assert server.rejected["association"] == 3
    assert server.associations[KEYS.key_id] == Association.of(d3)


def test_compressed_streams_carry_fewer_octets_and_the_same_data() -> None:
    text = b"<p>the same markup again and again</p>\n" * 2000  # 78,000 octets of HTML
    crossed = {}
    for compress in (True, False):
        pair = tunnel()
        client = pair.client
        assert isinstance(client, TunnelClient)
        client.open_stream("example.org", 80, 0.0, compress=compress)
        client.send(1, b"GET / HTTP/1.0\r\n\r\n", 0.0)
        pair.run(until=1.0)
        serve(pair, text)
        pair.run(until=60.0)
        got = b"".join(e.data for e in pair.client_events if isinstance(e, StreamData))
        assert got == text
        crossed[compress] = sum(len(s.data) for s in pair.sent("server"))
    assert crossed[True] < crossed[False] / 20


def test_a_deflate_bomb_or_garbage_resets_only_its_stream() -> None:
    server = Streams(SealedChannel(UdpGprsChannel.server(CHANNEL_CONFIG), *client_pair(KEYS, A)))
    events = server._frame(Frame(Kind.OPEN, 1, host="h", port=80, flags=DEFLATE), 0.0)
    assert events == [OpenRequested(1, b"", "h", 80)]
    bomb = zlib.compressobj(9, zlib.DEFLATED, -15)
    data = bomb.compress(bytes(MAX_INFLATE + 1)) + bomb.flush(zlib.Z_SYNC_FLUSH)
    assert len(data) < 2000
    assert server._frame(Frame(Kind.DATA, 1, data), 0.0) == [StreamReset(1)]
    server._frame(Frame(Kind.OPEN, 3, host="h", port=80, flags=DEFLATE), 0.0)
    assert server._frame(Frame(Kind.DATA, 3, b"\xff\xff\xff"), 0.0) == [StreamReset(3)]
    assert not server.failed and server.open == set()


def test_a_stream_closed_both_ways_is_forgotten_on_both_sides() -> None:
    pair = tunnel()
    client, server = pair.client, pair.server
    assert isinstance(client, TunnelClient) and isinstance(server, TunnelServer)
    client.open_stream("example.org", 80, 0.0)
    client.send(1, b"GET / HTTP/1.0\r\n\r\n", 0.0)
    client.close(1, 0.0)  # the request is all: done this way
    pair.run(until=1.0)
    held = server.clients[KEYS.key_id]
    assert held.closed_in == {1} and held.deflate.keys() == {1}
    serve(pair, b"the reply")
    assert not server.holds(KEYS.key_id, 1) and held.deflate == {} and held.closed_in == set()
    pair.run(until=5.0)
    assert pair.client_events[-2:] == [StreamData(1, b"", b"the reply"), StreamClosed(1)]
    assert not client.holds(1) and client.streams.deflate == {}
    for streams in (held, client.streams):
        assert (streams.open, streams.opening, streams.closed_out) == (set(), set(), set())
    # a peer's DATA after its CLOSE breaks the rules: the stream is reset
    client.open_stream("example.org", 80, 5.0, compress=False)
    client.close(3, 5.0)
    client.send(3, b"late", 5.0)
    pair.run(until=8.0)
    third = [e for e in pair.server_events if getattr(e, "stream", None) == 3]
    assert third[-1] == StreamReset(3, KEYS.key_id) and not server.holds(KEYS.key_id, 3)


def test_proxy_messages_cross_compressed_and_a_bomb_fails_the_channel() -> None:
    text = b"GET http://img.example/images/%d.gif HTTP/1.1\r\nAccept: */*\r\n" * 40
    crossed = {}
    for techniques in (Techniques(), Techniques(compress=False)):
        pair = tunnel()
        client = pair.client
        assert isinstance(client, TunnelClient)
        client.send_proxy(text, techniques, 0.0)
        pair.run(until=20)
        assert pair.server_events == [ProxyMessage(text, techniques, KEYS.key_id)]
        crossed[techniques.compress] = sum(len(s.data) for s in pair.sent("client"))
    assert crossed[False] - crossed[True] > len(text) * 0.9
    server = Streams(SealedChannel(UdpGprsChannel.server(CHANNEL_CONFIG), *client_pair(KEYS, A)))
    bomb = zlib.compressobj(9, zlib.DEFLATED, -15)
    data = bomb.compress(bytes(MAX_PROXY + 1)) + bomb.flush(zlib.Z_SYNC_FLUSH)
    with pytest.raises(FrameError, match="inflates past"):  # Streams.events fails the channel
        server._frame(Frame(Kind.PROXY, 0, data, techniques=Techniques()), 0.0)

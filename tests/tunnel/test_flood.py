"""A flood of forged datagrams at the sans-IO server: random octets, other keys, the
server's key id with a bad tag, and replays of one genuine datagram. None creates
state or draws a reply, and each is counted under its reason."""

import random
from collections import Counter

from wwanlab.core.pair import SERVER_ADDR
from wwanlab.tunnel.seal import (
    HEADER_LEN,
    MAX_DATAGRAM,
    TAG_LEN,
    VERSION,
    Association,
    Keys,
    client_pair,
)
from wwanlab.tunnel.session import OpenRequested, TunnelClient, TunnelServer

KEYS = Keys.from_psk(bytes(range(32)))
WALL = 1_765_000_000.0
FLOODER = ("198.51.100.7", 5000)
EACH = 500  # datagrams of each of the four kinds: 2,000 in all


def reason_of_random(datagram: bytes) -> str:
    """The reason the wire format gives for refusing random octets."""
    if not HEADER_LEN + TAG_LEN <= len(datagram) <= MAX_DATAGRAM:
        return "length"
    return "version" if datagram[0] != VERSION else "key"


def forged(rng: random.Random) -> tuple[list[bytes], Counter[str]]:
    """Three kinds of forgery and the reasons each must be refused for."""
    datagrams, expected = [], Counter[str]()
    for _ in range(EACH):  # random octets, one in two with our version octet
        data = rng.randbytes(rng.randrange(0, 1600))
        if data and rng.random() < 0.5:
            data = bytes([VERSION]) + data[1:]
        datagrams.append(data)
        expected[reason_of_random(data)] += 1
    other, _ = client_pair(Keys.from_psk(rng.randbytes(32)), Association.new(WALL, 7))
    for _ in range(EACH):  # well sealed, under a key the server does not hold
        datagrams.append(other.seal(rng.randbytes(rng.randrange(0, 1000))))
    expected["key"] += EACH
    for _ in range(EACH):  # our key id, a timely new association, a bad tag
        association = Association.new(WALL + 2, rng.getrandbits(32)).encode()
        header = bytes([VERSION]) + KEYS.key_id + association + rng.randbytes(8)
        datagrams.append(header + rng.randbytes(rng.randrange(TAG_LEN, 1000)))
    expected["tag"] += EACH
    return datagrams, expected


def test_a_flood_creates_no_state_and_draws_no_reply() -> None:
    rng = random.Random(11)
    server = TunnelServer([KEYS], wall_offset=WALL)
    datagrams, expected = forged(rng)
    for i, data in enumerate(datagrams):
        server.receive_datagram(data, FLOODER, i * 1e-4)
    assert server.rejected == expected and server.rejected.total() == 3 * EACH
    assert server.clients == {} and server.associations == {}
    assert server.datagrams_to_send(1.0) == [] and server.get_timer() is None
    assert server.next_event() is None
    # a genuine client associates; replays of its datagram and the same forgeries
    # change nothing of its state and draw nothing to anyone
    client = TunnelClient(SERVER_ADDR, KEYS, rng, WALL + 2)
    client.open_stream("example.org", 80, 0.0)
    (genuine, _), *_ = client.datagrams_to_send(0.0)
    server.receive_datagram(genuine, ("192.0.2.9", 4000), 1.0)
    assert [type(e) for e in iter(server.next_event, None)] == [OpenRequested]
    replies = server.datagrams_to_send(1.0)
    assert {a for _, a in replies} == {("192.0.2.9", 4000)}
    streams = server.clients[KEYS.key_id]
    window, timer = streams.channel.opener.window.newest, server.get_timer()
    server.rejected.clear()
    for data in [genuine] * EACH + datagrams:
        server.receive_datagram(data, FLOODER, 1.0)
    assert server.rejected == expected + Counter(replay=EACH)
    assert list(server.clients) == [KEYS.key_id] and server.clients[KEYS.key_id] is streams
    assert streams.channel.opener.window.newest == window and streams.open == {1}
    assert server.get_timer() == timer and server.next_event() is None
    assert server.datagrams_to_send(1.0) == []

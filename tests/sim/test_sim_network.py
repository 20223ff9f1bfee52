import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wwanlab.core.address import Address
from wwanlab.core.contract import PING_TIMEOUT, Echoer, Pinger, PongReceived
from wwanlab.core.events import Event
from wwanlab.link.base import Direction, Drop
from wwanlab.link.delay import ConstantDelay
from wwanlab.link.rate import Rate
from wwanlab.sim import FORWARD, HOLD, Network, Replace, read_pcap
from wwanlab.sim.host import Binding, Host
from wwanlab.sim.ipv4 import (
    PROTO_UDP,
    PacketError,
    build_ipv4,
    build_udp,
    internet_checksum,
    parse_ipv4,
    parse_udp,
)
from wwanlab.sim.link import Channel
from wwanlab.sim.router import HookResult, Router

# Delays and rates chosen as binary fractions so virtual times are exact floats.
D1, D2 = 0.125, 0.25  # one-way delays client-router and router-server
RATE = 8192.0  # bit/s: a 32-octet ping (20 IP + 8 UDP + 4 payload) takes 1/32 s


class Sink:
    """Records what arrives; sends whatever the test queues in ``out``."""

    def __init__(self) -> None:
        self.got: list[tuple[bytes, Address, float]] = []
        self.out: list[tuple[bytes, Address]] = []

    def receive_datagram(self, data: bytes, addr: Address, now: float) -> None:
        self.got.append((data, addr, now))

    def handle_timer(self, now: float) -> None:
        pass

    def get_timer(self) -> float | None:
        return None

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Address]]:
        out, self.out = self.out, []
        return out

    def next_event(self) -> Event | None:
        return None


def three_nodes(direction, hook=None, rate=None, mtu=1500, seed=0):
    net = Network(seed=seed)
    client = net.add_host("client", "10.0.0.1")
    server = net.add_host("server", "10.0.1.2")
    router = net.add_router("r", hook=hook)
    net.connect(client, router, direction(D1, rate), direction(D1, rate), mtu=mtu)
    net.connect(router, server, direction(D2, rate), direction(D2, rate), mtu=mtu)
    return net, client, router, server


def test_ping_through_a_router_has_exact_virtual_rtts(direction):
    net, client, _router, server = three_nodes(direction, rate=RATE)
    pinger = Pinger(("10.0.1.2", 7), count=3)
    seen: list[tuple[float, Event]] = []
    binding = client.bind_udp(40000, pinger, on_event=lambda e: seen.append((net.now, e)))
    server.bind_udp(7, Echoer())
    pinger.start(now=0.0)
    binding.flush()
    net.run()
    rtt = 2 * (D1 + D2) + 4 / 32  # four hops of 1/32 s serialization each
    assert rtt == 0.875
    assert seen == [(rtt, PongReceived(0, rtt)), (2 * rtt, PongReceived(1, rtt)),
                    (3 * rtt, PongReceived(2, rtt))]  # fmt: skip
    assert client.stats.sent_packets == 3 and client.stats.delivered_packets == 3
    assert server.stats.delivered_packets == 3 and server.stats.sent_bytes == 3 * 32
    link = net.links[0]
    assert link.ab.stats.delivered_packets == 3 and link.ba.stats.delivered_bytes == 96
    assert net.now == 3 * rtt


def test_a_dropped_ping_is_resent_on_the_endpoint_timer(direction):
    dropped: list[float] = []

    def drop_first(packet: bytes, channel: Channel | None, now: float) -> HookResult:
        if not dropped:
            dropped.append(now)
            return Drop("proxy")
        return FORWARD

    net, client, router, server = three_nodes(direction, hook=drop_first)
    pinger = Pinger(("10.0.1.2", 7), count=1)
    binding = client.bind_udp(40000, pinger)
    server.bind_udp(7, Echoer())
    pinger.start(now=0.0)
    binding.flush()
    net.run()
    assert dropped == [D1]
    assert binding.events == [PongReceived(0, 2 * (D1 + D2))]
    assert net.now == PING_TIMEOUT + 2 * (D1 + D2)
    assert router.stats.dropped == {"proxy": 1}
    assert client.stats.sent_packets == 2


def test_hook_can_replace_hold_and_inject(direction):
    held: list[bytes] = []

    def hook(packet: bytes, channel: Channel | None, now: float) -> HookResult:
        header, segment = parse_ipv4(packet)
        _, payload = parse_udp(header.src, header.dst, segment)
        if payload == b"hold":
            held.append(packet)
            return HOLD
        if payload == b"swap":
            udp = build_udp(header.src, header.dst, 5, 9, b"swapped")
            return Replace(build_ipv4(header.src, header.dst, PROTO_UDP, udp, ttl=9))
        return FORWARD

    net, client, router, server = three_nodes(direction, hook=hook)
    capture = io.BytesIO()
    net.capture(server, capture)
    sink = Sink()
    server.bind_udp(9, sink)
    sender = Sink()
    binding = client.bind_udp(5, sender)
    sender.out += [(b"hold", ("10.0.1.2", 9)), (b"swap", ("10.0.1.2", 9))]
    binding.flush()
    net.run(until=1.0)
    assert sink.got == [(b"swapped", ("10.0.0.1", 5), D1 + D2)]
    router.inject(held[0], now=2.0)
    net.run()
    assert sink.got[1] == (b"hold", ("10.0.0.1", 5), 2.0 + D2)
    assert router.stats.held_packets == 1 and router.stats.injected_packets == 1
    net.close()
    _, records = read_pcap(capture.getvalue())
    ttls = [parse_ipv4(p)[0].ttl for _, p in records]
    assert ttls == [8, 64]  # replaced packet was forwarded (TTL 9-1); injected kept 64


def test_mtu_ttl_unbound_port_and_link_drops_are_counted(direction):
    net, client, router, server = three_nodes(direction, mtu=100)
    sender = Sink()
    binding = client.bind_udp(5, sender)
    sender.out += [(b"x" * 73, ("10.0.1.2", 9)), (b"y" * 72, ("10.0.1.2", 9))]
    binding.flush()
    expired = build_ipv4("10.0.0.1", "10.0.1.2", PROTO_UDP, build_udp(
        "10.0.0.1", "10.0.1.2", 5, 9, b"z"), ttl=1)  # fmt: skip
    client.send_packet(expired)
    client.send_packet(build_ipv4("10.0.0.1", "10.9.9.9", PROTO_UDP, b""))
    net.run()
    assert net.links[0].ab.stats.dropped == {"mtu": 1}  # 101 octets > 100
    assert net.links[0].ab.stats.dropped_bytes == 101
    assert router.stats.dropped == {"ttl": 1}
    assert client.stats.dropped == {"no-route": 1}
    assert server.stats.dropped == {"no-port": 1}  # the 100-octet one, nobody on port 9
    assert server.stats.received_packets == 1


def test_direction_drops_are_counted_by_reason(direction):
    net = Network(seed=1)
    a, b = net.add_host("a", "10.0.0.1"), net.add_host("b", "10.0.0.2")
    link = net.connect(a, b, direction(0.01, loss=0.5), direction(0.01))
    sink, sender = Sink(), Sink()
    b.bind_udp(9, sink)
    binding = a.bind_udp(5, sender)
    sender.out += [(bytes([i]), ("10.0.0.2", 9)) for i in range(200)]
    binding.flush()
    net.run()
    lost = link.ab.stats.dropped["loss:coin"]
    # Binomial(200, 0.5): mean 100, sd ~7.1; 4 standard deviations either side.
    assert 72 <= lost <= 128
    assert len(sink.got) + lost == 200
    assert net.stats()["a-b:a>b"]["dropped"] == {"loss:coin": lost}


class SegmentEcho:
    """A transport of test protocol 253 (RFC 3692 experimentation): ports at 0..3."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.got: list[tuple[bytes, Address]] = []
        self.out: list[tuple[bytes, Address]] = []

    def send(self, dst: Address, body: bytes) -> None:
        segment = self.port.to_bytes(2, "big") + dst[1].to_bytes(2, "big") + body
        self.out.append((segment, dst))

    def receive_datagram(self, data: bytes, addr: Address, now: float) -> None:
        self.got.append((data, addr))

    def handle_timer(self, now: float) -> None:
        pass

    def get_timer(self) -> float | None:
        return None

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Address]]:
        out, self.out = self.out, []
        return out

    def next_event(self) -> Event | None:
        return None


def test_bind_transport_wraps_segments_and_demultiplexes_by_port(direction):
    net, client, _router, server = three_nodes(direction)
    capture = io.BytesIO()
    net.capture(net.links[1], capture, point="rx")
    a, b = SegmentEcho(1111), SegmentEcho(80)
    binding = client.bind_transport(253, 1111, a)
    server.bind_transport(253, 80, b)
    a.send(("10.0.1.2", 80), b"GET")
    a.send(("10.0.1.2", 81), b"nobody")
    binding.flush()
    net.run()
    assert b.got == [(b"\x04\x57\x00\x50GET", ("10.0.0.1", 1111))]
    assert server.stats.dropped == {"no-port": 1}
    net.close()
    _, records = read_pcap(capture.getvalue())
    header, segment = parse_ipv4(records[0][1])
    assert (records[0][0], header.protocol, header.ttl, segment) == (
        D1 + D2, 253, 63, b"\x04\x57\x00\x50GET"
    )  # fmt: skip


def test_routes_take_the_fewest_hops_and_never_cross_a_host(direction):
    net = Network()
    h1, h2, h3 = (net.add_host(f"h{i}", f"10.0.0.{i}") for i in (1, 2, 3))
    r1, r2, r3 = (net.add_router(f"r{i}") for i in (1, 2, 3))
    d = direction
    net.connect(h1, r1, d(0), d(0))
    net.connect(r1, r2, d(0), d(0))
    net.connect(r2, r3, d(0), d(0))
    net.connect(r3, h2, d(0), d(0))
    net.connect(r1, r3, d(0), d(0), name="shortcut")
    net.connect(h3, r1, d(0), d(0))
    net.connect(h3, r2, d(0), d(0))  # h3 is multi-homed but must not be a transit

    def next_hop(node: Host | Router, dst: str) -> str:
        return node.routes[bytes(int(x) for x in dst.split("."))].dst.name

    assert next_hop(h1, "10.0.0.2") == "r1"
    assert next_hop(r1, "10.0.0.2") == "r3"  # via the shortcut, not r2
    assert next_hop(r2, "10.0.0.2") == "r3"
    assert next_hop(r2, "10.0.0.1") == "r1"  # not through h3
    assert next_hop(r3, "10.0.0.3") == "r2"  # tie: link r2-r3 was made before the shortcut
    assert next_hop(h3, "10.0.0.2") == "r1"
    sink = Sink()
    h2.bind_udp(9, sink)
    h1.send_packet(build_ipv4("10.0.0.1", "10.0.0.2", PROTO_UDP, build_udp(
        "10.0.0.1", "10.0.0.2", 1, 9, b"hi")))  # fmt: skip
    net.run()
    assert sink.got == [(b"hi", ("10.0.0.1", 1), 0.0)]
    assert net.nodes["r2"].stats.received_packets == 0


def test_a_host_ignores_packets_not_addressed_to_it_and_malformed_ones(direction):
    net = Network()
    a, b = net.add_host("a", "10.0.0.1"), net.add_host("b", "10.0.0.2")
    link = net.connect(a, b, direction(0), direction(0))
    link.ab.send(build_ipv4("10.0.0.1", "10.0.0.7", PROTO_UDP, b""))
    link.ab.send(b"\x45" + b"\x00" * 30)
    net.run()
    assert b.stats.dropped == {"not-for-me": 1, "malformed": 1}


def test_event_callback_may_issue_commands(direction):
    """An experiment reacting to an event (start the next request) inside the drain."""
    net, client, _router, server = three_nodes(direction)
    server.bind_udp(7, Echoer())
    pingers = [Pinger(("10.0.1.2", 7), count=1) for _ in range(3)]
    done: list[float] = []
    bindings: list[Binding] = []

    def next_one(event: Event) -> None:
        done.append(net.now)
        if len(done) < 3:
            pingers[len(done)].start(net.now)
            bindings[len(done)].flush()

    for i, p in enumerate(pingers):
        bindings.append(client.bind_udp(40000 + i, p, on_event=next_one))
    pingers[0].start(0.0)
    bindings[0].flush()
    net.run()
    assert done == [0.75, 1.5, 2.25]


def test_misuse_is_rejected(direction):
    net = Network()
    a = net.add_host("a", "10.0.0.1")
    with pytest.raises(ValueError, match="already"):
        net.add_host("b", "10.0.0.1")
    with pytest.raises(ValueError, match="already exists"):
        net.add_router("a")
    r = net.add_router("r")
    shared = direction(0)
    with pytest.raises(ValueError, match="own Direction"):
        net.connect(a, r, shared, shared)
    a.bind_udp(5, Sink())
    with pytest.raises(ValueError, match="already bound"):
        a.bind_udp(5, Sink())
    other = Network().add_host("x", "10.0.0.9")
    with pytest.raises(ValueError, match="does not belong"):
        net.connect(a, other, direction(0), direction(0))


def test_router_capture_shows_arrivals_and_injections(direction):
    held: list[bytes] = []

    def keep(packet: bytes, channel: Channel | None, now: float) -> HookResult:
        held.append(packet)
        return HOLD

    net, client, router, _server = three_nodes(direction, hook=keep)
    capture = io.BytesIO()
    net.capture(router, capture)
    sender = Sink()
    binding = client.bind_udp(5, sender)
    sender.out.append((b"x", ("10.0.1.2", 9)))
    binding.flush()
    net.run(until=1.0)
    router.inject(held[0])
    net.run()
    net.close()
    _, records = read_pcap(capture.getvalue())
    assert records == [(D1, held[0]), (1.0, held[0])]


@given(st.binary(max_size=80))
def test_hosts_and_routers_count_garbage_and_never_raise(data):
    net = Network()
    a, b = net.add_host("a", "10.0.0.1"), net.add_host("b", "10.0.0.2")
    r = net.add_router("r")
    net.connect(a, r, Direction([ConstantDelay(0.0)]), Direction([ConstantDelay(0.0)]))
    link = net.connect(r, b, Direction([ConstantDelay(0.0)]), Direction([ConstantDelay(0.0)]))
    b.bind_udp(9, Sink())
    b.bind_transport(6, 80, Sink())
    r.receive(data, None)
    link.ab.send(data)
    net.run()
    assert r.stats.received_packets == 1 and b.stats.received_packets >= 1


def test_ping_over_the_link_packages_constant_delay_and_rate():
    net = Network()
    client = net.add_host("client", "10.0.0.1")
    server = net.add_host("server", "10.0.1.2")
    router = net.add_router("r")

    def line(delay: float) -> Direction:
        return Direction([Rate(8192), ConstantDelay(delay)])

    net.connect(client, router, line(D1), line(D1))
    net.connect(router, server, line(D2), line(D2))
    pinger = Pinger(("10.0.1.2", 7), count=2)
    binding = client.bind_udp(40000, pinger)
    server.bind_udp(7, Echoer())
    pinger.start(0.0)
    binding.flush()
    net.run()
    assert binding.events == [PongReceived(0, 0.875), PongReceived(1, 0.875)]


def reference_verdict(packet: bytes) -> tuple[str, object]:
    """What a host must do with ``packet``, by the parsers: drop reason or delivery."""
    try:
        header, payload = parse_ipv4(packet)
        if header.dst != "10.0.0.2":
            return "not-for-me", None
        if header.more_fragments or header.fragment_offset:
            return "fragment", None
        if header.protocol == PROTO_UDP:
            udp, payload = parse_udp(packet[12:16], packet[16:20], payload)
            ports = (udp.src_port, udp.dst_port)
        else:
            if len(payload) < 4:
                raise PacketError("no ports")
            ports = (int.from_bytes(payload[:2], "big"), int.from_bytes(payload[2:4], "big"))
    except PacketError:
        return "malformed", None
    if (header.protocol, ports[1]) not in {(PROTO_UDP, 9), (6, 80)}:
        return "no-port", None
    return "delivered", (payload, (header.src, ports[0]))


@st.composite
def arriving_packets(draw: st.DrawFn) -> bytes:
    """IPv4 packets for host 10.0.0.2 that are right, or wrong in one or more fields."""
    protocol = draw(st.sampled_from([PROTO_UDP, 6, 99]))
    payload = draw(st.binary(max_size=40))
    dst = draw(st.sampled_from(["10.0.0.2", "10.0.0.3"]))
    if protocol == PROTO_UDP:
        port = draw(st.sampled_from([9, 10]))
        segment = bytearray(build_udp("10.0.0.1", dst, 4000, port, payload))
        if draw(st.booleans()):
            segment[4:6] = draw(st.integers(0, 80)).to_bytes(2, "big")  # UDP length
        if draw(st.booleans()):
            segment[6:8] = draw(st.sampled_from([0, 1, 0xFFFF])).to_bytes(2, "big")
    else:
        segment = bytearray(draw(st.sampled_from([b"", b"\x0f", b"\x0f\xa0\x00\x50"])) + payload)
    options = draw(st.sampled_from([b"", b"\x01\x01\x01\x01"]))
    header = bytearray(build_ipv4("10.0.0.1", dst, protocol, b"")[:20] + options)
    header[0] = 0x40 | len(header) // 4
    total = len(header) + len(segment)
    if draw(st.booleans()):
        total = draw(st.integers(0, total + 8))
    header[2:4] = total.to_bytes(2, "big")
    header[6] |= draw(st.sampled_from([0, 0x20, 0x01]))  # MF, or an offset
    header[7] = draw(st.sampled_from([0, 0, 8]))
    header[10:12] = b"\x00\x00"
    header[10:12] = internet_checksum(bytes(header)).to_bytes(2, "big")
    if draw(st.booleans()):
        header[draw(st.integers(0, len(header) - 1))] ^= 1 << draw(st.integers(0, 7))
    return bytes(header + segment + draw(st.sampled_from([b"", b"\x00\x00"])))


@given(arriving_packets())
def test_hosts_check_packets_exactly_as_the_parsers_do(packet):
    net = Network()
    b = net.add_host("b", "10.0.0.2")
    udp, tcp = Sink(), Sink()
    b.bind_udp(9, udp)
    b.bind_transport(6, 80, tcp)
    b.receive(packet, None)
    reason, delivery = reference_verdict(packet)
    if reason == "delivered":
        assert b.stats.dropped == {} and b.stats.delivered_packets == 1
        assert [(data, addr) for data, addr, _ in udp.got + tcp.got] == [delivery]
    else:
        assert b.stats.dropped == {reason: 1} and not udp.got + tcp.got

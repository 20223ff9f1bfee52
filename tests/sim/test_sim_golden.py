"""Pinned output: a busy scenario's pcaps, counters and endpoint events, by sha256.

The digests were taken from the simulator before its hot paths were rewritten for
speed (docs/performance.md, "Simulator"). Any change to a packet's bytes, a timestamp,
the order of two records, a random draw or a drop reason changes a digest, so this
file proves that a faster simulator is the same simulator. The scenario touches every
path a packet can take: UDP and raw-transport bindings, queue overflow, random loss,
jitter with and without FIFO order, the MTU check, a router hook that holds, replaces
and drops, delayed injection, TTL expiry, a corrupted header, a bad UDP checksum, an
unbound port, a packet a host sends to itself, and a packet for an unknown network.
"""

import hashlib
import json
from pathlib import Path

from wwanlab.core.address import Address
from wwanlab.core.contract import Echoer, Pinger
from wwanlab.core.events import Event
from wwanlab.link.base import Direction, Drop
from wwanlab.link.delay import ConstantDelay, UniformDelay
from wwanlab.link.loss import BernoulliLoss
from wwanlab.link.queue import DropTailQueue
from wwanlab.link.rate import Rate
from wwanlab.sim import FORWARD, HOLD, Network, Replace
from wwanlab.sim.ipv4 import (
    FLAG_MF,
    PROTO_TCP,
    PROTO_UDP,
    build_ipv4,
    build_udp,
    internet_checksum,
)
from wwanlab.sim.link import Channel
from wwanlab.sim.router import HookResult, Router

GOLDEN = {
    "client.pcap": "871ec92d98da3d9c9f45c9eb3bf2a3ec6e3cdba061e30804d5c48636c1d533cc",
    "router.pcap": "e1b88436407100f0f6ff63284e65d25da43f628687063460303b7500d6d11702",
    "server.pcap": "c1a6a494559c35100582491fbe083cf122825994228cbda04d0425a617d747d7",
    "access-tx.pcap": "b72de83471100469ebeb414050efd2723283e9025282979596214ed0beead26e",
    "core-rx.pcap": "0911eaebcf71c4621b15a7b987edf4cd595b21528ccd84028c1c9c5a92df13ec",
    "stats": "397735619997b37e1e414ed3f7683f4cd950b37ec074caa0f22eca6b501be42d",
    "events": "182ff201b1faa94b398f28987a72ea15399dc142d6189a04d878f36033d01d77",
}


class Burst:
    """Sends ``size``-octet datagrams to ``peer`` in bursts of ``per_burst`` every ``gap``."""

    def __init__(self, peer: Address, size: int, per_burst: int, bursts: int, gap: float):
        self.peer = peer
        self.size = size
        self.per_burst = per_burst
        self.left = bursts
        self.gap = gap
        self.timer: float | None = 0.0
        self.out: list[tuple[bytes, Address]] = []
        self.sent = 0
        self.got: list[tuple[bytes, Address, float]] = []

    def receive_datagram(self, data: bytes, addr: Address, now: float) -> None:
        self.got.append((data, addr, now))

    def handle_timer(self, now: float) -> None:
        for _ in range(self.per_burst):
            self.out.append((self.sent.to_bytes(2, "big") * (self.size // 2), self.peer))
            self.sent += 1
        self.left -= 1
        self.timer = now + self.gap if self.left else None

    def get_timer(self) -> float | None:
        return self.timer

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Address]]:
        out, self.out = self.out, []
        return out

    def next_event(self) -> Event | None:
        return None


class Segments(Burst):
    """A raw transport endpoint: sends whole segments (its own 4 octets of ports first)."""

    def handle_timer(self, now: float) -> None:
        for _ in range(self.per_burst):
            body = b"\x13\x88\x00\x50" + self.sent.to_bytes(4, "big") * 4  # ports 5000 -> 80
            self.out.append((body, self.peer))
            self.sent += 1
        self.left -= 1
        self.timer = now + self.gap if self.left else None


class Proxy:
    """A hook that forwards most packets, holds every 7th (injecting it 50 ms later),
    forwards a copy in place of every 5th and drops every 11th."""

    def __init__(self) -> None:
        self.router: Router | None = None
        self.seen = 0

    def __call__(self, packet: bytes, channel: Channel | None, now: float) -> HookResult:
        self.seen += 1
        assert self.router is not None
        if self.seen % 11 == 0:
            return Drop("proxy")
        if self.seen % 7 == 0:
            self.router.inject(packet, now + 0.05)
            return HOLD
        if self.seen % 5 == 0:
            return Replace(bytes(packet))
        return FORWARD


def access() -> Direction:
    queue = DropTailQueue(Rate(256_000, 6), packets=6)
    return Direction([queue, UniformDelay(0.01, 0.04), BernoulliLoss(0.05)])


def core() -> Direction:
    queue = DropTailQueue(Rate(2e6), bytes=4000)
    return Direction([queue, ConstantDelay(0.02), UniformDelay(0.0, 0.01)], fifo=False)


def fragment(udp: bytes) -> bytes:
    """A first fragment (More Fragments set) from the client to the server."""
    packet = bytearray(build_ipv4("10.0.0.1", "10.0.1.2", PROTO_UDP, udp, dont_fragment=False))
    packet[6] |= FLAG_MF >> 8
    packet[10:12] = b"\x00\x00"
    packet[10:12] = internet_checksum(bytes(packet[:20])).to_bytes(2, "big")
    return bytes(packet)


def with_options(udp: bytes) -> bytes:
    """A 24-octet header (four NOP options, RFC 791) from the client to the server."""
    plain = build_ipv4("10.0.0.1", "10.0.1.2", PROTO_UDP, udp)
    header = bytearray(plain[:20] + b"\x01" * 4)
    header[0] = 0x46
    header[2:4] = (len(plain) + 4).to_bytes(2, "big")
    header[10:12] = b"\x00\x00"
    header[10:12] = internet_checksum(bytes(header)).to_bytes(2, "big")
    return bytes(header) + plain[20:]


def scenario(out: Path) -> tuple[Network, list[object]]:
    net = Network(seed=2026)
    client = net.add_host("client", "10.0.0.1")
    server = net.add_host("server", "10.0.1.2")
    proxy = Proxy()
    router = net.add_router("r", hook=proxy)
    proxy.router = router
    net.connect(client, router, access(), access(), mtu=1200, name="access")
    net.connect(router, server, core(), core(), name="core")
    net.capture(client, out / "client.pcap")
    net.capture(router, out / "router.pcap")
    net.capture(server, out / "server.pcap")
    net.capture(net.links[0], out / "access-tx.pcap")
    net.capture(net.links[1], out / "core-rx.pcap", point="rx")
    events: list[object] = []
    server.bind_udp(7, Echoer())
    for i in range(6):
        pinger = Pinger(("10.0.1.2", 7), count=8)
        binding = client.bind_udp(40000 + i, pinger, on_event=events.append)
        pinger.start(0.001 * i)
        binding.flush()
    burst = Burst(("10.0.1.2", 7), 1000, per_burst=12, bursts=5, gap=0.4)
    client.bind_udp(41000, burst)
    big = Burst(("10.0.1.2", 7), 1300, per_burst=1, bursts=2, gap=0.3)  # over the MTU
    client.bind_udp(41001, big)
    stray = Burst(("10.0.1.2", 9), 20, per_burst=2, bursts=2, gap=0.5)  # no one on port 9
    client.bind_udp(41002, stray)
    selfish = Burst(("10.0.0.1", 41003), 30, per_burst=1, bursts=3, gap=0.2)
    client.bind_udp(41003, selfish)
    segments = Segments(("10.0.1.2", 80), 0, per_burst=3, bursts=3, gap=0.25)
    client.bind_transport(PROTO_TCP, 5000, segments)
    server.bind_transport(PROTO_TCP, 80, Echoer())
    for b in client.bindings.values():
        b.flush()
    udp = build_udp("10.0.0.1", "10.0.1.2", 41500, 7, b"expiring")
    for at in (0.3, 0.31, 0.32):
        expiring = build_ipv4("10.0.0.1", "10.0.1.2", PROTO_UDP, udp, ttl=1)
        net.kernel.schedule(client.send_packet, expiring, at=at)
    corrupt = bytearray(build_ipv4("10.0.0.1", "10.0.1.2", PROTO_UDP, udp, identification=9))
    corrupt[10] ^= 0x40
    net.kernel.schedule(client.send_packet, bytes(corrupt), at=0.35)
    bad_udp = bytearray(build_ipv4("10.0.0.1", "10.0.1.2", PROTO_UDP, udp, identification=10))
    bad_udp[-1] ^= 0x01
    net.kernel.schedule(client.send_packet, bytes(bad_udp), at=0.4)
    nowhere = build_ipv4("10.0.0.1", "10.9.9.9", PROTO_UDP, udp)
    net.kernel.schedule(client.send_packet, nowhere, at=0.45)
    net.kernel.schedule(router.inject, build_ipv4("10.0.1.2", "10.0.0.1", 99, b"hi"), at=0.5)
    net.kernel.schedule(router.inject, fragment(udp), at=0.55)
    net.kernel.schedule(router.inject, with_options(udp), at=0.6)
    net.run(until=30.0)
    net.close()
    events.extend(burst.got + big.got + stray.got + selfish.got + segments.got)
    return net, events


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_pcaps_counters_and_events_are_pinned(tmp_path):
    net, events = scenario(tmp_path)
    got = {name: digest((tmp_path / name).read_bytes()) for name in GOLDEN if "." in name}
    got["stats"] = digest(json.dumps(net.stats(), sort_keys=True).encode())
    got["events"] = digest(repr(events).encode())
    assert got == GOLDEN

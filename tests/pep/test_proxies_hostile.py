"""Snoop, Split and TCP-WWAN on a hostile path: random loss, duplication and reordering on both
sides of the proxy, plus forged segments (stray data, forged ACKs, RSTs) aimed at the
proxy and the mobile. Whatever happens, the mobile's application receives a prefix of
what the fixed host sent: never a wrong byte, never one twice.

The harness is a small virtual-time loop over IPv4 packets: the fixed host's and the
mobile's ``TcpEndpoint`` at the ends, the proxy (``PacketProxy``) in the middle.
"""

import heapq
import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from wwanlab.pep.snoop import SnoopAgent
from wwanlab.pep.split import SplitProxy
from wwanlab.pep.tcp_wwan import TcpWwanProxy
from wwanlab.sim.ipv4 import PROTO_TCP, build_ipv4, parse_ipv4
from wwanlab.tcp import DataReceived, TcpConfig, TcpEndpoint
from wwanlab.tcp.segment import ACK, RST, encode_segment, pseudo_header_sum

FH, MH = "192.0.2.1", "198.51.100.1"
FH_PORT, MH_PORT = 20, 50000
SIZE = 20_000
ONE_WAY = 0.05  # s on each side of the proxy
END = 600.0  # s of virtual time


class Path:
    """FH --wired-- proxy --radio-- MH, each hop lossy, duplicating and jittery."""

    def __init__(self, proxy: SnoopAgent | SplitProxy, rng: random.Random, loss: float,
                 dup: float) -> None:  # fmt: skip
        config = TcpConfig(mss=536, time_wait=1.0)
        self.fh = TcpEndpoint(FH, FH_PORT, config, random.Random(rng.random()))
        self.mh = TcpEndpoint(MH, MH_PORT, config, random.Random(rng.random()))
        self.serve: bytes | None = None  # the fixed host's answer to a mobile's request
        self.proxy, self.rng, self.loss, self.dup = proxy, rng, loss, dup
        self.queue: list[tuple[float, int, str, bytes]] = []
        self.order = itertools.count()
        self.received = bytearray()

    def hop(self, now: float, where: str, packet: bytes) -> None:
        """``packet`` leaves for ``where`` ("proxy-from-fh", "proxy-from-mh", "fh", "mh")."""
        for _ in range(2 if self.rng.random() < self.dup else 1):
            if self.rng.random() < self.loss:
                continue
            at = now + ONE_WAY + self.rng.uniform(0, ONE_WAY)  # jitter reorders
            heapq.heappush(self.queue, (at, next(self.order), where, packet))

    def flush(self, now: float) -> None:
        while (event := self.fh.next_event()) is not None:
            if isinstance(event, DataReceived) and self.serve is not None:
                self.fh.send(event.conn_id, self.serve)
                self.fh.close(event.conn_id)
                self.serve = None
        for data, addr in self.fh.datagrams_to_send(now):
            self.hop(now, "proxy-from-fh", build_ipv4(FH, addr[0], PROTO_TCP, data))
        for data, addr in self.mh.datagrams_to_send(now):
            self.hop(now, "proxy-from-mh", build_ipv4(MH, addr[0], PROTO_TCP, data))
        for packet in self.proxy.packets_to_send(now):
            self.hop(now, "mh" if packet[16:20] == bytes(map(int, MH.split("."))) else "fh",
                     packet)  # fmt: skip
        while (event := self.mh.next_event()) is not None:
            if isinstance(event, DataReceived):
                self.received += event.data

    def deliver(self, now: float, where: str, packet: bytes) -> None:
        if where.startswith("proxy"):
            if self.proxy.receive_packet(packet, now):
                self.hop(now, "mh" if where == "proxy-from-fh" else "fh", packet)
            return
        ip, segment = parse_ipv4(packet, verify=False)
        endpoint = self.mh if where == "mh" else self.fh
        endpoint.receive_datagram(segment, (ip.src, int.from_bytes(segment[:2], "big")), now)

    def run(self, forged: list[tuple[float, str, bytes]]) -> None:
        for at, where, packet in forged:
            heapq.heappush(self.queue, (at, next(self.order), where, packet))
        now = 0.0
        while now < END:
            timers = [t for t in (self.fh.get_timer(), self.mh.get_timer(),
                                  self.proxy.get_timer()) if t is not None]  # fmt: skip
            due = min([*timers, self.queue[0][0] if self.queue else END])
            if due >= END:
                break
            now = due
            if self.queue and self.queue[0][0] <= now:
                _, _, where, packet = heapq.heappop(self.queue)
                self.deliver(now, where, packet)
            for endpoint in (self.fh, self.mh):
                timer = endpoint.get_timer()
                if timer is not None and timer <= now:
                    endpoint.handle_timer(now)
            timer = self.proxy.get_timer()
            if timer is not None and timer <= now:
                self.proxy.handle_timer(now)
            self.flush(now)


def forged_segment(rng: random.Random, src: str, dst: str, sport: int, dport: int,
                   kind: str) -> bytes:  # fmt: skip
    flags = {"rst": RST, "ack": ACK, "data": ACK}[kind]
    payload = rng.randbytes(rng.randrange(1, 600)) if kind == "data" else b""
    seq, ack = rng.getrandbits(32), rng.getrandbits(32)
    tcp = encode_segment(sport, dport, seq, ack, flags, 65535, b"", payload,
                         pseudo_header_sum(src, dst))  # fmt: skip
    return build_ipv4(src, dst, PROTO_TCP, tcp)


def forge(rng: random.Random, count: int, kinds: list[str]) -> list[tuple[float, str, bytes]]:
    """``count`` forged segments at random times, toward the proxy or the mobile."""
    out = []
    for _ in range(count):
        kind = rng.choice(kinds)
        if rng.random() < 0.5:  # from the Internet, claiming to be the fixed host
            packet = forged_segment(rng, FH, MH, FH_PORT, MH_PORT, kind)
            where = rng.choice(["proxy-from-fh", "mh"])
        else:  # from the radio side, claiming to be the mobile
            packet = forged_segment(rng, MH, FH, MH_PORT, FH_PORT, kind)
            where = rng.choice(["proxy-from-mh", "fh"])
        out.append((rng.uniform(0, 20), where, packet))
    return out


def transfer(proxy_kind: str, seed: int, loss: float, dup: float, forged: int,
             kinds: list[str], mobile_opens: bool = False) -> tuple[bytes, bytes]:  # fmt: skip
    """The fixed host sends the file: on a connection it opens, or (``mobile_opens``)
    in answer to a request on one the mobile opens."""
    rng = random.Random(seed)
    proxy: SnoopAgent | SplitProxy
    config = TcpConfig(mss=536, time_wait=1.0)
    if proxy_kind == "snoop":
        proxy = SnoopAgent({MH})
    elif proxy_kind == "tcp-wwan":  # a link of 40 kbit/s and 0.15 s round trip, as told
        proxy = TcpWwanProxy({MH}, 40_000, 0.15, random.Random(seed + 1), wired=config)
    else:
        proxy = SplitProxy({MH}, config, config, random.Random(seed + 1), mobile_opens=True)
    path = Path(proxy, rng, loss, dup)
    data = rng.randbytes(SIZE)
    if mobile_opens:
        path.serve = data
        path.fh.listen()
        path.mh.send(path.mh.connect((FH, FH_PORT), 0.0), b"GET / HTTP/1.0\r\n\r\n")
    else:
        path.mh.listen()
        conn = path.fh.connect((MH, MH_PORT), 0.0)
        path.fh.send(conn, data)
        path.fh.close(conn)
    path.flush(0.0)
    path.run(forge(rng, forged, kinds))
    return data, bytes(path.received)


@settings(max_examples=25, deadline=None)
@given(
    proxy=st.sampled_from(["snoop", "split", "tcp-wwan"]),
    seed=st.integers(0, 2**32),
    loss=st.floats(0.0, 0.3),
    dup=st.floats(0.0, 0.3),
    forged=st.integers(0, 30),
    mobile_opens=st.booleans(),
)
def test_the_mobile_gets_a_prefix_of_the_file_whatever_arrives(
    proxy: str, seed: int, loss: float, dup: float, forged: int, mobile_opens: bool
) -> None:
    data, received = transfer(proxy, seed, loss, dup, forged, ["rst", "ack", "data"], mobile_opens)
    assert received == data[: len(received)]


@settings(max_examples=15, deadline=None)
@given(
    proxy=st.sampled_from(["snoop", "split", "tcp-wwan"]),
    seed=st.integers(0, 2**32),
    loss=st.floats(0.0, 0.05),
    dup=st.floats(0.0, 0.3),
    forged=st.integers(0, 30),
    mobile_opens=st.booleans(),
)
def test_without_resets_the_whole_file_arrives_once_in_order(
    proxy: str, seed: int, loss: float, dup: float, forged: int, mobile_opens: bool
) -> None:
    """Loss (up to 5% per hop, four hops), duplication, reordering, stray data and
    forged ACKs (no RST): the file arrives whole within the run (forged ACKs out of the
    window are ignored, RFC 9293 3.10.7.4). Heavier loss may outlast the run or the
    senders' retry limits; the test above covers it for correctness."""
    data, received = transfer(proxy, seed, loss, dup, forged, ["ack", "data"], mobile_opens)
    assert received == data

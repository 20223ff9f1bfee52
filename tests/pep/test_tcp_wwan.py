"""TCP-WWAN (paper 003 4.3.1) on the simulator: a mobile behind an access link opens a
connection to a server on the wired side and downloads; the proxy sits on the router
between them, as ``web.topology`` puts it on the GGSN.

    mobile ==access link== ggsn (proxy hook) ---- 100 Mbit/s, 50 ms ---- server
"""

import itertools
import math
import random
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from wwanlab.core.events import Event
from wwanlab.link.base import Direction
from wwanlab.link.delay import ConstantDelay
from wwanlab.link.presets import get_preset
from wwanlab.link.queue import DropTailQueue
from wwanlab.link.rate import Rate
from wwanlab.pep.base import PacketProxy
from wwanlab.pep.split import SplitProxy
from wwanlab.pep.tcp_wwan import TcpWwanProxy, bdp_window, link_of, make_tcp_wwan
from wwanlab.sim.ipv4 import PROTO_TCP
from wwanlab.sim.network import Network
from wwanlab.sim.proxy import ProxyDriver
from wwanlab.tcp import DataReceived, PeerClosed, TcpConfig, TcpEndpoint
from wwanlab.tcp.config import InitialWindow
from wwanlab.tcp.connection import TcpConnection

MOBILE, SERVER = "10.0.0.2", "10.3.0.1"
PORT = 80
REQUEST = b"GET /f HTTP/1.0\r\n\r\n"
# the client TCP of paper 003 (section 3, Linux 2.4.20), as web.topology.linux_2_4
TCP = TcpConfig.linux(initial_window=InitialWindow.RFC5681, rto_initial=3.0, time_wait=1.0)


@dataclass
class Run:
    complete: bool
    seconds: float  # request sent to last octet received
    proxy: PacketProxy | None
    sent: list[tuple[float, bytes]]  # what the proxy sent, with the time


def download(
    size: int,
    down: Direction,
    up: Direction,
    make_proxy: Callable[[set[str], random.Random], SplitProxy] | None,
    *,
    seed: int = 1,
    until: float = 600.0,
) -> Run:
    net = Network(seed)
    mobile = net.add_host("mobile", MOBILE)
    server_host = net.add_host("server", SERVER)
    ggsn = net.add_router("ggsn")
    net.connect(mobile, ggsn, up, down, mtu=1500, name="access")
    net.connect(ggsn, server_host, wired(), wired())
    proxy: PacketProxy | None = None
    sent: list[tuple[float, bytes]] = []
    if make_proxy is not None:
        proxy = make_proxy({MOBILE}, net.kernel.stream("proxy"))
        packets_to_send = proxy.packets_to_send

        def recorded(now: float) -> list[bytes]:
            out = packets_to_send(now)
            sent.extend((now, packet) for packet in out)
            return out

        proxy.packets_to_send = recorded  # type: ignore[method-assign]
        ProxyDriver(ggsn, proxy)
    body = random.Random(seed).randbytes(size)
    server = TcpEndpoint(SERVER, PORT, TCP, net.kernel.stream("server"))
    server.listen()

    def on_server(event: Event) -> None:
        if isinstance(event, DataReceived):
            server.send(event.conn_id, body)
            server.close(event.conn_id)

    server_host.bind_transport(PROTO_TCP, PORT, server, on_event=on_server)
    client = TcpEndpoint(MOBILE, 49152, TCP, net.kernel.stream("client"))
    received = bytearray()
    done: list[float] = []

    def on_client(event: Event) -> None:
        if isinstance(event, DataReceived):
            received.extend(event.data)
        elif isinstance(event, PeerClosed):
            done.append(net.kernel.now)
            client.close(event.conn_id)

    binding = mobile.bind_transport(PROTO_TCP, 49152, client, on_event=on_client)
    conn = client.connect((SERVER, PORT), 0.0)
    client.send(conn, REQUEST)
    binding.flush()
    net.run(until=until)
    net.close()
    complete = bool(done) and bytes(received) == body
    return Run(complete, done[0] if complete else float("nan"), proxy, sent)


def wired() -> Direction:
    return Direction([Rate(100e6), ConstantDelay(0.05)])


# gprs-3plus1 without TBF set-up and outages: the pacing is exact on a steady link
PLAIN_3PLUS1 = "gprs-3plus1[access=false,reselection=false,stalls=false,tbf=false]"


def gprs() -> tuple[Direction, Direction]:
    preset = get_preset(PLAIN_3PLUS1)
    return preset.build("down"), preset.build("up")


def wireless(run: Run) -> TcpConnection:
    assert isinstance(run.proxy, SplitProxy)
    (relay,) = run.proxy.relays
    return relay.wireless.connection(relay.wireless_id)


def test_link_of_gprs_3plus1_and_its_window() -> None:
    bps, rtt = link_of(get_preset("gprs-3plus1"))
    # 39.6 kbit/s down, 300 ms each way, a 1500-octet packet down and a 40-octet ACK up
    assert bps == 39_600
    assert rtt == pytest.approx(0.6 + 1500 * 8 / 39_600 + 40 * 8 / 13_200)
    assert bdp_window(bps, rtt, 1460) == 4 * 1460  # 4,590 octets -> 4 segments


def tcp_wwan(mobiles: set[str], rng: random.Random) -> TcpWwanProxy:
    return make_tcp_wwan(mobiles, get_preset(PLAIN_3PLUS1), rng, wired=TCP)


def split(mobiles: set[str], rng: random.Random) -> SplitProxy:
    return SplitProxy(mobiles, TCP, TCP, rng, mobile_opens=True)


def test_download_over_gprs_through_tcp_wwan_paced_at_a_fixed_window() -> None:
    run = download(100_000, *gprs(), tcp_wwan)
    assert run.complete
    conn = wireless(run)
    assert conn.cwnd == 4 * 1460  # never grown, never reduced
    assert (conn.stats.retransmissions, conn.stats.timeouts, conn.stall_probes) == (0, 0, 0)
    assert conn.pacer is not None and conn.pacer.bps == 39_600
    # Every full-sized segment toward the mobile leaves one segment time after the one
    # before: 1500 octets at 39.6 kbit/s (the queue at the link never grows).
    full = [t for t, p in run.sent if p[16:20] == bytes([10, 0, 0, 2]) and len(p) == 1500]
    assert len(full) == 100_000 // 1460
    gaps = [b - a for a, b in itertools.pairwise(full)]
    assert gaps == pytest.approx([1500 * 8 / 39_600] * len(gaps), abs=1e-9)


def stalled_link(stall_at: float, length: float) -> tuple[Direction, Direction]:
    """gprs-3plus1's rates and delays, a deep queue (200 KB), and a downlink that stops
    for ``length`` s at ``stall_at``: what is queued waits, as a GPRS link layer holds
    it through an outage, and then arrives."""

    class Stalling:  # a link Stage; Rate itself may be compiled, so no subclass
        def __init__(self, bps: float) -> None:
            self.line = Rate(bps)
            self.busy_until = -math.inf

        def process(self, size: int, t: float, rng: random.Random) -> float:
            start = max(t, self.busy_until)
            if stall_at <= start < stall_at + length:
                start = stall_at + length
            self.busy_until = start + self.line.serialization(size)
            return self.busy_until

    down = Direction([DropTailQueue(Stalling(39_600), bytes=200_000), ConstantDelay(0.3)])
    up = Direction([Rate(13_200), ConstantDelay(0.3)])
    return down, up


def test_a_ten_second_stall_times_plain_split_out_but_not_tcp_wwan() -> None:
    wwan = download(100_000, *stalled_link(8.0, 10.0), tcp_wwan)
    plain = download(100_000, *stalled_link(8.0, 10.0), split)
    assert wwan.complete and plain.complete
    w, p = wireless(wwan), wireless(plain)
    assert p.stats.timeouts >= 1 and p.stats.timer_retransmissions >= 1
    assert (w.stats.timeouts, w.stats.retransmissions) == (0, 0)
    assert w.stall_probes >= 1  # the timer expired: probes, no resend
    assert w.cwnd == 4 * 1460


def test_download_times_through_tcp_wwan_split_and_end_to_end(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Paper 003 Table 8 reports TCP-WWAN 5-13% faster on whole pages; here one 100 KB
    transfer on gprs-3plus1 each way, the times printed (a measurement, not a claim)."""
    times = {}
    for name, proxy in (("tcp-wwan", tcp_wwan), ("split", split), ("end-to-end", None)):
        run = download(100_000, *gprs(), proxy)
        assert run.complete
        times[name] = run.seconds
    with capsys.disabled():
        print(" ".join(f"{k} {v:.2f} s" for k, v in times.items()))

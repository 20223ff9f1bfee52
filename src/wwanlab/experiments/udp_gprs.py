"""One web-like download over a preset link on the simulator, by UDP-GPRS or by TCP
(paper 003 section 4.3.2 compares them on its '3+1' GPRS link).

The mobile (10.0.0.1) sends one request message to the proxy (10.0.0.2), which answers
with ``sizes`` octets in as many messages; the download ends when the mobile holds the
last octet. UDP-GPRS carries each response message as one channel message; TCP opens a
connection, sends the request and receives the same octets as one stream. The time runs
from the first packet (UDP-GPRS's first DATA, TCP's SYN) to the last octet, so TCP pays
its handshake and slow start as a browser behind a proxy does. ``stall`` stops the link
both ways for a while, as paper 003 describes GPRS stalls (section 4.3.1).
"""

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from wwanlab.core.errors import UsageError
from wwanlab.core.events import Event
from wwanlab.link.base import Direction, Verdict
from wwanlab.link.gprs_radio import GprsRadioStage
from wwanlab.link.presets import get_preset
from wwanlab.link.queue import DropTailQueue
from wwanlab.link.rate import Rate
from wwanlab.sim import Network
from wwanlab.sim.ipv4 import PROTO_TCP
from wwanlab.sim.link import Link
from wwanlab.tcp import TcpConfig
from wwanlab.tcp.endpoint import TcpEndpoint
from wwanlab.tcp.events import DataReceived
from wwanlab.transports.channel import MessageReceived
from wwanlab.transports.udp_gprs import UdpGprsChannel, UdpGprsConfig

MOBILE_IP = "10.0.0.1"
PROXY_IP = "10.0.0.2"
MOBILE_PORT = 49152  # RFC 6335 6: the first dynamic port
PROXY_PORT = 8080  # assumed: the proxy's port (any would do)
REQUEST = 300  # assumed: octets of the request, about one HTTP GET with its headers
MAX_SIM_TIME = 3600.0  # s of virtual time before a download counts as failed


@dataclass(frozen=True, slots=True)
class Download:
    """What one download did on the link."""

    protocol: str
    size: int  # response octets
    complete: bool
    seconds: float  # NaN when incomplete
    down_bytes: int  # IP octets offered to the downlink
    up_bytes: int
    down_packets: int
    up_packets: int
    dropped: int  # packets either direction lost or refused by a full queue
    max_down_delay: float  # s: the longest a downlink packet took, queueing included
    resent: int  # data packets sent again


class StalledLine:
    """A line that stops from ``start`` to ``end`` (paper 003 4.3.1: "undelivered TCP
    segments accumulate in these large queues ... re-transmitted by the reliable WWAN
    link layer on link repair"): a packet whose turn on the line comes meanwhile waits
    for ``end``, so the queue in front fills and drops what it cannot hold."""

    def __init__(self, line: Rate | GprsRadioStage, start: float, end: float) -> None:
        self.line, self.start, self.end = line, start, end

    def process(self, size: int, t: float, rng: random.Random) -> Verdict:
        turn = max(t, self.line.busy_until)
        return self.line.process(size, self.end if self.start <= turn < self.end else t, rng)


def _stalled(direction: Direction, start: float, end: float) -> Direction:
    """``direction`` with its line (first stage, or the server of its queue) stalled."""
    first = direction.stages[0]
    if isinstance(first, DropTailQueue) and isinstance(first.server, Rate):
        first.server = StalledLine(first.server, start, end)
    elif isinstance(first, Rate | GprsRadioStage):
        direction.stages[0] = StalledLine(first, start, end)
    else:
        raise UsageError(f"cannot stall a link whose first stage is {first!r}")
    return direction


def _network(
    preset: str, loss: float | None, seed: int, stall: tuple[float, float] | None
) -> tuple[Network, Link]:
    link = get_preset(preset)
    net = Network(seed)
    mobile = net.add_host("mobile", MOBILE_IP)
    proxy = net.add_host("proxy", PROXY_IP)
    up, down = link.build("up", loss=loss), link.build("down", loss=loss)
    if stall is not None:
        up, down = _stalled(up, *stall), _stalled(down, *stall)
    wire = net.connect(mobile, proxy, up, down, mtu=link.mtu, name="wwan")
    return net, wire


def _delay_probe(wire: Link) -> list[float]:
    """The downlink's longest one-way delay so far, as a one-element list."""
    sent: dict[bytes, float] = {}
    worst = [0.0]

    def tx(now: float, packet: bytes) -> None:
        sent[packet] = now

    def rx(now: float, packet: bytes) -> None:
        worst[0] = max(worst[0], now - sent.pop(packet, now))

    wire.ba.tx_taps.append(tx)
    wire.ba.rx_taps.append(rx)
    return worst


def _result(
    protocol: str, size: int, end: list[float], wire: Link, worst: list[float], resent: int
) -> Download:
    up, down = wire.ab.stats, wire.ba.stats
    return Download(
        protocol=protocol,
        size=size,
        complete=bool(end),
        seconds=end[0] if end else math.nan,
        down_bytes=down.sent_bytes,
        up_bytes=up.sent_bytes,
        down_packets=down.sent_packets,
        up_packets=up.sent_packets,
        dropped=up.dropped_packets + down.dropped_packets,
        max_down_delay=worst[0],
        resent=resent,
    )


def udp_gprs_download(
    sizes: Sequence[int],
    *,
    preset: str = "gprs-3plus1",
    loss: float | None = None,
    seed: int = 1,
    config: UdpGprsConfig | None = None,
    stall: tuple[float, float] | None = None,
) -> Download:
    """Download ``sizes`` (one message each) over UDP-GPRS."""
    net, wire = _network(preset, loss, seed, stall)
    worst = _delay_probe(wire)
    rng = random.Random(seed)
    request, response = rng.randbytes(REQUEST), [rng.randbytes(n) for n in sizes]
    client = UdpGprsChannel.client((PROXY_IP, PROXY_PORT), net.kernel.stream("udp-gprs"), config)
    server = UdpGprsChannel.server(config)
    got: list[bytes] = []
    end: list[float] = []

    def on_server(event: Event) -> None:
        if isinstance(event, MessageReceived) and event.data == request:
            for message in response:
                server.send_message(message, event.at)

    def on_client(event: Event) -> None:
        if isinstance(event, MessageReceived):
            got.append(event.data)
            if len(got) == len(response):
                end.append(event.at)
                net.kernel.stop()  # keep-alives would run on for ever

    net.host(PROXY_IP).bind_udp(PROXY_PORT, server, on_event=on_server)
    binding = net.host(MOBILE_IP).bind_udp(MOBILE_PORT, client, on_event=on_client)
    client.send_message(request, 0.0)
    binding.flush()
    net.run(until=MAX_SIM_TIME)
    net.close()
    ok = got == response
    resent = client.stats.data_resent + server.stats.data_resent
    return _result("udp-gprs", sum(sizes), end if ok else [], wire, worst, resent)


def tcp_download(
    sizes: Sequence[int],
    *,
    preset: str = "gprs-3plus1",
    loss: float | None = None,
    seed: int = 1,
    config: TcpConfig | None = None,
    stall: tuple[float, float] | None = None,
) -> Download:
    """Download the same octets over one TCP connection (Linux's configuration unless
    ``config`` says otherwise)."""
    config = config or TcpConfig.linux()
    net, wire = _network(preset, loss, seed, stall)
    worst = _delay_probe(wire)
    rng = random.Random(seed)
    request, response = rng.randbytes(REQUEST), b"".join(rng.randbytes(n) for n in sizes)
    proxy = TcpEndpoint(PROXY_IP, PROXY_PORT, config, net.kernel.stream("tcp", "proxy"))
    proxy.listen()
    mobile = TcpEndpoint(MOBILE_IP, MOBILE_PORT, config, net.kernel.stream("tcp", "mobile"))
    asked = bytearray()
    got = bytearray()
    end: list[float] = []

    def on_proxy(event: Event) -> None:
        if isinstance(event, DataReceived):
            asked.extend(event.data)
            if asked == request:
                proxy.send(event.conn_id, response)

    def on_mobile(event: Event) -> None:
        if isinstance(event, DataReceived):
            got.extend(event.data)
            if len(got) == len(response):
                end.append(net.now)
                net.kernel.stop()

    net.host(PROXY_IP).bind_transport(PROTO_TCP, PROXY_PORT, proxy, on_event=on_proxy)
    binding = net.host(MOBILE_IP).bind_transport(
        PROTO_TCP, MOBILE_PORT, mobile, on_event=on_mobile
    )
    conn = mobile.connect((PROXY_IP, PROXY_PORT), 0.0)
    mobile.send(conn, request)
    binding.flush()
    net.run(until=MAX_SIM_TIME)
    net.close()
    ok = bytes(got) == response
    resent = proxy.stats(proxy.open_connections[0]).retransmissions if ok else 0
    return _result(
        f"tcp-{config.variant.value}", len(response), end if ok else [], wire, worst, resent
    )

"""The simulated network of paper 003's testbed (section 2.1, Figure 1).

::

    mobile ==access link== GGSN ---- operator LAN ---- proxy host
                            |
                       wired Internet
                            |
                        Internet router --+-- DNS server
                                          +-- one origin per host name of the page

The access link is a preset (default ``gprs-3plus1``); the GGSN is a router where a
transparent ``PacketProxy`` (TCP-WWAN, split TCP) hooks in; the proxy host is where the
operator runs explicit proxies and the URL-rewriting / DNS-boosting server; the DNS
server and the origins ("virtual web hosting servers") sit behind the wired Internet as
in Figure 1, so every lookup and every connection crosses the access link.

``FetcherDriver`` binds a ``wwanlab.web.fetcher.Fetcher`` to a simulated host: one
binding per local port, one timer, the driver shape of ``core.contract``.
"""

import dataclasses
import ipaddress
import random
from collections.abc import Callable
from dataclasses import dataclass

from wwanlab.core.address import Address
from wwanlab.core.events import Event
from wwanlab.link.base import Direction
from wwanlab.link.delay import ConstantDelay
from wwanlab.link.presets import Preset
from wwanlab.link.rate import Rate
from wwanlab.sim.host import Host
from wwanlab.sim.ipv4 import PROTO_TCP, PROTO_UDP, IpFlow, UdpFlow
from wwanlab.sim.kernel import Handle
from wwanlab.sim.link import Link
from wwanlab.sim.network import Network
from wwanlab.sim.proxy import PacketProxy, ProxyDriver
from wwanlab.sim.router import Router
from wwanlab.tcp import TcpConfig
from wwanlab.tcp.config import RTO_INITIAL_RFC2988, InitialWindow
from wwanlab.web.dns import DNS_PORT, ZoneServer
from wwanlab.web.fetcher import HTTP_PORT, PortEndpoint
from wwanlab.web.origin import HttpOrigin
from wwanlab.web.page import Page, WebObject

MOBILE_IP = "10.0.0.2"
PROXY_IP = "10.1.0.2"
DNS_IP = "10.2.0.53"
FIRST_ORIGIN_IP = ipaddress.IPv4Address("10.3.0.1")

# The wired Internet between the operator and the lab (paper 003 Table 1, "Wired": the
# same pages over 100 Mbps Ethernet take 0.7 s (altavista, 2 servers, 4 objects) to
# 3.1 s (cnn)). 100 Mbit/s is the column's own rate. The delay is derived: a 2-server
# page under HTTP/1.1 needs about 7 round trips (2 lookups, 2 handshakes, the main GET
# and two rounds of embedded GETs), so 0.7 s gives an RTT near 100 ms: 50 ms one way.
WIRED_BPS = 100e6
WIRED_ONE_WAY = 0.050
# The operator's own network (GGSN to proxy): "a well provisioned IPSec VPN ... never
# the bottleneck" (section 2.1). Assumed 100 Mbit/s and 1 ms.
OPERATOR_BPS = 100e6
OPERATOR_ONE_WAY = 0.001
LAN_BPS = 100e6  # lab LAN between the Internet router and each server, no delay

TCP_TIME_WAIT = 1.0  # TIME_WAIT shortened: a download ends long before 60 s matter

ASSUMPTIONS = (
    "wired Internet 100 Mbit/s (Table 1 'Wired' is 100 Mbps Ethernet) with 50 ms one way, "
    "derived from the Wired column: altavista's 0.7 s over about 7 round trips",
    "operator network GGSN-proxy 100 Mbit/s, 1 ms one way (section 2.1: never the "
    "bottleneck); lab LAN to each server 100 Mbit/s, no delay",
    "the DNS server sits with the virtual web hosts behind the Internet (Figure 1), "
    "answering at once from its zone (one address per name, TTL 300 s)",
    "client TCP as Linux 2.4.20 (section 3): SACK (tcp_sack=1), initial window per RFC "
    "2414 (3 segments of 1460 octets), RTO floor 200 ms on the variance term (TCP_RTO_MIN"
    "), initial RTO 3 s (TCP_TIMEOUT_INIT), delayed ACK 40 ms with quick ACKs at the "
    "start, window scaling; timestamps are not modelled",
    "the origins and the proxy run the same TCP as the client",
    "one origin host per host name of the page, each with its own address",
)


def linux_2_4(**overrides: object) -> TcpConfig:
    """The paper's client TCP, Linux 2.4.20 (section 3), where it differs from today's."""
    base = TcpConfig.linux(
        initial_window=InitialWindow.RFC5681,  # RFC 2414 sizes, as 2.4 (IW10 came in 3.0)
        rto_initial=RTO_INITIAL_RFC2988,  # 2.4's TCP_TIMEOUT_INIT = 3 s
        time_wait=TCP_TIME_WAIT,
    )
    return dataclasses.replace(base, **overrides)  # type: ignore[arg-type]


# --- a fetcher on a simulated host ------------------------------------------------------


class _Port:
    """What the host's binding of one local port sees: arrivals go to the fetcher,
    sending and the timer belong to the driver."""

    def __init__(self, driver: "FetcherDriver", protocol: int, port: int) -> None:
        self._driver = driver
        self._protocol = protocol
        self._port = port

    def receive_datagram(self, data: bytes, addr: Address, now: float) -> None:
        self._driver.fetcher.receive(self._protocol, self._port, data, addr, now)

    def handle_timer(self, now: float) -> None:
        pass

    def get_timer(self) -> float | None:
        return None

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Address]]:
        self._driver.flush()
        return []

    def next_event(self) -> Event | None:
        return None


EAGER_PORTS = 4  # ranges up to this long are bound at once (a server's, a resolver's)


class FetcherDriver:
    """Binds ``fetcher`` (any port endpoint) to the ports it names on ``host``; after
    any input: drain its events into ``on_event``, send its datagrams, re-arm its timer.

    A short range (a listening port, a resolver's) is bound at once; a port of a longer
    one (a client's ephemeral ports, thousands of them) when its first datagram leaves,
    since nothing can arrive at a client port before it has sent.
    """

    def __init__(
        self, host: Host, fetcher: PortEndpoint, on_event: Callable[[Event], None]
    ) -> None:
        self.host = host
        self.fetcher = fetcher
        self.on_event = on_event
        self._timer: Handle | None = None
        self._udp: dict[tuple[int, Address], UdpFlow] = {}
        self._ip: dict[tuple[int, str], IpFlow] = {}
        self._flushing = False
        self._lazy: list[tuple[int, range]] = []
        self._bound: set[tuple[int, int]] = set()
        for protocol, ports in fetcher.ports():
            if len(ports) > EAGER_PORTS:
                self._lazy.append((protocol, ports))
                continue
            for port in ports:
                self._bind(protocol, port)

    def flush(self) -> None:
        """Until the endpoint has nothing more to say: events, then datagrams."""
        if self._flushing:
            return
        self._flushing = True
        host = self.host
        endpoint = self.fetcher
        try:
            while True:
                progressed = False
                while (event := endpoint.next_event()) is not None:
                    progressed = True
                    self.on_event(event)
                for protocol, port, data, addr in endpoint.datagrams_to_send(host.kernel.now):
                    progressed = True
                    if (protocol, port) not in self._bound:
                        self._bind_on_send(protocol, port)
                    host.send_packet(self._flow(protocol, port, addr).packet(data, host.next_id()))
                if not progressed:
                    break
        finally:
            self._flushing = False
        self._arm()

    def _bind(self, protocol: int, port: int) -> None:
        self.host.bind_transport(protocol, port, _Port(self, protocol, port))
        self._bound.add((protocol, port))

    def _bind_on_send(self, protocol: int, port: int) -> None:
        """Bind a port of a long range as its first datagram leaves (a port the endpoint
        never named stays unbound: answers to it are the host's "no-port" drops)."""
        if any(p == protocol and port in ports for p, ports in self._lazy):
            self._bind(protocol, port)

    def _flow(self, protocol: int, port: int, addr: Address) -> UdpFlow | IpFlow:
        if protocol == PROTO_UDP:
            udp = self._udp.get((port, addr))
            if udp is None:
                udp = self._udp[(port, addr)] = UdpFlow(self.host.address, addr[0], port, addr[1])
            return udp
        ip = self._ip.get((protocol, addr[0]))
        if ip is None:
            ip = self._ip[(protocol, addr[0])] = IpFlow(self.host.address, addr[0], protocol)
        return ip

    def _arm(self) -> None:
        kernel = self.host.kernel
        when = self.fetcher.get_timer()
        if when is not None and when < kernel.now:
            when = kernel.now
        timer = self._timer
        if timer is not None:
            if not timer.cancelled and timer.when == when:
                return
            timer.cancel()
        self._timer = None if when is None else kernel.call_at(when, self._fire)

    def _fire(self) -> None:
        self._timer = None
        self.fetcher.handle_timer(self.host.kernel.now)
        self.flush()


# --- the network --------------------------------------------------------------------------


def _wire(bps: float, one_way: float) -> Direction:
    return Direction([Rate(bps), ConstantDelay(one_way)])


@dataclass
class WebTopology:
    """The built network and where everything is."""

    net: Network
    preset: Preset
    mobile: Host
    ggsn: Router
    proxy: Host
    dns: Host
    access: Link  # a: mobile, b: GGSN; ``access.ba`` is the downlink
    origins: dict[str, Host]  # host name -> its origin host
    zone: dict[str, list[str]]  # the true zone: host name -> [address]
    tcp: TcpConfig
    proxy_driver: ProxyDriver | None = None

    @property
    def dns_address(self) -> Address:
        return (DNS_IP, DNS_PORT)

    def rng(self, *names: str) -> random.Random:
        return self.net.kernel.stream(*names)


TransparentFactory = Callable[[WebTopology, random.Random], PacketProxy]
"""(topology, rng) -> a transparent proxy for the GGSN (e.g. ``pep.split``, TCP-WWAN)."""


def build(
    page: Page,
    preset: Preset,
    seed: int,
    *,
    loss: float | None = None,
    tcp: TcpConfig | None = None,
    transparent: TransparentFactory | None = None,
    clock: float = 0.0,
) -> WebTopology:
    """The testbed for ``page`` over ``preset`` (``loss`` overrides its loss knob; the
    origins' clock reads ``clock`` at time 0, see ``web.origin``)."""
    net = Network(seed)
    config = tcp or linux_2_4()
    mobile = net.add_host("mobile", MOBILE_IP)
    ggsn = net.add_router("ggsn")
    access = net.connect(
        mobile,
        ggsn,
        preset.build("up", loss=loss),
        preset.build("down", loss=loss),
        mtu=preset.mtu,
        name="access",
    )
    proxy = net.add_host("proxy", PROXY_IP)
    net.connect(
        ggsn,
        proxy,
        _wire(OPERATOR_BPS, OPERATOR_ONE_WAY),
        _wire(OPERATOR_BPS, OPERATOR_ONE_WAY),
        name="operator",
    )
    internet = net.add_router("internet")
    net.connect(ggsn, internet, _wire(WIRED_BPS, WIRED_ONE_WAY), _wire(WIRED_BPS, WIRED_ONE_WAY))
    dns = net.add_host("dns", DNS_IP)
    net.connect(internet, dns, _wire(LAN_BPS, 0.0), _wire(LAN_BPS, 0.0))
    topo = WebTopology(net, preset, mobile, ggsn, proxy, dns, access, {}, {}, config)
    by_host: dict[str, dict[str, WebObject]] = {}
    for obj in page.site().values():
        by_host.setdefault(obj.host.lower(), {})[obj.target] = obj
    for index, (name, objects) in enumerate(sorted(by_host.items())):
        address = str(FIRST_ORIGIN_IP + index)
        host = net.add_host(f"origin:{name}", address)
        net.connect(internet, host, _wire(LAN_BPS, 0.0), _wire(LAN_BPS, 0.0))
        origin = HttpOrigin(
            address, HTTP_PORT, config, topo.rng("origin", name), objects=objects, clock=clock
        )
        host.bind_transport(PROTO_TCP, HTTP_PORT, origin)
        topo.origins[name] = host
        topo.zone[name] = [address]
    dns.bind_udp(DNS_PORT, ZoneServer(topo.zone))
    if transparent is not None:
        topo.proxy_driver = ProxyDriver(ggsn, transparent(topo, topo.rng("proxy", "transparent")))
    return topo

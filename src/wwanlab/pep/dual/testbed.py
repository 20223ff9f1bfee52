"""The dual proxy placed in the simulated testbed of ``web.topology`` (paper 003 Figure
1): the server side on the operator's proxy host, its origin access that host's own DNS
and HTTP (a ``DirectFetcher`` over the wired side), the client side on the mobile host
as the browser's fetcher, the two joined by a channel over TCP (``tcp``) or UDP-GPRS
(``udp-gprs``, paper 003 4.3.2). ``dual_proxy(...)`` is what
``web.browser.Setup.explicit`` takes.
"""

import random

from wwanlab.core.errors import UsageError
from wwanlab.pep.dual.client import ClientProxy
from wwanlab.pep.dual.config import DualConfig
from wwanlab.pep.dual.ports import ClientPorts, ServerPorts
from wwanlab.pep.dual.server import ServerProxy
from wwanlab.pep.dual.store import ChkStore
from wwanlab.sim.ipv4 import PROTO_TCP, PROTO_UDP
from wwanlab.transports.channel import MessageChannel
from wwanlab.transports.tcp_channel import TcpChannel
from wwanlab.transports.udp_gprs import UdpGprsChannel
from wwanlab.web.client import Strategy
from wwanlab.web.fetcher import DirectFetcher, Fetcher
from wwanlab.web.topology import MOBILE_IP, PROXY_IP, FetcherDriver, WebTopology

CHANNEL_PORT = 8080  # the server side's listening port (a proxy's customary one)
CLIENT_PORT = 40000  # the client side's end, below the fetchers' ephemeral ranges
# The proxy's own fetches: HTTP/1.1 with 6 persistent connections per origin, paper 003
# 4.2.1's best; the wired side is fast, so this only bounds the proxy's parallelism.
ORIGIN_STRATEGY = Strategy("HTTP/1.1", 6)
TRANSPORTS = ("tcp", "udp-gprs")


def dual_proxy(
    config: DualConfig,
    client_store: ChkStore | None = None,
    server_store: ChkStore | None = None,
    transport: str = "tcp",
) -> "DualFactory":
    """A factory for ``Setup.explicit``; pass the same stores to the next visit's factory
    to keep both sides' CHK caches across downloads."""
    if transport not in TRANSPORTS:
        raise UsageError(f"unknown dual-proxy transport {transport!r} (known: tcp, udp-gprs)")
    return DualFactory(config, client_store, server_store, transport)


class DualFactory:
    def __init__(
        self,
        config: DualConfig,
        client_store: ChkStore | None,
        server_store: ChkStore | None,
        transport: str,
    ) -> None:
        self.config = config
        self.transport = transport
        self.client_store = client_store
        self.server_store = server_store
        self.server: ServerProxy | None = None
        self.client: ClientProxy | None = None

    def __call__(self, topo: WebTopology, rng: random.Random) -> Fetcher:
        server_rng = topo.rng("proxy", "dual")
        origin = DirectFetcher(PROXY_IP, topo.dns_address, topo.tcp, server_rng, ORIGIN_STRATEGY)
        server_channel: MessageChannel
        client_channel: MessageChannel
        if self.transport == "tcp":
            protocol = PROTO_TCP
            server_channel = TcpChannel.listen((PROXY_IP, CHANNEL_PORT), topo.tcp, server_rng)
            client_channel = TcpChannel.connect(
                (MOBILE_IP, CLIENT_PORT), (PROXY_IP, CHANNEL_PORT), topo.tcp, rng
            )
        else:
            protocol = PROTO_UDP
            server_channel = UdpGprsChannel.server()
            client_channel = UdpGprsChannel.client((PROXY_IP, CHANNEL_PORT), rng)
        self.server = ServerProxy(server_channel, origin, self.config, self.server_store)
        FetcherDriver(
            topo.proxy, ServerPorts(self.server, origin, protocol, CHANNEL_PORT), lambda e: None
        )
        self.client = ClientProxy(client_channel, self.config, self.client_store)
        return ClientPorts(self.client, protocol, CLIENT_PORT, PROXY_IP)
